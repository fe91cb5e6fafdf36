#!/usr/bin/env bats
# Host test of the hwloc plugin: hwloc's Linux backend reads a fake system
# root (HWLOC_FSROOT) holding a libhms fixture tree (sys/bus/hms,
# tests/fixtures/mkfixture.sh) and the matching CPUs and NUMA nodes, and
# optionally the kernel's access-class values; the plugin then reads
# $HWLOC_FSROOT/sys/bus/hms. Run by `make check` with HWLOC_HMS_BUILD set to
# the build directory of the plugin and hwloc-best-target.
# shellcheck disable=SC2154 # $stderr: set by run --separate-stderr

bats_require_minimum_version 1.5.0

setup_file() {
	[ -n "${HWLOC_HMS_BUILD:-}" ] || {
		echo "HWLOC_HMS_BUILD is not set (run make check)" >&2
		return 1
	}
}

setup() {
	load /usr/lib/bats/bats-support/load
	load /usr/lib/bats/bats-assert/load
	MKFIXTURE=$BATS_TEST_DIRNAME/../../tests/fixtures/mkfixture.sh
	PLUGINS=$HWLOC_HMS_BUILD/plugins
	BEST=$HWLOC_HMS_BUILD/hwloc-best-target
	NONE=$BATS_TEST_TMPDIR/no-plugins
	mkdir -p "$NONE"
	# the fake root only: no x86 CPUID of the host, no other plugin
	export HWLOC_COMPONENTS=-x86
	unset HMS_SYSFS_ROOT HWLOC_HMS_VERBOSE HWLOC_XMLFILE HWLOC_SYNTHETIC
}

# mkroot FIXTURE DIR NODE:CPUMASK:SIZE_KIB...: a system root with the HMS
# fixture, CPUs 0..N-1 (one package each) and the NUMA nodes given
mkroot() {
	local fx=$1 r=$2 spec n m kib c ncpus=0 s
	shift 2
	"$MKFIXTURE" "$fx" "$r"
	s=$r/sys/devices/system
	mkdir -p "$s/cpu" "$s/node"
	for spec in "$@"; do
		IFS=: read -r n m kib <<< "$spec"
		mkdir -p "$s/node/node$n"
		echo "$m" > "$s/node/node$n/cpumap"
		printf 'Node %s MemTotal:       %s kB\n' "$n" "$kib" > "$s/node/node$n/meminfo"
		while [ $((16#$m >> ncpus)) -gt 0 ]; do ncpus=$((ncpus + 1)); done
	done
	for ((c = 0; c < ncpus; c++)); do
		mkdir -p "$s/cpu/cpu$c/topology"
		for f in core_cpus package_cpus thread_siblings core_siblings; do
			printf '%x\n' $((1 << c)) > "$s/cpu/cpu$c/topology/$f"
		done
		echo "$c" > "$s/cpu/cpu$c/topology/physical_package_id"
		echo 0 > "$s/cpu/cpu$c/topology/core_id"
	done
	echo "0-$((ncpus - 1))" > "$s/cpu/online"
}

# access ROOT TARGET_NODE INITIATOR_NODES BW LAT: the kernel's access
# classes 0 and 1 of a node (its best initiators), read = write
access() {
	local d c i
	for c in access0 access1; do
		d=$1/sys/devices/system/node/node$2/$c/initiators
		mkdir -p "$d"
		for i in ${3//,/ }; do ln -s "../../../node$i" "$d/node$i"; done
		echo "$4" > "$d/read_bandwidth"
		echo "$4" > "$d/write_bandwidth"
		echo "$5" > "$d/read_latency"
		echo "$5" > "$d/write_latency"
	done
}

# two_socket DIR: tests/topologies/two-socket-hbm as the kernel shows it:
# cpu 0 on node 0, cpu 1 on node 1, HBM nodes 2 and 3 without CPUs, each
# target's best initiator in its access classes
two_socket() {
	mkroot two-socket-hbm "$1" 0:1:524288 1:2:524288 2:0:131072 3:0:131072
	access "$1" 0 0 20480 90
	access "$1" 1 1 21504 95
	access "$1" 2 0 81920 60
	access "$1" 3 1 83968 65
}

# lstopo_memattrs ROOT PLUGIN_DIR: `lstopo --memattrs -p` of ROOT as
# "Attribute nid cpuset value" lines, sorted
lstopo_memattrs() {
	HWLOC_FSROOT=$1 HWLOC_PLUGINS_PATH=$2 run --separate-stderr \
		lstopo-no-graphics --memattrs -p
	assert_success
	output=$(echo "$output" | awk '
		/^Memory attribute/ { a = $5; gsub(/[^A-Za-z]/, "", a) }
		/NUMANode P#/ && / from cpuset / { n = $2; sub(/P#/, "", n); print a, n, $7, $4 }' | sort)
}

# expect CPUSET NODE BW LAT...: the six attributes of pairs, read = write
expect() {
	local a spec m n bw lat
	for spec in "$@"; do
		IFS=: read -r m n bw lat <<< "$spec"
		for a in Bandwidth ReadBandwidth WriteBandwidth; do echo "$a $n $m $bw"; done
		for a in Latency ReadLatency WriteLatency; do echo "$a $n $m $lat"; done
	done | sort
}

@test "the plugin fills every CPU initiator x system target pair with its HMS path values" {
	two_socket "$BATS_TEST_TMPDIR/r"
	HWLOC_HMS_VERBOSE=1 lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$PLUGINS"
	assert_equal "$output" "$(expect \
		0x00000001:0:20480:90 0x00000001:1:10240:140 0x00000001:2:81920:60 0x00000001:3:8192:170 \
		0x00000002:0:11264:145 0x00000002:1:21504:95 0x00000002:2:9216:175 0x00000002:3:83968:65)"
	# 4 pairs x 6 attributes new, the kernel's 4 x 6 confirmed
	assert_equal "$stderr" "hwloc/hms: $BATS_TEST_TMPDIR/r/sys/bus/hms: 8 initiator x target pairs; values: 24 added, 24 already there, 0 replaced, 0 kept"
}

@test "without the plugin hwloc has only the kernel's best-initiator values" {
	two_socket "$BATS_TEST_TMPDIR/r"
	lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$NONE"
	assert_equal "$output" "$(expect 0x00000001:0:20480:90 0x00000002:1:21504:95 \
		0x00000001:2:81920:60 0x00000002:3:83968:65)"
}

@test "hwloc_memattr_get_best_target() sees the whole matrix" {
	two_socket "$BATS_TEST_TMPDIR/r"
	export HWLOC_FSROOT=$BATS_TEST_TMPDIR/r HWLOC_PLUGINS_PATH=$PLUGINS
	run "$BEST" ReadBandwidth 0
	assert_success
	assert_output "P#2 81920"
	run "$BEST" ReadLatency 1
	assert_output "P#3 65"
	run "$BEST" Bandwidth 1
	assert_output "P#3 83968"
	run -1 "$BEST" Bandwidth 2
	assert_output --partial "no Bandwidth value for cpus 2"
	run -2 "$BEST" Speed 0
	assert_output --partial "unknown memory attribute 'Speed'"
	run -2 "$BEST" ReadLatency 0-x
	assert_output --partial "invalid cpulist '0-x'"
}

@test "a value the kernel gave for a larger CPU set is kept and the conflict reported" {
	# node 3: both sockets are its best initiators by the kernel, at 83968
	# MB/s and 65 ns; HMS gives cpu 0 8192 MB/s and 170 ns, cpu 1 the same
	mkroot two-socket-hbm "$BATS_TEST_TMPDIR/r" 0:1:524288 1:2:524288 2:0:131072 3:0:131072
	access "$BATS_TEST_TMPDIR/r" 3 0,1 83968 65
	HWLOC_HMS_VERBOSE=1 lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$PLUGINS"
	echo "$output" | grep -qx "ReadBandwidth 3 0x00000003 83968" || fail "kernel value lost: $output"
	if echo "$output" | grep -q "^ReadBandwidth 3 0x00000001 "; then
		fail "cpu 0 got its own node 3 value although hwloc answers for it from 0-1: $output"
	fi
	echo "$stderr" | grep -qx "hwloc/hms: ReadBandwidth of NUMANode P#3 from cpus 0: keeping 83968 (given for a larger cpuset), HMS says 8192" ||
		fail "no conflict message: $stderr"
	echo "$output" | grep -qx "ReadBandwidth 0 0x00000002 11264" || fail "other pairs not added: $output"
}

@test "a kernel value for the same CPU set is replaced by HMS's and the change reported" {
	mkroot two-socket-hbm "$BATS_TEST_TMPDIR/r" 0:1:524288 1:2:524288 2:0:131072 3:0:131072
	access "$BATS_TEST_TMPDIR/r" 0 0 20000 91
	HWLOC_HMS_VERBOSE=1 lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$PLUGINS"
	echo "$output" | grep -qx "ReadBandwidth 0 0x00000001 20480" || fail "not replaced: $output"
	echo "$output" | grep -qx "ReadLatency 0 0x00000001 90" || fail "not replaced: $output"
	echo "$stderr" | grep -qx "hwloc/hms: ReadBandwidth of NUMANode P#0 from cpus 0: 20000 replaced by HMS's 20480" ||
		fail "no message: $stderr"
}

@test "device initiators and device memory are left out" {
	mkroot device "$BATS_TEST_TMPDIR/r" 0:3:1048576
	lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$PLUGINS"
	assert_equal "$output" "$(expect 0x00000003:0:20000:100)"
}

@test "malformed HMS objects are skipped and unknown values not stored" {
	# malformed: target 4 (node 1) is reached through link 5, which has no
	# performance files; libhms skips 9 objects (tests/unit: test_libhms.c)
	mkroot malformed "$BATS_TEST_TMPDIR/r" 0:3:1048576 1:0:16384
	HWLOC_HMS_VERBOSE=1 lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$PLUGINS"
	assert_equal "$output" "$(expect 0x00000003:0:16384:80)"
	echo "$stderr" | grep -qx "hwloc/hms: 9 malformed HMS objects under $BATS_TEST_TMPDIR/r/sys/bus/hms skipped" ||
		fail "no skip message: $stderr"
}

@test "without an HMS bus the plugin does nothing and says so when asked" {
	two_socket "$BATS_TEST_TMPDIR/r"
	rm -r "$BATS_TEST_TMPDIR/r/sys/bus/hms"
	lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$NONE"
	without=$output
	HWLOC_HMS_VERBOSE=1 lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$PLUGINS"
	assert_equal "$output" "$without"
	assert_equal "$stderr" "hwloc/hms: no HMS bus at $BATS_TEST_TMPDIR/r/sys/bus/hms: nothing to add"
	lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$PLUGINS"
	assert_equal "$stderr" ""
}

@test "an unreadable HMS bus gets a clear error and the topology loads unchanged" {
	two_socket "$BATS_TEST_TMPDIR/r"
	lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$NONE"
	without=$output
	rm -r "$BATS_TEST_TMPDIR/r/sys/bus/hms/devices"
	touch "$BATS_TEST_TMPDIR/r/sys/bus/hms/devices"
	lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$PLUGINS"
	assert_equal "$output" "$without"
	assert_equal "$stderr" "hwloc/hms: cannot read $BATS_TEST_TMPDIR/r/sys/bus/hms: Not a directory"
}

@test "the plugin honours HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS" {
	two_socket "$BATS_TEST_TMPDIR/r"
	HWLOC_FSROOT=$BATS_TEST_TMPDIR/r HWLOC_PLUGINS_PATH=$PLUGINS HWLOC_HMS_VERBOSE=1 \
		run --separate-stderr lstopo-no-graphics --flags $((1 << 8)) --memattrs -p
	assert_success
	refute_output --partial "from cpuset"
	assert_equal "$stderr" "hwloc/hms: HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS: nothing to add"
}

@test "HWLOC_COMPONENTS=-hms disables the plugin" {
	two_socket "$BATS_TEST_TMPDIR/r"
	lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$NONE"
	without=$output
	HWLOC_COMPONENTS=-x86,-hms lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$PLUGINS"
	assert_equal "$output" "$without"
}

@test "a synthetic or XML topology is not this system: the plugin adds nothing" {
	two_socket "$BATS_TEST_TMPDIR/r"
	export HMS_SYSFS_ROOT=$BATS_TEST_TMPDIR/r/sys/bus/hms HWLOC_PLUGINS_PATH=$PLUGINS
	run --separate-stderr lstopo-no-graphics -i "node:2 pu:1" --memattrs -p
	assert_success
	refute_output --partial "from cpuset"
	# an XML export keeps the values the plugin added
	HWLOC_FSROOT=$BATS_TEST_TMPDIR/r lstopo-no-graphics "$BATS_TEST_TMPDIR/t.xml"
	HWLOC_PLUGINS_PATH=$NONE run --separate-stderr lstopo-no-graphics -i "$BATS_TEST_TMPDIR/t.xml" --memattrs -p
	assert_success
	assert_equal "$(echo "$output" | grep -c "from cpuset")" 48
}

@test "HMS nodes and CPUs that hwloc does not have are skipped" {
	# the system has nodes 0 and 1 and cpu 0 only (node 1 without CPUs)
	mkroot two-socket-hbm "$BATS_TEST_TMPDIR/r" 0:1:524288 1:0:524288
	HWLOC_HMS_VERBOSE=1 lstopo_memattrs "$BATS_TEST_TMPDIR/r" "$PLUGINS"
	assert_equal "$output" "$(expect 0x00000001:0:20480:90 0x00000001:1:10240:140)"
	echo "$stderr" | grep -qx "hwloc/hms: target 3: NUMA node 2 is not in the topology, skipped" ||
		fail "no message for node 2: $stderr"
	echo "$stderr" | grep -qx "hwloc/hms: initiator 6: cpus 1 are not in the topology, skipped" ||
		fail "no message for cpu 1: $stderr"
}
