#!/usr/bin/env bash
# check-api.sh --tap FIXTURES HMSCTL - the libhms API is the same
# everywhere it is written down: the functions declared in hms.h, the
# version map, the symbols libhms.so exports (found next to HMSCTL, as
# tests/unit/Makefile builds them) and the man pages; so is the version
# hms.h defines. TAP on stdout, like the test programs (run-tests.sh
# merges them); FIXTURES is unused.
case ${1:-} in
-h|--help)
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit 0 ;;
esac
set -uo pipefail
[ "${1:-}" = --tap ] && shift
[ $# -eq 2 ] || { echo "usage: $0 [--tap] FIXTURES HMSCTL" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../../libc-wrapper" && pwd)
lib=$(dirname "$2")/libhms.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.bash"


# the functions hms.h declares (preprocessed, so comments do not count)
gcc -E -P -I "$src/include" "$src/include/hms.h" | tr '\n' ' ' |
	grep -oE '[A-Za-z_0-9]+ *\(' | grep -oE '^(hbind|hms_[a-z_0-9]+)' |
	sort -u > "$tmp/header"
sed -n 's/^[[:space:]]*\(hbind\|hms_[a-z_0-9]*\);$/\1/p' "$src/libhms.map" |
	sort -u > "$tmp/map"
if [ -e "$lib" ]; then
	nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' > "$tmp/syms"
	sed 's/@.*//' "$tmp/syms" | sort -u > "$tmp/exported"
	grep -vE '@@HMS_1\.[012]$' "$tmp/syms" > "$tmp/unversioned"
else
	echo "missing $lib" > "$tmp/unversioned"
	: > "$tmp/exported"
fi
find "$src/man/man3" -name '*.3' -printf '%f\n' | sed 's/\.3$//' |
	grep -vx libhms | sort -u > "$tmp/man"

d=$(diff "$tmp/header" "$tmp/map")
result $? "libhms.map lists exactly the functions hms.h declares" "$d"
d=$(diff "$tmp/header" "$tmp/exported")
result $? "libhms.so exports exactly the functions hms.h declares" "$d"
[ ! -s "$tmp/unversioned" ]
result $? "every exported function has a version, HMS_1.0 to HMS_1.2" "$(cat "$tmp/unversioned")"
d=$(comm -23 "$tmp/header" "$tmp/man")
[ -z "$d" ]
result $? "every public function has its man page (man3/FUNCTION.3)" "missing: $d"
d=$(comm -13 "$tmp/header" "$tmp/man")
[ -z "$d" ]
result $? "every man3 page but libhms.3 is named after a public function" "dead: $d"
bad=
for f in "$src"/man/man3/*.3; do
	so=$(sed -n 's/^\.so man3\/\(.*\)$/\1/p' "$f")
	[ -z "$so" ] || [ -f "$src/man/man3/$so" ] || bad="$bad ${f##*/}"
	[ -n "$so" ] || grep -q '^\.SH NAME' "$f" || bad="$bad ${f##*/}"
done
[ -z "$bad" ]
result $? "every man3 page is a page or a .so link to an existing page" "bad:$bad"
# the version: HMS_API_VERSION (0x00MMmmpp) in hms.h, the only place it
# is written; what hmsctl, libhms.so and the man pages say must follow
v=$(sed -n 's/^#define HMS_API_VERSION[[:space:]]*\(0x[0-9a-fA-F]*\).*/\1/p' \
	"$src/include/hms.h")
bad=
if [ -z "$v" ]; then
	bad=" hms.h"
else
	mm=$((v >> 16 & 255)).$((v >> 8 & 255))
	so=libhms.so.$mm.$((v & 255))
	[ "$("$2" --version 2>&1)" = "hmsctl (libhms) $mm" ] || bad="$bad hmsctl"
	[ -e "$(dirname "$2")/$so" ] || bad="$bad $so"
	for f in "$src"/man/man*/*.[0-9]; do
		grep -q '^\.TH' "$f" || continue
		grep -q "^\\.TH .*\"libhms $mm\"" "$f" || bad="$bad ${f##*/}"
	done
fi
[ -z "$bad" ]
result $? "hmsctl --version, libhms.so's file name and the man pages carry the version hms.h defines" \
	"wrong:$bad"
d=$(grep -rn -E 'hms_(error|warn)\b|HMS_W_|_load_from|HMS_DEBUG|hwloc_get_best_target' \
	"$src/include" "$src/src" "$src/man" "$src/examples" "$src/README.md")
[ -z "$d" ]
result $? "nothing mentions a removed API (hms_error, hms_warn, HMS_DEBUG, the _load_from loaders)" "$d"
echo "1..$n"
exit $failed
