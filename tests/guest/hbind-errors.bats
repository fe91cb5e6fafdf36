#!/usr/bin/env bats
# hbind() input validation (uapi/hbind.2, ERRORS): every
# bad input fails with its documented errno, in the documented order, and a
# failed call changes nothing: the pages' policy (get_mempolicy) and
# placement (move_pages) are compared before and after ('snap' ... 'same' in
# hbind-do), with a call that would bind and migrate if it ran. Last, the
# errno parity table with mbind() and move_pages() for the bad inputs they
# share, printed in the TAP output.

setup() {
	load common
	load hbind-common
	hb_setup
	H=$HB_HOME
	# the target calls aim at: another node when there is one, so that a
	# migration that should not have happened shows
	TN=${HB_OTHER:-$H}
	T=${HB_UID[$TN]}
	DEF=$(atom $HB_DEFAULT 0) BND=$(atom $HB_BIND 1)
	MIG=$(atom $HB_MIGRATE 2) QRY=$(atom $HB_QUERY 3)
	# MIGRATE to T then BIND (strict) to T: changes placement and policy
	MB="$MIG/0/0/$BND/1"
	UNK=$(unused_uid)
}

teardown() {
	[ -z "${HB_CG:-}" ] || rmdir "$HB_CG" 2>/dev/null || true
}

# bad OP...: 16 pages on HB_HOME with an mbind(MPOL_PREFERRED) policy,
# snapshot, the OPs, compare
bad() { hb -n 16 mbind:bind:$H touch mbind:prefer:$H snap "$@" same; }

# bad_is OPNAME ERRNO: the call failed with ERRNO and changed nothing
bad_is() {
	assert_success
	assert_line "snap ok"
	assert_line "$1 errno=$2"
	assert_line "unchanged"
}

@test "natoms 0 or above HBIND_MAX_ATOMS: EINVAL; exactly HBIND_MAX_ATOMS is accepted" {
	bad hcall:t=$T,a=$MB,na=0
	bad_is hcall EINVAL
	# 257 DEFAULT atoms: would drop the policy if run
	bad hcall:pad=257,na=257
	bad_is hcall EINVAL
	hb -n 16 mbind:prefer:$H hcall:pad=256,na=256 getpol
	assert_success
	assert_line --regexp "^hcall ret=0 "
	assert_line "policy 0-15:default"
}

@test "ntargets above HBIND_MAX_TARGETS: EINVAL" {
	bad hcall:t=$T,nt=65,a=$MB
	bad_is hcall EINVAL
	bad hcall:t=$T,nt=65,a=$DEF
	bad_is hcall EINVAL
}

@test "unaligned start: EINVAL, even with len 0" {
	bad hcall:t=$T,a=$MB@o:1:4096
	bad_is hcall EINVAL
	bad hcall:t=$T,a=$MB@o:2048:8192
	bad_is hcall EINVAL
	bad hcall:t=$T,a=$MB@o:1:0
	bad_is hcall EINVAL
}

@test "start + len overflows: EINVAL" {
	bad hcall:t=$T,a=$MB@o:0:-8192
	bad_is hcall EINVAL
	bad hcall:t=$T,a=$MB@a:0xfffffffffffff000:0x2000
	bad_is hcall EINVAL
}

@test "targets pointer NULL, unmapped or in kernel space: EFAULT" {
	local p
	for p in null bad kernel; do
		bad hcall:t=$T,tp=$p,a=$MB
		bad_is hcall EFAULT
	done
}

@test "atoms pointer NULL, unmapped or in kernel space: EFAULT" {
	local p
	for p in null bad kernel; do
		bad hcall:t=$T,a=$MB,ap=$p
		bad_is hcall EFAULT
	done
}

@test "a targets or atoms array whose last dword is unmapped: EFAULT, short or long" {
	# short arrays are copied to the kernel's stack, long ones to the heap
	bad hcall:t=$T,tp=tail,a=$MB
	bad_is hcall EFAULT
	bad hcall:t=$T/$T/$T/$T/$T/$T/$T/$T/$T/$T,tp=tail,a=$MB
	bad_is hcall EFAULT
	bad hcall:t=$T,a=$MB,ap=tail
	bad_is hcall EFAULT
	# MIGRATE, BIND, then 35 DEFAULTs: any of them would show if run
	bad hcall:t=$T,a=$MB,pad=40,na=40,ap=tail
	bad_is hcall EFAULT
}

@test "atom header 0 or an unknown command: EINVAL, and the atoms before it do not run" {
	local a
	for a in 0 $(atom 0 1)/0 $(atom $HB_CMD_UNKNOWN 0) $(atom 0xffff 0) $(atom 0x8002 1)/1; do
		bad hcall:t=$T,a=$MB/$a
		bad_is hcall EINVAL
		bad hcall:t=$T,a=$a
		bad_is hcall EINVAL
	done
}

@test "a dword count not the command's, or a command running past natoms: EINVAL" {
	local a
	for a in $(atom 1 1)/0 $(atom 2 0) $(atom 2 2)/1/0 $(atom 3 1)/0 $(atom 3 3)/0/0/0 \
		 $(atom 4 2)/0/0 $(atom 4 4)/0/Q/0 \
		 $BND $MIG/0 $QRY/0/0; do
		bad hcall:t=$T,a=$MB/$a
		bad_is hcall EINVAL
	done
}

@test "unknown flag bits in BIND, MIGRATE, QUERY: EINVAL" {
	local a
	for a in $BND/0x4 $BND/0x80000000 $BND/0xfffffffe \
		 $MIG/0x8/0 $MIG/0x80000000/0 $QRY/0x1/Q $QRY/0x80000000/Q; do
		bad hcall:t=$T,a=$MB/$a
		bad_is hcall EINVAL
	done
}

@test "MIGRATE_FROM without a source or a destination, a dword missing or extra, another command on the targets: EINVAL" {
	need_mem_nodes 2
	local hu=${HB_UID[$H]} m3
	m3=$(atom $HB_MIGRATE 3)
	# each would move the pages from H to T if it ran
	for a in "$hu/$T,a=$m3/2/0/0" "$hu,a=$m3/2/0/1" "$hu/$T,a=$m3/2/0/2" \
		 "$hu/$T,a=$MIG/2/0" "$hu/$T,a=$m3/0/0/1" \
		 "$hu/$T,a=$m3/2/0/1/$BND/0" "$hu/$T,a=$m3/2/0/1/$MIG/0/0"; do
		bad hcall:t=$a
		bad_is hcall EINVAL
	done
	# the same call, well formed, moves them
	hb -n 16 mbind:bind:$H touch hcall:t=$hu/$T,a=$m3/2/0/1 query
	assert_success
	assert_line "hcall ret=0 out=$m3/0x2/0x10/0x1"
	assert_line "query 0-15:u$T"
}

@test "MIGRATE_WHOLE with a range, another command or a task command: EINVAL; with start and len 0 it moves the caller's pages" {
	need_mem_nodes 2
	local hu=${HB_UID[$H]} m3
	m3=$(atom $HB_MIGRATE 3)
	bad hcall:t=$hu/$T,a=$m3/6/0/1
	bad_is hcall EINVAL
	for a in "$m3/6/0/1/$QRY/0/Q" "$m3/6/0/1/$DEF" "$DEF/$m3/6/0/1" \
		 "$m3/6/0/1/$(atom $HB_TASK_DEFAULT 0)" "$m3/6/0/1/$m3/6/0/1"; do
		bad hcall:r=0,t=$hu/$T,a=$a
		bad_is hcall EINVAL
	done
	hb -n 16 mbind:bind:$H touch hcall:r=0,t=$hu/$T,a=$m3/6/0/1 query
	assert_success
	assert_line --regexp "^hcall ret=0 out=$m3/0x6/0x[0-9a-f]+/0x1\$"
	assert_line "query 0-15:u$T"
}

@test "HBIND_MIGRATE_ALL without CAP_SYS_NICE: EPERM, found while parsing (before the targets)" {
	bad nocap hcall:t=$T,a=$BND/1/$MIG/1/0
	assert_line "nocap ok"
	bad_is hcall EPERM
	bad nocap hcall:t=$UNK,a=$MIG/1/0
	bad_is hcall EPERM
	# with the capability the same call gets to the target check
	bad hcall:t=$UNK,a=$MIG/1/0
	bad_is hcall ENODEV
}

@test "BIND or MIGRATE with no targets: EINVAL; DEFAULT and QUERY need none" {
	bad hcall:t=-,a=$BND/1
	bad_is hcall EINVAL
	bad hcall:t=-,a=$MIG/0/0
	bad_is hcall EINVAL
	bad hcall:t=-,a=$DEF/$BND/0
	bad_is hcall EINVAL
	hb -n 16 touch hcall:t=-,a=$QRY/0/Q/$DEF
	assert_success
	assert_line --regexp "^hcall ret=0 "
	assert_line "query 0-15:u${HB_UID[$H]}"
}

@test "a uid that is no live target (unknown, initiator, link, bridge): EINVAL for BIND, ENODEV for MIGRATE" {
	local kind u tried=0
	for kind in unknown initiator link bridge; do
		if [ $kind = unknown ]; then u=$UNK; else u=$(any_uid $kind); fi
		[ -n "$u" ] || continue
		tried=$((tried + 1))
		bad hcall:t=$u,a=$BND/1
		bad_is hcall EINVAL
		bad hcall:t=$u,a=$MIG/0/0
		bad_is hcall ENODEV
		# also after a good target
		bad hcall:t=$T/$u,a=$BND/0
		bad_is hcall EINVAL
		bad hcall:t=$T/$u,a=$MIG/0/0
		bad_is hcall ENODEV
	done
	# the boot population always has initiators and links
	[ $tried -ge 3 ] || fail "only $tried kinds of non-target uid found on the HMS bus"
}

@test "a duplicate target uid: EINVAL" {
	bad hcall:t=$T/$T,a=$BND/1
	bad_is hcall EINVAL
	bad hcall:t=$T/$T,a=$MIG/0/0
	bad_is hcall EINVAL
	# more targets than the kernel keeps on its stack, all looked up first
	bad hcall:t=$T/$T/$T/$T/$T/$T/$T/$T/$T/$T,a=$BND/1
	bad_is hcall EINVAL
	if [ "$TN" != "$H" ]; then
		bad hcall:t=$T/${HB_UID[$H]}/$T,a=$MIG/0/0
		bad_is hcall EINVAL
	fi
}

@test "a node outside the cpuset: EINVAL for BIND, EACCES for MIGRATE, like mbind and move_pages" {
	need_mem_nodes 2
	local cg=/sys/fs/cgroup o=$HB_OTHER
	[ -f $cg/cgroup.controllers ] || fail "no cgroup2 mounted at $cg"
	grep -qw cpuset $cg/cgroup.controllers || fail "no cpuset controller (CONFIG_CPUSETS)"
	grep -qw cpuset $cg/cgroup.subtree_control || echo +cpuset > $cg/cgroup.subtree_control
	HB_CG=$cg/hbind-errors.$$
	mkdir "$HB_CG"
	echo "$H" > "$HB_CG/cpuset.mems"
	run sh -c "echo \$\$ > $HB_CG/cgroup.procs && exec hbind-do -c $HB_CPU -n 16 touch snap \
		bind:${HB_UID[$o]} migrate:${HB_UID[$o]} mbind:bind:$o move:$o same"
	assert_success
	assert_line "bind errno=EINVAL"
	assert_line "migrate errno=EACCES"
	assert_line "mbind errno=EINVAL"
	assert_line "move errno=EACCES"
	assert_line "unchanged"
	hb_log "cpuset without node $o: hbind BIND EINVAL = mbind EINVAL; hbind MIGRATE EACCES = move_pages EACCES"
}

@test "len 0: validated, then returns 0 and changes nothing" {
	bad hcall:t=$T,a=$MB@o:0:0
	assert_success
	assert_line --regexp "^hcall ret=0 "
	assert_line "unchanged"
	# validation comes first
	bad hcall:t=$T,a=$MB/0@o:0:0
	bad_is hcall EINVAL
	bad hcall:t=$UNK,a=$BND/1@o:0:0
	bad_is hcall EINVAL
	bad hcall:t=$UNK,a=$MIG/0/0@o:0:0
	bad_is hcall ENODEV
	bad hcall:t=$T,ap=bad,a=$MB@o:0:0
	bad_is hcall EFAULT
}

@test "a hole at the head, middle, tail or all of the range: EFAULT before any command runs" {
	local hole
	for hole in 0+1 8+1 15+1 4+8; do
		hb -n 16 mbind:bind:$H touch mbind:prefer:$H unmap@$hole snap hcall:t=$T,a=$MB same
		bad_is hcall EFAULT
		hb -n 16 mbind:bind:$H touch mbind:prefer:$H unmap@$hole snap hcall:t=$T,a=$QRY/0/Q/$MB same
		bad_is hcall EFAULT
	done
	hb -n 16 unmap hcall:t=$T,a=$MB
	assert_success
	assert_line "hcall errno=EFAULT"
}

@test "DEFAULT over a hole: EFAULT (hbind checks the whole range; mbind(MPOL_DEFAULT) skips holes)" {
	hb -n 16 mbind:prefer:$H unmap@8+1 snap default same mbind:default getpol
	assert_success
	assert_line "default errno=EFAULT"
	assert_line "unchanged"
	assert_line "mbind ok"
	assert_line "policy 0-7:default 8:EFAULT 9-15:default"
}

@test "BIND or DEFAULT whose range would split a hugetlb page: EINVAL before any change; mbind() fails after changing the VMA before it" {
	local nr
	nr=$(cat /proc/sys/vm/nr_hugepages)
	echo 2 > /proc/sys/vm/nr_hugepages
	[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 1 ] || skip "no huge page could be reserved"
	# 2 MiB of base pages, then a 2 MiB hugetlb page: the range ends one
	# page into the huge page, or starts one page into it
	hb -n 1024 -m hugetlb mbind:prefer:$H@0+512 snap@0+513 bind:$T@0+513 default@0+513 \
		hcall:t=$T,a=$DEF/$BND/1@0+513 bind:$T:strict@513+511 same@0+513 \
		mbind:bind:$TN@0+513 getpol@0+1
	echo "$nr" > /proc/sys/vm/nr_hugepages
	assert_success
	assert_line "bind errno=EINVAL"
	assert_line "default errno=EINVAL"
	assert_line "hcall errno=EINVAL"
	[ "$(grep -c '^bind errno=EINVAL$' <<< "$output")" = 2 ] || fail "a range starting inside the huge page was accepted: $output"
	assert_line "unchanged"
	assert_line "mbind errno=EINVAL"
	assert_line --regexp "^policy 0:bind:$TN\$"
}

@test "BIND or DEFAULT over [vvar] and the first page of [vdso] (a special mapping that cannot split): EINVAL before any change; mbind() changes [vvar] first" {
	hb -n 16 snap@vdso bind:$T@vdso default@vdso same@vdso mbind:bind:$TN@vdso getpol@vdso
	assert_success
	assert_line "bind errno=EINVAL"
	assert_line "default errno=EINVAL"
	assert_line "unchanged"
	assert_line "mbind errno=EINVAL"
	assert_line --regexp "^policy 0(-[0-9]+)?:bind:$TN [0-9]+:default\$"
}

@test "QUERY buffer in kernel space: EFAULT before any command; NULL or unmapped: EFAULT" {
	bad hcall:t=$T,a=$MB/$QRY/0/QK
	bad_is hcall EFAULT
	bad hcall:t=$T,a=$QRY/0/QK/$MB
	bad_is hcall EFAULT
	bad hcall:a=$QRY/0/QB
	bad_is hcall EFAULT
	bad hcall:a=$QRY/0/QN
	bad_is hcall EFAULT
}

@test "validation order: range, then copies, then atoms, then targets, then holes" {
	# unaligned start (2) before a bad atoms pointer (3)
	bad hcall:t=$T,ap=bad,a=$MB@o:1:4096
	bad_is hcall EINVAL
	# natoms over the limit (1) before a bad atoms pointer (3)
	bad hcall:t=$T,ap=bad,na=257
	bad_is hcall EINVAL
	# a bad targets pointer (3) before an unknown command (4)
	bad hcall:t=$T,tp=bad,a=$(atom 0x7f 0)
	bad_is hcall EFAULT
	# an unknown flag (4) before an unknown uid (5)
	bad hcall:t=$UNK,a=$MIG/0x2/0
	bad_is hcall EINVAL
	# an unknown uid (5) before a hole (7)
	hb -n 16 mbind:bind:$H touch mbind:prefer:$H unmap@8+1 snap hcall:t=$UNK,a=$MIG/0/0 same
	bad_is hcall ENODEV
	# a bad flag (4) before a hole (7)
	hb -n 16 mbind:bind:$H touch mbind:prefer:$H unmap@8+1 snap hcall:t=$T,a=$BND/0x4 same
	bad_is hcall EINVAL
}

@test "the whole stream is validated before the first command runs" {
	bad hcall:t=$T,a=$MB/$BND/0x4
	bad_is hcall EINVAL
	bad hcall:t=$UNK,a=$DEF/$MIG/0/0
	bad_is hcall ENODEV
	bad hcall:a=$DEF/$QRY/0x1/Q
	bad_is hcall EINVAL
	bad hcall:t=$T,a=$DEF/$MIG/0/0/$(atom 3 2)/0
	bad_is hcall EINVAL
}

# ---------------------------------------------------------------- parity

# res OP...: run hbind-do on 16 fresh pages of HB_HOME; the result of its last
# line: 0, an errno name, or st:... (move_pages per-page status)
res() {
	local l
	run hbind-do -c "$HB_CPU" -n 16 "$@"
	l=$(printf '%s\n' "$output" | tail -1)
	case $l in
	*errno=*) l=${l#*errno=}; echo "${l%% *}" ;;
	"move ret=0 none") echo 0 ;;
	"move ret=0 "*) echo "st:${l#move ret=0 }" ;;
	*" ok" | "hcall ret=0"* | "migrate moved="*) echo 0 ;;
	*) echo "?(${l:-status $status})" ;;
	esac
}

@test "a command after the first checks the range again: a hole made while QUERY copies out fails a later BIND, DEFAULT or MIGRATE with EFAULT, and BIND binds nothing" {
	local c
	# hbind-race: [QUERY, CMD] over 8 pages; QUERY's buffer faults into a
	# userfaultfd handler that unmaps page 4 before it lets QUERY finish
	for c in bind default migrate; do
		run hbind-race -u "$T" hole $c
		assert_success
		if [ $c = bind ]; then
			assert_output "hole bind: EFAULT bound 0"
		else
			assert_output "hole $c: EFAULT"
		fi
	done
}

@test "a BIND after QUERY whose range came to end inside a hugetlb page meanwhile: EINVAL, nothing bound (mbind() binds the VMA before the huge page)" {
	local nr
	nr=$(cat /proc/sys/vm/nr_hugepages)
	echo 2 > /proc/sys/vm/nr_hugepages
	[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 1 ] || fail "no huge page could be reserved"
	run hbind-race -u "$T" split
	echo "$nr" > /proc/sys/vm/nr_hugepages
	assert_success
	assert_output "split bind: EINVAL bound 0"
}

@test "errno parity with mbind() and move_pages() on the bad inputs they share" {
	local N=$H U=${HB_UID[$H]} nomem n rows=() bad_rows=() gh gm gp
	for n in $(seq 0 63); do
		case " $(mem_nodes) " in *" $n "*) ;; *) nomem=$n; break ;; esac
	done
	# row NAME WANT_H GOT_H WANT_M GOT_M WANT_P GOT_P ('-' = not applicable,
	# '=m' = whatever mbind returns)
	row() {
		local w1=${2//=m/$5}
		rows+=("$(printf '%-38s %-10s %-10s %-14s' "$1" "$3" "$5" "$7")")
		# WANT_H may list alternatives: A|B
		[[ "|$w1|" == *"|$3|"* ]] && [ "$4" = "$5" ] && [ "$6" = "$7" ] ||
			bad_rows+=("$1: hbind $3 (want $w1), mbind $5 (want $4), move_pages $7 (want $6)")
	}
	gh=$(res bind:$U:strict@o:1:4096); gm=$(res mbind:bind:$N@o:1:4096)
	row "unaligned start" EINVAL "$gh" EINVAL "$gm" - -
	gh=$(res bind:$U:strict@o:1:0); gm=$(res mbind:bind:$N@o:1:0)
	row "unaligned start, len 0" EINVAL "$gh" EINVAL "$gm" - -
	gh=$(res bind:$U:strict@o:0:-8192); gm=$(res mbind:bind:$N@o:0:-8192)
	row "start + len wraps around" EINVAL "$gh" EINVAL "$gm" - -
	gh=$(res bind:$U:strict@o:0:0); gm=$(res mbind:bind:$N@o:0:0); gp=$(res move:$N@o:0:0)
	row "len 0 (no-op)" 0 "$gh" 0 "$gm" 0 "$gp"
	gh=$(res bind:$U:strict@o:0:-1); gm=$(res mbind:bind:$N@o:0:-1)
	# BRIEF: PAGE_ALIGN(len) (-> 0, mbind's answer) but also "beyond
	# TASK_SIZE -> EINVAL": either is accepted, the table shows which
	row "len ULONG_MAX (page-aligns to 0)" "EINVAL|=m" "$gh" 0 "$gm" - -
	gh=$(res bind:$U:strict@a:0x800000000000:4096); gm=$(res mbind:bind:$N@a:0x800000000000:4096)
	gp=$(res move:$N@a:0x800000000000:4096)
	# BRIEF: "beyond TASK_SIZE -> EINVAL... follow mbind exactly"
	row "range above TASK_SIZE" "EINVAL|=m" "$gh" "$gm" "$gm" st:EFAULT=1 "$gp"
	gh=$(res unmap@8+1 bind:$U:strict); gm=$(res unmap@8+1 mbind:bind:$N)
	gp=$(res unmap@8+1 move:$N@8+1)
	row "hole in the range" EFAULT "$gh" EFAULT "$gm" st:EFAULT=1 "$gp"
	gh=$(res unmap bind:$U:strict); gm=$(res unmap mbind:bind:$N); gp=$(res unmap move:$N)
	row "range not mapped at all" EFAULT "$gh" EFAULT "$gm" st:EFAULT=16 "$gp"
	gh=$(res unmap@8+1 default); gm=$(res unmap@8+1 mbind:default)
	row "hole, DEFAULT (documented difference)" EFAULT "$gh" 0 "$gm" - -
	gh=$(res hcall:t=$U,tp=bad,a=$BND/1); gm=$(res mbind:bind:bad); gp=$(res move:$N:badnodes)
	row "node/target array unmapped" EFAULT "$gh" EFAULT "$gm" EFAULT "$gp"
	gh=$(res hcall:t=$U,tp=kernel,a=$BND/1); gm=$(res mbind:bind:kernel)
	row "node/target array in kernel space" EFAULT "$gh" EFAULT "$gm" - -
	gh=$(res touch hcall:a=$QRY/0/QB); gp=$(res touch move:$N:badstatus)
	row "result buffer unmapped" EFAULT "$gh" - - EFAULT "$gp"
	gh=$(res bind:-); gm=$(res mbind:bind:-)
	row "empty node/target set, bind" EINVAL "$gh" EINVAL "$gm" - -
	gh=$(res bind:$UNK:strict); gm=$(res mbind:bind:$nomem)
	row "unknown uid / node $nomem, bind" EINVAL "$gh" EINVAL "$gm" - -
	gh=$(res migrate:$UNK); gp=$(res move:$nomem)
	row "unknown uid / node $nomem, move" ENODEV "$gh" - - ENODEV "$gp"
	gh=$(res bind:$U:0x4); gm=$(res mbind:bind:$N:0x100); gp=$(res move:$N:0x100)
	row "unknown flag bits" EINVAL "$gh" EINVAL "$gm" EINVAL "$gp"
	gh=$(res nocap migrate:$U:all); gm=$(res nocap mbind:bind:$N:moveall)
	gp=$(res nocap move:$N:all)
	row "move-all without CAP_SYS_NICE" EPERM "$gh" EPERM "$gm" EPERM "$gp"

	hb_log "$(printf '%-38s %-10s %-10s %-14s' "bad input" hbind mbind move_pages)"
	hb_log "${rows[@]}"
	[ ${#bad_rows[@]} -eq 0 ] || fail "$(printf '%s\n' "${bad_rows[@]}")"
}
