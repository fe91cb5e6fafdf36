# hbind-common.bash - loaded after common.bash by the suites that drive
# hbind-do (hbind, hbind-errors, hotplug, device): the machine's NUMA nodes
# and HMS targets as the kernel shows them, and helpers to read hbind-do's
# output.
#
# After hb_setup:
#   HB_HOME      a memory node with CPUs; HB_CPU one of its CPUs (tests pin
#                hbind-do there, so that "local" means HB_HOME)
#   HB_OTHER     another memory node ('' when there is only one)
#   HB_UID[N]    the uid of node N's HMS target; HB_NID[U] the reverse
#
# The suites use the HB_ variables; bats' run sets $output.
# shellcheck disable=SC2034,SC2154

HB_SYSNODE=/sys/devices/system/node

# hb ARGS...: run hbind-do pinned to HB_CPU (the hbind and hbind-errors suites)
hb() { run hbind-do -c "$HB_CPU" "$@"; }

mem_nodes() { expand_list "$(cat $HB_SYSNODE/has_memory)"; }
cpu_nodes() { expand_list "$(cat $HB_SYSNODE/has_cpu 2>/dev/null)"; }

# node_cpu N: first CPU of node N (empty for a CPU-less node)
node_cpu() { expand_list "$(cat "$HB_SYSNODE/node$1/cpulist")" | awk '{ print $1 }'; }

# node_total_mib N / node_free_mib N, from the node's meminfo
node_total_mib() { awk '/MemTotal:/ { print int($4 / 1024) }' "$HB_SYSNODE/node$1/meminfo"; }
node_free_mib() { awk '/MemFree:/ { print int($4 / 1024) }' "$HB_SYSNODE/node$1/meminfo"; }

# node_distance A B: SLIT distance from A to B
node_distance() { awk -v b="$2" '{ print $(b + 1) }' "$HB_SYSNODE/node$1/distance"; }

# any_uid TYPE: the uid of some object of TYPE (empty if none)
any_uid() {
	local d
	d=$(hms_objects "$1" | head -1)
	[ -z "$d" ] || cat "$d/uid"
}

# unused_uid: a uid no live object has (above the highest)
unused_uid() {
	local max=2000 u d
	for d in "$HMS_BUS"/v1-*; do
		[ -e "$d" ] || continue
		u=$(cat "$d/uid") || continue
		[ "$u" -le "$max" ] || max=$u
	done
	echo $((max + 1000))
}

# hb_load_targets: fill HB_UID / HB_NID from the HMS bus
hb_load_targets() {
	local d u n
	declare -gA HB_UID=() HB_NID=()
	for d in $(hms_objects target); do
		u=$(cat "$d/uid") n=$(cat "$d/nid")
		HB_NID[$u]=$n
		[ "$n" -lt 0 ] || HB_UID[$n]=$u
	done
}

hb_setup() {
	local n out
	have_hms || fail "no HMS bus (/sys/bus/hms) in this kernel"
	hb_load_targets
	out=$(hbind-do -n 1 probe)
	[ "$out" != "probe ENOSYS" ] || fail "this kernel has no hbind() (ENOSYS)"
	[ "$out" = "probe ok" ] || fail "hbind probe (DEFAULT on one page) failed: $out"
	HB_HOME='' HB_CPU='' HB_OTHER=''
	for n in $(mem_nodes); do
		if [ -z "$HB_HOME" ] && [ -n "$(node_cpu "$n")" ]; then
			HB_HOME=$n
			HB_CPU=$(node_cpu "$n")
		fi
	done
	[ -n "$HB_HOME" ] || fail "no memory node with CPUs"
	for n in $(mem_nodes); do
		[ "$n" = "$HB_HOME" ] || { HB_OTHER=$n; break; }
	done
	for n in $(mem_nodes); do
		[ -n "${HB_UID[$n]:-}" ] || fail "memory node $n has no HMS target"
	done
}

# need_mem_nodes K: skip when the machine has fewer than K memory nodes
need_mem_nodes() {
	local have
	have=$(mem_nodes | wc -w)
	[ "$have" -ge "$1" ] || skip "needs $1 memory nodes, this topology has $have"
}

# small_nodes: memory nodes of at most 256 MiB (small enough to fill), in
# order of distance from HB_HOME (nearest first)
small_nodes() {
	local n
	for n in $(mem_nodes); do
		[ "$n" != "$HB_HOME" ] || continue
		[ "$(node_total_mib "$n")" -le 256 ] || continue
		echo "$(node_distance "$HB_HOME" "$n") $n"
	done | sort -n | awk '{ print $2 }'
}

# need_small_nodes K: skip unless K nodes can be filled; sets HB_SMALL
need_small_nodes() {
	mapfile -t HB_SMALL < <(small_nodes)
	[ "${#HB_SMALL[@]}" -ge "$1" ] ||
		skip "needs $1 memory nodes of at most 256 MiB besides node $HB_HOME (two-socket-hbm has them), found ${#HB_SMALL[@]}"
	[ "$(node_free_mib "$HB_HOME")" -ge 200 ] ||
		skip "node $HB_HOME has less than 200 MiB free for the fallback"
}

# hb_line PREFIX: the first line of $output starting with PREFIX
hb_line() {
	local l
	while IFS= read -r l; do
		case $l in "$1"*) echo "$l"; return 0 ;; esac
	done <<< "$output"
	return 1
}

# count_on NODE LINE: pages on NODE in a "nodes n0=12 n1=4" line (0 if none)
count_on() {
	local tok
	for tok in $2; do
		case $tok in "n$1="*) echo "${tok#*=}"; return ;; esac
	done
	echo 0
}

# nodes_in LINE: the node ids a "nodes ..." line names, e.g. "0 2"
nodes_in() {
	local tok out=
	for tok in $1; do
		case $tok in n[0-9]*=*) tok=${tok%%=*}; out="$out ${tok#n}" ;; esac
	done
	echo "${out# }"
}

# q2n LINE: a QUERY line "query 0-3:u5 4:ENOENT" in nodes: "0-3:n0 4:ENOENT"
# (a uid that is no system target stays "u<uid>")
q2n() {
	local tok u out=
	for tok in ${1#query }; do
		case $tok in
		*:u*)
			u=${tok##*:u}
			if [ -n "${HB_NID[$u]:-}" ] && [ "${HB_NID[$u]}" -ge 0 ]; then
				tok="${tok%%:u*}:n${HB_NID[$u]}"
			fi ;;
		esac
		out="$out $tok"
	done
	echo "${out# }"
}

# atom CMD NDWORDS: an atom header, HBIND_ATOM(cmd, ndwords), in hex
atom() { printf '0x%x' $(( ($2 << 16) | $1 )); }
HB_DEFAULT=1 HB_BIND=2 HB_MIGRATE=3 HB_QUERY=4 HB_INTERLEAVE=5 HB_TASK_DEFAULT=6
HB_PROCESS=7
HB_CMD_UNKNOWN=8	# the lowest command number hbind() does not know

# have_thp: the kernel can give this process huge pages on request
# have_thp: THP can be had (the guest kernel has it and run.sh sets
# "madvise"); fails the test otherwise, as the suites rely on it
have_thp() {
	[ -r /sys/kernel/mm/transparent_hugepage/enabled ] ||
		fail "no transparent huge pages in this kernel (CONFIG_TRANSPARENT_HUGEPAGE)"
	! grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled ||
		fail "transparent huge pages are off ([never]): run.sh sets madvise"
}

# hb_log TEXT...: show in the TAP output
hb_log() { printf '# %s\n' "$@" >&3; }

# bw_weights BW...: the weights INTERLEAVE auto derives from these read
# bandwidths: each scaled to 16 for the highest (at least 1), then divided
# by their gcd
bw_weights() {
	local bw max=0 w g=0 a b t out=
	for bw in "$@"; do [ "$bw" -le "$max" ] || max=$bw; done
	local -a ws=()
	for bw in "$@"; do
		w=$(( (bw * 16 + max / 2) / max ))
		[ "$w" -ge 1 ] || w=1
		ws+=("$w")
		a=$g b=$w
		while [ "$b" -ne 0 ]; do a=$((a % b)); t=$a a=$b b=$t; done
		g=$a
	done
	for w in "${ws[@]}"; do out="$out $((w / g))"; done
	echo "${out# }"
}
