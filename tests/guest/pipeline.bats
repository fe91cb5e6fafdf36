#!/usr/bin/env bats
# The pipeline itself: the guest runs the kernel just built from the series,
# on the topology the profile describes, and sees the profile's HMAT values.

setup() {
	load common
}

@test "the booted kernel is the one built from kernel-patches/" {
	[ -n "${HMS_KERNEL_RELEASE:-}" ] || fail "vm.sh did not say which kernel it built (no kernelrelease beside the bzImage)"
	run uname -r
	assert_output "$HMS_KERNEL_RELEASE"
	run cat /proc/version
	assert_output --partial "$HMS_KERNEL_BANNER"
}

@test "the kernel config has what the tests rely on" {
	[ -r /proc/config.gz ] || fail "no /proc/config.gz (CONFIG_IKCONFIG_PROC)"
	zcat /proc/config.gz > "$BATS_TEST_TMPDIR/config"
	for opt in CONFIG_NUMA CONFIG_ACPI_HMAT CONFIG_MIGRATION CONFIG_ADVISE_SYSCALLS \
		   CONFIG_CPUSETS CONFIG_DEVICE_PRIVATE CONFIG_HMS; do
		grep -qx "$opt=y" "$BATS_TEST_TMPDIR/config" || fail "$opt=y missing from the running kernel's config"
	done
}

@test "the kernel has the debug options exactly when the run asked for DEBUG=1" {
	zcat /proc/config.gz > "$BATS_TEST_TMPDIR/config"
	if [ "${HMS_DEBUG_KERNEL:-0}" != 1 ]; then
		# the figures and timings of a plain run are of the plain kernel
		for opt in CONFIG_KASAN CONFIG_PROVE_LOCKING CONFIG_DEBUG_KMEMLEAK; do
			! grep -qx "$opt=y" "$BATS_TEST_TMPDIR/config" || fail "$opt=y in the kernel of a run without DEBUG=1"
		done
		return
	fi
	for opt in CONFIG_KASAN CONFIG_PROVE_LOCKING CONFIG_DEBUG_KMEMLEAK \
		   CONFIG_DEBUG_VM CONFIG_FAULT_INJECTION; do
		grep -qx "$opt=y" "$BATS_TEST_TMPDIR/config" || fail "$opt=y missing from the debug kernel"
	done
	[ -e /sys/kernel/debug/kmemleak ] || fail "kmemleak is not active (debugfs not mounted or kmemleak=off)"
	grep -q "kasan\|KernelAddressSanitizer" <(dmesg) || fail "KASAN did not announce itself at boot"
}

@test "numactl -H shows the profile's nodes and CPUs" {
	run numactl -H
	assert_success
	local n
	n=$(topo_nodes | wc -l)
	if [ "$n" -gt 1 ]; then
		assert_line --partial "available: $n nodes (0-$((n - 1)))"
	else
		assert_line --partial "available: 1 nodes (0)"
	fi
	for node in $(topo_nodes); do
		cpus=$(topo_node_cpus "$node")
		want=$(echo "$cpus" | awk -F- '{ if ($2 == "") print $1; else for (i = $1; i <= $2; i++) printf "%s%d", (i > $1 ? " " : ""), i }')
		line=$(echo "$output" | grep "^node $node cpus:")
		got=$(echo "$line" | sed 's/^node [0-9]* cpus: *//; s/ *$//')
		[ "$got" = "$want" ] || fail "node $node cpus: got '$got', profile says '$want'"
	done
}

@test "numactl -H shows each node's memory size" {
	run numactl -H
	assert_success
	local node want got min total=0 first=
	for node in $(topo_memory_nodes); do
		total=$((total + $(topo_node_size_mib "$node")))
		[ -n "$first" ] || first=$node
	done
	for node in $(topo_memory_nodes); do
		want=$(topo_node_size_mib "$node")
		got=$(echo "$output" | sed -n "s/^node $node size: \([0-9]*\) MB/\1/p")
		[ -n "$got" ] || fail "no size for node $node"
		# the kernel keeps up to 20% of a node for itself (memmap,
		# page tables, its image on the first node). A DEBUG=1 kernel
		# also allocates KASAN's shadow, 1/8 of all memory, on the
		# node where each directly mapped range starts
		# (arch/x86/mm/kasan_init_64.c: map_range()); the guest's RAM
		# is one range, so all of it lands on the first memory node
		min=$((want * 80 / 100))
		if [ "${HMS_DEBUG_KERNEL:-0}" = 1 ] && [ "$node" = "$first" ]; then
			min=$((min - total / 8))
		fi
		[ "$got" -le "$want" ] && [ "$got" -ge "$min" ] ||
			fail "node $node size $got MB, profile $want MB, at least $min MB expected"
	done
}

@test "HMAT values reach /sys/devices/system/node/*/access0" {
	for t in $(topo_memory_nodes); do
		topo_has_hmat "$t" || continue
		d=/sys/devices/system/node/node$t/access0/initiators
		[ -d "$d" ] || fail "no $d"
		inits=$(ls "$d" | sed -n 's/^node\([0-9]*\)$/\1/p')
		[ -n "$inits" ] || fail "no initiator listed for node $t"
		for i in $inits; do
			lat=$(topo_hmat "$i" "$t" latency)
			bw=$(topo_hmat "$i" "$t" bandwidth)
			assert_equal "$(cat $d/read_latency)" "$lat"
			assert_equal "$(cat $d/write_latency)" "$lat"
			assert_equal "$(cat $d/read_bandwidth)" "$bw"
			assert_equal "$(cat $d/write_bandwidth)" "$bw"
		done
	done
}

@test "hwloc sees the HMAT bandwidth and latency of every local pair" {
	command -v lstopo-no-graphics || fail "lstopo-no-graphics missing: rootfs/packages.txt installs hwloc-nox"
	run lstopo-no-graphics --memattrs -p
	assert_success
	for t in $(topo_memory_nodes); do
		topo_has_hmat "$t" || continue
		i=$(ls /sys/devices/system/node/node$t/access0/initiators | sed -n 's/^node\([0-9]*\)$/\1/p' | head -1)
		bw=$(topo_hmat "$i" "$t" bandwidth)
		lat=$(topo_hmat "$i" "$t" latency)
		echo "$output" | awk -v t="$t" -v bw="$bw" -v lat="$lat" '
			/name .Bandwidth/ { a = "bw" } /name .Latency/ { a = "lat" }
			/name .(Capacity|Locality|ReadBandwidth|WriteBandwidth|ReadLatency|WriteLatency)/ { a = "" }
			a == "bw" && $0 ~ "NUMANode P#" t " " && $0 ~ "= " bw " " { fb = 1 }
			a == "lat" && $0 ~ "NUMANode P#" t " " && $0 ~ "= " lat " " { fl = 1 }
			END { exit !(fb && fl) }' || fail "lstopo does not show bw $bw / lat $lat for node $t: $output"
	done
}
