// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_paths.c - the HMS path rule (Documentation/mm/hms.rst) on fixtures
 * with hand-computed answers: hms_path() and hms_path_elements().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "harness.h"

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

/* elements of the path i -> t equal want[0..n) */
static void expect_elements(struct hms_topology *topo, uint32_t i, uint32_t t,
			    const uint32_t *want, int n)
{
	uint32_t el[16];
	int got = hms_path_elements(topo, hms_initiator_by_uid(topo, i),
				    hms_target_by_uid(topo, t), el, 16);

	CHECK(got == n, "%u -> %u: %d elements, expected %d", i, t, got, n);
	for (int k = 0; got == n && k < n && k < 16; k++)
		CHECK(el[k] == want[k], "%u -> %u: element %d = %u, expected %u",
		      i, t, k, el[k], want[k]);
}

static void flat_path(void)
{
	struct hms_topology *topo = load("flat");

	if (!topo)
		return;
	expect_path(topo, 2, 1, 16384, 80, 16384, 80);
	expect_elements(topo, 2, 1, (uint32_t[]){ 3 }, 1);
	hms_topology_free(topo);
}

/* (initiator uid, target uid) -> bandwidth, latency from the HMAT profile */
static const struct { uint32_t i, t; uint64_t bw, lat; } tsh[] = {
	{ 5, 1, 20480, 90 }, { 5, 2, 10240, 140 }, { 5, 3, 81920, 60 },
	{ 5, 4, 8192, 170 }, { 6, 1, 11264, 145 }, { 6, 2, 21504, 95 },
	{ 6, 3, 9216, 175 }, { 6, 4, 83968, 65 },
};

static void hmat_matrix(void)
{
	struct hms_topology *topo = load("two-socket-hbm");

	if (!topo)
		return;
	for (size_t k = 0; k < sizeof(tsh) / sizeof(tsh[0]); k++)
		expect_path(topo, tsh[k].i, tsh[k].t, tsh[k].bw, tsh[k].lat,
			    tsh[k].bw, tsh[k].lat);
	CHECK_EQ(hms_link_distance(hms_link_by_uid(topo, 8)), 21);
	hms_topology_free(topo);
}

static void device_local_and_host(void)
{
	struct hms_topology *topo = load("device");

	if (!topo)
		return;
	expect_path(topo, 5, 4, 100000, 50, 90000, 60);
	expect_elements(topo, 5, 4, (uint32_t[]){ 6 }, 1);
	expect_path(topo, 5, 1, 16000, 500, 15000, 600);
	expect_elements(topo, 5, 1, (uint32_t[]){ 7 }, 1);
	expect_path(topo, 2, 1, 20000, 100, 20000, 100);
	hms_topology_free(topo);
}

static void device_peer(void)
{
	struct hms_topology *topo = load("device");

	if (!topo)
		return;
	/* 12 (50000/40000, 200/210) + bridge 13 (60000/30000, 20/25) + 10 */
	expect_path(topo, 5, 8, 50000, 270, 30000, 295);
	expect_elements(topo, 5, 8, (uint32_t[]){ 12, 13, 10 }, 3);
	expect_path(topo, 9, 4, 50000, 270, 30000, 295);
	expect_elements(topo, 9, 4, (uint32_t[]){ 12, 14, 6 }, 3);
	hms_topology_free(topo);
}

static void cpu_cannot_reach_device(void)
{
	struct hms_topology *topo = load("device");
	const struct hms_initiator *cpu;
	uint32_t el[4];

	if (!topo)
		return;
	cpu = hms_initiator_by_uid(topo, 2);
	CHECK_ERR(hms_path(topo, cpu, hms_target_by_uid(topo, 4), NULL), -1, ENOENT);
	CHECK_ERR(hms_path_elements(topo, cpu, hms_target_by_uid(topo, 8), el, 4),
		  -1, ENOENT);
	CHECK_ERR(hms_path_elements(topo, cpu, hms_target_by_uid(topo, 8), NULL, 0),
		  -1, ENOENT);
	hms_topology_free(topo);
}

/* See the comment of fx_paths in tests/fixtures/mkfixture.sh. */
static void widest_then_latency(void)
{
	struct hms_topology *topo = load("paths");

	if (!topo)
		return;
	/* P4: 900 wide like P2, but 126 ns instead of 225 */
	expect_path(topo, 1, 2, 900, 126, 450, 131);
	expect_elements(topo, 1, 2, (uint32_t[]){ 10, 21, 13, 24, 11 }, 5);
	/* known latency wins among equally wide paths */
	expect_path(topo, 1, 60, 1000, 22, 500, 25);
	hms_topology_free(topo);
}

static void unknown_values(void)
{
	struct hms_topology *topo = load("paths");

	if (!topo)
		return;
	/* the widest path has an unknown latency: so has the pair */
	expect_path(topo, 1, 30, 700, 0, 350, 0);
	/* unknown bandwidth ranks below every known one */
	expect_path(topo, 1, 40, 50, 12, 25, 15);
	/* only via B25 (5000 MB/s, latency unknown), which lists 3 only */
	expect_path(topo, 3, 2, 1000, 0, 500, 0);
	hms_topology_free(topo);
}

static void bridges_need_the_initiator(void)
{
	struct hms_topology *topo = load("paths");

	if (!topo)
		return;
	CHECK_ERR(hms_path(topo, hms_initiator_by_uid(topo, 3),
			   hms_target_by_uid(topo, 30), NULL), -1, ENOENT);
	CHECK_ERR(hms_path(topo, hms_initiator_by_uid(topo, 1),
			   hms_target_by_uid(topo, 50), NULL), -1, ENOENT);
	CHECK_EQ(hms_path(topo, hms_initiator_by_uid(topo, 1),
			  hms_target_by_uid(topo, 2), NULL), 0);
	hms_topology_free(topo);
}

static void elements_list_call(void)
{
	struct hms_topology *topo = load("paths");
	const struct hms_initiator *in;
	const struct hms_target *t;
	uint32_t el[8] = { 0 };

	if (!topo)
		return;
	in = hms_initiator_by_uid(topo, 1);
	t = hms_target_by_uid(topo, 2);
	CHECK_EQ(hms_path_elements(topo, in, t, NULL, 0), 5);
	/* too small: the first n, and the total */
	CHECK_EQ(hms_path_elements(topo, in, t, el, 2), 5);
	CHECK(el[0] == 10 && el[1] == 21 && el[2] == 0, "first 2 only: %u %u %u",
	      el[0], el[1], el[2]);
	CHECK_EQ(hms_path_elements(topo, in, t, el, 0), 5);
	CHECK_EQ(el[0], 10);
	CHECK_EQ(hms_path_elements(topo, in, t, el, 8), 5);
	CHECK_ERR(hms_path_elements(topo, in, t, NULL, 1), -1, EINVAL);
	hms_topology_free(topo);
}

static void bad_arguments(void)
{
	struct hms_topology *topo = load("two-socket-hbm");
	struct hms_topology *other = load("two-socket-hbm");
	const struct hms_initiator *in;
	const struct hms_target *t;
	struct hms_perf p;
	uint32_t el[4];

	if (!topo || !other)
		goto out;
	in = hms_initiator_by_uid(topo, 5);
	t = hms_target_by_uid(topo, 1);
	CHECK_ERR(hms_path(NULL, in, t, &p), -1, EINVAL);
	CHECK_ERR(hms_path(topo, NULL, t, &p), -1, EINVAL);
	CHECK_ERR(hms_path(topo, in, NULL, &p), -1, EINVAL);
	CHECK_ERR(hms_path(topo, hms_initiator_by_uid(other, 5), t, &p), -1, EINVAL);
	CHECK_ERR(hms_path(topo, in, hms_target_by_uid(other, 1), &p), -1, EINVAL);
	CHECK_ERR(hms_path_elements(topo, in, hms_target_by_uid(other, 1), el, 4),
		  -1, EINVAL);
	CHECK_ERR(hms_path_elements(NULL, in, t, el, 4), -1, EINVAL);
out:
	hms_topology_free(other);
	hms_topology_free(topo);
}

TESTS(
	T(flat_path, "the path of a one-link topology is that link, with its values"),
	T(hmat_matrix, "every CPU/memory pair of two-socket-hbm has the profile's HMAT bandwidth and latency, read and write"),
	T(device_local_and_host, "a device reaches its own memory by its local link and system memory by its host link"),
	T(device_peer, "a device reaches a peer's memory through the bridge that lists it: bandwidth is the minimum, latency the sum along the path"),
	T(cpu_cannot_reach_device, "a CPU initiator without a path to device-private memory gets ENOENT from hms_path() and hms_path_elements()"),
	T(widest_then_latency, "the pair takes the widest path, and among equally wide ones the lowest known read latency"),
	T(unknown_values, "an unknown latency on the widest path makes the pair's latency unknown; an unknown bandwidth ranks below every known one"),
	T(bridges_need_the_initiator, "a bridge that does not list the initiator is never crossed; a target on no reachable link is ENOENT"),
	T(elements_list_call, "hms_path_elements() returns the full element count like snprintf and fills only n entries; (NULL, n > 0) is EINVAL"),
	T(bad_arguments, "hms_path() and hms_path_elements() reject NULL arguments and objects of another topology with EINVAL"),
);
