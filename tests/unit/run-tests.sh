#!/usr/bin/env bash
# run-tests.sh [--tap] [--hmsctl-san HMSCTL_SAN] FIXTURES HMSCTL TEST_BINARY...
# - run each test binary (given FIXTURES and HMSCTL; HMSCTL_SAN instead to
# a binary whose name ends in -san) and merge the results: one TAP stream
# (plan first, tests renumbered and tagged with the binary's name) with
# --tap, else the failures and a last line "N passed, N failed" (", N
# skipped" if any). A binary that dies without reporting counts as one
# failure. Exit 1 if anything failed.
case ${1:-} in
-h|--help)
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit 0 ;;
esac
set -uo pipefail
tap=0 hmsctl_san=
if [ "${1:-}" = --tap ]; then tap=1; shift; fi
if [ "${1:-}" = --hmsctl-san ]; then hmsctl_san=$2; shift 2; fi
fixtures=$1 hmsctl=$2
shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
n=0 pass=0 fail=0 skip=0 lines=()
for bin in "$@"; do
	tag=${bin##*/}
	ctl=$hmsctl
	[[ -n $hmsctl_san && $tag == *-san ]] && ctl=$hmsctl_san
	"$bin" --tap "$fixtures" "$ctl" > "$out" 2>&1
	rc=$?
	got=0
	while IFS= read -r l; do
		case $l in
		"ok "*|"not ok "*)
			got=1
			n=$((n + 1))
			ok=${l%% [0-9]*}
			rest=${l#"$ok "}
			rest=${rest#* }
			lines+=("$ok $n [$tag] ${rest#- }")
			if [ "$ok" = "not ok" ]; then fail=$((fail + 1))
			elif [[ $l == *"# SKIP"* ]]; then skip=$((skip + 1))
			else pass=$((pass + 1)); fi
			;;
		"1.."*) ;;
		*) lines+=("$l") ;;
		esac
	done < "$out"
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out"; then
		n=$((n + 1)) fail=$((fail + 1))
		lines+=("not ok $n [$tag] exited with status $rc")
		[ $got = 0 ] && lines+=("# $(head -c 2000 "$out")")
	fi
done
if [ $tap = 1 ]; then
	echo "1..$n"
	printf '%s\n' "${lines[@]}"
else
	printf '%s\n' "${lines[@]}" | grep -v -E '^ok [0-9]+ ' | grep -v -E '^# [0-9]+ passed'
fi
if [ $skip -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ $fail = 0 ]
