#!/usr/bin/env bash
# check.sh - what `make check` runs once the kernel, rootfs and userspace
# are built (run by hand, it builds them first, through the Makefile): the
# host unit tests, then each topology of tests/guest/suites.conf booted with
# its bats suites. A TAP line per test, and at the end one line
# "N passed, N failed[, N skipped]"; exits non-zero on any failure, missing
# result, guest crash or timeout. Results are kept in $HMS_CACHE/check/.
#
#   scripts/check.sh            (or: make check)
#   DEBUG=1   use the debug kernel (KASAN, lockdep, kmemleak, fault injection)
#   TOPOLOGIES="flat tiered"   only these topologies
#   SUITES="hbind"             only these suites (where the topology has them;
#                              "unit" selects the host unit tests)
#   HMS_GUEST_TIMEOUT=SECONDS  per-guest limit (default 1800, DEBUG=1: 7200)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

case ${1:-} in
-h|--help) script_help; exit 0 ;;
'') ;;
*) script_help >&2; exit 2 ;;
esac

DEBUG=${DEBUG:-0}
dbg=()
# per-guest time limit; the DEBUG kernel (KASAN, lockdep, kmemleak under
# TCG) runs the same suites five to eight times slower
guest_timeout=${HMS_GUEST_TIMEOUT:-1800}
if [ "$DEBUG" = 1 ]; then
	dbg=(--debug)
	guest_timeout=${HMS_GUEST_TIMEOUT:-7200}
fi
# the Makefile's start time, so that "in all" counts the builds too
t0=${HMS_T0:-$(date +%s)}
need kernel rootfs userspace || die "set-up or build failed"
log "set-up and builds done in $(duration $(( $(date +%s) - t0 )))"

res=$HMS_CACHE/check/$(date +%Y%m%d-%H%M%S)
mkdir -p "$res"
ln -sfn "$res" "$HMS_CACHE/check/last"
pass=0 fail=0 skip=0
failed=()
# read a copy: editing suites.conf during a run must not change the run
cp "$HMS_TOP/tests/guest/suites.conf" "$res/suites.conf"

# count_tap FILE LABEL: add a TAP stream's results to the totals
count_tap() {
	local f=$1 label=$2 plan p=0 n=0 s=0
	sed -i 's/\r$//' "$f"
	# one plan per TAP stream (bats, then each kernel selftest): their sum
	plan=$(grep -E '^1\.\.[0-9]+' "$f" | cut -d. -f3 | awk '{ n += $1 } END { if (NR) print n }')
	p=$(grep -E '^ok [0-9]+' "$f" | grep -v -c -E '# (skip|SKIP)')
	s=$(grep -E '^ok [0-9]+' "$f" | grep -c -E '# (skip|SKIP)')
	n=$(grep -c -E '^not ok [0-9]+' "$f")
	while IFS= read -r l; do failed+=("$label: $l"); done < <(grep -E '^not ok [0-9]+' "$f")
	# a plan that promises more than ran: the missing ones failed (the
	# kmemleak line, test 9999, is outside the plan)
	local extra=0 ran
	grep -q -E '^(not )?ok 9999 ' "$f" && extra=1
	ran=$((p + s + n - extra))
	if [ -n "$plan" ] && [ "$ran" -lt "$plan" ]; then
		failed+=("$label: $((plan - ran)) tests gave no result")
		n=$((n + plan - ran))
	fi
	if [ -z "$plan" ]; then
		failed+=("$label: no TAP plan (nothing ran)")
		n=$((n + 1))
	fi
	pass=$((pass + p)) fail=$((fail + n)) skip=$((skip + s))
}

# host unit tests (library, CLI): TAP on stdout
if [ -z "${SUITES:-}" ] || [[ " $SUITES " == *" unit "* ]]; then
	log "host unit tests"
	make -s -C "$HMS_TOP/tests/unit" check TAP=1 BUILDDIR="$HMS_OUT/unit" > "$res/unit.tap" 2> "$res/unit.err"
	cat "$res/unit.tap"
	count_tap "$res/unit.tap" unit
	log "host test of the hwloc plugin"
	make -s -C "$HMS_TOP/libc-wrapper/hwloc" check TAP=1 BUILDDIR="$HMS_OUT/hwloc-check" \
		> "$res/hwloc-host.tap" 2> "$res/hwloc-host.err"
	cat "$res/hwloc-host.tap"
	count_tap "$res/hwloc-host.tap" hwloc-host
fi

while IFS= read -r line; do
	line=${line%%#*}
	[ -n "${line// /}" ] || continue
	topo=${line%%:*}
	read -r -a suites <<< "${line#*:}"
	if [ -n "${TOPOLOGIES:-}" ] && [[ " $TOPOLOGIES " != *" $topo "* ]]; then continue; fi
	if [ -n "${SUITES:-}" ]; then
		sel=()
		for s in "${suites[@]}"; do [[ " $SUITES " == *" $s "* ]] && sel+=("$s"); done
		suites=("${sel[@]}")
	fi
	[ ${#suites[@]} -gt 0 ] || continue
	log "guest: $topo: ${suites[*]}"
	"$HMS_TOP/scripts/vm.sh" --topology "$topo" "${dbg[@]}" --timeout "$guest_timeout" \
		-- /mnt/hms/tests/guest/run.sh "${suites[@]}" 2> >(tee "$res/$topo.err" >&2) |
		tee "$res/$topo.tap"
	rc=${PIPESTATUS[0]}
	count_tap "$res/$topo.tap" "$topo"
	if [ "$rc" = 124 ] || [ "$rc" = 125 ]; then
		failed+=("$topo: guest crashed or timed out (exit $rc), see $res/$topo.err")
		fail=$((fail + 1))
	fi
done < "$res/suites.conf"

echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "Failures:"
	printf '  %s\n' "${failed[@]}"
fi
log "results in $res; $(duration $(( $(date +%s) - t0 ))) in all"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" = 0 ] && [ $((pass + skip)) -gt 0 ]
