#!/usr/bin/env bash
# check-readme.sh [--tap] FIXTURES HMSCTL - the README is what it says it
# is: its `hmsctl topology` block is not empty and is the output in
# docs/hmsctl-topology.txt (`scripts/readme-topology.sh --check`, which
# fails, naming what differs, on copies with the block emptied, a line of
# it changed, or a marker gone); its C program is the text of
# libc-wrapper/examples/hms-best.c; its links name files of the
# repository; it has at most 170 lines. Needs no kernel, guest or cache.
# TAP on stdout, like the test programs (run-tests.sh merges them);
# FIXTURES and HMSCTL are unused.
case ${1:-} in
-h|--help)
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit 0 ;;
esac
set -uo pipefail
[ "${1:-}" = --tap ] && shift
[ $# -eq 2 ] || { echo "usage: $0 [--tap] FIXTURES HMSCTL" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
readme=$top/README.md
txt=$top/docs/hmsctl-topology.txt
gen=$top/scripts/readme-topology.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.bash"


# fails_with SPEC PATTERN: --check on $tmp/README.md fails and says PATTERN
fails_with() {
	local out rc
	out=$(HMS_CACHE=$tmp/cache "$gen" --check "$tmp/README.md" "$txt" 2>&1)
	rc=$?
	[ "$rc" != 0 ] && grep -q -E -- "$2" <<< "$out"
	result $? "$1" "exit $rc, output:" "$out"
}

out=$(HMS_CACHE=$tmp/cache "$gen" --check 2>&1)
result $? "README.md's hmsctl topology block is docs/hmsctl-topology.txt, not empty" "$out"
[ ! -e "$tmp/cache" ]
result $? "--check needs no cache and writes none" "$(ls -A "$tmp/cache" 2>&1)"

# the block: the lines between the begin marker's fence and the end marker's
awk '/^<!-- begin hmsctl-topology/ { print; print "```"; print "```"; skip = 1; next }
	/^<!-- end hmsctl-topology -->$/ { skip = 0 } !skip' "$readme" > "$tmp/README.md"
fails_with "a README whose block is empty fails" 'block is empty'

awk '/^<!-- begin hmsctl-topology/ { inb = 1 } inb && /^targets:/ { sub(/[0-9]+/, "99") }
	/^<!-- end hmsctl-topology -->$/ { inb = 0 } { print }' "$readme" > "$tmp/README.md"
fails_with "a README whose block has a line changed fails, with a diff" '^\+targets: 99'

grep -v '^<!-- end hmsctl-topology -->$' "$readme" > "$tmp/README.md"
fails_with "a README without the end marker fails" '1 begin and 0 end markers'

# the C block: the text of the example from "int main" on
awk '/^```c$/ { inb = 1; next } inb && /^```$/ { exit } inb' "$readme" > "$tmp/c"
sed -n '/^int main(void)/,$p' "$top/libc-wrapper/examples/hms-best.c" > "$tmp/want"
[ -s "$tmp/c" ] && cmp -s "$tmp/c" "$tmp/want"
result $? "README.md's C program is libc-wrapper/examples/hms-best.c from main() on" \
	"$(diff -u "$tmp/want" "$tmp/c")"

bad=()
while IFS= read -r l; do
	[ -e "$top/$l" ] || bad+=("$l")
done < <(grep -o -E '\]\([^)#]+' "$readme" | sed 's/^](//' | grep -v -E '^[a-z]+:')
[ ${#bad[@]} = 0 ]
result $? "README.md's links name files of the repository" "missing: ${bad[*]:-}"

lines=$(wc -l < "$readme")
[ "$lines" -le 170 ]
result $? "README.md has at most 170 lines" "it has $lines"
echo "1..$n"
exit $failed
