// SPDX-License-Identifier: GPL-2.0
/*
 * hbind-bench - time hbind(MIGRATE) against move_pages(), mbind(MPOL_MF_MOVE)
 * and migrate_pages() moving the same pages from node A to node B, for
 * several sizes, with 4 KiB pages and with THP; and the latency of a
 * single-page hbind(BIND) and hbind(DEFAULT) against mbind(), and of QUERY
 * (16 MiB and one page) against move_pages(nodes=NULL). Prints figures, asserts nothing about times; it
 * only checks that every method really moved the pages (a row whose pages
 * did not all arrive is marked with '!').
 *
 * Usage: hbind-bench [-a NODE] [-b NODE] [-s 1,4,16,64,256|none] [-r REPS]
 *                    [-l LATREPS] [-k 4k|thp|both]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <sys/mman.h>

#include "hbtest.h"

#define MIB		(1024UL * 1024UL)
#define THP_SIZE	(2 * MIB)
#define MAX_REPS	64

enum method { M_HBIND, M_MOVE_PAGES, M_MBIND, M_MIGRATE_PAGES, M_NR };
static const char *const mname[M_NR] = {
	"hbind MIGRATE", "move_pages()", "mbind(MF_MOVE)", "migrate_pages()",
};

static long PS;
static int node_a, node_b = 1;
static long uid_a = -1, uid_b = -1;
static int have_hbind;

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

/* one timed move A -> B; returns ns, *moved = pages found on B after */
static uint64_t timed_move(struct region *r, enum method m, size_t *moved)
{
	unsigned long ma = 1UL << node_a, mb = 1UL << node_b;
	uint32_t tgt = (uint32_t)uid_b;
	uint32_t atoms[3] = { HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), 0, 0 };
	uint64_t t0, t1;
	long ret = 0;

	t0 = hb_now_ns();
	switch (m) {
	case M_HBIND:
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

static void bench_size(unsigned long mib, int thp, int reps)
{
	uint64_t med[M_NR] = { 0 }, t[M_NR][MAX_REPS], best = UINT64_MAX;
	uint64_t pair[M_NR] = { 0 }, q[MAX_REPS];
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
		ok[m] = (m == M_HBIND && !have_hbind) ? -1 : 1;
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
			t[m][n[m]++] = timed_move(&r, m, &moved);
			if (moved != r.npages)
				ok[m] = 0;
			if (k == 0)
				thpkb[m] = thp_kb(&r);
		}
	}
	/*
	 * Paired: hbind's time over each peer's in the same round, median over
	 * the rounds (per mille). A slow stretch of the machine hits both
	 * sides of a pair, so this moves less between runs than the medians.
	 */
	for (m = 0; have_hbind && m < M_NR; m++) {
		if (m == M_HBIND)
			continue;
		for (k = 0; k < reps; k++)
			q[k] = t[M_HBIND][k] * 1000 / (t[m][k] ? t[m][k] : 1);
		pair[m] = hb_median(q, reps);
	}
	for (m = 0; m < M_NR; m++) {
		if (ok[m] < 0)
			continue;
		med[m] = hb_median(t[m], n[m]);
		if (med[m] < best)
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
		for (m = 0; m < M_NR; m++)
			printf(" %lu", thpkb[m] / 1024);
		printf(" MiB");
	}
	if (have_hbind) {
		printf(" | paired:");
		for (m = 0; m < M_NR; m++)
			if (m != M_HBIND)
				printf(" x%.2f", pair[m] / 1000.0);
	}
	printf("\n");
	fflush(stdout);
	region_unmap(&r);
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
 * QUERY of one touched page of @r against move_pages(nodes=NULL) of the same
 * page, @reps times each, the one that goes first alternating; medians in
 * *@mq and *@ms, median of the per-iteration ratios (per mille) in *@pair.
 * @t and @tm are scratch arrays of @reps entries.
 */
static void bench_query_page(struct region *r, int reps, uint64_t *t,
			     uint64_t *tm, uint64_t *mq, uint64_t *ms,
			     uint64_t *pair)
{
	int32_t where = 0;
	uint32_t atoms[4] = { HBIND_ATOM(HBIND_CMD_QUERY, 3), 0,
			      (uint32_t)(uintptr_t)&where,
			      (uint32_t)((uint64_t)(uintptr_t)&where >> 32) };
	void *page = r->base;
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
	if (have_hbind && where != (int32_t)hb_uid_of_node(status))
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

/* single-page BIND/DEFAULT vs mbind latency, QUERY vs move_pages status */
static void bench_latency(int reps)
{
	uint64_t *t = malloc(reps * sizeof(*t)), *tm = malloc(reps * sizeof(*tm));
	uint64_t *td = malloc(reps * sizeof(*td)), *tdm = malloc(reps * sizeof(*tdm));
	uint64_t *te = malloc(reps * sizeof(*te)), *tem = malloc(reps * sizeof(*tem));
	uint64_t med_h = 0, med_m, med_d = 0, med_dm, med_e = 0, med_em;
	uint64_t med_q = 0, med_s, med_q1 = 0, med_s1, pair_q1 = 0;
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
	bench_query_page(&r, reps, t, tm, &med_q1, &med_s1, &pair_q1);
	region_unmap(&r);

	printf("\nsingle-page policy change (median of %d, alternating nodes %d/%d):\n",
	       reps, node_a, node_b);
	print_pair("hbind BIND", med_h, "mbind(MPOL_BIND)", med_m);
	print_pair("hbind DEFAULT", med_d, "mbind(MPOL_DEFAULT)", med_dm);
	printf("the same DEFAULT again, with no policy left to drop:\n");
	print_pair("hbind DEFAULT", med_e, "mbind(MPOL_DEFAULT)", med_em);
	printf("placement query of 16 MiB (4096 pages):\n");
	print_pair("hbind QUERY", med_q, "move_pages(NULL)", med_s);
	printf("placement query of one page (median of %d, who goes first alternating):\n",
	       reps);
	print_pair("hbind QUERY", med_q1, "move_pages(NULL)", med_s1);
	if (have_hbind)
		printf("  paired: hbind QUERY / move_pages(NULL) x%.2f\n",
		       pair_q1 / 1000.0);
	free(t);
	free(tm);
	free(td);
	free(tdm);
	free(te);
	free(tem);
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

static void usage(FILE *f)
{
	fprintf(f,
"usage: hbind-bench [-a NODE] [-b NODE] [-s MIB,...] [-r REPS] [-l LATREPS]\n"
"                   [-k 4k|thp|both]\n"
"  moves the same pages from node A (default 0) to node B (default 1) with\n"
"  hbind MIGRATE, move_pages(), mbind(MPOL_BIND, MPOL_MF_MOVE) and\n"
"  migrate_pages(), re-placing them on A (untimed) before each run; prints\n"
"  the median time of REPS runs (default 5) and its ratio to the best method,\n"
"  and hbind's time over each peer's in the same run, median over the runs.\n");
}

int main(int argc, char **argv)
{
	const char *sizes = "1,4,16,64,256", *kinds = "both";
	int reps = 5, latreps = 1000, c;
	char *dup, *tok, *save;
	int pass;

	PS = sysconf(_SC_PAGESIZE);
	while ((c = getopt(argc, argv, "a:b:s:r:l:k:h")) != -1) {
		switch (c) {
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
	printf("hbind-bench: node %d -> node %d, target uids %ld -> %ld, hbind %s\n",
	       node_a, node_b, uid_a, uid_b, have_hbind ? "available" : "NOT available");
	printf("median of %d runs per cell, after one untimed round; "
	       "(xN) = time / best method of the row; "
	       "'!' = not all pages moved;\n"
	       "paired = hbind / move_pages(), mbind(), migrate_pages() in "
	       "the same round, median over the rounds\n", reps);
	printf("migrate_pages() also moves the benchmark's own pages on node %d "
	       "(a few pages of stack, heap, text)\n\n", node_a);
	if (strcmp(sizes, "none"))
		printf("page  size    | %22s | %22s | %22s | %22s\n",
		       mname[0], mname[1], mname[2], mname[3]);
	/* -s none: only the latency rows */
	for (pass = strcmp(sizes, "none") ? 0 : 2; pass < 2; pass++) {
		if ((pass == 0 && !strcmp(kinds, "thp")) ||
		    (pass == 1 && !strcmp(kinds, "4k")))
			continue;
		dup = strdup(sizes);
		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			bench_size(strtoul(tok, NULL, 0), pass, reps);
		free(dup);
	}
	bench_latency(latreps);
	return 0;
}
