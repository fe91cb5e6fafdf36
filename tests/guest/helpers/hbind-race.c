// SPDX-License-Identifier: GPL-2.0
/*
 * hbind-race - hbind() against another thread changing what it works on.
 *
 *   hbind-race [-u UID] hole bind|default|migrate
 *   hbind-race [-u UID] split
 *   hbind-race -g CGROUP -a MEMS -b MEMS -n NODE [-u UID] [-r ROUNDS]
 *              cpuset hbind-task|hbind-range|set_mempolicy|mbind
 *   hbind-race -u UID0,UID1 -n NODE0,NODE1 [-c CPU0,CPU1] [-p PAGES] ilauto
 *   hbind-race -u UID0,UID1 -n NODE0,NODE1 homenode hbind|mbind
 *   hbind-race -u UID0,UID1 -n NODE0,NODE1,FROM -w W0,W1 [-p PAGES] ksmbase
 *
 * hole: a stream [QUERY, CMD] over 8 touched pages whose QUERY buffer is
 *   missing in a userfaultfd region: while the kernel waits in QUERY's
 *   copy_to_user(), the fault handler unmaps page 4 of the range, then
 *   fills the buffer. CMD must see the hole (EFAULT, as mbind() and a
 *   first command do) and change nothing. Prints "hole CMD: ERRNO" and,
 *   for bind, how many pages have a BIND policy ("bound N").
 * split: the same with a stream [QUERY, BIND] over the last 8 pages before
 *   a 2 MiB boundary and the first page after it; the handler replaces the
 *   2 MiB after the boundary with a hugetlb page, which the range ends
 *   inside. BIND must fail with EINVAL having bound nothing (mbind()
 *   binds the pages before the boundary first). Needs a free 2 MiB huge
 *   page. Prints "split bind: ERRNO bound N".
 * cpuset: moves itself into CGROUP (cgroup v2, cpuset controller), then
 *   ROUNDS times: cpuset.mems = MEMS a; one thread installs a strict policy
 *   over NODE (BIND|STRICT|TASK or a range BIND|STRICT to UID with hbind,
 *   or set_mempolicy() or mbind() MPOL_BIND) while another writes MEMS b
 *   to cpuset.mems, at an offset kept near the one where installs stop
 *   being refused (the install then races the write); then, with nothing
 *   running, the
 *   policy's nodes (numa_maps) must lie within the thread's mems_allowed,
 *   as cpuset rebinding keeps them. Prints "cpuset MODE: rounds R
 *   installed I refused E outside O".
 * ilauto: INTERLEAVE|AUTO over the two targets, without an initiator, from
 *   a thread allowed on every CPU while it runs on CPU0 (default 0), then
 *   on CPU1 (default 1): prints "ilauto cpu C: NODE0=P NODE1=Q" for PAGES
 *   pages (default 64) each time; the weights may not depend on the CPU
 *   the call ran on.
 * homenode: BIND over both targets (hbind), or mbind(MPOL_BIND) over both
 *   nodes, then set_mempolicy_home_node(NODE1); the range's pages are then
 *   touched. Prints "homenode MODE: ERRNO NODE0=P NODE1=Q".
 * ksmbase: ksmd merges a page at the start of the range with a page
 *   outside it, and the outside page is written again, so the range
 *   starts with a KSM page that the caller alone maps; a MAP_SHARED
 *   memfd of PAGES pages (default 64) follows it, on a memfd whose inode
 *   number is not a multiple of W0 + W1 (shmem biases the interleave index
 *   by it). All pages start on FROM. Then INTERLEAVE|MOVE over the two
 *   targets with weights W0, W1 (hbind), and, with every page back on
 *   FROM, mbind(MPOL_WEIGHTED_INTERLEAVE, MPOL_MF_MOVE) over the two nodes
 *   (the global weights are the caller's to set). Prints "ksmbase MODE:
 *   ksm K nodes N N N ..." for each: K is 1 when the first page of the
 *   range was a KSM page mapped once before the call (/proc/kpageflags,
 *   /proc/kpagecount), then the node of each memfd page. Needs root
 *   (/sys/kernel/mm/ksm, page frame numbers); leaves KSM as it found it.
 * Exit 0, 1 on a failure of the helper itself, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hbtest.h"

#ifndef MAP_HUGETLB
#define MAP_HUGETLB	0x40000
#endif
#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node 450
#endif

#define HUGE_SZ	(2UL << 20)

static long psz;

/* the command line */
static uint32_t uids[2];
static int nuids, nodes[3], nnodes, cpus[2] = { 0, 1 }, npages_opt = 64;
static const char *cg, *mems_a, *mems_b;
static int rounds = 1000;
static uint32_t weights[2];
static int nweights;

static void __attribute__((noreturn)) usage(void);

/* hb_parse_list(), a usage error for a bad list */
static int parse_list(const char *s, long *v, int max)
{
	int n = hb_parse_list(s, v, max);

	if (n < 0)
		usage();
	return n;
}

static void *map_anon(size_t len, int flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	CHECK(p != MAP_FAILED, "mmap %zu: %s", len, strerror(errno));
	return p;
}

/* the policy mode of the page at @p, or -1 when it is not mapped */
static int page_mode(void *p)
{
	int mode;

	if (sys_get_mempolicy(&mode, NULL, 0, (unsigned long)p, HB_MPOL_F_ADDR))
		return -1;
	return mode & ~HB_MPOL_MODE_FLAGS;
}

static int count_bound(char *p, int npages)
{
	int i, n = 0;

	for (i = 0; i < npages; i++)
		n += page_mode(p + i * psz) == HB_MPOL_BIND ||
		     page_mode(p + i * psz) == HB_MPOL_PREFERRED_MANY;
	return n;
}

/* Userfaultfd: the QUERY buffer, and what the handler does first. */
struct uffd_race {
	int fd;
	char *buf;
	void (*act)(struct uffd_race *r);
	char *range;
	int faults;
};

static void act_hole(struct uffd_race *r)
{
	CHECK(!munmap(r->range + 4 * psz, psz), "munmap: %s", strerror(errno));
}

static void act_huge(struct uffd_race *r)
{
	/* r->range is the first byte after the boundary */
	void *p = mmap(r->range, HUGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_HUGETLB,
		       -1, 0);

	CHECK(p == r->range, "hugetlb mmap: %s", strerror(errno));
}

static void *uffd_handler(void *arg)
{
	struct uffd_race *r = arg;
	struct uffd_msg msg;
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

	CHECK(poll(&pfd, 1, 10000) == 1, "no fault on the QUERY buffer");
	CHECK(read(r->fd, &msg, sizeof(msg)) == sizeof(msg), "uffd read: %s",
	      strerror(errno));
	CHECK(msg.event == UFFD_EVENT_PAGEFAULT, "uffd event %d", msg.event);
	r->faults++;
	r->act(r);
	{
		struct uffdio_zeropage z = {
			.range = { .start = msg.arg.pagefault.address & ~(psz - 1),
				   .len = psz },
		};

		CHECK(!ioctl(r->fd, UFFDIO_ZEROPAGE, &z), "UFFDIO_ZEROPAGE: %s",
		      strerror(errno));
	}
	return NULL;
}

static void uffd_setup(struct uffd_race *r)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	r->fd = syscall(SYS_userfaultfd, O_CLOEXEC);
	CHECK(r->fd >= 0, "userfaultfd: %s", strerror(errno));
	CHECK(!ioctl(r->fd, UFFDIO_API, &api), "UFFDIO_API: %s", strerror(errno));
	r->buf = map_anon(psz, 0);
	reg.range.start = (unsigned long)r->buf;
	reg.range.len = psz;
	CHECK(!ioctl(r->fd, UFFDIO_REGISTER, &reg), "UFFDIO_REGISTER: %s",
	      strerror(errno));
}

/* [QUERY into the uffd buffer, then @atom] over @len at @start */
static int stream_after_query(struct uffd_race *r, char *start, size_t len,
			      uint32_t cmd_atom, uint32_t flags,
			      uint32_t *targets, unsigned int ntargets)
{
	uint32_t atoms[8];
	unsigned int n = 0;
	pthread_t t;
	int e = 0;

	atoms[n++] = HBIND_ATOM(HBIND_CMD_QUERY, HBIND_QUERY_NDWORDS);
	atoms[n++] = 0;
	atoms[n++] = (uint32_t)(uintptr_t)r->buf;
	atoms[n++] = (uint32_t)((uint64_t)(uintptr_t)r->buf >> 32);
	atoms[n++] = cmd_atom;
	if (HBIND_ATOM_NDWORDS(cmd_atom) >= 1)
		atoms[n++] = flags;
	if (HBIND_ATOM_NDWORDS(cmd_atom) >= 2)
		atoms[n++] = 0;
	CHECK(!pthread_create(&t, NULL, uffd_handler, r), "pthread_create");
	if (sys_hbind(start, len, targets, ntargets, atoms, n))
		e = errno;
	pthread_join(t, NULL);
	CHECK(r->faults == 1, "the handler saw %d faults", r->faults);
	return e;
}

static int do_hole(const char *cmd)
{
	struct uffd_race r = { .act = act_hole };
	int npages = 8, e;
	uint32_t atom;

	if (!strcmp(cmd, "bind"))
		atom = HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS);
	else if (!strcmp(cmd, "default"))
		atom = HBIND_ATOM(HBIND_CMD_DEFAULT, HBIND_DEFAULT_NDWORDS);
	else if (!strcmp(cmd, "migrate"))
		atom = HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS);
	else
		usage();
	CHECK(nuids >= 1 || !strcmp(cmd, "default"), "-u UID is needed");
	uffd_setup(&r);
	r.range = map_anon(npages * psz, 0);
	memset(r.range, 1, npages * psz);
	e = stream_after_query(&r, r.range, npages * psz, atom, 0,
			       !strcmp(cmd, "default") ? NULL : uids,
			       !strcmp(cmd, "default") ? 0 : 1);
	if (!strcmp(cmd, "bind"))
		printf("hole %s: %s bound %d\n", cmd, hb_errname(e),
		       count_bound(r.range, npages));
	else
		printf("hole %s: %s\n", cmd, hb_errname(e));
	return 0;
}

static int do_split(void)
{
	struct uffd_race r = { .act = act_huge };
	int before = 8, e;
	char *area, *boundary;

	CHECK(nuids >= 1, "-u UID is needed");
	uffd_setup(&r);
	/* a normal mapping across a 2 MiB boundary */
	area = map_anon(3 * HUGE_SZ, 0);
	boundary = (char *)(((uintptr_t)area + 2 * HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	r.range = boundary;
	memset(boundary - before * psz, 1, before * psz);
	e = stream_after_query(&r, boundary - before * psz, (before + 1) * psz,
			       HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS),
			       0, uids, 1);
	printf("split bind: %s bound %d\n", hb_errname(e),
	       count_bound(boundary - before * psz, before));
	return 0;
}

#define NWORDS	((HB_MAXNODE + 63) / 64)

/*
 * The nodes of the policy that applies at @p, as the kernel holds them
 * (/proc/self/numa_maps: the VMA's policy, else the thread's). Unlike
 * get_mempolicy(), which gives back the nodes the caller passed for a
 * policy with MPOL_F_STATIC_NODES, this is what cpuset rebinding changes.
 */
static void policy_nodes(void *p, unsigned long *mask)
{
	FILE *f = fopen("/proc/self/numa_maps", "r");
	static char line[4096], found[4096];
	char *pol, *nl, *end;
	unsigned long addr;
	int hit = 0;
	long a, b;

	CHECK(f, "numa_maps: %s", strerror(errno));
	memset(mask, 0, NWORDS * sizeof(*mask));
	/* the last VMA that starts at or below @p: numa_maps is sorted */
	while (fgets(line, sizeof(line), f)) {
		if (strtoul(line, NULL, 16) > (unsigned long)p)
			break;
		memcpy(found, line, sizeof(line));
		hit = 1;
	}
	fclose(f);
	CHECK(hit, "%p is not in numa_maps", p);
	{
		addr = strtoul(found, &pol, 16);
		(void)addr;
		pol += strspn(pol, " ");
		/* the one mode name with a space */
		nl = pol + (strncmp(pol, "prefer (many)", 13) ? 0 : 13);
		nl[strcspn(nl, " \n")] = 0;
		nl = strrchr(pol, ':');
		if (!nl)
			return;	/* default, local: no nodes of their own */
		for (nl++; *nl; nl = *end ? end + 1 : end) {
			a = b = strtol(nl, &end, 10);
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			CHECK(end != nl && a >= 0 && b < HB_MAXNODE,
			      "numa_maps policy '%s'", pol);
			for (; a <= b; a++)
				mask[a / 64] |= 1UL << (a % 64);
		}
	}
}

/* cpuset: one installer, one writer of cpuset.mems */
struct cs_race {
	const char *mode;
	char *range;
	int node, mems_fd;
	const char *mems_b;
	long spin_max;		/* loop iterations: the offsets' range */
	int installed, refused;
	long spin;
};

static void spin_for(long n)
{
	volatile long i;

	for (i = 0; i < n; i++)
		;
}

static void write_mems(int fd, const char *mems)
{
	CHECK(pwrite(fd, mems, strlen(mems), 0) == (ssize_t)strlen(mems),
	      "cpuset.mems = %s: %s", mems, strerror(errno));
}

static int install(struct cs_race *c)
{
	unsigned long mask[(HB_MAXNODE + 63) / 64] = { 0 };
	uint32_t atoms[2];
	long r;

	mask[c->node / 64] |= 1UL << (c->node % 64);
	if (!strcmp(c->mode, "hbind-task")) {
		atoms[0] = HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS);
		atoms[1] = HBIND_BIND_TASK | HBIND_BIND_STRICT;
		r = sys_hbind(0, 0, uids, 1, atoms, 2);
	} else if (!strcmp(c->mode, "hbind-range")) {
		atoms[0] = HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS);
		atoms[1] = HBIND_BIND_STRICT;
		r = sys_hbind(c->range, psz, uids, 1, atoms, 2);
	} else if (!strcmp(c->mode, "set_mempolicy")) {
		r = sys_set_mempolicy(HB_MPOL_BIND, mask, HB_MAXNODE);
	} else {
		r = sys_mbind((unsigned long)c->range, psz, HB_MPOL_BIND, mask,
			      HB_MAXNODE, 0);
	}
	if (r && errno != EINVAL)
		FAIL("%s: %s", c->mode, strerror(errno));
	return r ? -1 : 0;
}

/*
 * The writer is another process, outside the cgroup: cpuset rebinds the
 * policies of an mm once for each of its tasks in the cgroup, so a writer
 * thread of this process would repair what the installer left behind.
 */
static void cs_writer(int go, int done, int mems_fd, const char *mems)
{
	char b;

	while (read(go, &b, 1) == 1 && b == 'w') {
		write_mems(mems_fd, mems);
		CHECK(write(done, "d", 1) == 1, "pipe");
	}
	exit(0);
}

static int do_cpuset(const char *cg, const char *mems_a, const char *mems_b,
		     const char *mode, int rounds)
{
	unsigned long pol[NWORDS], allowed[NWORDS];
	struct cs_race c = { .mode = mode, .node = nodes[0], .mems_b = mems_b };
	int outside = 0, i, w, fd;
	long step, offset;
	uint64_t t0, t_install = 0, t_write = 0;
	int go[2], done[2];
	char path[512], b;
	pid_t writer;

	if (strcmp(mode, "hbind-task") && strcmp(mode, "hbind-range") &&
	    strcmp(mode, "set_mempolicy") && strcmp(mode, "mbind"))
		usage();
	CHECK(nnodes >= 1, "-n NODE is needed");
	CHECK(nuids >= 1 || strncmp(mode, "hbind", 5), "-u UID is needed");
	snprintf(path, sizeof(path), "%s/cpuset.mems", cg);
	c.mems_fd = open(path, O_WRONLY);
	CHECK(c.mems_fd >= 0, "%s: %s", path, strerror(errno));
	CHECK(!pipe(go) && !pipe(done), "pipe: %s", strerror(errno));
	writer = fork();
	CHECK(writer >= 0, "fork: %s", strerror(errno));
	if (!writer)
		cs_writer(go[0], done[1], c.mems_fd, mems_b);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0, "%s: %s", path, strerror(errno));
	CHECK(dprintf(fd, "%d\n", getpid()) > 0, "join %s: %s", cg,
	      strerror(errno));
	close(fd);
	c.range = map_anon(psz, 0);

	/* how long one install and one write take, in spin loops */
	for (i = 0; i < 20; i++) {
		write_mems(c.mems_fd, mems_a);
		t0 = hb_now_ns();
		install(&c);
		t_install += hb_now_ns() - t0;
		t0 = hb_now_ns();
		write_mems(c.mems_fd, mems_b);
		t_write += hb_now_ns() - t0;
	}
	t0 = hb_now_ns();
	spin_for(1000000);
	c.spin_max = (long)((t_install + t_write) / 20 * 1000000 /
			    (hb_now_ns() - t0 + 1)) + 1;

	/*
	 * A staircase around the offset where the install stops being
	 * refused: the write lands inside the install there, which is the
	 * window this is about.
	 */
	srand(getpid());
	step = c.spin_max / 100 + 1;
	offset = c.spin_max / 2;
	for (i = 0; i < rounds; i++) {
		write_mems(c.mems_fd, mems_a);
		c.spin = offset + rand() % (2 * step);
		CHECK(write(go[1], "w", 1) == 1, "pipe");
		spin_for(c.spin);
		if (install(&c)) {
			c.refused++;
			offset = offset > step ? offset - step : 0;
		} else {
			c.installed++;
			offset += step;
		}
		CHECK(read(done[0], &b, 1) == 1, "the writer died");
		/* nothing runs now: the policy must be within mems_allowed */
		policy_nodes(c.range, pol);
		CHECK(!sys_get_mempolicy(NULL, allowed, HB_MAXNODE, 0,
					 HB_MPOL_F_MEMS_ALLOWED),
		      "get_mempolicy(MEMS_ALLOWED): %s", strerror(errno));
		for (w = 0; w < NWORDS; w++)
			if (pol[w] & ~allowed[w]) {
				if (!outside)
					fprintf(stderr, "round %d: policy nodes %#lx, mems_allowed %#lx\n",
						i, pol[0], allowed[0]);
				outside++;
				break;
			}
	}
	CHECK(write(go[1], "q", 1) == 1, "pipe");
	waitpid(writer, NULL, 0);
	printf("cpuset %s: rounds %d installed %d refused %d outside %d\n",
	       mode, rounds, c.installed, c.refused, outside);
	return 0;
}

/* move_pages() count of the pages of [@p, @p + @n pages) on each of nodes[] */
static void count_nodes(char *p, int n, int *on)
{
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status)), i;

	CHECK(pages && status, "out of memory");
	for (i = 0; i < n; i++)
		pages[i] = p + i * psz;
	CHECK(!sys_move_pages(0, n, pages, NULL, status, 0), "move_pages: %s",
	      strerror(errno));
	on[0] = on[1] = 0;
	for (i = 0; i < n; i++) {
		if (status[i] == nodes[0])
			on[0]++;
		else if (status[i] == nodes[1])
			on[1]++;
	}
	free(pages);
	free(status);
}

static int do_ilauto(void)
{
	cpu_set_t all;
	int k, n = npages_opt, on[2];

	CHECK(nuids == 2 && nnodes == 2, "-u UID0,UID1 -n NODE0,NODE1 are needed");
	CHECK(!sched_getaffinity(0, sizeof(all), &all), "sched_getaffinity");
	for (k = 0; k < 2; k++) {
		int cpu = cpus[k];
		uint32_t atoms[1 + HBIND_INTERLEAVE_NDWORDS];
		char *p = map_anon(n * psz, 0);
		int tries;

		hb_il_atom(atoms, HBIND_IL_AUTO, 0, NULL);
		/* run on @cpu while allowed on every CPU */
		for (tries = 0; tries < 100; tries++) {
			HB_PIN(cpu);
			CHECK(!sched_setaffinity(0, sizeof(all), &all),
			      "sched_setaffinity: %s", strerror(errno));
			if (sched_getcpu() != cpu)
				continue;
			if (sys_hbind(p, n * psz, uids, 2, atoms,
				      1 + HBIND_INTERLEAVE_NDWORDS))
				FAIL("INTERLEAVE|AUTO: %s", strerror(errno));
			if (sched_getcpu() == cpu)
				break;
		}
		CHECK(tries < 100, "could not stay on CPU %d", cpu);
		memset(p, 1, n * psz);
		count_nodes(p, n, on);
		printf("ilauto cpu %d: %d=%d %d=%d\n", cpu, nodes[0], on[0],
		       nodes[1], on[1]);
		munmap(p, n * psz);
	}
	return 0;
}

static int do_homenode(const char *mode)
{
	unsigned long mask[(HB_MAXNODE + 63) / 64] = { 0 };
	uint32_t atoms[2] = { HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS), 0 };
	int n = 16, on[2], e = 0;
	char *p = map_anon(n * psz, 0);

	CHECK(nuids == 2 && nnodes == 2, "-u UID0,UID1 -n NODE0,NODE1 are needed");
	mask[nodes[0] / 64] |= 1UL << (nodes[0] % 64);
	mask[nodes[1] / 64] |= 1UL << (nodes[1] % 64);
	if (!strcmp(mode, "hbind"))
		CHECK(!sys_hbind(p, n * psz, uids, 2, atoms, 2), "BIND: %s",
		      strerror(errno));
	else if (!strcmp(mode, "mbind"))
		CHECK(!sys_mbind((unsigned long)p, n * psz, HB_MPOL_BIND, mask,
				 HB_MAXNODE, 0), "mbind: %s", strerror(errno));
	else
		usage();
	if (syscall(SYS_set_mempolicy_home_node, (unsigned long)p, n * psz,
		    (unsigned long)nodes[1], 0UL))
		e = errno;
	memset(p, 1, n * psz);
	count_nodes(p, n, on);
	printf("homenode %s: %s %d=%d %d=%d\n", mode, hb_errname(e), nodes[0],
	       on[0], nodes[1], on[1]);
	return 0;
}

/* a sysfs or proc file's number, -1 if it cannot be read */
static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* the 64-bit entry @idx of a /proc page file */
static uint64_t read_u64_at(const char *path, uint64_t idx)
{
	int fd = open(path, O_RDONLY);
	uint64_t v;

	CHECK(fd >= 0 && pread(fd, &v, sizeof(v), idx * sizeof(v)) ==
	      sizeof(v), "%s: %s", path, strerror(errno));
	close(fd);
	return v;
}

/* 1 if the page at @p is a KSM page that only this mapping maps, else 0 */
static long ksm_once(void *p)
{
	uint64_t e = read_u64_at("/proc/self/pagemap",
				 (uintptr_t)p / (uint64_t)psz);
	uint64_t pfn = e & ((1ULL << 55) - 1);

	if (!(e >> 63) || !pfn)
		return 0;	/* not present (or no PFN: not root) */
	return (read_u64_at("/proc/kpageflags", pfn) >> 21 & 1) &&
	       read_u64_at("/proc/kpagecount", pfn) == 1;
}

static void write_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY);

	CHECK(fd >= 0 && write(fd, v, strlen(v)) == (ssize_t)strlen(v),
	      "%s: %s", path, strerror(errno));
	close(fd);
}

/* the node of each of @n pages at @p, printed */
static void print_nodes(const char *mode, long ksm, char *p, int n)
{
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status)), i;

	CHECK(pages && status, "out of memory");
	for (i = 0; i < n; i++)
		pages[i] = p + i * psz;
	CHECK(!sys_move_pages(0, n, pages, NULL, status, 0), "move_pages: %s",
	      strerror(errno));
	printf("ksmbase %s: ksm %ld nodes", mode, ksm);
	for (i = 0; i < n; i++)
		printf(" %d", status[i]);
	printf("\n");
	free(pages);
	free(status);
}

static void bind_move(char *p, size_t len, int node)
{
	unsigned long mask[(HB_MAXNODE + 63) / 64] = { 0 };

	mask[node / 64] |= 1UL << (node % 64);
	CHECK(!sys_mbind((unsigned long)p, len, HB_MPOL_BIND, mask, HB_MAXNODE,
			 HB_MPOL_MF_MOVE | HB_MPOL_MF_STRICT),
	      "mbind(MPOL_BIND, MOVE|STRICT) to node %d: %s", node,
	      strerror(errno));
}

static const char *const ksm_files[] = { "run", "sleep_millisecs",
					 "pages_to_scan" };

static int do_ksmbase(void)
{
	int n = npages_opt, fd = -1, i, k;
	long saved[3], total;
	char *res, *other, path[128], val[32];
	struct stat st;

	CHECK(nuids == 2 && nnodes == 3 && nweights == 2,
	      "-u UID0,UID1 -n NODE0,NODE1,FROM -w W0,W1 are needed");
	total = weights[0] + weights[1];
	/* a memfd whose inode number shifts the interleave index */
	for (i = 0; i < 64; i++) {
		fd = memfd_create("ksmbase", 0);
		CHECK(fd >= 0 && !fstat(fd, &st), "memfd_create: %s",
		      strerror(errno));
		if (st.st_ino % total)
			break;
		close(fd);
		fd = -1;
	}
	CHECK(fd >= 0, "every memfd's inode number is a multiple of %ld",
	      total);
	CHECK(!ftruncate(fd, n * psz), "ftruncate: %s", strerror(errno));

	/* [one private anonymous page][n pages of the memfd] */
	res = mmap(NULL, (n + 1) * psz, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(res != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(mmap(res, psz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == res &&
	      mmap(res + psz, n * psz, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_FIXED, fd, 0) == res + psz,
	      "mmap: %s", strerror(errno));
	other = map_anon(psz, 0);
	bind_move(res, (n + 1) * psz, nodes[2]);
	bind_move(other, psz, nodes[2]);
	memset(res, 0x5a, psz);
	memset(other, 0x5a, psz);
	memset(res + psz, 1, n * psz);

	/* ksmd merges res[0] and other[0], then other[0] is its own again */
	for (k = 0; k < 3; k++) {
		snprintf(path, sizeof(path), "/sys/kernel/mm/ksm/%s",
			 ksm_files[k]);
		saved[k] = read_long(path);
		CHECK(saved[k] >= 0, "%s: %s", path, strerror(errno));
	}
	CHECK(!madvise(res, psz, MADV_MERGEABLE) &&
	      !madvise(other, psz, MADV_MERGEABLE), "MADV_MERGEABLE: %s",
	      strerror(errno));
	write_str("/sys/kernel/mm/ksm/sleep_millisecs", "10");
	write_str("/sys/kernel/mm/ksm/pages_to_scan", "1000");
	write_str("/sys/kernel/mm/ksm/run", "1");
	for (i = 0; i < 3000 &&
	     read_long("/proc/self/ksm_merging_pages") < 2; i++)
		usleep(10000);
	for (k = 2; k >= 0; k--) {
		snprintf(path, sizeof(path), "/sys/kernel/mm/ksm/%s",
			 ksm_files[k]);
		snprintf(val, sizeof(val), "%ld", saved[k]);
		write_str(path, val);
	}
	CHECK(read_long("/proc/self/ksm_merging_pages") == 2,
	      "ksmd did not merge the two pages in 30 s");
	memset(other, 0xa5, psz);

	{
		uint32_t atoms[1 + HBIND_INTERLEAVE_NDWORDS];
		long ksm;

		hb_il_atom(atoms, HBIND_IL_MOVE, 0, weights);
		ksm = ksm_once(res);

		CHECK(!sys_hbind(res, (n + 1) * psz, uids, 2, atoms,
				 1 + HBIND_INTERLEAVE_NDWORDS),
		      "INTERLEAVE|MOVE: %s", strerror(errno));
		print_nodes("hbind", ksm, res + psz, n);
	}
	{
		unsigned long mask[(HB_MAXNODE + 63) / 64] = { 0 };
		long ksm;

		bind_move(res, (n + 1) * psz, nodes[2]);
		ksm = ksm_once(res);
		mask[nodes[0] / 64] |= 1UL << (nodes[0] % 64);
		mask[nodes[1] / 64] |= 1UL << (nodes[1] % 64);
		CHECK(!sys_mbind((unsigned long)res, (n + 1) * psz,
				 HB_MPOL_WEIGHTED_INTERLEAVE, mask, HB_MAXNODE,
				 HB_MPOL_MF_MOVE),
		      "mbind(MPOL_WEIGHTED_INTERLEAVE, MOVE): %s",
		      strerror(errno));
		print_nodes("mbind", ksm, res + psz, n);
	}
	return 0;
}

static void opt_uids(const char *arg)
{
	long v[2];
	int i;

	nuids = parse_list(arg, v, 2);
	for (i = 0; i < nuids; i++)
		uids[i] = (uint32_t)v[i];
}

static void opt_nodes(const char *arg)
{
	long v[3];
	int i;

	nnodes = parse_list(arg, v, 3);
	for (i = 0; i < nnodes; i++)
		nodes[i] = (int)v[i];
}

static void opt_weights(const char *arg)
{
	long v[2];
	int i;

	nweights = parse_list(arg, v, 2);
	for (i = 0; i < nweights; i++)
		weights[i] = (uint32_t)v[i];
}

static void opt_cpus(const char *arg)
{
	long v[2];

	CHECK(parse_list(arg, v, 2) == 2, "-c CPU0,CPU1");
	cpus[0] = (int)v[0];
	cpus[1] = (int)v[1];
}

static const struct hb_opt opts[] = {
	{ .name = 'u', .kind = HB_OPT_FN, .fn = opt_uids, .arg = "UID[,UID]",
	  .help = "the target(s)" },
	{ .name = 'n', .kind = HB_OPT_FN, .fn = opt_nodes,
	  .arg = "NODE[,NODE[,FROM]]",
	  .help = "their node(s); ksmbase: the node the pages start on" },
	{ .name = 'w', .kind = HB_OPT_FN, .fn = opt_weights, .arg = "W0,W1",
	  .help = "ksmbase: the weights of the two targets" },
	{ .name = 'g', .kind = HB_OPT_STR, .dest = &cg, .arg = "CGROUP",
	  .help = "cpuset: the cgroup (v2) to move into" },
	{ .name = 'a', .kind = HB_OPT_STR, .dest = &mems_a, .arg = "MEMS",
	  .help = "cpuset: its cpuset.mems before each round" },
	{ .name = 'b', .kind = HB_OPT_STR, .dest = &mems_b, .arg = "MEMS",
	  .help = "cpuset: its cpuset.mems written during the install" },
	{ .name = 'r', .kind = HB_OPT_INT, .dest = &rounds, .arg = "ROUNDS",
	  .help = "cpuset: rounds (default 1000)" },
	{ .name = 'c', .kind = HB_OPT_FN, .fn = opt_cpus, .arg = "CPU0,CPU1",
	  .help = "ilauto: the CPUs the call runs on (default 0,1)" },
	{ .name = 'p', .kind = HB_OPT_INT, .dest = &npages_opt, .arg = "PAGES",
	  .help = "ilauto: pages per call (default 64); ksmbase: memfd "
		  "pages (default 64)" },
	{ 0 }
};

static const struct hb_cli cli = {
	.prog = "hbind-race",
	.synopsis =
		"hbind-race [-u UID] hole bind|default|migrate\n"
		"hbind-race [-u UID] split\n"
		"hbind-race -g CGROUP -a MEMS -b MEMS -n NODE [-u UID] "
		"[-r ROUNDS]\n"
		"           cpuset hbind-task|hbind-range|set_mempolicy|mbind\n"
		"hbind-race -u UID0,UID1 -n NODE0,NODE1 [-c CPU0,CPU1] "
		"[-p PAGES] ilauto\n"
		"hbind-race -u UID0,UID1 -n NODE0,NODE1 homenode hbind|mbind\n"
		"hbind-race -u UID0,UID1 -n NODE0,NODE1,FROM -w W0,W1 "
		"[-p PAGES] ksmbase",
	.opts = opts,
};

static void usage(void)
{
	hb_usage_exit(&cli);
}

int main(int argc, char **argv)
{
	int arg;

	psz = sysconf(_SC_PAGESIZE);
	arg = hb_getopt(&cli, argc, argv);
	if (arg >= argc)
		usage();
	if (!strcmp(argv[arg], "hole") && arg + 1 < argc)
		return do_hole(argv[arg + 1]);
	if (!strcmp(argv[arg], "split"))
		return do_split();
	if (!strcmp(argv[arg], "cpuset") && arg + 1 < argc && cg &&
	    mems_a && mems_b)
		return do_cpuset(cg, mems_a, mems_b, argv[arg + 1], rounds);
	if (!strcmp(argv[arg], "ilauto"))
		return do_ilauto();
	if (!strcmp(argv[arg], "homenode") && arg + 1 < argc)
		return do_homenode(argv[arg + 1]);
	if (!strcmp(argv[arg], "ksmbase"))
		return do_ksmbase();
	usage();
}
