#!/bin/sh
# run.sh - in the guest: run the named bats suites, TAP on stdout.
# Usage: /mnt/hms/tests/guest/run.sh SUITE...
# Each suite's TAP stream follows a line "# suite: NAME" (the kernel's
# selftests: "# suite: kselftest/BINARY"), so that the host counts results
# per suite. After the suites, with a DEBUG kernel, a kmemleak scan is
# reported as one more TAP test (suite "kmemleak").
case ${1:-} in
-h|--help)
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit 0 ;;
esac
cd /mnt/hms/tests/guest || exit 2
files=
kselftest=0
for s in "$@"; do
	# "kselftest": the kernel's selftests (kselftest.sh), their own TAP
	if [ "$s" = kselftest ]; then kselftest=1; continue; fi
	files="$files $s.bats"
done
echo never > /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
export BATS_TMPDIR=/tmp
# --timing: each result line ends "in N ms", to see where a run spends its time
rc=0
for f in $files; do
	echo "# suite: ${f%.bats}"
	bats --formatter tap --timing "$f" || rc=1
done
if [ $kselftest = 1 ]; then
	./kselftest.sh || rc=1
fi
if [ "${HMS_DEBUG_KERNEL:-0}" = 1 ]; then
	echo "# suite: kmemleak"
	echo "1..1"
	if [ ! -w /sys/kernel/debug/kmemleak ]; then
		echo "not ok 1 kmemleak: no /sys/kernel/debug/kmemleak in the DEBUG kernel"
		exit 1
	fi
	echo scan > /sys/kernel/debug/kmemleak
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	leaks=$(cat /sys/kernel/debug/kmemleak)
	if [ -n "$leaks" ]; then
		echo "not ok 1 kmemleak: no leaked objects after the suites"
		echo "# $(echo "$leaks" | grep -c '^unreferenced object') leaked objects:"
		echo "$leaks" | head -400 | sed 's/^/# /'
		rc=1
	else
		echo "ok 1 kmemleak: no leaked objects after the suites"
	fi
fi
exit $rc
