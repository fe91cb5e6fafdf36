// SPDX-License-Identifier: GPL-2.0
/*
 * hbind-bench - time hbind(MIGRATE) against move_pages(), mbind(MPOL_MF_MOVE)
 * and migrate_pages() moving the same pages from node A to node B, for
 * several sizes, with 4 KiB pages and with THP; and the latency of a
 * single-page hbind(BIND) and hbind(DEFAULT) against mbind(), and of QUERY
 * (16 MiB and one page) against move_pages(nodes=NULL); and first touch in a
 * range set by hbind INTERLEAVE against one set by
 * mbind(MPOL_WEIGHTED_INTERLEAVE) with the same weights in the global sysfs
 * table; and, on another process (a pidfd), QUERY of a 1 GiB range against
 * move_pages(pid, nodes=NULL) and MIGRATE of the whole process
 * (MIGRATE_WHOLE|FROM) against migrate_pages(pid). Each MIGRATE row also times memcpy() of the same bytes from node A
 * to a buffer on node B, and a second table times first touch in a range
 * bound with hbind BIND against one bound with mbind. Prints figures,
 * asserts nothing about times; it only checks that every method really
 * moved the pages (a row whose pages did not all arrive is marked with '!').
 *
 * Usage: hbind-bench [-a NODE] [-b NODE] [-s 1,4,16,64,256|none] [-r REPS]
 *                    [-l LATREPS] [-k 4k|thp|both] [-q MIB] [-w MIB]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "hbtest.h"

#define MIB		(1024UL * 1024UL)
#define THP_SIZE	(2 * MIB)
#define MAX_REPS	64

/*
 * The methods of a row. hbind MIGRATE: with the "cpus" copy provider of
 * migrate_pages() on for its call (/sys/kernel/debug/migrate_copy/cpus/
 * reasons: syscall_or_cpuset; off by default), where the kernel has it;
 * hbind 1 CPU: hbind MIGRATE as it runs by default, the caller copying;
 * the other methods run as by default, the provider off;
 * memcpy copies the same bytes, it moves nothing.
 */
enum method {
	M_HBIND, M_MOVE_PAGES, M_MBIND, M_MIGRATE_PAGES, M_HBIND_1CPU, M_MEMCPY,
	M_NR
};
static const char *const mname[M_NR] = {
	"hbind MIGRATE", "move_pages()", "mbind(MF_MOVE)", "migrate_pages()",
	"hbind 1 CPU", "memcpy A->B",
};
#define COPIER "/sys/kernel/debug/migrate_copy/cpus/reasons"

static long PS;
static int node_a, node_b = 1;
static long uid_a = -1, uid_b = -1;
static int have_hbind, have_knob;

struct region {
	char *base;
	size_t len, npages;
	void **ptrs;
	int *nodes_a, *nodes_b, *status;
};

static void __attribute__((noreturn)) die(const char *msg)
{
	fprintf(stderr, "hbind-bench: %s: %s\n", msg, strerror(errno));
	exit(1);
}

static int region_map(struct region *r, size_t len, int thp)
{
	char *p;
	uintptr_t a;
	size_t i;

	p = mmap(NULL, len + THP_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	a = ((uintptr_t)p + THP_SIZE - 1) & ~(THP_SIZE - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	munmap((char *)a + len, (uintptr_t)p + THP_SIZE - a);
	r->base = (char *)a;
	r->len = len;
	r->npages = len / PS;
	if (madvise(r->base, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		return -1;
	r->ptrs = malloc(r->npages * sizeof(void *));
	r->nodes_a = malloc(r->npages * sizeof(int));
	r->nodes_b = malloc(r->npages * sizeof(int));
	r->status = malloc(r->npages * sizeof(int));
	if (!r->ptrs || !r->nodes_a || !r->nodes_b || !r->status)
		die("malloc");
	for (i = 0; i < r->npages; i++) {
		r->ptrs[i] = r->base + i * PS;
		r->nodes_a[i] = node_a;
		r->nodes_b[i] = node_b;
	}
	return 0;
}

static void region_unmap(struct region *r)
{
	munmap(r->base, r->len);
	free(r->ptrs);
	free(r->nodes_a);
	free(r->nodes_b);
	free(r->status);
}

/* pages of the region on @node (move_pages query) */
static size_t count_on(struct region *r, int node)
{
	size_t i, n = 0;

	if (sys_move_pages(0, r->npages, r->ptrs, NULL, r->status, 0))
		die("move_pages(query)");
	for (i = 0; i < r->npages; i++)
		n += r->status[i] == node;
	return n;
}

/* bring every page back to node A, untimed; returns pages on A */
static size_t replace(struct region *r)
{
	if (sys_move_pages(0, r->npages, r->ptrs, r->nodes_a, r->status, 0) < 0)
		die("move_pages(re-place)");
	return count_on(r, node_a);
}

/*
 * memcpy of the region's bytes into a buffer of the same size and page kind
 * on node B, mapped and touched untimed (bound to B) before the copy and
 * unmapped after it, so that node B never holds it and the moved region at
 * once. Returns ns; *moved = r->npages when every destination page was on B
 * and the copy is intact, else 0.
 */
static uint64_t timed_memcpy(struct region *r, int thp, size_t *moved)
{
	unsigned long mb = 1UL << node_b;
	struct region d;
	uint64_t t0, t1;
	size_t i;

	if (region_map(&d, r->len, thp))
		die("mmap/madvise (memcpy destination)");
	if (sys_mbind((unsigned long)d.base, d.len, HB_MPOL_BIND, &mb, HB_MAXNODE, 0))
		die("mbind(MPOL_BIND) (memcpy destination)");
	for (i = 0; i < d.npages; i++)
		d.base[i * PS] = 0;
	t0 = hb_now_ns();
	memcpy(d.base, r->base, r->len);
	t1 = hb_now_ns();
	*moved = count_on(&d, node_b) == d.npages &&
		 !memcmp(d.base, r->base, r->len) ? r->npages : 0;
	region_unmap(&d);
	return t1 - t0;
}

/* the "cpus" copy provider on or off for system calls; 0 when done */
static int set_copier(int on)
{
	FILE *f = fopen(COPIER, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(on ? "syscall_or_cpuset" : "none", f) >= 0;
	return fclose(f) || !ok ? -1 : 0;
}

/*
 * The copy helpers run only on CPUs the caller may run on: for the hbind
 * MIGRATE column the caller (pinned by bench.sh) may run on every CPU
 * during the call, as a program that does not pin itself; @on: widen,
 * else restore the pinning
 */
static void widen_affinity(int on)
{
	static cpu_set_t pinned;
	cpu_set_t all;
	int i;

	if (on) {
		sched_getaffinity(0, sizeof(pinned), &pinned);
		CPU_ZERO(&all);
		for (i = 0; i < CPU_SETSIZE; i++)
			CPU_SET(i, &all);
		sched_setaffinity(0, sizeof(all), &all);
	} else {
		sched_setaffinity(0, sizeof(pinned), &pinned);
	}
}

/* one timed move A -> B; returns ns, *moved = pages found on B after */
static uint64_t timed_move(struct region *r, enum method m, size_t *moved)
{
	unsigned long ma = 1UL << node_a, mb = 1UL << node_b;
	uint32_t tgt = (uint32_t)uid_b;
	uint32_t atoms[3] = { HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), 0, 0 };
	uint64_t t0, t1;
	long ret = 0;

	if (m == M_HBIND) {
		if (have_knob)
			set_copier(1);
		widen_affinity(1);
	}
	t0 = hb_now_ns();
	switch (m) {
	case M_HBIND:
	case M_HBIND_1CPU:
		ret = sys_hbind((unsigned long)r->base, r->len, &tgt, 1, atoms, 3);
		break;
	case M_MOVE_PAGES:
		ret = sys_move_pages(0, r->npages, r->ptrs, r->nodes_b, r->status, 0);
		break;
	case M_MBIND:
		ret = sys_mbind((unsigned long)r->base, r->len, HB_MPOL_BIND, &mb,
				HB_MAXNODE, HB_MPOL_MF_MOVE);
		break;
	case M_MIGRATE_PAGES:
		ret = sys_migrate_pages(0, HB_MAXNODE, &ma, &mb);
		break;
	default:
		break;
	}
	t1 = hb_now_ns();
	if (m == M_HBIND) {
		widen_affinity(0);
		if (have_knob)
			set_copier(0);
	}
	if (ret < 0) {
		fprintf(stderr, "hbind-bench: %s: %s\n", mname[m], strerror(errno));
		*moved = 0;
		return t1 - t0;
	}
	if (m == M_MBIND &&
	    sys_mbind((unsigned long)r->base, r->len, HB_MPOL_DEFAULT, NULL, 0, 0))
		die("mbind(MPOL_DEFAULT)");
	*moved = count_on(r, node_b);
	return t1 - t0;
}

static unsigned long thp_kb(struct region *r)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	unsigned long s, e, kb, total = 0;
	int in = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, ' ') &&
		    strchr(line, '-') < strchr(line, ' '))
			in = s < (unsigned long)r->base + r->len && e > (unsigned long)r->base;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			total += kb;
	}
	fclose(f);
	return total;
}

/* median, lowest and highest of hbind's time over @m's, round by round */
static void paired(uint64_t t[M_NR][MAX_REPS], enum method m, int reps,
		   uint64_t *med, uint64_t *lo, uint64_t *hi)
{
	uint64_t q[MAX_REPS];
	int k;

	/* per mille: a slow stretch of the machine hits both sides of a pair */
	for (k = 0; k < reps; k++)
		q[k] = t[M_HBIND][k] * 1000 / (t[m][k] ? t[m][k] : 1);
	*med = hb_median(q, reps);
	*lo = *hi = q[0];
	for (k = 1; k < reps; k++) {
		if (q[k] < *lo)
			*lo = q[k];
		if (q[k] > *hi)
			*hi = q[k];
	}
}

static void bench_size(unsigned long mib, int thp, int reps)
{
	uint64_t med[M_NR] = { 0 }, t[M_NR][MAX_REPS], best = UINT64_MAX;
	uint64_t pmed, plo, phi;
	int ok[M_NR] = { 0 }, n[M_NR] = { 0 };
	unsigned long thpkb[M_NR] = { 0 };
	struct region r;
	unsigned long mask = 1UL << node_a;
	size_t i;
	int m, k, j;

	printf("%-4s %5luMiB", thp ? "THP" : "4K", mib);
	if (thp && mib * MIB < THP_SIZE) {
		printf("  (smaller than a huge page: skipped)\n");
		return;
	}
	if (region_map(&r, mib * MIB, thp))
		die("mmap/madvise");
	/* first placement: bind to A, touch, drop the policy */
	if (sys_mbind((unsigned long)r.base, r.len, HB_MPOL_BIND, &mask, HB_MAXNODE, 0))
		die("mbind(MPOL_BIND)");
	for (i = 0; i < r.npages; i++)
		r.base[i * PS] = (char)i;
	if (sys_mbind((unsigned long)r.base, r.len, HB_MPOL_DEFAULT, NULL, 0, 0))
		die("mbind(MPOL_DEFAULT)");

	for (m = 0; m < M_NR; m++)
		ok[m] = ((m == M_HBIND && !have_hbind) ||
			 (m == M_HBIND_1CPU && !have_knob)) ? -1 : 1;
	/*
	 * One untimed round first: the first migration after boot pays for
	 * warming up (per-cpu lists, the allocator on node B, code not yet
	 * translated under TCG), whichever method makes it.
	 */
	for (m = 0; m < M_NR; m++) {
		size_t moved;

		if (ok[m] < 0)
			continue;
		replace(&r);
		if (m == M_MEMCPY)
			timed_memcpy(&r, thp, &moved);
		else
			timed_move(&r, m, &moved);
	}
	/*
	 * Round robin: repetition k of every method runs before repetition
	 * k + 1 of any, so that a noisy stretch of the machine hits all the
	 * methods alike instead of one of them; and repetition k starts with
	 * method k, so that no method always runs first or after the same one.
	 */
	for (k = 0; k < reps; k++) {
		for (j = 0; j < M_NR; j++) {
			size_t moved;

			m = (j + k) % M_NR;
			if (ok[m] < 0)
				continue;
			if (replace(&r) != r.npages)
				ok[m] = 0;	/* could not re-place: node A full */
			if (m == M_MEMCPY)
				t[m][n[m]++] = timed_memcpy(&r, thp, &moved);
			else
				t[m][n[m]++] = timed_move(&r, m, &moved);
			if (moved != r.npages)
				ok[m] = 0;
			if (k == 0 && m != M_MEMCPY)
				thpkb[m] = thp_kb(&r);
		}
	}
	/* the best of the methods that move pages (memcpy moves none) */
	for (m = 0; m < M_NR; m++) {
		if (ok[m] < 0)
			continue;
		med[m] = hb_median(t[m], n[m]);
		if (m != M_MEMCPY && med[m] < best)
			best = med[m];
	}
	for (m = 0; m < M_NR; m++) {
		if (ok[m] < 0)
			printf(" | %22s", "n/a");
		else
			printf(" | %9.2fms (x%5.2f)%s", med[m] / 1e6,
			       (double)med[m] / (double)best, ok[m] ? " " : "!");
	}
	if (thp) {
		printf(" | THP after move:");
		for (m = 0; m < M_MEMCPY; m++)
			if (ok[m] >= 0)
				printf(" %lu", thpkb[m] / 1024);
		printf(" MiB");
	}
	if (have_hbind) {
		uint64_t bp = UINT64_MAX;

		/*
		 * hbind over memcpy, then over each peer and hbind 1 CPU:
		 * median (lowest-highest)
		 */
		printf(" | paired:");
		for (j = 0; j < M_NR - 1; j++) {
			m = j ? j : M_MEMCPY;
			if (ok[m] < 0)
				continue;
			paired(t, m, reps, &pmed, &plo, &phi);
			printf(" x%.2f (%.2f-%.2f)", pmed / 1000.0, plo / 1000.0,
			       phi / 1000.0);
		}
		for (m = M_MOVE_PAGES; m < M_HBIND_1CPU; m++)
			if (med[m] < bp)
				bp = med[m];
		printf(" | best peer / hbind x%.2f",
		       (double)bp / (double)(med[M_HBIND] ? med[M_HBIND] : 1));
	}
	printf("\n");
	fflush(stdout);
	region_unmap(&r);
}

/*
 * First touch of a fresh range bound to node B, one byte per page (timed:
 * the faults only): with hbind BIND to B's target, or mbind(MPOL_BIND, B).
 * Returns ns; *placed = pages found on B after.
 */
static uint64_t timed_touch(unsigned long mib, int thp, int use_hbind,
			    size_t *placed)
{
	uint32_t atoms[2] = { HBIND_ATOM(HBIND_CMD_BIND, 1), 0 };
	uint32_t tgt = (uint32_t)uid_b;
	unsigned long mb = 1UL << node_b;
	struct region r;
	uint64_t t0, t1;
	size_t i;

	if (region_map(&r, mib * MIB, thp))
		die("mmap/madvise");
	if (use_hbind ? sys_hbind((unsigned long)r.base, r.len, &tgt, 1, atoms, 2) :
	    sys_mbind((unsigned long)r.base, r.len, HB_MPOL_BIND, &mb, HB_MAXNODE, 0))
		die(use_hbind ? "hbind(BIND)" : "mbind(MPOL_BIND)");
	t0 = hb_now_ns();
	for (i = 0; i < r.npages; i++)
		r.base[i * PS] = 1;
	t1 = hb_now_ns();
	*placed = count_on(&r, node_b);
	region_unmap(&r);
	return t1 - t0;
}

/* first touch in an hbind BIND range vs an mbind(MPOL_BIND) range */
static void bench_touch(unsigned long mib, int thp, int reps)
{
	uint64_t t[2][MAX_REPS], q[MAX_REPS], med[2], lo, hi;
	int ok[2] = { 1, 1 }, k, o;

	printf("%-4s %5luMiB", thp ? "THP" : "4K", mib);
	if (!have_hbind || (thp && mib * MIB < THP_SIZE)) {
		printf("  (%s: skipped)\n", have_hbind ?
		       "smaller than a huge page" : "no hbind");
		return;
	}
	/* one untimed round of each, then rounds in which who goes first alternates */
	for (k = -1; k < reps; k++) {
		for (o = 0; o < 2; o++) {
			int h = o ^ (k & 1);	/* 1: hbind */
			uint64_t ns;
			size_t placed;

			ns = timed_touch(mib, thp, h, &placed);
			if (k < 0)
				continue;
			t[!h][k] = ns;
			if (placed != mib * MIB / PS)
				ok[!h] = 0;
		}
	}
	for (o = 0; o < 2; o++)
		med[o] = hb_median(t[o], reps);
	for (k = 0; k < reps; k++)
		q[k] = t[0][k] * 1000 / (t[1][k] ? t[1][k] : 1);
	lo = hi = q[0];
	for (k = 1; k < reps; k++) {
		lo = q[k] < lo ? q[k] : lo;
		hi = q[k] > hi ? q[k] : hi;
	}
	printf(" | %9.2fms%s | %9.2fms%s | paired x%.3f (%.3f-%.3f)\n",
	       med[0] / 1e6, ok[0] ? " " : "!", med[1] / 1e6, ok[1] ? " " : "!",
	       hb_median(q, reps) / 1000.0, lo / 1000.0, hi / 1000.0);
}

/* "  NAME   TIME (xRATIO)" for hbind and its peer, ratio to the faster */
static void print_pair(const char *hname, uint64_t h, const char *pname,
		       uint64_t p)
{
	uint64_t best = have_hbind && h < p ? h : p;

	if (have_hbind)
		printf("  %-22s %8.2fus (x%4.2f)\n", hname, h / 1e3,
		       (double)h / (double)best);
	else
		printf("  %-22s n/a\n", hname);
	printf("  %-22s %8.2fus (x%4.2f)\n", pname, p / 1e3,
	       (double)p / (double)best);
}

/* time hbind DEFAULT on page @ph and mbind(MPOL_DEFAULT) on @pm, in order */
static void time_default(unsigned long ph, unsigned long pm, int hfirst,
			 uint64_t *th, uint64_t *tm)
{
	uint32_t datom = HBIND_ATOM(HBIND_CMD_DEFAULT, 0);
	uint64_t t0;
	int o;

	for (o = 0; o < 2; o++) {
		if (o == hfirst) {
			t0 = hb_now_ns();
			if (sys_mbind(pm, PS, HB_MPOL_DEFAULT, NULL, 0, 0))
				die("mbind(MPOL_DEFAULT)");
			*tm = hb_now_ns() - t0;
		} else if (have_hbind) {
			t0 = hb_now_ns();
			if (sys_hbind(ph, PS, NULL, 0, &datom, 1))
				die("hbind(DEFAULT)");
			*th = hb_now_ns() - t0;
		}
	}
}

/*
 * QUERY of one page (touched or not) against move_pages(nodes=NULL) of the
 * same page, @reps times each, the one that goes first alternating; medians
 * in *@mq and *@ms, median of the per-iteration ratios (per mille) in
 * *@pair. @t and @tm are scratch arrays of @reps entries.
 */
static void bench_query_page(void *page, int reps, uint64_t *t,
			     uint64_t *tm, uint64_t *mq, uint64_t *ms,
			     uint64_t *pair)
{
	int32_t where = 0;
	uint32_t atoms[4] = { HBIND_ATOM(HBIND_CMD_QUERY, 3), 0,
			      (uint32_t)(uintptr_t)&where,
			      (uint32_t)((uint64_t)(uintptr_t)&where >> 32) };
	int status = 0, k, o;

	for (k = 0; k < reps; k++) {
		for (o = 0; o < 2; o++) {
			uint64_t t0 = hb_now_ns();

			if (o == (k & 1)) {
				if (sys_move_pages(0, 1, &page, NULL, &status, 0))
					die("move_pages(query, 1 page)");
				tm[k] = hb_now_ns() - t0;
			} else if (have_hbind) {
				if (sys_hbind(page, PS, NULL, 0, atoms, 4))
					die("hbind(QUERY, 1 page)");
				t[k] = hb_now_ns() - t0;
			}
		}
	}
	if (have_hbind &&
	    where != (status < 0 ? status : (int32_t)hb_uid_of_node(status)))
		fprintf(stderr, "hbind-bench: QUERY says %d, move_pages node %d\n",
			where, status);
	if (have_hbind) {
		uint64_t *q = malloc(reps * sizeof(*q));

		if (!q)
			die("malloc");
		for (k = 0; k < reps; k++)
			q[k] = t[k] * 1000 / (tm[k] ? tm[k] : 1);
		*pair = hb_median(q, reps);
		free(q);
		*mq = hb_median(t, reps);
	}
	*ms = hb_median(tm, reps);
}

/* bench_query_page()'s results for a page described by @what */
static void print_query_page(const char *what, int reps, uint64_t mq,
			     uint64_t ms, uint64_t pair)
{
	printf("placement query of %s (median of %d, who goes first alternating):\n",
	       what, reps);
	print_pair("hbind QUERY", mq, "move_pages(NULL)", ms);
	if (have_hbind)
		printf("  paired: hbind QUERY / move_pages(NULL) x%.2f\n",
		       pair / 1000.0);
}

/* single-page BIND/DEFAULT vs mbind latency, QUERY vs move_pages status */
static void bench_latency(int reps)
{
	uint64_t *t = malloc(reps * sizeof(*t)), *tm = malloc(reps * sizeof(*tm));
	uint64_t *td = malloc(reps * sizeof(*td)), *tdm = malloc(reps * sizeof(*tdm));
	uint64_t *te = malloc(reps * sizeof(*te)), *tem = malloc(reps * sizeof(*tem));
	uint64_t med_h = 0, med_m, med_d = 0, med_dm, med_e = 0, med_em;
	uint64_t med_q = 0, med_s, med_q1 = 0, med_s1, pair_q1 = 0;
	uint64_t med_q0 = 0, med_s0, pair_q0 = 0;
	char *untouched;
	struct region r;
	unsigned long masks[2] = { 1UL << node_a, 1UL << node_b };
	uint32_t tgts[2] = { (uint32_t)uid_a, (uint32_t)uid_b };
	unsigned long ph, pm;
	int k;

	if (!t || !tm || !td || !tdm || !te || !tem)
		die("malloc");
	if (region_map(&r, 64 * PS, 0))
		die("mmap");
	/* one page for hbind, one for mbind: each call meets its own policies */
	ph = (unsigned long)r.base + 16 * PS;
	pm = (unsigned long)r.base + 48 * PS;
	/*
	 * The pages around the timed ones get a policy no call below sets, so
	 * that no call merges a timed page's VMA with its neighbours or has to
	 * split it again: every call only replaces the policy of one VMA.
	 */
	if (sys_mbind((unsigned long)r.base, r.len, HB_MPOL_PREFERRED, &masks[0],
		      HB_MAXNODE, 0))
		die("mbind(MPOL_PREFERRED)");
	/*
	 * Interleaved: iteration k times hbind BIND and mbind MPOL_BIND, then
	 * hbind DEFAULT and mbind MPOL_DEFAULT, hbind first in two iterations
	 * out of four. So each method pays for the whole life of its own
	 * policies: BIND builds and installs one, DEFAULT drops and frees it.
	 * A second DEFAULT of each, with nothing left to drop, shows the fixed
	 * cost of the call apart from freeing the policy.
	 */
	for (k = 0; k < reps; k++) {
		uint32_t atoms[2] = { HBIND_ATOM(HBIND_CMD_BIND, 1), 0 };
		int hfirst = !((k >> 1) & 1);	/* who goes first alternates */
		uint64_t t0;
		int o;

		for (o = 0; o < 2; o++) {
			if (o == hfirst) {
				t0 = hb_now_ns();
				if (sys_mbind(pm, PS, HB_MPOL_BIND, &masks[k & 1],
					      HB_MAXNODE, 0))
					die("mbind(MPOL_BIND)");
				tm[k] = hb_now_ns() - t0;
			} else if (have_hbind) {
				t0 = hb_now_ns();
				if (sys_hbind(ph, PS, &tgts[k & 1], 1, atoms, 2))
					die("hbind(BIND)");
				t[k] = hb_now_ns() - t0;
			}
		}
		time_default(ph, pm, hfirst, &td[k], &tdm[k]);
		time_default(ph, pm, hfirst, &te[k], &tem[k]);
	}
	if (have_hbind) {
		med_h = hb_median(t, reps);
		med_d = hb_median(td, reps);
		med_e = hb_median(te, reps);
	}
	med_m = hb_median(tm, reps);
	med_dm = hb_median(tdm, reps);
	med_em = hb_median(tem, reps);
	region_unmap(&r);

	/* QUERY vs move_pages status on 16 MiB of touched pages */
	if (region_map(&r, 16 * MIB, 0))
		die("mmap");
	memset(r.base, 1, r.len);
	{
		int32_t *buf = malloc(r.npages * sizeof(*buf));
		uint32_t atoms[4] = { HBIND_ATOM(HBIND_CMD_QUERY, 3), 0,
				      (uint32_t)(uintptr_t)buf,
				      (uint32_t)((uint64_t)(uintptr_t)buf >> 32) };
		int qreps = reps < 20 ? reps : 20;

		if (!buf)
			die("malloc");
		for (k = 0; k < qreps; k++) {
			uint64_t t0;

			if (have_hbind) {
				t0 = hb_now_ns();
				if (sys_hbind((unsigned long)r.base, r.len, NULL, 0, atoms, 4))
					die("hbind(QUERY)");
				t[k] = hb_now_ns() - t0;
			}
			t0 = hb_now_ns();
			if (sys_move_pages(0, r.npages, r.ptrs, NULL, r.status, 0))
				die("move_pages(query)");
			tm[k] = hb_now_ns() - t0;
		}
		if (have_hbind)
			med_q = hb_median(t, qreps);
		med_s = hb_median(tm, qreps);
		free(buf);
	}
	bench_query_page(r.base, reps, t, tm, &med_q1, &med_s1, &pair_q1);
	region_unmap(&r);
	/* a page never touched: no page, move_pages() reports -ENOENT */
	untouched = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (untouched == MAP_FAILED)
		die("mmap");
	bench_query_page(untouched + MIB, reps, t, tm, &med_q0, &med_s0,
			 &pair_q0);
	munmap(untouched, 2 * MIB);

	printf("\nsingle-page policy change (median of %d, alternating nodes %d/%d):\n",
	       reps, node_a, node_b);
	print_pair("hbind BIND", med_h, "mbind(MPOL_BIND)", med_m);
	print_pair("hbind DEFAULT", med_d, "mbind(MPOL_DEFAULT)", med_dm);
	printf("the same DEFAULT again, with no policy left to drop:\n");
	print_pair("hbind DEFAULT", med_e, "mbind(MPOL_DEFAULT)", med_em);
	printf("placement query of 16 MiB (4096 pages):\n");
	print_pair("hbind QUERY", med_q, "move_pages(NULL)", med_s);
	print_query_page("one page", reps, med_q1, med_s1, pair_q1);
	print_query_page("one page never touched (-ENOENT)", reps, med_q0,
			 med_s0, pair_q0);
	free(t);
	free(tm);
	free(td);
	free(tdm);
	free(te);
	free(tem);
}

#define IW_TABLE	"/sys/kernel/mm/mempolicy/weighted_interleave/node%d"

/* read (@set 0) or write a node's global interleave weight; -1 on error */
static int iw_weight(int node, int set)
{
	char path[128];
	FILE *f;
	int w = -1;

	snprintf(path, sizeof(path), IW_TABLE, node);
	f = fopen(path, set ? "w" : "r");
	if (!f)
		return -1;
	if (set)
		w = fprintf(f, "%d\n", set) > 0 ? set : -1;
	else if (fscanf(f, "%d", &w) != 1)
		w = -1;
	if (fclose(f))
		w = -1;
	return w;
}

/* time the first touch of every page of @r; returns ns */
static uint64_t il_timed_touch(struct region *r)
{
	uint64_t t0 = hb_now_ns();
	size_t i;

	for (i = 0; i < r->npages; i++)
		r->base[i * PS] = 1;
	return hb_now_ns() - t0;
}

/*
 * First touch of 16 MiB interleaved 1:3 over nodes A and B: hbind
 * INTERLEAVE (the range's own weights) against mbind(MPOL_WEIGHTED_
 * INTERLEAVE) with the same weights in the global table, alternating which
 * goes first; median over the rounds, and the same page counts per node.
 */
static void bench_il_first_touch(int reps)
{
	unsigned long mask = (1UL << node_a) | (1UL << node_b);
	uint32_t tgts[2] = { (uint32_t)uid_a, (uint32_t)uid_b };
	static const uint32_t weights[2] = { 1, 3 };
	uint32_t atoms[1 + HBIND_INTERLEAVE_NDWORDS];
	uint64_t th[MAX_REPS], tm[MAX_REPS], med_h = 0, med_m;
	int wa = iw_weight(node_a, 0), wb = iw_weight(node_b, 0), k, o;
	size_t ha = 0, ma = 0;
	struct region h, m;

	hb_il_atom(atoms, 0, 0, weights);
	if (reps > MAX_REPS)
		reps = MAX_REPS;
	printf("first touch of 16 MiB, weighted interleave 1:3 over nodes %d/%d "
	       "(median of %d):\n", node_a, node_b, reps);
	if (wa < 0 || wb < 0 || iw_weight(node_a, 1) < 0 ||
	    iw_weight(node_b, 3) < 0) {
		printf("  no writable global weight table: skipped\n");
		return;
	}
	for (k = 0; k < reps; k++) {
		if (region_map(&h, 16 * MIB, 0) || region_map(&m, 16 * MIB, 0))
			die("mmap");
		if (have_hbind &&
		    sys_hbind((unsigned long)h.base, h.len, tgts, 2, atoms,
			      1 + HBIND_INTERLEAVE_NDWORDS))
			die("hbind(INTERLEAVE)");
		if (sys_mbind((unsigned long)m.base, m.len,
			      HB_MPOL_WEIGHTED_INTERLEAVE | HB_MPOL_F_STATIC_NODES,
			      &mask, HB_MAXNODE, 0))
			die("mbind(MPOL_WEIGHTED_INTERLEAVE)");
		for (o = 0; o < 2; o++) {
			if (o == (k & 1))
				tm[k] = il_timed_touch(&m);
			else if (have_hbind)
				th[k] = il_timed_touch(&h);
		}
		if (k == 0) {
			ha = have_hbind ? count_on(&h, node_a) : 0;
			ma = count_on(&m, node_a);
		}
		region_unmap(&h);
		region_unmap(&m);
	}
	iw_weight(node_a, wa ? wa : 1);
	iw_weight(node_b, wb ? wb : 1);
	if (have_hbind)
		med_h = hb_median(th, reps);
	med_m = hb_median(tm, reps);
	print_pair("hbind INTERLEAVE", med_h, "mbind(WEIGHTED_IL)", med_m);
	printf("  pages on node %d: hbind %zu, mbind %zu%s\n", node_a, ha, ma,
	       have_hbind && ha != ma ? " (!)" : "");
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* another process of the benchmark: its pid, pidfd, pipes and mapping */
struct proc {
	pid_t pid;
	int pidfd, cmd;
	unsigned long addr;
	size_t npages;
};

/*
 * The process itself (hbind-bench -C MIB:STRIDE:NODE, started by
 * proc_start()): maps MIB MiB of base pages bound to NODE, touches one page
 * in STRIDE, writes the address to fd 3 and waits for stdin to close. A
 * new program, so that it shares no page with the benchmark.
 */
static int proc_main(const char *arg)
{
	unsigned long mib, stride, node, mask, i;
	size_t len;
	char *p;

	if (sscanf(arg, "%lu:%lu:%lu", &mib, &stride, &node) != 3 || !stride ||
	    node > 63)
		return 2;
	len = mib * MIB;
	mask = 1UL << node;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED || madvise(p, len, MADV_NOHUGEPAGE) ||
	    sys_mbind((unsigned long)p, len, HB_MPOL_BIND, &mask, HB_MAXNODE, 0))
		die("child: mmap");
	for (i = 0; i < len / PS; i += stride)
		p[i * PS] = 1;
	if (dprintf(3, "%lx\n", (unsigned long)p) < 0)
		die("child: pipe");
	close(3);
	while (read(0, &i, sizeof(i)) > 0)
		;
	return 0;
}

static void proc_start(struct proc *pr, const char *self, unsigned long mib,
		       unsigned long stride)
{
	char arg[64], buf[64];
	int cmd[2], ans[2];
	ssize_t n;

	/* close-on-exec: a later process must not hold this one's stdin */
	if (pipe2(cmd, O_CLOEXEC) || pipe2(ans, O_CLOEXEC))
		die("pipe");
	snprintf(arg, sizeof(arg), "%lu:%lu:%d", mib, stride, node_a);
	pr->pid = fork();
	if (pr->pid < 0)
		die("fork");
	if (!pr->pid) {
		if (dup2(cmd[0], 0) < 0 || dup2(ans[1], 3) < 0)
			_exit(1);
		close(cmd[1]);
		close(ans[0]);
		execl(self, "hbind-bench", "-C", arg, (char *)NULL);
		_exit(127);
	}
	close(cmd[0]);
	close(ans[1]);
	n = read(ans[0], buf, sizeof(buf) - 1);
	close(ans[0]);
	if (n <= 0)
		die("the benchmark's process did not start");
	buf[n] = '\0';
	pr->addr = strtoul(buf, NULL, 16);
	pr->npages = mib * MIB / PS;
	pr->cmd = cmd[1];
	pr->pidfd = syscall(SYS_pidfd_open, pr->pid, 0);
	if (pr->pidfd < 0)
		die("pidfd_open");
}

static void proc_stop(struct proc *pr)
{
	close(pr->cmd);
	close(pr->pidfd);
	waitpid(pr->pid, NULL, 0);
}

/* pages of @pr's mapping on @node, by move_pages(pid, NULL) */
static size_t proc_count_on(struct proc *pr, int node, void **ptrs,
			    int *status)
{
	size_t i, n = 0;

	for (i = 0; i < pr->npages; i++)
		ptrs[i] = (char *)pr->addr + i * PS;
	if (sys_move_pages(pr->pid, pr->npages, ptrs, NULL, status, 0))
		die("move_pages(pid, query)");
	for (i = 0; i < pr->npages; i++)
		n += status[i] == node;
	return n;
}

/* migrate_pages(@pid, {@from}, {@to}); dies on an error */
static void proc_migrate_pages(pid_t pid, int from, int to)
{
	unsigned long old = 1UL << from, new = 1UL << to;

	if (sys_migrate_pages(pid, HB_MAXNODE, &old, &new) < 0)
		die("migrate_pages(pid)");
}

/* "  paired: NAME x1.00 (0.90-1.10)" from per-round ratios (per mille) */
static void print_paired(const char *name, uint64_t *q, int n)
{
	uint64_t lo = q[0], hi = q[0];
	int k;

	for (k = 1; k < n; k++) {
		lo = q[k] < lo ? q[k] : lo;
		hi = q[k] > hi ? q[k] : hi;
	}
	printf("  paired: %s x%.2f (%.2f-%.2f)\n", name,
	       hb_median(q, n) / 1000.0, lo / 1000.0, hi / 1000.0);
}

/*
 * Another process: QUERY through a pidfd of its @qmib MiB range, one page
 * in four touched, against move_pages(pid, NULL) of the same pages; then
 * two processes with @wmib MiB each on node A, and the whole of one moved
 * to node B by hbind (PROCESS, MIGRATE WHOLE|FROM|ALL) while the other is
 * moved by migrate_pages(pid, {A}, {B}) (root: MPOL_MF_MOVE_ALL), the one
 * that goes first alternating, both moved back untimed. Medians of @reps
 * rounds and the per-round ratios.
 */
static void bench_process(const char *self, unsigned long qmib,
			  unsigned long wmib, int reps)
{
	uint64_t th[MAX_REPS], tm[MAX_REPS], q[MAX_REPS], med_h = 0, med_m;
	size_t n = qmib * MIB / PS, i, bad_h = 0, bad_m = 0;
	void **ptrs = malloc(n * sizeof(*ptrs));
	int *status = malloc(n * sizeof(*status));
	int32_t *buf = malloc(n * sizeof(*buf));
	struct proc pq, pw[2];
	int k, o;

	if (!ptrs || !status || !buf)
		die("malloc");
	if (reps > MAX_REPS)
		reps = MAX_REPS;
	printf("\nanother process, through a pidfd (median of %d rounds, who "
	       "goes first alternating; paired = hbind / peer in the same "
	       "round, median (lowest-highest)):\n", reps);

	proc_start(&pq, self, qmib, 4);
	{
		/* a kernel whose hbind() has no PROCESS: EINVAL */
		uint32_t probe[7] = {
			HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS), 0,
			(uint32_t)pq.pidfd,
			HBIND_ATOM(HBIND_CMD_QUERY, HBIND_QUERY_NDWORDS), 0, 0, 0,
		};

		if (have_hbind && sys_hbind(pq.addr, 0, NULL, 0, probe, 7)) {
			printf("  hbind() without HBIND_CMD_PROCESS here: "
			       "skipped\n");
			proc_stop(&pq);
			free(ptrs);
			free(status);
			free(buf);
			return;
		}
	}
	for (i = 0; i < n; i++)
		ptrs[i] = (char *)pq.addr + i * PS;
	for (k = 0; k < reps; k++) {
		uint32_t atoms[7] = {
			HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS), 0,
			(uint32_t)pq.pidfd,
			HBIND_ATOM(HBIND_CMD_QUERY, HBIND_QUERY_NDWORDS), 0,
			(uint32_t)(uintptr_t)buf,
			(uint32_t)((uint64_t)(uintptr_t)buf >> 32),
		};

		for (o = 0; o < 2; o++) {
			uint64_t t0 = hb_now_ns();

			if (o == (k & 1)) {
				if (sys_move_pages(pq.pid, n, ptrs, NULL,
						   status, 0))
					die("move_pages(pid, NULL)");
				tm[k] = hb_now_ns() - t0;
			} else if (have_hbind) {
				if (sys_hbind(pq.addr, n * PS, NULL, 0, atoms, 7))
					die("hbind(PROCESS, QUERY)");
				th[k] = hb_now_ns() - t0;
			}
		}
		q[k] = th[k] * 1000 / (tm[k] ? tm[k] : 1);
	}
	for (i = 0; have_hbind && i < n; i++)
		bad_h += buf[i] != (status[i] < 0 ? status[i] :
				    (int32_t)hb_uid_of_node(status[i]));
	proc_stop(&pq);
	if (have_hbind)
		med_h = hb_median(th, reps);
	med_m = hb_median(tm, reps);
	printf("placement query of its %lu MiB range, one page in 4 touched "
	       "(%zu pages)%s:\n", qmib, n,
	       bad_h ? " (!: QUERY and move_pages differ)" : "");
	print_pair("hbind QUERY (pidfd)", med_h, "move_pages(pid, NULL)",
		   med_m);
	if (have_hbind)
		print_paired("hbind QUERY / move_pages(pid, NULL)", q, reps);

	n = wmib * MIB / PS;
	proc_start(&pw[0], self, wmib, 1);
	proc_start(&pw[1], self, wmib, 1);
	for (k = 0; k < reps; k++) {
		uint32_t uids[2] = { (uint32_t)uid_a, (uint32_t)uid_b };
		uint32_t atoms[7] = {
			HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS), 0,
			(uint32_t)pw[0].pidfd,
			HBIND_ATOM(HBIND_CMD_MIGRATE,
				   HBIND_MIGRATE_FROM_NDWORDS),
			HBIND_MIGRATE_WHOLE | HBIND_MIGRATE_FROM |
			HBIND_MIGRATE_ALL, 0, 1,
		};

		for (o = 0; o < 2; o++) {
			uint64_t t0 = hb_now_ns();

			if (o == (k & 1)) {
				proc_migrate_pages(pw[1].pid, node_a, node_b);
				tm[k] = hb_now_ns() - t0;
			} else if (have_hbind) {
				if (sys_hbind(0, 0, uids, 2, atoms, 7))
					die("hbind(PROCESS, MIGRATE_WHOLE)");
				th[k] = hb_now_ns() - t0;
			}
		}
		q[k] = th[k] * 1000 / (tm[k] ? tm[k] : 1);
		if (have_hbind && proc_count_on(&pw[0], node_b, ptrs, status) != n)
			bad_h++;
		if (proc_count_on(&pw[1], node_b, ptrs, status) != n)
			bad_m++;
		proc_migrate_pages(pw[0].pid, node_b, node_a);
		proc_migrate_pages(pw[1].pid, node_b, node_a);
	}
	proc_stop(&pw[0]);
	proc_stop(&pw[1]);
	if (have_hbind)
		med_h = hb_median(th, reps);
	med_m = hb_median(tm, reps);
	printf("the whole process, %lu MiB (%zu pages) from node %d to %d%s:\n",
	       wmib, n, node_a, node_b,
	       bad_h || bad_m ? " (!: a round left pages behind)" : "");
	print_pair("hbind MIGRATE_WHOLE", med_h, "migrate_pages(pid)", med_m);
	if (have_hbind)
		print_paired("hbind MIGRATE_WHOLE / migrate_pages(pid)", q,
			     reps);
	free(ptrs);
	free(status);
	free(buf);
}

static int probe_hbind(void)
{
	char *p = mmap(NULL, PS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t atom = HBIND_ATOM(HBIND_CMD_DEFAULT, 0);
	int ok;

	if (p == MAP_FAILED)
		die("mmap");
	ok = !sys_hbind((unsigned long)p, PS, NULL, 0, &atom, 1);
	munmap(p, PS);
	return ok;
}

/*
 * Run @fn on each size of @sizes (MiB, comma separated), 4 KiB pages then
 * THP as @kinds allows; "none" (-s none: only the latency rows) runs nothing.
 */
static void for_each_size(void (*fn)(unsigned long, int, int),
			  const char *sizes, const char *kinds, int reps)
{
	char *dup, *tok, *save;
	int thp;

	if (!strcmp(sizes, "none"))
		return;
	for (thp = 0; thp < 2; thp++) {
		if ((thp == 0 && !strcmp(kinds, "thp")) ||
		    (thp == 1 && !strcmp(kinds, "4k")))
			continue;
		dup = strdup(sizes);
		if (!dup)
			die("strdup");
		for (tok = strtok_r(dup, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			fn(strtoul(tok, NULL, 0), thp, reps);
		free(dup);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: hbind-bench [-a NODE] [-b NODE] [-s MIB,...] [-r REPS] [-l LATREPS]\n"
"                   [-k 4k|thp|both] [-q MIB] [-w MIB]\n"
"  moves the same pages from node A (default 0) to node B (default 1) with\n"
"  hbind MIGRATE, move_pages(), mbind(MPOL_BIND, MPOL_MF_MOVE) and\n"
"  migrate_pages(), re-placing them on A (untimed) before each run; prints\n"
"  the median time of REPS runs (default 5) and its ratio to the best method,\n"
"  and hbind's time over each peer's in the same run, median over the runs.\n"
"  Then, on another process: QUERY of a range of MIB MiB (-q, default\n"
"  1024; 0: none) against move_pages(pid, NULL), MIGRATE of a whole process\n"
"  of MIB MiB (-w, default 64; 0: none) against migrate_pages(pid).\n");
}

int main(int argc, char **argv)
{
	const char *sizes = "1,4,16,64,256", *kinds = "both";
	unsigned long qmib = 1024, wmib = 64;
	int reps = 5, latreps = 1000, c;

	PS = sysconf(_SC_PAGESIZE);
	while ((c = getopt(argc, argv, "a:b:s:r:l:k:q:w:C:h")) != -1) {
		switch (c) {
		case 'C':
			return proc_main(optarg);
		case 'q':
			qmib = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			wmib = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			node_a = atoi(optarg);
			break;
		case 'b':
			node_b = atoi(optarg);
			break;
		case 's':
			sizes = optarg;
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'l':
			latreps = atoi(optarg);
			break;
		case 'k':
			kinds = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS || latreps < 1 || node_a == node_b ||
	    node_a < 0 || node_b < 0 || node_a > 63 || node_b > 63) {
		usage(stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	uid_a = hb_uid_of_node(node_a);
	uid_b = hb_uid_of_node(node_b);
	have_hbind = uid_a >= 0 && uid_b >= 0 && probe_hbind();
	have_knob = have_hbind && !set_copier(0);
	printf("hbind-bench: node %d -> node %d, target uids %ld -> %ld, hbind %s\n",
	       node_a, node_b, uid_a, uid_b, have_hbind ? "available" : "NOT available");
	printf("median of %d interleaved rounds per cell, after one untimed round; "
	       "(xN) = time / best method that moves pages; "
	       "'!' = not all pages moved (memcpy: a destination page not on "
	       "node %d or the copy differs);\n"
	       "memcpy A->B = memcpy() of the same bytes into a buffer of the same "
	       "page kind on node %d (touched beforehand, untimed);\n"
	       "hbind MIGRATE = with the cpus copy provider on for its call, "
	       "hbind 1 CPU = without it, as by default (%s);\n"
	       "paired = hbind / memcpy, move_pages(), mbind(), migrate_pages(), "
	       "hbind 1 CPU in the same round, median (lowest-highest) over the "
	       "rounds;\n"
	       "best peer / hbind = the fastest peer's median over hbind's "
	       "(above 1: hbind is faster)\n", reps, node_b, node_b,
	       have_knob ? COPIER : "n/a: no " COPIER);
	printf("migrate_pages() also moves the benchmark's own pages on node %d "
	       "(a few pages of stack, heap, text)\n\n", node_a);
	if (strcmp(sizes, "none"))
		printf("page  size    | %22s | %22s | %22s | %22s | %22s | %22s\n",
		       mname[0], mname[1], mname[2], mname[3], mname[4], mname[5]);
	for_each_size(bench_size, sizes, kinds, reps);
	if (strcmp(sizes, "none"))
		printf("\nfirst touch of a range bound to node %d, one byte a page "
		       "(median of %d rounds; paired = hbind / mbind in the same "
		       "round):\npage  size    | %11s | %11s | paired\n", node_b,
		       reps, "hbind BIND", "mbind(BIND)");
	for_each_size(bench_touch, sizes, kinds, reps);
	bench_latency(latreps);
	bench_il_first_touch(reps * 4);
	if (qmib && wmib)
		bench_process("/proc/self/exe", qmib, wmib, reps * 2);
	return 0;
}
