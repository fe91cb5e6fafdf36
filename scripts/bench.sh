#!/usr/bin/env bash
# bench.sh - the hbind benchmark: boot the two-socket-hbm guest once and run
# hbind-bench in it (hbind MIGRATE vs move_pages() vs mbind(MPOL_MF_MOVE) vs
# migrate_pages() moving the same pages from node 0 to node 1, 4 KiB pages
# and THP, sizes 1..256 MiB; single-page BIND vs mbind latency; QUERY vs
# move_pages status, 16 MiB and one page (touched, and never touched);
# first touch in an hbind INTERLEAVE range vs one set by
# mbind(MPOL_WEIGHTED_INTERLEAVE) with the same weights in the global
# table; on another process, through a pidfd: QUERY of a 1 GiB range, one
# page in four touched, vs move_pages(pid, NULL), and MIGRATE_WHOLE|FROM of
# a 64 MiB process vs migrate_pages(pid)); then, in the same boot, with test_hms and test_hmm
# loaded, hbind-devbench: hbind MIGRATE to and from device memory vs
# test_hmm's MIGRATE_TO_DEV / _TO_SYS, 16 and 64 MiB.
# Prints the figures; asserts nothing about times.
#
# Usage: scripts/bench.sh [--kernel BZIMAGE] [--reps N] [--sizes 1,4,16,64,256|none]
#                         [--kinds 4k|thp|both] [--device yes|no|only]
#                         [--dev-sizes 16,64] [--dev-rounds N] [--cpu 0|1]
#                         [--no-build]
#        scripts/bench.sh --profile [--kernel BZIMAGE] [--reps N] [--sizes 64]
#                         [--kinds 4k|thp|both] [--detail] [--cpu 0|1] [--no-build]
# --sizes none keeps only the latency rows (single-page calls, QUERY) of
# hbind-bench; --device only runs hbind-devbench alone.
# Each MIGRATE row also times memcpy() of the same bytes into a buffer on
# node 1, and hbind with no copy provider (hbind 1 CPU); a second table
# times first touch in an hbind BIND range against an mbind one.
# --profile (`make bench PROFILE=1`): where the time of a migration goes.
# Builds the profiling kernel (kernel-patches/config/profile.config: ftrace,
# objects in $HMS_CACHE/kbuild-profile, so the normal kernel stays
# incremental; cold, as long as the normal kernel) and runs
# tests/guest/profile-migrate.sh in the guest: ftrace's function profiler
# around each method moving SIZE MiB (one size) from node 0 to node 1.
# --detail profiles the per-folio work within migrate_pages() instead of the
# steps, for hbind (with and without its shared copy), mbind() and
# move_pages(): exact call counts, times inflated by the tracing.
# `make bench` runs it with the defaults. It builds the kernel, rootfs and
# userspace first through the Makefile, unless --no-build (or run by make,
# which built them as prerequisites). About 2.5 min under TCG.
# The table is also kept in $HMS_CACHE/bench/hbind-<date>.txt; the latest
# figures are in docs/benchmarks.md.
# Under TCG the figures compare methods with each other; absolute times mean
# little.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel='' reps=5 sizes='' kinds=both build=1 profile=0 detail=0
device=yes dev_sizes=16,64 dev_rounds=11 cpu=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--reps) reps=$2; shift ;;
	--sizes) sizes=$2; shift ;;
	--kinds) kinds=$2; shift ;;
	--device) device=$2; shift ;;
	--dev-sizes) dev_sizes=$2; shift ;;
	--dev-rounds) dev_rounds=$2; shift ;;
	--cpu) cpu=$2; shift ;;
	--no-build) build=0 ;;
	--profile) profile=1 ;;
	--detail) detail=1 ;;
	-h|--help) script_help; exit 0 ;;
	*) script_help >&2; exit 2 ;;
	esac
	shift
done
case $reps in ''|*[!0-9]*) die "--reps wants a number" ;; esac
[ $detail = 0 ] || [ $profile = 1 ] || die "--detail goes with --profile"
if [ -z "$sizes" ]; then
	sizes=1,4,16,64,256
	[ $profile = 0 ] || sizes=64
fi
case $sizes in none) ;; ''|*[!0-9,]*) die "--sizes wants MiB values like 1,4,16, or none" ;; esac
case $device in yes|no|only) ;; *) die "--device is yes, no or only" ;; esac
case $dev_sizes in ''|*[!0-9,]*) die "--dev-sizes wants MiB values like 16,64" ;; esac
case $dev_rounds in ''|*[!0-9]*) die "--dev-rounds wants a number" ;; esac
case $cpu in 0|1) ;; *) die "--cpu is 0 or 1 (the two-socket-hbm guest's CPUs)" ;; esac
case $kinds in 4k|thp|both) ;; *) die "--kinds is 4k, thp or both" ;; esac
# nodes 0 and 1 have 512 MiB each and the guest 1280 MiB: one 256 MiB region
# (plus its page arrays) is the most that fits with room to migrate.
[ "$sizes" = none ] ||
for s in ${sizes//,/ }; do
	[ "$s" -le 256 ] || die "size $s MiB does not fit the two-socket-hbm nodes (max 256)"
done
# test_hms gets device memory for the largest size; two buffers of it and
# test_hmm's device memory must fit the 512 MiB of node 0 with room.
dev_mb=0
for s in ${dev_sizes//,/ }; do
	[ "$s" -le 128 ] || die "device size $s MiB: at most 128"
	[ "$s" -le "$dev_mb" ] || dev_mb=$s
done

[ $build = 0 ] || need kernel rootfs userspace
[ -x "$HMS_OUT/bin/hbind-bench" ] || die "no $HMS_OUT/bin/hbind-bench (run make userspace)"

mkdir -p "$HMS_CACHE/bench"
if [ $profile = 1 ]; then
	case $sizes in *,*) die "--profile takes one size" ;; esac
	case $kinds in both) kinds='4k thp' ;; esac
	if [ -z "$kernel" ]; then
		if [ $build = 1 ] || [ ! -f "$KOBJ_PROFILE/arch/x86/boot/bzImage" ]; then
			"$HMS_TOP/scripts/build-kernel.sh" --profile >/dev/null
		fi
		kernel=$KOBJ_PROFILE/arch/x86/boot/bzImage
	fi
	outfile=$HMS_CACHE/bench/profile-$(date +%Y%m%d-%H%M%S).txt
	args="$sizes $reps '$kinds'"
	[ $detail = 0 ] || args="$args 'hbind hbind-1cpu mbind move_pages' detail"
	log "migration profile on two-socket-hbm ($sizes MiB, $kinds, $reps rounds)"
	rc=0
	"$HMS_TOP/scripts/vm.sh" --topology two-socket-hbm --timeout 3600 --prealloc --kernel "$kernel" -- \
		sh -c "echo 'kernel:' \$(uname -r); taskset -c $cpu sh /mnt/hms/tests/guest/profile-migrate.sh $args" |
		tee "$outfile" || rc=$?
	log "profile kept in $outfile"
	exit $rc
fi
outfile=$HMS_CACHE/bench/hbind-$(date +%Y%m%d-%H%M%S).txt
# THP: madvise, so that 4K runs get base pages (MADV_NOHUGEPAGE) and THP runs
# get huge pages (MADV_HUGEPAGE) whatever the kernel's default is.
# The device rows run pinned to CPU 0 (node 0): test_hmm brings pages back
# to the local node, hbind to node 0's target.
guest_cmd="echo madvise > /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; \
echo 'kernel:' \$(uname -r); numactl -H 2>/dev/null | grep -E '^node [0-9]+ (size|free)'"
# hbind-bench runs on CPU $cpu: 0 (default) is node 0's, where the pages
# are (a program pushing its pages to another node), 1 node 1's, where they
# go (a program pulling its data to the node it runs on). Which CPU calls
# decides which CPU can share hbind's copy (migrate_copy_cpus()):
# unpinned, the scheduler would choose, and the figures would change
# between boots.
[ "$device" = only ] ||
	guest_cmd+="; echo 'hbind-bench runs on CPU $cpu'; \
taskset -c $cpu hbind-bench -a 0 -b 1 -r $reps -s $sizes -k $kinds || exit 1"
[ "$device" = no ] ||
	guest_cmd+="; echo; modprobe test_hms mem_mb=$((dev_mb + 16)) && modprobe test_hmm && \
sleep 1 && exec taskset -c 0 hbind-devbench -n 0 -s $dev_sizes -r $dev_rounds"

log "benchmark on two-socket-hbm (reps $reps, sizes $sizes MiB, $kinds; device $device: $dev_sizes MiB, $dev_rounds rounds)"
# --prealloc: every method and memcpy() find host-backed guest memory
set -- --topology two-socket-hbm --timeout 3600 --prealloc
[ -z "$kernel" ] || set -- "$@" --kernel "$kernel"
rc=0
"$HMS_TOP/scripts/vm.sh" "$@" -- sh -c "$guest_cmd" | tee "$outfile" || rc=$?
log "figures kept in $outfile"
exit $rc
