#!/bin/sh
# run.sh - in the guest: run the named bats suites, TAP on stdout.
# Usage: /mnt/hms/tests/guest/run.sh SUITE...
# After the suites, with a DEBUG kernel, a kmemleak scan is reported as one
# more TAP test.
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
if [ -n "$files" ]; then
	# shellcheck disable=SC2086
	bats --formatter tap --timing $files
	rc=$?
fi
if [ $kselftest = 1 ]; then
	./kselftest.sh || rc=1
fi
if [ "${HMS_DEBUG_KERNEL:-0}" = 1 ] && [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	leaks=$(cat /sys/kernel/debug/kmemleak)
	if [ -n "$leaks" ]; then
		echo "not ok 9999 kmemleak: no leaked objects after the suites"
		echo "# $(echo "$leaks" | grep -c '^unreferenced object') leaked objects:"
		echo "$leaks" | head -400 | sed 's/^/# /'
		rc=1
	else
		echo "ok 9999 kmemleak: no leaked objects after the suites"
	fi
fi
exit $rc
