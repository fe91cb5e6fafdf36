#!/usr/bin/env bats
# The whole series built with CONFIG_HMS=n (`make build-each` boots it on
# two-socket-hbm): no HMS objects, hbind() is ENOSYS, libhms and hmsctl say
# so cleanly, and the NUMA calls behave exactly as on a kernel without the
# series.

setup() {
	load common
}

@test "the booted kernel is the CONFIG_HMS=n build of the series" {
	[ -n "${HMS_KERNEL_RELEASE:-}" ] || fail "vm.sh did not say which kernel it built (no kernelrelease beside the bzImage)"
	run uname -r
	assert_output "$HMS_KERNEL_RELEASE"
	zcat /proc/config.gz > "$BATS_TEST_TMPDIR/config"
	grep -qx '# CONFIG_HMS is not set' "$BATS_TEST_TMPDIR/config" || fail "CONFIG_HMS is set"
	grep -qx 'CONFIG_NUMA=y' "$BATS_TEST_TMPDIR/config" || fail "no CONFIG_NUMA"
}

@test "no HMS bus, no HMS objects" {
	[ ! -e /sys/bus/hms ] || fail "/sys/bus/hms exists"
	[ ! -e /sys/devices/hms ] || fail "/sys/devices/hms exists"
	run grep -r -l -s hms /sys/devices/system/node/node0
	assert_output ''
}

@test "hbind() is ENOSYS, whatever its arguments" {
	run hbind-do -n 4 probe
	assert_success
	assert_output "probe ENOSYS"
	run hbind-do -n 4 hcall:t=-,na=0 hcall:tp=bad,ap=null
	assert_success
	assert_output "hcall errno=ENOSYS
hcall errno=ENOSYS"
}

@test "hmsctl fails cleanly when the kernel has no HMS topology" {
	run hmsctl topology
	[ "$status" -ne 0 ] || fail "hmsctl topology succeeded without HMS"
	[ "$status" -lt 126 ] || fail "hmsctl crashed (status $status)"
	assert_output --partial "HMS"
}

@test "mbind, move_pages and migrate_pages work as without the series" {
	# bind to node 1, touch, check placement; move back to 0; migrate 0 -> 1
	run hbind-do -n 64 mbind:bind:1 touch where move:0 where mpages:0:1 where getpol verify
	assert_success
	assert_line "mbind ok"
	assert_line --index 2 "nodes n1=64"
	assert_line "move ret=0 n0=64"
	assert_line --index 4 "nodes n0=64"
	assert_line --index 6 "nodes n1=64"
	assert_line --regexp "^policy 0-63:bind(=static)?:1$"
}

@test "numactl binds memory to a CPU-less node" {
	n=$(topo_memory_nodes | while read -r m; do [ -z "$(topo_node_cpus "$m")" ] && echo "$m"; done | head -n1)
	[ -n "$n" ] || skip "the profile has no CPU-less memory node"
	run numactl --membind="$n" hbind-do -n 32 touch where
	assert_success
	assert_line "nodes n$n=32"
}
