#!/usr/bin/env bash
# bench-boot.sh - what HMS costs at boot and on CPU hotplug: boot the
# CONFIG_HMS=y and CONFIG_HMS=n kernels alternately on numa64 (64 nodes, the
# full HMAT matrix: 64 targets, 8 initiators, 512 links) and two-socket-hbm,
# and print side by side the medians of
#   boot   the time from kernel start to init (the guest's dmesg timestamp of
#          "Run /sbin/hms-init as init process")
#   off/on one offline and one online of the highest CPU (alone on its node:
#          with HMS its node's initiator and links go and come back), timed
#          in the guest with $EPOCHREALTIME, ROUNDS cycles a boot
#   hms    the time HMS's own initcalls took at boot (hms_init, which
#          registers the bus, and hms_numa_init, which registers the NUMA
#          targets, initiators and links), from initcall_debug, which every
#          boot gets on its command line
# and the ratios HMS=y / HMS=n. Figures only: nothing is asserted.
#
# Usage: scripts/bench-boot.sh [--boots N] [--rounds N] [--topologies "numa64 two-socket-hbm"]
#                              [--also NAME=BZIMAGE]... [--no-build]
#   --boots N      boots of each kernel on each topology (default 3)
#   --rounds N     CPU offline/online cycles a boot (default 20)
#   --also NAME=BZIMAGE  one more kernel in the table (e.g. an older build)
# It builds the CONFIG_HMS=n kernel in $HMS_CACHE/kbuild-nohms (and the
# kernel, rootfs and userspace through the Makefile) unless --no-build.
# `make bench-boot` runs it with the defaults: about 10 min under TCG on 2
# busy cores once built (12 min with a third kernel, --also). The table is also kept in
# $HMS_CACHE/bench/boot-<date>.txt; docs/benchmarks.md has the latest.
# Under TCG on a shared machine the absolute times mean little; the ratios
# of kernels booted alternately on the same machine are the figure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

boots=3 rounds=20 topologies="numa64 two-socket-hbm" build=1
names=(hms nohms) kernels=("$KOBJ/arch/x86/boot/bzImage" "$HMS_CACHE/kbuild-nohms/arch/x86/boot/bzImage")
while [ $# -gt 0 ]; do
	case $1 in
	--boots) boots=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--topologies) topologies=$2; shift ;;
	--also) names+=("${2%%=*}"); kernels+=("${2#*=}"); shift ;;
	--no-build) build=0 ;;
	-h|--help) script_help; exit 0 ;;
	*) script_help >&2; exit 2 ;;
	esac
	shift
done
case $boots$rounds in ''|*[!0-9]*) die "--boots and --rounds want numbers" ;; esac

if [ $build = 1 ]; then
	need kernel rootfs userspace
	"$HMS_TOP/scripts/build-kernel.sh" --no-hms --obj "$HMS_CACHE/kbuild-nohms" >/dev/null
fi
for k in "${kernels[@]}"; do
	[ -f "$k" ] || die "no kernel $k (run without --no-build)"
done
[ -x "$HMS_OUT/tests/guest/bench-boot.sh" ] || die "no $HMS_OUT/tests/guest/bench-boot.sh (run make userspace)"

# the guest prints the times of HMS's initcalls from initcall_debug
export HMS_KERNEL_ARGS="${HMS_KERNEL_ARGS:+$HMS_KERNEL_ARGS }initcall_debug"
mkdir -p "$HMS_CACHE/bench"
outfile=$HMS_CACHE/bench/boot-$(date +%Y%m%d-%H%M%S).txt
raw=$outfile.raw
: > "$raw"

# median: of the numbers on stdin
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# raw lines: TOPOLOGY KERNEL boot MS | TOPOLOGY KERNEL cpu OFF_US ON_US |
# TOPOLOGY KERNEL hms US
for topo in $topologies; do
	for ((b = 1; b <= boots; b++)); do
		for ((k = 0; k < ${#names[@]}; k++)); do
			# alternate the order too, so neither kernel always boots first
			kk=$(( (b % 2) ? k : ${#names[@]} - 1 - k ))
			log "$topo: boot $b/$boots of ${names[$kk]}"
			out=$("$HMS_TOP/scripts/vm.sh" --topology "$topo" --timeout 900 \
				--kernel "${kernels[$kk]}" -- \
				/mnt/hms/tests/guest/bench-boot.sh "$rounds" 2>/dev/null | tr -d '\r') ||
				{ log "  the guest failed; its output:"; echo "$out" >&2; continue; }
			echo "$out" | grep '^BENCH \(cpu\|after\|error\)' | sed "s/^/  /" >&2 || true
			echo "$out" | sed -n "s/^BENCH boot_ms=\([0-9.]*\)$/$topo ${names[$kk]} boot \1/p" >> "$raw"
			echo "$out" | sed -n "s/^BENCH hms_initcalls_us=\([0-9]*\)$/$topo ${names[$kk]} hms \1/p" >> "$raw"
			echo "$out" | sed -n "s/^BENCH offline_us=\([0-9]*\) online_us=\([0-9]*\)$/$topo ${names[$kk]} cpu \1 \2/p" >> "$raw"
		done
	done
done

{
	echo "# scripts/bench-boot.sh --boots $boots --rounds $rounds --topologies \"$topologies\""
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# medians: boot = kernel start to init (ms, $boots boots); off/on = one CPU"
	echo "# offline / online (ms, $boots x $rounds cycles); ratio = kernel / nohms;"
	echo "# hms_ms = HMS's initcalls at boot (initcall_debug), hms% = hms_ms / boot_ms"
	printf '%-15s %-8s %9s %9s %9s %7s %7s %7s %7s %6s\n' topology kernel boot_ms off_ms on_ms \
		boot/n off/n on/n hms_ms hms%
	for topo in $topologies; do
		declare -A mb=() moff=() mon=() mh=()
		for n in "${names[@]}"; do
			mb[$n]=$(awk -v t="$topo" -v k="$n" '$1 == t && $2 == k && $3 == "boot" { print $4 }' "$raw" | median)
			moff[$n]=$(awk -v t="$topo" -v k="$n" '$1 == t && $2 == k && $3 == "cpu" { print $4 / 1000 }' "$raw" | median)
			mh[$n]=$(awk -v t="$topo" -v k="$n" '$1 == t && $2 == k && $3 == "hms" { print $4 / 1000 }' "$raw" | median)
			mon[$n]=$(awk -v t="$topo" -v k="$n" '$1 == t && $2 == k && $3 == "cpu" { print $5 / 1000 }' "$raw" | median)
		done
		for n in "${names[@]}"; do
			ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }
			printf '%-15s %-8s %9.1f %9.2f %9.2f %7s %7s %7s %7s %6s\n' "$topo" "$n" \
				"${mb[$n]/-/0}" "${moff[$n]/-/0}" "${mon[$n]/-/0}" \
				"$(ratio "${mb[$n]}" "${mb[nohms]}")" "$(ratio "${moff[$n]}" "${moff[nohms]}")" \
				"$(ratio "${mon[$n]}" "${mon[nohms]}")" "${mh[$n]}" \
				"$(awk -v a="${mh[$n]}" -v b="${mb[$n]}" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.1f%%", 100 * a / b }')"
		done
		unset mb moff mon mh
	done
} | tee "$outfile"
log "table kept in $outfile (each figure: $raw)"
