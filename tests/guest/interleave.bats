#!/usr/bin/env bats
# hbind() INTERLEAVE (a weighted interleave over targets with weights of its
# own, given or derived from the HMAT read bandwidths) and the task commands
# (BIND/INTERLEAVE with the TASK flag, TASK_DEFAULT: what set_mempolicy()
# does), compared with mbind(MPOL_WEIGHTED_INTERLEAVE) with the same weights
# written to the global sysfs table, set_mempolicy(), and numactl; then
# `hmsctl run` and `hmsctl show` against numactl --membind/--preferred-many
# and numactl --show. Page counts per node come from move_pages() (hbind-do
# "where"). Needs two memory nodes besides a CPU node's own (two-socket-hbm:
# DRAM 0 and 1 with CPUs, HBM 2 and 3 without).

IWT=/sys/kernel/mm/mempolicy/weighted_interleave

setup() {
	load common
	load hbind-common
	hb_setup
	H=$HB_HOME
	need_mem_nodes 3
	# F: a CPU-less memory node (HBM), O: another node
	F='' O=''
	for n in $(mem_nodes); do
		[ "$n" != "$H" ] || continue
		if [ -z "$F" ] && [ -z "$(node_cpu "$n")" ]; then F=$n; else O=${O:-$n}; fi
	done
	[ -n "$F" ] || skip "needs a memory node without CPUs"
	[ -n "$O" ] || O=$F
	IL=$(atom 5 4)
	SAVED_IW=''
}

teardown() {
	local kv
	for kv in $SAVED_IW; do
		echo "${kv#*=}" > "$IWT/node${kv%%=*}" 2>/dev/null || true
	done
	[ -z "${HB_CG:-}" ] || rmdir "$HB_CG" 2>/dev/null || true
}

# set_global_weights NODE=W...: write the global weighted-interleave table
# (restored by teardown)
set_global_weights() {
	local kv n
	[ -w "$IWT/node$H" ] || skip "no writable $IWT (MPOL_WEIGHTED_INTERLEAVE needs 6.9)"
	for kv in "$@"; do
		n=${kv%%=*}
		SAVED_IW="$SAVED_IW $n=$(cat "$IWT/node$n")"
		echo "${kv#*=}" > "$IWT/node$n"
	done
}

global_weights() {
	local n out=
	for n in $(mem_nodes); do out="$out $n=$(cat "$IWT/node$n")"; done
	echo "${out# }"
}

# expected N W_A W_B: counts "a b" of N pages interleaved A:B in node order
# (N a multiple of W_A + W_B)
expected() { echo "$(($1 * $2 / ($2 + $3))) $(($1 * $3 / ($2 + $3)))"; }

# auto_weights INIT_NODE[,INIT_NODE...] NODE...: the weights hbind derives
# from the profile's HMAT read bandwidths (with several initiators, their
# mean, rounded): scaled so the largest is 16, rounded, at least 1, divided
# by their gcd (uapi/hbind.2)
auto_weights() {
	local inits=$1 i n bw sum k
	shift
	local -a bws=()
	for n in "$@"; do
		sum=0 k=0
		for i in ${inits//,/ }; do
			bw=$(topo_hmat "$i" "$n" bandwidth)
			[ -n "$bw" ] || skip "the profile has no HMAT bandwidth from $i to $n"
			sum=$((sum + bw)) k=$((k + 1))
		done
		bws+=("$(( (sum + k / 2) / k ))")
	done
	bw_weights "${bws[@]}"
}

lo() { [ "$1" -lt "$2" ] && echo "$1" || echo "$2"; }
hi() { [ "$1" -gt "$2" ] && echo "$1" || echo "$2"; }

# ---------------------------------------------------------------- INTERLEAVE

@test "INTERLEAVE with caller weights: pages, get_mempolicy and numa_maps as mbind(MPOL_WEIGHTED_INTERLEAVE) with those weights in the global table, which hbind leaves alone" {
	local a b kind line pol nm before
	a=$(lo "$H" "$F") b=$(hi "$H" "$F")
	set_global_weights "$a=5" "$b=2"
	before=$(global_weights)
	for kind in anon shm; do
		# weights 1 (node a) and 3 (node b), in target order b,a
		hb -m $kind -n 200 il:n$b,n$a:3,1 touch where getpol numamaps verify
		assert_success
		assert_line "il ok"
		read -r ea eb <<< "$(expected 200 1 3)"
		assert_line "nodes n$a=$ea n$b=$eb"
		assert_line "policy 0-199:weighted_interleave=static:$a,$b"
		# numa_maps spells the mode "weighted interleave"
		assert_line --regexp "^numa_maps weighted interleave=static:$a,$b "
		assert_line "verify ok"
		line=$(hb_line nodes) pol=$(hb_line policy)
		nm=$(hb_line numa_maps | awk '{ print $2, $3 }')
		assert_equal "$(global_weights)" "$before"
		# the same weights in the global table: mbind places the same
		set_global_weights "$a=1" "$b=3"
		hb -m $kind -n 200 mbind:weighted+static:$a,$b touch where getpol numamaps
		assert_success
		assert_equal "$(hb_line nodes)" "$line"
		assert_equal "$(hb_line policy)" "$pol"
		assert_equal "$(hb_line numa_maps | awk '{ print $2, $3 }')" "$nm"
		set_global_weights "$a=5" "$b=2"
		before=$(global_weights)
	done
}

@test "INTERLEAVE weights belong to each range: two ranges of one mapping, two weightings, next to a global-table mbind range" {
	local a b
	a=$(lo "$H" "$F") b=$(hi "$H" "$F")
	set_global_weights "$a=2" "$b=2"
	hb -n 300 il:n$a,n$b:1,1@0+100 il:n$a,n$b:1,4@100+100 \
		mbind:weighted+static:$a,$b@200+100 touch \
		where@0+100 where@100+100 where@200+100 vmas
	assert_success
	assert_equal "$(echo "$output" | grep '^nodes' | tr '\n' '|')" \
		"nodes n$a=50 n$b=50|nodes n$a=20 n$b=80|nodes n$a=50 n$b=50|"
	assert_line "vmas 3"
}

@test "INTERLEAVE auto: weights from the HMAT read bandwidths of the calling CPU's initiator; the two sockets get different weights; a named initiator gives its own" {
	local a b c0 c1 i0 i1 w0 w1 n1 line0 line1 ea eb
	need_mem_nodes 4
	[ "$(cpu_nodes | wc -w)" -ge 2 ] || skip "needs two nodes with CPUs"
	a=$(lo "$H" "$F") b=$(hi "$H" "$F")
	read -r i0 i1 <<< "$(cpu_nodes | tr ' ' '\n' | head -2 | tr '\n' ' ')"
	c0=$(node_cpu "$i0") c1=$(node_cpu "$i1")
	w0=$(auto_weights "$i0" "$a" "$b") w1=$(auto_weights "$i1" "$a" "$b")
	hb_log "auto weights for nodes $a,$b from node $i0: $w0, from node $i1: $w1"
	[ "$w0" != "$w1" ] || fail "the profile gives both initiators the same weights ($w0)"
	n1=$(( $(echo "$w0" | tr ' ' '+') ))
	n1=$(( n1 * $(( $(echo "$w1" | tr ' ' '+') )) * 2 ))
	run hbind-do -c "$c0" -n $n1 il:n$a,n$b:auto touch where
	assert_success
	read -r ea eb <<< "$(expected $n1 $w0)"
	assert_line "nodes n$a=$ea n$b=$eb"
	line0=$(hb_line nodes)
	run hbind-do -c "$c1" -n $n1 il:n$a,n$b:auto touch where
	assert_success
	read -r ea eb <<< "$(expected $n1 $w1)"
	assert_line "nodes n$a=$ea n$b=$eb"
	line1=$(hb_line nodes)
	[ "$line0" != "$line1" ]
	# from CPU c0, naming node i1's initiator: i1's weights
	run hbind-do -c "$c0" -n $n1 il:n$a,n$b:auto="$(hms_find_uid initiator nid="$i1")" touch where
	assert_success
	assert_line "$line1"
	# the same weights in the global table: mbind places the same
	read -r ea eb <<< "$w0"
	set_global_weights "$a=$ea" "$b=$eb"
	run hbind-do -c "$c0" -n $n1 mbind:weighted+static:$a,$b touch where
	assert_success
	assert_line "$line0"
}

@test "INTERLEAVE auto without an initiator: the mean bandwidth from the CPUs the thread may run on, whichever of them the call ran on" {
	local a b i0 i1 w n ea eb
	need_mem_nodes 4
	[ "$(cpu_nodes | wc -w)" -ge 2 ] || skip "needs two nodes with CPUs"
	a=$(lo "$H" "$F") b=$(hi "$H" "$F")
	read -r i0 i1 <<< "$(cpu_nodes | tr ' ' '\n' | head -2 | tr '\n' ' ')"
	w=$(auto_weights "$i0,$i1" "$a" "$b")
	n=$(( $(echo "$w" | tr ' ' '+') ))
	n=$(( n * 4 ))
	read -r ea eb <<< "$(expected $n $w)"
	hb_log "auto weights for nodes $a,$b from nodes $i0 and $i1: $w"
	# hbind-race: allowed on every CPU, runs the call on c0, then on c1
	run hbind-race -u "${HB_UID[$a]},${HB_UID[$b]}" -n "$a,$b" \
		-c "$(node_cpu "$i0"),$(node_cpu "$i1")" -p $n ilauto
	assert_success
	assert_line "ilauto cpu $(node_cpu "$i0"): $a=$ea $b=$eb"
	assert_line "ilauto cpu $(node_cpu "$i1"): $a=$ea $b=$eb"
}

@test "INTERLEAVE move: existing pages are spread by the weights (mbind(MPOL_WEIGHTED_INTERLEAVE, MPOL_MF_MOVE) for pages off the nodes; hbind also spreads pages already on one of them)" {
	local a b ea eb line
	a=$(lo "$H" "$F") b=$(hi "$H" "$F")
	[ "$O" != "$a" ] && [ "$O" != "$b" ] || skip "needs a third memory node"
	read -r ea eb <<< "$(expected 200 1 3)"
	# pages on O, off both nodes
	hb -n 200 mbind:bind:$O touch mbind:default il:n$a,n$b:1,3:move where getpol verify
	assert_success
	assert_line "il ok"
	assert_line "nodes n$a=$ea n$b=$eb"
	assert_line "policy 0-199:weighted_interleave=static:$a,$b"
	assert_line "verify ok"
	line=$(hb_line nodes)
	set_global_weights "$a=1" "$b=3"
	hb -n 200 mbind:bind:$O touch mbind:default mbind:weighted+static:$a,$b:move where
	assert_success
	assert_line "$line"
	# pages all on node a: hbind spreads them, mbind leaves them
	hb -n 200 mbind:bind:$a touch mbind:default il:n$a,n$b:1,3:move where verify
	assert_success
	assert_line "nodes n$a=$ea n$b=$eb"
	assert_line "verify ok"
	hb -n 200 mbind:bind:$a touch mbind:default mbind:weighted+static:$a,$b:move where
	assert_success
	assert_line "nodes n$a=200"
	# without move, placed pages stay
	hb -n 200 mbind:bind:$O touch mbind:default il:n$a,n$b:1,3 where
	assert_success
	assert_line "nodes n$O=200"
}

@test "INTERLEAVE move with a KSM page first: the interleave base comes from the first page that is not KSM, as mbind's does (memfd pages after it land where mbind puts them)" {
	local a b h m
	a=$(lo "$H" "$F") b=$(hi "$H" "$F")
	[ "$O" != "$a" ] && [ "$O" != "$b" ] || skip "needs a third memory node"
	[ -w /sys/kernel/mm/ksm/run ] || skip "no KSM (CONFIG_KSM)"
	set_global_weights "$a=1" "$b=3"
	# hbind-race: [KSM page the caller alone maps][64 memfd pages], all on
	# O; INTERLEAVE|MOVE 1,3, then mbind(MPOL_WEIGHTED_INTERLEAVE, MOVE)
	run hbind-race -u "${HB_UID[$a]},${HB_UID[$b]}" -n "$a,$b,$O" \
		-w 1,3 -p 64 ksmbase
	assert_success
	h=$(grep '^ksmbase hbind:' <<< "$output")
	m=$(grep '^ksmbase mbind:' <<< "$output")
	hb_log "$h"
	hb_log "$m"
	# the range started with a KSM page in both calls
	[[ $h == "ksmbase hbind: ksm 1 nodes "* ]]
	[[ $m == "ksmbase mbind: ksm 1 nodes "* ]]
	# every memfd page moved, a quarter to a
	[ "$(wc -w <<< "${m#*nodes}")" -eq 64 ]
	[ "$(grep -o " $a\b" <<< "${m#*nodes}" | wc -l)" -eq 16 ]
	[ "$(grep -o " $b\b" <<< "${m#*nodes}" | wc -l)" -eq 48 ]
	# page by page where mbind puts them
	assert_equal "${h#*nodes}" "${m#*nodes}"
}

@test "INTERLEAVE across fork, mremap and a VMA split: the range keeps its weights" {
	local a b
	a=$(lo "$H" "$F") b=$(hi "$H" "$F")
	hb -n 200 il:n$a,n$b:1,3 fork touch where end getpol
	assert_success
	assert_line "child: nodes n$a=50 n$b=150"
	hb -n 200 il:n$a,n$b:1,3 mremap touch where
	assert_success
	assert_line "nodes n$a=50 n$b=150"
	# a BIND in the middle splits the VMA; the rest keeps the interleave
	hb -n 300 il:n$a,n$b:1,3 bind:n$O@100+100 touch where@0+100 where@200+100 vmas
	assert_success
	assert_equal "$(echo "$output" | grep -c "^nodes n$a=25 n$b=75\$")" 2
	assert_line "vmas 3"
}

# ---------------------------------------------------------------- task policy

@test "task BIND: set_mempolicy() from targets; get_mempolicy() without MPOL_F_ADDR reports it; strict = MPOL_BIND, ordered non-strict = MPOL_PREFERRED_MANY with the first target first; TASK_DEFAULT clears it" {
	hb -n 64 bind:n$F:task+strict taskpol touch where
	assert_success
	assert_line "bind ok"
	assert_line "taskpolicy bind=static:$F"
	assert_line "nodes n$F=64"
	hb -n 64 setpol:bind+static:$F taskpol touch where
	assert_line "taskpolicy bind=static:$F"
	assert_line "nodes n$F=64"
	# ordered: the first listed target first, even when it is not local
	hb -n 64 bind:n$F,n$H:task taskpol touch where
	assert_success
	assert_line "taskpolicy prefer_many=static:$(lo "$H" "$F"),$(hi "$H" "$F")"
	assert_line "nodes n$F=64"
	# local first: as set_mempolicy(MPOL_PREFERRED_MANY)
	hb -n 64 bind:n$H,n$F:task touch where tdefault taskpol
	assert_success
	assert_line "nodes n$H=64"
	assert_line "tdefault ok"
	assert_line "taskpolicy default"
	hb -n 64 setpol:prefer_many:$H,$F touch where
	assert_line "nodes n$H=64"
}

@test "task INTERLEAVE: the thread's weighted interleave with its own weights, as set_mempolicy(MPOL_WEIGHTED_INTERLEAVE) with the global table; inherited by fork" {
	local a b line
	a=$(lo "$H" "$F") b=$(hi "$H" "$F")
	set_global_weights "$a=4" "$b=4"
	hb -n 200 il:n$a,n$b:1,3:task taskpol touch where fork touch where end
	assert_success
	assert_line "taskpolicy weighted_interleave=static:$a,$b"
	assert_line "nodes n$a=50 n$b=150"
	assert_line "child: nodes n$a=50 n$b=150"
	line=$(hb_line nodes)
	set_global_weights "$a=1" "$b=3"
	hb -n 200 setpol:weighted+static:$a,$b touch where
	assert_line "$line"
}

@test "hmsctl run --strict / ordered: pages as numactl --membind / --preferred-many; kept across exec, inherited by a shell's children; hmsctl show like numactl --show" {
	local out
	run hmsctl run --strict --targets node:$F -- hbind-do -c "$HB_CPU" -n 64 taskpol touch where
	assert_success
	assert_line "taskpolicy bind=static:$F"
	assert_line "nodes n$F=64"
	run numactl --membind=$F hbind-do -c "$HB_CPU" -n 64 touch where
	assert_line "nodes n$F=64"
	# numactl --preferred-many: the nearest node; hmsctl run: the list order
	run hmsctl run --targets node:$H,node:$F -- sh -c "hbind-do -c $HB_CPU -n 64 touch where"
	assert_success
	assert_line "nodes n$H=64"
	if numactl --help 2>&1 | grep -q preferred-many; then
		run numactl --preferred-many=$H,$F hbind-do -c "$HB_CPU" -n 64 touch where
		assert_line "nodes n$H=64"
	fi
	run hmsctl run --targets node:$F,node:$H -- sh -c "hbind-do -c $HB_CPU -n 64 touch where"
	assert_line "nodes n$F=64"
	run hmsctl run --strict --targets node:$F -- hmsctl show
	assert_success
	assert_line "policy: bind static"
	assert_line "nodes: $F"
	assert_line "targets: ${HB_UID[$F]}"
	out=$(numactl --membind=$F hmsctl show)
	assert_equal "$(echo "$out" | grep '^nodes:')" "nodes: $F"
	assert_equal "$(echo "$out" | grep '^policy:')" "policy: bind"
	# numactl --show names the same nodes (it does not decode the static
	# flag of an hbind policy: numactl 2.0.16 prints its mode as a number)
	out=$(numactl --membind=$F numactl --show | sed -n 's/^membind: *//p')
	assert_equal "${out% }" "$F"
	run hmsctl show
	assert_success
	assert_line "policy: default"
}

@test "hmsctl run --interleave: equal, given and auto weights, as set_mempolicy(MPOL_WEIGHTED_INTERLEAVE) with those weights in the global table" {
	local a b w ea eb n
	a=$(lo "$H" "$F") b=$(hi "$H" "$F")
	run hmsctl run --interleave --targets node:$a,node:$b -- hbind-do -c "$HB_CPU" -n 200 taskpol touch where
	assert_success
	assert_line "taskpolicy weighted_interleave=static:$a,$b"
	assert_line "nodes n$a=100 n$b=100"
	run hmsctl run --interleave=1,3 --targets node:$a,node:$b -- hbind-do -c "$HB_CPU" -n 200 touch where
	assert_line "nodes n$a=50 n$b=150"
	set_global_weights "$a=1" "$b=3"
	run numactl --weighted-interleave=$a,$b true
	if [ "$status" -eq 0 ]; then
		run numactl --weighted-interleave=$a,$b hbind-do -c "$HB_CPU" -n 200 touch where
	else
		run hbind-do -c "$HB_CPU" -n 200 setpol:weighted:$a,$b touch where
	fi
	assert_line "nodes n$a=50 n$b=150"
	w=$(auto_weights "$H" "$a" "$b")
	n=$(( ($(echo "$w" | tr ' ' '+')) * 20 ))
	read -r ea eb <<< "$(expected $n $w)"
	run taskset -c "$HB_CPU" hmsctl run --interleave=auto --targets node:$a,node:$b -- hbind-do -c "$HB_CPU" -n $n touch where
	assert_success
	assert_line "nodes n$a=$ea n$b=$eb"
	# best:bandwidth from this CPU is the HMAT's best for its node
	run taskset -c "$HB_CPU" hmsctl run --strict --targets best:bandwidth -- hmsctl show
	assert_success
	assert_line "targets: $(taskset -c "$HB_CPU" hmsctl best current --by bandwidth --only system)"
}

@test "libhms: hms_interleave(), hms_set_membind(), hms_set_interleave() and hms_set_default() do what the hbind commands do" {
	local a b ua ub
	a=$(lo "$H" "$F") b=$(hi "$H" "$F")
	ua=${HB_UID[$a]} ub=${HB_UID[$b]}
	# MPOL_WEIGHTED_INTERLEAVE (6) | MPOL_F_STATIC_NODES (1 << 15)
	run taskset -c "$HB_CPU" hms-il range "$ub,$ua" 3,1 200
	assert_success
	assert_output "$(printf 'ret ok\nmode 32774\nnodes n%s=50 n%s=150' "$a" "$b")"
	run taskset -c "$HB_CPU" hms-il range "$ua,$ub" 1,3 200 move
	assert_output "$(printf 'ret ok\nmode 32774\nnodes n%s=50 n%s=150' "$a" "$b")"
	run taskset -c "$HB_CPU" hms-il range "$ua,$ub" 0,3 16
	assert_line "ret errno=EINVAL"
	run taskset -c "$HB_CPU" hms-il interleave "$ua,$ub" 1,3 200
	assert_output "$(printf 'ret ok\nmode 32774\nnodes n%s=50 n%s=150' "$a" "$b")"
	run taskset -c "$HB_CPU" hms-il interleave "$ua,$ub" 1,256 16
	assert_line "ret errno=EINVAL"
	# MPOL_BIND (2), MPOL_PREFERRED_MANY (5), static
	run taskset -c "$HB_CPU" hms-il membind-strict "${HB_UID[$F]}" - 64
	assert_output "$(printf 'ret ok\nmode 32770\nnodes n%s=64' "$F")"
	run taskset -c "$HB_CPU" hms-il membind "${HB_UID[$F]},${HB_UID[$H]}" - 64
	assert_output "$(printf 'ret ok\nmode 32773\nnodes n%s=64' "$F")"
	run taskset -c "$HB_CPU" hms-il default - - 16
	assert_output "$(printf 'ret ok\nmode 0\nnodes n%s=16' "$H")"
}

@test "unprivileged (uid 65534): task and range INTERLEAVE, hmsctl run and show work without capabilities" {
	local a b
	a=$(lo "$H" "$F") b=$(hi "$H" "$F")
	run setpriv --reuid=65534 --regid=65534 --clear-groups -- hbind-do -c "$HB_CPU" -n 200 il:n$a,n$b:1,3 touch where
	assert_success
	assert_line "nodes n$a=50 n$b=150"
	run setpriv --reuid=65534 --regid=65534 --clear-groups -- hmsctl run --interleave=1,3 --targets node:$a,node:$b -- hbind-do -c "$HB_CPU" -n 200 touch where
	assert_success
	assert_line "nodes n$a=50 n$b=150"
	run setpriv --reuid=65534 --regid=65534 --clear-groups -- hmsctl run --strict --targets node:$F -- hmsctl show
	assert_success
	assert_line "nodes: $F"
}

# ---------------------------------------------------------------- errors

# bad OP...: 16 pages on HB_HOME with an mbind(MPOL_PREFERRED) policy and an
# MPOL_BIND task policy on HB_HOME, snapshot, the OPs, compare both
bad() {
	hb -n 16 mbind:bind:$H touch mbind:prefer:$H setpol:bind:$H snap taskpol "$@" same taskpol
}

# bad_is OPNAME ERRNO: the call failed with ERRNO and changed nothing
bad_is() {
	assert_success
	assert_line "$1 errno=$2"
	assert_line "unchanged"
	assert_equal "$(echo "$output" | grep -c "^taskpolicy bind:$H\$")" 2
}

@test "INTERLEAVE errors: bad weights, weights pointer, flags, initiator; EINVAL or EFAULT and nothing changed (range and task policy)" {
	local u=${HB_UID[$H]} v=${HB_UID[$F]} unk ini tgt
	unk=$(unused_uid)
	ini=$(hms_find_uid initiator nid="$H")
	# a weight out of 1..255; one weight for two targets reads a 0
	for w in 0,1 1,256 1; do
		bad il:n$H,n$F:$w
		bad_is il EINVAL
		bad il:n$H,n$F:$w:task
		bad_is il EINVAL
	done
	# unknown, duplicate or no target
	bad il:$u,$unk:1,1
	bad_is il EINVAL
	bad il:$u,$u:1,1
	bad_is il EINVAL
	bad il:-:auto
	bad_is il EINVAL
	# unknown initiator, or a target's uid given as initiator
	bad il:$u,$v:auto=$unk
	bad_is il EINVAL
	bad il:$u,$v:auto=$v:task
	bad_is il EINVAL
	# move with task; an unknown flag
	bad il:$u,$v:1,1:move+task
	bad_is il EINVAL
	bad il:$u,$v:1,1:0x100
	bad_is il EINVAL
	# raw: the initiator flag without auto, an initiator dword without the
	# flag, auto with a weights pointer, a dword count other than 4 (the
	# old inline weights too), two INTERLEAVEs, two task commands
	tgt="t=$u/$v"
	local IL2 IL6 IL1 TD TD1 BD
	IL2=$(atom 5 2) IL6=$(atom 5 6) IL1=$(atom 5 1) TD=$(atom 6 0) TD1=$(atom 6 1) BD=$(atom 2 1)
	bad hcall:$tgt,a=$IL/2/$ini/W
	bad_is hcall EINVAL
	bad hcall:$tgt,a=$IL/1/5/QN
	bad_is hcall EINVAL
	bad hcall:$tgt,a=$IL/1/0/W
	bad_is hcall EINVAL
	bad hcall:$tgt,a=$IL2/1/0
	bad_is hcall EINVAL
	bad hcall:$tgt,a=$IL6/0/0/W/1/1
	bad_is hcall EINVAL
	bad hcall:$tgt,a=$IL1/1
	bad_is hcall EINVAL
	bad hcall:$tgt,a=$IL/1/0/QN/$IL/1/0/QN
	bad_is hcall EINVAL
	bad hcall:$tgt,a=$TD/$TD
	bad_is hcall EINVAL
	bad hcall:$tgt,a=$BD/2/$TD
	bad_is hcall EINVAL
	# weights the kernel cannot read: NULL, a kernel address, unmapped
	for p in QN QK QB; do
		bad hcall:$tgt,a=$IL/0/0/$p
		bad_is hcall EFAULT
	done
	# the same atom with readable weights works
	hb -n 16 hcall:$tgt,a=$IL/0/0/W getpol
	assert_success
	assert_line --regexp '^hcall ret=0 '
	assert_line --regexp "^policy 0-15:weighted_interleave=static:($H,$F|$F,$H)\$"
	# TASK_DEFAULT takes no dword
	bad hcall:a=$TD1/0
	bad_is hcall EINVAL
	# a task BIND with a flag it does not know
	bad bind:$u:task+0x80
	bad_is bind EINVAL
}

# dev_initiator: uid of test_hms device 0's initiator (its "device" link)
dev_initiator() {
	local o _
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		for o in $(hms_objects initiator); do
			case $(readlink -f "$o/device" 2>/dev/null) in
			*/misc/hms_test0) cat "$o/uid"; return 0 ;;
			esac
		done
		sleep 0.2
	done
}

@test "INTERLEAVE and task BIND refuse device memory (EINVAL), and a target outside the cpuset (EINVAL); a device initiator's weights, ENODATA without its bandwidth; nothing changed" {
	local u=${HB_UID[$H]} d cg di
	run modprobe test_hms
	assert_success
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		d=$(hms_find_uid target type=device-private | head -1)
		[ -z "$d" ] || break
		sleep 0.2
	done
	[ -n "$d" ] || fail "test_hms loaded but registered no device-private target"
	bad il:$u,$d:1,1
	bad_is il EINVAL
	bad il:$u,$d:auto
	bad_is il EINVAL
	bad bind:$u,$d:task
	bad_is bind EINVAL
	bad bind:$d:task
	bad_is bind EINVAL
	# the device's initiator reaches every node through one host
	# link: equal bandwidths, equal weights
	di=$(dev_initiator)
	[ -n "$di" ] || fail "test_hms: no device initiator"
	hb -n 200 il:n$H,n$F:auto="$di" touch where
	assert_line "nodes n$(lo "$H" "$F")=100 n$(hi "$H" "$F")=100"
	# no bandwidth known on that link: ENODATA
	rmmod test_hms
	modprobe test_hms host_bw=0
	di=$(dev_initiator)
	bad il:n$H,n$F:auto="$di"
	bad_is il ENODATA
	rmmod test_hms 2>/dev/null || true
	cg=/sys/fs/cgroup
	[ -f $cg/cgroup.controllers ] || fail "no cgroup2 mounted at $cg"
	grep -qw cpuset $cg/cgroup.controllers || fail "no cpuset controller (CONFIG_CPUSETS)"
	grep -qw cpuset $cg/cgroup.subtree_control || echo +cpuset > $cg/cgroup.subtree_control
	HB_CG=$cg/interleave.$$
	mkdir "$HB_CG"
	echo "$H" > "$HB_CG/cpuset.mems"
	run sh -c "echo \$\$ > $HB_CG/cgroup.procs && exec hbind-do -c $HB_CPU -n 16 touch snap il:n$H,n$F:1,1 bind:n$F:task taskpol same"
	assert_success
	assert_line "il errno=EINVAL"
	assert_line "bind errno=EINVAL"
	assert_line "taskpolicy default"
	assert_line "unchanged"
}

@test "task commands ignore the range: they run with len 0 and on an unmapped range; range commands with len 0 do nothing; a task command with a range command on an unmapped range fails first (EFAULT), nothing changed" {
	local u=${HB_UID[$F]} B
	B=$(atom 2 1)
	# BIND|TASK (flags 2) on an empty range, then on an unmapped one
	hb -n 16 hcall:t=$u,a=$B/2@o:0:0 taskpol
	assert_success
	assert_line --regexp "^hcall ret=0"
	assert_line "taskpolicy prefer_many=static:$F"
	hb -n 16 unmap hcall:t=$u,a=$B/3 taskpol
	assert_success
	assert_line --regexp "^hcall ret=0"
	assert_line "taskpolicy bind=static:$F"
	# a range BIND with len 0: nothing; with the task BIND: only the task's
	hb -n 16 hcall:t=$u,a=$B/1/$B/3@o:0:0 getpol taskpol
	assert_success
	assert_line "policy 0-15:default"
	assert_line "taskpolicy bind=static:$F"
	# range BIND and task BIND on an unmapped range: EFAULT before either
	hb -n 16 unmap hcall:t=$u,a=$B/3/$B/1 taskpol
	assert_success
	assert_line "hcall errno=EFAULT"
	assert_line "taskpolicy default"
}
