// SPDX-License-Identifier: GPL-2.0
/*
 * migrate-prof - the workload of the migration profile (scripts/bench.sh
 * --profile): ROUNDS times, map SIZE MiB of anonymous memory (4 KiB pages or
 * THP), place it on node A (bound, touched, policy dropped: no migration),
 * then move it to node B with one METHOD, or memcpy() its bytes into a
 * buffer of the same kind touched on node B, and unmap. Nothing but the
 * timed step migrates pages, so a profile taken around the whole run (ftrace's
 * function profiler) shows that step alone. Prints the median time of the
 * step and checks that every page arrived (memcpy: that the copy is intact).
 *
 * Usage: migrate-prof -m hbind|mbind|move_pages|migrate_pages|memcpy
 *                     [-k 4k|thp] [-s MIB] [-r ROUNDS] [-a NODE] [-b NODE]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <sys/mman.h>

#include "hbtest.h"

#define MIB		(1024UL * 1024UL)
#define THP_SIZE	(2 * MIB)
#define MAX_ROUNDS	64

static long PS;

/* @len bytes, THP-aligned, of the kind asked, bound to @node and touched */
static char *map_on(size_t len, int thp, int node, int keep_policy)
{
	unsigned long mask = 1UL << node;
	char *p, *a;
	size_t i;

	p = mmap(NULL, len + THP_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + THP_SIZE - 1) & ~(THP_SIZE - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + len, p + THP_SIZE - a);
	if (madvise(a, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) ||
	    sys_mbind((unsigned long)a, len, HB_MPOL_BIND, &mask, HB_MAXNODE, 0))
		return NULL;
	for (i = 0; i < len; i += PS)
		a[i] = (char)(i / PS);
	if (!keep_policy &&
	    sys_mbind((unsigned long)a, len, HB_MPOL_DEFAULT, NULL, 0, 0))
		return NULL;
	return a;
}

/* pages of [p, p + len) on @node */
static size_t count_on(char *p, size_t len, int node)
{
	size_t n = len / PS, i, on = 0;
	void **pages = malloc(n * sizeof(*pages));
	int *status = malloc(n * sizeof(*status));

	if (!pages || !status) {
		fprintf(stderr, "migrate-prof: out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++)
		pages[i] = p + i * PS;
	if (sys_move_pages(0, n, pages, NULL, status, 0) == 0)
		for (i = 0; i < n; i++)
			on += status[i] == node;
	free(pages);
	free(status);
	return on;
}

int main(int argc, char **argv)
{
	const char *method = NULL, *kind = "4k";
	unsigned long mib = 64;
	int rounds = 5, node_a = 0, node_b = 1, thp, c, k, ok = 1;
	uint64_t t[MAX_ROUNDS];

	PS = sysconf(_SC_PAGESIZE);
	while ((c = getopt(argc, argv, "m:k:s:r:a:b:")) != -1) {
		switch (c) {
		case 'm': method = optarg; break;
		case 'k': kind = optarg; break;
		case 's': mib = strtoul(optarg, NULL, 0); break;
		case 'r': rounds = atoi(optarg); break;
		case 'a': node_a = atoi(optarg); break;
		case 'b': node_b = atoi(optarg); break;
		default: method = NULL; optind = argc; break;
		}
	}
	thp = !strcmp(kind, "thp");
	if (!method || (!thp && strcmp(kind, "4k")) || !mib || rounds < 1 ||
	    rounds > MAX_ROUNDS || node_a < 0 || node_b < 0 || node_a > 63 ||
	    node_b > 63 || node_a == node_b) {
		fprintf(stderr, "usage: migrate-prof -m hbind|mbind|move_pages|"
			"migrate_pages|memcpy [-k 4k|thp] [-s MIB] [-r ROUNDS] "
			"[-a NODE] [-b NODE]\n");
		return 2;
	}
	for (k = 0; k < rounds; k++) {
		size_t len = mib * MIB, n = len / PS, i;
		unsigned long ma = 1UL << node_a, mb = 1UL << node_b;
		char *p = map_on(len, thp, node_a, 0), *d = NULL;
		void **pages = NULL;
		int *nodes = NULL, *status = NULL;
		uint64_t t0;
		long ret = 0;

		if (!p) {
			perror("migrate-prof: map on node A");
			return 1;
		}
		if (!strcmp(method, "memcpy")) {
			d = map_on(len, thp, node_b, 1);
			if (!d) {
				perror("migrate-prof: map on node B");
				return 1;
			}
		} else if (!strcmp(method, "move_pages")) {
			pages = malloc(n * sizeof(*pages));
			nodes = malloc(n * sizeof(*nodes));
			status = malloc(n * sizeof(*status));
			if (!pages || !nodes || !status)
				return 1;
			for (i = 0; i < n; i++) {
				pages[i] = p + i * PS;
				nodes[i] = node_b;
			}
		}
		t0 = hb_now_ns();
		if (d) {
			memcpy(d, p, len);
		} else if (!strcmp(method, "hbind")) {
			uint32_t tgt = (uint32_t)hb_uid_of_node(node_b);
			uint32_t atoms[3] = {
				HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), 0, 0
			};

			ret = sys_hbind((unsigned long)p, len, &tgt, 1, atoms, 3);
		} else if (!strcmp(method, "mbind")) {
			ret = sys_mbind((unsigned long)p, len, HB_MPOL_BIND, &mb,
					HB_MAXNODE, HB_MPOL_MF_MOVE);
		} else if (!strcmp(method, "move_pages")) {
			ret = sys_move_pages(0, n, pages, nodes, status, 0);
		} else if (!strcmp(method, "migrate_pages")) {
			ret = sys_migrate_pages(0, HB_MAXNODE, &ma, &mb);
		} else {
			fprintf(stderr, "migrate-prof: unknown method %s\n", method);
			return 2;
		}
		t[k] = hb_now_ns() - t0;
		if (ret < 0) {
			fprintf(stderr, "migrate-prof: %s: %s\n", method, strerror(errno));
			return 1;
		}
		if (d ? memcmp(d, p, len) || count_on(d, len, node_b) != n :
		    count_on(p, len, node_b) != n)
			ok = 0;
		munmap(p, len);
		if (d)
			munmap(d, len);
		free(pages);
		free(nodes);
		free(status);
	}
	printf("%s %s %lu MiB: median %.2f ms of %d rounds%s\n", method,
	       thp ? "THP" : "4K", mib, hb_median(t, rounds) / 1e6, rounds,
	       ok ? "" : " (NOT all pages on node B / copy differs)");
	return !ok;
}
