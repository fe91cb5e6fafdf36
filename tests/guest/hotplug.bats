#!/usr/bin/env bats
# Hotplug keeps the HMS bus up to date. Memory added to a memory-less node
# (the hotplug profile's DIMM on a node with no memory at boot) registers a
# target, with the node's HMAT paths, when it goes online, and unregisters it
# when it goes offline. Memory the HMAT says nothing about (the profile's
# node without HMAT figures, CXL-like) gets its performance when the kernel
# sets the node's access coordinates (test_hms's node_perf does it as
# drivers/cxl does). A node whose last CPU goes offline loses its initiator
# and gets it back, with the same paths, when the CPU returns. Every test
# leaves the machine as it found it: DIMM offline, CPUs online.

setup() {
	load common
	load hbind-common
	have_hms || fail "no /sys/bus/hms/devices: the kernel has no HMS"
	D=$HMS_BUS
	MEM=/sys/devices/system/memory
	# the profile's node without a memdev is the one the DIMM plugs into
	HP_NODE=$(comm -23 <(topo_nodes | sort) <(topo_memory_nodes | sort) | head -1)
	[ -n "$HP_NODE" ] || skip "the profile has no memory-less node"
	HP_BLOCKS=$(ls -d /sys/devices/system/node/node"$HP_NODE"/memory* 2>/dev/null | xargs -rn1 basename)
	[ -n "$HP_BLOCKS" ] || skip "node $HP_NODE has no hot-added memory blocks"
	# a memory node the profile gives no HMAT figures for
	CX_NODE=
	for n in $(topo_memory_nodes); do
		topo_has_hmat "$n" || { CX_NODE=$n; break; }
	done
}

teardown() {
	local c
	for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$c")" = 1 ] || echo 1 > "$c" || true
	done
	hp_set offline || true
	[ -z "${HP_RMMOD:-}" ] || rmmod test_hms || true
}

# hp_set online_movable|offline: put every block of the DIMM in that state
hp_set() {
	local b want=$1
	[ "$want" = online_movable ] && want=online
	for b in $HP_BLOCKS; do
		[ "$(cat "$MEM/$b/state")" = "$want" ] && continue
		echo "$1" > "$MEM/$b/state" || return 1
	done
}

# node_perf NID RBW WBW RLAT WLAT: set a node's access coordinates as a
# CXL region does when it is onlined
NODE_PERF=/sys/kernel/debug/test_hms/node_perf
node_perf() { echo "$*" > $NODE_PERF; }

# link_perf INI TGT: "read_bw write_bw read_lat write_lat" of the link both
# are on (HMS registers one per CPU node and memory node)
link_perf() {
	local l f out=
	for l in "$D/$1"/links/*; do
		[ -e "$(readlink -f "$l")/targets/$2" ] || continue
		for f in read_bandwidth write_bandwidth read_latency write_latency; do
			out="$out $(cat "$l/$f")"
		done
		echo "${out# }"
		return
	done
}

# il_nodes N A BW_A B BW_B: the "nodes" line of hbind-do "where" for N pages
# interleaved over nodes A < B with the weights INTERLEAVE auto derives from
# those bandwidths; N a multiple of the weights' sum
il_nodes() {
	local wa wb
	read -r wa wb <<< "$(bw_weights "$3" "$5")"
	echo "nodes n$2=$(($1 * wa / (wa + wb))) n$4=$(($1 * wb / (wa + wb)))"
}

# wait_link_perf INI TGT WANT: the link's figures become WANT (the links are
# updated by a work item after the node's coordinates are set)
wait_link_perf() {
	local i
	for i in $(seq 50); do
		[ "$(link_perf "$1" "$2")" = "$3" ] && return
		sleep 0.1
	done
	assert_equal "$(link_perf "$1" "$2")" "$3"
}

# best_link INI TGT: "bandwidth latency" of the best link both are on
best_link() { hms_best_link "$1" "$2" | cut -d' ' -f1,2; }

# bus_consistent: every symlink of every object leads to a live object, and
# uids are unique
bus_consistent() {
	local l dups
	for l in "$D"/*/links/* "$D"/*/targets/* "$D"/*/initiators/* "$D"/*/bridges/*; do
		[ -L "$l" ] || continue
		[ -e "$l" ] || fail "dangling symlink $l"
	done
	dups=$(cat "$D"/*/uid | sort | uniq -d)
	[ -z "$dups" ] || fail "duplicate uids: $dups"
}

# paths_match_hmat TGT NODE: every CPU initiator's best path to TGT has the
# profile's HMAT values for NODE
paths_match_hmat() {
	local i ini lat bw
	for i in $(topo_initiators); do
		ini=$(hms_find initiator nid="$i")
		[ -n "$ini" ] || fail "no initiator for node $i"
		lat=$(topo_hmat "$i" "$2" latency)
		bw=$(topo_hmat "$i" "$2" bandwidth)
		[ -n "$lat" ] || continue
		assert_equal "$(best_link "$ini" "$1")" "$bw $lat"
	done
}

@test "memory that is hot-added but offline has no target" {
	hp_set offline
	assert_equal "$(hms_find target nid="$HP_NODE")" ""
	[[ " $(mem_nodes) " != *" $HP_NODE "* ]] || fail "node $HP_NODE has memory"
	bus_consistent
}

@test "onlining a memory-less node's memory registers its target, size and HMAT paths" {
	hp_set online_movable
	run hms_find target nid="$HP_NODE"
	[ "$(echo "$output" | grep -c .)" = 1 ] || fail "node $HP_NODE: targets '$output'"
	t=$output
	assert_equal "$(cat "$D/$t/type")" system
	assert_equal "$(cat "$D/$t/cpu_accessible")" 1
	bs=$(( 0x$(cat $MEM/block_size_bytes) ))
	assert_equal "$(cat "$D/$t/size")" "$(( bs * $(echo "$HP_BLOCKS" | wc -w) ))"
	paths_match_hmat "$t" "$HP_NODE"
	bus_consistent
}

@test "hbind binds to and migrates from the hot-added target" {
	hp_set online_movable
	run hbind-do -c "$(node_cpu 0)" -n 64 bind:n"$HP_NODE" touch where migrate:n0 where
	assert_success
	assert_line "bind ok"
	assert_line --index 2 "nodes n$HP_NODE=64"
	assert_line "migrate moved=64"
	assert_line --index 4 "nodes n0=64"
}

@test "memory without HMAT figures gets the node's performance when the kernel sets it (a CXL region's): the nearest CPUs' links follow, INTERLEAVE auto works" {
	local t near far nn fn acc saved c
	[ -n "$CX_NODE" ] || fail "the profile has no memory node without HMAT figures"
	if [ ! -e $NODE_PERF ]; then
		run modprobe test_hms
		assert_success
		HP_RMMOD=1
	fi
	[ -e $NODE_PERF ] || fail "test_hms has no $NODE_PERF"
	dmesg -C
	t=$(hms_find target nid="$CX_NODE")
	[ -n "$t" ] || fail "no target for node $CX_NODE"
	# the CPU node nearest to it (SLIT) and the other one
	read -r nn fn <<< "$(for n in $(topo_initiators); do
		echo "$(node_distance "$n" "$CX_NODE") $n"; done | sort -n | awk '{ printf "%s ", $2 }')"
	[ "$(node_distance "$nn" "$CX_NODE")" -lt "$(node_distance "$fn" "$CX_NODE")" ] ||
		fail "the profile puts node $CX_NODE as near to node $fn as to node $nn"
	near=$(hms_find initiator nid="$nn") far=$(hms_find initiator nid="$fn")
	assert_equal "$(link_perf "$near" "$t")" "0 0 0 0"
	assert_equal "$(link_perf "$far" "$t")" "0 0 0 0"
	run hbind-do -c "$(node_cpu "$nn")" -n 16 il:n"$nn",n"$CX_NODE":auto
	assert_line "il errno=ENODATA"
	# bad input: EINVAL, nothing set
	run sh -c "echo 99 1 1 1 1 > $NODE_PERF"
	assert_failure
	run sh -c "echo $CX_NODE 1 1 > $NODE_PERF"
	assert_failure
	assert_equal "$(link_perf "$near" "$t")" "0 0 0 0"
	# the node's coordinates: the nearest CPUs' link, the node's access1
	node_perf "$CX_NODE" 5120 2560 250 400
	wait_link_perf "$near" "$t" "5120 2560 250 400"
	acc=/sys/devices/system/node/node$CX_NODE/access1/initiators
	assert_equal "$(cat $acc/read_bandwidth) $(cat $acc/read_latency)" "5120 250"
	assert_equal "$(link_perf "$far" "$t")" "0 0 0 0"
	# weights from the bandwidths of node nn's CPUs: its own memory's
	# (the profile's HMAT) and 5120, scaled to 16 and reduced
	run hbind-do -c "$(node_cpu "$nn")" -n 50 il:n"$nn",n"$CX_NODE":auto touch where
	assert_success
	assert_line "$(il_nodes 50 "$nn" "$(topo_hmat "$nn" "$nn" bandwidth)" "$CX_NODE" 5120)"
	# new figures replace the old ones
	node_perf "$CX_NODE" 10240 5120 200 300
	wait_link_perf "$near" "$t" "10240 5120 200 300"
	run hbind-do -c "$(node_cpu "$nn")" -n 60 il:n"$nn",n"$CX_NODE":auto touch where
	assert_line "$(il_nodes 60 "$nn" "$(topo_hmat "$nn" "$nn" bandwidth)" "$CX_NODE" 10240)"
	# a link made after the figures were set starts from them: the
	# nearest node's CPUs go offline and come back (when not the boot CPU)
	c=$(node_cpu "$nn")
	if [ -w /sys/devices/system/cpu/cpu$c/online ]; then
		echo 0 > /sys/devices/system/cpu/cpu$c/online
		assert_equal "$(hms_find initiator nid="$nn")" ""
		echo 1 > /sys/devices/system/cpu/cpu$c/online
		near=$(hms_find initiator nid="$nn")
		assert_equal "$(link_perf "$near" "$t")" "10240 5120 200 300"
	else
		fail "node $nn's CPU $c cannot go offline: the profile should put the boot CPU elsewhere"
	fi
	assert_equal "$(link_perf "$far" "$t")" "0 0 0 0"
	# where the HMAT has figures for a pair, they stay: node $HP_NODE's
	# links keep them (checked once a later update of node $CX_NODE
	# shows, so that the update of node $HP_NODE has been applied)
	hp_set online_movable
	acc=/sys/devices/system/node/node$HP_NODE/access1/initiators
	saved="$(cat $acc/read_bandwidth) $(cat $acc/write_bandwidth) $(cat $acc/read_latency) $(cat $acc/write_latency)"
	node_perf "$HP_NODE" 1 1 9999 9999
	node_perf "$CX_NODE" 2048 1024 500 600
	wait_link_perf "$near" "$t" "2048 1024 500 600"
	assert_equal "$(cat $acc/read_bandwidth)" 1
	paths_match_hmat "$(hms_find target nid="$HP_NODE")" "$HP_NODE"
	# shellcheck disable=SC2086
	node_perf "$HP_NODE" $saved
	bus_consistent
	# setting a node's figures again is quiet (no duplicate sysfs files)
	run dmesg
	assert_success
	refute_output --regexp 'Call Trace|duplicate filename|failed to add performance|BUG:|WARNING:'
}

@test "offlining the memory unregisters its target and links, and nothing dangles" {
	hp_set online_movable
	t=$(hms_find target nid="$HP_NODE")
	[ -n "$t" ] || fail "no target after onlining"
	links=$(ls "$D/$t/links")
	[ -n "$links" ] || fail "target $t is on no link"
	hp_set offline
	[ ! -e "$D/$t" ] || fail "$t still registered"
	for l in $links; do
		[ ! -e "$D/$l" ] || fail "link $l of $t still registered"
	done
	bus_consistent
	# and it comes back, on its own links, as often as it is onlined
	hp_set online_movable
	t2=$(hms_find target nid="$HP_NODE")
	[ -n "$t2" ] || fail "no target after onlining again"
	paths_match_hmat "$t2" "$HP_NODE"
	hp_set offline
	assert_equal "$(hms_find target nid="$HP_NODE")" ""
}

@test "a uid is never given twice: memory onlined again gets a new target and links, and the old target's uid names nothing" {
	local a b c gone reused u1
	hp_set online_movable
	t=$(hms_find target nid="$HP_NODE")
	[ -n "$t" ] || fail "no target after onlining"
	u1=$(cat "$D/$t/uid")
	a=$(cat "$D"/*/uid | sort -u)
	hp_set offline
	b=$(cat "$D"/*/uid | sort -u)
	gone=$(comm -23 <(echo "$a") <(echo "$b"))
	grep -qx "$u1" <<< "$gone" || fail "uid $u1 still live after offlining node $HP_NODE"
	hp_set online_movable
	c=$(cat "$D"/*/uid | sort -u)
	reused=$(comm -12 <(echo "$gone") <(echo "$c") | xargs)
	[ -z "$reused" ] || fail "uids of gone objects given again: $reused (gone: $(echo $gone))"
	t=$(hms_find target nid="$HP_NODE")
	[ "$(cat "$D/$t/uid")" != "$u1" ] || fail "node $HP_NODE's new target has the old uid $u1"
	# a program that kept the old uid gets an error, not this memory
	run hbind-do -c "$(node_cpu 0)" -n 16 bind:"$u1" migrate:"$u1"
	assert_success
	assert_line "bind errno=EINVAL"
	assert_line "migrate errno=ENODEV"
	hp_set offline
}

@test "a range bound to a target whose memory went offline still faults in" {
	hp_set online_movable
	f=$BATS_TEST_TMPDIR/out
	# bind, wait for the memory to go away, then touch
	hbind-do -c "$(node_cpu 0)" -n 32 bind:n"$HP_NODE":strict sleep:3000 touch verify where > "$f" 2>&1 &
	pid=$!
	sleep 1
	hp_set offline
	wait "$pid" || fail "hbind-do failed: $(cat "$f")"
	grep -qx "bind ok" "$f" || fail "$(cat "$f")"
	grep -q "^nodes " "$f" || fail "$(cat "$f")"
	! grep -q "ENOENT\|n$HP_NODE=" "$f" || fail "pages not placed on a memory node: $(cat "$f")"
}

@test "offlining a node's last CPU unregisters its initiator and links; onlining restores them" {
	# a node with CPUs that can all go offline (not the boot CPU)
	node=
	for n in $(topo_initiators); do
		ok=1
		for c in $(expand_list "$(cat /sys/devices/system/node/node$n/cpulist)"); do
			[ -w /sys/devices/system/cpu/cpu$c/online ] || ok=0
		done
		[ $ok = 1 ] && node=$n && break
	done
	[ -n "$node" ] || skip "every node with CPUs has the boot CPU"
	cpus=$(expand_list "$(cat /sys/devices/system/node/node$node/cpulist)")
	ini=$(hms_find initiator nid="$node")
	[ -n "$ini" ] || fail "no initiator for node $node"
	links=$(ls "$D/$ini/links")
	for c in $cpus; do echo 0 > /sys/devices/system/cpu/cpu$c/online; done
	assert_equal "$(hms_find initiator nid="$node")" ""
	for l in $links; do
		[ ! -e "$D/$l" ] || fail "link $l of $ini still registered"
	done
	# its memory is still a target, and the other CPUs are still described
	[ -n "$(hms_find target nid="$node")" ] || fail "node $node lost its target with its CPUs"
	for c in $(expand_list "$(cat /sys/devices/system/cpu/online)"); do
		n=$(cat "$D"/v1-*-initiator/cpulist | while read -r l; do expand_list "$l"; echo; done | tr ' ' '\n' | grep -cx "$c")
		[ "$n" = 1 ] || fail "online cpu $c is in $n initiators"
	done
	bus_consistent
	# hbind still binds to the CPU-less node's memory
	run hbind-do -c "$(node_cpu 0)" -n 16 bind:n"$node" touch where
	assert_line "nodes n$node=16"
	for c in $cpus; do echo 1 > /sys/devices/system/cpu/cpu$c/online; done
	ini2=$(hms_find initiator nid="$node")
	[ -n "$ini2" ] || fail "no initiator after onlining node $node's CPUs"
	assert_equal "$(cat "$D/$ini2/cpulist")" "$(cat /sys/devices/system/node/node$node/cpulist)"
	for t in $(topo_memory_nodes); do
		lat=$(topo_hmat "$node" "$t" latency)
		bw=$(topo_hmat "$node" "$t" bandwidth)
		[ -n "$lat" ] || continue
		assert_equal "$(best_link "$ini2" "$(hms_find target nid="$t")")" "$bw $lat"
	done
	bus_consistent
}
