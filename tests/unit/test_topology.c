// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_topology.c - loading the HMS bus: objects, attributes,
 * memberships, lookups, tolerant and strict reading, load errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static void flat_loads(void)
{
	struct hms_topology *topo = load("flat");
	const struct hms_target *t;
	const struct hms_initiator *in;
	const struct hms_link *l;

	if (!topo)
		return;
	CHECK_EQ(hms_topology_ntargets(topo), 1);
	CHECK_EQ(hms_topology_ninitiators(topo), 1);
	CHECK_EQ(hms_topology_nlinks(topo), 1);
	CHECK_EQ(hms_topology_nbridges(topo), 0);
	CHECK_EQ(hms_topology_nskipped(topo), 0);
	CHECK_EQ(hms_topology_nignored(topo), 0);
	t = hms_topology_target(topo, 0);
	in = hms_topology_initiator(topo, 0);
	l = hms_topology_link(topo, 0);
	CHECK(t && in && l, "objects 0");
	if (!t || !in || !l)
		goto out;
	CHECK_EQ(hms_target_uid(t), 1);
	CHECK_EQ(hms_target_size(t), 1ULL << 30);
	CHECK_EQ(hms_target_nid(t), 0);
	CHECK_EQ(hms_target_type(t), HMS_TARGET_SYSTEM);
	CHECK(!strcmp(hms_target_type_name(t), "system"), "type name");
	CHECK_EQ(hms_target_cpu_accessible(t), 1);
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
	CHECK(hms_initiator_device_name(in) == NULL, "no device name");
	CHECK_EQ(hms_initiator_nbridges(in), 0);
	CHECK_EQ(hms_link_uid(l), 3);
	CHECK_EQ(hms_link_perf(l)->read_bandwidth, 16384);
	CHECK_EQ(hms_link_perf(l)->write_bandwidth, 16384);
	CHECK_EQ(hms_link_perf(l)->read_latency, 80);
	CHECK_EQ(hms_link_perf(l)->write_latency, 80);
	CHECK_EQ(hms_link_distance(l), 10);
	/* memberships, both directions */
	CHECK_EQ(hms_target_nlinks(t), 1);
	CHECK_EQ(hms_link_ntargets(l), 1);
	CHECK_EQ(hms_link_ninitiators(l), 1);
	CHECK_EQ(hms_link_nbridges(l), 0);
	CHECK(hms_link_target(l, 0) == t, "link target");
	CHECK(hms_link_initiator(l, 0) == in, "link initiator");
	CHECK(hms_target_link(t, 0) == l, "target link");
	CHECK(hms_initiator_link(in, 0) == l, "initiator link");
out:
	hms_topology_free(topo);
}

static void lookups(void)
{
	struct hms_topology *topo = load("two-socket-hbm");

	if (!topo)
		return;
	CHECK_EQ(hms_uid_type(topo, 1), HMS_OBJ_TARGET);
	CHECK_EQ(hms_uid_type(topo, 5), HMS_OBJ_INITIATOR);
	CHECK_EQ(hms_uid_type(topo, 7), HMS_OBJ_LINK);
	CHECK_EQ(hms_uid_type(topo, 99), HMS_OBJ_NONE);
	CHECK_EQ(hms_uid_type(NULL, 1), HMS_OBJ_NONE);
	CHECK(hms_target_by_uid(topo, 1) == hms_topology_target(topo, 0), "target 1");
	CHECK(hms_initiator_by_uid(topo, 6) == hms_topology_initiator(topo, 1), "init 6");
	CHECK(hms_link_by_uid(topo, 14) == hms_topology_link(topo, 7), "link 14");
	CHECK_ERR(hms_target_by_uid(topo, 5), NULL, ENOENT);	/* an initiator */
	CHECK_ERR(hms_link_by_uid(topo, 1), NULL, ENOENT);	/* a target */
	CHECK_ERR(hms_bridge_by_uid(topo, 7), NULL, ENOENT);
	CHECK_ERR(hms_initiator_by_uid(topo, 99), NULL, ENOENT);
	CHECK(hms_target_by_nid(topo, 3) == hms_target_by_uid(topo, 4), "nid 3");
	CHECK_ERR(hms_target_by_nid(topo, 4), NULL, ENOENT);
	CHECK_ERR(hms_target_by_nid(topo, -1), NULL, ENOENT);
	CHECK(hms_initiator_by_nid(topo, 1) == hms_initiator_by_uid(topo, 6), "nid 1");
	CHECK_ERR(hms_initiator_by_nid(topo, 2), NULL, ENOENT);	/* CPU-less */
	CHECK(hms_initiator_by_cpu(topo, 1) == hms_initiator_by_uid(topo, 6), "cpu 1");
	CHECK_ERR(hms_initiator_by_cpu(topo, 2), NULL, ENOENT);
	CHECK_ERR(hms_initiator_by_cpu(topo, -1), NULL, ENOENT);
	CHECK_ERR(hms_initiator_by_device(topo, "hms_test0"), NULL, ENOENT);
	CHECK_ERR(hms_initiator_by_device(topo, NULL), NULL, EINVAL);
	CHECK_ERR(hms_initiator_by_device(topo, ""), NULL, EINVAL);
	hms_topology_free(topo);
}

static void current_initiator(void)
{
	struct hms_topology *topo = load("two-socket-hbm");
	cpu_set_t saved, one;
	int cpu;

	if (!topo)
		return;
	if (sched_getaffinity(0, sizeof(saved), &saved)) {
		hms_topology_free(topo);
		SKIP("sched_getaffinity: %s", strerror(errno));
	}
	for (cpu = 0; cpu < 2; cpu++) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (!CPU_ISSET(cpu, &saved) || sched_setaffinity(0, sizeof(one), &one))
			continue;
		CHECK(hms_initiator_current(topo) == hms_initiator_by_cpu(topo, cpu),
		      "current on cpu %d", cpu);
	}
	sched_setaffinity(0, sizeof(saved), &saved);
	cpu = sched_getcpu();
	if (cpu > 1)
		CHECK_ERR(hms_initiator_current(topo), NULL, ENOENT);
	hms_topology_free(topo);
}

static void device_initiators(void)
{
	struct hms_topology *topo = load("device");
	const struct hms_initiator *d0, *d1;
	const struct hms_target *t4;
	char path[PATH_MAX], cls[PATH_MAX];

	if (!topo)
		return;
	d0 = hms_initiator_by_uid(topo, 5);
	d1 = hms_initiator_by_uid(topo, 9);
	t4 = hms_target_by_uid(topo, 4);
	CHECK(d0 && d1 && t4, "objects");
	if (!d0 || !d1 || !t4)
		goto out;
	CHECK_EQ(hms_initiator_is_device(d0), 1);
	CHECK_EQ(hms_initiator_nid(d0), -1);
	CHECK_EQ(hms_initiator_ncpus(d0), 0);
	CHECK(!strcmp(hms_initiator_cpulist(d0), ""), "empty cpulist");
	CHECK(hms_initiator_device_name(d0) &&
	      !strcmp(hms_initiator_device_name(d0), "hms_test0"), "device name");
	CHECK(hms_initiator_device(d0) && hms_initiator_device(d0)[0] == '/',
	      "resolved device path");
	CHECK(hms_initiator_by_device(topo, "hms_test1") == d1, "by name");
	CHECK_ERR(hms_initiator_by_device(topo, "hms_test2"), NULL, ENOENT);
	snprintf(path, sizeof(path), "%s/device/sys/devices/virtual/hms_test/hms_test0",
		 fixtures);
	CHECK(hms_initiator_by_device(topo, path) == d0, "by path %s", path);
	/* a /sys/class-style symlink to the device resolves to it too */
	snprintf(cls, sizeof(cls), "%s/class-hms_test1", tmpdir);
	snprintf(path, sizeof(path), "%s/device/sys/devices/virtual/hms_test/hms_test1",
		 fixtures);
	CHECK(symlink(path, cls) == 0, "symlink");
	CHECK(hms_initiator_by_device(topo, cls) == d1, "by class link");
	unlink(cls);
	CHECK_ERR(hms_initiator_by_device(topo, "/nonexistent/hms_test0"), NULL, ENOENT);
	CHECK_EQ(hms_target_type(t4), HMS_TARGET_DEVICE_PRIVATE);
	CHECK(!strcmp(hms_target_type_name(t4), "device-private"), "type name");
	CHECK_EQ(hms_target_cpu_accessible(t4), 0);
	CHECK_EQ(hms_target_nid(t4), -1);
out:
	hms_topology_free(topo);
}

static void bridges(void)
{
	struct hms_topology *topo = load("device");
	const struct hms_initiator *d0, *d1;
	const struct hms_bridge *b13;

	if (!topo)
		return;
	d0 = hms_initiator_by_uid(topo, 5);
	d1 = hms_initiator_by_uid(topo, 9);
	b13 = hms_bridge_by_uid(topo, 13);
	CHECK(d0 && d1 && b13, "objects");
	if (!d0 || !d1 || !b13)
		goto out;
	CHECK_EQ(hms_topology_nbridges(topo), 2);
	CHECK_EQ(hms_initiator_nbridges(d0), 1);
	CHECK(hms_initiator_bridge(d0, 0) == b13, "initiator bridge");
	CHECK(hms_bridge_allows(b13, d0) && !hms_bridge_allows(b13, d1), "allows");
	CHECK_EQ(hms_bridge_allows(NULL, d0), 0);
	CHECK_EQ(hms_bridge_allows(b13, NULL), 0);
	CHECK(hms_link_uid(hms_bridge_link(b13, 0)) == 10 &&
	      hms_link_uid(hms_bridge_link(b13, 1)) == 12, "links by increasing uid");
	CHECK_ERR(hms_bridge_link(b13, 2), NULL, EINVAL);
	CHECK_EQ(hms_bridge_uid(b13), 13);
	CHECK_EQ(hms_bridge_perf(b13)->read_bandwidth, 60000);
	CHECK_EQ(hms_bridge_perf(b13)->write_bandwidth, 30000);
	CHECK_EQ(hms_bridge_perf(b13)->read_latency, 20);
	CHECK_EQ(hms_bridge_perf(b13)->write_latency, 25);
	CHECK_EQ(hms_bridge_ninitiators(b13), 1);
	CHECK(hms_bridge_initiator(b13, 0) == d0, "bridge initiator");
	CHECK_EQ(hms_link_ninitiators(hms_link_by_uid(topo, 12)), 2);
	CHECK_EQ(hms_link_nbridges(hms_link_by_uid(topo, 12)), 2);
	CHECK(hms_link_bridge(hms_link_by_uid(topo, 10), 0) == b13, "link bridge");
out:
	hms_topology_free(topo);
}

static void unknown_versions_ignored(void)
{
	struct hms_topology *topo = load("versions");

	if (!topo)
		return;
	CHECK_EQ(hms_topology_ntargets(topo), 1);
	CHECK_EQ(hms_topology_nlinks(topo), 1);
	CHECK_EQ(hms_topology_nignored(topo), 3);
	CHECK_EQ(hms_topology_nskipped(topo), 0);
	CHECK_EQ(hms_uid_type(topo, 100), HMS_OBJ_NONE);
	CHECK_EQ(hms_uid_type(topo, 102), HMS_OBJ_NONE);
	/* the links to them are ignored too */
	CHECK_EQ(hms_link_ntargets(hms_link_by_uid(topo, 3)), 1);
	CHECK_EQ(hms_initiator_nlinks(hms_initiator_by_uid(topo, 2)), 1);
	hms_topology_free(topo);
}

static void malformed_skipped(void)
{
	struct hms_topology *topo = load("malformed");
	const struct hms_link *l5;

	if (!topo)
		return;
	CHECK_EQ(hms_topology_ntargets(topo), 2);
	CHECK_EQ(hms_topology_ninitiators(topo), 1);
	CHECK_EQ(hms_topology_nlinks(topo), 2);
	CHECK_EQ(hms_topology_nbridges(topo), 1);
	/* the 7 objects of mkfixture.sh plus the v1-30-target file and the
	 * dangling v1-31-link, which have no readable uid */
	CHECK_EQ(hms_topology_nskipped(topo), 9);
	CHECK_EQ(hms_target_cpu_accessible(hms_target_by_uid(topo, 4)), 1);
	CHECK(hms_target_by_uid(topo, 10) == NULL, "10 (size abc) skipped");
	CHECK(hms_target_by_uid(topo, 11) == NULL, "11 (no nid) skipped");
	CHECK(hms_initiator_by_uid(topo, 12) == NULL, "12 (cpulist 0-) skipped");
	CHECK(hms_link_by_uid(topo, 13) == NULL, "13 (bandwidth 12x) skipped");
	CHECK(hms_target_by_uid(topo, 14) == NULL, "14 (uid 99) skipped");
	CHECK(hms_target_by_uid(topo, 15) == NULL, "15 (empty type) skipped");
	CHECK(hms_initiator_by_uid(topo, 16) == NULL, "16 (no cpulist) skipped");
	l5 = hms_link_by_uid(topo, 5);
	CHECK(l5 && hms_link_perf(l5)->read_bandwidth == 0 &&
	      hms_link_perf(l5)->write_latency == 0, "missing perf files read as 0");
	/* dangling, wrong-type and misdirected symlinks are ignored */
	CHECK_EQ(hms_link_ntargets(hms_link_by_uid(topo, 3)), 1);
	CHECK_EQ(hms_initiator_nlinks(hms_initiator_by_uid(topo, 2)), 2);
	CHECK_EQ(hms_target_nlinks(hms_target_by_uid(topo, 4)), 1);
	/* a bridge with one link is kept but unusable */
	CHECK_ERR(hms_bridge_link(hms_bridge_by_uid(topo, 20), 0), NULL, EINVAL);
	hms_topology_free(topo);
}

static void strict_load(void)
{
	struct hms_topology *topo = (struct hms_topology *)1;

	CHECK_ERR(hms_topology_load(&topo, fxroot("malformed"), HMS_TOPOLOGY_STRICT),
		  -1, EINVAL);
	CHECK(topo == NULL, "*topo NULL after a failed load");
	CHECK(hms_topology_load(&topo, fxroot("paths"), HMS_TOPOLOGY_STRICT) == 0,
	      "strict load of a sound tree: %s", strerror(errno));
	hms_topology_free(topo);
	/* unknown versions are not malformed: strict still loads them */
	CHECK(hms_topology_load(&topo, fxroot("versions"), HMS_TOPOLOGY_STRICT) == 0,
	      "strict load with unknown versions: %s", strerror(errno));
	hms_topology_free(topo);
}

/* copy fixture name to tmpdir/dir; returns its root or NULL */
static const char *copy_fixture(const char *name, const char *dir, char *root)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s' && cp -a '%s/%s' '%s/%s'", tmpdir,
		 dir, fixtures, name, tmpdir, dir);
	if (system(cmd))
		return NULL;
	snprintf(root, PATH_MAX, "%s/%s/sys/bus/hms", tmpdir, dir);
	return root;
}

static void duplicate_uid(void)
{
	struct hms_topology *topo;
	char root[PATH_MAX], cmd[3 * PATH_MAX];

	if (!copy_fixture("flat", "dup", root))
		SKIP("cannot copy the flat fixture");
	/* uid 3 is link 3: a target with the same uid */
	snprintf(cmd, sizeof(cmd), "d='%s/devices/v1-3-target' && mkdir \"$d\" && "
		 "echo 3 > \"$d/uid\" && echo 0 > \"$d/nid\" && echo system > \"$d/type\" "
		 "&& echo 4096 > \"$d/size\"", root);
	CHECK(system(cmd) == 0, "make v1-3-target");
	CHECK(hms_topology_load(&topo, root, 0) == 0, "load: %s", strerror(errno));
	if (topo) {
		CHECK_EQ(hms_topology_nskipped(topo), 2);
		CHECK_EQ(hms_topology_nlinks(topo), 0);
		CHECK_EQ(hms_topology_ntargets(topo), 1);
		CHECK_EQ(hms_uid_type(topo, 3), HMS_OBJ_NONE);
		hms_topology_free(topo);
	}
	CHECK_ERR(hms_topology_load(&topo, root, HMS_TOPOLOGY_STRICT), -1, EINVAL);
}

static void load_errors(void)
{
	struct hms_topology *topo = (struct hms_topology *)1;
	char path[PATH_MAX];

	CHECK_ERR(hms_topology_load(&topo, "/nonexistent/hms", 0), -1, ENOENT);
	CHECK(topo == NULL, "*topo NULL after a failed load");
	CHECK_ERR(hms_topology_load(NULL, fxroot("flat"), 0), -1, EINVAL);
	topo = (struct hms_topology *)1;
	CHECK_ERR(hms_topology_load(&topo, fxroot("flat"), 0x80), -1, EINVAL);
	CHECK_ERR(hms_topology_load(&topo, fxroot("flat"), ~0U), -1, EINVAL);
	snprintf(path, sizeof(path), "%s/flat/sys/bus/hms/devices/v1-1-target/uid",
		 fixtures);
	CHECK_ERR(hms_topology_load(&topo, path, 0), -1, ENOTDIR);
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	CHECK_ERR(hms_topology_load(&topo, path, 0), -1, ENAMETOOLONG);
}

static void default_root(void)
{
	struct hms_topology *topo;
	struct stat st;

	setenv("HMS_SYSFS_ROOT", fxroot("two-socket-hbm"), 1);
	CHECK(hms_topology_load(&topo, NULL, 0) == 0, "NULL root: %s", strerror(errno));
	CHECK_EQ(hms_topology_ntargets(topo), 4);
	hms_topology_free(topo);
	CHECK(hms_topology_load(&topo, "", 0) == 0, "empty root: %s", strerror(errno));
	CHECK_EQ(hms_topology_ntargets(topo), 4);
	hms_topology_free(topo);
	/* an explicit root wins over the environment */
	CHECK(hms_topology_load(&topo, fxroot("flat"), 0) == 0, "explicit root");
	CHECK_EQ(hms_topology_ntargets(topo), 1);
	hms_topology_free(topo);
	unsetenv("HMS_SYSFS_ROOT");
	if (!stat(HMS_SYSFS_ROOT "/devices", &st))
		SKIP("this machine has an HMS bus");
	CHECK_ERR(hms_topology_load(&topo, NULL, 0), -1, ENOENT);
}

static void null_objects(void)
{
	struct hms_topology *topo = load("flat");

	if (!topo)
		return;
	CHECK_ERR(hms_topology_target(topo, 1), NULL, EINVAL);
	CHECK_ERR(hms_topology_initiator(topo, 1), NULL, EINVAL);
	CHECK_ERR(hms_topology_link(topo, 1), NULL, EINVAL);
	CHECK_ERR(hms_topology_bridge(topo, 0), NULL, EINVAL);
	CHECK_ERR(hms_topology_target(NULL, 0), NULL, EINVAL);
	CHECK_ERR(hms_link_target(hms_link_by_uid(topo, 3), 1), NULL, EINVAL);
	CHECK_ERR(hms_target_link(NULL, 0), NULL, EINVAL);
	CHECK_ERR(hms_link_perf(NULL), NULL, EINVAL);
	CHECK_ERR(hms_bridge_perf(NULL), NULL, EINVAL);
	CHECK_ERR(hms_target_type_name(NULL), NULL, EINVAL);
	CHECK_ERR(hms_initiator_cpulist(NULL), NULL, EINVAL);
	CHECK_ERR(hms_target_nid(NULL), -1, EINVAL);
	CHECK_ERR(hms_target_cpu_accessible(NULL), -1, EINVAL);
	CHECK_ERR(hms_initiator_is_device(NULL), -1, EINVAL);
	CHECK_ERR(hms_target_uid(NULL), UINT32_MAX, EINVAL);
	CHECK_ERR(hms_target_size(NULL), 0, EINVAL);
	CHECK_EQ(hms_topology_ntargets(NULL), 0);
	CHECK_EQ(hms_topology_nskipped(NULL), 0);
	CHECK_EQ(hms_topology_nignored(NULL), 0);
	CHECK_EQ(hms_target_nlinks(NULL), 0);
	CHECK_EQ(hms_initiator_has_cpu(NULL, 0), 0);
	CHECK_EQ(hms_initiator_ncpus(NULL), 0);
	hms_topology_free(topo);
	hms_topology_free(NULL);
}

TESTS(
	T(flat_loads, "a flat tree loads with its counts, attributes and memberships in both directions"),
	T(lookups, "objects are found by uid only under their own type, targets by node, CPU initiators by node and CPU; absent ones are ENOENT"),
	T(current_initiator, "hms_initiator_current() is the initiator of the CPU the calling thread runs on"),
	T(device_initiators, "a device initiator is found by its parent device's name, its sysfs path or a symlink to it, and has no CPUs and no node"),
	T(bridges, "a bridge has its two links by increasing uid, its perf and the initiators it allows"),
	T(unknown_versions_ignored, "objects of an unknown version or type, and links to them, are ignored and counted by hms_topology_nignored()"),
	T(malformed_skipped, "objects with a missing or malformed attribute are skipped and counted by hms_topology_nskipped(); dangling, wrong-type and misdirected symlinks are ignored"),
	T(strict_load, "HMS_TOPOLOGY_STRICT fails a malformed tree with EINVAL and *topo NULL, and loads a sound one"),
	T(duplicate_uid, "two objects with one uid are both skipped (EINVAL with HMS_TOPOLOGY_STRICT)"),
	T(load_errors, "hms_topology_load() fails with ENOENT for a missing root, EINVAL for NULL topo or unknown flags, ENOTDIR and ENAMETOOLONG for a bad root, and leaves *topo NULL"),
	T(default_root, "a NULL or empty root reads $HMS_SYSFS_ROOT, else /sys/bus/hms; an explicit root wins"),
	T(null_objects, "accessors given NULL or an index out of range return NULL/-1/0 with EINVAL, counts return 0, hms_topology_free(NULL) is a no-op"),
);
