#!/usr/bin/env bats
# libhms and hmsctl on the running kernel: they agree with numactl, with
# lstopo and with the profile's HMAT values; programs built against the
# installed library (pkg-config; glibc and musl) run; on two-socket-hbm,
# hmsctl topology prints what the README shows.

setup() {
	load common
	have_hms || fail "no /sys/bus/hms/devices: the kernel has no HMS"
}

teardown() {
	# the device selector test loads test_hms: never leave it to the next suites
	if [ -d /sys/module/test_hms ]; then rmmod test_hms; fi
}

# tgt_of_node N / ini_of_node N: uid of node N's system target / initiator
tgt_of_node() { hms_find_uid target nid="$1" type=system; }
ini_of_node() { hms_find_uid initiator nid="$1"; }

@test "hmsctl topology lists the nodes numactl -H lists" {
	run hmsctl topology --format json
	assert_success
	echo "$output" > "$BATS_TEST_TMPDIR/topo.json"
	got=$(jq -r '.targets[] | select(.type == "system") | .nid' "$BATS_TEST_TMPDIR/topo.json" | sort -n | xargs)
	want=$(numactl -H | sed -n 's/^node \([0-9]*\) size: [1-9][0-9]* MB/\1/p' | sort -n | xargs)
	assert_equal "$got" "$want"
	run hmsctl topology
	assert_success
	assert_output --partial "targets:"
	assert_output --partial "initiators:"
}

@test "hmsctl topology prints what the README shows (docs/hmsctl-topology.txt, on two-socket-hbm)" {
	# scripts/readme-topology.sh wrote the file on two-socket-hbm; on other
	# profiles there is nothing to compare (a skip would fail make check)
	[ "${HMS_TOPOLOGY_NAME:-}" = two-socket-hbm ] || return 0
	f=/mnt/hms/docs/hmsctl-topology.txt
	[ -s "$f" ] || fail "no $f (scripts/build-userspace.sh copies it)"
	run hmsctl topology
	assert_success
	assert_equal "$output" "$(tail -n +2 "$f")"
}

@test "hmsctl path gives the profile's HMAT values for every CPU/memory pair" {
	n=0
	for i in $(topo_initiators); do
		for t in $(topo_memory_nodes); do
			lat=$(topo_hmat "$i" "$t" latency)
			[ -n "$lat" ] || continue
			bw=$(topo_hmat "$i" "$t" bandwidth)
			run hmsctl path "$(ini_of_node "$i")" "$(tgt_of_node "$t")" --format json
			assert_success
			assert_equal "$(echo "$output" | jq .read_latency)" "$lat"
			assert_equal "$(echo "$output" | jq .write_latency)" "$lat"
			assert_equal "$(echo "$output" | jq .read_bandwidth)" "$bw"
			assert_equal "$(echo "$output" | jq .write_bandwidth)" "$bw"
			n=$((n + 1))
		done
	done
	[ "$n" -gt 0 ] || skip "the profile gives no HMAT values"
}

@test "hmsctl best picks the profile's best node by bandwidth, latency and capacity" {
	for i in $(topo_initiators); do
		bbw=-1 blat=999999999 bcap=-1
		for t in $(topo_memory_nodes); do
			bw=$(topo_hmat "$i" "$t" bandwidth)
			lat=$(topo_hmat "$i" "$t" latency)
			cap=$(topo_node_size_mib "$t")
			[ -n "$bw" ] || continue
			if [ "$bw" -gt "$bbw" ]; then bbw=$bw nbw=$t; fi
			if [ "$lat" -lt "$blat" ]; then blat=$lat nlat=$t; fi
			if [ "$cap" -gt "$bcap" ]; then bcap=$cap ncap=$t; fi
		done
		[ "$bbw" -ge 0 ] || skip "no HMAT values"
		ini=$(ini_of_node "$i")
		run hmsctl best "$ini" --by bandwidth --only system
		assert_success
		assert_output "$(tgt_of_node "$nbw")"
		run hmsctl best "$ini" --by latency --only system
		assert_output "$(tgt_of_node "$nlat")"
		# capacity: equal sizes make it ambiguous; check only a unique maximum
		if [ "$(for t in $(topo_memory_nodes); do topo_node_size_mib "$t"; done | grep -cx "$bcap")" = 1 ]; then
			run hmsctl best "$ini" --by capacity --only system
			assert_output "$(tgt_of_node "$ncap")"
		fi
	done
}

@test "hmsctl and lstopo --memattrs agree on local bandwidth and latency" {
	command -v lstopo-no-graphics || fail "lstopo-no-graphics missing: rootfs/packages.txt installs hwloc-nox"
	run lstopo-no-graphics --memattrs -p
	assert_success
	lo=$output
	for t in $(topo_memory_nodes); do
		i=$(ls /sys/devices/system/node/node$t/access0/initiators | sed -n 's/^node\([0-9]*\)$/\1/p' | head -1)
		[ -n "$i" ] || continue
		run hmsctl path "$(ini_of_node "$i")" "$(tgt_of_node "$t")" --format json
		assert_success
		bw=$(echo "$output" | jq .read_bandwidth)
		lat=$(echo "$output" | jq .read_latency)
		echo "$lo" | grep -A8 "name .Bandwidth'" | grep -q "NUMANode P#$t = $bw " ||
			fail "lstopo has no bandwidth $bw for node $t"
		echo "$lo" | grep -A8 "name .Latency'" | grep -q "NUMANode P#$t = $lat " ||
			fail "lstopo has no latency $lat for node $t"
	done
}

@test "hmsctl current initiator is the node of the CPU it runs on" {
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		node=$(basename "$(ls -d /sys/devices/system/cpu/cpu$cpu/node* | head -1)" | sed 's/node//')
		run taskset -c "$cpu" hmsctl best current --by bandwidth
		assert_success
		run taskset -c "$cpu" hmsctl path current current --format json
		assert_success
		assert_equal "$(echo "$output" | jq .initiator)" "$(ini_of_node "$node")"
		[ -z "$(tgt_of_node "$node")" ] ||
			assert_equal "$(echo "$output" | jq .target)" "$(tgt_of_node "$node")"
	done
}

@test "hmsctl node:N and cpu:N select the objects sysfs gives for node N and CPU N" {
	for n in $(topo_initiators); do
		run hmsctl best "node:$n" --by latency --format json
		assert_success
		assert_equal "$(echo "$output" | jq .initiator)" "$(ini_of_node "$n")"
	done
	for n in $(topo_memory_nodes); do
		i=$(topo_initiators | head -1)
		run hmsctl path "node:$i" "node:$n" --format json
		assert_success
		assert_equal "$(echo "$output" | jq .target)" "$(tgt_of_node "$n")"
	done
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		node=$(basename "$(ls -d /sys/devices/system/cpu/cpu$cpu/node* | head -1)" | sed 's/node//')
		run hmsctl path "cpu:$cpu" "cpu:$cpu" --format json
		assert_success
		assert_equal "$(echo "$output" | jq .initiator)" "$(ini_of_node "$node")"
		assert_equal "$(echo "$output" | jq .target)" "$(tgt_of_node "$node")"
	done
	run -1 hmsctl path "cpu:$(nproc)" node:0
	assert_output --partial "no initiator has CPU $(nproc)"
}

@test "hmsctl selects a device initiator and its memory by the device's name or sysfs path" {
	modprobe -n -q test_hms 2>/dev/null || fail "no test_hms module (CONFIG_TEST_HMS=m)"
	run modprobe test_hms ndevices=1 mem_mb=16
	assert_success
	ini= tgt=
	for o in "$HMS_BUS"/v1-*-initiator; do
		if [ "$(readlink -f "$o/device")" = /sys/devices/virtual/misc/hms_test0 ]; then
			ini=$(cat "$o/uid")
		fi
	done
	for o in "$HMS_BUS"/v1-*-target; do
		if [ "$(cat "$o/type")" = device-private ]; then tgt=$(cat "$o/uid"); fi
	done
	[ -n "$ini" ] || fail "no initiator of hms_test0 on the bus"
	[ -n "$tgt" ] || fail "no device-private target on the bus"
	run hmsctl path hms_test0 hms_test0 --format json
	assert_success
	assert_equal "$(echo "$output" | jq .initiator)" "$ini"
	assert_equal "$(echo "$output" | jq .target)" "$tgt"
	assert_equal "$(echo "$output" | jq '.elements | length')" 1
	run hmsctl path /sys/class/misc/hms_test0 "$tgt" --format json
	assert_success
	assert_equal "$(echo "$output" | jq .initiator)" "$ini"
	run rmmod test_hms
	assert_success
	run -1 hmsctl path hms_test0 node:0
	assert_output --partial "hms_test0: no device initiator of that device"
}

@test "hmsctl fallback --format json gives, for each target, the values hmsctl path gives" {
	for i in $(topo_initiators); do
		run hmsctl fallback "node:$i" --by bandwidth --format json
		assert_success
		fb=$output
		for t in $(echo "$fb" | jq '.targets[]'); do
			run hmsctl path "node:$i" "$t" --format json
			assert_success
			assert_equal "$(echo "$fb" | jq -c ".paths[] | select(.target == $t) | del(.target)")" \
				"$(echo "$output" | jq -c 'del(.initiator, .target, .elements)')"
		done
	done
}

@test "programs built with pkg-config against the installed library run (glibc and musl)" {
	for p in hms-demo-glibc hms-demo-musl; do
		[ -x "$HMS_BIN/$p" ] || fail "$p was not built"
		run "$HMS_BIN/$p"
		assert_success
		assert_output --partial "bind"
	done
}

@test "hmsctl rejects bad arguments with exit status 2 and a clear message" {
	run -2 hmsctl frobnicate
	assert_output --partial "hmsctl:"
	run -2 hmsctl best
	run -1 hmsctl path 999999 999998
	assert_output --partial "hmsctl:"
	run -2 hmsctl best 0 --by weight
	run -2 hmsctl path node:x 0
	assert_output --partial "invalid initiator 'node:x'"
	run -1 hmsctl path node:9999 node:0
	assert_output --partial "no CPU initiator on node 9999"
	run -2 hmsctl --format dot path node:0 node:0
	assert_output --partial "--format dot applies only to topology"
	run -2 hmsctl --format yaml topology
	assert_output --partial "invalid --format 'yaml'"
}
