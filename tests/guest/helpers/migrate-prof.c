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
 * -d DEV: the pages start on test_hms device DEV (/dev/hms_testDEV, opened
 * for the run: hbind() moves them there from node A before the timed step,
 * 4 KiB pages only), and hbind MIGRATE brings them to node B: the device ->
 * system path. -P FILE: write 1 to FILE just before the timed step and 0
 * just after (FILE: tracefs' function_profile_enabled), so that a profile
 * shows nothing of the placement; with one round, as the profiler starts
 * afresh each time it is turned on.
 *
 * Usage: migrate-prof -m hbind|mbind|move_pages|migrate_pages|memcpy
 *                     [-k 4k|thp] [-s MIB] [-r ROUNDS] [-a NODE] [-b NODE]
 *                     [-d DEV] [-P FILE]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "hbtest.h"
#include "test_hms_uapi.h"

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

/* write "1" or "0" to the profiler switch @path, if any */
static void profiler(const char *path, int on)
{
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, on ? "1" : "0", 1) != 1) {
		fprintf(stderr, "migrate-prof: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
}

/* hbind MIGRATE of [p, p + len) to target @uid; pages moved or -1 */
static long migrate_to(char *p, size_t len, uint32_t uid)
{
	uint32_t atoms[3] = {
		HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), 0, 0
	};

	if (sys_hbind((unsigned long)p, len, &uid, 1, atoms, 3))
		return -1;
	return atoms[2];
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
	const char *method = NULL, *kind = "4k", *prof = NULL;
	unsigned long mib = 64;
	int rounds = 5, node_a = 0, node_b = 1, dev = -1, thp, c, k, ok = 1;
	struct hms_test_stats st;
	uint32_t dev_uid = 0;
	uint64_t t[MAX_ROUNDS];

	PS = sysconf(_SC_PAGESIZE);
	while ((c = getopt(argc, argv, "m:k:s:r:a:b:d:P:")) != -1) {
		switch (c) {
		case 'm': method = optarg; break;
		case 'k': kind = optarg; break;
		case 's': mib = strtoul(optarg, NULL, 0); break;
		case 'r': rounds = atoi(optarg); break;
		case 'a': node_a = atoi(optarg); break;
		case 'b': node_b = atoi(optarg); break;
		case 'd': dev = atoi(optarg); break;
		case 'P': prof = optarg; break;
		default: method = NULL; optind = argc; break;
		}
	}
	thp = !strcmp(kind, "thp");
	if (!method || (!thp && strcmp(kind, "4k")) || !mib || rounds < 1 ||
	    rounds > MAX_ROUNDS || node_a < 0 || node_b < 0 || node_a > 63 ||
	    node_b > 63 || node_a == node_b ||
	    (dev >= 0 && (thp || strcmp(method, "hbind")))) {
		fprintf(stderr, "usage: migrate-prof -m hbind|mbind|move_pages|"
			"migrate_pages|memcpy [-k 4k|thp] [-s MIB] [-r ROUNDS] "
			"[-a NODE] [-b NODE] [-d DEV (-m hbind -k 4k)] [-P FILE]\n");
		return 2;
	}
	if (dev >= 0) {
		char path[64];
		int fd;

		/* open for the whole run: test_hms lets its users in */
		snprintf(path, sizeof(path), "/dev/hms_test%d", dev);
		fd = open(path, O_RDWR);
		if (fd < 0 || ioctl(fd, HMS_TEST_STATS, &st)) {
			fprintf(stderr, "migrate-prof: %s: %s\n", path,
				strerror(errno));
			return 1;
		}
		dev_uid = st.uid;
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
		if (dev >= 0 && migrate_to(p, len, dev_uid) != (long)n) {
			fprintf(stderr, "migrate-prof: not every page went to device %d\n",
				dev);
			return 1;
		}
		profiler(prof, 1);
		t0 = hb_now_ns();
		if (d) {
			memcpy(d, p, len);
		} else if (!strcmp(method, "hbind")) {
			ret = migrate_to(p, len, (uint32_t)hb_uid_of_node(node_b));
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
		profiler(prof, 0);
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
	printf("%s %s %lu MiB%s: median %.2f ms of %d rounds%s\n", method,
	       thp ? "THP" : "4K", mib, dev >= 0 ? " from the device" : "",
	       hb_median(t, rounds) / 1e6, rounds,
	       ok ? "" : " (NOT all pages on node B / copy differs)");
	return !ok;
}
