#!/usr/bin/env bash
# check-scripts.sh [--tap] FIXTURES HMSCTL - every script of the repository
# answers --help with its header and writes nothing: the files starting
# with #! in scripts/, scripts/guest/, tests/guest/, tests/unit/,
# tests/fixtures/, tests/topologies/ and .ci/run (bats suites aside) each
# run as `SCRIPT --help` with HMS_CACHE, HOME, TMPDIR and the working
# directory set to empty scratch directories; each must exit 0, print its
# header comment (the comment lines after #!) first, and leave the
# scratch directories empty and no file of the repository newer. A script
# whose text has no --help case is not run (a guest script run as root
# could change this machine): it fails, except those listed in NO_HELP
# below, which are skipped with the reason. TAP on stdout, like the test
# programs (run-tests.sh merges them); FIXTURES and HMSCTL are unused.
case ${1:-} in
-h|--help)
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit 0 ;;
esac
set -uo pipefail
[ "${1:-}" = --tap ] && shift
[ $# -eq 2 ] || { echo "usage: $0 [--tap] FIXTURES HMSCTL" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.bash"

# scripts without a --help case, not run, and why (none today)
declare -A NO_HELP=()


# header FILE: its comment lines after #!, unmarked (what script_help prints)
header() {
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$1"
}

# written_since FILE: what in the repository is newer than FILE
written_since() {
	find "$top" -name .git -prune -o -newer "$1" -print | head -n 5
}

scripts=()
for f in "$top"/scripts/* "$top"/scripts/guest/* "$top"/tests/guest/* "$top"/tests/unit/* \
	"$top"/tests/fixtures/* "$top"/tests/topologies/* "$top"/.ci/run; do
	if [ ! -f "$f" ] || [ "$(head -c 2 "$f")" != '#!' ]; then continue; fi
	case $(head -n 1 "$f") in *bats*) continue ;; esac
	scripts+=("${f#"$top"/}")
done
[ ${#scripts[@]} -gt 20 ]
result $? "the scripts are found (${#scripts[@]})" "found: ${scripts[*]}"

for s in "${scripts[@]}"; do
	spec="$s --help: its header, exit 0, nothing written"
	if ! grep -q -E -- '--help[|)]' "$top/$s"; then
		if [ -n "${NO_HELP[$s]:-}" ]; then
			result skip "$spec" "${NO_HELP[$s]}"
		else
			result 1 "$spec" "no --help case: not run"
		fi
		continue
	fi
	if [ ! -x "$top/$s" ]; then
		result 1 "$spec" "not executable"
		continue
	fi
	rm -rf "$tmp/s"
	mkdir -p "$tmp/s/cache" "$tmp/s/home" "$tmp/s/tmp" "$tmp/s/cwd"
	touch "$tmp/stamp"
	(cd "$tmp/s/cwd" && HMS_CACHE=$tmp/s/cache HOME=$tmp/s/home TMPDIR=$tmp/s/tmp \
		timeout 60 "$top/$s" --help < /dev/null > "$tmp/out" 2> "$tmp/err")
	rc=$?
	header "$top/$s" > "$tmp/want"
	why=()
	[ "$rc" = 0 ] || why+=("exit status $rc; stderr: $(head -c 500 "$tmp/err")")
	[ -s "$tmp/want" ] || why+=("no header comment after the #! line")
	[ -s "$tmp/out" ] || why+=("printed nothing on stdout")
	if [ -s "$tmp/want" ] && [ -s "$tmp/out" ] &&
	   ! head -n "$(wc -l < "$tmp/want")" "$tmp/out" | cmp -s - "$tmp/want"; then
		why+=("stdout does not start with the header: $(head -n 3 "$tmp/out")")
	fi
	left=$(cd "$tmp/s" && find . -mindepth 2 | head -n 5)
	[ -z "$left" ] || why+=("wrote into the scratch directories: $left")
	left=$(written_since "$tmp/stamp")
	[ -z "$left" ] || why+=("wrote into the repository: $left")
	if [ ${#why[@]} = 0 ]; then
		result 0 "$spec"
	else
		result 1 "$spec" "${why[@]}"
	fi
done
echo "1..$n"
exit $failed
