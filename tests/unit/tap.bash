# shellcheck shell=bash
# tap.bash - TAP results for the host test scripts of tests/unit (sourced,
# not run): result OK|skip SPEC [DETAILS...] prints the next "ok N - SPEC"
# (OK 0), "ok N - SPEC # SKIP DETAIL" (skip) or "not ok N - SPEC" with the
# details as comments, and sets failed=1 on a failure; n counts the tests,
# for the plan the script prints at its end.
n=0 failed=0

result() {
	local ok=$1 spec=$2
	shift 2
	n=$((n + 1))
	if [ "$ok" = skip ]; then
		echo "ok $n - $spec # SKIP $1"
	elif [ "$ok" = 0 ]; then
		echo "ok $n - $spec"
	else
		echo "not ok $n - $spec"
		printf '# %s\n' "$@"
		failed=1
	fi
}
