#!/usr/bin/env bats
# hbind(): BIND, MIGRATE, QUERY and DEFAULT compared with what mbind(),
# move_pages(), migrate_pages() and numactl do to the same pages, on whatever
# topology the guest runs (tests needing more nodes, or nodes small enough to
# fill, skip and say so). hbind-do (tests/guest/helpers/hbind-do.c) maps the
# memory and prints one line per operation; hbind-common.bash maps nodes to
# HMS target uids. Every hbind-do run is pinned to a CPU of HB_HOME, so that
# "local" allocations land on HB_HOME.

setup() {
	load common
	load hbind-common
	hb_setup
	H=$HB_HOME
}

# lines_of PREFIX: all lines of $output starting with PREFIX, joined by " | "
lines_of() {
	local l out=
	while IFS= read -r l; do
		case $l in "$1"*) out="$out | $l" ;; esac
	done <<< "$output"
	echo "${out# | }"
}

# nodelist N...: node ids as the kernel prints a nodemask ("1-3,5")
nodelist() {
	local s=-1 p=-1 out= n
	for n in $(printf '%s\n' "$@" | sort -n) 999999; do
		if [ "$n" -eq $((p + 1)) ]; then p=$n; continue; fi
		if [ "$s" -ge 0 ]; then
			[ "$s" -eq "$p" ] && out="$out,$s" || out="$out,$s-$p"
		fi
		s=$n p=$n
	done
	echo "${out#,}"
}

# place_home: hbind-do ops that put every page on HB_HOME and leave no policy
place_home() { echo "mbind:bind:$H touch mbind:default"; }

# the reasons migrate_pages()' "cpus" copy provider copies for (default none)
PC=/sys/kernel/debug/migrate_copy/cpus/reasons
PC_FOLIOS=/sys/kernel/debug/migrate_copy/cpus/folios

teardown() {
	teardown_holders
	[ -z "${HB_CG:-}" ] || rmdir "$HB_CG/child" "$HB_CG" 2>/dev/null || true
	[ ! -w $PC ] || echo none > $PC
}

# kworker_ms CPU: run time in ms of CPU's high-priority kworkers, where
# MIGRATE's copy helpers run (se.sum_exec_runtime of /proc/PID/sched)
kworker_ms() {
	local p files=()
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in
		kworker/"$1":*H*) files+=("$p/sched") ;;
		esac
	done
	# a kworker that exits meanwhile is left out
	cat "${files[@]}" /dev/null 2>/dev/null |
		awk '$1 == "se.sum_exec_runtime" { s += $3 } END { print s + 0 }'
}

# ---------------------------------------------------------------- BIND

@test "BIND strict then touch: pages on the target, MPOL_BIND in get_mempolicy and numa_maps, like mbind(MPOL_BIND)" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]} kind pol nm
	for kind in anon shm; do
		hb -m $kind -n 256 bind:$u:strict touch where getpol numamaps verify
		assert_success
		assert_line "bind ok"
		assert_line "nodes n$o=256"
		assert_line "policy 0-255:bind=static:$o"
		assert_line --regexp "^numa_maps bind=static:$o .*N$o=256"
		assert_line "verify ok"
		pol=$(hb_line policy) nm=$(hb_line numa_maps | awk '{ print $2 }')
		hb -m $kind -n 256 mbind:bind+static:$o touch where getpol numamaps
		assert_success
		assert_line "nodes n$o=256"
		assert_equal "$(hb_line policy)" "$pol"
		assert_equal "$(hb_line numa_maps | awk '{ print $2 }')" "$nm"
	done
}

@test "BIND non-strict then touch: pages on the target, MPOL_PREFERRED_MANY, like mbind(MPOL_PREFERRED_MANY)" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]} kind
	for kind in anon shm; do
		hb -m $kind -n 256 bind:$u touch where getpol numamaps
		assert_success
		assert_line "nodes n$o=256"
		assert_line "policy 0-255:prefer_many=static:$o"
		assert_line --regexp "^numa_maps prefer \(many\)=static:$o .*N$o=256"
		hb -m $kind -n 256 mbind:pmany+static:$o touch where getpol
		assert_success
		assert_line "nodes n$o=256"
		assert_line "policy 0-255:prefer_many=static:$o"
	done
}

@test "BIND on the middle of a mapping splits it: only that part is bound, like mbind" {
	need_mem_nodes 2
	local o=$HB_OTHER want_pages want_pol
	want_pages="pages 0-15:n$H 16-31:n$o 32-63:n$H"
	want_pol="policy 0-15:default 16-31:bind=static:$o 32-63:default"
	hb -n 64 bind:${HB_UID[$o]}:strict@16+16 touch pages getpol
	assert_success
	assert_line "$want_pages"
	assert_line "$want_pol"
	hb -n 64 mbind:bind+static:$o@16+16 touch pages getpol
	assert_success
	assert_line "$want_pages"
	assert_line "$want_pol"
}

@test "BIND of the two halves of a mapping in two calls leaves one VMA, like mbind; different lists or strictness keep two" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$H]} v=${HB_UID[$HB_OTHER]}
	# one target (the list the target carries), then a list of two
	hb -n 32 bind:$v:strict@0+16 bind:$v:strict@16+16 vmas getpol
	assert_success
	assert_line "vmas 1"
	assert_line "policy 0-31:bind=static:$o"
	hb -n 32 bind:$v,$u@0+16 bind:$v,$u@16+16 vmas
	assert_success
	assert_line "vmas 1"
	# same nodes, other order: two policies
	hb -n 32 bind:$v,$u@0+16 bind:$u,$v@16+16 vmas
	assert_success
	assert_line "vmas 2"
	hb -n 32 bind:$v:strict@0+16 bind:$v@16+16 vmas
	assert_success
	assert_line "vmas 2"
	hb -n 32 mbind:bind+static:$o@0+16 mbind:bind+static:$o@16+16 vmas
	assert_success
	assert_line "vmas 1"
}

@test "BIND on THP memory: huge pages on the target, like mbind" {
	need_mem_nodes 2
	have_thp
	local o=$HB_OTHER
	hb -m thp -n 1024 bind:${HB_UID[$o]}:strict touch where thp
	assert_success
	assert_line "nodes n$o=1024"
	assert_line "thp kb=4096"
	hb -m thp -n 1024 mbind:bind:$o touch where thp
	assert_success
	assert_line "nodes n$o=1024"
	assert_line "thp kb=4096"
}

@test "BIND strict to a full target: the toucher is OOM-killed within the target's node, like mbind(MPOL_BIND)" {
	need_small_nodes 1
	local s=${HB_SMALL[0]} mib how
	mib=$(($(node_total_mib "$s") + 64))
	for how in "bind:${HB_UID[$s]}:strict" "mbind:bind:$s"; do
		dmesg -C
		hb -n ${mib}M "$how" touch where
		[ "$status" -eq 137 ] ||
			fail "$how then touching $mib MiB: exit $status, want 137 (SIGKILL from the OOM killer): $output"
		assert_line --regexp "^(bind|mbind) ok$"
		refute_line "touch ok"
		run dmesg
		assert_success
		assert_output --regexp "oom-kill:constraint=CONSTRAINT_MEMORY_POLICY,nodemask=$s,"
		assert_output --regexp "Killed process [0-9]+ \(hbind-do\)"
	done
}

@test "BIND non-strict to a full target: the rest falls back to the local node, like MPOL_PREFERRED_MANY" {
	need_small_nodes 1
	local s=${HB_SMALL[0]} mib pages how l
	mib=$(($(node_total_mib "$s") + 64))
	pages=$((mib * 256))
	for how in "bind:${HB_UID[$s]}" "mbind:pmany:$s"; do
		hb -n ${mib}M "$how" touch where verify
		assert_success
		assert_line "touch ok"
		assert_line "verify ok"
		l=$(hb_line nodes)
		assert_equal "$(nodes_in "$l")" "$(printf '%s\n' "$s" "$H" | sort -n | xargs)"
		[ "$(count_on "$s" "$l")" -gt $((pages / 3)) ] || fail "$how: too little on node $s: $l"
		assert_equal $(($(count_on "$s" "$l") + $(count_on "$H" "$l"))) "$pages"
	done
}

@test "BIND to two targets: the first listed is filled first, then the second; mbind(MPOL_BIND) goes by distance" {
	need_small_nodes 2
	local near=${HB_SMALL[0]} far=${HB_SMALL[1]} mib pages l flags
	local un=${HB_UID[$near]} uf=${HB_UID[$far]}
	for flags in :strict ""; do
		hb -n 8M bind:$uf,$un$flags touch where getpol
		assert_success
		assert_line "nodes n$far=2048"
		assert_line --regexp "^policy 0-2047:(bind|prefer_many)=static:$(nodelist "$near" "$far")$"
		hb -n 8M bind:$un,$uf$flags touch where
		assert_success
		assert_line "nodes n$near=2048"
	done
	if [ "$(node_distance "$H" "$near")" -lt "$(node_distance "$H" "$far")" ]; then
		hb -n 8M mbind:bind:$near,$far touch where
		assert_success
		assert_line "nodes n$near=2048"
	fi
	# more than the first holds: it fills, the rest goes to the second only
	mib=$(($(node_total_mib "$far") + 48))
	pages=$((mib * 256))
	hb -n ${mib}M bind:$uf,$un:strict touch where verify
	assert_success
	assert_line "verify ok"
	l=$(hb_line nodes)
	assert_equal "$(nodes_in "$l")" "$(printf '%s\n' "$near" "$far" | sort -n | xargs)"
	assert_equal $(($(count_on "$far" "$l") + $(count_on "$near" "$l"))) "$pages"
	[ "$(count_on "$far" "$l")" -gt "$(count_on "$near" "$l")" ] ||
		fail "the first listed target ($far) should hold most: $l"
}

@test "BIND, MIGRATE, QUERY in one call run in stream order" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]} B M Q
	B=$(atom $HB_BIND 1) M=$(atom $HB_MIGRATE 2) Q=$(atom $HB_QUERY 3)
	hb -n 32 $(place_home) hcall:t=$u,a=$B/1/$M/0/0/$Q/0/Q getpol
	assert_success
	assert_line --regexp "^hcall ret=0 out=$B/0x1/$M/0x0/0x20/$Q/0x0/"
	assert_equal "$(q2n "$(hb_line query)")" "0-31:n$o"
	assert_line "policy 0-31:bind=static:$o"
	hb -n 32 $(place_home) hcall:t=$u,a=$Q/0/Q/$M/0/0
	assert_success
	assert_line --regexp "^hcall ret=0 out=$Q/0x0/0x[0-9a-f]+/0x[0-9a-f]+/$M/0x0/0x20$"
	assert_equal "$(q2n "$(hb_line query)")" "0-31:n$H"
}

# ---------------------------------------------------------------- MIGRATE

@test "MIGRATE to one target moves the same pages as move_pages(), mbind(MPOL_MF_MOVE), migrate_pages()" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]} want
	want="nodes n$o=256"
	hb -n 256 $(place_home) migrate:$u where verify
	assert_success
	assert_line "migrate moved=256"
	assert_line "$want"
	assert_line "verify ok"
	hb -n 256 $(place_home) move:$o where
	assert_success
	assert_line "move ret=0 n$o=256"
	assert_line "$want"
	hb -n 256 $(place_home) mbind:bind:$o:move+strict where
	assert_success
	assert_line "mbind ok"
	assert_line "$want"
	# migrate_pages() moves the whole process: its count of pages left
	# behind includes the helper's own (shared text, ...)
	hb -n 256 $(place_home) mpages:$H:$o where
	assert_success
	assert_line --regexp "^migrate_pages ret=[0-9]+$"
	assert_line "$want"
}

@test "MIGRATE counts only pages it moved: untouched, zero-page and already-there pages are not counted" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]} pre want
	# 0-63 already on o, 64-191 on H, 192-223 zero page, 224-255 untouched
	pre="mbind:bind:$o@0+64 touch@0+64 mbind:bind:$H@64+128 touch@64+128 mbind:default read@192+32"
	want="pages 0-191:n$o 192-223:EFAULT 224-255:ENOENT"
	hb -n 256 $pre migrate:$u pages
	assert_success
	assert_line "migrate moved=128"
	assert_line "$want"
	hb -n 256 $pre move:$o pages
	assert_success
	assert_line "move ret=0 n$o=192 ENOENT=32 EFAULT=32"
	assert_line "$want"
	hb -n 256 $pre mbind:bind:$o:move pages
	assert_success
	assert_line "$want"
}

@test "MIGRATE of THP moves them whole and keeps them huge, like move_pages()" {
	need_mem_nodes 2
	have_thp
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]}
	hb -m thp -n 1024 $(place_home) thp migrate:$u where thp verify
	assert_success
	assert_equal "$(lines_of thp)" "thp kb=4096 | thp kb=4096"
	assert_line "migrate moved=1024"
	assert_line "nodes n$o=1024"
	assert_line "verify ok"
	hb -m thp -n 1024 $(place_home) move:$o where thp
	assert_success
	assert_line "nodes n$o=1024"
	assert_line "thp kb=4096"
	# a THP partly in the range: as mbind, the range decides, base pages count
	hb -m thp -n 1024 $(place_home) migrate:$u@0+256 where
	assert_success
	assert_line --regexp "^migrate moved=(256|512)$"
}

@test "MIGRATE and INTERLEAVE|MOVE move the pages another CPU's LRU batch holds (MADV_COLD, MADV_FREE on that CPU), as many as mbind(MPOL_MF_MOVE)" {
	local hc n adv
	for n in $(cpu_nodes); do
		[ "$n" = "$HB_HOME" ] || { hc=$(node_cpu "$n"); break; }
	done
	[ -n "${hc:-}" ] || skip "needs a second node with a CPU"
	for adv in cold free; do
		# a thread on CPU hc touches 16 MiB (its node) and advises it
		run lru-batch -p 4096 -h "$hc" -c "$HB_CPU" -n "$HB_HOME" -u "${HB_UID[$HB_HOME]}" $adv hbind
		assert_success
		assert_line "moved 4096"
		assert_line "on-node 4096"
		run lru-batch -p 4096 -h "$hc" -c "$HB_CPU" -n "$HB_HOME" -u "${HB_UID[$HB_HOME]}" $adv ilmove
		assert_success
		assert_line "on-node 4096"
		run lru-batch -p 4096 -h "$hc" -c "$HB_CPU" -n "$HB_HOME" $adv mbind
		assert_success
		assert_line "on-node 4096"
	done
}

@test "the cpus copy provider: hbind MIGRATE, move_pages() and mbind() copy the same data with it on and off, as its reasons say; 4 KiB pages and THP" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]} on f0 f1 m
	[ -w $PC ] || fail "no $PC in this kernel"
	assert_equal "$(cat $PC)" none
	# the knob takes reason names, and nothing else
	echo "syscall_or_cpuset mempolicy_mbind" > $PC
	assert_equal "$(cat $PC)" "syscall_or_cpuset mempolicy_mbind"
	run sh -c "/bin/echo no_such_reason > $PC"
	assert_failure
	assert_output --partial "Invalid argument"
	run sh -c "echo syscall_or_cpuset bogus > $PC"
	assert_failure
	# one write longer than a page
	run sh -c "head -c 5000 /dev/zero | tr '\\0' x | dd of=$PC bs=5000 count=1 iflag=fullblock"
	assert_failure
	# root's knob: another user can neither change nor read it
	command -v setpriv >/dev/null || fail "setpriv missing: rootfs/packages.txt installs util-linux"
	run setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "echo none > $PC"
	assert_failure
	run setpriv --reuid=65534 --regid=65534 --clear-groups cat $PC
	assert_failure
	assert_equal "$(cat $PC)" "syscall_or_cpuset mempolicy_mbind"
	# the caller may run on every CPU: the CPUs of node o can help
	for on in syscall_or_cpuset none; do
		echo $on > $PC
		for m in migrate:$u move:$o; do
			f0=$(cat $PC_FOLIOS)
			hb -n 4096 $(place_home) cpu:all $m where verify
			assert_success
			assert_line --regexp "^(migrate moved=4096|move ret=0 n$o=4096)$"
			assert_line "nodes n$o=4096"
			assert_line "verify ok"
			f1=$(cat $PC_FOLIOS)
			hb_log "$m, provider for '$on': it copied $((f1 - f0)) folios"
			if [ $on = none ]; then
				assert_equal "$f1" "$f0"
			else
				# node o's CPU is idle while this one migrates
				[ $((f1 - f0)) -gt 0 ] ||
					fail "the provider copied no folio for $m"
			fi
		done
		if have_thp; then
			hb -m thp -n 2048 $(place_home) thp cpu:all migrate:$u where thp verify
			assert_success
			assert_equal "$(lines_of thp)" "thp kb=8192 | thp kb=8192"
			assert_line "migrate moved=2048"
			assert_line "nodes n$o=2048"
			assert_line "verify ok"
		fi
	done
	# mbind(MPOL_MF_MOVE) migrates for the reason mempolicy_mbind: only
	# that name turns the provider on for it
	for on in syscall_or_cpuset mempolicy_mbind; do
		echo $on > $PC
		f0=$(cat $PC_FOLIOS)
		hb -n 4096 $(place_home) cpu:all mbind:bind:$o:move where verify
		assert_success
		assert_line "nodes n$o=4096"
		assert_line "verify ok"
		f1=$(cat $PC_FOLIOS)
		hb_log "mbind, provider for '$on': it copied $((f1 - f0)) folios"
		if [ $on = mempolicy_mbind ]; then
			[ $((f1 - f0)) -gt 0 ] || fail "the provider copied no folio for mbind"
		else
			assert_equal "$f1" "$f0"
		fi
	done
}

# helper_ms AFFINITY HOW...: run time (ms) of CPU $hc's high-priority
# kworkers while hbind-do, started as HOW says (a command prefix) on
# HB_CPU, then given AFFINITY (cpu:all or cpu:N), moves 32 MiB from
# HB_HOME to node $o with MIGRATE
helper_ms() {
	local t0 t1 aff=$1
	shift
	t0=$(kworker_ms "$hc")
	run "$@" hbind-do -c "$HB_CPU" -n 8192 $(place_home) "$aff" migrate:"$u" where
	assert_success
	assert_line "migrate moved=8192"
	assert_line "nodes n$o=8192"
	t1=$(kworker_ms "$hc")
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
}

@test "MIGRATE's copy runs only where and as much as the caller could: on its CPU by default; with the cpus copy provider on, never outside its affinity or cpuset, nor for a caller in a cpu cgroup" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]} cg=/sys/fs/cgroup hc t
	local def on pinned boxed capped
	[ -w $PC ] || fail "no $PC in this kernel"
	hc=$(node_cpu "$o")
	[ -n "$hc" ] && [ "$hc" != "$HB_CPU" ] || skip "node $o has no CPU of its own"
	[ -r /proc/self/sched ] || fail "no /proc/PID/sched (CONFIG_SCHED_DEBUG)"
	[ -f $cg/cgroup.controllers ] || fail "no cgroup2 mounted at $cg"
	for t in cpuset cpu; do
		grep -qw $t $cg/cgroup.controllers || fail "no $t controller in the guest kernel"
		grep -qw $t $cg/cgroup.subtree_control || echo +$t > $cg/cgroup.subtree_control
	done
	# by default the caller copies alone, as mbind() does
	def=$(helper_ms cpu:all env)
	# the provider on: node o's CPU helps a caller that may run there
	echo syscall_or_cpuset > $PC
	on=$(helper_ms cpu:all env)
	awk -v d="$on" 'BEGIN { exit !(d >= 5) }' ||
		fail "CPU $hc ran ${on} ms of kworker time for an unrestricted caller with $PC on: the helpers did not run, nothing below is shown"
	# ... but not outside the caller's affinity
	pinned=$(helper_ms cpu:"$HB_CPU" env)
	# ... nor outside its cpuset
	HB_CG=$cg/hbind-copy.$$
	mkdir "$HB_CG"
	echo "$HB_CPU" > "$HB_CG/cpuset.cpus"
	boxed=$(helper_ms cpu:all sh -c "echo \$\$ > $HB_CG/cgroup.procs && exec \"\$@\"" sh)
	# ... nor for a caller whose cpu.max the helpers' time would escape
	echo "$(cat $cg/cpuset.cpus.effective)" > "$HB_CG/cpuset.cpus"
	echo "20000 100000" > "$HB_CG/cpu.max"
	capped=$(helper_ms cpu:all sh -c "echo \$\$ > $HB_CG/cgroup.procs && exec \"\$@\"" sh)
	hb_log "CPU $hc's kworkers: ${def} ms by default, ${on} ms with $PC on, then ${pinned} ms pinned to CPU $HB_CPU, ${boxed} ms in a cpuset of it, ${capped} ms under cpu.max 20%"
	for t in "default:$def" "pinned:$pinned" "cpuset:$boxed" "cpu.max:$capped"; do
		awk -v d="${t#*:}" 'BEGIN { exit !(d < 2) }' ||
			fail "CPU $hc ran ${t#*:} ms of kworker time for the ${t%%:*} caller (${on} ms for an unrestricted one with $PC on)"
	done
}

@test "a policy installed while cpuset.mems changes stays within mems_allowed, as set_mempolicy()'s and mbind()'s do (task and range BIND)" {
	need_mem_nodes 2
	local cg=/sys/fs/cgroup m
	[ -f $cg/cgroup.controllers ] || fail "no cgroup2 mounted at $cg"
	grep -qw cpuset $cg/cgroup.controllers || fail "no cpuset controller in the guest kernel"
	grep -qw cpuset $cg/cgroup.subtree_control || echo +cpuset > $cg/cgroup.subtree_control
	HB_CG=$cg/hbind-mems.$$
	mkdir "$HB_CG"
	cat $cg/cpuset.cpus.effective > "$HB_CG/cpuset.cpus"
	# hbind-race: 4000 rounds of cpuset.mems = {H,O}, then a strict BIND of
	# node H installed while another process writes cpuset.mems = {O}, at
	# the moment installs stop being refused; then numa_maps' nodes for the
	# policy must lie within mems_allowed
	for m in set_mempolicy mbind hbind-task hbind-range; do
		run hbind-race -g "$HB_CG" -a "$HB_HOME,$HB_OTHER" -b "$HB_OTHER" \
			-n "$HB_HOME" -u "${HB_UID[$HB_HOME]}" -r 4000 cpuset $m
		hb_log "$output"
		assert_success
		assert_line --regexp "^cpuset $m: rounds 4000 installed [1-9][0-9]* refused [1-9][0-9]* outside 0$"
	done
}

@test "set_mempolicy_home_node() on a BIND range: the home node goes first, as on an mbind(MPOL_BIND) range" {
	need_mem_nodes 2
	local h=$HB_HOME o=$HB_OTHER m
	for m in mbind hbind; do
		run hbind-race -u "${HB_UID[$h]},${HB_UID[$o]}" -n "$h,$o" homenode $m
		assert_success
		assert_output "homenode $m: 0 $h=0 $o=16"
	done
}

@test "MIGRATE with an ordered list: a page goes to the first listed target, and leaves a listed target only for one listed before it" {
	need_mem_nodes 3
	local a b c ua ub uc pre
	a=$H b=$(mem_nodes | tr ' ' '\n' | grep -vx "$H" | sed -n 1p)
	c=$(mem_nodes | tr ' ' '\n' | grep -vx "$H" | sed -n 2p)
	ua=${HB_UID[$a]} ub=${HB_UID[$b]} uc=${HB_UID[$c]}
	# pages 0-63 on a, 64-127 on b, 128-191 on c
	pre="mbind:bind:$a@0+64 mbind:bind:$b@64+64 mbind:bind:$c@128+64 touch mbind:default"
	hb -n 192 $pre pages migrate:$ub,$uc pages
	assert_success
	assert_line "pages 0-63:n$a 64-127:n$b 128-191:n$c"
	assert_line "migrate moved=128"
	assert_line "pages 0-191:n$b"
	hb -n 192 $pre migrate:$uc,$ub pages
	assert_success
	assert_line "migrate moved=128"
	assert_line "pages 0-191:n$c"
	# pages on the only listed target or on one listed first stay
	hb -n 192 $pre migrate:$ua,$ub,$uc pages
	assert_success
	assert_line "migrate moved=128"
	assert_line "pages 0-191:n$a"
}

@test "MIGRATE with an ordered list falls to the next target when the first is full" {
	need_small_nodes 2
	local s1=${HB_SMALL[0]} s2=${HB_SMALL[1]} mib pages l
	mib=$(($(node_total_mib "$s1") + 48))
	pages=$((mib * 256))
	hb -n ${mib}M $(place_home) migrate:${HB_UID[$s1]},${HB_UID[$s2]} where verify
	assert_success
	assert_line "migrate moved=$pages"
	assert_line "verify ok"
	l=$(hb_line nodes)
	assert_equal "$(nodes_in "$l")" "$(printf '%s\n' "$s1" "$s2" | sort -n | xargs)"
	[ "$(count_on "$s1" "$l")" -gt "$(count_on "$s2" "$l")" ] ||
		fail "the first listed target ($s1) should hold most: $l"
}

@test "MIGRATE skips pages another process maps unless HBIND_MIGRATE_ALL, like MPOL_MF_MOVE vs MOVE_ALL" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]} kind
	for kind in shm anon; do
		hb -m $kind -n 64 $(place_home) hold \
			migrate:$u where \
			move:$o where \
			mbind:bind:$o:move mbind:default where \
			migrate:$u:all where \
			mbind:bind:$H:moveall mbind:default where \
			move:$o:all where release
		assert_success
		assert_line "hold ok"
		assert_line "migrate moved=0"
		assert_line --regexp "^move ret=[0-9]+ EACCES=64$"
		assert_line "migrate moved=64"
		assert_line "move ret=0 n$o=64"
		assert_equal "$(lines_of nodes)" \
			"nodes n$H=64 | nodes n$H=64 | nodes n$H=64 | nodes n$o=64 | nodes n$H=64 | nodes n$o=64"
	done
}

@test "HBIND_MIGRATE_ALL needs CAP_SYS_NICE: EPERM without it, like MPOL_MF_MOVE_ALL" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]}
	hb -n 64 $(place_home) nocap migrate:$u:all mbind:bind:$o:moveall move:$o:all where migrate:$u where
	assert_success
	assert_line "nocap ok"
	assert_line "migrate errno=EPERM"
	assert_line "mbind errno=EPERM"
	assert_line "move errno=EPERM"
	assert_line "nodes n$H=64"
	assert_line "migrate moved=64"
	assert_line "nodes n$o=64"
	command -v setpriv >/dev/null || fail "setpriv missing: rootfs/packages.txt installs util-linux"
	run setpriv --bounding-set -sys_nice hbind-do -c "$HB_CPU" -n 64 \
		$(place_home) migrate:$u:all where
	assert_success
	assert_line "migrate errno=EPERM"
	assert_line "nodes n$H=64"
}

# ---------------------------------------------------------------- QUERY

@test "QUERY gives each page's target like move_pages(nodes=NULL): touched, zero page, untouched" {
	local kind q p
	for kind in anon shm; do
		hb -m $kind -n 64 touch@0+16 read@16+16 query pages
		assert_success
		refute_line --partial "overrun"
		q=$(q2n "$(hb_line query)") p=$(hb_line pages)
		assert_equal "$q" "${p#pages }"
		if [ $kind = anon ]; then
			assert_equal "$q" "0-15:n$H 16-31:EFAULT 32-63:ENOENT"
		else
			assert_equal "$q" "0-31:n$H 32-63:ENOENT"
		fi
	done
	# a subrange, and the raw uid is the node's target uid
	hb -n 64 touch@8+8 query@4+16
	assert_success
	assert_line "query 0-3:ENOENT 4-11:u${HB_UID[$H]} 12-15:ENOENT"
	refute_line --partial "overrun"
}

@test "QUERY follows pages across nodes and THP like move_pages()" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]} p
	hb -n 64 $(place_home) migrate:$u@8+8 move:$o@40+4 query pages
	assert_success
	p=$(hb_line pages)
	assert_equal "$p" "pages 0-7:n$H 8-15:n$o 16-39:n$H 40-43:n$o 44-63:n$H"
	assert_equal "$(q2n "$(hb_line query)")" "${p#pages }"
	if have_thp; then
		hb -m thp -n 1024 touch@0+1 query pages thp
		assert_success
		assert_line "thp kb=2048"
		assert_line "pages 0-511:n$H 512-1023:ENOENT"
		assert_equal "$(q2n "$(hb_line query)")" "0-511:n$H 512-1023:ENOENT"
	fi
}

# ---------------------------------------------------------------- DEFAULT

@test "DEFAULT drops an hbind or mbind policy like mbind(MPOL_DEFAULT), and moves nothing" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]} first
	for first in "bind:$u:strict" "mbind:bind:$o"; do
		hb -n 64 $first touch@0+8 default getpol touch@8+56 pages
		assert_success
		assert_line "default ok"
		assert_line "policy 0-63:default"
		assert_line "pages 0-7:n$o 8-63:n$H"
		hb -n 64 $first touch@0+8 mbind:default getpol touch@8+56 pages
		assert_success
		assert_line "policy 0-63:default"
		assert_line "pages 0-7:n$o 8-63:n$H"
	done
	# part of a range
	hb -n 64 bind:$u:strict default@8+8 getpol
	assert_success
	assert_line "policy 0-7:bind=static:$o 8-15:default 16-63:bind=static:$o"
	hb -n 64 mbind:bind+static:$o mbind:default@8+8 getpol
	assert_success
	assert_line "policy 0-7:bind=static:$o 8-15:default 16-63:bind=static:$o"
}

# ---------------------------------------------------------------- VMA life

@test "fork: the child inherits the hbind policy, like an mbind policy" {
	need_mem_nodes 2
	local o=$HB_OTHER u=${HB_UID[$HB_OTHER]} how
	for how in "bind:$u:strict" "mbind:bind+static:$o"; do
		hb -n 64 $how fork touch where getpol end where
		assert_success
		assert_line "child: touch ok"
		assert_line "child: nodes n$o=64"
		assert_line "child: policy 0-63:bind=static:$o"
		assert_line "fork exit=0"
		assert_line "nodes ENOENT=64"
	done
}

@test "fork: the child keeps the ordered target list, not just the node set" {
	need_small_nodes 2
	local near=${HB_SMALL[0]} far=${HB_SMALL[1]}
	hb -n 64 bind:${HB_UID[$far]},${HB_UID[$near]}:strict fork touch where end
	assert_success
	assert_line "child: nodes n$far=64"
	assert_line "fork exit=0"
}

@test "munmap drops the policy: a new mapping in the same place has none, like mbind" {
	need_mem_nodes 2
	local o=$HB_OTHER how
	for how in "bind:${HB_UID[$o]}:strict" "mbind:bind+static:$o"; do
		hb -n 64 $how remap@16+16 getpol touch pages
		assert_success
		assert_line "remap ok"
		assert_line "policy 0-15:bind=static:$o 16-31:default 32-63:bind=static:$o"
		assert_line "pages 0-15:n$o 16-31:n$H 32-63:n$o"
	done
}

@test "mremap moves the policy with the mapping, like mbind" {
	need_mem_nodes 2
	local o=$HB_OTHER how
	for how in "bind:${HB_UID[$o]}:strict" "mbind:bind+static:$o"; do
		hb -n 64 $how touch@0+16 mremap getpol touch@16+48 pages verify@0+16
		assert_success
		assert_line "mremap moved"
		assert_line "policy 0-63:bind=static:$o"
		assert_line "pages 0-63:n$o"
		assert_line "verify ok"
	done
}

@test "mremap keeps the ordered target list" {
	need_small_nodes 2
	local near=${HB_SMALL[0]} far=${HB_SMALL[1]}
	hb -n 64 bind:${HB_UID[$far]},${HB_UID[$near]}:strict mremap touch where
	assert_success
	assert_line "mremap moved"
	assert_line "nodes n$far=64"
}

# ---------------------------------------------------------------- numactl

@test "numactl --membind=N / --preferred=N place like hbind BIND (strict / non-strict) to N's target" {
	command -v numactl >/dev/null || fail "numactl missing: rootfs/packages.txt installs it"
	local n want
	for n in $(mem_nodes); do
		want="nodes n$n=256"
		run numactl --membind=$n hbind-do -c "$HB_CPU" -n 256 touch where
		assert_success
		assert_line "$want"
		hb -n 256 bind:${HB_UID[$n]}:strict touch where
		assert_success
		assert_line "$want"
		run numactl --preferred=$n hbind-do -c "$HB_CPU" -n 256 touch where
		assert_success
		assert_line "$want"
		hb -n 256 bind:${HB_UID[$n]} touch where
		assert_success
		assert_line "$want"
	done
}

# ---------------------------------------------------------------- another process

# pid_nodes: A (HB_HOME), B, TO: three memory nodes for hbind-pid
pid_nodes() {
	local n
	A=$HB_HOME B=$HB_OTHER TO=''
	for n in $(mem_nodes); do
		[ "$n" = "$A" ] || [ "$n" = "$B" ] || { TO=$n; break; }
	done
}

@test "PROCESS QUERY: another process's pages where move_pages(pid) finds them, with its permissions (root, same uid, uid 65534; EPERM for another uid and a non-dumpable process)" {
	need_mem_nodes 3
	pid_nodes
	local lay="${A}x32 ${B}x30 -2x2" who
	# hbind-pid: a process with 32 pages on A, 30 on B, 2 never touched
	for who in "" "-T 1000 -U 1000" "-T 65534 -U 65534" "-T 1000 -d"; do
		run hbind-pid $who -n "$A,$B,$TO" query
		assert_success
		assert_line "query hbind: 0 $lay"
		assert_line "query move_pages: 0 $lay"
	done
	for who in "-T 1001 -U 1000" "-T 1000 -U 1000 -d" "-T 0 -U 65534"; do
		run hbind-pid $who -n "$A,$B,$TO" query
		assert_success
		assert_line "query hbind: EPERM -"
		assert_line "query move_pages: EPERM -"
	done
}

@test "PROCESS MIGRATE: moves the pages move_pages(pid) moves, shared pages only with MIGRATE_ALL (CAP_SYS_NICE); the same permissions" {
	need_mem_nodes 3
	pid_nodes
	local who
	# 8 pages shared with a child of the process stay, without MIGRATE_ALL
	for who in "" "-T 1000 -U 1000" "-T 65534 -U 65534"; do
		run hbind-pid $who -s -n "$A,$B,$TO" migrate
		assert_success
		assert_line "migrate hbind: 0 moved 54 ${A}x8 ${TO}x54 -2x2"
		assert_line "migrate move_pages: 0 moved 54 ${A}x8 ${TO}x54 -2x2"
	done
	run hbind-pid -s -n "$A,$B,$TO" migrate-all
	assert_success
	assert_line "migrate hbind: 0 moved 62 ${TO}x62 -2x2"
	assert_line "migrate move_pages: 0 moved 62 ${TO}x62 -2x2"
	for who in "-T 1000 -U 1000" "-T 1001 -U 1000"; do
		run hbind-pid $who -s -n "$A,$B,$TO" migrate-all
		assert_success
		assert_line "migrate hbind: EPERM moved 0 ${A}x32 ${B}x30 -2x2"
		assert_line "migrate move_pages: EPERM moved 0 ${A}x32 ${B}x30 -2x2"
	done
	run hbind-pid -T 1001 -U 1000 -n "$A,$B,$TO" migrate
	assert_success
	assert_line "migrate hbind: EPERM moved 0 ${A}x32 ${B}x30 -2x2"
	assert_line "migrate move_pages: EPERM moved 0 ${A}x32 ${B}x30 -2x2"
}

@test "PROCESS MIGRATE to a node outside the process's cpuset: EACCES, as move_pages(pid), nothing moved" {
	need_mem_nodes 3
	pid_nodes
	local cg=/sys/fs/cgroup
	[ -f $cg/cgroup.controllers ] || fail "no cgroup2 mounted at $cg"
	grep -qw cpuset $cg/cgroup.subtree_control || echo +cpuset > $cg/cgroup.subtree_control
	HB_CG=$cg/hbind-pid.$$
	mkdir "$HB_CG"
	echo "$A,$B" > "$HB_CG/cpuset.mems"
	run hbind-pid -g "$HB_CG" -n "$A,$B,$TO" migrate
	assert_success
	assert_line "migrate hbind: EACCES moved 0 ${A}x32 ${B}x30 -2x2"
	assert_line "migrate move_pages: EACCES moved 0 ${A}x32 ${B}x30 -2x2"
}

@test "PROCESS bad input: not a pidfd, a closed fd, an exited process, a thread's pidfd, PROCESS not first, with a BIND, with flags: each its errno and the process's pages unchanged" {
	need_mem_nodes 3
	pid_nodes
	local who
	for who in "" "-T 65534 -U 65534"; do
		run hbind-pid $who -n "$A,$B,$TO" bad
		assert_success
		assert_line "bad not-a-pidfd: EBADF unchanged"
		assert_line "bad closed-fd: EBADF unchanged"
		assert_line "bad exited: ESRCH unchanged"
		assert_line "bad thread: EINVAL unchanged"
		assert_line "bad not-first: EINVAL unchanged"
		assert_line "bad with-bind: EINVAL unchanged"
		assert_line "bad flags: EINVAL unchanged"
		assert_line "bad whole-range: EINVAL unchanged"
		assert_line "bad from-no-dest: EINVAL unchanged"
		assert_line "bad valid: 0 changed"
	done
}

# whole_same: $output of hbind-pid whole[-all] shows hbind and migrate_pages
# moving the same pages of the process
whole_same() {
	local left moved fell
	assert_success
	hb_log "$output"
	# the test mapping: A's half on TO, B's half where it was
	assert_line --regexp "^whole hbind: 0 moved [0-9]+ fell [0-9]+ left [0-9]+ ${TO}x32 ${B}x30 -2x2\$"
	assert_line --regexp "^whole migrate_pages: 0 moved 0 fell [0-9]+ left [0-9]+ ${TO}x32 ${B}x30 -2x2\$"
	# the whole process: both leave on A only the few pages that were
	# busy at the time of the call (a reference held elsewhere)
	for left in $(sed -n 's/^whole [a-z_]*: .* left \([0-9]*\) .*/\1/p' <<< "$output"); do
		[ "$left" -le 8 ] || fail "$left pages left on node $A: $output"
	done
	# hbind's count is the fall of the process's pages on A, more than
	# the mapping's 32
	moved=$(sed -n 's/^whole hbind: 0 moved \([0-9]*\) .*/\1/p' <<< "$output")
	fell=$(sed -n 's/^whole hbind: 0 moved [0-9]* fell \([0-9]*\) .*/\1/p' <<< "$output")
	[ "$moved" = "$fell" ] || fail "moved $moved, but $fell pages left node $A"
	[ "$moved" -gt 32 ] || fail "only $moved pages moved"
}

@test "PROCESS MIGRATE_WHOLE|FROM: the whole process from A to TO, as migrate_pages(pid, {A}, {TO}) moves it (root with MIGRATE_ALL, same uid without); the pages on B stay; EPERM for another uid" {
	need_mem_nodes 3
	pid_nodes
	# root: migrate_pages moves shared pages too (MPOL_MF_MOVE_ALL)
	run hbind-pid -n "$A,$B,$TO" whole-all
	whole_same
	run hbind-pid -T 1000 -U 1000 -n "$A,$B,$TO" whole
	whole_same
	run hbind-pid -T 1001 -U 1000 -n "$A,$B,$TO" whole
	assert_success
	assert_line "whole hbind: EPERM moved 0 fell - left - ${A}x32 ${B}x30 -2x2"
	assert_line "whole migrate_pages: EPERM moved 0 fell - left - ${A}x32 ${B}x30 -2x2"
}

# node_totals: "NodeN=MB ..." from the Total row of numastat -p or hmsctl
# stat output in $output, in node order
node_totals() {
	awk '/^Per-/ {
		getline
		n = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "Node" || $i == "Target") { col[++n] = $i $(i + 1); i++ }
			else col[++n] = $i
		}
		next
	}
	/^Total/ { for (i = 2; i <= NF; i++) if (col[i - 1] ~ /^Node/) print col[i - 1] "=" $i }' <<< "$output" |
		sort -V | tr '\n' ' '
}

# numa_pages PID: "NN=PAGES ..." per node, summed over /proc/PID/numa_maps
numa_pages() {
	awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split($i, kv, "="); n[kv[1]] += kv[2] } }
	     END { for (k in n) print k "=" n[k] }' "/proc/$1/numa_maps" | sort -V | tr '\n' ' '
}

# holder SIZE NODE [SETPRIV...]: a process started on HB_CPU with SIZE pages
# touched on NODE, that then sleeps; its pid in HOLDER (teardown kills it)
holder() {
	local n=$1 node=$2 i
	shift 2
	"$@" taskset -c "$HB_CPU" hbind-do -n "$n" mbind:bind:$node touch sleep:600000 >/dev/null &
	HOLDER=$!
	HOLDERS="${HOLDERS:-} $HOLDER"
	for i in $(seq 100); do
		grep -q "N$node=$n\b" /proc/$HOLDER/numa_maps 2>/dev/null && return 0
		sleep 0.1
	done
	fail "the holder process did not touch its $n pages on node $node"
}

teardown_holders() {
	local p
	for p in ${HOLDERS:-}; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done
	HOLDERS=
}

@test "hmsctl stat --pid: a process's memory per node as numastat -p shows it, as root and as its own unprivileged user; EPERM on another user's process" {
	need_mem_nodes 3
	pid_nodes
	local want root_pid nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	holder 4096 "$B"
	run numastat -p "$HOLDER"
	assert_success
	want=$(node_totals)
	hb_log "numastat -p: $want"
	run hmsctl stat --pid "$HOLDER"
	assert_success
	assert_line --partial "Per-target process memory usage (in MBs) for PID $HOLDER (hbind-do)"
	assert_equal "$(node_totals)" "$want"
	[[ $(node_totals) == *"Node$B=16."* ]]
	run hmsctl --json stat --pid "$HOLDER"
	assert_success
	[ "$(jq ".targets[] | select(.nid == $B) | .private" <<< "$output")" -ge 4096 ]
	# page by page what numa_maps counts
	assert_equal "$(jq -r '.targets[] | select(.nid >= 0 and .pages > 0) | "N\(.nid)=\(.pages)"' <<< "$output" | sort -V | tr '\n' ' ')" \
		"$(numa_pages "$HOLDER")"
	root_pid=$HOLDER
	# unprivileged: its own process, not root's
	holder 1024 "$A" "${nobody[@]}"
	run numastat -p "$HOLDER"
	want=$(node_totals)
	run "${nobody[@]}" hmsctl stat --pid "$HOLDER"
	assert_success
	assert_equal "$(node_totals)" "$want"
	run "${nobody[@]}" hmsctl stat --pid "$root_pid"
	assert_failure 1
	assert_output --partial "Operation not permitted"
}

# row_nodes LABEL: "Node0=MB Node1=MB ..." of the row of $output whose first
# column is LABEL (Total, or "PID (comm)"), in a table of numastat's
# per-process form, the columns named by the header line after "Per-"
row_nodes() {
	awk -v label="$1" '/^Per-/ { getline; nh = split($0, h, /  +/); next }
		nh && $0 ~ /^[^-]/ { n = split($0, v, /  +/); if (v[1] == label)
			for (i = 2; i <= n && i <= nh; i++) if (h[i] ~ /^Node/) { sub(/ /, "", h[i]); printf "%s=%s ", h[i], v[i] } }' <<< "$output"
}

@test "hmsctl stat without --pid: a row per process, as numastat PID... shows them; --cgroup: the processes of a cgroup and of its children; unprivileged: its own processes" {
	need_mem_nodes 3
	pid_nodes
	local cg=/sys/fs/cgroup p1 p2 p3 want got nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	[ -f $cg/cgroup.controllers ] || fail "no cgroup2 mounted at $cg"
	HB_CG=$cg/hbind-stat.$$
	mkdir -p "$HB_CG/child"
	holder 1024 "$B"
	p1=$HOLDER
	echo "$p1" > "$HB_CG/cgroup.procs"
	holder 2048 "$TO"
	p2=$HOLDER
	echo "$p2" > "$HB_CG/child/cgroup.procs"
	holder 512 "$A"
	p3=$HOLDER
	run numastat "$p1" "$p2"
	assert_success
	want=$(row_nodes Total)
	hb_log "numastat $p1 $p2: $want"
	run hmsctl stat --cgroup "${HB_CG#$cg/}"
	assert_success
	assert_line --partial "Per-target process memory usage (in MBs) for cgroup hbind-stat.$$"
	assert_equal "$(row_nodes Total)" "$want"
	[ "$(grep -c '^[0-9]' <<< "$output")" = 2 ] || fail "not 2 rows: $output"
	assert_line --regexp "^$p1 \\(hbind-do\\) "
	assert_line --regexp "^$p2 \\(hbind-do\\) "
	run hmsctl --json stat --cgroup "$HB_CG"
	assert_success
	assert_equal "$(jq -c '[.processes[].pid]' <<< "$output")" "[$p1,$p2]"
	# the whole machine: every process, these three among them, each with
	# the row numastat gives it
	run numastat -p "$p3"
	want=$(row_nodes Total)
	run hmsctl stat
	assert_success
	assert_line --regexp "^1 \\("
	assert_equal "$(row_nodes "$p3 (hbind-do)")" "$want"
	assert_line --regexp "^$p1 \\(hbind-do\\) "
	# unprivileged: its own processes, none of root's
	holder 256 "$A" "${nobody[@]}"
	run "${nobody[@]}" hmsctl stat
	assert_success
	assert_line --regexp "^$HOLDER \\(hbind-do\\) "
	refute_line --regexp "^($p1|$p2|$p3|1) \\("
	teardown_holders
	rmdir "$HB_CG/child" "$HB_CG"
}

@test "hmsctl migrate --pid --from --to moves what migratepages moves; without --from every page the process alone maps; --all needs CAP_SYS_NICE" {
	need_mem_nodes 3
	pid_nodes
	local p1 p2 got want
	holder 2048 "$B"
	p1=$HOLDER
	holder 2048 "$B"
	p2=$HOLDER
	run hmsctl migrate --pid "$p1" --from "node:$B" --to "node:$TO"
	assert_success
	assert_output --regexp '^[0-9]+ pages moved$'
	[ "${output%% *}" -ge 2048 ]
	run migratepages "$p2" "$B" "$TO"
	assert_success
	got=$(numa_pages "$p1") want=$(numa_pages "$p2")
	hb_log "hmsctl migrate: $got" "migratepages: $want"
	assert_equal "$got" "$want"
	# every page left B
	[[ $got =~ N$TO=(20[4-9][0-9]|2[1-9][0-9][0-9]) ]]
	[[ $got != *"N$B="* ]]
	# back to A, every page that is not there: what numastat then shows on A
	run hmsctl --json migrate --pid "$p1" --to "node:$A"
	assert_success
	[ "$(jq .moved <<< "$output")" -ge 2048 ]
	got=$(numa_pages "$p1")
	hb_log "hmsctl migrate --to node:$A: $got"
	[[ $got =~ N$A=(20[4-9][0-9]|2[1-9][0-9][0-9]) ]]
	run setpriv --bounding-set -sys_nice hmsctl migrate --pid "$p1" --to "node:$B" --all
	assert_failure 1
	assert_output --partial "Operation not permitted"
}

@test "PROCESS while the process maps, unmaps, forks, execs and exits: every QUERY and MIGRATE through its pidfd returns 0, EFAULT (a hole) or ESRCH (gone), kernel quiet" {
	need_mem_nodes 3
	pid_nodes
	echo "hbind.bats: PROCESS race starts" > /dev/kmsg
	run hbind-pid -n "$A,$B,$TO" -r 300 race
	assert_success
	hb_log "$output"
	assert_line --regexp '^race: calls [0-9]+ ok [1-9][0-9]* EFAULT [0-9]+ ESRCH [1-9][0-9]* other 0$'
	# the kernel's messages since it started
	run sh -c 'dmesg | sed -n "/hbind.bats: PROCESS race starts/,\$p"'
	assert_line --partial "PROCESS race starts"
	refute_output --partial "Call Trace"
}
