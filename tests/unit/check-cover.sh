#!/usr/bin/env bash
# check-cover.sh [--tap] FIXTURES HMSCTL - `scripts/kq.sh check-cover`, the
# check that the cover letter matches kernel-patches/series, passes on
# kernel-patches/ and fails, naming what differs, on copies of it with a
# wrong [PATCH 00/N], a subject changed in the cover letter's list, a patch
# left out of series, and two patches swapped in series. Needs no kernel
# tree. TAP on stdout, like the test programs (run-tests.sh merges them);
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
kq=$top/scripts/kq.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.bash"


# copy: a fresh copy of kernel-patches/ in $tmp/p
copy() {
	rm -rf "$tmp/p"
	mkdir -p "$tmp/p"
	cp "$top"/kernel-patches/*.patch "$top/kernel-patches/series" "$tmp/p/"
}

# fails_with SPEC PATTERN: check-cover on $tmp/p fails and says PATTERN
fails_with() {
	local out rc
	out=$(HMS_CACHE=$tmp/cache "$kq" check-cover "$tmp/p" 2>&1)
	rc=$?
	[ "$rc" != 0 ] && grep -q -E -- "$2" <<< "$out"
	result $? "$1" "exit $rc, output:" "$out"
}

out=$(HMS_CACHE=$tmp/cache "$kq" check-cover 2>&1)
result $? "kernel-patches/: the cover letter matches series" "$out"
[ ! -e "$tmp/cache" ]
result $? "check-cover needs no cache and writes none" "$(ls -A "$tmp/cache" 2>&1)"

copy
sed -i -E '1,/^$/ s|^(Subject: \[PATCH 00/)[0-9]+\]|\110]|' "$tmp/p/0000-cover-letter.patch"
fails_with "a cover letter saying [PATCH 00/10] fails" 'says \[PATCH 00/10\], series lists [0-9]+ patches'

copy
# the first subject of the list (the line after "Author (N):")
awk '/^[^ ].* \([0-9]+\):$/ { print; getline; $0 = $0 " (changed)" } { print }' \
	"$tmp/p/0000-cover-letter.patch" > "$tmp/c"
mv "$tmp/c" "$tmp/p/0000-cover-letter.patch"
fails_with "a subject changed in the cover letter's list fails" "^\\+.*\\(changed\\)$"

copy
sed -i '$d' "$tmp/p/series"
fails_with "a patch left out of series fails" 'series lists [0-9]+ patches'

copy
grep -v -E '^[[:space:]]*(#|$)' "$top/kernel-patches/series" > "$tmp/s"
{ sed -n '2p' "$tmp/s"; sed -n '1p' "$tmp/s"; sed '1,2d' "$tmp/s"; } > "$tmp/p/series"
fails_with "two patches swapped in series fail" 'numbered \[PATCH 0*2/[0-9]+\], is 1/'
echo "1..$n"
exit $failed
