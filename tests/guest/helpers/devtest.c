// SPDX-License-Identifier: GPL-2.0
/*
 * devtest - device memory as an HMS target: functional tests of hbind()
 * with the simulated accelerator lib/test_hms.c (/dev/hms_test<N>).
 * Adapted from the driver author's hmst.c. Used by tests/guest/device.bats.
 *
 * devtest [-d DEV] [-m MIB] [-n NODE] TEST [ARG]
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
 *               it): loops BIND {device} (the target's own list, looked up
 *               without a lock), CPU touch, BIND {device, NODE} (a list built
 *               per call), CPU touch, DEFAULT on one page; creates
 *               FILE.ready (holding the device uid) after the first round;
 *               when FILE.go appears (the module is gone) does one last
 *               round. Every BIND must succeed or fail with EINVAL, and none
 *               may succeed once one has failed
 *
 * Output: one line per step; a failure prints "FAIL: what (line N)" on
 * stderr. Exit 0 pass, 1 fail, 77 skip (no device, no hbind()), 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/hbind.h>

#include "hbtest.h"
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
 * One BIND by uid: 1 bound, 0 EINVAL (no such target), fails on anything
 * else. A bound page is touched (and dropped) so that the fault path uses
 * the policy while the target may be going away.
 */
static int race_bind(char *p, const __u32 *uids, unsigned int n)
{
	__u32 atoms[2] = { HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS), 0 };

	if (sys_hbind(p, psz, uids, n, atoms, 2)) {
		CHECK(errno == EINVAL, "BIND to %u%s: %s, want success or EINVAL",
		      uids[0], n > 1 ? ",..." : "", strerror(errno));
		return 0;
	}
	p[0]++;
	CHECK(madvise(p, psz, MADV_DONTNEED) == 0, "madvise: %s", strerror(errno));
	return 1;
}

static int test_race(const char *file)
{
	int fd = dev_open();
	__u32 dev = stats(fd).uid, sys = node_uid(other_node);
	__u32 both[2] = { dev, sys };
	__u32 def = HBIND_ATOM(HBIND_CMD_DEFAULT, 0);
	unsigned long ok[2] = { 0, 0 }, gone[2] = { 0, 0 }, rounds = 0;
	char path[512], *p = map(1);
	int last = 0;

	close(fd);	/* an open device file would hold the module */
	snprintf(path, sizeof(path), "%s.go", file);
	for (;;) {
		for (int k = 0; k < 2; k++) {
			if (race_bind(p, k ? both : &dev, k + 1)) {
				CHECK(!gone[k], "BIND %s succeeded after one had failed",
				      k ? "{device, node}" : "{device}");
				ok[k]++;
			} else {
				gone[k]++;
			}
		}
		CHECK(sys_hbind(p, psz, NULL, 0, &def, 1) == 0, "DEFAULT: %s",
		      strerror(errno));
		if (!rounds++)
			signal_file(file, "ready", dev);
		if (last)
			break;
		last = !access(path, F_OK);
		CHECK(rounds < 10000000, "no %s", path);
	}
	printf("race: %lu rounds; BIND {device}: %lu bound, %lu EINVAL; BIND {device, node}: %lu bound, %lu EINVAL\n",
	       rounds, ok[0], gone[0], ok[1], gone[1]);
	CHECK(ok[0] && ok[1], "no BIND succeeded before the unload");
	CHECK(gone[0] && gone[1], "BIND still succeeds after the unload");
	printf("PASS race\n");
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: devtest [-d DEV] [-m MIB] [-n NODE] stats|migrate|full|firsttouch|hold FILE|race FILE\n");
}

int main(int argc, char **argv)
{
	const char *test;
	int c;

	psz = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "d:m:n:h")) != -1) {
		switch (c) {
		case 'd':
			devno = atoi(optarg);
			break;
		case 'm':
			mib = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			other_node = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc || !mib) {
		usage(stderr);
		return 2;
	}
	test = argv[optind];
	if (!strcmp(test, "stats")) {
		int fd = dev_open();
		struct hms_test_stats s = stats(fd);

		print_stats("stats", &s);
		return 0;
	}
	need_hbind();
	load_targets();
	if (!strcmp(test, "migrate"))
		return test_migrate();
	if (!strcmp(test, "full"))
		return test_full();
	if (!strcmp(test, "firsttouch"))
		return test_firsttouch();
	if (!strcmp(test, "hold") && optind + 1 < argc)
		return test_hold(argv[optind + 1]);
	if (!strcmp(test, "race") && optind + 1 < argc)
		return test_race(argv[optind + 1]);
	usage(stderr);
	return 2;
}
