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
 * Usage: copy-bench (no arguments)
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "hbtest.h"

#define LEN	(64UL << 20)
#define BLOCK	(2UL << 20)
#define SHIFT	4096UL
#define MAPLEN	(LEN + BLOCK + SHIFT)

/* LEN + SHIFT bytes on @node, 2 MiB aligned */
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

int main(void)
{
	char *s = on_node(0), *d0 = on_node(1);
	uint64_t t[5];
	int r, k;

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
	return 0;
}
