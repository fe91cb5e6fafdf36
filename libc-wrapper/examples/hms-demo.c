// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hms-demo - a tour of libhms: choose memory by topology, bind, migrate,
 * query.
 *
 *   1. load the HMS topology and find the initiator of the CPU we run on;
 *   2. bind a buffer to that CPU's own memory (the system target of its
 *      node; failing that, its best target by latency) and touch it;
 *   3. migrate it to the "HBM-like" target: the CPU-less system target with
 *      the highest path bandwidth from our initiator;
 *   4. migrate it to device memory (a device-private target), if any:
 *      device memory belongs to the processes using the device, so the
 *      demo opens the device first (the target's "device" link in sysfs
 *      names it) and skips this step when it may not;
 *   5. migrate it back to the CPU's memory.
 * After each step it prints the pages moved and a summary of hbind QUERY
 * (pages per target uid). Steps whose kind of target is absent are skipped
 * with a message. Exit status: 0 success (including skips), 1 error,
 * 2 usage.
 *
 * With --numa-maps, it instead binds two buffers to the CPU's memory and
 * the HBM-like target (non-strict, then strict), touches them and prints
 * their /proc/self/numa_maps lines: the mempolicy hbind installs stays
 * visible to the usual tools.
 *
 * Build: cc -o hms-demo hms-demo.c $(pkg-config --cflags --libs hms)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hms.h>

#define NPAGES	64

/*
 * Open the device that owns device target @t (its "device" link in sysfs),
 * as a process that uses the device would: hbind() places memory on a
 * device only for processes its driver allows. Returns the fd or -1.
 */
static int open_owner(const struct hms_target *t)
{
	char link[PATH_MAX], dev[PATH_MAX], node[PATH_MAX + 8];
	const char *name;
	ssize_t n;
	int fd;

	snprintf(link, sizeof(link), "/sys/bus/hms/devices/v1-%" PRIu32 "-target/device",
		 hms_target_uid(t));
	n = readlink(link, dev, sizeof(dev) - 1);
	if (n < 0) {
		printf("device: skipped: %s: %s\n", link, strerror(errno));
		return -1;
	}
	dev[n] = '\0';
	name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	snprintf(node, sizeof(node), "/dev/%s", name);
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		printf("device: skipped: cannot use %s: %s\n", node, strerror(errno));
	return fd;
}

/* Print "uid 3: 60 pages, not present: 4 pages" for a QUERY result. */
static int show(const char *step, void *buf, size_t size)
{
	size_t n = hms_npages(buf, size), i, k, nv = 0;
	struct { int32_t v; size_t count; } seen[16];
	int32_t *q = calloc(n, sizeof(*q));

	if (!q)
		return -1;
	if (hms_query(buf, size, q)) {
		fprintf(stderr, "hms-demo: %s: query: %s\n", step, strerror(errno));
		free(q);
		return -1;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < nv && seen[k].v != q[i]; k++)
			;
		if (k == nv && nv < 16) {
			seen[nv].v = q[i];
			seen[nv++].count = 0;
		}
		if (k < nv)
			seen[k].count++;
	}
	printf("  query:");
	for (k = 0; k < nv; k++) {
		if (seen[k].v >= 0)
			printf(" target %" PRId32 ": %zu pages%s", seen[k].v,
			       seen[k].count, k + 1 < nv ? "," : "");
		else
			printf(" %s: %zu pages%s",
			       seen[k].v == HMS_QUERY_NOT_PRESENT ? "not present" :
			       seen[k].v == HMS_QUERY_NO_MEMORY ? "no memory" : "error",
			       seen[k].count, k + 1 < nv ? "," : "");
	}
	printf("\n");
	free(q);
	return 0;
}

static int migrate(const char *what, void *buf, size_t size,
		   const struct hms_target *t)
{
	uint32_t uid = hms_target_uid(t);
	long moved = hms_migrate(buf, size, &uid, 1, 0);

	printf("%s: migrate to target %" PRIu32 " (%s, %" PRIu64 " MiB)\n", what,
	       uid, hms_target_type_name(t), hms_target_size(t) >> 20);
	if (moved < 0) {
		fprintf(stderr, "hms-demo: migrate to target %" PRIu32 ": %s\n",
			uid, strerror(errno));
		return -1;
	}
	printf("  %ld pages moved\n", moved);
	return show(what, buf, size);
}

/* Print the /proc/self/numa_maps line of the mapping starting at addr. */
static int print_numa_maps(const void *addr)
{
	char line[4096], want[32];
	FILE *f = fopen("/proc/self/numa_maps", "r");
	int found = 0;

	if (!f) {
		perror("hms-demo: /proc/self/numa_maps");
		return -1;
	}
	snprintf(want, sizeof(want), "%lx ", (unsigned long)addr);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want))) {
			fputs(line, stdout);
			found = 1;
		}
	fclose(f);
	if (!found)
		fprintf(stderr, "hms-demo: no numa_maps line for %p\n", addr);
	return found ? 0 : -1;
}

static int numa_maps_demo(const struct hms_target *home,
			  const struct hms_target *hbm, size_t size)
{
	uint32_t uids[2] = { hms_target_uid(home), hbm ? hms_target_uid(hbm) : 0 };
	unsigned int n = hbm ? 2 : 1, strict;
	int ret = 0;

	for (strict = 0; strict < 2; strict++) {
		char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t i;

		if (buf == MAP_FAILED) {
			perror("hms-demo: mmap");
			return -1;
		}
		printf("%s bind to target%s %" PRIu32 "%s", strict ? "strict" : "preferred",
		       n > 1 ? "s" : "", uids[0], n > 1 ? "," : "");
		if (n > 1)
			printf(" %" PRIu32, uids[1]);
		printf(" (nodes %d", hms_target_nid(home));
		if (n > 1)
			printf(",%d", hms_target_nid(hbm));
		printf("):\n");
		if (hms_bind(buf, size, uids, n, strict ? HMS_BIND_STRICT : 0)) {
			fprintf(stderr, "hms-demo: bind: %s\n", strerror(errno));
			ret = -1;
		} else {
			for (i = 0; i < size; i += 64)
				buf[i] = 1;
			if (print_numa_maps(buf))
				ret = -1;
		}
		munmap(buf, size);
	}
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: hms-demo [--numa-maps]\n"
		"Bind, migrate and query a buffer by HMS target (see the source).\n");
}

int main(int argc, char **argv)
{
	int numa_maps = 0;
	const struct hms_initiator *in;
	const struct hms_target *home, *hbm, *dev = NULL;
	struct hms_topology *topo;
	size_t size = NPAGES * (size_t)sysconf(_SC_PAGESIZE), i;
	struct hms_perf perf;
	unsigned int k;
	uint32_t uid;
	char *buf;
	int ret = 1, fd, err;

	if (argc == 2 && !strcmp(argv[1], "--numa-maps")) {
		numa_maps = 1;
	} else if (argc == 2 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	} else if (argc != 1) {
		usage(stderr);
		return 2;
	}
	if (hms_topology_load(&topo, NULL, 0)) {
		fprintf(stderr, "hms-demo: cannot load the HMS topology: %s\n",
			strerror(errno));
		return 1;
	}
	in = hms_initiator_current(topo);
	if (!in) {
		fprintf(stderr, "hms-demo: no HMS initiator for CPU %d\n", sched_getcpu());
		goto out;
	}
	printf("running on CPU %d: initiator %" PRIu32 " (node %d, cpus %s)\n",
	       sched_getcpu(), hms_initiator_uid(in), hms_initiator_nid(in),
	       hms_initiator_cpulist(in));

	home = hms_target_by_nid(topo, hms_initiator_nid(in));
	if (!home)
		home = hms_best_target(topo, in, HMS_BY_LATENCY, HMS_ONLY_SYSTEM);
	if (!home) {
		fprintf(stderr, "hms-demo: no system target for this CPU\n");
		goto out;
	}
	hbm = hms_best_target(topo, in, HMS_BY_BANDWIDTH,
			      HMS_ONLY_SYSTEM | HMS_ONLY_CPULESS);
	for (k = 0; k < hms_topology_ntargets(topo) && !dev; k++)
		if (hms_target_type(hms_topology_target(topo, k)) ==
		    HMS_TARGET_DEVICE_PRIVATE)
			dev = hms_topology_target(topo, k);

	if (!hms_has_hbind()) {
		printf("hbind() is not available in this kernel: nothing to demonstrate\n");
		ret = 0;
		goto out;
	}
	if (numa_maps) {
		ret = numa_maps_demo(home, hbm, size) ? 1 : 0;
		goto out;
	}
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (buf == MAP_FAILED) {
		perror("hms-demo: mmap");
		goto out;
	}

	/* 1. bind to the CPU's own memory, then touch every page */
	uid = hms_target_uid(home);
	hms_path(topo, in, home, &perf);
	printf("bind: %d pages to target %" PRIu32 " (node %d, %" PRIu64
	       " MB/s, %" PRIu64 " ns from this CPU)\n", NPAGES, uid,
	       hms_target_nid(home), perf.read_bandwidth, perf.read_latency);
	if (hms_bind(buf, size, &uid, 1, 0)) {
		fprintf(stderr, "hms-demo: bind: %s\n", strerror(errno));
		goto unmap;
	}
	if (show("before touching", buf, size))
		goto unmap;
	for (i = 0; i < size; i += 64)
		buf[i] = (char)i;
	printf("touch: wrote the buffer\n");
	if (show("touch", buf, size))
		goto unmap;

	/* 2. to the HBM-like target */
	if (!hbm)
		printf("hbm: skipped: no CPU-less system target reachable from this CPU\n");
	else if (migrate("hbm", buf, size, hbm))
		goto unmap;

	/* 3. to device memory and back */
	if (!dev) {
		printf("device: skipped: no device-private target\n");
	} else if ((fd = open_owner(dev)) >= 0) {
		/* no CPU access here: it would fault the pages back */
		err = migrate("device", buf, size, dev);
		close(fd);
		if (err)
			goto unmap;
	}
	if (migrate("back", buf, size, home))
		goto unmap;
	for (i = 0; i < size; i += 64)
		if (buf[i] != (char)i) {
			fprintf(stderr, "hms-demo: data lost at offset %zu\n", i);
			goto unmap;
		}
	printf("done: data intact\n");
	ret = 0;
unmap:
	munmap(buf, size);
out:
	hms_topology_free(topo);
	return ret;
}
