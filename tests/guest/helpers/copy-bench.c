// SPDX-License-Identifier: GPL-2.0
/*
 * copy-bench - how fast the guest copies 64 MiB from a buffer on node 0 to
 * one on node 1 (4 KiB pages, both touched first) with glibc's memcpy(),
 * rep movsq (copy_page() with REP_GOOD), rep movsb (copy_mc_to_kernel()
 * with ERMS) and an 8-register loop (copy_page_regs()): under QEMU TCG the
 * string instructions are emulated an iteration at a time. Three rounds,
 * each twice: the destination at the same offset in its 2 MiB block as the
 * source (as the kernel copies a THP: both folios are 2 MiB aligned), and
 * 4 KiB further. QEMU's software TLB is direct-mapped by virtual page
 * number: when the source and destination pages share an entry, a copy
 * that alternates loads and stores evicts one with the other at every
 * access.
 * Then rep movsb again, 2 MiB at a time, the destination at the same offset
 * and 2 MiB further, without and with a full TLB flush of this CPU between
 * blocks (an mprotect() of 64 present pages: more than the kernel flushes
 * page by page, so it reloads CR3). QEMU sizes its TLB when it flushes it
 * whole: it doubles a TLB that was more than 70 % used, and shrinks one
 * that was less than 30 % used for 100 ms. Without such flushes the TLB
 * keeps the size it had when the copy began.
 * Usage: copy-bench (no arguments)
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "hbtest.h"

#define LEN	(64UL << 20)
#define BLOCK	(2UL << 20)
#define SHIFT	4096UL
#define MAPLEN	(LEN + 3 * BLOCK)
#define FLUSHLEN	(64UL * 4096)

/* LEN + 2 * BLOCK bytes on @node, 2 MiB aligned */
static char *on_node(int node)
{
	unsigned long mask = 1UL << node;
	char *p = mmap(NULL, MAPLEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || madvise(p, MAPLEN, MADV_NOHUGEPAGE) ||
	    sys_mbind((unsigned long)p, MAPLEN, HB_MPOL_BIND, &mask, HB_MAXNODE, 0)) {
		perror("copy-bench: mmap/madvise/mbind");
		exit(1);
	}
	memset(p, 1, MAPLEN);
	return (char *)(((uintptr_t)p + BLOCK - 1) & ~(BLOCK - 1));
}

static void movsq(void *d, const void *s, size_t n)
{
	size_t c = n / 8;

	asm volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
}

static void movsb(void *d, const void *s, size_t n)
{
	asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static void regs(void *d, const void *s, size_t n)
{
	uint64_t *a = d;
	const volatile uint64_t *b = s;
	size_t i;

	for (i = 0; i < n / 8; i += 8) {
		uint64_t x0 = b[i], x1 = b[i + 1], x2 = b[i + 2], x3 = b[i + 3];
		uint64_t x4 = b[i + 4], x5 = b[i + 5], x6 = b[i + 6], x7 = b[i + 7];

		a[i] = x0; a[i + 1] = x1; a[i + 2] = x2; a[i + 3] = x3;
		a[i + 4] = x4; a[i + 5] = x5; a[i + 6] = x6; a[i + 7] = x7;
	}
}

/* a full TLB flush of this CPU: protection changes of 64 present pages */
static void flush_tlb(char *f)
{
	if (mprotect(f, FLUSHLEN, PROT_READ) ||
	    mprotect(f, FLUSHLEN, PROT_READ | PROT_WRITE)) {
		perror("copy-bench: mprotect");
		exit(1);
	}
}

/* rep movsb of LEN bytes, a block at a time; flush between blocks if @f */
static double movsb_blocks(char *d, const char *s, char *f)
{
	uint64_t t0 = hb_now_ns();
	unsigned long off;

	for (off = 0; off < LEN; off += BLOCK) {
		movsb(d + off, s + off, BLOCK);
		if (f)
			flush_tlb(f);
	}
	return (hb_now_ns() - t0) / 1e6;
}

int main(void)
{
	char *s = on_node(0), *d0 = on_node(1);
	char *f = mmap(NULL, FLUSHLEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	uint64_t t[5];
	int r, k;

	if (f == MAP_FAILED) {
		perror("copy-bench: mmap");
		return 1;
	}

	for (r = 0; r < 3; r++) {
		for (k = 0; k < 2; k++) {
			char *d = d0 + k * SHIFT;

			t[0] = hb_now_ns();
			memcpy(d, s, LEN);
			t[1] = hb_now_ns();
			movsq(d, s, LEN);
			t[2] = hb_now_ns();
			movsb(d, s, LEN);
			t[3] = hb_now_ns();
			regs(d, s, LEN);
			t[4] = hb_now_ns();
			printf("64 MiB node 0 -> 1, %s: memcpy %.1f ms, rep movsq %.1f ms, "
			       "rep movsb %.1f ms, 8-register loop %.1f ms\n",
			       k ? "destination 4 KiB further" : "same offset in 2 MiB",
			       (t[1] - t[0]) / 1e6, (t[2] - t[1]) / 1e6,
			       (t[3] - t[2]) / 1e6, (t[4] - t[3]) / 1e6);
		}
	}
	for (r = 0; r < 3; r++) {
		for (k = 0; k < 2; k++) {
			char *d = d0 + k * BLOCK;
			double plain = movsb_blocks(d, s, NULL);

			printf("64 MiB node 0 -> 1, rep movsb 2 MiB at a time, %s: "
			       "%.1f ms, with a full TLB flush after each block "
			       "%.1f ms\n",
			       k ? "destination 2 MiB further" :
				   "same offset in 2 MiB",
			       plain, movsb_blocks(d, s, f));
		}
	}
	return 0;
}
