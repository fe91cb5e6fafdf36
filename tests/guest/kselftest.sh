#!/bin/sh
# kselftest.sh - in the guest: the kernel's selftests built from the series
# (scripts/build-kselftests.sh): mm/hbind-tests (with test_hms loaded, for
# its device tests), mm/hmm-tests (with test_hmm) and mm/migration. Each
# prints its own TAP stream (kselftest harness), passed on to stdout, where
# `make check` counts every test. A test listed in kselftest.known (it also
# fails on the pristine kernel in this guest, with the reason) is reported as
# skipped when it fails; every other failure counts. A module that does
# not load is a failed test of its own: the device tests would only skip.
# Usage: [KS=DIR] kselftest.sh [BINARY...] (default: all three, from
# /mnt/hms/kselftest/mm; scripts/kq.sh build-each runs a prefix's own)
case ${1:-} in
-h|--help)
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit 0 ;;
esac
KS=${KS:-/mnt/hms/kselftest/mm}
KNOWN=$(dirname "$0")/kselftest.known
rc=0

# load MODULE: modprobe it; if it fails, a TAP stream with one failed test
load() {
	modprobe "$1" && return 0
	echo "1..1"
	echo "not ok 1 modprobe $1"
	rc=1
	return 1
}

# run BINARY: its TAP, known failures turned into skips
run() {
	if [ ! -x "$KS/$1" ]; then
		echo "1..1"
		echo "not ok 1 $1: not built (scripts/build-kselftests.sh)"
		rc=1
		return
	fi
	echo "# kselftest: $1"
	(cd "$KS" && "./$1"; echo "# kselftest: $1 exit $?") 2>&1 |
		awk -v bin="$1" -v known="$KNOWN" '
		BEGIN {
			while ((getline l < known) > 0) {
				if (l ~ /^[ \t]*(#|$)/) continue
				split(l, f, " ")
				r = l; sub(/^[^ ]+ +[^ ]+ +/, "", r)
				if (f[1] == bin) why[f[2]] = r
			}
		}
		/^not ok [0-9]+ / {
			name = $4
			if (name in why) {
				sub(/^not ok/, "ok")
				print $0 " # SKIP known failure: " why[name]
				next
			}
			bad = 1
		}
		{ print }
		END { exit bad }'
}

[ $# -gt 0 ] || set -- hbind-tests hmm-tests migration
# hugetlb pages for hmm-tests' and migration's hugetlb cases, as
# run_vmtests.sh reserves them; restored at the end
hp=/proc/sys/vm/nr_hugepages
hp_was=$(cat $hp 2>/dev/null)
[ -z "$hp_was" ] || echo 16 > $hp
for b in "$@"; do
	echo "# suite: kselftest/$b"
	case $b in
	hbind-tests)
		load test_hms && { run hbind-tests || rc=1; }
		rmmod test_hms 2>/dev/null
		;;
	hmm-tests)
		# test_hmm stays loaded (see device.bats: unloading it leaks)
		load test_hmm && { run hmm-tests || rc=1; }
		;;
	*)
		run "$b" || rc=1
		;;
	esac
done
[ -z "$hp_was" ] || echo "$hp_was" > $hp
exit $rc
