# common.bash - loaded by every guest suite's setup().
bats_require_minimum_version 1.5.0
load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load

HMS_BIN=/mnt/hms/bin
HMS_TOPO=${HMS_TOPOLOGY_FILE:-/mnt/ctl/topology.args}
PATH=$HMS_BIN:$PATH

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

# topo_initiators: nodes with CPUs
topo_initiators() {
	sed -n 's/.*-numa node,.*nodeid=\([0-9]*\),cpus=.*/\1/p' "$HMS_TOPO"
}

# topo_memory_nodes: nodes with memory
topo_memory_nodes() {
	sed -n 's/.*-numa node,.*nodeid=\([0-9]*\),.*memdev=.*/\1/p' "$HMS_TOPO"
}

# node_has_hms: true when the kernel has the HMS bus
have_hms() { [ -d /sys/bus/hms/devices ]; }
