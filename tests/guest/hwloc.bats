#!/usr/bin/env bats
# The hwloc plugin (libc-wrapper/hwloc, hwloc_hms.so): with it, lstopo
# --memattrs and hwloc_memattr_get_best_target() see every CPU initiator x
# system target pair with the values hmsctl gives; without it hwloc has
# only the kernel's best-initiator values; without HMS it does nothing and
# says so.
# shellcheck disable=SC2154 # $stderr: set by run --separate-stderr

setup() {
	load common
	have_hms || fail "no /sys/bus/hms/devices: the kernel has no HMS"
	command -v lstopo-no-graphics >/dev/null || fail "hwloc-nox not in the rootfs"
	PLUGINS=/mnt/hms/hwloc/plugins
	BEST=/mnt/hms/hwloc/hwloc-best-target
	[ -f "$PLUGINS/hwloc_hms.so" ] || fail "the plugin was not built"
	[ -x "$BEST" ] || fail "hwloc-best-target was not built"
	D=/sys/bus/hms/devices
	NONE=$BATS_TEST_TMPDIR/no-plugins
	mkdir -p "$NONE"
}

# cpu_initiators: "uid cpulist" of every CPU initiator
cpu_initiators() {
	local i
	for i in "$D"/v1-*-initiator; do
		[ -n "$(cat "$i/cpulist")" ] && echo "$(cat "$i/uid") $(cat "$i/cpulist")"
	done
	return 0
}

# system_targets: "uid nid" of every system target
system_targets() {
	local t
	for t in "$D"/v1-*-target; do
		[ "$(cat "$t/type")" = system ] && echo "$(cat "$t/uid") $(cat "$t/nid")"
	done
	return 0
}

# cpulist_mask LIST: the CPU set as lstopo prints it (fewer than 32 CPUs)
cpulist_mask() {
	local m=0 r a b c
	for r in ${1//,/ }; do
		a=${r%-*} b=${r#*-}
		for ((c = a; c <= b; c++)); do m=$((m | (1 << c))); done
	done
	printf '0x%08x' "$m"
}

# memattr_lines: lstopo --memattrs -p ($output) as "Attribute nid mask value"
memattr_lines() {
	echo "$output" | awk '
		/^Memory attribute/ { a = $5; gsub(/[^A-Za-z]/, "", a) }
		/NUMANode P#/ && / from cpuset / { n = $2; sub(/P#/, "", n); print a, n, $7, $4 }'
}

# perf_of INIT_UID TARGET_UID: "rbw wbw rlat wlat" from hmsctl path
perf_of() {
	hmsctl path "$1" "$2" | awk '
		/^read bandwidth:/ { rb = $3 } /^write bandwidth:/ { wb = $3 }
		/^read latency:/ { rl = $3 } /^write latency:/ { wl = $3 }
		END { print rb, wb, rl, wl }'
}

@test "hwloc loads the plugin and enables its hms component" {
	HWLOC_PLUGINS_PATH=$PLUGINS HWLOC_COMPONENTS_VERBOSE=1 run --separate-stderr lstopo-no-graphics
	assert_success
	echo "$stderr" | grep -q "Registered discovery component .hms. phases 0x80" ||
		fail "hms not registered: $stderr"
	echo "$stderr" | grep -q "Enabling discovery component .hms." ||
		fail "hms not enabled: $stderr"
	HWLOC_PLUGINS_PATH=$PLUGINS HWLOC_COMPONENTS=-hms HWLOC_COMPONENTS_VERBOSE=1 \
		run --separate-stderr lstopo-no-graphics
	assert_success
	if echo "$stderr" | grep -q "Enabling discovery component .hms."; then
		fail "HWLOC_COMPONENTS=-hms did not disable it"
	fi
}

@test "with the plugin, lstopo --memattrs shows every CPU initiator x target pair as hmsctl path" {
	HWLOC_PLUGINS_PATH=$PLUGINS run --separate-stderr lstopo-no-graphics --memattrs -p
	assert_success
	got=$(memattr_lines)
	n=0
	while read -r iu cpus; do
		mask=$(cpulist_mask "$cpus")
		while read -r tu nid; do
			hmsctl path "$iu" "$tu" >/dev/null 2>&1 || continue
			read -r rbw wbw rlat wlat <<< "$(perf_of "$iu" "$tu")"
			for av in "ReadBandwidth $rbw" "WriteBandwidth $wbw" \
				  "ReadLatency $rlat" "WriteLatency $wlat" \
				  "Bandwidth $(((rbw + wbw) / 2))" "Latency $(((rlat + wlat) / 2))"; do
				want="${av% *} $nid $mask ${av#* }"
				echo "$got" | grep -qx "$want" ||
					fail "lstopo lacks '$want' (initiator $iu, target $tu): $got"
			done
			n=$((n + 1))
		done < <(system_targets)
	done < <(cpu_initiators)
	[ "$n" -gt 0 ] || fail "no initiator reaches a system target"
}

@test "without the plugin lstopo has only the kernel's values; the plugin keeps them and adds the other initiators" {
	HWLOC_PLUGINS_PATH=$NONE run --separate-stderr lstopo-no-graphics --memattrs -p
	assert_success
	without=$(memattr_lines | sort)
	HWLOC_PLUGINS_PATH=$PLUGINS HWLOC_HMS_VERBOSE=1 run --separate-stderr \
		lstopo-no-graphics --memattrs -p
	assert_success
	with=$(memattr_lines | sort)
	[ -n "$without" ] || fail "the kernel gave hwloc no memory attribute values"
	# the plugin's count: values added, and the kernel's it found again
	read -r added same <<< "$(echo "$stderr" | sed -n \
		's/^hwloc\/hms: .*; values: \([0-9]*\) added, \([0-9]*\) already there, 0 replaced, 0 kept$/\1 \2/p')"
	[ -n "$same" ] || fail "no summary line: $stderr"
	assert_equal "$((added + same))" "$(echo "$with" | wc -l)"
	assert_equal "$same" "$(echo "$without" | wc -l)"
	# every kernel value is still there, with the same value
	missing=$(comm -23 <(echo "$without") <(echo "$with"))
	[ -z "$missing" ] || fail "the plugin lost or changed: $missing"
	nini=$(cpu_initiators | wc -l)
	nwith=$(echo "$with" | awk '{ print $2, $3 }' | sort -u | wc -l)
	nwithout=$(echo "$without" | awk '{ print $2, $3 }' | sort -u | wc -l)
	if [ "$nini" -gt 1 ]; then
		[ "$nwith" -gt "$nwithout" ] ||
			fail "no initiator x target pair added ($nwith with, $nwithout without)"
		[ "$added" -gt 0 ] || fail "the plugin says it added nothing: $stderr"
		# the plugin's pairs are exactly every initiator x reachable target
		want=0
		while read -r iu _; do
			while read -r tu _; do
				hmsctl path "$iu" "$tu" >/dev/null 2>&1 && want=$((want + 1))
			done < <(system_targets)
		done < <(cpu_initiators)
		assert_equal "$nwith" "$want"
	else
		# one CPU initiator: it is every target's best, the kernel gave it all
		assert_equal "$with" "$without"
		assert_equal "$added" 0
	fi
}

@test "hwloc_memattr_get_best_target() agrees with hmsctl best for every CPU initiator" {
	n=0
	while read -r iu cpus; do
		for ab in "ReadBandwidth bandwidth" "ReadLatency latency"; do
			HWLOC_PLUGINS_PATH=$PLUGINS run "$BEST" "${ab% *}" "$cpus"
			assert_success
			got=$(echo "$output" | sed -n 's/^P#\([0-9]*\) .*/\1/p')
			run hmsctl best "$iu" --by "${ab#* }" --only system
			assert_success
			want=$(cat "$D/v1-$output-target/nid")
			assert_equal "${ab% *} $cpus -> node $got" "${ab% *} $cpus -> node $want"
			n=$((n + 1))
		done
	done < <(cpu_initiators)
	[ "$n" -gt 0 ] || fail "no CPU initiator"
}

@test "without HMS the plugin does nothing and says so" {
	HWLOC_PLUGINS_PATH=$NONE run --separate-stderr lstopo-no-graphics --memattrs -p
	assert_success
	without=$output
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	HMS_SYSFS_ROOT=$BATS_TEST_TMPDIR/empty HWLOC_HMS_VERBOSE=1 HWLOC_PLUGINS_PATH=$PLUGINS \
		run --separate-stderr lstopo-no-graphics --memattrs -p
	assert_success
	assert_equal "$stderr" "hwloc/hms: no HMS bus at $BATS_TEST_TMPDIR/empty: nothing to add"
	assert_equal "$output" "$without"
	# silent unless asked
	HMS_SYSFS_ROOT=$BATS_TEST_TMPDIR/empty HWLOC_PLUGINS_PATH=$PLUGINS \
		run --separate-stderr lstopo-no-graphics --memattrs -p
	assert_success
	assert_equal "$stderr" ""
}

@test "an unreadable HMS root gets a clear error and the topology loads unchanged" {
	HWLOC_PLUGINS_PATH=$NONE run --separate-stderr lstopo-no-graphics --memattrs -p
	without=$output
	touch "$BATS_TEST_TMPDIR/file"
	HMS_SYSFS_ROOT=$BATS_TEST_TMPDIR/file HWLOC_PLUGINS_PATH=$PLUGINS \
		run --separate-stderr lstopo-no-graphics --memattrs -p
	assert_success
	assert_equal "$output" "$without"
	echo "$stderr" | grep -q "^hwloc/hms: cannot read $BATS_TEST_TMPDIR/file: " ||
		fail "no error message: $stderr"
}

@test "the plugin adds nothing to a topology that is not this system (XML), which keeps the values it was saved with" {
	HWLOC_PLUGINS_PATH=$PLUGINS run --separate-stderr lstopo-no-graphics --memattrs -p
	with=$(memattr_lines | sort)
	HWLOC_PLUGINS_PATH=$NONE run --separate-stderr lstopo-no-graphics --memattrs -p
	without=$(memattr_lines | sort)
	HWLOC_PLUGINS_PATH=$NONE lstopo-no-graphics "$BATS_TEST_TMPDIR/kernel.xml"
	HWLOC_PLUGINS_PATH=$PLUGINS lstopo-no-graphics "$BATS_TEST_TMPDIR/hms.xml"
	HWLOC_PLUGINS_PATH=$PLUGINS run --separate-stderr lstopo-no-graphics -i "$BATS_TEST_TMPDIR/kernel.xml" --memattrs -p
	assert_success
	assert_equal "$(memattr_lines | sort)" "$without"
	HWLOC_PLUGINS_PATH=$NONE run --separate-stderr lstopo-no-graphics -i "$BATS_TEST_TMPDIR/hms.xml" --memattrs -p
	assert_success
	assert_equal "$(memattr_lines | sort)" "$with"
}
