// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE		/* mremap() flags, MAP_FIXED_NOREPLACE */
/*
 * devtest - device memory as an HMS target: functional tests of hbind()
 * with the simulated accelerator lib/test_hms.c (/dev/hms_test<N>).
 * Adapted from the driver author's hmst.c. Used by tests/guest/device.bats.
 *
 * devtest [-d DEV] [-m MIB] [-n NODE] TEST [FILE]
 *   -d DEV   device number (/dev/hms_test<DEV>), default 0
 *   -m MIB   size of the test range in MiB, default 64
 *   -n NODE  the NUMA node whose system target the tests use as "the other
 *            target" (hbind MIGRATE back, fallback, BIND order), default 1;
 *            run devtest on a CPU of another node so the two are told apart
 *   stats       print HMS_TEST_STATS
 *   migrate     MIB to the device with hbind MIGRATE, device READ/WRITE,
 *               back by hbind MIGRATE to NODE (first half) and by CPU touch
 *               (second half); checksums, exact counts, QUERY at each step
 *   full        MIGRATE [device, NODE] of capacity + capacity/4 pages: the
 *               device fills, the rest goes to NODE, data intact
 *   firsttouch  BIND {device}, device READ/WRITE of never-touched memory:
 *               allocated on the device; an unbound range and a range bound
 *               {NODE, device} are only mirrored
 *   hold FILE   unload under use (device.bats drives it): migrate MIB to the
 *               device, bind two fresh ranges ({device, NODE} and
 *               {device}), close the device, create FILE.ready holding the
 *               device uid, wait for FILE.go (the module was unloaded):
 *               check the pages came back intact, the dead target is no
 *               longer used or accepted; create FILE.done1, wait for
 *               FILE.go2 (the module was loaded again): the new device
 *               must not take over the old policies
 *   race FILE   BIND by uid while the device is unloaded (device.bats drives
 *               it): loops open the device, BIND {device} (the target's own
 *               list, looked up without a lock), CPU touch, BIND {device,
 *               NODE} (a list built per call), CPU touch, close, DEFAULT on
 *               one page; creates FILE.ready (holding the device uid) after
 *               the first round; when FILE.go appears (the module is gone)
 *               does one last round. With the device open every BIND must
 *               succeed; when it cannot be opened, fail with EACCES (not
 *               open) or EINVAL (gone), and none may succeed once one
 *               failed with EINVAL
 *   perm        device memory has an owner: without the device open, BIND
 *               and MIGRATE naming it fail with EACCES and change nothing,
 *               QUERY works; after open they work; after close they fail
 *               again, pages stay, moving them back needs no permission.
 *               Run as any user: when the device cannot be opened, checks
 *               the refusal only
 *   shared      pages shared with a child after fork(): MIGRATE to a node
 *               and to the device, and back from the device, move none of
 *               them without HBIND_MIGRATE_ALL and all with it; the child
 *               reads its own data at the end (needs CAP_SYS_NICE)
 *   d2d         two devices (-d is the first): MIGRATE device 1 -> device 0
 *               and back, ordered lists, only as many as fit, exact counts,
 *               checksums
 *   back        MIB to the device, then back to NODE in batches by list
 *               order: {device, NODE} moves none, {NODE, device} of half
 *               moves them straight to NODE (not through the CPU's node:
 *               pgmigrate_success), {NODE} the rest; counts, checksums
 *   qrace       QUERY in a loop while the CPU touches device pages (they
 *               migrate to NODE): every entry names the device or NODE
 *   devonly     run under numactl --membind=NODE: BIND {device} leaves CPU
 *               allocations to the process policy (get_mempolicy and
 *               numa_maps say default), a strict one is EINVAL, device
 *               first touch still works
 *   lifecycle   the device preferences of a BIND {device} follow the range
 *               as a VMA policy does: a VMA split, part of a VMA bound
 *               alone, mremap() moved, grown in place, grown and moved,
 *               with MREMAP_DONTUNMAP, fork() (and MADV_DONTFORK),
 *               munmap() of the middle, a new mapping in place (munmap,
 *               MAP_FIXED): device first touch of never-touched memory
 *               counts the pages that got them
 *   enomem      every allocation of munmap() of the middle of a range bound
 *               {device}, mremap() of one, fork() and hbind BIND fails in
 *               turn (fail-nth, failslab and fail_page_alloc with sleeping
 *               allocations): each failure is ENOMEM and leaves the
 *               mapping and its device preferences as they were. Needs
 *               CONFIG_FAULT_INJECTION's debugfs (the DEBUG kernel)
 *   churn FILE  until FILE.stop: open the device, MIGRATE to it in a thread
 *               while the device is closed, QUERY, BIND, device first
 *               touch, check data; device.bats reloads test_hms meanwhile
 *
 * Output: one line per step; a failure prints "FAIL: what (line N)" on
 * stderr. Exit 0 pass, 1 fail, 77 skip (no device, no hbind()), 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/hbind.h>

#include "hbtest.h"

#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node 450
#endif
#include "test_hms_uapi.h"

#define HMS_DEVICES "/sys/bus/hms/devices"
#define MAX_TARGETS 64

static unsigned long psz;
static int devno;
static unsigned long mib = 64;
static int other_node = 1;

/* the live targets, from sysfs */
static struct {
	long uid;
	int nid;
	int system;
} targets[MAX_TARGETS];
static int ntargets;

static void need_hbind(void)
{
	__u32 atoms[1] = { HBIND_ATOM(HBIND_CMD_DEFAULT, 0) };

	if (sys_hbind(NULL, 0, NULL, 0, atoms, 1) && errno == ENOSYS)
		SKIP("this kernel has no hbind() (ENOSYS)");
}

static int read_str(const char *dir, const char *file, char *buf, size_t n)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), HMS_DEVICES "/%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(buf, n, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void load_targets(void)
{
	DIR *d = opendir(HMS_DEVICES);
	struct dirent *e;
	char buf[64];

	CHECK(d, "%s: %s", HMS_DEVICES, strerror(errno));
	ntargets = 0;
	while ((e = readdir(d)) && ntargets < MAX_TARGETS) {
		size_t n = strlen(e->d_name);

		if (strncmp(e->d_name, "v1-", 3) || n < 7 ||
		    strcmp(e->d_name + n - 7, "-target"))
			continue;
		if (read_str(e->d_name, "uid", buf, sizeof(buf)))
			continue;
		targets[ntargets].uid = atol(buf);
		if (read_str(e->d_name, "nid", buf, sizeof(buf)))
			continue;
		targets[ntargets].nid = atoi(buf);
		if (read_str(e->d_name, "type", buf, sizeof(buf)))
			continue;
		targets[ntargets].system = !strcmp(buf, "system");
		ntargets++;
	}
	closedir(d);
}

/* uid of the system target of @nid; fails the test when there is none */
static __u32 node_uid(int nid)
{
	for (int i = 0; i < ntargets; i++)
		if (targets[i].system && targets[i].nid == nid)
			return targets[i].uid;
	FAIL("node %d has no system target on the HMS bus", nid);
}

static int is_system_uid(__s32 uid)
{
	for (int i = 0; i < ntargets; i++)
		if (targets[i].system && targets[i].uid == uid)
			return 1;
	return 0;
}

static int dev_open(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/hms_test%d", devno);
	fd = open(path, O_RDWR);
	if (fd < 0)
		SKIP("%s: %s", path, strerror(errno));
	return fd;
}

static struct hms_test_stats stats(int fd)
{
	struct hms_test_stats s;

	CHECK(ioctl(fd, HMS_TEST_STATS, &s) == 0, "HMS_TEST_STATS: %s",
	      strerror(errno));
	return s;
}

static void print_stats(const char *what, const struct hms_test_stats *s)
{
	printf("%s: uid %llu capacity %llu used %llu to %llu from %llu\n",
	       what, (unsigned long long)s->uid,
	       (unsigned long long)s->capacity, (unsigned long long)s->used,
	       (unsigned long long)s->migrated_to,
	       (unsigned long long)s->migrated_from);
}

static struct hms_test_cmd dev_rw(int fd, unsigned long req, const char *name,
				  void *addr, void *buf, unsigned long npages)
{
	struct hms_test_cmd cmd = {
		.addr = (uintptr_t)addr,
		.ptr = (uintptr_t)buf,
		.npages = npages,
	};

	CHECK(ioctl(fd, req, &cmd) == 0, "device %s of %lu pages: %s", name,
	      npages, strerror(errno));
	CHECK(cmd.cpages == npages, "device %s: cpages %llu, want %lu", name,
	      (unsigned long long)cmd.cpages, npages);
	printf("device %s: cpages %llu faults %llu mpages %llu\n", name,
	       (unsigned long long)cmd.cpages, (unsigned long long)cmd.faults,
	       (unsigned long long)cmd.mpages);
	return cmd;
}

static uint64_t word(unsigned int seed, unsigned long i, unsigned long j)
{
	return ((uint64_t)seed << 48) ^ ((uint64_t)i << 20) ^ j ^ 0x5a5a5a5aULL;
}

static void fill(char *p, unsigned long first, unsigned long npages,
		 unsigned int seed)
{
	for (unsigned long i = first; i < first + npages; i++) {
		uint64_t *q = (uint64_t *)(p + i * psz);

		for (unsigned long j = 0; j < psz / 8; j++)
			q[j] = word(seed, i, j);
	}
}

/* index of the first page of [first, first+npages) that differs, or -1 */
static long check(const char *p, unsigned long first, unsigned long npages,
		  unsigned int seed)
{
	for (unsigned long i = first; i < first + npages; i++) {
		const uint64_t *q = (const uint64_t *)(p + i * psz);

		for (unsigned long j = 0; j < psz / 8; j++)
			if (q[j] != word(seed, i, j))
				return i;
	}
	return -1;
}

/* hbind MIGRATE [p, p+npages) to @uids; returns pages moved */
static unsigned long migrate(void *p, unsigned long npages, const __u32 *uids,
			     unsigned int n)
{
	__u32 atoms[3] = {
		HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), 0, 0
	};

	CHECK(sys_hbind(p, npages * psz, uids, n, atoms, 3) == 0,
	      "hbind MIGRATE to %u%s: %s", uids[0], n > 1 ? ",..." : "",
	      strerror(errno));
	return atoms[2];
}

static void bind(void *p, unsigned long npages, const __u32 *uids,
		 unsigned int n)
{
	__u32 atoms[2] = { HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS), 0 };

	CHECK(sys_hbind(p, npages * psz, uids, n, atoms, 2) == 0,
	      "hbind BIND: %s", strerror(errno));
}

/* hbind QUERY of [p, p+npages) into a new array */
static __s32 *query(void *p, unsigned long npages)
{
	__s32 *where = calloc(npages, sizeof(*where));
	__u32 atoms[4];

	CHECK(where, "out of memory");
	atoms[0] = HBIND_ATOM(HBIND_CMD_QUERY, HBIND_QUERY_NDWORDS);
	atoms[1] = 0;
	atoms[2] = (__u32)(uintptr_t)where;
	atoms[3] = (__u32)((uint64_t)(uintptr_t)where >> 32);
	CHECK(sys_hbind(p, npages * psz, NULL, 0, atoms, 4) == 0,
	      "hbind QUERY: %s", strerror(errno));
	return where;
}

/*
 * QUERY [p + first pages, + npages) and check every page: want >= 0: on
 * that uid; want == ANY_SYSTEM: on some system target. Prints
 * "query WHAT: u<uid>=<pages> ..." (uids in order of first appearance;
 * negative entries as ENOENT=/EFAULT=/E<n>=).
 */
#define ANY_SYSTEM (-1)
#define NOT_PRESENT (-2)
static void expect_query(const char *what, void *p, unsigned long first,
			 unsigned long npages, long want)
{
	__s32 *q = query((char *)p + first * psz, npages);
	__s32 val[16];
	unsigned long cnt[16];
	int nval = 0, k;

	for (unsigned long i = 0; i < npages; i++) {
		for (k = 0; k < nval && val[k] != q[i]; k++)
			;
		if (k == nval && nval < 16) {
			val[nval] = q[i];
			cnt[nval++] = 0;
		}
		if (k < nval)
			cnt[k]++;
	}
	printf("query %s:", what);
	for (k = 0; k < nval; k++) {
		if (val[k] >= 0)
			printf(" u%d=%lu", val[k], cnt[k]);
		else if (val[k] == -ENOENT)
			printf(" ENOENT=%lu", cnt[k]);
		else if (val[k] == -EFAULT)
			printf(" EFAULT=%lu", cnt[k]);
		else
			printf(" E%d=%lu", -val[k], cnt[k]);
	}
	putchar('\n');
	for (unsigned long i = 0; i < npages; i++) {
		if (want >= 0)
			CHECK(q[i] == want,
			      "QUERY %s: page %lu on %d, want target %ld",
			      what, first + i, q[i], want);
		else if (want == NOT_PRESENT)
			CHECK(q[i] == -ENOENT,
			      "QUERY %s: page %lu on %d, want not present",
			      what, first + i, q[i]);
		else
			CHECK(q[i] >= 0 && is_system_uid(q[i]),
			      "QUERY %s: page %lu on %d, want a system target",
			      what, first + i, q[i]);
	}
	free(q);
}

static void *map(unsigned long npages)
{
	void *p = mmap(NULL, npages * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	/* base pages only: device-private memory has no THP here */
	madvise(p, npages * psz, MADV_NOHUGEPAGE);
	return p;
}

static int test_migrate(void)
{
	unsigned long npages = (mib << 20) / psz, half = npages / 2, moved;
	int fd = dev_open();
	struct hms_test_stats s0 = stats(fd), s;
	__u32 dev = s0.uid, sys = node_uid(other_node);
	char *p, *buf;
	long bad;

	print_stats("before", &s0);
	CHECK(s0.used == 0, "device not empty at start: %llu pages",
	      (unsigned long long)s0.used);
	CHECK(npages <= s0.capacity, "%lu pages do not fit in %llu", npages,
	      (unsigned long long)s0.capacity);
	p = map(npages);
	buf = malloc(npages * psz);
	CHECK(buf, "out of memory");
	fill(p, 0, npages, 1);
	expect_query("before", p, 0, npages, ANY_SYSTEM);

	moved = migrate(p, npages, &dev, 1);
	printf("MIGRATE to device %u: moved %lu of %lu\n", dev, moved, npages);
	CHECK(moved == npages, "MIGRATE to the device moved %lu, want %lu",
	      moved, npages);
	s = stats(fd);
	print_stats("on device", &s);
	CHECK(s.used == npages, "device used %llu, want %lu",
	      (unsigned long long)s.used, npages);
	CHECK(s.migrated_to - s0.migrated_to == npages,
	      "migrated_to grew by %llu, want %lu",
	      (unsigned long long)(s.migrated_to - s0.migrated_to), npages);
	expect_query("on device", p, 0, npages, dev);

	moved = migrate(p, npages, &dev, 1);
	CHECK(moved == 0, "a second MIGRATE to the device moved %lu", moved);

	/* the device reads its own memory: nothing moves */
	dev_rw(fd, HMS_TEST_READ, "READ", p, buf, npages);
	bad = check(buf, 0, npages, 1);
	CHECK(bad < 0, "device READ: page %ld differs", bad);
	/* the device writes the second half in place */
	fill(buf, half, npages - half, 2);
	dev_rw(fd, HMS_TEST_WRITE, "WRITE", p + half * psz, buf + half * psz,
	       npages - half);
	s = stats(fd);
	CHECK(s.used == npages && s.migrated_from == s0.migrated_from,
	      "device READ/WRITE moved pages off the device (used %llu)",
	      (unsigned long long)s.used);

	/* first half back by hbind MIGRATE to node other_node */
	moved = migrate(p, half, &sys, 1);
	printf("MIGRATE to node %d target %u: moved %lu of %lu\n",
	       other_node, sys, moved, half);
	CHECK(moved == half, "MIGRATE back moved %lu, want %lu", moved, half);
	s = stats(fd);
	CHECK(s.used == npages - half, "device used %llu after MIGRATE back, want %lu",
	      (unsigned long long)s.used, npages - half);
	expect_query("after MIGRATE back", p, 0, half, sys);
	expect_query("still on device", p, half, npages - half, dev);

	/* checksums; the second half comes back by CPU touch */
	bad = check(p, 0, half, 1);
	CHECK(bad < 0, "CPU: page %ld of the first half differs", bad);
	bad = check(p, half, npages - half, 2);
	CHECK(bad < 0, "CPU: page %ld of the second half (device WRITE) differs", bad);
	s = stats(fd);
	print_stats("after", &s);
	CHECK(s.used == 0, "device used %llu after CPU touch",
	      (unsigned long long)s.used);
	CHECK(s.migrated_from - s0.migrated_from == npages,
	      "migrated_from grew by %llu, want %lu",
	      (unsigned long long)(s.migrated_from - s0.migrated_from), npages);
	expect_query("after CPU touch", p, 0, npages, ANY_SYSTEM);
	expect_query("first half stays", p, 0, half, sys);
	munmap(p, npages * psz);
	free(buf);
	close(fd);
	printf("PASS migrate %lu MiB\n", mib);
	return 0;
}

static int test_full(void)
{
	int fd = dev_open();
	struct hms_test_stats s0 = stats(fd), s;
	unsigned long cap = s0.capacity, npages = cap + cap / 4, moved;
	__u32 uids[2] = { s0.uid, node_uid(other_node) };
	__s32 *q;
	unsigned long ondev = 0, onnode = 0;
	char *p;
	long bad;

	CHECK(s0.used == 0, "device not empty at start: %llu pages",
	      (unsigned long long)s0.used);
	p = map(npages);
	fill(p, 0, npages, 3);
	expect_query("before", p, 0, npages, ANY_SYSTEM);
	q = query(p, npages);
	for (unsigned long i = 0; i < npages; i++)
		CHECK(q[i] != (__s32)uids[1],
		      "page %lu already on node %d: run devtest on another node",
		      i, other_node);
	free(q);

	moved = migrate(p, npages, uids, 2);
	s = stats(fd);
	printf("MIGRATE [device %u, node %d target %u] of %lu pages (capacity %lu): moved %lu, device used %llu\n",
	       uids[0], other_node, uids[1], npages, cap, moved,
	       (unsigned long long)s.used);
	CHECK(s.used == cap, "device used %llu, want it full (%lu)",
	      (unsigned long long)s.used, cap);
	CHECK(s.migrated_to - s0.migrated_to == cap, "migrated_to grew by %llu, want %lu",
	      (unsigned long long)(s.migrated_to - s0.migrated_to), cap);
	q = query(p, npages);
	for (unsigned long i = 0; i < npages; i++) {
		if (q[i] == (__s32)uids[0])
			ondev++;
		else if (q[i] == (__s32)uids[1])
			onnode++;
		else
			FAIL("page %lu on %d, neither the device nor node %d",
			     i, q[i], other_node);
	}
	free(q);
	printf("query: %lu on the device, %lu on node %d\n", ondev, onnode,
	       other_node);
	CHECK(ondev == cap, "%lu pages on the device, want %lu", ondev, cap);
	CHECK(onnode == npages - cap, "%lu pages on node %d, want %lu", onnode,
	      other_node, npages - cap);
	CHECK(moved == npages, "moved %lu, want %lu (device + node)", moved,
	      npages);

	/* a full device takes nothing more, without error */
	{
		char *r = map(16);

		fill(r, 0, 16, 4);
		CHECK(migrate(r, 16, uids, 1) == 0, "MIGRATE to a full device moved pages");
		CHECK(check(r, 0, 16, 4) < 0, "range left behind by a full device corrupted");
		munmap(r, 16 * psz);
	}
	bad = check(p, 0, npages, 3);
	CHECK(bad < 0, "CPU: page %ld differs", bad);
	CHECK(stats(fd).used == 0, "device not empty after CPU touch");
	munmap(p, npages * psz);
	close(fd);
	printf("PASS full\n");
	return 0;
}

static int test_firsttouch(void)
{
	unsigned long npages = (mib << 20) / psz, first = 16;
	int fd = dev_open();
	struct hms_test_stats s0 = stats(fd), s;
	struct hms_test_cmd cmd;
	__u32 dev = s0.uid, uids[2] = { node_uid(other_node), s0.uid };
	char *p, *buf;
	long bad;

	CHECK(npages > first && npages <= s0.capacity - s0.used,
	      "%lu pages do not fit on the device", npages);
	buf = malloc(npages * psz);
	CHECK(buf, "out of memory");

	/* bound {device}: device access allocates on the device */
	p = map(npages);
	bind(p, npages, &dev, 1);
	memset(buf, 0xff, first * psz);
	cmd = dev_rw(fd, HMS_TEST_READ, "READ (bound, never touched)", p, buf, first);
	CHECK(cmd.mpages == first, "device READ of never-touched bound pages: mpages %llu, want %lu",
	      (unsigned long long)cmd.mpages, first);
	for (unsigned long i = 0; i < first * psz; i++)
		CHECK(buf[i] == 0, "device first-touch READ: byte %lu not zero", i);
	fill(buf, 0, npages, 5);
	cmd = dev_rw(fd, HMS_TEST_WRITE, "WRITE (bound)", p, buf, npages);
	CHECK(cmd.mpages == npages - first, "device WRITE: mpages %llu, want %lu",
	      (unsigned long long)cmd.mpages, npages - first);
	s = stats(fd);
	CHECK(s.used == s0.used + npages, "device used %llu, want %llu",
	      (unsigned long long)s.used, (unsigned long long)(s0.used + npages));
	expect_query("bound after device WRITE", p, 0, npages, dev);
	bad = check(p, 0, npages, 5);
	CHECK(bad < 0, "CPU: page %ld differs", bad);
	CHECK(stats(fd).used == s0.used, "device not empty after CPU read");
	expect_query("bound after CPU read", p, 0, npages, ANY_SYSTEM);
	munmap(p, npages * psz);

	/* not bound: only mirrored */
	p = map(npages);
	fill(buf, 0, npages, 6);
	cmd = dev_rw(fd, HMS_TEST_WRITE, "WRITE (not bound)", p, buf, npages);
	CHECK(cmd.mpages == 0, "device WRITE of an unbound range migrated %llu pages",
	      (unsigned long long)cmd.mpages);
	CHECK(stats(fd).used == s0.used, "device memory used by an unbound range");
	expect_query("not bound", p, 0, npages, ANY_SYSTEM);
	bad = check(p, 0, npages, 6);
	CHECK(bad < 0, "CPU: page %ld of the unbound range differs", bad);
	munmap(p, npages * psz);

	/* bound {system, device}: the device is not first, only mirrored */
	p = map(npages);
	bind(p, npages, uids, 2);
	fill(buf, 0, npages, 7);
	cmd = dev_rw(fd, HMS_TEST_WRITE, "WRITE (bound system first)", p, buf, npages);
	CHECK(cmd.mpages == 0, "device WRITE of a range bound {node %d, device} migrated %llu pages",
	      other_node, (unsigned long long)cmd.mpages);
	CHECK(stats(fd).used == s0.used, "device memory used by a range bound system first");
	expect_query("bound system first", p, 0, npages, uids[0]);
	bad = check(p, 0, npages, 7);
	CHECK(bad < 0, "CPU: page %ld of the range bound system first differs", bad);
	munmap(p, npages * psz);
	free(buf);
	close(fd);
	printf("PASS firsttouch\n");
	return 0;
}

static void wait_for(const char *file, const char *suffix)
{
	char path[512];
	int n = 0;

	snprintf(path, sizeof(path), "%s.%s", file, suffix);
	while (access(path, F_OK)) {
		CHECK(++n < 3000, "%s did not appear within 300 s", path);
		usleep(100000);
	}
}

static void signal_file(const char *file, const char *suffix, long val)
{
	char path[512], tmp[520];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", file, suffix);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	CHECK(f, "%s: %s", tmp, strerror(errno));
	fprintf(f, "%ld\n", val);
	CHECK(fclose(f) == 0 && rename(tmp, path) == 0, "%s: %s", path,
	      strerror(errno));
}

static int test_hold(const char *file)
{
	unsigned long npages = (mib << 20) / psz, nb = 64, moved;
	int fd = dev_open();
	struct hms_test_stats s0 = stats(fd), s;
	__u32 dev = s0.uid, sys = node_uid(other_node);
	__u32 both[2] = { dev, sys };
	__u32 atoms[3];
	struct hms_test_cmd cmd;
	char *a, *b, *c, *buf;
	long bad;

	/* A: data on the device */
	a = map(npages);
	fill(a, 0, npages, 8);
	moved = migrate(a, npages, &dev, 1);
	CHECK(moved == npages, "MIGRATE to the device moved %lu, want %lu",
	      moved, npages);
	s = stats(fd);
	CHECK(s.used == s0.used + npages, "device used %llu, want %llu",
	      (unsigned long long)s.used, (unsigned long long)(s0.used + npages));
	expect_query("A on device", a, 0, npages, dev);
	/* B: bound {device, node}, C: bound {device}; both never touched */
	b = map(nb);
	bind(b, nb, both, 2);
	c = map(nb);
	bind(c, nb, &dev, 1);
	close(fd);
	signal_file(file, "ready", dev);
	printf("holding %lu pages on device %u\n", npages, dev);

	wait_for(file, "go");
	load_targets();
	for (int i = 0; i < ntargets; i++)
		CHECK(targets[i].uid != dev,
		      "target %u still on the HMS bus after unload", dev);
	/* A is back in system memory (QUERY before any CPU touch), intact */
	expect_query("A after unload", a, 0, npages, ANY_SYSTEM);
	bad = check(a, 0, npages, 8);
	CHECK(bad < 0, "page %ld of A differs after unload", bad);
	/* the dead target is refused */
	atoms[0] = HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS);
	atoms[1] = atoms[2] = 0;
	errno = 0;
	CHECK(sys_hbind(a, npages * psz, &dev, 1, atoms, 3) == -1 &&
	      errno == ENODEV, "MIGRATE to the unloaded device's uid %u: %s, want ENODEV",
	      dev, errno ? strerror(errno) : "success");
	atoms[0] = HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS);
	atoms[1] = 0;
	errno = 0;
	CHECK(sys_hbind(a, npages * psz, &dev, 1, atoms, 2) == -1 &&
	      errno == EINVAL, "BIND to the unloaded device's uid %u: %s, want EINVAL",
	      dev, errno ? strerror(errno) : "success");
	/* B (bound {dead device, node}) is allocated on the node */
	memset(b, 0x3c, nb * psz);
	expect_query("B {dead device, node} after CPU touch", b, 0, nb, sys);
	/* C (bound {dead device}) is allocated somewhere in system memory */
	memset(c, 0x3d, nb * psz);
	expect_query("C {dead device} after CPU touch", c, 0, nb, ANY_SYSTEM);
	signal_file(file, "done1", 0);

	wait_for(file, "go2");
	/* a new device (maybe with the same uid) does not take the old policies */
	fd = dev_open();
	s0 = stats(fd);
	printf("new device: uid %llu\n", (unsigned long long)s0.uid);
	buf = malloc(nb * psz);
	CHECK(buf, "out of memory");
	memset(buf, 0x4b, nb * psz);
	cmd = dev_rw(fd, HMS_TEST_WRITE, "WRITE B (new device)", b, buf, nb);
	CHECK(cmd.mpages == 0, "the new device migrated %llu pages of B, bound to the old one",
	      (unsigned long long)cmd.mpages);
	cmd = dev_rw(fd, HMS_TEST_WRITE, "WRITE C (new device)", c, buf, nb);
	CHECK(cmd.mpages == 0, "the new device migrated %llu pages of C, bound to the old one",
	      (unsigned long long)cmd.mpages);
	CHECK(stats(fd).used == s0.used, "new device memory used by old policies");
	expect_query("B after new device WRITE", b, 0, nb, sys);
	for (unsigned long i = 0; i < nb * psz; i++)
		CHECK(b[i] == 0x4b && c[i] == 0x4b, "byte %lu differs after device WRITE", i);
	close(fd);
	printf("PASS hold (%lu pages intact)\n", npages);
	return 0;
}

/*
 * One BIND by uid: 1 bound, 0 refused with @want (or EINVAL: the target is
 * gone); fails on anything else. A bound page is touched (and dropped) so
 * that the fault path uses the policy while the target may be going away.
 */
static int race_bind(char *p, const __u32 *uids, unsigned int n, int want,
		     int *gone)
{
	__u32 atoms[2] = { HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS), 0 };

	if (sys_hbind(p, psz, uids, n, atoms, 2)) {
		CHECK(errno == EINVAL || (want && errno == want),
		      "BIND to %u%s: %s, want %s", uids[0], n > 1 ? ",..." : "",
		      strerror(errno), want ? "EACCES or EINVAL" : "success");
		if (errno == EINVAL)
			*gone = 1;
		return 0;
	}
	p[0]++;
	CHECK(madvise(p, psz, MADV_DONTNEED) == 0, "madvise: %s", strerror(errno));
	return 1;
}

/* open /dev/hms_test<devno>: the fd, or -1 when it is gone or going */
static int dev_try_open(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/hms_test%d", devno);
	fd = open(path, O_RDWR);
	CHECK(fd >= 0 || errno == ENOENT || errno == ENODEV || errno == ENXIO,
	      "%s: %s", path, strerror(errno));
	return fd;
}

static int test_race(const char *file)
{
	int fd = dev_open();
	__u32 dev = stats(fd).uid, sys = node_uid(other_node);
	__u32 both[2] = { dev, sys };
	__u32 def = HBIND_ATOM(HBIND_CMD_DEFAULT, 0);
	unsigned long ok[2] = { 0, 0 }, refused[2] = { 0, 0 }, rounds = 0;
	char path[512], *p = map(1);
	int last = 0, gone = 0;

	close(fd);	/* an open device file would hold the module */
	snprintf(path, sizeof(path), "%s.go", file);
	for (;;) {
		/* open: the module cannot go away until close */
		fd = dev_try_open();
		for (int k = 0; k < 2; k++) {
			if (race_bind(p, k ? both : &dev, k + 1,
				      fd < 0 ? EACCES : 0, &gone)) {
				CHECK(!gone, "BIND %s succeeded after one failed with EINVAL",
				      k ? "{device, node}" : "{device}");
				ok[k]++;
			} else {
				refused[k]++;
			}
		}
		if (fd >= 0)
			close(fd);
		CHECK(sys_hbind(p, psz, NULL, 0, &def, 1) == 0, "DEFAULT: %s",
		      strerror(errno));
		if (!rounds++)
			signal_file(file, "ready", dev);
		if (last)
			break;
		last = !access(path, F_OK);
		CHECK(rounds < 10000000, "no %s", path);
	}
	printf("race: %lu rounds; BIND {device}: %lu bound, %lu refused; BIND {device, node}: %lu bound, %lu refused\n",
	       rounds, ok[0], refused[0], ok[1], refused[1]);
	CHECK(ok[0] && ok[1], "no BIND succeeded before the unload");
	CHECK(gone, "BIND by the uid still accepted after the unload");
	printf("PASS race\n");
	return 0;
}

/* hbind MIGRATE with flags; 0 and *moved, or the errno */
static int try_migrate(void *p, unsigned long npages, const __u32 *uids,
		       unsigned int n, __u32 flags, unsigned long *moved)
{
	__u32 atoms[3] = {
		HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), flags, 0
	};

	if (sys_hbind(p, npages * psz, uids, n, atoms, 3))
		return errno;
	if (moved)
		*moved = atoms[2];
	return 0;
}

static int try_bind(void *p, unsigned long npages, const __u32 *uids,
		    unsigned int n, __u32 flags)
{
	__u32 atoms[2] = { HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS), flags };

	return sys_hbind(p, npages * psz, uids, n, atoms, 2) ? errno : 0;
}

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "success";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case ENODEV: return "ENODEV";
	case EFAULT: return "EFAULT";
	case ENOENT: return "ENOENT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

/* the VMA policy mode at @p (get_mempolicy(MPOL_F_ADDR)), flags stripped */
#define MPOL_DEFAULT_ 0
#define MPOL_PREFERRED_MANY_ 5
#define MPOL_F_ADDR_ (1 << 1)
static int policy_mode(void *p)
{
	unsigned long nodes[2] = { 0, 0 };
	int mode = -1;

	CHECK(syscall(SYS_get_mempolicy, &mode, nodes, 128, p, MPOL_F_ADDR_) == 0,
	      "get_mempolicy: %s", strerror(errno));
	return mode & 0xff;
}

/* the uid of the target of /dev/hms_test<devno>, from sysfs (no open) */
static __u32 dev_uid_sysfs(int n)
{
	char want[64], link[PATH_MAX], path[PATH_MAX], buf[32];
	struct dirent *e;
	long uid = -1;
	DIR *d;

	snprintf(want, sizeof(want), "/hms_test%d", n);
	d = opendir(HMS_DEVICES);
	CHECK(d, "%s: %s", HMS_DEVICES, strerror(errno));
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		ssize_t k;

		if (l < 7 || strcmp(e->d_name + l - 7, "-target"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/device", HMS_DEVICES, e->d_name);
		k = readlink(path, link, sizeof(link) - 1);
		if (k < 0)
			continue;
		link[k] = 0;
		l = strlen(link);
		if (l < strlen(want) || strcmp(link + l - strlen(want), want))
			continue;
		CHECK(!read_str(e->d_name, "uid", buf, sizeof(buf)), "%s/%s/uid",
		      HMS_DEVICES, e->d_name);
		uid = atol(buf);
	}
	closedir(d);
	CHECK(uid >= 0, "no target with a device link to hms_test%d", n);
	return uid;
}

static int test_perm(void)
{
	unsigned long npages = (mib << 20) / psz, half = npages / 2, moved = 0;
	__u32 dev = dev_uid_sysfs(devno), sys = node_uid(other_node);
	__u32 both[2] = { sys, dev };
	char *p = map(npages), *r = map(npages), *t = map(npages);
	char path[64];
	int fd, e;
	long bad;

	fill(p, 0, npages, 21);
	fill(t, 0, npages, 22);
	printf("device %d: target %u\n", devno, dev);
	/* not open: refused, nothing changes */
	e = try_migrate(p, npages, &dev, 1, 0, &moved);
	printf("not open: MIGRATE {device}: %s\n", errname(e));
	CHECK(e == EACCES, "MIGRATE {device} without the device open: %s, want EACCES",
	      errname(e));
	e = try_migrate(p, npages, both, 2, 0, &moved);
	printf("not open: MIGRATE {node, device}: %s\n", errname(e));
	CHECK(e == EACCES, "MIGRATE {node, device} without the device open: %s",
	      errname(e));
	e = try_bind(p, npages, &dev, 1, 0);
	printf("not open: BIND {device}: %s\n", errname(e));
	CHECK(e == EACCES, "BIND {device} without the device open: %s", errname(e));
	e = try_bind(r, npages, both, 2, HBIND_BIND_STRICT);
	printf("not open: BIND strict {node, device}: %s\n", errname(e));
	CHECK(e == EACCES, "BIND {node, device} without the device open: %s",
	      errname(e));
	e = try_migrate(p, npages, &dev, 1, HBIND_MIGRATE_ALL, &moved);
	printf("not open: MIGRATE_ALL {device}: %s\n", errname(e));
	CHECK(e == (geteuid() ? EPERM : EACCES), "MIGRATE_ALL {device}: %s",
	      errname(e));
	CHECK(policy_mode(p) == MPOL_DEFAULT_ && policy_mode(r) == MPOL_DEFAULT_,
	      "a refused BIND changed the policy");
	expect_query("not open, after the refused calls", p, 0, npages, ANY_SYSTEM);
	expect_query("r not open", r, 0, npages, NOT_PRESENT);
	bad = check(p, 0, npages, 21);
	CHECK(bad < 0, "page %ld changed", bad);

	snprintf(path, sizeof(path), "/dev/hms_test%d", devno);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		printf("open %s: %s\n", path, strerror(errno));
		CHECK(errno == EACCES, "open %s: %s", path, strerror(errno));
		printf("PASS perm (refused)\n");
		return 0;
	}
	/* open: allowed */
	moved = 0;
	e = try_migrate(p, npages, &dev, 1, 0, &moved);
	CHECK(e == 0, "MIGRATE {device} with the device open: %s", errname(e));
	printf("open: MIGRATE {device}: moved %lu of %lu\n", moved, npages);
	CHECK(moved == npages, "moved %lu, want %lu", moved, npages);
	expect_query("open, after MIGRATE", p, 0, npages, dev);
	e = try_bind(r, npages, both, 2, 0);
	printf("open: BIND {node, device}: %s\n", errname(e));
	CHECK(e == 0, "BIND with the device open: %s", errname(e));
	close(fd);

	/* closed: refused again; the pages and the policy stay */
	e = try_migrate(t, npages, &dev, 1, 0, &moved);
	printf("closed: MIGRATE {device}: %s\n", errname(e));
	CHECK(e == EACCES, "MIGRATE {device} after close: %s", errname(e));
	e = try_bind(t, npages, &dev, 1, 0);
	printf("closed: BIND {device}: %s\n", errname(e));
	CHECK(e == EACCES, "BIND {device} after close: %s", errname(e));
	CHECK(policy_mode(t) == MPOL_DEFAULT_, "a refused BIND changed the policy");
	expect_query("closed, t unchanged", t, 0, npages, ANY_SYSTEM);
	expect_query("closed, pages stay on the device", p, 0, npages, dev);
	CHECK(policy_mode(r) == MPOL_PREFERRED_MANY_,
	      "the BIND made while open is gone after close (mode %d)",
	      policy_mode(r));
	/* one's own pages come back without permission */
	moved = 0;
	e = try_migrate(p, half, &sys, 1, 0, &moved);
	CHECK(e == 0, "MIGRATE back to node %d after close: %s", other_node,
	      errname(e));
	printf("closed: MIGRATE {node} of the first half: moved %lu of %lu\n",
	       moved, half);
	CHECK(moved == half, "moved %lu, want %lu", moved, half);
	expect_query("first half back", p, 0, half, sys);
	/* CPU touches: the second half of p comes back, r lands on the node */
	bad = check(p, 0, npages, 21);
	CHECK(bad < 0, "page %ld differs after the round trip", bad);
	memset(r, 0x5a, npages * psz);
	expect_query("r bound {node, device} after CPU touch", r, 0, npages, sys);
	printf("PASS perm\n");
	return 0;
}

/*
 * Pages shared with a child (fork, COW): the parent moves them around with
 * and without HBIND_MIGRATE_ALL; the child checks its data at the end.
 */
static int test_shared(void)
{
	unsigned long npages = (mib << 20) / psz, moved;
	int fd = dev_open(), tochild[2], status;
	__u32 dev = stats(fd).uid, sys = node_uid(other_node);
	char *p = map(npages), c;
	pid_t pid;
	long bad;
	int e;

	fill(p, 0, npages, 31);
	CHECK(pipe(tochild) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(tochild[1]);
		if (read(tochild[0], &c, 1) != 1)
			_exit(3);
		expect_query("child, before reading", p, 0, npages, dev);
		bad = check(p, 0, npages, 31);
		CHECK(bad < 0, "child: page %ld differs", bad);
		printf("child: data intact\n");
		_exit(0);
	}
	close(tochild[0]);

#define MOVE(what, uid, flags, want) do {					\
	moved = ~0UL;								\
	e = try_migrate(p, npages, &(uid), 1, (flags), &moved);		\
	CHECK(e == 0, "MIGRATE %s: %s", what, errname(e));			\
	printf("MIGRATE %s: moved %lu\n", what, moved);			\
	CHECK(moved == (want), "MIGRATE %s moved %lu, want %lu", what,		\
	      moved, (unsigned long)(want));					\
} while (0)
	MOVE("to node (shared, no ALL)", sys, 0, 0);
	expect_query("shared, no ALL, to node", p, 0, npages, ANY_SYSTEM);
	MOVE("to device (shared, no ALL)", dev, 0, 0);
	expect_query("shared, no ALL, to device", p, 0, npages, ANY_SYSTEM);
	MOVE("to device (shared, ALL)", dev, HBIND_MIGRATE_ALL, npages);
	expect_query("shared, ALL, on device", p, 0, npages, dev);
	MOVE("from device to node (shared, no ALL)", sys, 0, 0);
	expect_query("shared, no ALL, from device", p, 0, npages, dev);
	MOVE("from device to node (shared, ALL)", sys, HBIND_MIGRATE_ALL, npages);
	expect_query("shared, ALL, back on node", p, 0, npages, sys);
	MOVE("to node again (shared, ALL, already there)", sys,
	     HBIND_MIGRATE_ALL, 0);
	MOVE("to device again (shared, ALL)", dev, HBIND_MIGRATE_ALL, npages);
#undef MOVE
	/* the child reads its copy (from the device), then the parent */
	CHECK(write(tochild[1], "g", 1) == 1, "pipe: %s", strerror(errno));
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child failed (status %#x)", status);
	bad = check(p, 0, npages, 31);
	CHECK(bad < 0, "parent: page %ld differs", bad);
	printf("parent: data intact\n");
	close(fd);
	printf("PASS shared\n");
	return 0;
}

/* /proc/vmstat pgmigrate_success: pages migrate_pages() moved */
static unsigned long vm_migrated(void)
{
	FILE *f = fopen("/proc/vmstat", "r");
	unsigned long v = 0;
	char line[128];

	CHECK(f, "/proc/vmstat: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "pgmigrate_success %lu", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * Back from the device in batches (the driver's migrate_to_system op), by
 * list order, straight to NODE: pages that went to the CPU's node first
 * and were then migrated (the one-page fault path) would show in
 * pgmigrate_success.
 */
static int test_back(void)
{
	unsigned long npages = (mib << 20) / psz, half = npages / 2, moved;
	int fd = dev_open();
	struct hms_test_stats s0 = stats(fd), s;
	__u32 dev = s0.uid, sys = node_uid(other_node);
	__u32 dev_first[2] = { dev, sys }, sys_first[2] = { sys, dev };
	unsigned long vm0, grew;
	char *p = map(npages);
	long bad;

	fill(p, 0, npages, 41);
	moved = migrate(p, npages, &dev, 1);
	printf("MIGRATE {device} %lu pages: moved %lu\n", npages, moved);
	CHECK(moved == npages, "moved %lu, want %lu", moved, npages);
	moved = migrate(p, npages, dev_first, 2);
	printf("MIGRATE {device, node}: moved %lu\n", moved);
	CHECK(moved == 0, "moved %lu, want 0", moved);
	expect_query("after {device, node}", p, 0, npages, dev);

	vm0 = vm_migrated();
	moved = migrate(p, half, sys_first, 2);
	grew = vm_migrated() - vm0;
	printf("MIGRATE {node, device} of the first half: moved %lu\n", moved);
	CHECK(moved == half, "moved %lu, want %lu", moved, half);
	expect_query("first half", p, 0, half, sys);
	expect_query("second half", p, half, npages - half, dev);
	printf("pgmigrate_success grew by %s half the pages\n",
	       grew < half ? "less than" : "at least");
	CHECK(grew < half,
	      "pgmigrate_success grew by %lu: pages went through another node",
	      grew);

	moved = migrate(p, npages, &sys, 1);
	printf("MIGRATE {node} of all: moved %lu\n", moved);
	CHECK(moved == npages - half, "moved %lu, want %lu", moved,
	      npages - half);
	expect_query("all back", p, 0, npages, sys);
	s = stats(fd);
	CHECK(s.migrated_from - s0.migrated_from == npages &&
	      s.used == s0.used,
	      "device: %llu pages back, %llu used, want %lu and %llu",
	      (unsigned long long)(s.migrated_from - s0.migrated_from),
	      (unsigned long long)s.used, npages,
	      (unsigned long long)s0.used);
	printf("device: %lu pages back, none left\n", npages);
	bad = check(p, 0, npages, 41);
	CHECK(bad < 0, "page %ld differs", bad);
	munmap(p, npages * psz);
	close(fd);
	printf("PASS back (%lu pages intact)\n", npages);
	return 0;
}

static int dev_open_n(int n)
{
	int save = devno, fd;

	devno = n;
	fd = dev_open();
	devno = save;
	return fd;
}

/* count the entries of a QUERY of [p, p + npages) equal to @uid */
static unsigned long count_on(void *p, unsigned long npages, __u32 uid)
{
	__s32 *q = query(p, npages);
	unsigned long n = 0;

	for (unsigned long i = 0; i < npages; i++)
		n += q[i] == (__s32)uid;
	free(q);
	return n;
}

static int test_d2d(void)
{
	int fd0 = dev_open_n(devno), fd1 = dev_open_n(devno + 1);
	struct hms_test_stats s0 = stats(fd0), s1 = stats(fd1);
	__u32 d0 = s0.uid, d1 = s1.uid, sys = node_uid(other_node);
	__u32 l10[2] = { d1, d0 }, l01[2] = { d0, d1 }, ls1[2] = { sys, d1 };
	__u32 l1s[2] = { d1, sys };
	unsigned long cap = s0.capacity, n = cap + cap / 2, moved;
	char *p;
	long bad;

	CHECK(s1.capacity == cap && s0.used == 0 && s1.used == 0,
	      "want two empty devices of one size");
	CHECK(n <= 2 * cap, "range too large");
	p = map(n);
	fill(p, 0, n, 41);
	printf("devices %u and %u, capacity %lu pages each, range %lu pages\n",
	       d0, d1, cap, n);
	/* all of the first cap pages to device 1 */
	moved = migrate(p, cap, &d1, 1);
	printf("MIGRATE {d1} of %lu: moved %lu\n", cap, moved);
	CHECK(moved == cap, "moved %lu", moved);
	/* device 1 -> device 0 */
	moved = migrate(p, cap, &d0, 1);
	printf("MIGRATE {d0} of the pages on d1: moved %lu\n", moved);
	CHECK(moved == cap, "moved %lu, want %lu", moved, cap);
	expect_query("on d0", p, 0, cap, d0);
	/* device 0 -> device 1 by order: d1 comes first */
	moved = migrate(p, cap, l10, 2);
	printf("MIGRATE {d1, d0} of the pages on d0: moved %lu\n", moved);
	CHECK(moved == cap, "moved %lu, want %lu", moved, cap);
	expect_query("on d1", p, 0, cap, d1);
	/* already on the first listed target: nothing moves */
	moved = migrate(p, cap, l1s, 2);
	printf("MIGRATE {d1, node} of the pages on d1: moved %lu\n", moved);
	CHECK(moved == 0, "moved %lu, want 0", moved);
	/* the whole range {d1, d0}: cap/2 more pages, d1 is full: on d0 */
	moved = migrate(p, n, l10, 2);
	printf("MIGRATE {d1, d0} of %lu pages (%lu on d1): moved %lu\n", n,
	       cap, moved);
	CHECK(moved == n - cap, "moved %lu, want %lu", moved, n - cap);
	CHECK(count_on(p, n, d1) == cap && count_on(p, n, d0) == n - cap,
	      "want %lu on d1 and %lu on d0", cap, n - cap);
	printf("query: %lu on d1, %lu on d0\n", cap, n - cap);
	/* {d0, d1}: d0 has room for cap/2 of d1's pages: only those move */
	moved = migrate(p, n, l01, 2);
	printf("MIGRATE {d0, d1} with room for %lu on d0: moved %lu\n",
	       cap - (n - cap), moved);
	CHECK(moved == cap - (n - cap), "moved %lu, want %lu", moved,
	      cap - (n - cap));
	CHECK(count_on(p, n, d0) == cap && count_on(p, n, d1) == n - cap,
	      "want %lu on d0 and %lu on d1, none in system memory", cap,
	      n - cap);
	printf("query: %lu on d0, %lu on d1\n", cap, n - cap);
	/* d0 full: {d0} moves nothing, nothing leaves d1 for system memory */
	moved = migrate(p, n, &d0, 1);
	printf("MIGRATE {d0} with d0 full: moved %lu\n", moved);
	CHECK(moved == 0, "moved %lu, want 0", moved);
	CHECK(count_on(p, n, d1) == n - cap, "pages left d1");
	/* {node, d1}: everything to the node, listed first */
	moved = migrate(p, n, ls1, 2);
	printf("MIGRATE {node, d1}: moved %lu\n", moved);
	CHECK(moved == n, "moved %lu, want %lu", moved, n);
	expect_query("all on the node", p, 0, n, sys);
	bad = check(p, 0, n, 41);
	CHECK(bad < 0, "page %ld differs", bad);
	s0 = stats(fd0);
	s1 = stats(fd1);
	print_stats("d0", &s0);
	print_stats("d1", &s1);
	CHECK(s0.used == 0 && s1.used == 0, "device memory still used");
	printf("PASS d2d (%lu pages intact)\n", n);
	return 0;
}

struct qrace {
	char *p;
	unsigned long npages;
	__u32 dev, sys;
	volatile int stop;
	unsigned long queries, on_dev, on_sys, wrong;
	__s32 bad_val;
};

static void *qrace_thread(void *arg)
{
	struct qrace *q = arg;
	__s32 *where = calloc(q->npages, sizeof(*where));
	__u32 atoms[4];

	CHECK(where, "out of memory");
	atoms[0] = HBIND_ATOM(HBIND_CMD_QUERY, HBIND_QUERY_NDWORDS);
	atoms[1] = 0;
	atoms[2] = (__u32)(uintptr_t)where;
	atoms[3] = (__u32)((uint64_t)(uintptr_t)where >> 32);
	while (!q->stop) {
		CHECK(sys_hbind(q->p, q->npages * psz, NULL, 0, atoms, 4) == 0,
		      "QUERY: %s", strerror(errno));
		q->queries++;
		for (unsigned long i = 0; i < q->npages; i++) {
			if (where[i] == (__s32)q->dev) {
				q->on_dev++;
			} else if (where[i] == (__s32)q->sys) {
				q->on_sys++;
			} else {
				q->wrong++;
				q->bad_val = where[i];
			}
		}
	}
	free(where);
	return NULL;
}

static int test_qrace(void)
{
	unsigned long npages = (mib << 20) / psz, moved;
	int fd = dev_open();
	struct qrace q = {
		.npages = npages,
		.dev = stats(fd).uid,
		.sys = node_uid(other_node),
	};
	pthread_t th;
	long bad;
	int round;

	q.p = map(npages);
	bind(q.p, npages, &q.sys, 1);
	fill(q.p, 0, npages, 51);
	CHECK(pthread_create(&th, NULL, qrace_thread, &q) == 0, "pthread_create");
	for (round = 0; round < 4; round++) {
		moved = migrate(q.p, npages, &q.dev, 1);
		CHECK(moved == npages, "round %d: MIGRATE to the device moved %lu",
		      round, moved);
		/* the CPU touches every page: each migrates to the node */
		bad = check(q.p, 0, npages, 51);
		CHECK(bad < 0, "round %d: page %ld differs", round, bad);
	}
	q.stop = 1;
	pthread_join(th, NULL);
	printf("qrace: %d rounds of %lu pages, %lu queries: %lu entries on the device, %lu on node %d, %lu elsewhere\n",
	       round, npages, q.queries, q.on_dev, q.on_sys, other_node, q.wrong);
	CHECK(q.queries > 0 && q.on_dev > 0 && q.on_sys > 0,
	      "the queries did not see both states");
	CHECK(q.wrong == 0, "QUERY reported %d for a page on the device or node %d",
	      q.bad_val, other_node);
	expect_query("after", q.p, 0, npages, q.sys);
	close(fd);
	printf("PASS qrace\n");
	return 0;
}

/*
 * VMAs of this process that intersect [p, p + npages); *first (may be
 * NULL) gets the start of the first of them
 */
static int count_vmas_from(void *p, unsigned long npages, unsigned long *first)
{
	unsigned long a = (uintptr_t)p, b = a + npages * psz, s, e;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	CHECK(f, "/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &s, &e) == 2 && s < b && e > a)
			if (!n++ && first)
				*first = s;
	fclose(f);
	return n;
}

static int count_vmas(void *p, unsigned long npages)
{
	return count_vmas_from(p, npages, NULL);
}

/*
 * Device READ of never-touched [p, p + npages): the pages whose device
 * preferences name the device first are allocated on it (mpages).
 */
static void touch_expect(int fd, const char *what, void *p,
			 unsigned long npages, unsigned long want)
{
	char *buf = malloc(npages * psz);
	struct hms_test_cmd cmd;

	CHECK(buf, "out of memory");
	cmd = dev_rw(fd, HMS_TEST_READ, what, p, buf, npages);
	CHECK(cmd.mpages == want, "%s: device first touch of %lu pages allocated %llu on the device, want %lu",
	      what, npages, (unsigned long long)cmd.mpages, want);
	free(buf);
}

/* a new anonymous mapping exactly at @p, which must be free */
static void *map_at(void *p, unsigned long npages)
{
	void *q = mmap(p, npages * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	CHECK(q == p, "mmap at %p: %s", p, q == MAP_FAILED ? strerror(errno) : "elsewhere");
	madvise(q, npages * psz, MADV_NOHUGEPAGE);
	return q;
}

/* write @val to @path; false when it cannot be opened */
static int put_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return 0;
	CHECK(fputs(val, f) >= 0 && fclose(f) == 0, "write %s to %s: %s", val, path,
	      strerror(errno));
	return 1;
}

/*
 * /proc/thread-self/fail-nth, opened once: opening it while a fault is
 * armed would itself meet the fault. Reading and writing it allocate
 * nothing.
 */
static int fail_nth_fd = -1;

/* the N-th fault injection point this thread passes fails (0: none) */
static void fail_nth(unsigned int n)
{
	char v[16];
	int len = snprintf(v, sizeof(v), "%u", n);

	CHECK(pwrite(fail_nth_fd, v, len, 0) == len, "write %u to fail-nth: %s", n,
	      strerror(errno));
}

/* 0 when the fault was injected, else how many points were left */
static long fail_nth_left(void)
{
	char v[32];
	ssize_t len = pread(fail_nth_fd, v, sizeof(v) - 1, 0);

	CHECK(len > 0, "read fail-nth: %s", strerror(errno));
	v[len] = 0;
	return strtol(v, NULL, 10);
}

struct enomem_case {
	const char *what;
	void (*setup)(void);
	int (*op)(void);	/* -1 and errno on failure */
};

static int en_fd;
static char *en_p, *en_r;
static __u32 en_dev, en_sys;
#define EN_N 16UL

static void en_setup_p(void)
{
	en_p = map(3 * EN_N);
	bind(en_p, 3 * EN_N, &en_dev, 1);
}

static void en_setup_pr(void)
{
	en_setup_p();
	en_r = map(3 * EN_N);
}

static int en_munmap(void)
{
	return munmap(en_p + EN_N * psz, EN_N * psz);
}

static int en_mremap(void)
{
	return mremap(en_p, 3 * EN_N * psz, 3 * EN_N * psz, MREMAP_MAYMOVE | MREMAP_FIXED,
		      en_r) == MAP_FAILED ? -1 : 0;
}

static int en_fork(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(0);
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	return 0;
}

static int en_bind(void)
{
	__u32 atoms[2] = { HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS), 0 };

	/* a list without the device: the range would prefer none */
	return sys_hbind(en_p, 3 * EN_N * psz, &en_sys, 1, atoms, 2);
}

/*
 * Set up, then run the call with its 1st, 2nd, ... fault injection point
 * failing, until it passes them all. A failed call must say ENOMEM and
 * leave the range mapped whole with all of it preferring the device (device
 * first touch puts every page there); a call that absorbed the failure
 * (a fallback) must have done its work. Returns how many failed.
 */
static unsigned int fail_each(const struct enomem_case *c)
{
	unsigned int n, failed = 0;
	int r, e;

	for (n = 1; n < 5000; n++) {
		long left;

		c->setup();
		fail_nth(n);
		r = c->op();
		e = errno;
		left = fail_nth_left();
		fail_nth(0);
		if (r) {
			CHECK(e == ENOMEM, "%s with fault point %u failing: %s, want ENOMEM",
			      c->what, n, strerror(e));
			CHECK(count_vmas(en_p, 3 * EN_N) >= 1, "%s failed but the range is gone",
			      c->what);
			touch_expect(en_fd, "READ (after a failed call)", en_p, 3 * EN_N, 3 * EN_N);
			failed++;
		}
		munmap(en_p, 3 * EN_N * psz);
		if (en_r)
			munmap(en_r, 3 * EN_N * psz);
		en_r = NULL;
		if (left > 0)
			break;	/* it passed every point: done */
	}
	CHECK(n < 5000, "%s: more than 5000 fault points", c->what);
	printf("%s: %u fault points, %u failed the call with ENOMEM and changed nothing\n",
	       c->what, n - 1, failed);
	return failed;
}

static int test_enomem(void)
{
	static const struct enomem_case cases[] = {
		{ "munmap of the middle", en_setup_p, en_munmap },
		{ "mremap", en_setup_pr, en_mremap },
		{ "fork", en_setup_p, en_fork },
		{ "hbind BIND {node}", en_setup_p, en_bind },
	};
	struct hms_test_stats s0;
	unsigned int i, failed;

	en_fd = dev_open();
	s0 = stats(en_fd);
	if (!put_file("/sys/kernel/debug/failslab/ignore-gfp-wait", "N") ||
	    !put_file("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N"))
		SKIP("no fault injection in this kernel (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC)");
	put_file("/sys/kernel/debug/failslab/verbose", "0");
	put_file("/sys/kernel/debug/fail_page_alloc/verbose", "0");
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	CHECK(fail_nth_fd >= 0, "/proc/thread-self/fail-nth: %s", strerror(errno));
	en_dev = s0.uid;
	en_sys = node_uid(other_node);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		failed = fail_each(&cases[i]);
		CHECK(failed > 0, "%s: no fault point failed the call", cases[i].what);
	}
	CHECK(stats(en_fd).used == s0.used, "device memory still used: %llu pages",
	      (unsigned long long)(stats(en_fd).used - s0.used));
	close(en_fd);
	printf("PASS enomem\n");
	return 0;
}

static int test_lifecycle(void)
{
	const unsigned long n = 64;
	int fd = dev_open(), status;
	struct hms_test_stats s0 = stats(fd);
	__u32 dev = s0.uid;
	char *p, *q, *r;
	pid_t pid;

	CHECK(s0.capacity - s0.used >= 8 * n, "the device has no room for %lu pages", 8 * n);

	/* a VMA split (flags of the middle third) keeps them on all parts */
	p = map(3 * n);
	bind(p, 3 * n, &dev, 1);
	CHECK(madvise(p + n * psz, n * psz, MADV_HUGEPAGE) == 0, "madvise: %s", strerror(errno));
	CHECK(count_vmas(p, 3 * n) == 3, "MADV_HUGEPAGE on the middle: %d VMAs, want 3",
	      count_vmas(p, 3 * n));
	touch_expect(fd, "READ (split into 3 VMAs)", p, 3 * n, 3 * n);
	munmap(p, 3 * n * psz);

	/* part of a VMA: {device} alone installs no policy, splits nothing */
	p = map(3 * n);
	bind(p + n * psz, n, &dev, 1);
	CHECK(count_vmas(p, 3 * n) == 1, "BIND {device} of the middle: %d VMAs, want 1",
	      count_vmas(p, 3 * n));
	touch_expect(fd, "READ (middle third bound)", p, 3 * n, n);
	munmap(p, 3 * n * psz);

	/* mremap() to another place: the new range has them, the old none */
	p = map(n);
	r = map(n);
	bind(p, n, &dev, 1);
	q = mremap(p, n * psz, n * psz, MREMAP_MAYMOVE | MREMAP_FIXED, r);
	CHECK(q == r, "mremap: %s", strerror(errno));
	map_at(p, n);
	touch_expect(fd, "READ (moved by mremap)", q, n, n);
	touch_expect(fd, "READ (new mapping where it was)", p, n, 0);
	munmap(p, n * psz);
	munmap(q, n * psz);

	/* mremap() that grows and moves: the new part has the last range's */
	p = map(2 * n);
	r = map(4 * n);
	bind(p, n, &dev, 1);
	q = mremap(p, 2 * n * psz, 4 * n * psz, MREMAP_MAYMOVE | MREMAP_FIXED, r);
	CHECK(q == r, "mremap: %s", strerror(errno));
	touch_expect(fd, "READ (first quarter bound, grown and moved)", q, 4 * n, n);
	munmap(q, 4 * n * psz);
	p = map(2 * n);
	r = map(4 * n);
	bind(p + n * psz, n, &dev, 1);
	q = mremap(p, 2 * n * psz, 4 * n * psz, MREMAP_MAYMOVE | MREMAP_FIXED, r);
	CHECK(q == r, "mremap: %s", strerror(errno));
	touch_expect(fd, "READ (second quarter bound, grown and moved)", q, 4 * n, 3 * n);
	munmap(q, 4 * n * psz);

	/* mremap() that grows in place */
	p = map(2 * n);
	munmap(p + n * psz, n * psz);
	bind(p, n, &dev, 1);
	q = mremap(p, n * psz, 2 * n * psz, 0);
	CHECK(q == p, "mremap in place: %s", q == MAP_FAILED ? strerror(errno) : "moved");
	touch_expect(fd, "READ (grown in place)", p, 2 * n, 2 * n);
	munmap(p, 2 * n * psz);

	/* MREMAP_DONTUNMAP: both ranges have them */
	p = map(n);
	bind(p, n, &dev, 1);
	q = mremap(p, n * psz, n * psz, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
	CHECK(q != MAP_FAILED, "mremap DONTUNMAP: %s", strerror(errno));
	touch_expect(fd, "READ (MREMAP_DONTUNMAP, new range)", q, n, n);
	touch_expect(fd, "READ (MREMAP_DONTUNMAP, old range)", p, n, n);
	munmap(p, n * psz);
	munmap(q, n * psz);

	/* munmap() of the middle, a new mapping there: only the ends keep them */
	p = map(3 * n);
	bind(p, 3 * n, &dev, 1);
	munmap(p + n * psz, n * psz);
	map_at(p + n * psz, n);
	touch_expect(fd, "READ (middle unmapped and mapped again)", p, 3 * n, 2 * n);
	munmap(p, 3 * n * psz);

	/* MAP_FIXED over a bound range replaces it: the new mapping has none */
	p = map(n);
	bind(p, n, &dev, 1);
	q = mmap(p, n * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(q == p, "mmap MAP_FIXED: %s", strerror(errno));
	madvise(q, n * psz, MADV_NOHUGEPAGE);
	touch_expect(fd, "READ (MAP_FIXED over a bound range)", p, n, 0);
	munmap(p, n * psz);

	/* fork(): the child's range has them; not a MADV_DONTFORK one */
	p = map(n);
	r = map(n);
	bind(p, n, &dev, 1);
	bind(r, n, &dev, 1);
	CHECK(madvise(r, n * psz, MADV_DONTFORK) == 0, "madvise: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		int cfd = dev_open();

		touch_expect(cfd, "READ (child, inherited)", p, n, n);
		map_at(r, n);
		touch_expect(cfd, "READ (child, MADV_DONTFORK range mapped again)", r, n, 0);
		close(cfd);
		fflush(stdout);
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	      "the child failed (status %#x)", status);
	touch_expect(fd, "READ (parent after fork)", p, n, n);
	touch_expect(fd, "READ (parent's MADV_DONTFORK range)", r, n, n);
	munmap(p, n * psz);
	munmap(r, n * psz);

	CHECK(stats(fd).used == s0.used, "device memory still used after munmap: %llu pages",
	      (unsigned long long)(stats(fd).used - s0.used));
	close(fd);
	printf("PASS lifecycle\n");
	return 0;
}

/* the policy word of the numa_maps line of the VMA at @p */
/* the start of the VMA that holds @p (numa_maps names VMAs by it) */
static unsigned long vma_start(void *p)
{
	unsigned long s = 0;

	CHECK(count_vmas_from(p, 1, &s) == 1, "no VMA holds %p", p);
	return s;
}

static void numa_maps_policy(void *p, char *out, size_t n)
{
	char line[4096], want[32];
	FILE *f = fopen("/proc/self/numa_maps", "r");

	CHECK(f, "numa_maps: %s", strerror(errno));
	snprintf(want, sizeof(want), "%lx ", vma_start(p));
	out[0] = 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)) &&
		    sscanf(line + strlen(want), "%31s", out) == 1)
			break;
	fclose(f);
	(void)n;
	CHECK(out[0], "no numa_maps line for the VMA of %p", p);
}

static int test_devonly(void)
{
	unsigned long npages = (mib << 20) / psz, half = npages / 2;
	int fd = dev_open(), e, eb;
	__u32 dev = stats(fd).uid, sys = node_uid(other_node);
	char *a = map(npages), *b = map(npages), pol[32], polb[32], *buf;
	struct hms_test_cmd cmd;

	e = try_bind(a, npages, &dev, 1, HBIND_BIND_STRICT);
	printf("BIND strict {device}: %s\n", errname(e));
	CHECK(e == EINVAL, "strict BIND of device targets alone: %s, want EINVAL",
	      errname(e));
	CHECK(policy_mode(a) == MPOL_DEFAULT_, "the refused BIND set a policy");
	e = try_bind(a, npages, &dev, 1, 0);
	CHECK(e == 0, "BIND {device}: %s", errname(e));
	numa_maps_policy(a, pol, sizeof(pol));
	numa_maps_policy(b, polb, sizeof(polb));
	printf("BIND {device}: get_mempolicy mode %d, numa_maps %s (no policy: %s)\n",
	       policy_mode(a), pol, polb);
	CHECK(policy_mode(a) == MPOL_DEFAULT_, "get_mempolicy does not say default");
	/* set_mempolicy_home_node() sees no policy either, as on b */
	e = syscall(SYS_set_mempolicy_home_node, a, npages * psz,
		    (unsigned long)other_node, 0UL) ? errno : 0;
	eb = syscall(SYS_set_mempolicy_home_node, b, npages * psz,
		     (unsigned long)other_node, 0UL) ? errno : 0;
	printf("set_mempolicy_home_node: %s on {device}, %s without policy\n",
	       errname(e), errname(eb));
	CHECK(e == eb, "set_mempolicy_home_node: %s on a device-only BIND, %s without policy",
	      errname(e), errname(eb));
	/* numa_maps shows the process policy for a range without its own */
	CHECK(!strcmp(pol, polb), "numa_maps says %s, %s for a range without policy",
	      pol, polb);
	/* the CPU touches the first half of a and all of b (no policy) */
	memset(a, 1, half * psz);
	memset(b, 1, npages * psz);
	expect_query("a (bound {device}) after CPU touch", a, 0, half, sys);
	expect_query("b (no policy) after CPU touch", b, 0, npages, sys);
	/* the device's first touch of the second half: on the device */
	buf = malloc(half * psz);
	CHECK(buf, "out of memory");
	cmd = dev_rw(fd, HMS_TEST_READ, "READ (second half of a)",
		     a + half * psz, buf, half);
	CHECK(cmd.mpages == half, "device first touch moved %llu, want %lu",
	      (unsigned long long)cmd.mpages, half);
	expect_query("a second half after the device READ", a, half, half, dev);
	close(fd);
	printf("PASS devonly\n");
	return 0;
}

struct churn_mig {
	char *p;
	unsigned long npages;
	__u32 uid;
	int err;
	unsigned long moved;
};

static void *churn_thread(void *arg)
{
	struct churn_mig *m = arg;

	m->err = try_migrate(m->p, m->npages, &m->uid, 1, 0, &m->moved);
	return NULL;
}

static int test_churn(const char *file)
{
	unsigned long npages = (mib << 20) / psz, rounds = 0, opened = 0;
	unsigned long res[4] = { 0, 0, 0, 0 }, binds = 0, mpages = 0;
	char path[512], *p = map(npages), *r = map(64), *buf = malloc(64 * psz);
	__u32 uid = 0;
	long bad;

	CHECK(buf, "out of memory");
	snprintf(path, sizeof(path), "%s.stop", file);
	fill(p, 0, npages, 61);
	while (access(path, F_OK)) {
		struct churn_mig m = { .p = p, .npages = npages };
		struct hms_test_cmd cmd = { 0 };
		pthread_t th;
		int fd = dev_try_open(), e;

		CHECK(++rounds < 1000000, "no %s", path);
		if (fd < 0) {
			/* the uid of the last device: gone, or not open */
			if (uid) {
				e = try_migrate(p, npages, &uid, 1, 0, NULL);
				CHECK(e == ENODEV || e == EACCES,
				      "MIGRATE to %u, device closed: %s", uid,
				      errname(e));
			}
			usleep(20000);
			continue;
		}
		opened++;
		m.uid = uid = stats(fd).uid;
		/* BIND and the device's first touch, while open */
		if (try_bind(r, 64, &uid, 1, 0) == 0) {
			binds++;
			cmd.addr = (uintptr_t)r;
			cmd.ptr = (uintptr_t)buf;
			cmd.npages = 64;
			if (ioctl(fd, HMS_TEST_READ, &cmd) == 0)
				mpages += cmd.mpages;
		}
		/* MIGRATE in flight while the device is closed */
		CHECK(pthread_create(&th, NULL, churn_thread, &m) == 0,
		      "pthread_create");
		close(fd);
		pthread_join(th, NULL);
		CHECK(m.err == 0 || m.err == EACCES || m.err == ENODEV,
		      "MIGRATE to %u racing close: %s", uid, errname(m.err));
		res[m.err == 0 ? 0 : m.err == EACCES ? 1 : 2]++;
		free(query(p, npages));
		bad = check(p, 0, npages, 61);
		CHECK(bad < 0, "round %lu: page %ld differs", rounds, bad);
		CHECK(madvise(r, 64 * psz, MADV_DONTNEED) == 0, "madvise");
	}
	printf("churn: %lu rounds, %lu with the device open; MIGRATE racing close: %lu ran, %lu EACCES, %lu ENODEV; %lu BIND + device first touch (%lu pages)\n",
	       rounds, opened, res[0], res[1], res[2], binds, mpages);
	CHECK(opened > 0 && res[0] > 0, "nothing ran");
	printf("PASS churn\n");
	return 0;
}

static int test_stats(void)
{
	int fd = dev_open();
	struct hms_test_stats s = stats(fd);

	print_stats("stats", &s);
	return 0;
}

/* the tests, in the order devtest -h lists them */
static const struct devtest {
	const char *name;
	int (*run)(void);		/* a test without argument, */
	int (*run_file)(const char *file);	/* or one of TEST FILE */
	int bare;			/* runs without hbind() and targets */
	const char *help;
} tests[] = {
	{ "stats", test_stats, NULL, 1, "print HMS_TEST_STATS" },
	{ "migrate", test_migrate, NULL, 0,
	  "MIB to the device and back (MIGRATE to NODE, CPU touch)" },
	{ "full", test_full, NULL, 0,
	  "MIGRATE [device, NODE] of more than the device holds" },
	{ "firsttouch", test_firsttouch, NULL, 0,
	  "device first touch of bound and unbound ranges" },
	{ "hold", NULL, test_hold, 0,
	  "unload under use (device.bats drives it)" },
	{ "race", NULL, test_race, 0,
	  "BIND by uid while the device is unloaded (device.bats)" },
	{ "perm", test_perm, NULL, 0,
	  "device memory has an owner: EACCES until the open" },
	{ "shared", test_shared, NULL, 0,
	  "pages shared with a child, with and without MIGRATE_ALL" },
	{ "d2d", test_d2d, NULL, 0,
	  "two devices (-d is the first): device to device" },
	{ "back", test_back, NULL, 0,
	  "back from the device to NODE in batches, by list order" },
	{ "qrace", test_qrace, NULL, 0,
	  "QUERY in a loop while device pages migrate to NODE" },
	{ "devonly", test_devonly, NULL, 0,
	  "BIND {device} under numactl --membind=NODE" },
	{ "lifecycle", test_lifecycle, NULL, 0,
	  "device preferences across split, mremap, fork, munmap" },
	{ "enomem", test_enomem, NULL, 0,
	  "each allocation of munmap, mremap, fork, BIND fails in turn" },
	{ "churn", NULL, test_churn, 0,
	  "open, MIGRATE, close until FILE.stop (device.bats)" },
};

#define NR_TESTS	(sizeof(tests) / sizeof(tests[0]))

static void usage_tests(FILE *f)
{
	char left[32];
	size_t i;

	fputs("Tests (the comment at the top of devtest.c says more):\n", f);
	for (i = 0; i < NR_TESTS; i++) {
		snprintf(left, sizeof(left), "%s%s", tests[i].name,
			 tests[i].run_file ? " FILE" : "");
		hb_usage_row(f, 12, left, tests[i].help);
	}
	fputs("Exit 0 pass, 1 fail, 2 usage, 77 skip (no device, no hbind())\n",
	      f);
}

static const struct hb_opt opts[] = {
	{ .name = 'd', .kind = HB_OPT_INT, .dest = &devno, .arg = "DEV",
	  .help = "device number (/dev/hms_test<DEV>), default 0" },
	{ .name = 'm', .kind = HB_OPT_ULONG, .dest = &mib, .arg = "MIB",
	  .help = "size of the test range in MiB, default 64" },
	{ .name = 'n', .kind = HB_OPT_INT, .dest = &other_node, .arg = "NODE",
	  .help = "the node whose system target is the other target,\n"
		  "default 1 (run devtest on a CPU of another node)" },
	{ .name = 'h', .kind = HB_OPT_HELP, .help = "this text" },
	{ 0 }
};

static const struct hb_cli cli = {
	.prog = "devtest",
	.synopsis = "devtest [-d DEV] [-m MIB] [-n NODE] TEST [FILE]",
	.opts = opts,
	.more = usage_tests,
};

int main(int argc, char **argv)
{
	const struct devtest *t = NULL;
	size_t k;
	int i;

	psz = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	i = hb_getopt(&cli, argc, argv);
	if (i >= argc || !mib)
		hb_usage_exit(&cli);
	for (k = 0; k < NR_TESTS; k++)
		if (!strcmp(tests[k].name, argv[i]))
			t = &tests[k];
	/* checked before the TEST name: without hbind(), a bad TEST skips */
	if (!t || !t->bare) {
		need_hbind();
		load_targets();
	}
	if (!t || (t->run_file && i + 1 >= argc))
		hb_usage_exit(&cli);
	return t->run_file ? t->run_file(argv[i + 1]) : t->run();
}
