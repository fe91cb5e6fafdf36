#!/usr/bin/env bash
# check.sh - what `make check` runs once the kernel, rootfs and userspace
# are built (run by hand, it builds them first, through the Makefile): the
# host unit tests, a check of the harness (a guest whose kernel warns fails),
# then each topology of tests/guest/suites.conf booted with its bats suites.
# A TAP line per test; at the end the failures, the unexpected skips, one
# line per suite (passed, failed, expected skips, unexpected skips), the
# totals, and the closing line "N passed, N failed, N skipped". A skip is
# expected only when tests/guest/skips.known lists it, with its reason;
# any other skip counts as failed. Exits non-zero on any failure,
# unexpected skip, missing result, guest crash, kernel warning or timeout.
# Results are kept in $HMS_CACHE/check/ (summary: .../last/summary).
#
#   scripts/check.sh            (or: make check)
#   DEBUG=1   use the debug kernel (KASAN, lockdep, kmemleak, fault injection)
#   TOPOLOGIES="flat tiered"   only these topologies
#   SUITES="hbind"             only these suites (where the topology has them;
#                              "unit" selects the host unit tests, "harness"
#                              the warning check)
#   HMS_GUEST_TIMEOUT=SECONDS  per-guest limit (default 1800, DEBUG=1: 7200)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

case ${1:-} in
-h|--help) script_help; exit 0 ;;
'') ;;
*) script_help >&2; exit 2 ;;
esac

DEBUG=${DEBUG:-0}
dbg=()
# per-guest time limit; the DEBUG kernel (KASAN, lockdep, kmemleak under
# TCG) runs the same suites five to eight times slower
guest_timeout=${HMS_GUEST_TIMEOUT:-1800}
if [ "$DEBUG" = 1 ]; then
	dbg=(--debug)
	guest_timeout=${HMS_GUEST_TIMEOUT:-7200}
fi
# the Makefile's start time, so that "in all" counts the builds too
t0=${HMS_T0:-$(date +%s)}
need kernel rootfs userspace || die "set-up or build failed"
log "set-up and builds done in $(duration $(( $(date +%s) - t0 )))"

res=$HMS_CACHE/check/$(date +%Y%m%d-%H%M%S)
mkdir -p "$res"
ln -sfn "$res" "$HMS_CACHE/check/last"
# read copies: editing these during a run must not change the run
cp "$HMS_TOP/tests/guest/suites.conf" "$res/suites.conf"
cp "$HMS_TOP/tests/guest/skips.known" "$res/skips.known"
: > "$res/counts"

# count_tap FILE TOPOLOGY DEFAULT-SUITE [WANTED-SUITES]: add a TAP file's
# results to $res/counts (scripts/tap-count.awk: per suite, skips sorted
# into expected, listed in tests/guest/skips.known, and unexpected)
count_tap() {
	awk -f "$HMS_TOP/scripts/tap-count.awk" -v topo="$2" -v suite="$3" \
		-v want="${4:-}" -v known="$res/skips.known" "$1" >> "$res/counts"
}

# host unit tests (library, CLI): TAP on stdout
if [ -z "${SUITES:-}" ] || [[ " $SUITES " == *" unit "* ]]; then
	log "host unit tests"
	make -s -C "$HMS_TOP/tests/unit" check TAP=1 BUILDDIR="$HMS_OUT/unit" > "$res/unit.tap" 2> "$res/unit.err"
	cat "$res/unit.tap"
	count_tap "$res/unit.tap" host unit unit
	log "host test of the hwloc plugin"
	make -s -C "$HMS_TOP/libc-wrapper/hwloc" check TAP=1 BUILDDIR="$HMS_OUT/hwloc-check" \
		> "$res/hwloc-host.tap" 2> "$res/hwloc-host.err"
	cat "$res/hwloc-host.tap"
	count_tap "$res/hwloc-host.tap" host hwloc-plugin hwloc-plugin
fi

# The harness itself: a guest whose kernel warns fails the run, even when
# its command succeeded (lkdtm's WARNING: a WARN_ON() in a module).
if [ -z "${SUITES:-}" ] || [[ " $SUITES " == *" harness "* ]]; then
	log "harness: a kernel warning fails the guest run"
	hrc=0
	"$HMS_TOP/scripts/vm.sh" --topology flat "${dbg[@]}" --timeout 600 -- \
		sh -c 'modprobe lkdtm && echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT' \
		> "$res/harness.out" 2> "$res/harness.err" || hrc=$?
	{
		echo "1..1"
		if [ "$hrc" = 125 ] && grep -q 'WARNING:' "$res/harness.err"; then
			echo "ok 1 vm.sh exits 125 when the kernel warned (lkdtm WARNING) and the command succeeded"
		else
			echo "not ok 1 vm.sh exits 125 when the kernel warned (lkdtm WARNING): exit $hrc, see $res/harness.err"
		fi
	} > "$res/harness.tap"
	cat "$res/harness.tap"
	count_tap "$res/harness.tap" host harness harness
fi

while IFS= read -r line; do
	line=${line%%#*}
	[ -n "${line// /}" ] || continue
	topo=${line%%:*}
	read -r -a suites <<< "${line#*:}"
	if [ -n "${TOPOLOGIES:-}" ] && [[ " $TOPOLOGIES " != *" $topo "* ]]; then continue; fi
	if [ -n "${SUITES:-}" ]; then
		sel=()
		for s in "${suites[@]}"; do [[ " $SUITES " == *" $s "* ]] && sel+=("$s"); done
		suites=("${sel[@]}")
	fi
	[ ${#suites[@]} -gt 0 ] || continue
	log "guest: $topo: ${suites[*]}"
	"$HMS_TOP/scripts/vm.sh" --topology "$topo" "${dbg[@]}" --timeout "$guest_timeout" \
		-- /mnt/hms/tests/guest/run.sh "${suites[@]}" 2> >(tee "$res/$topo.err" >&2) |
		tee "$res/$topo.tap"
	rc=${PIPESTATUS[0]}
	want="${suites[*]}"
	[ "$DEBUG" != 1 ] || want+=" kmemleak"
	count_tap "$res/$topo.tap" "$topo" "${suites[0]}" "$want"
	if [ "$rc" = 124 ] || [ "$rc" = 125 ]; then
		printf 'fail\t%s\tguest\t%s\n' "$topo" \
			"crashed, warned or timed out (vm.sh exit $rc), see $res/$topo.err" >> "$res/counts"
		printf 'suite\t%s\tguest\t0\t1\t0\t0\n' "$topo" >> "$res/counts"
	fi
done < "$res/suites.conf"

echo
log "results in $res; $(duration $(( $(date +%s) - t0 ))) in all"
awk -f "$HMS_TOP/scripts/tap-summary.awk" "$res/counts" | tee "$res/summary"
