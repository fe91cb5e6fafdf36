// SPDX-License-Identifier: GPL-2.0
/*
 * fault-bench - time the page-fault path: anonymous first touch of a region
 * (256 MiB by default) with 4 KiB pages (MADV_NOHUGEPAGE), one byte per
 * page, round after round, pinned to the CPU of node @node. Only the touch
 * loop is timed; mmap, the policy call and munmap are not. After a few
 * untimed warm-up rounds it prints one line per timed round, then a summary.
 * Prints figures; asserts nothing about times. It only checks, untimed, that
 * the pages landed on @node (a sample of them, with move_pages()).
 *
 * Modes, run in the order given:
 *   plain  no memory policy at all: the default (local) allocation path
 *   plain-after  the same, reported apart: after bind, on a CONFIG_HMS=y
 *          kernel, once hbind BIND has run in the process
 *   bind   hbind(BIND, HBIND_BIND_STRICT) to the target of @node against
 *          mbind(MPOL_BIND | MPOL_F_STATIC_NODES) to @node, the policy
 *          hbind installs for one system target: interleaved round by
 *          round, which goes first alternating, each on its own region
 *
 * Usage: fault-bench [-n NODE] [-s MIB] [-r ROUNDS] [-w WARMUP] MODE...
 *
 * Output, one record a line, tab-separated, for scripts:
 *   round  MODE  K  NS            timed round K of MODE (plain, plain-after,
 *                                 hbind, mbind)
 *   ratio  bind  K  PERMILLE      hbind's time over mbind's in round K
 *   summary MODE  median=NS min=NS max=NS n=N
 *   summary bind  ratio-median=R ratio-min=R ratio-max=R n=N
 * and lines starting with '#' for people.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <sys/mman.h>

#include "hbtest.h"

#define MIB		(1024UL * 1024UL)
#define MAX_ROUNDS	1000
#define NSAMPLES	1024

enum how { H_PLAIN, H_HBIND, H_MBIND };
static const char *const hname[] = { "plain", "hbind", "mbind" };

static long PS;
static int node;
static long uid = -1;
static size_t len = 256 * MIB;

static void __attribute__((noreturn)) die(const char *msg)
{
	fprintf(stderr, "fault-bench: %s: %s\n", msg, strerror(errno));
	exit(1);
}

/* pages of a sample of the region that are not on @node */
static size_t misplaced(char *base)
{
	void *pages[NSAMPLES];
	int status[NSAMPLES];
	size_t i, n = 0, npages = len / PS, step = npages / NSAMPLES;

	if (!step)
		step = 1;
	for (i = 0; i < NSAMPLES && i * step < npages; i++)
		pages[i] = base + i * step * PS;
	if (sys_move_pages(0, i, pages, NULL, status, 0))
		die("move_pages(query)");
	while (i--)
		n += status[i] != node;
	return n;
}

/*
 * One round: map, give the policy of @how, touch every page (timed), check a
 * sample of the pages (untimed), unmap. Returns the touch time in ns.
 */
static uint64_t one_round(enum how how)
{
	unsigned long mask = 1UL << node;
	uint32_t tgt = (uint32_t)uid;
	uint32_t atoms[2] = { HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS),
			      HBIND_BIND_STRICT };
	volatile char *p;
	uint64_t t0, t1;
	size_t off, bad;
	char *base;

	base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		die("mmap");
	if (madvise(base, len, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	switch (how) {
	case H_HBIND:
		if (sys_hbind(base, len, &tgt, 1, atoms, 2))
			die("hbind(BIND)");
		break;
	case H_MBIND:
		if (sys_mbind((unsigned long)base, len,
			      HB_MPOL_BIND | HB_MPOL_F_STATIC_NODES, &mask,
			      HB_MAXNODE, 0))
			die("mbind(MPOL_BIND)");
		break;
	default:
		break;
	}
	p = base;
	t0 = hb_now_ns();
	for (off = 0; off < len; off += PS)
		p[off] = 1;
	t1 = hb_now_ns();
	bad = misplaced(base);
	if (bad)
		fprintf(stderr, "fault-bench: %s: %zu of %d sampled pages not on node %d\n",
			hname[how], bad, NSAMPLES, node);
	if (munmap(base, len))
		die("munmap");
	return t1 - t0;
}

static void summary(const char *mode, uint64_t *t, int n)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	int k;

	for (k = 0; k < n; k++) {
		if (t[k] < lo)
			lo = t[k];
		if (t[k] > hi)
			hi = t[k];
	}
	printf("summary\t%s\tmedian=%" PRIu64 " min=%" PRIu64 " max=%" PRIu64 " n=%d\n",
	       mode, hb_median(t, n), lo, hi, n);
}

static void run_plain(const char *mode, int rounds, int warmup)
{
	uint64_t t[MAX_ROUNDS];
	int k;

	for (k = 0; k < warmup; k++)
		one_round(H_PLAIN);
	for (k = 0; k < rounds; k++) {
		t[k] = one_round(H_PLAIN);
		printf("round\t%s\t%d\t%" PRIu64 "\n", mode, k, t[k]);
	}
	summary(mode, t, rounds);
}

static void run_bind(int rounds, int warmup)
{
	uint64_t th[MAX_ROUNDS], tm[MAX_ROUNDS], q[MAX_ROUNDS];
	uint64_t lo = UINT64_MAX, hi = 0, med;
	int k;

	if (uid < 0) {
		printf("# bind: node %d has no HMS target (no hbind): skipped\n", node);
		return;
	}
	for (k = 0; k < warmup; k++) {
		one_round(H_HBIND);
		one_round(H_MBIND);
	}
	/* round k: hbind first when k is even, mbind first when it is odd */
	for (k = 0; k < rounds; k++) {
		if (k & 1) {
			tm[k] = one_round(H_MBIND);
			th[k] = one_round(H_HBIND);
		} else {
			th[k] = one_round(H_HBIND);
			tm[k] = one_round(H_MBIND);
		}
		q[k] = th[k] * 1000 / (tm[k] ? tm[k] : 1);
		printf("round\thbind\t%d\t%" PRIu64 "\n", k, th[k]);
		printf("round\tmbind\t%d\t%" PRIu64 "\n", k, tm[k]);
		printf("ratio\tbind\t%d\t%" PRIu64 "\n", k, q[k]);
		if (q[k] < lo)
			lo = q[k];
		if (q[k] > hi)
			hi = q[k];
	}
	summary("hbind", th, rounds);
	summary("mbind", tm, rounds);
	med = hb_median(q, rounds);
	printf("summary\tbind\tratio-median=%.3f ratio-min=%.3f ratio-max=%.3f n=%d\n",
	       med / 1000.0, lo / 1000.0, hi / 1000.0, rounds);
}

/* the first CPU of @nid, from sysfs; -1 if it has none */
static int node_cpu(int nid)
{
	char path[64];
	FILE *f;
	int cpu = -1;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", nid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &cpu) != 1)
		cpu = -1;
	fclose(f);
	return cpu;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: fault-bench [-n NODE] [-s MIB] [-r ROUNDS] [-w WARMUP] MODE...\n"
"  times the first touch of MIB (default 256) of anonymous 4 KiB pages on\n"
"  node NODE (default 0), ROUNDS timed rounds (default 20) after WARMUP\n"
"  untimed ones (default 3); MODE is plain (no policy), plain-after (the\n"
"  same, reported apart) or bind (hbind BIND against mbind MPOL_BIND,\n"
"  interleaved, median of the per-round ratios).\n");
}

int main(int argc, char **argv)
{
	int rounds = 20, warmup = 3, c, cpu, i;
	unsigned long mib = 256;

	PS = sysconf(_SC_PAGESIZE);
	while ((c = getopt(argc, argv, "n:s:r:w:h")) != -1) {
		switch (c) {
		case 'n':
			node = atoi(optarg);
			break;
		case 's':
			mib = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'w':
			warmup = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc || rounds < 1 || rounds > MAX_ROUNDS || warmup < 0 ||
	    !mib || node < 0 || node > 63) {
		usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		if (strcmp(argv[i], "plain") && strcmp(argv[i], "plain-after") &&
		    strcmp(argv[i], "bind")) {
			usage(stderr);
			return 2;
		}
	}
	len = mib * MIB;
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* the CPU of the node: plain rounds allocate locally, on @node */
	cpu = node_cpu(node);
	if (cpu < 0) {
		fprintf(stderr, "fault-bench: node %d has no CPU\n", node);
		return 2;
	}
	if (hb_pin(cpu))
		die("sched_setaffinity");
	uid = hb_uid_of_node(node);
	/* bench-fault.sh reads the size and the rounds from this line */
	printf("# fault-bench: %lu MiB, 4 KiB pages, node %d (cpu %d, ",
	       mib, node, cpu);
	printf("target uid %ld), %d rounds after %d warm-up\n",
	       uid, rounds, warmup);

	for (i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "bind"))
			run_bind(rounds, warmup);
		else
			run_plain(argv[i], rounds, warmup);
	}
	return 0;
}
