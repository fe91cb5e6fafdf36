#!/usr/bin/env bash
# bench-fault.sh - "zero cost when unused": the page-fault path of
# the CONFIG_HMS=y kernel, on which no process has an HMS policy, against the
# same series built with CONFIG_HMS=n; and hbind BIND against mbind.
#
# Usage: scripts/bench-fault.sh [--boots N] [--rounds N] [--warmup N]
#                               [--size MIB] [--icount] [--no-build]
#                               [--kernel BZIMAGE] [--nohms-kernel BZIMAGE]
#        scripts/bench-fault.sh --table DIR
#
# Boots the two kernels alternately on two-socket-hbm, N times each (default
# 3: y n y n y n), and runs tests/guest/helpers/fault-bench in each boot:
# the first touch of --size MiB (256) of anonymous 4 KiB pages on node 0,
# pinned to CPU 0, --rounds timed rounds (20) after --warmup untimed ones
# (3). The CONFIG_HMS=y boots then run hbind(BIND, strict) to node 0's
# target against mbind(MPOL_BIND|MPOL_F_STATIC_NODES) to node 0 (the policy
# such a BIND installs), interleaved round by round, which goes first
# alternating; and the plain rounds again, after hbind has run. Prints a
# table of ratios with their spread; asserts nothing about times (the
# machine is noisy). --icount boots the guests with QEMU's
# instruction counter as their clock (vm.sh's HMS_ACCEL=icount: TCG on one
# thread, 1 ns per guest instruction): the times are then instruction
# counts, which the host's other loads do not move. `make bench-fault` runs
# it with the defaults; docs/benchmarks.md says how long each run takes.
#
# Unless --no-build, it builds the kernel, rootfs and userspace first
# through the Makefile (make bench-fault has them as prerequisites), then
# the CONFIG_HMS=n kernel in $HMS_CACHE/kbuild-nohms (build-kernel.sh
# --no-hms; cold, as long as the normal kernel, less with ccache; then
# incremental). Each boot's output is kept in
# $HMS_CACHE/bench/fault-<date>/, the table in
# $HMS_CACHE/bench/fault-<date>.txt; the latest figures are in
# docs/benchmarks.md. --table DIR prints the table of such a directory
# again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

boots=3 rounds=20 warmup=3 size=256 build=1 icount=0 kernel_y='' kernel_n='' table_only=''
while [ $# -gt 0 ]; do
	case $1 in
	--boots) boots=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--warmup) warmup=$2; shift ;;
	--size) size=$2; shift ;;
	--icount) icount=1 ;;
	--no-build) build=0 ;;
	--kernel) kernel_y=$2; shift ;;
	--nohms-kernel) kernel_n=$2; shift ;;
	--table) table_only=$2; shift ;;
	-h|--help) script_help; exit 0 ;;
	*) script_help >&2; exit 2 ;;
	esac
	shift
done
for v in "$boots" "$rounds" "$warmup" "$size"; do
	case $v in ''|*[!0-9]*) die "--boots, --rounds, --warmup and --size want numbers" ;; esac
done
if [ "$boots" -lt 1 ] || [ "$rounds" -lt 1 ] || [ "$rounds" -gt 1000 ]; then
	die "--boots wants 1 or more, --rounds 1 to 1000"
fi
# node 0 has 512 MiB; one region at a time, unmapped after each round
if [ "$size" -lt 1 ] || [ "$size" -gt 384 ]; then
	die "--size: 1 to 384 MiB (node 0 has 512 MiB)"
fi

# The table, from the per-round records of every boot. Within a boot the
# figure is the median of its rounds; across boots the median of the boot
# pairs (boot b of each kernel) and their spread (min-max). The fastest
# rounds' ratio compares each boot's fastest round instead, which the other
# loads of a shared machine (they only ever slow a round down) move less.
# table DIR: the table of the boots kept in DIR
table() {
	local f b
	for f in "$1"/boot*-hms*.txt; do
		b=${f##*/boot}
		printf '%s %s\n' "${b%%-*}" "${f##*-hms}" | sed 's/\.txt$//'
		cat "$f"
	done | awk '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function stats(key,   n, i, v) {
		n = cnt[key]
		for (i = 1; i <= n; i++)
			v[i] = val[key, i]
		return median(v, n)
	}
	function fastest(key,   n, i, lo) {
		n = cnt[key]
		lo = val[key, 1]
		for (i = 2; i <= n; i++)
			if (val[key, i] < lo)
				lo = val[key, i]
		return lo
	}
	/^[0-9]+ [yn]$/ { boot = $1; hms = $2; if (boot > boots) boots = boot; next }
	/^# fault-bench: / { size = $3; rounds = $(NF - 4) + 0; next }
	$1 == "round" { k = boot SUBSEP hms SUBSEP $2; val[k, ++cnt[k]] = $4 + 0; next }
	$1 == "ratio" { k = boot SUBSEP hms SUBSEP "ratio"; val[k, ++cnt[k]] = $4 / 1000; next }
	function spread(a, n,   i, lo, hi) {
		lo = hi = a[1]
		for (i = 2; i <= n; i++) {
			if (a[i] < lo) lo = a[i]
			if (a[i] > hi) hi = a[i]
		}
		return sprintf("x%.3f-%.3f", lo, hi)
	}
	function ms(ns) { return sprintf("%.1f", ns / 1e6) }
	END {
		ny = nb = na = 0
		for (b = 1; b <= boots; b++) {
			y = stats(b SUBSEP "y" SUBSEP "plain")
			n = stats(b SUBSEP "n" SUBSEP "plain")
			if (!y || !n)
				continue
			yn[++ny] = y / n
			fyn[ny] = fastest(b SUBSEP "y" SUBSEP "plain") / fastest(b SUBSEP "n" SUBSEP "plain")
			ys = ys (ys ? " " : "") ms(y)
			ns = ns (ns ? " " : "") ms(n)
			if (cnt[b, "y", "ratio"]) {
				r = stats(b SUBSEP "y" SUBSEP "ratio")
				br[++nb] = r
				bs = bs (bs ? " " : "") sprintf("x%.3f", r)
				fbr[nb] = fastest(b SUBSEP "y" SUBSEP "hbind") / fastest(b SUBSEP "y" SUBSEP "mbind")
				for (i = 1; i <= cnt[b, "y", "ratio"]; i++)
					allr[++nr] = val[b, "y", "ratio", i]
				hs = hs (hs ? " " : "") ms(stats(b SUBSEP "y" SUBSEP "hbind"))
				mbs = mbs (mbs ? " " : "") ms(stats(b SUBSEP "y" SUBSEP "mbind"))
			}
			if (cnt[b, "y", "plain-after"]) {
				a = stats(b SUBSEP "y" SUBSEP "plain-after")
				ka[++na] = a / y
				fka[na] = fastest(b SUBSEP "y" SUBSEP "plain-after") / fastest(b SUBSEP "y" SUBSEP "plain")
				as = as (as ? " " : "") ms(a)
			}
		}
		printf "%d boots of each kernel, alternately (y n y n ...); first touch of %d MiB, 4 KiB pages, node 0; %d rounds per boot and mode\n\n", boots, size, rounds
		print "| comparison | ratio (median) | spread | per-boot medians | ratio of the fastest rounds | goal |"
		print "|---|---|---|---|---|---|"
		for (i = 1; i <= ny; i++) t1[i] = yn[i]
		for (i = 1; i <= ny; i++) f1[i] = fyn[i]
		printf "| plain first touch: CONFIG_HMS=y, no hbind user / CONFIG_HMS=n | x%.3f | %s over the boot pairs | y: %s ms; n: %s ms | x%.3f (%s) | <= 1.01 |\n", median(t1, ny), spread(yn, ny), ys, ns, median(f1, ny), spread(fyn, ny)
		if (nr) {
			for (i = 1; i <= nb; i++) t2[i] = br[i]
			for (i = 1; i <= nb; i++) f2[i] = fbr[i]
			printf "| hbind BIND range / mbind range (CONFIG_HMS=y boots, per-round ratio) | x%.3f | %s over the boots (rounds: %s) | %s; hbind: %s ms; mbind: %s ms | x%.3f (%s) | <= 1.02 |\n", median(allr, nr), spread(t2, nb), spread(allr, nr), bs, hs, mbs, median(f2, nb), spread(fbr, nb)
		}
		if (na) {
			for (i = 1; i <= na; i++) t3[i] = ka[i]
			for (i = 1; i <= na; i++) f3[i] = fka[i]
			printf "| plain first touch, CONFIG_HMS=y, after hbind BIND / before | x%.3f | %s over the boots | after: %s ms | x%.3f (%s) | - |\n", median(t3, na), spread(ka, na), as, median(f3, na), spread(fka, na)
		}
	}'
}
if [ -n "$table_only" ]; then
	[ -f "$table_only/boot1-hmsy.txt" ] || die "--table $table_only: no boot1-hmsy.txt there"
	table "$table_only"
	exit 0
fi

KOBJ_NOHMS=$HMS_CACHE/kbuild-nohms
if [ $build = 1 ]; then
	need kernel rootfs userspace
	[ -n "$kernel_n" ] ||
		"$HMS_TOP/scripts/build-kernel.sh" --no-hms --obj "$KOBJ_NOHMS" >/dev/null
fi
kernel_y=${kernel_y:-$KOBJ/arch/x86/boot/bzImage}
kernel_n=${kernel_n:-$KOBJ_NOHMS/arch/x86/boot/bzImage}
[ -f "$kernel_y" ] || die "no CONFIG_HMS=y kernel at $kernel_y (make kernel)"
[ -f "$kernel_n" ] || die "no CONFIG_HMS=n kernel at $kernel_n (scripts/build-kernel.sh --no-hms --obj $KOBJ_NOHMS)"
[ -x "$HMS_OUT/bin/fault-bench" ] || die "no $HMS_OUT/bin/fault-bench (run make userspace)"

stamp=$(date +%Y%m%d-%H%M%S)
clock="wall clock (TCG)"
if [ $icount = 1 ]; then
	export HMS_ACCEL=icount
	stamp=icount-$stamp
	clock="instructions (QEMU icount, 1 ns each)"
fi
outdir=$HMS_CACHE/bench/fault-$stamp
outfile=$HMS_CACHE/bench/fault-$stamp.txt
mkdir -p "$outdir"

# guest_cmd HMS: the command of one boot; HMS is y or n. It checks that the
# kernel is the one asked for (the HMS bus is there or not), then runs the
# plain rounds before any hbind call.
guest_cmd() {
	local modes=plain want=absent
	[ "$1" = n ] || modes='plain bind plain-after' want=present
	echo "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; \
echo \"# kernel: \$(uname -r) \$(uname -v)\"; \
if [ -d /sys/bus/hms ]; then bus=present; else bus=absent; fi; \
echo \"# hms bus: \$bus\"; \
[ \$bus = $want ] || { echo 'HMS bus $want expected' >&2; exit 1; }; \
exec fault-bench -n 0 -s $size -r $rounds -w $warmup $modes"
}

t0=$SECONDS
log "fault benchmark ($clock): $boots boots of each kernel, alternately, on two-socket-hbm; $rounds rounds of $size MiB after $warmup warm-up; output in $outdir"
for ((b = 1; b <= boots; b++)); do
	for h in y n; do
		k=$kernel_y
		[ $h = y ] || k=$kernel_n
		log "boot $b of $boots, CONFIG_HMS=$h ($(duration $((SECONDS - t0))) so far)"
		"$HMS_TOP/scripts/vm.sh" --topology two-socket-hbm --kernel "$k" --timeout 3600 \
			-- sh -c "$(guest_cmd $h)" > "$outdir/boot$b-hms$h.txt" ||
			die "boot $b (CONFIG_HMS=$h) failed; its output: $outdir/boot$b-hms$h.txt"
		grep '^summary' "$outdir/boot$b-hms$h.txt" | sed "s/^/  boot $b HMS=$h: /" >&2 || true
	done
done
elapsed=$((SECONDS - t0))

{
	table "$outdir"
	echo
	echo "guest clock: $clock"
	echo "command: scripts/bench-fault.sh --boots $boots --rounds $rounds --warmup $warmup --size $size$([ $icount = 0 ] || echo ' --icount'); $(duration "$elapsed") for the boots"
	echo "kernels: $(sed -n 's/^# kernel: //p' "$outdir/boot1-hmsy.txt") / $(sed -n 's/^# kernel: //p' "$outdir/boot1-hmsn.txt")"
} | tee "$outfile"
log "figures kept in $outfile (each boot's rounds in $outdir)"
