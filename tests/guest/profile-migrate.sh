#!/bin/sh
# profile-migrate.sh - run in the guest of the profiling kernel by
# scripts/bench.sh --profile: where the time of a migration goes. For each
# page kind and method, ftrace's function profiler (function_graph timing:
# a function's time includes what it calls and any sleep in it) runs around
# the timed step of migrate-prof, which moves SIZE MiB from node 0 to node 1
# (migrate-prof -P turns the profiler on just before that step and off just
# after, so nothing of the placement shows), once per round; the times of
# both CPUs are summed (the copy helpers run on the destination's CPU) and
# added up over the rounds. Prints, per method, the time of each step per
# call and per MiB. Method hbind-fromdev (4 KiB pages): the pages start in
# test_hms' device memory (the module is loaded here if it is not), and
# hbind MIGRATE brings them to node 1 through the device's
# migrate_to_system op.
# LEVEL "detail" profiles, instead of the steps, the per-folio work within
# migrate_pages() (rmap walks, page table lookups, LRU, statistics,
# allocation and freeing): its hit counts are exact, its times inflated by
# the tracing of so many calls, so only their proportions mean something.
# Usage: profile-migrate.sh [SIZE_MIB] [ROUNDS] [KINDS] [METHODS] [steps|detail]
case ${1:-} in
-h|--help)
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit 0 ;;
esac
set -eu
size=${1:-64} rounds=${2:-5} kinds=${3:-"4k thp"}
methods=${4:-"hbind hbind-1cpu hbind-old mbind move_pages migrate_pages"}
level=${5:-steps}
T=/sys/kernel/tracing
[ -d $T/trace_stat ] || mount -t tracefs nodev $T
[ -w $T/function_profile_enabled ] || { echo "no function profiler (not the profiling kernel?)" >&2; exit 1; }
P=/sys/kernel/debug/hbind
COPIER=/sys/kernel/debug/migrate_copy/cpus/reasons

# the steps; each is timed in one function (none calls another of the list)
funcs="__x64_sys_hbind __x64_sys_mbind __x64_sys_move_pages __x64_sys_migrate_pages
lru_cache_disable lru_add_drain_all lru_add_drain lru_cache_enable
mpol_isolate_range queue_pages_range migrate_pages
alloc_migration_target try_to_migrate try_to_unmap_flush folio_mc_copy
migrate_folios_copy migrate_cpus_work remove_migration_ptes putback_movable_pages
hmst_hms_migrate_to_system migrate_vma_setup migrate_device_unmap
hmst_alloc_and_copy_back __alloc_pages_noprof migrate_vma_pages
migrate_vma_finalize folio_putback_lru free_zone_device_folio"
case $level in
steps) ;;
detail)
	# per folio; some nest (try_to_migrate_one in rmap_walk in
	# try_to_migrate): each is read on its own
	funcs="__x64_sys_hbind __x64_sys_mbind __x64_sys_move_pages
__x64_sys_migrate_pages migrate_pages
mpol_isolate_range queue_pages_range folio_isolate_lru
alloc_migration_target __alloc_pages_noprof
try_to_migrate rmap_walk try_to_migrate_one page_vma_mapped_walk
folio_lock_anon_vma_read folio_get_anon_vma
migrate_folios_copy folio_mc_copy copy_mc_to_kernel
move_to_new_folio __folio_migrate_mapping folio_migrate_flags
mem_cgroup_migrate remove_migration_ptes remove_migration_pte
folio_add_lru folio_batch_move_lru __folio_put free_unref_page
__mod_node_page_state _raw_spin_lock lru_add_drain_cpu lru_cache_disable"
	;;
*) echo "profile-migrate.sh: LEVEL is steps or detail" >&2; exit 2 ;;
esac
case " $methods " in
*" hbind-fromdev "*)
	[ -e /dev/hms_test0 ] || modprobe test_hms mem_mb=$((size + 16)) ||
		{ echo "no test_hms: hbind-fromdev cannot run" >&2; exit 1; }
	;;
esac
: > $T/set_ftrace_filter
for f in $funcs; do
	if grep -qE "^$f( |\$)" $T/available_filter_functions; then
		echo "$f" >> $T/set_ftrace_filter
	else
		echo "note: $f cannot be traced (inlined or absent)"
	fi
done
echo 1 > $T/options/graph-time 2>/dev/null || true
echo 1 > $T/options/sleep-time 2>/dev/null || true
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled

for kind in $kinds; do
	echo "== $kind, $size MiB, node 0 -> node 1, $rounds rounds"
	migrate-prof -m memcpy -k "$kind" -s "$size" -r "$rounds"
	for m in $methods; do
		# the copy provider for hbind alone: the others run as by default
		call=$m pc=0 lru=1
		case $m in
		hbind|hbind-fromdev) pc=1 ;;
		hbind-1cpu) call=hbind pc=0 ;;		# no copy provider
		hbind-old) call=hbind pc=0 lru=0 ;;	# nor local LRU drain
		esac
		if [ -d $P ] && [ -w $COPIER ]; then
			if [ $pc = 1 ]; then echo syscall_or_cpuset; else echo none; fi > $COPIER
			echo $lru > $P/lru_drain_local
		elif [ "$call" != "$m" ]; then
			continue
		fi
		dev=
		case $m in
		hbind-fromdev)
			[ "$kind" = 4k ] || continue	# device memory: base pages
			call=hbind dev="-d 0" ;;
		esac
		migrate-prof -m "$call" -k "$kind" -s "$size" -r 1 $dev >/dev/null  # warm-up
		stats=$(mktemp) times=
		r=0
		while [ $r -lt "$rounds" ]; do
			out=$(migrate-prof -m "$call" -k "$kind" -s "$size" -r 1 $dev \
				-P $T/function_profile_enabled)
			t=${out#*median }
			times="$times ${t%% ms*}"
			cat $T/trace_stat/function* >> "$stats"
			r=$((r + 1))
		done
		echo "-- $m: ${out%%: median*}, ms per round:$times"
		printf "   %-26s %8s %10s %10s\n" function hits/call ms/call us/MiB
		awk -v n="$rounds" -v mib="$size" '
			$1 ~ /^[a-z_]/ && $2 ~ /^[0-9]+$/ {
				hits[$1] += $2; us[$1] += $3
			}
			END {
				for (f in us)
					printf "   %-26s %8d %10.2f %10.1f\n", f, hits[f] / n,
						us[f] / n / 1000, us[f] / n / mib
			}' "$stats" | sort -k3 -n -r -s
		rm -f "$stats"
	done
done
[ -d $P ] && { echo none > $COPIER; echo 1 > $P/lru_drain_local; }
exit 0
