#!/usr/bin/env bats
# hbind() from a 32-bit program (IA32_EMULATION; tests/guest/helpers/compat32.c,
# built static for i386): every command works as from a 64-bit program and
# matches mbind()/move_pages() on the same kind of range, and a QUERY buffer
# or INTERLEAVE weights address whose high word is set fails with EINVAL,
# changing nothing (uapi/hbind.2: a 32-bit caller's malformed stream).
# compat32 prints one "ok:"/"FAIL:" line per check.

setup() {
	load common
	load hbind-common
	hb_setup
	need_mem_nodes 2
	[ -x "$HMS_BIN/compat32" ] || fail "no $HMS_BIN/compat32 (tests/guest/helpers)"
}

# c32 CASE: run compat32 on a CPU of HB_HOME, toward HB_OTHER
c32() {
	run taskset -c "$HB_CPU" compat32 "$1" "$HB_HOME" "$HB_OTHER"
	printf '%s\n' "$output" | sed 's/^/# /' >&3
	[ "$status" -ne 77 ] || fail "hbind() is missing for 32-bit callers: $output"
	assert_success
	refute_line --partial "FAIL:"
}

@test "a 32-bit static program runs on the 64-bit guest kernel and reaches hbind() (syscall 500)" {
	c32 abi
	assert_line --partial "ok: a 32-bit program"
	assert_line --regexp "^ok: hbind \(syscall 500\) DEFAULT on one page"
}

@test "32-bit BIND strict: MPOL_BIND on the target's node and placement, as mbind() gives" {
	c32 bind
	assert_line --partial "ok: same policy as mbind's"
}

@test "32-bit MIGRATE: every page moves, the moved count is written back, as move_pages() moves them" {
	c32 migrate
	assert_line --partial "ok: moved count written back: 16"
}

@test "32-bit QUERY: the buffer (low word, high word 0) gets each page's target uid or -ENOENT, as move_pages() reports" {
	c32 query
	assert_line --partial "ok: QUERY: 8 pages on target"
}

@test "32-bit DEFAULT drops a BIND policy, like mbind(MPOL_DEFAULT)" {
	c32 default
	assert_line --partial "ok: policy after hbind DEFAULT: mode 0"
}

@test "32-bit BIND+MIGRATE+QUERY+DEFAULT in one stream" {
	c32 stream
	assert_line --partial "ok: MIGRATE moved 16"
}

@test "32-bit QUERY pointer with a high word (1, 0x80000000, 0xffffffff): EINVAL, nothing runs, buffer unwritten; 0 runs" {
	c32 highword
	assert_line "ok: MIGRATE + QUERY with high word 0x1: EINVAL (want EINVAL)"
	assert_line "ok: MIGRATE + QUERY with high word 0xffffffff: EINVAL (want EINVAL)"
	assert_line --partial "ok: with high word 0 it runs"
}

@test "32-bit INTERLEAVE: the weights at a 32-bit pointer give the 1:3 placement; a high word in that pointer is EINVAL, no policy set" {
	c32 interleave
	assert_line --partial "ok: INTERLEAVE, weights pointer with high word 0x1: EINVAL"
	assert_line --partial "ok:   the range keeps no policy"
	assert_line --regexp "^ok: INTERLEAVE weights 1:3: 4 pages on node [0-9]+, 12 on node"
}
