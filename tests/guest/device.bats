#!/usr/bin/env bats
# Device memory as an HMS target, with the simulated accelerator
# lib/test_hms.c: its objects on /sys/bus/hms and their paths, hbind()
# MIGRATE/BIND/QUERY to and from device-private memory, device first touch,
# unloading the device while its memory is in use and while hbind() looks it
# up by uid, peer devices, and the same migration done by test_hmm's
# dmirror. devtest and dmirror-cmp (tests/guest/helpers/) do the memory
# work and print one line per step; they exit 77 when a device or hbind()
# is missing, which fails the test here.
# Device memory has an owner: hbind() places memory on a test_hms device only
# for a process that has /dev/hms_test<N> open (its driver's allow op), so
# every test that binds or migrates to a device opens it first.
# Each test loads test_hms with its own parameters; teardown unloads it.

setup() {
	load common
	load hbind-common
	D=/sys/bus/hms/devices
	modprobe -n -q test_hms 2>/dev/null ||
		fail "no test_hms module for $(uname -r) (CONFIG_TEST_HMS=m)"
	have_hms || fail "test_hms exists but there is no /sys/bus/hms"
	rmmod test_hms 2>/dev/null || true
	HOME_NODE='' CPU='' OTHER=''
	for n in $(mem_nodes); do
		if [ -z "$HOME_NODE" ] && [ -n "$(node_cpu "$n")" ]; then
			HOME_NODE=$n CPU=$(node_cpu "$n")
		fi
	done
	for n in $(mem_nodes); do
		[ "$n" = "$HOME_NODE" ] || { OTHER=$n; break; }
	done
	[ -n "$HOME_NODE" ] || fail "no memory node with CPUs"
	hb_load_targets
}

teardown() {
	if [ -n "${BG_PID:-}" ]; then
		kill "$BG_PID" 2>/dev/null || true
		wait "$BG_PID" 2>/dev/null || true
	fi
	rmmod test_hms 2>/dev/null || true
	# test_hmm stays loaded: unloading it leaks (6.12's dmirror_device_remove()
	# never puts its devices; kmemleak reports their names and
	# device_private structs), a bug of that upstream test module, not of
	# HMS, which would fail the DEBUG=1 run's kmemleak check.
}

# load_hms PARAM=VALUE...: load test_hms, wait for its device files
load_hms() {
	local n=${NDEV:-1} i k
	run modprobe test_hms "$@"
	assert_success
	for ((i = 0; i < n; i++)); do
		for ((k = 0; k < 50; k++)); do
			[ -c /dev/hms_test$i ] && break
			sleep 0.1
		done
		[ -c /dev/hms_test$i ] || fail "modprobe test_hms $*: no /dev/hms_test$i"
	done
}

# dt ARGS...: run devtest on a CPU of HOME_NODE; its exit 77 (no device
# or no hbind()) is a failure here, where both must be
dt() {
	run taskset -c "$CPU" devtest "$@"
	[ "$status" -ne 77 ] || fail "devtest $*: $output"
}

need_other() {
	[ -n "$OTHER" ] || skip "needs a second memory node"
}

# dev_obj N TYPE: name of the target or initiator of device N (its sysfs
# device is below the misc device hms_testN)
dev_obj() {
	local o l t ini=
	# the device initiator: its "device" symlink is the misc device
	for o in $(hms_objects initiator); do
		case $(readlink -f "$o/device" 2>/dev/null) in
		*/misc/hms_test$1) ini=$(basename "$o") ;;
		esac
	done
	[ -n "$ini" ] || return 0
	if [ "$2" = initiator ]; then
		echo "$ini"
		return 0
	fi
	# its memory: the device-private target on one of its links; the
	# local link is the one with the best read bandwidth
	best=-1
	for l in "$D/$ini"/links/*; do
		for t in "$l"/targets/*; do
			[ "$(cat "$t/type" 2>/dev/null)" = device-private ] || continue
			bw=$(cat "$l/read_bandwidth")
			if [ "$bw" -gt "$best" ]; then best=$bw; tgt=$(basename "$(readlink -f "$t")"); fi
		done
	done
	[ "$best" -ge 0 ] && echo "$tgt"
	return 0
}

uid_of() { cat "$D/$1/uid"; }

# members OBJ DIR: sorted object names in OBJ's DIR/ (links, targets, ...)
members() { ls "$D/$1/$2" 2>/dev/null | sort | xargs; }

# system_targets: sorted names of the system targets
system_targets() { hms_find target type=system | sort | xargs; }

# perf OBJ: "rbw wbw rlat wlat" of a link or bridge
perf() {
	local o=$D/$1
	echo "$(cat "$o/read_bandwidth") $(cat "$o/write_bandwidth") $(cat "$o/read_latency") $(cat "$o/write_latency")"
}

# path_is INIT_UID TARGET_UID BW LAT ELEMENTS: hmsctl path gives these
path_is() {
	run hmsctl path "$1" "$2" --json
	assert_success
	assert_equal "$(jq -c '[.read_bandwidth, .write_bandwidth, .read_latency, .write_latency]' <<< "$output")" "[$3,$3,$4,$4]"
	assert_equal "$(jq -c '.elements' <<< "$output")" "[$5]"
}

# wait_file FILE PID: wait for FILE while PID lives
wait_file() {
	local k
	for ((k = 0; k < 1200; k++)); do
		[ -e "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.25
	done
	[ -e "$1" ] || fail "no $1; devtest: $(cat "$BATS_TEST_TMPDIR/hold.log")"
}

# kernel_quiet: no new oops, warning or sanitizer report in the kernel log
kernel_quiet() {
	run dmesg
	assert_success
	refute_output --regexp 'BUG:|WARNING:|KASAN|UBSAN|kmemleak:|Oops|general protection'
}

@test "test_hms objects on /sys/bus/hms: device-private target, device initiator, local and host links with the module's perf" {
	local t i tu iu l local_l host_l st
	load_hms mem_mb=48 local_bw=777000 local_lat=7 host_bw=55000 host_lat=444
	t=$(dev_obj 0 target) i=$(dev_obj 0 initiator)
	[ -n "$t" ] || fail "no target below /sys/devices/virtual/misc/hms_test0: $(ls $D)"
	[ -n "$i" ] || fail "no initiator below /sys/devices/virtual/misc/hms_test0: $(ls $D)"
	tu=$(uid_of "$t") iu=$(uid_of "$i")
	# target
	assert_equal "$(cat $D/$t/type)" device-private
	assert_equal "$(cat $D/$t/nid)" -1
	assert_equal "$(cat $D/$t/cpu_accessible)" 0
	assert_equal "$(cat $D/$t/size)" $((48 << 20))
	assert_equal "$(grep -lx device-private $D/v1-*-target/type | wc -l)" 1
	# initiator
	assert_equal "$(readlink -f $D/$i/device)" /sys/devices/virtual/misc/hms_test0
	assert_equal "$(cat $D/$i/cpulist)" ""
	assert_equal "$(cat $D/$i/nid)" -1
	# the local link: the target's only link, {initiator, target}
	local_l=$(members "$t" links)
	[ "$(wc -w <<< "$local_l")" = 1 ] || fail "target $t is on links '$local_l', want exactly the local link"
	assert_equal "$(members "$local_l" initiators)" "$i"
	assert_equal "$(members "$local_l" targets)" "$t"
	assert_equal "$(perf "$local_l")" "777000 777000 7 7"
	assert_equal "$(cat $D/$local_l/distance)" 0
	# the host link: the initiator's other link, {initiator, every system target}
	assert_equal "$(members "$i" links | wc -w)" 2
	for l in $(members "$i" links); do
		[ "$l" = "$local_l" ] || host_l=$l
	done
	assert_equal "$(members "$host_l" initiators)" "$i"
	assert_equal "$(members "$host_l" targets)" "$(system_targets)"
	assert_equal "$(perf "$host_l")" "55000 55000 444 444"
	for st in $(system_targets); do
		[ -e "$D/$st/links/$host_l" ] || fail "system target $st does not list the host link $host_l"
	done
	# hmsctl: the device reaches its memory by the local link, system memory by the host link
	path_is "$iu" "$tu" 777000 7 "$(uid_of "$local_l")"
	for st in $(system_targets); do
		path_is "$iu" "$(uid_of "$st")" 55000 444 "$(uid_of "$host_l")"
	done
	# the character device agrees
	run devtest stats
	assert_success
	assert_output "stats: uid $tu capacity $((48 * 256)) used 0 to 0 from 0"
	assert_equal "$(cat /sys/module/test_hms/parameters/mem_mb)" 48
	assert_equal "$(cat /sys/module/test_hms/parameters/host_lat)" 444
}

@test "hbind MIGRATE 64 MiB to the device and back (hbind MIGRATE + CPU touch): exact counts, QUERY system -> device -> system, checksums" {
	need_other
	local dev h=${HB_UID[$HOME_NODE]} o=${HB_UID[$OTHER]} n=16384
	load_hms mem_mb=64
	dev=$(uid_of "$(dev_obj 0 target)")
	dt -m 64 -n "$OTHER" migrate
	assert_success
	assert_line "query before: u$h=$n"
	assert_line "MIGRATE to device $dev: moved $n of $n"
	assert_line "query on device: u$dev=$n"
	assert_line "MIGRATE to node $OTHER target $o: moved $((n / 2)) of $((n / 2))"
	assert_line "query after MIGRATE back: u$o=$((n / 2))"
	assert_line "query still on device: u$dev=$((n / 2))"
	assert_line "query after CPU touch: u$o=$((n / 2)) u$h=$((n / 2))"
	assert_line "after: uid $dev capacity $n used 0 to $n from $n"
	assert_line "PASS migrate 64 MiB"
}

@test "MIGRATE [device, node] over the device's capacity: the device fills, the rest lands on the node, data intact" {
	need_other
	local dev o=${HB_UID[$OTHER]} cap=4096
	load_hms mem_mb=16
	dev=$(uid_of "$(dev_obj 0 target)")
	dt -n "$OTHER" full
	assert_success
	assert_line "query: $cap on the device, $((cap / 4)) on node $OTHER"
	assert_line --regexp "^MIGRATE \[device $dev, node $OTHER target $o\] of $((cap + cap / 4)) pages \(capacity $cap\): moved $((cap + cap / 4)), device used $cap$"
	assert_line "PASS full"
	run devtest stats
	assert_output "stats: uid $dev capacity $cap used 0 to $cap from $cap"
}

@test "device first touch under BIND {device}: device access allocates on the device; unbound and system-first ranges are only mirrored" {
	need_other
	local dev o=${HB_UID[$OTHER]} n=2048
	load_hms mem_mb=16
	dev=$(uid_of "$(dev_obj 0 target)")
	dt -m 8 -n "$OTHER" firsttouch
	assert_success
	assert_line --regexp "^device READ \(bound, never touched\): cpages 16 faults [0-9]+ mpages 16$"
	assert_line --regexp "^device WRITE \(bound\): cpages $n faults [0-9]+ mpages $((n - 16))$"
	assert_line "query bound after device WRITE: u$dev=$n"
	assert_line --regexp "^device WRITE \(not bound\): cpages $n faults [0-9]+ mpages 0$"
	assert_line --regexp "^device WRITE \(bound system first\): cpages $n faults [0-9]+ mpages 0$"
	assert_line "query bound system first: u$o=$n"
	assert_line "PASS firsttouch"
	run devtest stats
	assert_output "stats: uid $dev capacity 4096 used 0 to $n from $n"
}

@test "device preferences follow the range as a VMA policy does: split, part of a VMA, mremap (moved, grown, DONTUNMAP), fork, munmap, MAP_FIXED" {
	load_hms mem_mb=16
	dt -m 8 lifecycle
	assert_success
	assert_line --regexp "^device READ \(split into 3 VMAs\): cpages 192 faults [0-9]+ mpages 192$"
	assert_line --regexp "^device READ \(middle third bound\): cpages 192 faults [0-9]+ mpages 64$"
	assert_line --regexp "^device READ \(moved by mremap\): cpages 64 faults [0-9]+ mpages 64$"
	assert_line --regexp "^device READ \(new mapping where it was\): cpages 64 faults [0-9]+ mpages 0$"
	assert_line --regexp "^device READ \(second quarter bound, grown and moved\): cpages 256 faults [0-9]+ mpages 192$"
	assert_line --regexp "^device READ \(grown in place\): cpages 128 faults [0-9]+ mpages 128$"
	assert_line --regexp "^device READ \(MREMAP_DONTUNMAP, old range\): cpages 64 faults [0-9]+ mpages 64$"
	assert_line --regexp "^device READ \(middle unmapped and mapped again\): cpages 192 faults [0-9]+ mpages 128$"
	assert_line --regexp "^device READ \(MAP_FIXED over a bound range\): cpages 64 faults [0-9]+ mpages 0$"
	assert_line --regexp "^device READ \(child, inherited\): cpages 64 faults [0-9]+ mpages 64$"
	assert_line --regexp "^device READ \(child, MADV_DONTFORK range mapped again\): cpages 64 faults [0-9]+ mpages 0$"
	assert_line "PASS lifecycle"
	run devtest stats
	assert_output --regexp "used 0 "
}

@test "out of memory in munmap, mremap, fork and BIND of a device-bound range: each fault point in turn fails the call with ENOMEM and leaves the range and its device preferences as they were" {
	[ -d /sys/kernel/debug/failslab ] ||
		skip "no fault injection in this kernel (CONFIG_FAILSLAB): make check DEBUG=1 runs it"
	load_hms mem_mb=16
	dt -n "${OTHER:-0}" enomem
	assert_success
	assert_line --regexp "^munmap of the middle: [0-9]+ fault points, [1-9][0-9]* failed the call with ENOMEM and changed nothing$"
	assert_line --regexp "^mremap: [0-9]+ fault points, [1-9][0-9]* failed the call with ENOMEM and changed nothing$"
	assert_line --regexp "^fork: [0-9]+ fault points, [1-9][0-9]* failed the call with ENOMEM and changed nothing$"
	assert_line --regexp "^hbind BIND \{node\}: [0-9]+ fault points, [1-9][0-9]* failed the call with ENOMEM and changed nothing$"
	assert_line "PASS enomem"
}

@test "rmmod test_hms with pages on the device: pages come back intact, objects leave the bus, policies naming the device stop using it" {
	need_other
	local t i links l f=$BATS_TEST_TMPDIR/hold o=${HB_UID[$OTHER]} obj
	load_hms mem_mb=32
	dmesg -C
	t=$(dev_obj 0 target) i=$(dev_obj 0 initiator)
	links=$(members "$i" links)
	taskset -c "$CPU" devtest -m 16 -n "$OTHER" hold "$f" > "$BATS_TEST_TMPDIR/hold.log" 2>&1 3>&- &
	BG_PID=$!
	wait_file "$f.ready" "$BG_PID"
	assert_equal "$(cat "$f.ready")" "$(uid_of "$t")"
	run taskset -c "$CPU" rmmod test_hms
	assert_success
	# every object of the device left the bus, and no membership points to them
	for obj in $t $i $links; do
		[ ! -e "$D/$obj" ] || fail "$obj still on /sys/bus/hms after rmmod"
	done
	[ -z "$(grep -lx device-private $D/v1-*-target/type 2>/dev/null)" ] ||
		fail "a device-private target is left after rmmod"
	for st in $(system_targets); do
		for l in $links; do
			[ ! -e "$D/$st/links/$l" ] && [ ! -L "$D/$st/links/$l" ] ||
				fail "system target $st still lists link $l"
		done
	done
	[ ! -e /dev/hms_test0 ] || fail "/dev/hms_test0 left after rmmod"
	touch "$f.go"
	wait_file "$f.done1" "$BG_PID"
	load_hms mem_mb=32
	touch "$f.go2"
	rc=0
	wait "$BG_PID" || rc=$?
	BG_PID=
	run cat "$BATS_TEST_TMPDIR/hold.log"
	[ "$rc" -eq 0 ] || fail "devtest hold exited $rc: $output"
	assert_line --regexp "^query A after unload:( u[0-9]+=[0-9]+)+$"
	assert_line "query B {dead device, node} after CPU touch: u$o=64"
	assert_line --regexp "^device WRITE B \(new device\): cpages 64 faults [0-9]+ mpages 0$"
	assert_line "PASS hold (4096 pages intact)"
	run rmmod test_hms
	assert_success
	kernel_quiet
}

# rmmod_busy [CPU]: unload test_hms, retrying while a test's open device
# file holds it (EBUSY); fails after 30 s
rmmod_busy() {
	local k
	for ((k = 0; k < 600; k++)); do
		taskset -c "${1:-$CPU}" rmmod test_hms 2>/dev/null && return 0
		sleep 0.05
	done
	fail "rmmod test_hms: still busy after 30 s"
}

@test "a uid is never given twice: test_hms loaded again gets new uids for all its objects, and the old target's uid names nothing" {
	local a b c gone reused t1
	load_hms mem_mb=16
	t1=$(uid_of "$(dev_obj 0 target)")
	a=$(cat "$D"/*/uid | sort -u)
	run rmmod test_hms
	assert_success
	b=$(cat "$D"/*/uid | sort -u)
	gone=$(comm -23 <(echo "$a") <(echo "$b"))
	grep -qx "$t1" <<< "$gone" || fail "uid $t1 still live after rmmod"
	load_hms mem_mb=16
	c=$(cat "$D"/*/uid | sort -u)
	reused=$(comm -12 <(echo "$gone") <(echo "$c") | xargs)
	[ -z "$reused" ] || fail "uids of the unloaded device given again: $reused"
	[ "$(uid_of "$(dev_obj 0 target)")" != "$t1" ] || fail "the new device target has the old uid $t1"
	# a program that kept the old uid gets "no such target", not the new
	# device's memory (which would be EACCES: the device is not open)
	run taskset -c "$CPU" hbind-do -n 16 bind:"$t1" migrate:"$t1"
	assert_success
	assert_line "bind errno=EINVAL"
	assert_line "migrate errno=ENODEV"
}

@test "hbind BIND by uid while test_hms unloads: binds while the device is open, EACCES or EINVAL when not, none binds after EINVAL, kernel quiet" {
	need_other
	local f=$BATS_TEST_TMPDIR/race ocpu rc=0
	load_hms mem_mb=8
	dmesg -C
	# the loop on HOME_NODE's CPU, the unload on another one when there is one
	ocpu=$(node_cpu "$OTHER")
	[ -n "$ocpu" ] && [ "$ocpu" != "$CPU" ] || ocpu=$CPU
	taskset -c "$CPU" devtest -n "$OTHER" race "$f" > "$BATS_TEST_TMPDIR/hold.log" 2>&1 3>&- &
	BG_PID=$!
	wait_file "$f.ready" "$BG_PID"
	rmmod_busy "$ocpu"
	touch "$f.go"
	wait "$BG_PID" || rc=$?
	BG_PID=
	run cat "$BATS_TEST_TMPDIR/hold.log"
	[ "$rc" -eq 0 ] || fail "devtest race exited $rc: $output"
	assert_line --regexp '^race: [0-9]+ rounds; BIND \{device\}: [1-9][0-9]* bound, [1-9][0-9]* refused; BIND \{device, node\}: [1-9][0-9]* bound, [1-9][0-9]* refused$'
	assert_line "PASS race"
	kernel_quiet
}

@test "two devices with a peer link: peer link, bridges and their initiators; hmsctl path device 0 -> device 1 memory follows the path rule" {
	local t0 t1 i0 i1 l0 l1 p b b01= b10= bl
	NDEV=2 load_hms ndevices=2 mem_mb=8 local_bw=900000 local_lat=9 peer_bw=300000 peer_lat=121
	t0=$(dev_obj 0 target) t1=$(dev_obj 1 target) i0=$(dev_obj 0 initiator) i1=$(dev_obj 1 initiator)
	[ -n "$t0" ] && [ -n "$t1" ] && [ -n "$i0" ] && [ -n "$i1" ] || fail "missing device objects: $(ls $D)"
	l0=$(members "$t0" links) l1=$(members "$t1" links)
	# the peer link: {i0, i1}, no target, peer_lat - peer_lat/2
	p=
	for l in $(hms_objects link); do
		l=$(basename "$l")
		[ "$(members "$l" initiators)" = "$(printf '%s\n' "$i0" "$i1" | sort | xargs)" ] && p="$p $l"
	done
	p=$(xargs <<< "$p")
	[ "$(wc -w <<< "$p")" = 1 ] || fail "want one peer link {$i0, $i1}, found '$p'"
	assert_equal "$(members "$p" targets)" ""
	assert_equal "$(perf "$p")" "300000 300000 61 61"
	# two bridges: peer <-> local link of j, listing initiator i
	assert_equal "$(hms_objects bridge | wc -l)" 2
	for b in $(hms_objects bridge); do
		b=$(basename "$b")
		bl=$(members "$b" links)
		assert_equal "$(perf "$b")" "300000 300000 60 60"
		if [ "$bl" = "$(printf '%s\n' "$p" "$l1" | sort | xargs)" ]; then
			assert_equal "$(members "$b" initiators)" "$i0"
			b01=$b
		elif [ "$bl" = "$(printf '%s\n' "$p" "$l0" | sort | xargs)" ]; then
			assert_equal "$(members "$b" initiators)" "$i1"
			b10=$b
		else
			fail "bridge $b links '$bl', want {$p, $l0} or {$p, $l1}"
		fi
	done
	[ -n "$b01" ] && [ -n "$b10" ] || fail "want one bridge per direction"
	[ -e "$D/$i0/bridges/$b01" ] || fail "$i0/bridges/ does not list $b01"
	[ -e "$D/$i1/bridges/$b10" ] || fail "$i1/bridges/ does not list $b10"
	[ -e "$D/$p/bridges/$b01" ] && [ -e "$D/$p/bridges/$b10" ] || fail "peer link $p does not list both bridges"
	# path rule: bandwidth min(peer 300000, bridge 300000, local 900000), latency 61 + 60 + 9
	path_is "$(uid_of "$i0")" "$(uid_of "$t1")" 300000 130 \
		"$(uid_of "$p"),$(uid_of "$b01"),$(uid_of "$l1")"
	path_is "$(uid_of "$i1")" "$(uid_of "$t0")" 300000 130 \
		"$(uid_of "$p"),$(uid_of "$b10"),$(uid_of "$l0")"
	path_is "$(uid_of "$i0")" "$(uid_of "$t0")" 900000 9 "$(uid_of "$l0")"
	# and device 1's memory works as a target of its own
	dt -d 1 -m 4 -n "${OTHER:-$HOME_NODE}" migrate
	assert_success
	assert_line "PASS migrate 4 MiB"
}

@test "hbind MIGRATE (test_hms) and HMM_DMIRROR_MIGRATE_TO_DEV (test_hmm) move the same populated pages of the same layout" {
	modprobe -n -q test_hmm 2>/dev/null || fail "no test_hmm module (CONFIG_TEST_HMM=m)"
	load_hms mem_mb=16
	run modprobe test_hmm
	assert_success
	if [ ! -c /dev/hmm_dmirror0 ]; then
		major=$(awk '$2 == "HMM_DMIRROR" { print $1 }' /proc/devices)
		[ -n "$major" ] || fail "test_hmm loaded but no HMM_DMIRROR in /proc/devices"
		mknod /dev/hmm_dmirror0 c "$major" 0
	fi
	run taskset -c "$CPU" dmirror-cmp -p 256
	[ "$status" -ne 77 ] || fail "$output"
	assert_success
	# 256 pages: 5 of every 8 written, 2 never touched, 1 zero page
	assert_line "populated before: 160 pages:$(for ((k = 0; k < 256; k += 8)); do printf '%s%d-%d,%d-%d,%d' "$([ $k = 0 ] || echo ,)" $k $((k + 1)) $((k + 3)) $((k + 4)) $((k + 6)); done)"
	assert_line "hbind MIGRATE: moved 160"
	assert_equal "$(sed -n 's/^hbind QUERY on the device: //p' <<< "$output")" \
		"$(sed -n 's/^populated before: //p' <<< "$output")"
	assert_line "dmirror SNAPSHOT on the device: 256 pages:0-255"
	assert_line "PASS dmirror-cmp 256 pages"
}

# as_nobody CMD...: run CMD as uid/gid 65534 (no capabilities)
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}

@test "device memory has an owner: BIND/MIGRATE to a device fail with EACCES until the caller opens it, nothing changed, QUERY works; closed: refused again, pages stay" {
	need_other
	local dev h=${HB_UID[$HOME_NODE]} o=${HB_UID[$OTHER]} n=1024
	load_hms mem_mb=16
	dev=$(uid_of "$(dev_obj 0 target)")
	# the target leads to its device
	assert_equal "$(readlink -f "$D/$(dev_obj 0 target)/device")" /sys/devices/virtual/misc/hms_test0
	dt -m 4 -n "$OTHER" perm
	assert_success
	assert_line "device 0: target $dev"
	assert_line "not open: MIGRATE {device}: EACCES"
	assert_line "not open: MIGRATE {node, device}: EACCES"
	assert_line "not open: BIND {device}: EACCES"
	assert_line "not open: BIND strict {node, device}: EACCES"
	assert_line "not open: MIGRATE_ALL {device}: EACCES"
	assert_line "query not open, after the refused calls: u$h=$n"
	assert_line "open: MIGRATE {device}: moved $n of $n"
	assert_line "closed: MIGRATE {device}: EACCES"
	assert_line "closed: BIND {device}: EACCES"
	assert_line "query closed, pages stay on the device: u$dev=$n"
	assert_line "closed: MIGRATE {node} of the first half: moved $((n / 2)) of $((n / 2))"
	assert_line "query r bound {node, device} after CPU touch: u$o=$n"
	assert_line "PASS perm"
	run devtest stats
	assert_output "stats: uid $dev capacity 4096 used 0 to $n from $n"
}

@test "another process's memory to the device and back through a pidfd (PROCESS): allowed only when both the caller and the process have the device open, EACCES and nothing moved otherwise; QUERY sees the device pages that move_pages(pid) cannot" {
	need_other
	local dev a=$HOME_NODE b=$OTHER who lay
	load_hms mem_mb=16
	dev=$(uid_of "$(dev_obj 0 target)")
	lay="${a}x32 ${b}x30 -2x2"
	# hbind-pid: a process with 32 pages on a, 30 on b, 2 never touched
	run taskset -c "$CPU" hbind-pid -n "$a,$b,$a" -t "$dev" -D /dev/hms_test0 devmigrate
	assert_success
	assert_line "devmigrate to: 0 moved 62 -2x64"
	# hmsctl stat --pid: the 62 pages (0.24 MB) in the device target's column
	assert_line "stat| [exit 0]"
	[ "$(sed -n 's/^stat| //p' <<< "$output" | awk -v col="Target $dev" '
		/^Per-/ { getline; n = split($0, h, /  +/); for (i = 1; i <= n; i++) if (h[i] == col) c = i; next }
		/^Total/ && c { split($0, v, / +/); print v[c] }')" = 0.24 ]
	assert_line "devmigrate move_pages: 0 -2x64"
	assert_line "devmigrate back: 0 moved 62 ${a}x62 -2x2"
	for who in caller target none; do
		run taskset -c "$CPU" hbind-pid -n "$a,$b,$a" -t "$dev" -D /dev/hms_test0 -o $who devmigrate
		assert_success
		assert_line "devmigrate to: EACCES moved 0 $lay"
		assert_line "devmigrate query: 0 $lay"
		assert_line "devmigrate move_pages: 0 $lay"
		assert_line "devmigrate back: 0 moved 30 ${a}x62 -2x2"
	done
	run devtest stats
	assert_output "stats: uid $dev capacity 4096 used 0 to 62 from 62"
}

@test "hmsctl stat and migrate --pid with device memory: the device column is what test_hms counts; --from the device moves its pages, and only those, back to a node; as root and as the process's own unprivileged user" {
	need_other
	local dev a=$HOME_NODE b=$OTHER pid out=$BATS_TEST_TMPDIR/holder i mb before_a round=0 who
	load_hms mem_mb=16
	dev=$(uid_of "$(dev_obj 0 target)")
	# a device node the user may open, like a render node
	chmod 0666 /dev/hms_test0
	for who in root nobody; do
		# setpriv execs: $! is the process itself
		local -a run_as=()
		[ $who = root ] || run_as=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
		# a process with 1024 pages on the device, 1024 on a
		"${run_as[@]}" taskset -c "$CPU" hbind-do -n 1024 open:/dev/hms_test0 \
			mbind:bind:$a touch migrate:$dev sleep:600000 > "$out" &
		pid=$!
		for i in $(seq 200); do grep -q "^migrate " "$out" && break; sleep 0.1; done
		run cat "$out"
		assert_line "migrate moved=1024"
		run devtest stats
		assert_output "stats: uid $dev capacity 4096 used 1024 to $((round + 1024)) from $round"
		# the device target's column: 1024 pages, 4.00 MB
		run "${run_as[@]}" hmsctl --json stat --pid "$pid"
		assert_success
		assert_equal "$(jq ".targets[] | select(.uid == $dev) | .pages" <<< "$output")" 1024
		run "${run_as[@]}" hmsctl stat --pid "$pid"
		assert_success
		mb=$(awk -v col="Target $dev" '
			/^Per-/ { getline; n = split($0, h, /  +/); for (i = 1; i <= n; i++) if (h[i] == col) c = i; next }
			/^Total/ && c { split($0, v, / +/); print v[c] }' <<< "$output")
		assert_equal "$mb" 4.00
		# from the device to b: the device's pages, none of a's
		before_a=$(awk -v k="N$a=" '{ for (i = 2; i <= NF; i++) if (index($i, k) == 1) s += substr($i, length(k) + 1) } END { print s + 0 }' /proc/$pid/numa_maps)
		run "${run_as[@]}" hmsctl migrate --pid "$pid" --from "$dev" --to "node:$b"
		assert_success
		assert_output "1024 pages moved"
		round=$((round + 1024))
		run devtest stats
		assert_output "stats: uid $dev capacity 4096 used 0 to $round from $round"
		run "${run_as[@]}" hmsctl --json stat --pid "$pid"
		assert_equal "$(jq "[.targets[] | select(.uid == $dev) | .pages] | add // 0" <<< "$output")" 0
		[ "$(jq ".targets[] | select(.nid == $b) | .pages" <<< "$output")" -ge 1024 ]
		assert_equal "$(awk -v k="N$a=" '{ for (i = 2; i <= NF; i++) if (index($i, k) == 1) s += substr($i, length(k) + 1) } END { print s + 0 }' /proc/$pid/numa_maps)" "$before_a"
		kill "$pid"
		wait "$pid" || true
	done
}

@test "another process's device memory back with MIGRATE_WHOLE|FROM {device}: only the device's pages move, to the listed node, as root and as the process's own unprivileged user" {
	need_other
	local dev a=$HOME_NODE b=$OTHER who
	load_hms mem_mb=16
	dev=$(uid_of "$(dev_obj 0 target)")
	# a device node the user may open, like a render node
	chmod 0666 /dev/hms_test0
	for who in "" "-T 1000 -U 1000"; do
		# hbind-pid: 32 pages on a, 30 on b, 2 never touched; the first
		# half goes to the device, then the whole process from the
		# device to a: b's pages stay on b
		run taskset -c "$CPU" hbind-pid $who -n "$a,$b,$a" -t "$dev" -D /dev/hms_test0 devwhole
		assert_success
		assert_line "devwhole to: 0 moved 32"
		assert_line "devwhole query: 0 999x32 ${b}x30 -2x2"
		assert_line "devwhole move_pages: 0 -2x32 ${b}x30 -2x2"
		assert_line "devwhole back: 0 moved 32"
		assert_line "devwhole after: 0 ${a}x32 ${b}x30 -2x2"
		assert_line "devwhole after move_pages: 0 ${a}x32 ${b}x30 -2x2"
	done
	run devtest stats
	assert_output "stats: uid $dev capacity 4096 used 0 to 64 from 64"
}

@test "device memory has an owner, unprivileged (uid 65534): refused without the device, EPERM for MIGRATE_ALL; allowed once the device node lets it open" {
	need_other
	command -v setpriv >/dev/null || fail "no setpriv (util-linux) in the guest"
	local dev h=${HB_UID[$HOME_NODE]} n=1024
	load_hms mem_mb=16
	dev=$(uid_of "$(dev_obj 0 target)")
	# /dev/hms_test0 is 0600 root: nobody cannot open it, nor use its memory
	run as_nobody taskset -c "$CPU" devtest -m 4 -n "$OTHER" perm
	assert_success
	assert_line "not open: MIGRATE {device}: EACCES"
	assert_line "not open: BIND {device}: EACCES"
	assert_line "not open: MIGRATE_ALL {device}: EPERM"
	assert_line "query not open, after the refused calls: u$h=$n"
	assert_line "open /dev/hms_test0: Permission denied"
	assert_line "PASS perm (refused)"
	run devtest stats
	assert_output "stats: uid $dev capacity 4096 used 0 to 0 from 0"
	# a device node the user may open: allowed, like a render node
	chmod 0666 /dev/hms_test0
	run as_nobody taskset -c "$CPU" devtest -m 4 -n "$OTHER" perm
	assert_success
	assert_line "open: MIGRATE {device}: moved $n of $n"
	assert_line "closed: MIGRATE {device}: EACCES"
	assert_line "PASS perm"
}

@test "pages shared after fork: MIGRATE to a node, to the device and back from it moves none without HBIND_MIGRATE_ALL, all with it; both processes keep their data" {
	need_other
	local dev n=1024
	load_hms mem_mb=16
	dev=$(uid_of "$(dev_obj 0 target)")
	dt -m 4 -n "$OTHER" shared
	assert_success
	assert_line "MIGRATE to node (shared, no ALL): moved 0"
	assert_line "MIGRATE to device (shared, no ALL): moved 0"
	assert_line "MIGRATE to device (shared, ALL): moved $n"
	assert_line "query shared, ALL, on device: u$dev=$n"
	assert_line "MIGRATE from device to node (shared, no ALL): moved 0"
	assert_line "query shared, no ALL, from device: u$dev=$n"
	assert_line "MIGRATE from device to node (shared, ALL): moved $n"
	assert_line "MIGRATE to node again (shared, ALL, already there): moved 0"
	assert_line "MIGRATE to device again (shared, ALL): moved $n"
	assert_line "query child, before reading: u$dev=$n"
	assert_line "child: data intact"
	assert_line "parent: data intact"
	assert_line "PASS shared"
	# (hbind.bats compares the system-target case with MPOL_MF_MOVE/MOVE_ALL)
}

@test "MIGRATE back from the device in batches (driver migrate_to_system): by list order, straight to the listed node, exact counts, data intact" {
	need_other
	local dev o=${HB_UID[$OTHER]} n=4096
	load_hms mem_mb=32
	dev=$(uid_of "$(dev_obj 0 target)")
	dt -m 16 -n "$OTHER" back
	assert_success
	assert_line "MIGRATE {device} $n pages: moved $n"
	assert_line "MIGRATE {device, node}: moved 0"
	assert_line "query after {device, node}: u$dev=$n"
	assert_line "MIGRATE {node, device} of the first half: moved $((n / 2))"
	assert_line "query first half: u$o=$((n / 2))"
	assert_line "query second half: u$dev=$((n / 2))"
	assert_line "pgmigrate_success grew by less than half the pages"
	assert_line "MIGRATE {node} of all: moved $((n / 2))"
	assert_line "query all back: u$o=$n"
	assert_line "device: $n pages back, none left"
	assert_line "PASS back ($n pages intact)"
	run devtest stats
	assert_output "stats: uid $dev capacity 8192 used 0 to $n from $n"
}

@test "device to device: MIGRATE moves pages from device 1 to device 0 and back by list order, only as many as fit, none stranded in system memory, data intact" {
	need_other
	local d0 d1 cap=1024
	NDEV=2 load_hms ndevices=2 mem_mb=4
	d0=$(uid_of "$(dev_obj 0 target)") d1=$(uid_of "$(dev_obj 1 target)")
	dt -m 4 -n "$OTHER" d2d
	assert_success
	assert_line "devices $d0 and $d1, capacity $cap pages each, range $((cap * 3 / 2)) pages"
	assert_line "MIGRATE {d0} of the pages on d1: moved $cap"
	assert_line "MIGRATE {d1, d0} of the pages on d0: moved $cap"
	assert_line "MIGRATE {d1, node} of the pages on d1: moved 0"
	assert_line "MIGRATE {d1, d0} of $((cap * 3 / 2)) pages ($cap on d1): moved $((cap / 2))"
	assert_line "MIGRATE {d0, d1} with room for $((cap / 2)) on d0: moved $((cap / 2))"
	assert_line "query: $cap on d0, $((cap / 2)) on d1"
	assert_line "MIGRATE {d0} with d0 full: moved 0"
	assert_line "MIGRATE {node, d1}: moved $((cap * 3 / 2))"
	assert_line "PASS d2d ($((cap * 3 / 2)) pages intact)"
}

@test "QUERY while the CPU touches device pages: a page under migration reads as the device or its new node, never another target" {
	need_other
	local f
	# the device memory's struct pages on HOME_NODE, the pages go to OTHER
	run taskset -c "$CPU" modprobe test_hms mem_mb=16
	assert_success
	for f in 1 2 3 4 5 6 7 8 9 10; do [ -c /dev/hms_test0 ] && break; sleep 0.2; done
	dt -m 4 -n "$OTHER" qrace
	assert_success
	assert_line --regexp "^qrace: 4 rounds of 1024 pages, [1-9][0-9]* queries: [1-9][0-9]* entries on the device, [1-9][0-9]* on node $OTHER, 0 elsewhere$"
	assert_line "PASS qrace"
}

@test "BIND of device targets alone under numactl --membind: CPU allocations follow the process policy (get_mempolicy, numa_maps, set_mempolicy_home_node: as without a policy), strict is EINVAL, device first touch still works" {
	need_other
	local dev o=${HB_UID[$OTHER]} n=1024
	load_hms mem_mb=16
	dev=$(uid_of "$(dev_obj 0 target)")
	run numactl --membind="$OTHER" taskset -c "$CPU" devtest -m 4 -n "$OTHER" devonly
	assert_success
	assert_line "BIND strict {device}: EINVAL"
	assert_line "BIND {device}: get_mempolicy mode 0, numa_maps bind:$OTHER (no policy: bind:$OTHER)"
	assert_line "set_mempolicy_home_node: ENOENT on {device}, ENOENT without policy"
	assert_line "query a (bound {device}) after CPU touch: u$o=$((n / 2))"
	assert_line "query b (no policy) after CPU touch: u$o=$n"
	assert_line --regexp "^device READ \(second half of a\): cpages $((n / 2)) faults [0-9]+ mpages $((n / 2))$"
	assert_line "query a second half after the device READ: u$dev=$((n / 2))"
	assert_line "PASS devonly"
}

@test "rmmod/modprobe test_hms in a loop against MIGRATE racing close, QUERY, BIND and device first touch: every call gets a documented result, data intact, kernel quiet" {
	need_other
	local f=$BATS_TEST_TMPDIR/churn ocpu k rc=0
	load_hms mem_mb=8
	dmesg -C
	ocpu=$(node_cpu "$OTHER")
	[ -n "$ocpu" ] && [ "$ocpu" != "$CPU" ] || ocpu=$CPU
	taskset -c "$CPU" devtest -m 4 -n "$OTHER" churn "$f" > "$BATS_TEST_TMPDIR/churn.log" 2>&1 3>&- &
	BG_PID=$!
	for ((k = 0; k < 6; k++)); do
		sleep 1
		rmmod_busy "$ocpu"
		sleep 0.3
		run taskset -c "$ocpu" modprobe test_hms mem_mb=8
		assert_success
	done
	sleep 1
	touch "$f.stop"
	wait "$BG_PID" || rc=$?
	BG_PID=
	run cat "$BATS_TEST_TMPDIR/churn.log"
	[ "$rc" -eq 0 ] || fail "devtest churn exited $rc: $output"
	assert_line --regexp '^churn: [0-9]+ rounds, [1-9][0-9]* with the device open; MIGRATE racing close: [1-9][0-9]* ran, [0-9]+ EACCES, [0-9]+ ENODEV; [1-9][0-9]* BIND \+ device first touch \([0-9]+ pages\)$'
	assert_line "PASS churn"
	kernel_quiet
}
