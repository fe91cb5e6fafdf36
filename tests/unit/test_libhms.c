// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_libhms.c - host unit tests for libhms and hmsctl.
 *
 *   test_libhms [--tap] FIXTURES_DIR [HMSCTL]
 *
 * FIXTURES_DIR holds the trees built by tests/fixtures/mkfixture.sh (one
 * directory per fixture name); HMSCTL is the hmsctl binary for the CLI
 * tests (skipped without it). Random and large topologies are generated
 * here, in a temporary directory, and checked against independent
 * implementations of the path rule (exhaustive simple-path enumeration for
 * small graphs, bandwidth-threshold sweep + Bellman-Ford for large ones).
 *
 * Output: with --tap, TAP (plan first); otherwise failures only and a
 * last line "N passed, N failed" (", N skipped" if any). Exit status 0
 * when nothing failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hms.h"

static const char *fixtures;
static const char *hmsctl;
static char tmpdir[PATH_MAX];
static int tap;

/* ------------------------------------------------------------------ */
/* harness                                                             */

static int cur_failed, cur_skipped;
static char skip_reason[256];

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			cur_failed++;					\
			printf("# %s:%d: check failed: %s\n", __FILE__,	\
			       __LINE__, #cond);			\
			printf("#   ");					\
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	CHECK((uint64_t)(a) == (uint64_t)(b), "%s = %" PRIu64 ", expected %" PRIu64, \
	      #a, (uint64_t)(a), (uint64_t)(b))

#define SKIP(...)							\
	do {								\
		cur_skipped = 1;					\
		snprintf(skip_reason, sizeof(skip_reason), __VA_ARGS__); \
		return;							\
	} while (0)

/* The weak hooks are overridden: count warnings, stay quiet. */
static int nwarn[8], nerror;

void hms_warn(int num, const char *fmt, ...)
{
	int e = errno;

	(void)fmt;
	if (num >= 0 && num < 8)
		nwarn[num]++;
	errno = e;
}

void hms_error(const char *where)
{
	(void)where;
	nerror++;
}

static char *fxroot(const char *name)
{
	static char buf[4][PATH_MAX];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, PATH_MAX, "%s/%s/sys/bus/hms", fixtures, name);
	return b;
}

static struct hms_topology *load(const char *name)
{
	struct hms_topology *topo = NULL;

	if (hms_topology_load_from(&topo, fxroot(name))) {
		printf("# cannot load fixture %s: %s\n", name, strerror(errno));
		cur_failed++;
		return NULL;
	}
	return topo;
}

/* ------------------------------------------------------------------ */
/* fixtures: flat, lookups, attributes                                 */

static void test_flat(void)
{
	struct hms_topology *topo = load("flat");
	const struct hms_target *t;
	const struct hms_initiator *in;
	const struct hms_link *l;
	struct hms_perf p;

	if (!topo)
		return;
	CHECK_EQ(hms_topology_ntargets(topo), 1);
	CHECK_EQ(hms_topology_ninitiators(topo), 1);
	CHECK_EQ(hms_topology_nlinks(topo), 1);
	CHECK_EQ(hms_topology_nbridges(topo), 0);
	CHECK_EQ(hms_topology_nskipped(topo), 0);
	CHECK_EQ(hms_topology_nignored(topo), 0);
	t = hms_topology_target(topo, 0);
	CHECK(t != NULL, "target 0");
	if (!t)
		goto out;
	CHECK_EQ(hms_target_uid(t), 1);
	CHECK_EQ(hms_target_size(t), 1ULL << 30);
	CHECK_EQ(hms_target_nid(t), 0);
	CHECK_EQ(hms_target_type(t), HMS_TARGET_SYSTEM);
	CHECK(!strcmp(hms_target_type_name(t), "system"), "type name");
	CHECK_EQ(hms_target_cpu_accessible(t), 1);
	CHECK_EQ(hms_target_nlinks(t), 1);
	in = hms_topology_initiator(topo, 0);
	CHECK_EQ(hms_initiator_uid(in), 2);
	CHECK_EQ(hms_initiator_nid(in), 0);
	CHECK(!strcmp(hms_initiator_cpulist(in), "0-1"), "cpulist %s",
	      hms_initiator_cpulist(in));
	CHECK_EQ(hms_initiator_ncpus(in), 2);
	CHECK_EQ(hms_initiator_has_cpu(in, 0), 1);
	CHECK_EQ(hms_initiator_has_cpu(in, 1), 1);
	CHECK_EQ(hms_initiator_has_cpu(in, 2), 0);
	CHECK_EQ(hms_initiator_has_cpu(in, -1), 0);
	CHECK_EQ(hms_initiator_is_device(in), 0);
	CHECK(hms_initiator_device(in) == NULL, "no device");
	CHECK_EQ(hms_initiator_nbridges(in), 0);
	l = hms_topology_link(topo, 0);
	CHECK_EQ(hms_link_uid(l), 3);
	CHECK_EQ(hms_link_perf(l)->read_bandwidth, 16384);
	CHECK_EQ(hms_link_perf(l)->write_bandwidth, 16384);
	CHECK_EQ(hms_link_perf(l)->read_latency, 80);
	CHECK_EQ(hms_link_perf(l)->write_latency, 80);
	CHECK_EQ(hms_link_distance(l), 10);
	CHECK_EQ(hms_link_ntargets(l), 1);
	CHECK(hms_link_target(l, 0) == t, "link target");
	CHECK(hms_link_initiator(l, 0) == in, "link initiator");
	CHECK(hms_target_link(t, 0) == l, "target link");
	CHECK(hms_initiator_link(in, 0) == l, "initiator link");
	CHECK(hms_link_target(l, 1) == NULL && errno == EINVAL, "out of range");
	CHECK_EQ(hms_path(topo, in, t, &p), 0);
	CHECK_EQ(p.read_bandwidth, 16384);
	CHECK_EQ(p.read_latency, 80);
out:
	hms_topology_free(topo);
}

static void test_lookups(void)
{
	struct hms_topology *topo = load("flat");
	const struct hms_initiator *in;
	int cpu;

	if (!topo)
		return;
	CHECK_EQ(hms_uid_type(topo, 1), HMS_OBJ_TARGET);
	CHECK_EQ(hms_uid_type(topo, 2), HMS_OBJ_INITIATOR);
	CHECK_EQ(hms_uid_type(topo, 3), HMS_OBJ_LINK);
	CHECK_EQ(hms_uid_type(topo, 4), HMS_OBJ_NONE);
	CHECK(hms_target_by_uid(topo, 1) == hms_topology_target(topo, 0), "by uid");
	errno = 0;
	CHECK(hms_target_by_uid(topo, 2) == NULL && errno == ENOENT,
	      "initiator uid is not a target");
	CHECK(hms_link_by_uid(topo, 1) == NULL, "target uid is not a link");
	CHECK(hms_bridge_by_uid(topo, 3) == NULL, "no bridge");
	CHECK(hms_initiator_by_uid(topo, 2) != NULL, "initiator by uid");
	CHECK(hms_link_by_uid(topo, 3) != NULL, "link by uid");
	CHECK(hms_target_by_nid(topo, 0) == hms_topology_target(topo, 0), "by nid");
	CHECK(hms_target_by_nid(topo, 1) == NULL && errno == ENOENT, "no nid 1");
	CHECK(hms_target_by_nid(topo, -1) == NULL, "nid -1");
	CHECK(hms_initiator_by_nid(topo, 0) != NULL, "initiator by nid");
	CHECK(hms_initiator_by_cpu(topo, 1) != NULL, "by cpu 1");
	CHECK(hms_initiator_by_cpu(topo, 2) == NULL && errno == ENOENT, "cpu 2");
	cpu = sched_getcpu();
	in = hms_initiator_current(topo);
	if (cpu >= 0 && cpu <= 1)
		CHECK(in && hms_initiator_uid(in) == 2, "current (cpu %d)", cpu);
	else
		CHECK(in == NULL, "current on cpu %d", cpu);
	CHECK(hms_initiator_by_device(topo, "hms_test0") == NULL, "no device");
	CHECK(hms_initiator_by_device(topo, NULL) == NULL && errno == EINVAL, "NULL dev");
	hms_topology_free(topo);
}

/* (initiator uid, target uid) -> read bw, read lat from the HMAT profile */
static const struct { uint32_t i, t; uint64_t bw, lat; } tsh[] = {
	{ 5, 1, 20480, 90 }, { 5, 2, 10240, 140 }, { 5, 3, 81920, 60 },
	{ 5, 4, 8192, 170 }, { 6, 1, 11264, 145 }, { 6, 2, 21504, 95 },
	{ 6, 3, 9216, 175 }, { 6, 4, 83968, 65 },
};

static uint32_t best_uid(struct hms_topology *topo, uint32_t in, unsigned int by)
{
	const struct hms_target *t =
		hms_best_target(topo, hms_initiator_by_uid(topo, in), by, 0);

	return t ? hms_target_uid(t) : 0;
}

static int list_is(struct hms_topology *topo, uint32_t in, unsigned int by,
		   const uint32_t *want, int n)
{
	uint32_t got[16];
	int k = hms_target_fallback_list(topo, hms_initiator_by_uid(topo, in), by,
					 got, 16);

	if (k != n) {
		printf("#   list length %d, expected %d\n", k, n);
		return 0;
	}
	for (int i = 0; i < n; i++)
		if (got[i] != want[i]) {
			printf("#   list[%d] = %u, expected %u\n", i, got[i], want[i]);
			return 0;
		}
	return 1;
}

static void test_two_socket_hbm(void)
{
	struct hms_topology *topo = load("two-socket-hbm");
	uint32_t got[4];
	size_t k;

	if (!topo)
		return;
	CHECK_EQ(hms_topology_ntargets(topo), 4);
	CHECK_EQ(hms_topology_nlinks(topo), 8);
	for (k = 0; k < sizeof(tsh) / sizeof(tsh[0]); k++) {
		struct hms_perf p = { 0 };

		CHECK(hms_path(topo, hms_initiator_by_uid(topo, tsh[k].i),
			       hms_target_by_uid(topo, tsh[k].t), &p) == 0,
		      "path %u -> %u", tsh[k].i, tsh[k].t);
		CHECK(p.read_bandwidth == tsh[k].bw && p.write_bandwidth == tsh[k].bw &&
		      p.read_latency == tsh[k].lat && p.write_latency == tsh[k].lat,
		      "path %u -> %u: %" PRIu64 "/%" PRIu64, tsh[k].i, tsh[k].t,
		      p.read_bandwidth, p.read_latency);
	}
	CHECK_EQ(hms_link_distance(hms_link_by_uid(topo, 8)), 21);
	CHECK_EQ(best_uid(topo, 5, HMS_BY_BANDWIDTH), 3);
	CHECK_EQ(best_uid(topo, 5, HMS_BY_LATENCY), 3);
	CHECK_EQ(best_uid(topo, 5, HMS_BY_CAPACITY), 1);
	CHECK_EQ(best_uid(topo, 6, HMS_BY_BANDWIDTH), 4);
	CHECK_EQ(best_uid(topo, 6, HMS_BY_LATENCY), 4);
	CHECK_EQ(best_uid(topo, 6, HMS_BY_CAPACITY), 2);
	CHECK_EQ(best_uid(topo, 5, HMS_BY_CAPACITY | HMS_ONLY_CPULESS), 3);
	CHECK_EQ(best_uid(topo, 6, HMS_BY_CAPACITY | HMS_ONLY_CPULESS), 4);
	CHECK_EQ(best_uid(topo, 5, HMS_BY_BANDWIDTH | HMS_ONLY_SYSTEM), 3);
	errno = 0;
	CHECK_EQ(best_uid(topo, 5, HMS_BY_BANDWIDTH | HMS_ONLY_DEVICE), 0);
	CHECK_EQ(errno, ENOENT);
	CHECK(list_is(topo, 5, HMS_BY_BANDWIDTH, (uint32_t[]){ 3, 1, 2, 4 }, 4), "5 bw");
	CHECK(list_is(topo, 6, HMS_BY_LATENCY, (uint32_t[]){ 4, 2, 1, 3 }, 4), "6 lat");
	CHECK(list_is(topo, 5, HMS_BY_CAPACITY, (uint32_t[]){ 1, 2, 3, 4 }, 4), "5 cap");
	CHECK(list_is(topo, 6, HMS_BY_CAPACITY, (uint32_t[]){ 2, 1, 4, 3 }, 4), "6 cap");
	CHECK(list_is(topo, 6, HMS_BY_BANDWIDTH | HMS_ONLY_CPULESS,
		      (uint32_t[]){ 4, 3 }, 2), "6 cpuless");
	CHECK_EQ(hms_target_fallback_list(topo, hms_initiator_by_uid(topo, 5),
					  HMS_BY_BANDWIDTH, NULL, 0), 4);
	CHECK_EQ(hms_target_fallback_list(topo, hms_initiator_by_uid(topo, 5),
					  HMS_BY_BANDWIDTH, got, 2), 2);
	CHECK(got[0] == 3 && got[1] == 1, "truncated list");
	{
		struct hms_target_perf r[8];
		int n = hms_target_ranking(topo, hms_initiator_by_uid(topo, 5),
					   HMS_BY_BANDWIDTH, r, 8);

		CHECK(n == 4 && hms_target_uid(r[0].target) == 3 &&
		      r[0].perf.read_bandwidth == 81920 && r[0].perf.read_latency == 60 &&
		      hms_target_uid(r[3].target) == 4 && r[3].perf.write_latency == 170,
		      "ranking (%d)", n);
		CHECK_EQ(hms_target_ranking(topo, hms_initiator_by_uid(topo, 6),
					    HMS_BY_LATENCY, NULL, 0), 4);
	}
	CHECK(hms_initiator_by_cpu(topo, 1) == hms_initiator_by_uid(topo, 6), "cpu 1");
	CHECK(hms_target_by_nid(topo, 3) == hms_target_by_uid(topo, 4), "nid 3");
	hms_topology_free(topo);
}

static void test_device(void)
{
	struct hms_topology *topo = load("device");
	const struct hms_initiator *cpu, *d0, *d1;
	const struct hms_target *t4, *t8, *t1;
	const struct hms_bridge *b13;
	struct hms_perf p;
	uint32_t el[8];
	char path[PATH_MAX];

	if (!topo)
		return;
	cpu = hms_initiator_by_uid(topo, 2);
	d0 = hms_initiator_by_uid(topo, 5);
	d1 = hms_initiator_by_uid(topo, 9);
	t1 = hms_target_by_uid(topo, 1);
	t4 = hms_target_by_uid(topo, 4);
	t8 = hms_target_by_uid(topo, 8);
	CHECK(cpu && d0 && d1 && t1 && t4 && t8, "objects");
	if (!(cpu && d0 && d1 && t1 && t4 && t8))
		goto out;
	CHECK_EQ(hms_initiator_is_device(d0), 1);
	CHECK_EQ(hms_initiator_nid(d0), -1);
	CHECK(!strcmp(hms_initiator_cpulist(d0), ""), "empty cpulist");
	CHECK(hms_initiator_device_name(d0) &&
	      !strcmp(hms_initiator_device_name(d0), "hms_test0"), "device name");
	CHECK(hms_initiator_by_device(topo, "hms_test1") == d1, "by name");
	snprintf(path, sizeof(path), "%s/device/sys/devices/virtual/hms_test/hms_test0",
		 fixtures);
	CHECK(hms_initiator_by_device(topo, path) == d0, "by path %s", path);
	{
		/* a /sys/class-style symlink to the device resolves to it too */
		char cls[PATH_MAX];

		snprintf(cls, sizeof(cls), "%s/class-hms_test1", tmpdir);
		snprintf(path, sizeof(path),
			 "%s/device/sys/devices/virtual/hms_test/hms_test1", fixtures);
		CHECK(symlink(path, cls) == 0, "symlink");
		CHECK(hms_initiator_by_device(topo, cls) == d1, "by class link");
		unlink(cls);
	}
	CHECK_EQ(hms_target_type(t4), HMS_TARGET_DEVICE_PRIVATE);
	CHECK_EQ(hms_target_cpu_accessible(t4), 0);
	CHECK_EQ(hms_target_nid(t4), -1);
	CHECK_EQ(hms_initiator_nbridges(d0), 1);
	b13 = hms_bridge_by_uid(topo, 13);
	CHECK(b13 && hms_initiator_bridge(d0, 0) == b13, "bridge 13");
	CHECK(hms_bridge_allows(b13, d0) && !hms_bridge_allows(b13, d1), "allows");
	CHECK(hms_link_uid(hms_bridge_link(b13, 0)) == 10 &&
	      hms_link_uid(hms_bridge_link(b13, 1)) == 12, "bridge links");
	CHECK_EQ(hms_bridge_perf(b13)->write_latency, 25);
	CHECK_EQ(hms_bridge_ninitiators(b13), 1);
	CHECK_EQ(hms_link_ninitiators(hms_link_by_uid(topo, 12)), 2);
	CHECK_EQ(hms_link_nbridges(hms_link_by_uid(topo, 12)), 2);
	/* peer path through the bridge */
	CHECK_EQ(hms_path(topo, d0, t8, &p), 0);
	CHECK(p.read_bandwidth == 50000 && p.read_latency == 270 &&
	      p.write_bandwidth == 30000 && p.write_latency == 295,
	      "5 -> 8: %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
	      p.read_bandwidth, p.read_latency, p.write_bandwidth, p.write_latency);
	CHECK_EQ(hms_path_elements(topo, d0, t8, NULL, 0), 3);
	CHECK_EQ(hms_path_elements(topo, d0, t8, el, 8), 3);
	CHECK(el[0] == 12 && el[1] == 13 && el[2] == 10, "elements %u %u %u",
	      el[0], el[1], el[2]);
	CHECK_EQ(hms_path(topo, d1, t4, &p), 0);
	CHECK_EQ(p.read_latency, 270);
	CHECK_EQ(hms_path(topo, d0, t4, &p), 0);
	CHECK_EQ(p.read_bandwidth, 100000);
	CHECK_EQ(hms_path(topo, d0, t1, &p), 0);
	CHECK(p.read_bandwidth == 16000 && p.write_latency == 600, "host link");
	/* the CPU cannot reach device-private memory */
	errno = 0;
	CHECK(hms_path(topo, cpu, t4, &p) == -1 && errno == ENOENT, "cpu -> 4");
	CHECK(hms_path_elements(topo, cpu, t8, el, 8) == -1 && errno == ENOENT,
	      "cpu -> 8");
	CHECK_EQ(best_uid(topo, 2, HMS_BY_BANDWIDTH), 1);
	CHECK_EQ(best_uid(topo, 5, HMS_BY_BANDWIDTH), 4);
	CHECK_EQ(best_uid(topo, 5, HMS_BY_BANDWIDTH | HMS_ONLY_SYSTEM), 1);
	CHECK_EQ(best_uid(topo, 5, HMS_BY_LATENCY | HMS_ONLY_CPU_ACCESSIBLE), 1);
	CHECK_EQ(best_uid(topo, 9, HMS_BY_BANDWIDTH | HMS_ONLY_DEVICE), 8);
	CHECK(list_is(topo, 5, HMS_BY_BANDWIDTH, (uint32_t[]){ 4, 8, 1 }, 3), "5");
	CHECK(list_is(topo, 9, HMS_BY_LATENCY, (uint32_t[]){ 8, 4, 1 }, 3), "9");
	CHECK(list_is(topo, 2, HMS_BY_BANDWIDTH, (uint32_t[]){ 1 }, 1), "2");
	CHECK(list_is(topo, 5, HMS_BY_CAPACITY, (uint32_t[]){ 1, 4, 8 }, 3), "cap");
out:
	hms_topology_free(topo);
}

static void expect_path(struct hms_topology *topo, uint32_t i, uint32_t t,
			uint64_t rbw, uint64_t rlat, uint64_t wbw, uint64_t wlat)
{
	struct hms_perf p = { 0 };
	int r = hms_path(topo, hms_initiator_by_uid(topo, i),
			 hms_target_by_uid(topo, t), &p);

	CHECK(r == 0, "path %u -> %u: %s", i, t, strerror(errno));
	CHECK(p.read_bandwidth == rbw && p.read_latency == rlat &&
	      p.write_bandwidth == wbw && p.write_latency == wlat,
	      "%u -> %u: got %" PRIu64 "/%" PRIu64 " %" PRIu64 "/%" PRIu64
	      ", expected %" PRIu64 "/%" PRIu64 " %" PRIu64 "/%" PRIu64,
	      i, t, p.read_bandwidth, p.read_latency, p.write_bandwidth,
	      p.write_latency, rbw, rlat, wbw, wlat);
}

/* Hand-computed: see the comment of fx_paths in mkfixture.sh. */
static void test_paths(void)
{
	struct hms_topology *topo = load("paths");
	uint32_t el[8];
	int n;

	if (!topo)
		return;
	expect_path(topo, 1, 2, 900, 126, 450, 131);
	n = hms_path_elements(topo, hms_initiator_by_uid(topo, 1),
			      hms_target_by_uid(topo, 2), el, 8);
	CHECK(n == 5 && el[0] == 10 && el[1] == 21 && el[2] == 13 && el[3] == 24 &&
	      el[4] == 11, "P4 elements (%d)", n);
	n = hms_path_elements(topo, hms_initiator_by_uid(topo, 1),
			      hms_target_by_uid(topo, 2), el, 2);
	CHECK(n == 2 && el[0] == 10 && el[1] == 21, "truncated elements");
	expect_path(topo, 3, 2, 1000, 0, 500, 0);	/* only via B25 */
	expect_path(topo, 1, 30, 700, 0, 350, 0);	/* widest, unknown lat */
	expect_path(topo, 1, 40, 50, 12, 25, 15);	/* unknown bw ranks last */
	expect_path(topo, 1, 60, 1000, 22, 500, 25);	/* known lat wins */
	errno = 0;
	CHECK(hms_path(topo, hms_initiator_by_uid(topo, 1),
		       hms_target_by_uid(topo, 50), NULL) == -1 && errno == ENOENT,
	      "50 unreachable");
	CHECK(hms_path(topo, hms_initiator_by_uid(topo, 3),
		       hms_target_by_uid(topo, 30), NULL) == -1 && errno == ENOENT,
	      "bridge 32 does not list initiator 3");
	/* by bandwidth: 60 (1000), 2 (900), 30 (700), 40 (50) */
	CHECK(list_is(topo, 1, HMS_BY_BANDWIDTH, (uint32_t[]){ 60, 2, 30, 40 }, 4), "bw");
	/* by latency: 40 (12), 60 (22), 2 (126), 30 (unknown) */
	CHECK(list_is(topo, 1, HMS_BY_LATENCY, (uint32_t[]){ 40, 60, 2, 30 }, 4), "lat");
	CHECK(list_is(topo, 3, HMS_BY_LATENCY, (uint32_t[]){ 2 }, 1), "3");
	hms_topology_free(topo);
}

static void test_versions(void)
{
	struct hms_topology *topo;
	const struct hms_link *l;

	memset(nwarn, 0, sizeof(nwarn));
	topo = load("versions");
	if (!topo)
		return;
	CHECK_EQ(hms_topology_ntargets(topo), 1);
	CHECK_EQ(hms_topology_nlinks(topo), 1);
	CHECK_EQ(hms_topology_nignored(topo), 3);
	CHECK_EQ(hms_topology_nskipped(topo), 0);
	CHECK_EQ(nwarn[HMS_W_VERSION], 3);
	CHECK_EQ(hms_uid_type(topo, 100), HMS_OBJ_NONE);
	l = hms_link_by_uid(topo, 3);
	CHECK_EQ(hms_link_ntargets(l), 1);
	CHECK_EQ(hms_initiator_nlinks(hms_initiator_by_uid(topo, 2)), 1);
	hms_topology_free(topo);
}

static void test_malformed(void)
{
	struct hms_topology *topo = NULL;
	const struct hms_link *l5;
	struct hms_perf p;

	memset(nwarn, 0, sizeof(nwarn));
	topo = load("malformed");
	if (!topo)
		return;
	CHECK_EQ(hms_topology_ntargets(topo), 2);
	CHECK_EQ(hms_topology_ninitiators(topo), 1);
	CHECK_EQ(hms_topology_nlinks(topo), 2);
	CHECK_EQ(hms_topology_nbridges(topo), 1);
	CHECK_EQ(hms_topology_nskipped(topo), 9);
	CHECK(nwarn[HMS_W_MALFORMED] >= 9, "malformed warnings %d", nwarn[HMS_W_MALFORMED]);
	CHECK(nwarn[HMS_W_DANGLING] >= 2, "dangling warnings %d", nwarn[HMS_W_DANGLING]);
	CHECK_EQ(hms_target_cpu_accessible(hms_target_by_uid(topo, 4)), 1);
	CHECK(hms_target_by_uid(topo, 10) == NULL, "10 skipped");
	CHECK(hms_target_by_uid(topo, 14) == NULL, "14 skipped");
	CHECK(hms_initiator_by_uid(topo, 12) == NULL, "12 skipped");
	l5 = hms_link_by_uid(topo, 5);
	CHECK(l5 && hms_link_perf(l5)->read_bandwidth == 0 &&
	      hms_link_perf(l5)->write_latency == 0, "link 5 unknown perf");
	CHECK_EQ(hms_link_ntargets(hms_link_by_uid(topo, 3)), 1);
	CHECK_EQ(hms_initiator_nlinks(hms_initiator_by_uid(topo, 2)), 2);
	CHECK(hms_bridge_link(hms_bridge_by_uid(topo, 20), 0) == NULL, "bridge 20");
	CHECK_EQ(hms_path(topo, hms_initiator_by_uid(topo, 2),
			  hms_target_by_uid(topo, 4), &p), 0);
	CHECK(p.read_bandwidth == 0 && p.read_latency == 0, "unknown path perf");
	CHECK_EQ(best_uid(topo, 2, HMS_BY_BANDWIDTH), 1);
	CHECK_EQ(best_uid(topo, 2, HMS_BY_LATENCY), 1);
	hms_topology_free(topo);
	topo = (struct hms_topology *)1;
	errno = 0;
	CHECK(hms_topology_load_from_flags(&topo, fxroot("malformed"),
					   HMS_TOPOLOGY_STRICT) == -1 &&
	      errno == EINVAL && topo == NULL, "strict load fails");
	CHECK(hms_topology_load_from_flags(&topo, fxroot("paths"),
					   HMS_TOPOLOGY_STRICT) == 0, "strict ok");
	hms_topology_free(topo);
}

static void test_errors(void)
{
	struct hms_topology *topo = NULL, *other;
	char path[PATH_MAX];

	errno = 0;
	CHECK(hms_topology_load_from(&topo, "/nonexistent/hms") == -1 &&
	      errno == ENOENT && topo == NULL, "missing root");
	CHECK(hms_topology_load_from(NULL, fxroot("flat")) == -1 && errno == EINVAL,
	      "NULL topo");
	CHECK(hms_topology_load(&topo, 0x80) == -1 && errno == EINVAL, "bad flags");
	snprintf(path, sizeof(path), "%s/flat/sys/bus/hms/devices/v1-1-target/uid",
		 fixtures);
	CHECK(hms_topology_load_from(&topo, path) == -1, "root is a file");
	setenv("HMS_SYSFS_ROOT", fxroot("two-socket-hbm"), 1);
	CHECK(hms_topology_load(&topo, 0) == 0, "HMS_SYSFS_ROOT");
	unsetenv("HMS_SYSFS_ROOT");
	CHECK_EQ(hms_topology_ntargets(topo), 4);
	other = load("two-socket-hbm");
	errno = 0;
	CHECK(hms_path(topo, hms_initiator_by_uid(other, 5),
		       hms_target_by_uid(topo, 1), NULL) == -1 && errno == EINVAL,
	      "object of another topology");
	CHECK(hms_path(NULL, NULL, NULL, NULL) == -1 && errno == EINVAL, "NULLs");
	CHECK(hms_best_target(topo, hms_initiator_by_uid(topo, 5), HMS_BY_BANDWIDTH,
			      1) == NULL && errno == EINVAL, "flags");
	CHECK(hms_best_target(topo, hms_initiator_by_uid(topo, 5), 0, 0) == NULL &&
	      errno == EINVAL, "by 0");
	CHECK(hms_best_target(topo, hms_initiator_by_uid(topo, 5), 4, 0) == NULL &&
	      errno == EINVAL, "by 4");
	CHECK(hms_best_target(topo, hms_initiator_by_uid(topo, 5),
			      HMS_BY_BANDWIDTH | (1U << 20), 0) == NULL &&
	      errno == EINVAL, "unknown filter bit");
	CHECK(hms_target_fallback_list(topo, NULL, HMS_BY_BANDWIDTH, NULL, 0) == -1 &&
	      errno == EINVAL, "NULL initiator");
	CHECK(hms_topology_target(topo, 4) == NULL && errno == EINVAL, "index");
	CHECK(hms_topology_target(NULL, 0) == NULL, "NULL topology");
	CHECK_EQ(hms_topology_ntargets(NULL), 0);
	CHECK_EQ(hms_target_size(NULL), 0);
	CHECK(hms_link_perf(NULL) == NULL, "NULL link");
	CHECK_EQ(hms_initiator_has_cpu(NULL, 0), 0);
	hms_topology_free(other);
	hms_topology_free(topo);
	hms_topology_free(NULL);
}

static void test_hbind_enosys(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *buf;
	uint32_t uid = 1, atom = 1;
	int32_t q[4];

	CHECK_EQ(hms_npages((void *)(uintptr_t)ps, 1), 1);
	CHECK_EQ(hms_npages((void *)(uintptr_t)(ps + 1), (size_t)ps), 2);
	CHECK_EQ(hms_npages((void *)(uintptr_t)ps, 0), 0);
	CHECK_EQ(hms_npages((void *)(uintptr_t)ps, 3 * (size_t)ps), 3);
	if (hms_has_hbind())
		SKIP("the running kernel has hbind()");
	CHECK_EQ(hms_has_hbind(), 0);
	errno = 0;
	CHECK(hbind(0, 0, NULL, 0, &atom, 1) == -1 && errno == ENOSYS, "hbind");
	buf = mmap(NULL, 4 * (size_t)ps, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(buf != MAP_FAILED, "mmap");
	if (buf == MAP_FAILED)
		return;
	errno = 0;
	CHECK(hms_bind(buf, 4 * (size_t)ps, &uid, 1, HMS_BIND_STRICT) == -1 &&
	      errno == ENOSYS, "bind");
	CHECK(hms_migrate(buf, 4 * (size_t)ps, &uid, 1, 0) == -1 && errno == ENOSYS,
	      "migrate");
	CHECK(hms_query(buf, 4 * (size_t)ps, q) == -1 && errno == ENOSYS, "query");
	CHECK(hms_default(buf, 4 * (size_t)ps) == -1 && errno == ENOSYS, "default");
	CHECK(hms_alloc_on_target(4 * (size_t)ps, 1, HMS_ALLOC_POPULATE) == NULL &&
	      errno == ENOSYS, "alloc");
	CHECK(hms_alloc_on_target(0, 1, 0) == NULL && errno == EINVAL, "alloc 0");
	CHECK(hms_alloc_on_target(4096, 1, 0x100) == NULL && errno == EINVAL,
	      "alloc flags");
	CHECK_EQ(hms_free(NULL, 0), 0);
	munmap(buf, 4 * (size_t)ps);
}

/* ------------------------------------------------------------------ */
/* generated topologies                                                */

struct mperf { uint64_t rbw, wbw, rlat, wlat; };
struct mtarget { int nl, l[3]; uint64_t size; };
struct minit { int nl, l[3]; };
struct mbridge { struct mperf p; int l[2]; int nin, in[4]; };
struct model {
	int nt, ni, nl, nb;
	struct mtarget *t;
	struct minit *i;
	struct mperf *L;
	struct mbridge *b;
};

static uint32_t uid_tg(const struct model *m, int k) { (void)m; return (uint32_t)k + 1; }
static uint32_t uid_i(const struct model *m, int k) { return (uint32_t)(m->nt + k + 1); }
static uint32_t uid_l(const struct model *m, int k) { return (uint32_t)(m->nt + m->ni + k + 1); }
static uint32_t uid_b(const struct model *m, int k)
{
	return (uint32_t)(m->nt + m->ni + m->nl + k + 1);
}

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng % n);
}

static int wfile(const char *dir, const char *file, uint64_t v, const char *s)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	f = fopen(p, "w");
	if (!f)
		return -1;
	if (s)
		fprintf(f, "%s\n", s);
	else
		fprintf(f, "%" PRIu64 "\n", v);
	return fclose(f);
}

static const char *tname[] = { "", "target", "initiator", "link", "bridge" };

static int mkobj(const char *root, uint32_t uid, int type, char *dir)
{
	char link[PATH_MAX], target[128];

	snprintf(dir, PATH_MAX, "%s/devices/hms/v1-%u-%s", root, uid, tname[type]);
	snprintf(link, sizeof(link), "%s/bus/hms/devices/v1-%u-%s", root, uid,
		 tname[type]);
	snprintf(target, sizeof(target), "../../../devices/hms/v1-%u-%s", uid,
		 tname[type]);
	if (mkdir(dir, 0755) || symlink(target, link))
		return -1;
	return wfile(dir, "uid", uid, NULL);
}

static int mkmember(const char *root, uint32_t uid, int type, const char *sub,
		    uint32_t ouid, int otype)
{
	char p[PATH_MAX], target[128];

	snprintf(p, sizeof(p), "%s/devices/hms/v1-%u-%s/%s", root, uid, tname[type], sub);
	if (mkdir(p, 0755) && errno != EEXIST)
		return -1;
	snprintf(p, sizeof(p), "%s/devices/hms/v1-%u-%s/%s/v1-%u-%s", root, uid,
		 tname[type], sub, ouid, tname[otype]);
	snprintf(target, sizeof(target), "../../v1-%u-%s", ouid, tname[otype]);
	return symlink(target, p);
}

static int wperf(const char *dir, const struct mperf *p)
{
	return wfile(dir, "read_bandwidth", p->rbw, NULL) ||
	       wfile(dir, "write_bandwidth", p->wbw, NULL) ||
	       wfile(dir, "read_latency", p->rlat, NULL) ||
	       wfile(dir, "write_latency", p->wlat, NULL);
}

/* Write the model as a sysfs tree under dir; returns the bus root. */
static int write_model(const struct model *m, const char *dir, char *busroot)
{
	char root[PATH_MAX], d[PATH_MAX], cmd[PATH_MAX + 16];
	int k, j;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return -1;
	snprintf(root, sizeof(root), "%s/sys", dir);
	snprintf(d, sizeof(d), "mkdir -p '%s/devices/hms' '%s/bus/hms/devices'", root, root);
	if (system(d))
		return -1;
	snprintf(busroot, PATH_MAX, "%s/bus/hms", root);
	for (k = 0; k < m->nl; k++)
		if (mkobj(root, uid_l(m, k), 3, d) || wperf(d, &m->L[k]) ||
		    wfile(d, "distance", 0, NULL))
			return -1;
	for (k = 0; k < m->nt; k++) {
		if (mkobj(root, uid_tg(m, k), 1, d) ||
		    wfile(d, "size", m->t[k].size, NULL) ||
		    wfile(d, "nid", 0, "-1") || wfile(d, "type", 0, "system") ||
		    wfile(d, "cpu_accessible", 1, NULL))
			return -1;
		for (j = 0; j < m->t[k].nl; j++)
			if (mkmember(root, uid_tg(m, k), 1, "links", uid_l(m, m->t[k].l[j]), 3) ||
			    mkmember(root, uid_l(m, m->t[k].l[j]), 3, "targets", uid_tg(m, k), 1))
				return -1;
	}
	for (k = 0; k < m->ni; k++) {
		char cl[32];

		snprintf(cl, sizeof(cl), "%d", k);
		if (mkobj(root, uid_i(m, k), 2, d) || wfile(d, "cpulist", 0, cl) ||
		    wfile(d, "nid", 0, "-1"))
			return -1;
		for (j = 0; j < m->i[k].nl; j++)
			if (mkmember(root, uid_i(m, k), 2, "links", uid_l(m, m->i[k].l[j]), 3) ||
			    mkmember(root, uid_l(m, m->i[k].l[j]), 3, "initiators", uid_i(m, k), 2))
				return -1;
	}
	for (k = 0; k < m->nb; k++) {
		const struct mbridge *b = &m->b[k];

		if (mkobj(root, uid_b(m, k), 4, d) || wperf(d, &b->p))
			return -1;
		for (j = 0; j < 2; j++)
			if (mkmember(root, uid_b(m, k), 4, "links", uid_l(m, b->l[j]), 3) ||
			    mkmember(root, uid_l(m, b->l[j]), 3, "bridges", uid_b(m, k), 4))
				return -1;
		for (j = 0; j < b->nin; j++)
			if (mkmember(root, uid_b(m, k), 4, "initiators", uid_i(m, b->in[j]), 2) ||
			    mkmember(root, uid_i(m, b->in[j]), 2, "bridges", uid_b(m, k), 4))
				return -1;
	}
	return 0;
}

static int has(const int *a, int n, int v)
{
	for (int k = 0; k < n; k++)
		if (a[k] == v)
			return 1;
	return 0;
}

static void random_perf(struct mperf *p, int big)
{
	static const uint64_t bws[] = { 0, 100, 200, 300, 400 };
	static const uint64_t lats[] = { 0, 1, 2, 3, 5 };

	if (big) {
		p->rbw = rnd(8) ? 100 + rnd(20) * 50 : 0;
		p->rlat = rnd(10) ? 1 + rnd(50) : 0;
	} else {
		p->rbw = bws[rnd(5)];
		p->rlat = lats[rnd(5)];
	}
	p->wbw = rnd(4) ? p->rbw / 2 + rnd(3) : 0;
	p->wlat = rnd(4) ? p->rlat + rnd(3) : 0;
}

static void free_model(struct model *m)
{
	free(m->t);
	free(m->i);
	free(m->L);
	free(m->b);
}

static int gen_model(struct model *m, int nt, int ni, int nl, int nb, int big)
{
	int k;

	memset(m, 0, sizeof(*m));
	m->nt = nt; m->ni = ni; m->nl = nl; m->nb = nb;
	m->t = calloc((size_t)nt, sizeof(*m->t));
	m->i = calloc((size_t)ni, sizeof(*m->i));
	m->L = calloc((size_t)nl, sizeof(*m->L));
	m->b = calloc((size_t)nb + 1, sizeof(*m->b));
	if (!m->t || !m->i || !m->L || !m->b)
		return -1;
	for (k = 0; k < nl; k++)
		random_perf(&m->L[k], big);
	for (k = 0; k < nt; k++) {
		int n = 1 + (int)rnd(2);

		m->t[k].size = (1 + rnd(4)) << 20;
		while (m->t[k].nl < n) {
			int l = (int)rnd((unsigned int)nl);

			if (!has(m->t[k].l, m->t[k].nl, l))
				m->t[k].l[m->t[k].nl++] = l;
			else if (nl < 2)
				break;
		}
	}
	for (k = 0; k < ni; k++) {
		int n = 1 + (int)rnd(2);

		while (m->i[k].nl < n) {
			int l = (int)rnd((unsigned int)nl);

			if (!has(m->i[k].l, m->i[k].nl, l))
				m->i[k].l[m->i[k].nl++] = l;
			else if (nl < 2)
				break;
		}
	}
	for (k = 0; k < nb; k++) {
		struct mbridge *b = &m->b[k];
		int n = 1 + (int)rnd(ni < 3 ? (unsigned int)ni : 3);

		random_perf(&b->p, big);
		b->l[0] = (int)rnd((unsigned int)nl);
		do
			b->l[1] = (int)rnd((unsigned int)nl);
		while (b->l[1] == b->l[0]);
		if (big)	/* initiator 0 may use every bridge */
			b->in[b->nin++] = 0;
		while (b->nin < n) {
			int i = (int)rnd((unsigned int)ni);

			if (!has(b->in, b->nin, i))
				b->in[b->nin++] = i;
		}
	}
	return 0;
}

/* the rule's order on (read bw, read lat): 1 if a is better than b */
static int better(uint64_t bwa, uint64_t lata, uint64_t bwb, uint64_t latb)
{
	if (bwa != bwb)
		return bwa > bwb;
	if (lata == latb)
		return 0;
	if (!lata)
		return 0;
	return !latb || lata < latb;
}

/* exhaustive search over simple paths (small models) */
struct bf { const struct model *m; int in, tg; int found; uint64_t bw, lat; };

static void dfs(struct bf *s, int l, unsigned int visited, uint64_t bw, uint64_t lat,
		int unk)
{
	const struct model *m = s->m;
	int k;

	bw = bw < m->L[l].rbw ? bw : m->L[l].rbw;
	if (!m->L[l].rlat)
		unk = 1;
	lat += m->L[l].rlat;
	if (has(m->t[s->tg].l, m->t[s->tg].nl, l)) {
		uint64_t pl = unk ? 0 : lat;

		if (!s->found || better(bw, pl, s->bw, s->lat)) {
			s->found = 1;
			s->bw = bw;
			s->lat = pl;
		}
	}
	for (k = 0; k < m->nb; k++) {
		const struct mbridge *b = &m->b[k];
		int o;

		if (!has(b->in, b->nin, s->in) || (b->l[0] != l && b->l[1] != l))
			continue;
		o = b->l[0] == l ? b->l[1] : b->l[0];
		if (visited & (1U << o))
			continue;
		dfs(s, o, visited | (1U << o), bw < b->p.rbw ? bw : b->p.rbw,
		    lat + b->p.rlat, unk || !b->p.rlat);
	}
}

/* independent polynomial check (large models): threshold sweep + Bellman-Ford */
static int sweep(const struct model *m, int in, int tg, uint64_t *obw, uint64_t *olat)
{
	uint64_t *vals = malloc(sizeof(uint64_t) * (size_t)(m->nl + m->nb + 1));
	uint64_t *dist = malloc(sizeof(uint64_t) * (size_t)m->nl);
	char *reach = malloc((size_t)m->nl);
	int nv = 0, k, v, changed, found = 0;

	for (k = 0; k < m->nl; k++)
		vals[nv++] = m->L[k].rbw;
	for (k = 0; k < m->nb; k++)
		vals[nv++] = m->b[k].p.rbw;
	/* try thresholds from the highest down (selection by repeated max) */
	for (;;) {
		uint64_t th = 0;
		int any = 0;

		for (k = 0; k < nv; k++)
			if (vals[k] != UINT64_MAX && (!any || vals[k] > th)) {
				th = vals[k];
				any = 1;
			}
		if (!any)
			break;
		for (k = 0; k < nv; k++)
			if (vals[k] == th)
				vals[k] = UINT64_MAX;
		memset(reach, 0, (size_t)m->nl);
		for (k = 0; k < m->i[in].nl; k++)
			if (m->L[m->i[in].l[k]].rbw >= th)
				reach[m->i[in].l[k]] = 1;
		do {
			changed = 0;
			for (k = 0; k < m->nb; k++) {
				const struct mbridge *b = &m->b[k];

				if (b->p.rbw < th || !has(b->in, b->nin, in))
					continue;
				for (v = 0; v < 2; v++)
					if (reach[b->l[v]] && !reach[b->l[!v]] &&
					    m->L[b->l[!v]].rbw >= th) {
						reach[b->l[!v]] = 1;
						changed = 1;
					}
			}
		} while (changed);
		for (k = 0; k < m->t[tg].nl; k++)
			if (reach[m->t[tg].l[k]])
				found = 1;
		if (!found)
			continue;
		*obw = th;
		/* Bellman-Ford on known latencies over elements >= th */
		for (k = 0; k < m->nl; k++)
			dist[k] = UINT64_MAX;
		for (k = 0; k < m->i[in].nl; k++) {
			const struct mperf *p = &m->L[m->i[in].l[k]];

			if (p->rbw >= th && p->rlat)
				dist[m->i[in].l[k]] = p->rlat;
		}
		do {
			changed = 0;
			for (k = 0; k < m->nb; k++) {
				const struct mbridge *b = &m->b[k];

				if (b->p.rbw < th || !b->p.rlat || !has(b->in, b->nin, in))
					continue;
				for (v = 0; v < 2; v++) {
					const struct mperf *o = &m->L[b->l[!v]];
					uint64_t d;

					if (dist[b->l[v]] == UINT64_MAX || o->rbw < th || !o->rlat)
						continue;
					d = dist[b->l[v]] + b->p.rlat + o->rlat;
					if (d < dist[b->l[!v]]) {
						dist[b->l[!v]] = d;
						changed = 1;
					}
				}
			}
		} while (changed);
		*olat = 0;
		for (k = 0; k < m->t[tg].nl; k++) {
			uint64_t d = dist[m->t[tg].l[k]];

			if (d != UINT64_MAX && (!*olat || d < *olat))
				*olat = d;
		}
		break;
	}
	free(vals);
	free(dist);
	free(reach);
	return found;
}

/* Check the elements the library returns form a valid path with its perf. */
static int check_elements(struct hms_topology *topo, const struct hms_initiator *in,
			  const struct hms_target *t, const struct hms_perf *want)
{
	uint32_t el[256];
	int n = hms_path_elements(topo, in, t, el, 256), k;
	struct hms_perf p = { UINT64_MAX, UINT64_MAX, 0, 0 };
	int ru = 0, wu = 0;
	const struct hms_link *prev = NULL;

	if (n <= 0 || n % 2 == 0 || n > 256)
		return 0;
	for (k = 0; k < n; k++) {
		const struct hms_perf *e;

		if (k % 2 == 0) {
			const struct hms_link *l = hms_link_by_uid(topo, el[k]);
			const struct hms_bridge *b = k ? hms_bridge_by_uid(topo, el[k - 1]) : NULL;

			if (!l)
				return 0;
			if (k == 0) {
				int ok = 0;

				for (unsigned int j = 0; j < hms_initiator_nlinks(in); j++)
					ok |= hms_initiator_link(in, j) == l;
				if (!ok)
					return 0;
			} else if (!b || !hms_bridge_allows(b, in) ||
				   !((hms_bridge_link(b, 0) == prev && hms_bridge_link(b, 1) == l) ||
				     (hms_bridge_link(b, 1) == prev && hms_bridge_link(b, 0) == l))) {
				return 0;
			}
			prev = l;
			e = hms_link_perf(l);
		} else {
			const struct hms_bridge *b = hms_bridge_by_uid(topo, el[k]);

			if (!b)
				return 0;
			e = hms_bridge_perf(b);
		}
		p.read_bandwidth = e->read_bandwidth < p.read_bandwidth ? e->read_bandwidth : p.read_bandwidth;
		p.write_bandwidth = e->write_bandwidth < p.write_bandwidth ? e->write_bandwidth : p.write_bandwidth;
		p.read_latency += e->read_latency;
		p.write_latency += e->write_latency;
		ru |= !e->read_latency;
		wu |= !e->write_latency;
	}
	if (ru)
		p.read_latency = 0;
	if (wu)
		p.write_latency = 0;
	for (unsigned int j = 0; j < hms_target_nlinks(t); j++)
		if (hms_target_link(t, j) == prev)
			return !memcmp(&p, want, sizeof(p));
	return 0;
}

static void check_model(const struct model *m, struct hms_topology *topo, int brute,
			int *bad)
{
	int i, t;

	for (i = 0; i < m->ni; i++) {
		const struct hms_initiator *in = hms_initiator_by_uid(topo, uid_i(m, i));
		uint32_t list[4096];
		int nlist, reach = 0;

		if (brute && m->ni > 0 && i > 0 && (rnd(2)))
			continue;
		for (t = 0; t < m->nt; t++) {
			const struct hms_target *tg = hms_target_by_uid(topo, uid_tg(m, t));
			struct hms_perf p;
			uint64_t bw = 0, lat = 0;
			int found, r;

			if (brute) {
				struct bf s = { m, i, t, 0, 0, 0 };

				for (int k = 0; k < m->i[i].nl; k++)
					dfs(&s, m->i[i].l[k], 1U << m->i[i].l[k], UINT64_MAX, 0, 0);
				found = s.found;
				bw = s.bw;
				lat = s.lat;
			} else {
				found = sweep(m, i, t, &bw, &lat);
			}
			r = hms_path(topo, in, tg, &p);
			reach += found;
			if (found != (r == 0) ||
			    (found && (p.read_bandwidth != bw || p.read_latency != lat)) ||
			    (found && !check_elements(topo, in, tg, &p))) {
				if ((*bad)++ < 5)
					printf("#   initiator %u target %u: lib %d %" PRIu64 "/%" PRIu64
					       ", reference %d %" PRIu64 "/%" PRIu64 "\n",
					       uid_i(m, i), uid_tg(m, t), r == 0,
					       p.read_bandwidth, p.read_latency, found, bw, lat);
			}
		}
		nlist = hms_target_fallback_list(topo, in, HMS_BY_BANDWIDTH, list, 4096);
		if (nlist != reach && (*bad)++ < 5)
			printf("#   initiator %u: fallback list %d, reachable %d\n",
			       uid_i(m, i), nlist, reach);
		for (int k = 1; k < nlist && nlist == reach; k++) {
			struct hms_perf a, b;

			hms_path(topo, in, hms_target_by_uid(topo, list[k - 1]), &a);
			hms_path(topo, in, hms_target_by_uid(topo, list[k]), &b);
			if (better(b.read_bandwidth, b.read_latency, a.read_bandwidth,
				   a.read_latency) && (*bad)++ < 5)
				printf("#   initiator %u: fallback list out of order at %d\n",
				       uid_i(m, i), k);
		}
	}
}

static void test_random_small(void)
{
	char dir[PATH_MAX], root[PATH_MAX];
	int iter, bad = 0;

	snprintf(dir, sizeof(dir), "%s/random", tmpdir);
	for (iter = 0; iter < 150 && bad < 5; iter++) {
		struct model m;
		struct hms_topology *topo;

		if (gen_model(&m, 1 + (int)rnd(4), 1 + (int)rnd(3), 2 + (int)rnd(6),
			      (int)rnd(12), 0) || write_model(&m, dir, root)) {
			CHECK(0, "cannot generate model %d", iter);
			free_model(&m);
			return;
		}
		if (hms_topology_load_from(&topo, root)) {
			CHECK(0, "load model %d: %s", iter, strerror(errno));
			free_model(&m);
			return;
		}
		check_model(&m, topo, 1, &bad);
		/* the polynomial reference must agree with the exhaustive one */
		check_model(&m, topo, 0, &bad);
		hms_topology_free(topo);
		free_model(&m);
	}
	CHECK(bad == 0, "%d disagreements with the reference implementations", bad);
}

struct run { int status; char out[65536]; char err[4096]; };
static int run(struct run *r, const char *envroot, ...);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_large(void)
{
	char dir[PATH_MAX], root[PATH_MAX];
	struct hms_topology *topo;
	struct model m;
	double t0, tload, tall, tpath;
	int bad = 0, i, nobj;
	const int nt = 1500, ni = 64, nl = 1500, nb = 2500;

	snprintf(dir, sizeof(dir), "%s/large", tmpdir);
	if (gen_model(&m, nt, ni, nl, nb, 1) || write_model(&m, dir, root)) {
		CHECK(0, "cannot generate the large model");
		free_model(&m);
		return;
	}
	nobj = nt + ni + nl + nb;
	t0 = now();
	CHECK(hms_topology_load_from(&topo, root) == 0, "load: %s", strerror(errno));
	tload = now() - t0;
	if (!topo) {
		free_model(&m);
		return;
	}
	CHECK_EQ(hms_topology_ntargets(topo) + hms_topology_ninitiators(topo) +
		 hms_topology_nlinks(topo) + hms_topology_nbridges(topo), nobj);
	/* every initiator ranks every target: ni full solves */
	t0 = now();
	for (i = 0; i < ni; i++) {
		uint32_t list[64];

		CHECK(hms_target_fallback_list(topo, hms_initiator_by_uid(topo, uid_i(&m, i)),
					       HMS_BY_LATENCY, list, 64) >= 0, "list");
	}
	tall = now() - t0;
	/* one hms_path() per target from the initiator that reaches most */
	t0 = now();
	for (i = 0; i < nt; i++) {
		struct hms_perf p;

		hms_path(topo, hms_initiator_by_uid(topo, uid_i(&m, 0)),
			 hms_target_by_uid(topo, uid_tg(&m, i)), &p);
	}
	tpath = now() - t0;
	/* the one-search ranking agrees with hms_path() for every target */
	{
		struct hms_target_perf *r = calloc((size_t)nt, sizeof(*r));
		const struct hms_initiator *in0 = hms_initiator_by_uid(topo, uid_i(&m, 0));
		int n = r ? hms_target_ranking(topo, in0, HMS_BY_BANDWIDTH, r,
					       (unsigned int)nt) : -1;
		int reach = 0, diff = 0;

		for (i = 0; i < nt; i++) {
			struct hms_perf p;

			reach += hms_path(topo, in0, hms_target_by_uid(topo, uid_tg(&m, i)),
					  &p) == 0;
		}
		for (i = 0; i < n; i++) {
			struct hms_perf p;

			if (hms_path(topo, in0, r[i].target, &p) ||
			    memcmp(&p, &r[i].perf, sizeof(p)))
				diff++;
		}
		CHECK(n == reach && diff == 0, "ranking %d/%d targets, %d differ",
		      n, reach, diff);
		printf("# large: initiator 0 reaches %d of %d targets\n", reach, nt);
		free(r);
	}
	/* initiator 0 may use every bridge: compare against the reference */
	for (i = 0; i < 40; i++) {
		int t = (int)rnd((unsigned int)nt);
		const struct hms_initiator *in = hms_initiator_by_uid(topo, uid_i(&m, 0));
		const struct hms_target *tg = hms_target_by_uid(topo, uid_tg(&m, t));
		uint64_t bw = 0, lat = 0;
		struct hms_perf p;
		int found = sweep(&m, 0, t, &bw, &lat), r = hms_path(topo, in, tg, &p);

		if (found != (r == 0) ||
		    (found && (p.read_bandwidth != bw || p.read_latency != lat ||
			       !check_elements(topo, in, tg, &p)))) {
			if (bad++ < 5)
				printf("#   large: target %d: lib %d %" PRIu64 "/%" PRIu64
				       ", reference %d %" PRIu64 "/%" PRIu64 "\n", t, r == 0,
				       p.read_bandwidth, p.read_latency, found, bw, lat);
		}
	}
	CHECK(bad == 0, "%d disagreements", bad);
	printf("# large: %d objects loaded in %.3f s, %d initiators ranked %d targets "
	       "in %.3f s, %d hms_path() in %.3f s\n", nobj, tload, ni, nt, tall, nt, tpath);
	CHECK(tpath < 30.0, "paths too slow: %.3f s", tpath);
	if (hmsctl && !access(hmsctl, X_OK)) {
		static struct run r;
		double tcli;

		t0 = now();
		run(&r, NULL, "--root", root, "topology", NULL);
		tcli = now() - t0;
		CHECK(r.status == 0 && !strncmp(r.out, "targets: 1500\n", 14),
		      "hmsctl topology on the large tree: %d %s", r.status, r.err);
		printf("# large: hmsctl topology (%d x %d matrix) in %.3f s\n", ni, nt, tcli);
		CHECK(tcli < 30.0, "hmsctl topology too slow: %.3f s", tcli);
	}
	CHECK(tload < 10.0, "load too slow: %.3f s", tload);
	CHECK(tall < 10.0, "ranking too slow: %.3f s", tall);
	hms_topology_free(topo);
	free_model(&m);
}

/* ------------------------------------------------------------------ */
/* mutations: every file and symlink of a fixture broken in turn        */

static char **mut_paths;
static int nmut, capmut;

static int collect(const char *path, const struct stat *st, int flag,
		   struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag != FTW_F && flag != FTW_SL)
		return 0;
	if (nmut == capmut) {
		char **p = realloc(mut_paths, sizeof(*p) * (size_t)(capmut = capmut * 2 + 64));

		if (!p)
			return -1;
		mut_paths = p;
	}
	mut_paths[nmut] = strdup(path);
	return mut_paths[nmut++] ? 0 : -1;
}

/* Load and use the whole topology: must not crash, leak or misbehave. */
static int exercise(const char *root, int *loaded)
{
	struct hms_topology *topo;
	unsigned int i, j;

	if (hms_topology_load_from(&topo, root)) {
		return errno ? 0 : -1;	/* a failed load must set errno */
	}
	(*loaded)++;
	for (i = 0; i < hms_topology_ninitiators(topo); i++) {
		const struct hms_initiator *in = hms_topology_initiator(topo, i);
		struct hms_target_perf r[16];

		hms_target_ranking(topo, in, HMS_BY_LATENCY, r, 16);
		hms_best_target(topo, in, HMS_BY_CAPACITY, 0);
		for (j = 0; j < hms_topology_ntargets(topo); j++) {
			struct hms_perf p;
			uint32_t el[16];

			hms_path(topo, in, hms_topology_target(topo, j), &p);
			hms_path_elements(topo, in, hms_topology_target(topo, j), el, 16);
		}
	}
	for (i = 0; i < hms_topology_nbridges(topo); i++)
		hms_bridge_link(hms_topology_bridge(topo, i), 1);
	hms_topology_free(topo);
	return 0;
}

static void test_mutations(void)
{
	static const char *const garbage[] = {
		"", "x", "-5", "99999999999999999999999", "1 2", "0-", "4294967296",
		"\x01\x02", "-", "1,,2", "v1-1-target",
	};
	char dir[PATH_MAX], root[PATH_MAX], cmd[2 * PATH_MAX];
	int k, bad = 0, runs = 0, loaded = 0;
	size_t g;

	snprintf(dir, sizeof(dir), "%s/mutate", tmpdir);
	snprintf(cmd, sizeof(cmd), "cp -a '%s/device' '%s'", fixtures, dir);
	if (system(cmd))
		SKIP("cannot copy the device fixture");
	snprintf(root, sizeof(root), "%s/sys/bus/hms", dir);
	nmut = 0;
	snprintf(cmd, sizeof(cmd), "%s/sys", dir);
	if (nftw(cmd, collect, 16, FTW_PHYS)) {
		CHECK(0, "nftw: %s", strerror(errno));
		return;
	}
	for (k = 0; k < nmut; k++) {
		char *p = mut_paths[k], save[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (lstat(p, &st))
			continue;
		if (S_ISLNK(st.st_mode)) {
			static const char *const targets[] = {
				"../../v1-999-link", "../../v1-1-target", "/nonexistent", "..",
			};

			n = readlink(p, save, sizeof(save) - 1);
			if (n < 0)
				continue;
			save[n] = '\0';
			for (g = 0; g < 4; g++) {
				unlink(p);
				if (symlink(targets[g], p))
					break;
				runs++;
				bad += exercise(root, &loaded) != 0;
			}
			unlink(p);
			runs++;
			bad += exercise(root, &loaded) != 0;
			if (symlink(save, p))
				bad++;
		} else {
			int fd = open(p, O_RDONLY);

			n = fd >= 0 ? read(fd, save, sizeof(save)) : -1;
			if (fd >= 0)
				close(fd);
			if (n < 0)
				continue;
			for (g = 0; g < sizeof(garbage) / sizeof(garbage[0]); g++) {
				FILE *f = fopen(p, "w");

				if (!f)
					break;
				fputs(garbage[g], f);
				fclose(f);
				runs++;
				bad += exercise(root, &loaded) != 0;
			}
			unlink(p);			/* missing file */
			runs++;
			bad += exercise(root, &loaded) != 0;
			mkdir(p, 0755);			/* a directory instead */
			runs++;
			bad += exercise(root, &loaded) != 0;
			rmdir(p);
			fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || write(fd, save, (size_t)n) != n)
				bad++;
			if (fd >= 0)
				close(fd);
		}
	}
	for (k = 0; k < nmut; k++)
		free(mut_paths[k]);
	free(mut_paths);
	mut_paths = NULL;
	capmut = 0;
	printf("# mutations: %d loads of broken trees, %d loaded\n", runs, loaded);
	CHECK(bad == 0 && runs > 100, "%d bad of %d runs", bad, runs);
	/* restored intact: the same as the original fixture */
	{
		struct hms_topology *topo;

		CHECK(hms_topology_load_from(&topo, root) == 0 &&
		      hms_topology_nskipped(topo) == 0 &&
		      hms_topology_nbridges(topo) == 2, "restored tree");
		hms_topology_free(topo);
	}
}

/* ------------------------------------------------------------------ */
/* hmsctl                                                              */

static void slurp(int fd, char *buf, size_t n)
{
	ssize_t r;
	size_t len = 0;

	lseek(fd, 0, SEEK_SET);
	while (len + 1 < n && (r = read(fd, buf + len, n - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
	close(fd);
}

static int run(struct run *r, const char *envroot, ...)
{
	char *argv[16];
	char outp[PATH_MAX], errp[PATH_MAX];
	va_list ap;
	int n = 0, fo, fe, st;
	pid_t pid;

	argv[n++] = (char *)hmsctl;
	va_start(ap, envroot);
	while (n < 15 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	snprintf(outp, sizeof(outp), "%s/out.XXXXXX", tmpdir);
	snprintf(errp, sizeof(errp), "%s/err.XXXXXX", tmpdir);
	fo = mkstemp(outp);
	fe = mkstemp(errp);
	if (fo < 0 || fe < 0)
		return -1;
	unlink(outp);
	unlink(errp);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(fo, 1);
		dup2(fe, 2);
		if (envroot)
			setenv("HMS_SYSFS_ROOT", envroot, 1);
		else
			unsetenv("HMS_SYSFS_ROOT");
		execv(hmsctl, argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	slurp(fo, r->out, sizeof(r->out));
	slurp(fe, r->err, sizeof(r->err));
	return 0;
}

#define NEED_HMSCTL()							\
	do {								\
		if (!hmsctl || access(hmsctl, X_OK))			\
			SKIP("no hmsctl binary given");			\
	} while (0)

static void test_hmsctl_topology(void)
{
	static struct run r;

	NEED_HMSCTL();
	CHECK(run(&r, NULL, "--root", fxroot("two-socket-hbm"), "topology", NULL) == 0, "run");
	CHECK_EQ(r.status, 0);
	CHECK(strstr(r.out, "targets: 4\n") != NULL, "targets line: %s", r.out);
	CHECK(strstr(r.out, "initiators: 2\n") != NULL, "initiators line");
	CHECK(strstr(r.out, "        5    20480    10240    81920     8192\n") != NULL,
	      "bandwidth row: %s", r.out);
	CHECK(strstr(r.out, "        6      145       95      175       65\n") != NULL,
	      "latency row");
	CHECK(strstr(r.out, "128 MiB") != NULL, "size");
	CHECK(r.err[0] == '\0', "stderr: %s", r.err);
	/* HMS_SYSFS_ROOT */
	CHECK(run(&r, fxroot("device"), "topology", NULL) == 0, "run");
	CHECK_EQ(r.status, 0);
	CHECK(strstr(r.out, "hms_test0") != NULL, "device name");
	CHECK(strstr(r.out, "        2    20000        -        -\n") != NULL,
	      "no path shown as -: %s", r.out);
	CHECK(run(&r, NULL, "--root", fxroot("paths"), "topology", NULL) == 0, "run");
	CHECK(strstr(r.out, "        3        ?        -        -        -        -\n") != NULL,
	      "unknown shown as ?");
}

static void test_hmsctl_formats(void)
{
	static struct run r;
	int depth = 0, min = 0;

	NEED_HMSCTL();
	CHECK(run(&r, NULL, "--root", fxroot("device"), "topology", "--json", NULL) == 0, "run");
	CHECK_EQ(r.status, 0);
	for (char *p = r.out; *p; p++) {
		depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
		if (depth < min)
			min = depth;
	}
	CHECK(depth == 0 && min == 0 && r.out[0] == '{', "balanced JSON");
	CHECK(strstr(r.out, "\"device\": \"hms_test0\"") != NULL, "json device");
	CHECK(strstr(r.out, "{\"initiator\": 5, \"target\": 8, \"read_bandwidth\": 50000, "
		      "\"write_bandwidth\": 30000, \"read_latency\": 270, "
		      "\"write_latency\": 295}") != NULL, "json path: %s", r.out);
	CHECK(run(&r, NULL, "--root", fxroot("device"), "topology", "--dot", NULL) == 0, "run");
	CHECK_EQ(r.status, 0);
	CHECK(!strncmp(r.out, "graph hms {\n", 12), "dot header");
	CHECK(strstr(r.out, "\tl12 -- i5;\n") && strstr(r.out, "\tb13 -- l10;\n") &&
	      strstr(r.out, "\tb13 -- i5 [style=dashed];\n") && strstr(r.out, "\tl6 -- t4;\n"),
	      "dot edges");
	CHECK(strlen(r.out) > 2 && !strcmp(r.out + strlen(r.out) - 2, "}\n"), "dot end");
	CHECK(run(&r, NULL, "--root", fxroot("device"), "path", "5", "8", "--json",
		  NULL) == 0, "run");
	CHECK(strstr(r.out, "\"elements\": [12, 13, 10]") != NULL, "path json: %s", r.out);
}

static void test_hmsctl_queries(void)
{
	static struct run r;

	NEED_HMSCTL();
	run(&r, NULL, "--root", fxroot("two-socket-hbm"), "best", "5", "--by", "bandwidth", NULL);
	CHECK(r.status == 0 && !strcmp(r.out, "3\n"), "best bw: %d %s", r.status, r.out);
	run(&r, NULL, "--root", fxroot("two-socket-hbm"), "best", "6", "--by", "capacity", NULL);
	CHECK(r.status == 0 && !strcmp(r.out, "2\n"), "best cap: %s", r.out);
	run(&r, NULL, "--root", fxroot("two-socket-hbm"), "--by", "capacity", "--only",
	    "cpuless,system", "best", "5", NULL);
	CHECK(r.status == 0 && !strcmp(r.out, "3\n"), "options first: %s", r.out);
	run(&r, NULL, "--root", fxroot("two-socket-hbm"), "fallback", "6", "--by", "latency", NULL);
	CHECK(r.status == 0 && !strcmp(r.out, "4 2 1 3\n"), "fallback: %s", r.out);
	run(&r, NULL, "--root", fxroot("device"), "path", "5", "8", NULL);
	CHECK(r.status == 0 && strstr(r.out, "read bandwidth:  50000 MB/s\n") &&
	      strstr(r.out, "write latency:   295 ns\n") &&
	      strstr(r.out, "link 12 bridge 13 link 10"), "path: %s", r.out);
	run(&r, NULL, "--root", fxroot("paths"), "path", "1", "30", NULL);
	CHECK(r.status == 0 && strstr(r.out, "read latency:    ? ns\n"), "unknown: %s", r.out);
	if (sysconf(_SC_NPROCESSORS_CONF) <= 2) {	/* flat has cpus 0-1 */
		run(&r, NULL, "--root", fxroot("flat"), "best", "current", "--by", "latency", NULL);
		CHECK(r.status == 0 && !strcmp(r.out, "1\n"), "best current: %s%s", r.out, r.err);
	}
	run(&r, NULL, "--root", fxroot("device"), "best", "5", "--by", "bandwidth", "--only",
	    "device", NULL);
	CHECK(r.status == 0 && !strcmp(r.out, "4\n"), "only device: %s", r.out);
}

static void test_hmsctl_errors(void)
{
	static struct run r;
	static const struct { const char *a[7]; int status; } cases[] = {
		{ { NULL }, 2 },
		{ { "bogus", NULL }, 2 },
		{ { "path", "5", NULL }, 2 },
		{ { "path", "x", "1", NULL }, 2 },
		{ { "path", "5", "-1", NULL }, 2 },
		{ { "best", "5", NULL }, 2 },
		{ { "best", "5", "--by", "speed", NULL }, 2 },
		{ { "best", "5", "--by", "latency", "--only", "fast", NULL }, 2 },
		{ { "topology", "--json", "--dot", NULL }, 2 },
		{ { "topology", "--by", "latency", NULL }, 2 },
		{ { "topology", "extra", NULL }, 2 },
		{ { "--bogus-option", "topology", NULL }, 2 },
		{ { "path", "99", "1", NULL }, 1 },
		{ { "path", "5", "99", NULL }, 1 },
		{ { "path", "5", "6", NULL }, 1 },	/* 6 is an initiator */
		{ { "path", "2", "4", NULL }, 1 },	/* no path */
		{ { "best", "2", "--by", "latency", "--only", "device", NULL }, 1 },
		{ { "fallback", "2", "--by", "latency", "--only", "device", NULL }, 1 },
	};

	NEED_HMSCTL();
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *const *a = cases[k].a;

		run(&r, fxroot("device"), a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
		CHECK(r.status == cases[k].status && !strncmp(r.err, "hmsctl:", 7) &&
		      r.out[0] == '\0', "case %zu (%s %s): status %d, stderr %s", k,
		      a[0] ? a[0] : "", a[0] && a[1] ? a[1] : "", r.status, r.err);
	}
	/* usage errors win over a missing topology */
	run(&r, NULL, "--root", "/nonexistent", "best", "0", "--by", "weight", NULL);
	CHECK(r.status == 2, "usage before load: %d", r.status);
	run(&r, NULL, "--root", "/nonexistent", "path", "1", "x", NULL);
	CHECK(r.status == 2, "usage before load: %d", r.status);
	run(&r, NULL, "--root", "/nonexistent", "topology", NULL);
	CHECK(r.status == 1 && strstr(r.err, "hmsctl: cannot read the HMS topology from "
				      "/nonexistent: No such file or directory"),
	      "missing root: %d %s", r.status, r.err);
	run(&r, NULL, "--help", NULL);
	CHECK(r.status == 0 && !strncmp(r.out, "usage: hmsctl", 13), "help");
}

/* ------------------------------------------------------------------ */

static const struct test {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "flat fixture: counts, attributes, memberships", test_flat },
	{ "lookups by uid, nid, cpu, device, current", test_lookups },
	{ "two-socket-hbm: HMAT matrix, best targets, fallback lists", test_two_socket_hbm },
	{ "device: device initiators, bridges, peer path, no CPU path", test_device },
	{ "path rule: hand-computed widest/latency/unknown cases", test_paths },
	{ "unknown versions and types are ignored", test_versions },
	{ "malformed attributes and dangling symlinks", test_malformed },
	{ "argument and load errors", test_errors },
	{ "hbind wrappers without kernel support: ENOSYS", test_hbind_enosys },
	{ "random small topologies vs exhaustive path search", test_random_small },
	{ "large generated topology: speed and reference check", test_large },
	{ "every file and symlink of a fixture broken in turn: no crash", test_mutations },
	{ "hmsctl topology table", test_hmsctl_topology },
	{ "hmsctl --json and --dot", test_hmsctl_formats },
	{ "hmsctl path, best, fallback", test_hmsctl_queries },
	{ "hmsctl usage and runtime errors, exit codes", test_hmsctl_errors },
};

int main(int argc, char **argv)
{
	unsigned int i, n = sizeof(tests) / sizeof(tests[0]);
	int pass = 0, fail = 0, skip = 0, a = 1;
	char cmd[PATH_MAX + 16];

	if (a < argc && !strcmp(argv[a], "--tap")) {
		tap = 1;
		a++;
	}
	if (a >= argc) {
		fprintf(stderr, "usage: %s [--tap] FIXTURES_DIR [HMSCTL]\n", argv[0]);
		return 2;
	}
	fixtures = argv[a++];
	if (a < argc)
		hmsctl = argv[a];
	/* generated trees hold tens of thousands of files: prefer tmpfs */
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_libhms.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") :
		 !access("/dev/shm", W_OK | X_OK) ? "/dev/shm" : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (tap)
		printf("1..%u\n", n);
	for (i = 0; i < n; i++) {
		cur_failed = cur_skipped = 0;
		tests[i].fn();
		if (cur_skipped && !cur_failed) {
			skip++;
			if (tap)
				printf("ok %u - %s # SKIP %s\n", i + 1, tests[i].name, skip_reason);
		} else if (cur_failed) {
			fail++;
			printf("not ok %u - %s\n", i + 1, tests[i].name);
		} else {
			pass++;
			if (tap)
				printf("ok %u - %s\n", i + 1, tests[i].name);
		}
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	if (tap)
		printf("# %d passed, %d failed, %d skipped\n", pass, fail, skip);
	else if (skip)
		printf("%d passed, %d failed, %d skipped\n", pass, fail, skip);
	else
		printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
