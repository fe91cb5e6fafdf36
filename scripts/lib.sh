# shellcheck shell=bash disable=SC2034
# Common settings for the HMS scripts. Source it; do not run it.
#
# HMS_CACHE holds everything that is big and rebuilt incrementally: the
# pristine kernel tree (a git repository), the series worktree, the kernel
# object directory, the rootfs and the userspace build outputs. It lives
# outside the clone so that a fresh clone on the same machine reuses it.
# (The settings below are for the scripts that source this file.)

HMS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HMS_CACHE=${HMS_CACHE:-/var/cache/hms}
KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
KPRISTINE=$HMS_CACHE/linux-pristine	# git repo, first commit = pristine tree
KOBJ=$HMS_CACHE/kbuild			# kernel object directory (O=)
KOBJ_DEBUG=$HMS_CACHE/kbuild-debug	# object directory for DEBUG=1
KOBJ_PROFILE=$HMS_CACHE/kbuild-profile	# ftrace kernel (make bench PROFILE=1)
ROOTFS=$HMS_CACHE/rootfs
HMS_OUT=$HMS_CACHE/out			# userspace build outputs shared with the guest
JOBS=${JOBS:-$(nproc)}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# script_help: the running script's header comment (the comment lines after
# the #! line, up to the first line that is not a comment), unmarked
script_help() {
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

# need STEP...: make sure these build steps (Makefile targets: deps, kernel,
# rootfs, userspace) are done. The Makefile is their one implementation:
# under `make check`, `make demo`, ... they are the target's prerequisites
# and already ran (HMS_FROM_MAKE=1); a script run by hand runs them here.
need() {
	[ "${HMS_FROM_MAKE:-0}" = 1 ] && return 0
	command -v make >/dev/null || "$HMS_TOP/scripts/setup.sh"
	make -C "$HMS_TOP" --no-print-directory "$@" >&2
}

# duration SECONDS: "42s" or "3m05s"
duration() {
	if [ "$1" -ge 60 ]; then
		printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
	else
		printf '%ds' "$1"
	fi
}

# long_step WHAT EXPECTED LOGFILE PROGRESS CMD [ARGS...]: run CMD with its
# output in LOGFILE, first saying what it does, how long it takes (EXPECTED,
# e.g. "about 3 min on a cold machine") and where its log is, then every HMS_PROGRESS_EVERY seconds (30)
# one line with the time so far and what the function PROGRESS prints (''
# for none). On failure prints the end of the log. Returns CMD's status.
# CMD may run where set -e is off (long_step ... || die): a function given
# as CMD must return its own failures (&& chains).
long_step() {
	local what=$1 expected=$2 logfile=$3 progress=$4 pid t0 next rc=0
	local every=${HMS_PROGRESS_EVERY:-30}
	shift 4
	log "$what: $expected; log: $logfile"
	t0=$SECONDS
	next=$((t0 + every))
	"$@" > "$logfile" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		[ "$SECONDS" -ge "$next" ] || continue
		next=$((SECONDS + every))
		log "  ... $(duration $((SECONDS - t0)))${progress:+: $($progress 2>/dev/null)}"
	done
	wait "$pid" || rc=$?
	if [ "$rc" = 0 ]; then
		log "  done in $(duration $((SECONDS - t0)))"
	else
		tail -n 30 "$logfile" >&2
		log "  failed after $(duration $((SECONDS - t0))) (exit $rc; log: $logfile)"
	fi
	return "$rc"
}
