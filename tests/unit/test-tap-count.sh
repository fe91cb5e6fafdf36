#!/usr/bin/env bash
# test-tap-count.sh [--tap] [FIXTURES HMSCTL] - host tests of how `make
# check` counts: scripts/tap-count.awk (results per suite, expected and
# unexpected skips) and scripts/tap-summary.awk (the closing lines and the
# exit status), on TAP streams written here. A skip that
# tests/guest/skips.known does not list, a missing suite, a short plan or
# a malformed list must each fail the run. TAP on stdout.
case ${1:-} in
-h|--help)
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit 0 ;;
esac
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
count=$top/scripts/tap-count.awk
summary=$top/scripts/tap-summary.awk
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=1; fi
}

cat > "$tmp/known" <<'EOF'
# a comment, then entries
two-* | hbind | needs a third node* | this topology has two memory nodes
* | kselftest/hmm-tests | hmm.hmm_device_coherent.* | no coherent device memory
EOF

# run TOPOLOGY WANT < TAP: tap-count then tap-summary; sets rc_count,
# rc_sum and last (the closing line)
run() {
	cat > "$tmp/tap"
	awk -f "$count" -v topo="$1" -v want="$2" -v known="$tmp/known" \
		"$tmp/tap" > "$tmp/counts" 2> "$tmp/count.err"
	rc_count=$?
	awk -f "$summary" "$tmp/counts" > "$tmp/summary"
	rc_sum=$?
	last=$(tail -n 1 "$tmp/summary")
}

run two-socket "" <<'EOF'
# suite: hbind
1..2
ok 1 BIND puts pages there in 12ms
ok 2 needs a third node for this in 3ms # skip needs 3 memory nodes
# suite: kselftest/hmm-tests
1..2
ok 1 hmm.hmm_device_coherent.open # SKIP DEVICE_COHERENT not available
ok 2 hmm.hmm_device_private.open
EOF
[ $rc_count = 0 ] && [ $rc_sum = 0 ] && [ "$last" = "2 passed, 0 failed, 2 skipped" ]
ok $? "listed skips are expected: exit 0, '2 passed, 0 failed, 2 skipped' (got '$last')"
grep -q -E '^  two-socket +hbind +1 passed, 0 failed, 1 expected skips, 0 unexpected skips$' "$tmp/summary"
ok $? "one line per suite with passed, failed, expected and unexpected skips"

run flat "" <<'EOF'
# suite: hbind
1..2
ok 1 BIND puts pages there
ok 2 needs a third node for this # skip needs 3 memory nodes
EOF
[ $rc_count != 0 ] && [ $rc_sum != 0 ] && [ "$last" = "1 passed, 1 failed, 0 skipped" ] &&
	grep -q 'needs a third node for this (skipped: needs 3 memory nodes)' "$tmp/summary"
ok $? "a skip listed for other topologies fails the run and is named (got '$last')"

run two-socket "" <<'EOF'
# suite: device
1..1
ok 1 migrate to the device # skip no test_hms module
EOF
[ $rc_sum != 0 ] && [ "$last" = "0 passed, 1 failed, 0 skipped" ]
ok $? "an unlisted skip is a failure, never '0 failed' (got '$last')"

run two-socket "hbind device" <<'EOF'
# suite: hbind
1..1
ok 1 BIND puts pages there
EOF
[ $rc_sum != 0 ] && grep -q 'device: no results: the suite did not run' "$tmp/summary"
ok $? "a wanted suite without results fails"

run two-socket hbind <<'EOF'
# suite: hbind
1..3
ok 1 BIND puts pages there
EOF
[ $rc_sum != 0 ] && [ "$last" = "1 passed, 2 failed, 0 skipped" ]
ok $? "results missing from the plan count as failed (got '$last')"

run two-socket hbind <<'EOF'
# suite: hbind
ok 1 BIND puts pages there
EOF
[ $rc_sum != 0 ] && grep -q 'no TAP plan' "$tmp/summary"
ok $? "a suite without a plan fails"

run two-socket "kselftest" <<'EOF'
# suite: kselftest/migration
1..2
ok 1 migration.private_anon_thp
ok 2 migration.shared_anon # SKIP known failure: fails on the pristine kernel too
EOF
[ $rc_sum = 0 ] && [ "$last" = "1 passed, 0 failed, 1 skipped" ]
ok $? "a kselftest.known failure is an expected skip; 'kselftest' wants any kselftest/BINARY (got '$last')"

run two-socket "" < /dev/null
[ $rc_sum != 0 ] && [ "$last" = "0 passed, 1 failed, 0 skipped" ]
ok $? "no TAP at all fails (got '$last')"

run two-socket hbind <<'EOF'
# suite: hbind
1..2
ok 1 a
not ok 2 b in 5ms
EOF
[ $rc_sum != 0 ] && grep -q '^  two-socket hbind: not ok 2 b in 5ms$' "$tmp/summary"
ok $? "a failed test is listed under Failures"

echo 'two-socket | hbind | no reason given' >> "$tmp/known"
run two-socket hbind <<'EOF'
# suite: hbind
1..1
ok 1 a
EOF
[ $rc_count != 0 ] && grep -q 'not TOPOLOGY | SUITE | TEST | REASON' "$tmp/count.err"
ok $? "a skips list entry without TOPOLOGY | SUITE | TEST | REASON fails, and says why"

# the real list: every entry has four fields and a reason
awk -F'|' '!/^[ \t]*(#|$)/ && (NF < 4 || $4 ~ /^[ \t]*$/) { print; bad = 1 } END { exit bad }' \
	"$top/tests/guest/skips.known"
ok $? "tests/guest/skips.known: every entry is TOPOLOGY | SUITE | TEST | REASON"

echo "1..$n"
exit $bad
