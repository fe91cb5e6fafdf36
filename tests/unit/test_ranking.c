// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_ranking.c - choosing targets: hms_best_target(),
 * hms_target_fallback_list(), hms_target_ranking(), their criteria,
 * filters and list-call contract.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "harness.h"

static uint32_t best_uid(struct hms_topology *topo, uint32_t in, enum hms_by by,
			 unsigned int flags)
{
	const struct hms_target *t =
		hms_best_target(topo, hms_initiator_by_uid(topo, in), by, flags);

	return t ? hms_target_uid(t) : 0;
}

static int list_is(struct hms_topology *topo, uint32_t in, enum hms_by by,
		   unsigned int flags, const uint32_t *want, int n)
{
	uint32_t got[16];
	int k = hms_target_fallback_list(topo, hms_initiator_by_uid(topo, in), by,
					 flags, got, 16);

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

static void best_by_criterion(void)
{
	struct hms_topology *topo = load("two-socket-hbm");

	if (!topo)
		return;
	CHECK_EQ(best_uid(topo, 5, HMS_BY_BANDWIDTH, 0), 3);
	CHECK_EQ(best_uid(topo, 5, HMS_BY_LATENCY, 0), 3);
	CHECK_EQ(best_uid(topo, 5, HMS_BY_CAPACITY, 0), 1);
	CHECK_EQ(best_uid(topo, 6, HMS_BY_BANDWIDTH, 0), 4);
	CHECK_EQ(best_uid(topo, 6, HMS_BY_LATENCY, 0), 4);
	CHECK_EQ(best_uid(topo, 6, HMS_BY_CAPACITY, 0), 2);
	hms_topology_free(topo);
}

static void fallback_order(void)
{
	struct hms_topology *topo = load("two-socket-hbm");

	if (!topo)
		return;
	CHECK(list_is(topo, 5, HMS_BY_BANDWIDTH, 0, (uint32_t[]){ 3, 1, 2, 4 }, 4), "5 bw");
	CHECK(list_is(topo, 6, HMS_BY_LATENCY, 0, (uint32_t[]){ 4, 2, 1, 3 }, 4), "6 lat");
	/* equal sizes: by bandwidth */
	CHECK(list_is(topo, 5, HMS_BY_CAPACITY, 0, (uint32_t[]){ 1, 2, 3, 4 }, 4), "5 cap");
	CHECK(list_is(topo, 6, HMS_BY_CAPACITY, 0, (uint32_t[]){ 2, 1, 4, 3 }, 4), "6 cap");
	hms_topology_free(topo);
}

static void unknown_values_last(void)
{
	struct hms_topology *topo = load("paths");

	if (!topo)
		return;
	/* by bandwidth: 60 (1000), 2 (900), 30 (700), 40 (50) */
	CHECK(list_is(topo, 1, HMS_BY_BANDWIDTH, 0, (uint32_t[]){ 60, 2, 30, 40 }, 4), "bw");
	/* by latency: 40 (12), 60 (22), 2 (126), 30 (unknown) */
	CHECK(list_is(topo, 1, HMS_BY_LATENCY, 0, (uint32_t[]){ 40, 60, 2, 30 }, 4), "lat");
	CHECK(list_is(topo, 3, HMS_BY_LATENCY, 0, (uint32_t[]){ 2 }, 1), "3");
	hms_topology_free(topo);
}

static void filters(void)
{
	struct hms_topology *topo = load("two-socket-hbm");
	struct hms_topology *dev = load("device");

	if (!topo || !dev)
		goto out;
	CHECK_EQ(best_uid(topo, 5, HMS_BY_CAPACITY, HMS_ONLY_CPULESS), 3);
	CHECK_EQ(best_uid(topo, 6, HMS_BY_CAPACITY, HMS_ONLY_CPULESS), 4);
	CHECK_EQ(best_uid(topo, 5, HMS_BY_BANDWIDTH, HMS_ONLY_SYSTEM), 3);
	CHECK(list_is(topo, 6, HMS_BY_BANDWIDTH, HMS_ONLY_CPULESS,
		      (uint32_t[]){ 4, 3 }, 2), "6 cpuless");
	CHECK_EQ(best_uid(dev, 5, HMS_BY_BANDWIDTH, 0), 4);
	CHECK_EQ(best_uid(dev, 5, HMS_BY_BANDWIDTH, HMS_ONLY_SYSTEM), 1);
	CHECK_EQ(best_uid(dev, 5, HMS_BY_LATENCY, HMS_ONLY_CPU_ACCESSIBLE), 1);
	CHECK_EQ(best_uid(dev, 9, HMS_BY_BANDWIDTH, HMS_ONLY_DEVICE), 8);
	CHECK(list_is(dev, 5, HMS_BY_BANDWIDTH, HMS_ONLY_SYSTEM | HMS_ONLY_DEVICE,
		      (uint32_t[]){ 4, 8, 1 }, 3), "system or device");
	CHECK(list_is(dev, 5, HMS_BY_BANDWIDTH, HMS_ONLY_DEVICE | HMS_ONLY_CPULESS,
		      (uint32_t[]){ 4, 8 }, 2), "device and cpuless");
	CHECK(list_is(dev, 9, HMS_BY_LATENCY, 0, (uint32_t[]){ 8, 4, 1 }, 3), "9 lat");
	CHECK(list_is(dev, 5, HMS_BY_CAPACITY, 0, (uint32_t[]){ 1, 4, 8 }, 3), "5 cap");
	CHECK(list_is(dev, 2, HMS_BY_BANDWIDTH, 0, (uint32_t[]){ 1 }, 1), "cpu 2");
out:
	hms_topology_free(dev);
	hms_topology_free(topo);
}

static void nothing_passes(void)
{
	struct hms_topology *topo = load("two-socket-hbm");
	const struct hms_initiator *in;
	struct hms_target_perf r[4];
	uint32_t uids[4];

	if (!topo)
		return;
	in = hms_initiator_by_uid(topo, 5);
	CHECK_ERR(hms_best_target(topo, in, HMS_BY_BANDWIDTH, HMS_ONLY_DEVICE), NULL,
		  ENOENT);
	CHECK_EQ(hms_target_fallback_list(topo, in, HMS_BY_BANDWIDTH, HMS_ONLY_DEVICE,
					  uids, 4), 0);
	CHECK_EQ(hms_target_ranking(topo, in, HMS_BY_BANDWIDTH, HMS_ONLY_DEVICE, r, 4), 0);
	hms_topology_free(topo);
}

static void ranking_perf(void)
{
	struct hms_topology *topo = load("two-socket-hbm");
	const struct hms_initiator *in;
	struct hms_target_perf r[8];
	int n;

	if (!topo)
		return;
	in = hms_initiator_by_uid(topo, 5);
	n = hms_target_ranking(topo, in, HMS_BY_BANDWIDTH, 0, r, 8);
	CHECK_EQ(n, 4);
	CHECK(n == 4 && hms_target_uid(r[0].target) == 3 &&
	      r[0].perf.read_bandwidth == 81920 && r[0].perf.read_latency == 60 &&
	      hms_target_uid(r[3].target) == 4 && r[3].perf.write_latency == 170,
	      "ranking");
	for (int k = 0; k < n; k++) {
		struct hms_perf p;

		CHECK(hms_path(topo, in, r[k].target, &p) == 0 &&
		      !memcmp(&p, &r[k].perf, sizeof(p)), "entry %d = hms_path()", k);
	}
	hms_topology_free(topo);
}

static void list_calls_total(void)
{
	struct hms_topology *topo = load("two-socket-hbm");
	const struct hms_initiator *in;
	struct hms_target_perf r[2] = { { 0 } };
	uint32_t got[3] = { 0 };

	if (!topo)
		return;
	in = hms_initiator_by_uid(topo, 5);
	CHECK_EQ(hms_target_fallback_list(topo, in, HMS_BY_BANDWIDTH, 0, NULL, 0), 4);
	CHECK_EQ(hms_target_fallback_list(topo, in, HMS_BY_BANDWIDTH, 0, got, 2), 4);
	CHECK(got[0] == 3 && got[1] == 1 && got[2] == 0, "first 2 only: %u %u %u",
	      got[0], got[1], got[2]);
	CHECK_EQ(hms_target_fallback_list(topo, in, HMS_BY_BANDWIDTH, 0, got, 0), 4);
	CHECK_EQ(hms_target_ranking(topo, in, HMS_BY_LATENCY, 0, NULL, 0), 4);
	CHECK_EQ(hms_target_ranking(topo, in, HMS_BY_LATENCY, 0, r, 1), 4);
	CHECK(hms_target_uid(r[0].target) == 3 && r[1].target == NULL, "first 1 only");
	CHECK_ERR(hms_target_fallback_list(topo, in, HMS_BY_BANDWIDTH, 0, NULL, 1),
		  -1, EINVAL);
	CHECK_ERR(hms_target_ranking(topo, in, HMS_BY_BANDWIDTH, 0, NULL, 1), -1, EINVAL);
	hms_topology_free(topo);
}

static void bad_criterion_or_flags(void)
{
	struct hms_topology *topo = load("two-socket-hbm");
	const struct hms_initiator *in;
	uint32_t uids[4];

	if (!topo)
		return;
	in = hms_initiator_by_uid(topo, 5);
	CHECK_ERR(hms_best_target(topo, in, (enum hms_by)0, 0), NULL, EINVAL);
	CHECK_ERR(hms_best_target(topo, in, (enum hms_by)4, 0), NULL, EINVAL);
	/* a filter given as the criterion */
	CHECK_ERR(hms_best_target(topo, in, (enum hms_by)(HMS_BY_BANDWIDTH |
							   HMS_ONLY_SYSTEM), 0),
		  NULL, EINVAL);
	/* a criterion given as a filter, an unknown bit */
	CHECK_ERR(hms_best_target(topo, in, HMS_BY_BANDWIDTH, HMS_BY_LATENCY), NULL,
		  EINVAL);
	CHECK_ERR(hms_best_target(topo, in, HMS_BY_BANDWIDTH, 1U << 20), NULL, EINVAL);
	CHECK_ERR(hms_target_fallback_list(topo, in, HMS_BY_LATENCY, 1U << 12, uids, 4),
		  -1, EINVAL);
	CHECK_ERR(hms_target_ranking(topo, in, (enum hms_by)9, 0, NULL, 0), -1, EINVAL);
	hms_topology_free(topo);
}

static void bad_objects(void)
{
	struct hms_topology *topo = load("two-socket-hbm");
	struct hms_topology *other = load("two-socket-hbm");

	if (!topo || !other)
		goto out;
	CHECK_ERR(hms_best_target(topo, NULL, HMS_BY_BANDWIDTH, 0), NULL, EINVAL);
	CHECK_ERR(hms_best_target(NULL, hms_initiator_by_uid(topo, 5),
				  HMS_BY_BANDWIDTH, 0), NULL, EINVAL);
	CHECK_ERR(hms_best_target(topo, hms_initiator_by_uid(other, 5),
				  HMS_BY_BANDWIDTH, 0), NULL, EINVAL);
	CHECK_ERR(hms_target_fallback_list(topo, NULL, HMS_BY_BANDWIDTH, 0, NULL, 0),
		  -1, EINVAL);
	CHECK_ERR(hms_target_ranking(topo, hms_initiator_by_uid(other, 6),
				     HMS_BY_LATENCY, 0, NULL, 0), -1, EINVAL);
out:
	hms_topology_free(other);
	hms_topology_free(topo);
}

TESTS(
	T(best_by_criterion, "the best target by bandwidth, latency and capacity is the profile's best node for each initiator"),
	T(fallback_order, "a fallback list orders every reachable target by the criterion, equal sizes by bandwidth"),
	T(unknown_values_last, "targets with an unknown bandwidth or latency rank after every known value"),
	T(filters, "filters in flags keep only system, device, CPU-less or CPU-accessible targets; system|device keeps either type"),
	T(nothing_passes, "when no reachable target passes the filters, hms_best_target() is ENOENT and the list calls return 0"),
	T(ranking_perf, "hms_target_ranking() gives every target with the same path properties as hms_path()"),
	T(list_calls_total, "list calls return the total available like snprintf and fill only n entries; (NULL, 0) counts, (NULL, n > 0) is EINVAL"),
	T(bad_criterion_or_flags, "an unknown criterion, a filter passed as the criterion, a criterion passed as a flag or an unknown flag bit is EINVAL"),
	T(bad_objects, "a NULL topology, a NULL initiator or one of another topology is EINVAL"),
);
