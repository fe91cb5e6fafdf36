#!/usr/bin/env bats
# Hotplug keeps the HMS bus up to date. Memory added to a memory-less node
# (the hotplug profile's DIMM on a node with no memory at boot) registers a
# target, with the node's HMAT paths, when it goes online, and unregisters it
# when it goes offline. A node whose last CPU goes offline loses its
# initiator and gets it back, with the same paths, when the CPU returns.
# Every test leaves the machine as it found it: DIMM offline, CPUs online.

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
}

teardown() {
	local c
	for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$c")" = 1 ] || echo 1 > "$c" || true
	done
	hp_set offline || true
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
