# common.bash - loaded by every guest suite's setup().
bats_require_minimum_version 1.5.0
load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load

HMS_BIN=/mnt/hms/bin
HMS_TOPO=${HMS_TOPOLOGY_FILE:-/mnt/ctl/topology.args}
PATH=$HMS_BIN:$PATH
# the HMS bus, looked up the same way by every suite (hms_* below)
HMS_BUS=/sys/bus/hms/devices

# topo_nodes: the node ids the profile declares
topo_nodes() {
	sed -n 's/.*-numa node,.*nodeid=\([0-9]*\).*/\1/p' "$HMS_TOPO"
}

# topo_node_size_mib NODE: memory of a node in MiB, from its memdev
topo_node_size_mib() {
	local mem size
	mem=$(sed -n "s/.*-numa node,.*nodeid=$1,.*memdev=\([a-z0-9]*\).*/\1/p" "$HMS_TOPO")
	[ -n "$mem" ] || { echo 0; return; }
	size=$(sed -n "s/.*memory-backend-ram,id=$mem,size=\([0-9]*[MG]\).*/\1/p" "$HMS_TOPO")
	case "$size" in
	*G) echo $(( ${size%G} * 1024 )) ;;
	*M) echo "${size%M}" ;;
	esac
}

# topo_node_cpus NODE: the cpus= value of a node (may be empty)
topo_node_cpus() {
	sed -n "s/.*-numa node,.*nodeid=$1,cpus=\([0-9-]*\).*/\1/p" "$HMS_TOPO"
}

# topo_hmat INIT TARGET latency|bandwidth: the HMAT value the profile gives
# (latency in ns, bandwidth in MiB/s as Linux reports it), empty if none
topo_hmat() {
	local kind=access-$3 v
	v=$(sed -n "s/.*hmat-lb,initiator=$1,target=$2,hierarchy=memory,data-type=$kind,[a-z]*=\([0-9]*[MG]*\).*/\1/p" "$HMS_TOPO")
	case "$v" in
	*G) echo $(( ${v%G} * 1024 )) ;;
	*M) echo "${v%M}" ;;
	*) echo "$v" ;;
	esac
}

# topo_has_hmat TARGET: the profile gives HMAT figures for memory node TARGET
topo_has_hmat() { grep -q -- "hmat-lb,.*,target=$1," "$HMS_TOPO"; }

# topo_initiators: nodes with CPUs
topo_initiators() {
	sed -n 's/.*-numa node,.*nodeid=\([0-9]*\),cpus=.*/\1/p' "$HMS_TOPO"
}

# topo_memory_nodes: nodes with memory
topo_memory_nodes() {
	sed -n 's/.*-numa node,.*nodeid=\([0-9]*\),.*memdev=.*/\1/p' "$HMS_TOPO"
}

# have_hms: true when the kernel has the HMS bus
have_hms() { [ -d "$HMS_BUS" ]; }

# expand_list CPULIST: "0-2,5" -> "0 1 2 5" (cpulist and node-list format)
expand_list() {
	local part out=''
	local IFS=,
	for part in $1; do
		[ -n "$part" ] || continue
		out="$out $(seq -s ' ' "${part%-*}" "${part#*-}")"
	done
	echo "${out# }"
}

# hms_objects TYPE: paths of the live v1 objects of TYPE (target,
# initiator, link, bridge)
hms_objects() {
	local o
	for o in "$HMS_BUS"/v1-*-"$1"; do
		[ -e "$o" ] && echo "$o"
	done
	return 0
}

# hms_find TYPE [ATTR=VALUE...]: names (v1-<uid>-TYPE) of the objects of
# TYPE whose sysfs files ATTR all read VALUE, one a line; e.g.
# "hms_find target nid=1 type=system", "hms_find initiator nid=0"
hms_find() {
	local o kv ok type=$1
	shift
	for o in $(hms_objects "$type"); do
		ok=1
		for kv in "$@"; do
			[ "$(cat "$o/${kv%%=*}" 2>/dev/null)" = "${kv#*=}" ] || { ok=0; break; }
		done
		[ "$ok" = 0 ] || basename "$o"
	done
	return 0
}

# hms_find_uid TYPE [ATTR=VALUE...]: the uids of those objects
hms_find_uid() {
	local o
	for o in $(hms_find "$@"); do
		cat "$HMS_BUS/$o/uid"
	done
}

# hms_best_link INI TGT: "read_bandwidth read_latency link" of the best link
# (highest read bandwidth, then lowest read latency) that lists both the
# initiator and the target (object names); nothing when there is none
hms_best_link() {
	local l bw=0 lat=0 lb ll best=''
	for l in "$HMS_BUS/$1"/links/*; do
		[ -e "$(readlink -f "$l")/targets/$2" ] || continue
		lb=$(cat "$l/read_bandwidth") ll=$(cat "$l/read_latency")
		if [ -z "$best" ] || [ "$lb" -gt "$bw" ] || { [ "$lb" = "$bw" ] && [ "$ll" -lt "$lat" ]; }; then
			bw=$lb lat=$ll best=$(basename "$(readlink -f "$l")")
		fi
	done
	[ -z "$best" ] || echo "$bw $lat $best"
}
