#!/usr/bin/env bash
# readme-topology.sh - the README's `hmsctl topology` block: boot the
# two-socket-hbm guest (scripts/vm.sh), run `hmsctl topology` there and
# write what it prints into docs/hmsctl-topology.txt (after a first line
# naming this script) and into README.md's code block between the lines
# <!-- begin hmsctl-topology ... --> and <!-- end hmsctl-topology -->.
# It builds the kernel, rootfs and userspace first through the Makefile,
# unless --no-build (or run by make). Under a minute under TCG once built.
# Run it after a change to what hmsctl topology prints or to the profile,
# and commit both files.
#
# --check compares instead, with no guest and nothing written: it fails,
# saying why, when README's block is missing or empty or differs from the
# file (tests/unit/check-readme.sh runs it; the libhms guest suite
# compares the file with the live output on two-socket-hbm).
#
#   scripts/readme-topology.sh [--no-build]
#   scripts/readme-topology.sh --check [README TEXTFILE]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BEGIN='<!-- begin hmsctl-topology'
END='<!-- end hmsctl-topology -->'
# shellcheck disable=SC2016 # backquotes, literally
HEADER='# `hmsctl topology` on the two-socket-hbm guest; regenerate: scripts/readme-topology.sh'

# block README: the lines between the markers, without the code fences;
# fails, saying why, unless there is one well-formed block
block() {
	awk -v b="$BEGIN" -v e="$END" '
		index($0, b) == 1 { nb++; inb = 1; n = 0; next }
		$0 == e { ne++; inb = 0; next }
		inb { l[++n] = $0 }
		END {
			if (nb != 1 || ne != 1) {
				printf "%s: %d begin and %d end markers, want one each\n", FILENAME, nb, ne > "/dev/stderr"
				exit 1
			}
			if (n < 2 || l[1] !~ /^```/ || l[n] != "```") {
				printf "%s: no code block (```) between the markers\n", FILENAME > "/dev/stderr"
				exit 1
			}
			for (i = 2; i < n; i++) print l[i]
		}' "$1"
}

check() {
	local readme=$1 txt=$2 got
	[ -s "$txt" ] || { echo "$txt: missing or empty" >&2; return 1; }
	if [ "$(head -n 1 "$txt")" != "$HEADER" ]; then
		echo "$txt: the first line is not: $HEADER" >&2
		return 1
	fi
	got=$(block "$readme") || return 1
	if ! grep -q '[^[:space:]]' <<< "$got"; then
		echo "$readme: the hmsctl topology block is empty (run scripts/readme-topology.sh)" >&2
		return 1
	fi
	if ! diff -u --label "$txt" --label "$readme" <(tail -n +2 "$txt") - <<< "$got" >&2; then
		echo "$readme: the hmsctl topology block differs from $txt (run scripts/readme-topology.sh)" >&2
		return 1
	fi
}

build=1
case ${1:-} in
-h|--help) script_help; exit 0 ;;
--check)
	[ $# = 1 ] || [ $# = 3 ] || { script_help >&2; exit 2; }
	check "${2:-$HMS_TOP/README.md}" "${3:-$HMS_TOP/docs/hmsctl-topology.txt}"
	exit ;;
--no-build) build=0 ;;
'') ;;
*) script_help >&2; exit 2 ;;
esac

[ $build = 0 ] || need kernel rootfs userspace
readme=$HMS_TOP/README.md txt=$HMS_TOP/docs/hmsctl-topology.txt
block "$readme" > /dev/null || die "fix README.md's markers first"
out=$(mktemp)
trap 'rm -f "$out" "$out".*' EXIT
"$HMS_TOP/scripts/vm.sh" --topology two-socket-hbm -- hmsctl topology > "$out" ||
	die "vm.sh failed (exit $?)"
tr -d '\r' < "$out" > "$out.t"
head -n 1 "$out.t" | grep -q '^targets: [1-9]' ||
	die "hmsctl topology printed no targets: $(head -c 300 "$out.t")"
{ echo "$HEADER"; cat "$out.t"; } > "$out.txt"
# README: up to the begin marker, the fenced output, from the end marker on
awk -v b="$BEGIN" -v e="$END" -v f="$out.t" '
	index($0, b) == 1 { print; print "```"; while ((getline l < f) > 0) print l; print "```"; skip = 1; next }
	$0 == e { skip = 0 }
	!skip' "$readme" > "$out.md"
cat "$out.txt" > "$txt"
cat "$out.md" > "$readme"
check "$readme" "$txt"
log "wrote $txt and README.md's block ($(wc -l < "$out.t") lines)"
