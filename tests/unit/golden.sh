#!/usr/bin/env bash
# golden.sh [--tap] FIXTURES HMSCTL - what hmsctl prints on each fixture
# is what golden/FIXTURE.txt says, and what it prints without one (usage,
# version, usage errors) is golden/cli.txt. One TAP test per file, on
# stdout like the test programs (run-tests.sh merges them); a difference
# fails the test and shows as a diff, golden file first.
#
# golden.sh --update FIXTURES HMSCTL writes the files instead; that is
# `make -C tests/unit golden`. Review the diff before committing it.
#
# A file is a transcript: per run, "$ hmsctl ARGS", then its standard
# output, its standard error with "! " before each line, and "[exit N]"
# when the status is not 0. On a fixture every run has --root FIXTURE
# (not shown), and the runs are the read-only commands: topology in each
# format; path, table and JSON, for every v1 initiator and target uid
# under the fixture's devices/ (objects libhms skips give errors); best
# and fallback for every such initiator by each criterion, fallback also
# with each --only filter; and the selectors in extra_runs below.
case ${1:-} in
-h|--help)
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit 0 ;;
esac
set -uo pipefail
update=0
case ${1:-} in
--tap) shift ;;
--update) update=1; shift ;;
esac
[ $# -eq 2 ] || { echo "usage: $0 [--tap|--update] FIXTURES HMSCTL" >&2; exit 2; }
fixtures=$1 hmsctl=$2
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/golden
mkfixture=$here/../fixtures/mkfixture.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset HMS_SYSFS_ROOT
export LC_ALL=C

# run ROOT ARGS...: one transcript block (ROOT empty: no --root)
run() {
	local root=$1 rc
	shift
	printf '$ hmsctl'
	printf ' %s' "$@"
	echo
	"$hmsctl" ${root:+--root "$root"} "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	cat "$tmp/out"
	[ -s "$tmp/out" ] && [ -n "$(tail -c 1 "$tmp/out")" ] && echo "[no newline]"
	sed 's/^/! /' "$tmp/err"
	[ $rc = 0 ] || echo "[exit $rc]"
}

# uids ROOT TYPE: the uids of the v1 objects of that type, in order
uids() {
	find "$1/devices/" -mindepth 1 -maxdepth 1 -name "v1-*-$2" -printf '%f\n' |
		sed 's/^v1-\([0-9]*\)-.*/\1/' | sort -n
}

# selectors beyond uids, per fixture (numbers: tests/fixtures/mkfixture.sh)
extra_runs() {
	case $1 in
	two-socket-hbm)
		echo "path node:0 node:2"
		echo "path cpu:1 node:3"
		echo "path --format json cpu:0 cpu:1"
		echo "best cpu:1 --by bandwidth"
		echo "fallback node:1 --by latency --only cpuless,system"
		;;
	device)
		echo "path hms_test0 hms_test1"
		echo "path hms_test1 hms_test0"
		echo "path hms_test0 node:0"
		echo "best hms_test1 --by latency --only device"
		echo "fallback hms_test0 --by bandwidth --only cpu-accessible"
		;;
	paths)
		echo "path node:0 node:0"
		echo "fallback cpu:1 --by latency"
		;;
	esac
}

# transcript FIXTURE: every run on it
transcript() {
	local root=$fixtures/$1/sys/bus/hms i t by only args
	local ins tgts

	echo "# hmsctl on fixture $1; regenerate: make -C tests/unit golden"
	ins=$(uids "$root" initiator)
	tgts=$(uids "$root" target)
	run "$root" topology
	run "$root" --format json topology
	run "$root" --format dot topology
	for i in $ins; do
		for t in $tgts; do
			run "$root" path "$i" "$t"
			run "$root" --json path "$i" "$t"
		done
	done
	for i in $ins; do
		for by in bandwidth latency capacity; do
			run "$root" best "$i" --by $by
			run "$root" --json best "$i" --by $by
			run "$root" fallback "$i" --by $by
			run "$root" --json fallback "$i" --by $by
		done
		for only in system device cpuless cpu-accessible; do
			run "$root" fallback "$i" --by bandwidth --only $only
		done
	done
	while read -r args; do
		# shellcheck disable=SC2086 # one word per argument
		run "$root" $args
	done < <(extra_runs "$1")
}

# what needs no fixture
cli_transcript() {
	echo "# hmsctl without a fixture; regenerate: make -C tests/unit golden"
	run "" --help
	run "" --version
	run ""
	run "" bogus
	run "" path 1
	run "" topology extra
	run "" --format dot best 1 --by latency
	run "" --json show
	run "" --dot run --targets 1 -- true
	run "" best 1 --by speed
	run "" fallback 1
	run "" stat --cgroup /nonexistent-cgroup
	run "" stat --pid 0
	run "" stat --pid 1x
	run "" --pid 1 topology
	run "" migrate --pid 1
	run "" migrate --pid 1 --to node:x
	run "" stat --pid 1 --to 1
	run "" --dot stat --pid 1
	run "" stat --pid 1 --cgroup /sys/fs/cgroup
	run "" --cgroup /sys/fs/cgroup topology
}

names=(cli)
for f in $("$mkfixture" --list); do
	names+=("$f")
done

n=0 failed=0
if [ $update = 1 ]; then
	mkdir -p "$golden"
	for f in "${names[@]}"; do
		if [ "$f" = cli ]; then cli_transcript; else transcript "$f"; fi \
			> "$golden/$f.txt"
		echo "wrote ${golden#"$here"/}/$f.txt"
	done
	exit 0
fi
for f in "${names[@]}"; do
	n=$((n + 1))
	spec="hmsctl prints what golden/$f.txt says"
	[ "$f" = cli ] || spec="$spec on fixture $f"
	if [ ! -f "$golden/$f.txt" ]; then
		echo "not ok $n - $spec"
		echo "# golden/$f.txt is missing: make -C tests/unit golden"
		failed=1
		continue
	fi
	if [ "$f" = cli ]; then cli_transcript; else transcript "$f"; fi > "$tmp/got"
	if diff -u --label "golden/$f.txt" --label "hmsctl now" "$golden/$f.txt" \
		"$tmp/got" > "$tmp/diff"; then
		echo "ok $n - $spec"
	else
		echo "not ok $n - $spec"
		sed 's/^/# /' "$tmp/diff"
		failed=1
	fi
done
n=$((n + 1))
stale=
for g in "$golden"/*.txt; do
	[ -e "$g" ] || continue
	g=${g##*/}
	[[ " ${names[*]} " == *" ${g%.txt} "* ]] || stale="$stale $g"
done
if [ -z "$stale" ]; then
	echo "ok $n - every golden file belongs to a fixture or the CLI"
else
	echo "not ok $n - every golden file belongs to a fixture or the CLI"
	echo "# stale:$stale"
	failed=1
fi
echo "1..$n"
exit $failed
