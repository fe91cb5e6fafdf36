#!/usr/bin/env bats
# The HMS bus describes the machine the profile built: one target per memory
# node, every CPU in one initiator, and for every (CPU initiator, memory
# target) pair a path whose bandwidth and latency are the profile's HMAT values.

setup() {
	load common
	have_hms || fail "no /sys/bus/hms/devices: the kernel has no HMS"
	D=$HMS_BUS
}

@test "objects are named v<version>-<uid>-<type> and uids are unique" {
	run ls "$D"
	assert_success
	[ -n "$output" ] || fail "the bus has no objects"
	for o in $output; do
		[[ "$o" =~ ^v([0-9]+)-([0-9]+)-(target|initiator|link|bridge)$ ]] ||
			fail "badly formed name: $o"
		[ "${BASH_REMATCH[1]}" = 1 ] || fail "unknown version in $o"
		assert_equal "$(cat "$D/$o/uid")" "${BASH_REMATCH[2]}"
	done
	dups=$(cat "$D"/*/uid | sort | uniq -d)
	[ -z "$dups" ] || fail "duplicate uids: $dups"
}

@test "one system target per memory node, with its node's size" {
	for n in $(topo_memory_nodes); do
		run hms_find target nid="$n"
		assert_success
		[ "$(echo "$output" | grep -c .)" = 1 ] || fail "node $n: targets '$output'"
		t=$D/$output
		assert_equal "$(cat "$t/type")" system
		assert_equal "$(cat "$t/cpu_accessible")" 1
		size=$(cat "$t/size")
		want=$(( $(topo_node_size_mib "$n") * 1024 * 1024 ))
		# present pages: the profile's size less firmware holes (< 2%)
		[ "$size" -le "$want" ] && [ "$size" -ge $((want * 98 / 100)) ] ||
			fail "node $n target size $size, profile $want"
		total=$(awk '/MemTotal/ { print $4 * 1024 }' /sys/devices/system/node/node$n/meminfo)
		[ "$size" -ge "$total" ] || fail "node $n target size $size < MemTotal $total"
	done
	# and no other system target
	nsys=$(grep -lx system "$D"/v1-*-target/type | wc -l)
	assert_equal "$nsys" "$(topo_memory_nodes | wc -l)"
}

@test "every online CPU is in exactly one CPU initiator, which matches its node" {
	for cpu in $(expand_list "$(cat /sys/devices/system/cpu/online)"); do
		n=0
		for i in "$D"/v1-*-initiator; do
			for c in $(expand_list "$(cat "$i/cpulist")"); do
				[ "$c" = "$cpu" ] && n=$((n + 1))
			done
		done
		[ "$n" = 1 ] || fail "cpu $cpu is in $n initiators"
	done
	for node in $(topo_initiators); do
		run hms_find initiator nid="$node"
		[ "$(echo "$output" | grep -c .)" = 1 ] || fail "node $node: initiators '$output'"
		assert_equal "$(cat "$D/$output/cpulist")" "$(cat /sys/devices/system/node/node$node/cpulist)"
	done
}

@test "every symlink points to a live object of the right type" {
	declare -A want=([links]=link [targets]=target [initiators]=initiator [bridges]=bridge)
	n=0
	for o in "$D"/*; do
		for dir in links targets initiators bridges; do
			[ -d "$o/$dir" ] || continue
			for l in "$o/$dir"/*; do
				[ -e "$l" ] || [ -L "$l" ] || continue
				[ -e "$l" ] || fail "dangling: $l"
				name=$(basename "$(readlink -f "$l")")
				[[ "$name" =~ ^v1-[0-9]+-${want[$dir]}$ ]] || fail "$l -> $name is no ${want[$dir]}"
				[ -e "$D/$name" ] || fail "$l -> $name is not on the bus"
				n=$((n + 1))
			done
		done
	done
	[ "$n" -gt 0 ] || fail "no symlinks at all"
}

@test "membership is symmetric: a link lists a target iff the target lists the link" {
	for l in "$D"/v1-*-link; do
		ln=$(basename "$l")
		for t in "$l"/targets/* "$l"/initiators/*; do
			[ -e "$t" ] || continue
			[ -e "$(readlink -f "$t")/links/$ln" ] || fail "$t does not list $ln"
		done
	done
	for t in "$D"/v1-*-target "$D"/v1-*-initiator; do
		for l in "$t"/links/*; do
			[ -e "$l" ] || continue
			kind=targets
			[[ "$t" == *initiator ]] && kind=initiators
			[ -e "$(readlink -f "$l")/$kind/$(basename "$t")" ] || fail "$l does not list $t"
		done
	done
}

@test "each CPU-initiator/memory-target pair has the profile's HMAT latency and bandwidth" {
	n=0
	for i in $(topo_initiators); do
		ini=$(hms_find initiator nid="$i")
		for t in $(topo_memory_nodes); do
			tgt=$(hms_find target nid="$t")
			lat=$(topo_hmat "$i" "$t" latency)
			bw=$(topo_hmat "$i" "$t" bandwidth)
			[ -n "$lat" ] || continue
			# the links both are on; the path is the best one (here: direct)
			read -r best_bw best_lat L <<< "$(hms_best_link "$ini" "$tgt")"
			[ -n "$L" ] || fail "no link between initiator node $i and target node $t"
			assert_equal "$best_bw" "$bw"
			assert_equal "$best_lat" "$lat"
			assert_equal "$(cat "$D/$L/write_bandwidth")" "$bw"
			assert_equal "$(cat "$D/$L/write_latency")" "$lat"
			n=$((n + 1))
		done
	done
	[ "$n" -gt 0 ] || skip "the profile gives no HMAT values"
}

@test "HMS agrees with the kernel's HMAT access classes for the best initiator" {
	for t in $(topo_memory_nodes); do
		d=/sys/devices/system/node/node$t/access0/initiators
		[ -d "$d" ] || continue
		tgt=$(hms_find target nid="$t")
		for i in $(ls "$d" | sed -n 's/^node\([0-9]*\)$/\1/p'); do
			ini=$(hms_find initiator nid="$i")
			[ -n "$ini" ] || continue
			found=0
			for l in "$D/$ini"/links/*; do
				[ -e "$(readlink -f "$l")/targets/$tgt" ] || continue
				[ "$(cat "$l/read_latency")" = "$(cat "$d/read_latency")" ] &&
				[ "$(cat "$l/read_bandwidth")" = "$(cat "$d/read_bandwidth")" ] && found=1
			done
			[ "$found" = 1 ] || fail "no link from node $i to node $t with access0's values"
		done
	done
}

@test "links between nodes carry the SLIT distance" {
	for i in $(topo_initiators); do
		ini=$(hms_find initiator nid="$i")
		for l in "$D/$ini"/links/*; do
			[ -e "$l" ] || continue
			for t in "$l"/targets/*; do
				tn=$(cat "$t/nid")
				[ "$tn" -ge 0 ] || continue
				want=$(awk -v c=$((tn + 1)) '{ print $c }' /sys/devices/system/node/node$i/distance)
				assert_equal "$(cat "$l/distance")" "$want"
			done
		done
	done
}

@test "the bus names hbind()'s system call number and ABI version, the number the helpers and libhms use" {
	assert_equal "$(cat /sys/bus/hms/hbind_syscall)" 500
	assert_equal "$(cat /sys/bus/hms/hbind_version)" 1
	# the call at that number is hbind(): a valid DEFAULT returns 0
	run hbind-do -n 1 probe
	assert_output "probe ok"
}

@test "unregistering is safe while userspace holds sysfs files open" {
	modinfo test_hms >/dev/null 2>&1 || fail "no test_hms module (CONFIG_TEST_HMS=m)"
	modprobe test_hms ndevices=1 mem_mb=16
	t=$(grep -lx device-private "$D"/v1-*-target/type | head -n1)
	[ -n "$t" ] || fail "test_hms registered no device target"
	dir=$(dirname "$t")
	exec 5<"$dir/size"
	rmmod test_hms
	[ ! -e "$dir" ] || fail "$dir still there after rmmod"
	# reading the stale file must fail cleanly, not crash the kernel
	run -1 cat <&5
	exec 5<&-
}
