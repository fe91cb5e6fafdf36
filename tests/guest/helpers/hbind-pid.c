// SPDX-License-Identifier: GPL-2.0
/*
 * hbind-pid - hbind() on another process (HBIND_CMD_PROCESS, a pidfd)
 * beside move_pages(2) on the same process, with chosen credentials.
 *
 *   hbind-pid -n A,B,TO [-p PAGES] [-T UID] [-U UID] [-d] [-s] [-g CGROUP]
 *             query|migrate|migrate-all|whole|whole-all|bad
 *   hbind-pid -n A,B,TO -t UID -D DEV [-o both|caller|target|none]
 *             devmigrate|devwhole
 *   hbind-pid -n A,B,TO [-r ROUNDS] race
 *
 * A target process (a child) maps PAGES pages (default 64): the first half
 * on node A, then node B but for the last two pages, which stay untouched;
 * with -s, a child of its own shares the first 8 pages (mapped by two
 * processes). With -T it runs as that uid (and gid), with -d it is not
 * dumpable, with -g it moves into that cgroup. The helper then takes the
 * credentials of -U (uid and gid, no capability left) and works on it:
 *
 * query: QUERY through a pidfd, then move_pages(pid, NULL): prints
 *   "query hbind: ERRNO LAYOUT" and "query move_pages: ERRNO LAYOUT", where
 *   LAYOUT is the node of each page (or -ENOENT, -EFAULT), run-length
 *   encoded ("2x32 3x30 -2x2"); QUERY's target uids are given as nodes.
 * migrate, migrate-all: two identical target processes; MIGRATE (with
 *   HBIND_MIGRATE_ALL) to the target of node TO on the first, move_pages()
 *   of every page to TO (MPOL_MF_MOVE_ALL) on the second: "migrate hbind:
 *   ERRNO moved N LAYOUT", "migrate move_pages: ERRNO moved N LAYOUT", with
 *   N the result word, or the pages move_pages() put on TO that were not
 *   there, and LAYOUT read by each process itself afterwards.
 * whole, whole-all: two identical target processes; MIGRATE_WHOLE|FROM
 *   (with HBIND_MIGRATE_ALL) from the target of node A to that of node TO
 *   on the first, migrate_pages(pid, {A}, {TO}) on the second: "whole
 *   hbind: ERRNO moved N fell F left L LAYOUT", "whole migrate_pages: ERRNO
 *   moved N fell F left L LAYOUT", with N the result word (hbind) or the
 *   pages migrate_pages() said it could not move, F the fall of the pages
 *   on A in the whole process (/proc/PID/numa_maps, read just before and
 *   after the call; "-" when the helper may not read it), L what is left
 *   on A, LAYOUT as for migrate.
 * bad: calls that must fail and change nothing: a file that is not a
 *   pidfd, the pidfd of an exited process, of a thread, PROCESS not first,
 *   PROCESS with a BIND, flags, MIGRATE_WHOLE with a range, MIGRATE_FROM
 *   without a destination: "bad CASE: ERRNO unchanged|changed".
 * devmigrate: MIGRATE through a pidfd to the device target UID (-t), with
 *   the device file DEV open in the target process, the helper, both
 *   (default) or neither (-o); then QUERY through the pidfd and move_pages(pid, NULL), then
 *   MIGRATE back to node A: "devmigrate to: ERRNO moved N LAYOUT" (then
 *   what hmsctl stat --pid prints of the process, each line after
 *   "stat| "),
 *   "devmigrate query: ERRNO LAYOUT", "devmigrate move_pages: ERRNO
 *   LAYOUT", "devmigrate back: ERRNO moved N LAYOUT", where the pages on
 *   the device target read as 999 in a QUERY's LAYOUT.
 * devwhole: MIGRATE the first half to the device target UID, through a
 *   pidfd, then MIGRATE_WHOLE|FROM from the device to node TO: "devwhole
 *   to: ERRNO moved N", "devwhole back: ERRNO moved N", each followed by
 *   the QUERY and move_pages() lines of devmigrate ("devwhole query",
 *   "devwhole move_pages" after "to", "devwhole after" and "devwhole
 *   after move_pages" after "back").
 *
 * race: a target process that, ROUNDS times (default 200), maps PAGES
 *   pages at one address, touches them, forks a child that exits at once
 *   and unmaps them, then execs /bin/true, while the helper streams
 *   QUERY and MIGRATE (to A, to B, then the whole process from B to A)
 *   calls through its pidfd until it is
 *   gone: "race: calls N ok N EFAULT N ESRCH N other N" (other: any
 *   other result, which the caller must not see).
 *
 * Exit 0, 1 on a failure of the helper itself, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hbtest.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

#define LAYOUT_MAX	8192

static long psz;
static int npages = 64, nodes[3], nnodes, nodump, shared;
static long target_uid = -1, caller_uid = -1, dev_uid = -1;
static const char *cgroup, *dev_path;
static const char *opens = "both";
static int rounds = 200;

static void __attribute__((noreturn)) usage(void);

/* the helper's ends of the pipes to the target processes started so far */
static int pipe_ends[8], npipe_ends;

/* a target process: commands on @cmd, answers on @ans */
struct target {
	pid_t pid;
	int pidfd;
	int cmd, ans;
	char *addr;
};

/* hb_parse_list(), a usage error for a bad list */
static int parse_list(const char *s, long *v, int max)
{
	int n = hb_parse_list(s, v, max);

	if (n < 0)
		usage();
	return n;
}

static void bind_to(char *p, size_t len, int node)
{
	unsigned long mask[(HB_MAXNODE + 63) / 64] = { 0 };

	mask[node / 64] |= 1UL << (node % 64);
	CHECK(!sys_mbind((unsigned long)p, len, HB_MPOL_BIND, mask,
			 HB_MAXNODE, 0), "mbind: %s", strerror(errno));
}

/* "N" for each status, run-length encoded: "2x32 3x30 -2x2" */
static void encode(const int *v, int n, char *out, size_t size)
{
	size_t len = 0;
	int i, j;

	snprintf(out, size, "-");
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		len += snprintf(out + len, size - len, "%s%dx%d",
				len ? " " : "", v[i], j - i);
		CHECK(len < size, "layout too long");
	}
}

/* in the target: the node of each of its pages, as move_pages(0) says */
static void self_layout(char *addr, char *out, size_t size)
{
	void **pages = calloc(npages, sizeof(*pages));
	int *status = calloc(npages, sizeof(*status)), i;

	CHECK(pages && status, "out of memory");
	for (i = 0; i < npages; i++)
		pages[i] = addr + i * psz;
	CHECK(!sys_move_pages(0, npages, pages, NULL, status, 0),
	      "move_pages: %s", strerror(errno));
	encode(status, npages, out, size);
	free(pages);
	free(status);
}

static void drop_to(long uid)
{
	CHECK(!setgroups(0, NULL) && !setresgid(uid, uid, uid) &&
	      !setresuid(uid, uid, uid), "setresuid(%ld): %s", uid,
	      strerror(errno));
}

/*
 * The target process: maps and places its pages, reports their address,
 * then answers 'l' (its layout) until told 'x' or the pipe closes.
 */
static void target_main(int cmd, int ans)
{
	char line[LAYOUT_MAX], c;
	size_t half = npages / 2 * psz;
	char *p;

	if (target_uid >= 0)
		drop_to(target_uid);
	/* a change of uid made it non-dumpable (suid_dumpable 0) */
	CHECK(!prctl(PR_SET_DUMPABLE, !nodump), "PR_SET_DUMPABLE");
	/* the device's driver lets this process use its memory */
	CHECK(!dev_path || (strcmp(opens, "both") && strcmp(opens, "target")) ||
	      open(dev_path, O_RDWR) >= 0, "%s: %s", dev_path, strerror(errno));
	p = mmap(NULL, npages * psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	bind_to(p, half, nodes[0]);
	bind_to(p + half, npages * psz - half, nodes[1]);
	memset(p, 1, npages * psz - 2 * psz);
	/* only the first 8 pages go to the child */
	CHECK(!shared || !madvise(p + 8 * psz, (npages - 8) * psz,
				  MADV_DONTFORK), "MADV_DONTFORK");
	if (shared && fork() == 0) {
		/* holds the first pages, mapped by two processes now */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	CHECK(write(ans, &p, sizeof(p)) == sizeof(p), "pipe");
	while (read(cmd, &c, 1) == 1 && c == 'l') {
		self_layout(p, line, sizeof(line));
		CHECK(write(ans, line, strlen(line) + 1) ==
		      (ssize_t)strlen(line) + 1, "pipe");
	}
	exit(0);
}

static void target_start(struct target *t)
{
	int cmd[2], ans[2];
	char path[256], buf[32];
	int fd, n;

	CHECK(!pipe(cmd) && !pipe(ans), "pipe");
	t->pid = fork();
	CHECK(t->pid >= 0, "fork");
	if (!t->pid) {
		/* an earlier target sees its pipe close with the helper's end */
		while (npipe_ends)
			close(pipe_ends[--npipe_ends]);
		close(cmd[1]);
		close(ans[0]);
		target_main(cmd[0], ans[1]);
	}
	CHECK(npipe_ends + 2 <= (int)(sizeof(pipe_ends) / sizeof(int)),
	      "too many target processes");
	pipe_ends[npipe_ends++] = cmd[1];
	pipe_ends[npipe_ends++] = ans[0];
	close(cmd[0]);
	close(ans[1]);
	t->cmd = cmd[1];
	t->ans = ans[0];
	CHECK(read(t->ans, &t->addr, sizeof(t->addr)) == sizeof(t->addr),
	      "the target process did not start");
	t->pidfd = syscall(SYS_pidfd_open, t->pid, 0);
	CHECK(t->pidfd >= 0, "pidfd_open: %s", strerror(errno));
	if (cgroup) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
		n = snprintf(buf, sizeof(buf), "%d\n", t->pid);
		fd = open(path, O_WRONLY);
		CHECK(fd >= 0 && write(fd, buf, n) == n, "%s: %s", path,
		      strerror(errno));
		close(fd);
	}
}

static void target_layout(struct target *t, char *out, size_t size)
{
	size_t len = 0;

	CHECK(write(t->cmd, "l", 1) == 1, "pipe");
	do {
		CHECK(len < size && read(t->ans, out + len, 1) == 1, "pipe");
	} while (out[len++]);
}

static void target_stop(struct target *t)
{
	close(t->cmd);
	close(t->ans);
	close(t->pidfd);
	waitpid(t->pid, NULL, 0);
}

/* hbind(PROCESS pidfd, QUERY buf) */
static long query_hbind(int pidfd, char *addr, int32_t *buf)
{
	uint32_t atoms[] = {
		HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS), 0,
		(uint32_t)pidfd,
		HBIND_ATOM(HBIND_CMD_QUERY, HBIND_QUERY_NDWORDS), 0,
		(uint32_t)(uintptr_t)buf,
		(uint32_t)((uint64_t)(uintptr_t)buf >> 32),
	};

	return sys_hbind(addr, npages * psz, NULL, 0, atoms, 7);
}

/*
 * "@hb: ERRNO LAYOUT" from QUERY through the pidfd of @t (target uids as
 * nodes, the -t device target as 999), then "@mp: ERRNO LAYOUT" from
 * move_pages(pid, NULL) of the same pages.
 */
static void print_where(struct target *t, const char *hb, const char *mp)
{
	int32_t *buf = calloc(npages, sizeof(*buf));
	void **pages = calloc(npages, sizeof(*pages));
	int *status = calloc(npages, sizeof(*status));
	char line[LAYOUT_MAX];
	int i, e;

	CHECK(buf && pages && status, "out of memory");
	e = query_hbind(t->pidfd, t->addr, buf) ? errno : 0;
	for (i = 0; i < npages && !e; i++)
		if (dev_uid >= 0 && buf[i] == dev_uid)
			buf[i] = 999;
		else if (buf[i] >= 0)
			buf[i] = hb_node_of_uid(buf[i]);
	encode(buf, e ? 0 : npages, line, sizeof(line));
	printf("%s: %s %s\n", hb, hb_errname(e), line);

	for (i = 0; i < npages; i++)
		pages[i] = t->addr + i * psz;
	e = sys_move_pages(t->pid, npages, pages, NULL, status, 0) ? errno : 0;
	encode(status, e ? 0 : npages, line, sizeof(line));
	printf("%s: %s %s\n", mp, hb_errname(e), line);
	free(buf);
	free(pages);
	free(status);
}

static int do_query(void)
{
	struct target t;

	target_start(&t);
	if (caller_uid >= 0)
		drop_to(caller_uid);
	print_where(&t, "query hbind", "query move_pages");
	target_stop(&t);
	return 0;
}

/* pages of a layout line on node @node */
static int count_on(const char *layout, int node)
{
	int v, n, sum = 0, off;

	while (sscanf(layout, "%dx%d%n", &v, &n, &off) == 2) {
		if (v == node)
			sum += n;
		layout += off;
	}
	return sum;
}

static int do_migrate(bool all)
{
	int to = nodes[2], i, e, *tos = calloc(npages, sizeof(int));
	int *status = calloc(npages, sizeof(int));
	void **pages = calloc(npages, sizeof(*pages));
	char before[LAYOUT_MAX], after[LAYOUT_MAX];
	long uid = hb_uid_of_node(to);
	struct target t[2];
	uint32_t moved;

	CHECK(tos && status && pages, "out of memory");
	CHECK(uid >= 0, "no target for node %d", to);
	target_start(&t[0]);
	target_start(&t[1]);
	if (caller_uid >= 0)
		drop_to(caller_uid);

	{
		uint32_t atoms[] = {
			HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS),
			0, (uint32_t)t[0].pidfd,
			HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS),
			all ? HBIND_MIGRATE_ALL : 0, 0,
		};
		uint32_t u = uid;

		e = sys_hbind(t[0].addr, npages * psz, &u, 1, atoms, 6) ?
		    errno : 0;
		moved = atoms[5];
		target_layout(&t[0], after, sizeof(after));
		printf("migrate hbind: %s moved %u %s\n", hb_errname(e),
		       e ? 0 : moved, after);
	}

	target_layout(&t[1], before, sizeof(before));
	for (i = 0; i < npages; i++) {
		pages[i] = t[1].addr + i * psz;
		tos[i] = to;
	}
	e = sys_move_pages(t[1].pid, npages, pages, tos, status,
			   all ? HB_MPOL_MF_MOVE_ALL : HB_MPOL_MF_MOVE) ?
	    errno : 0;
	target_layout(&t[1], after, sizeof(after));
	printf("migrate move_pages: %s moved %d %s\n", hb_errname(e),
	       count_on(after, to) - count_on(before, to), after);
	target_stop(&t[0]);
	target_stop(&t[1]);
	return 0;
}

/*
 * Pages of process @pid on node @node: the sum of numa_maps' N<node>=, or
 * -1 when the caller may not read it (another uid).
 */
static long numa_maps_on(pid_t pid, int node)
{
	char path[64], word[128], key[16];
	long sum = 0, n;
	FILE *f;
	int len;

	snprintf(path, sizeof(path), "/proc/%d/numa_maps", pid);
	len = snprintf(key, sizeof(key), "N%d=", node);
	f = fopen(path, "r");
	if (!f && errno == EACCES)
		return -1;
	CHECK(f, "%s: %s", path, strerror(errno));
	while (fscanf(f, "%127s", word) == 1)
		if (!strncmp(word, key, len) &&
		    sscanf(word + len, "%ld", &n) == 1)
			sum += n;
	fclose(f);
	return sum;
}

/* hbind(PROCESS pidfd, MIGRATE WHOLE|FROM @flags) from @from to @to */
static int migrate_whole(int pidfd, uint32_t from, uint32_t to,
			 uint32_t flags, uint32_t *moved)
{
	uint32_t uids[] = { from, to };
	uint32_t atoms[] = {
		HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS), 0,
		(uint32_t)pidfd,
		HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_FROM_NDWORDS),
		HBIND_MIGRATE_WHOLE | HBIND_MIGRATE_FROM | flags, 0, 1,
	};
	int e = sys_hbind(NULL, 0, uids, 2, atoms, 7) ? errno : 0;

	*moved = e ? 0 : atoms[5];
	return e;
}

static int do_whole(bool all)
{
	unsigned long old[HB_MAXNODE / 64] = { 0 }, new[HB_MAXNODE / 64] = { 0 };
	int a = nodes[0], to = nodes[2];
	long before, after, r;
	char line[LAYOUT_MAX];
	struct target t[2];
	uint32_t moved;
	int e;

	CHECK(hb_uid_of_node(a) >= 0 && hb_uid_of_node(to) >= 0,
	      "no target for node %d or %d", a, to);
	target_start(&t[0]);
	target_start(&t[1]);
	if (caller_uid >= 0)
		drop_to(caller_uid);

	before = numa_maps_on(t[0].pid, a);
	e = migrate_whole(t[0].pidfd, hb_uid_of_node(a), hb_uid_of_node(to),
			  all ? HBIND_MIGRATE_ALL : 0, &moved);
	after = numa_maps_on(t[0].pid, a);
	target_layout(&t[0], line, sizeof(line));
	if (before < 0)
		printf("whole hbind: %s moved %u fell - left - %s\n",
		       hb_errname(e), moved, line);
	else
		printf("whole hbind: %s moved %u fell %ld left %ld %s\n",
		       hb_errname(e), moved, before - after, after, line);

	old[a / 64] |= 1UL << (a % 64);
	new[to / 64] |= 1UL << (to % 64);
	before = numa_maps_on(t[1].pid, a);
	r = sys_migrate_pages(t[1].pid, HB_MAXNODE, old, new);
	e = r < 0 ? errno : 0;
	after = numa_maps_on(t[1].pid, a);
	target_layout(&t[1], line, sizeof(line));
	if (before < 0)
		printf("whole migrate_pages: %s moved %ld fell - left - %s\n",
		       hb_errname(e), e ? 0 : r, line);
	else
		printf("whole migrate_pages: %s moved %ld fell %ld left %ld %s\n",
		       hb_errname(e), e ? 0 : r, before - after, after, line);
	target_stop(&t[0]);
	target_stop(&t[1]);
	return 0;
}

static volatile pid_t thread_tid;

static void *thread_wait(void *arg)
{
	int fd = *(int *)arg;
	char c;

	thread_tid = syscall(SYS_gettid);
	/* until the pipe closes */
	while (read(fd, &c, 1) > 0)
		;
	return NULL;
}

/* one call that must fail: its errno, and whether the target changed */
static void bad_call(struct target *t, const char *name, int pidfd,
		     uint32_t *atoms, unsigned int natoms)
{
	char before[LAYOUT_MAX], after[LAYOUT_MAX];
	uint32_t uid = hb_uid_of_node(nodes[2]);
	int e;

	target_layout(t, before, sizeof(before));
	if (pidfd >= -1)
		atoms[2] = (uint32_t)pidfd;
	e = sys_hbind(t->addr, npages * psz, &uid, 1, atoms, natoms) ?
	    errno : 0;
	target_layout(t, after, sizeof(after));
	printf("bad %s: %s %s\n", name, hb_errname(e),
	       strcmp(before, after) ? "changed" : "unchanged");
}

static int do_bad(void)
{
	uint32_t migrate[] = {
		HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS), 0, 0,
		HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), 0, 0,
	};
	struct target t, gone;
	int devnull, pipefd[2], tidfd;
	pthread_t th;
	pid_t tid;

	target_start(&t);
	target_start(&gone);
	kill(gone.pid, SIGKILL);
	waitpid(gone.pid, NULL, 0);
	devnull = open("/dev/null", O_RDONLY);
	CHECK(devnull >= 0, "/dev/null");

	/* a thread of the helper, and its pidfd (PIDFD_THREAD) */
	CHECK(!pipe(pipefd), "pipe");
	CHECK(!pthread_create(&th, NULL, thread_wait, &pipefd[0]),
	      "pthread_create");
	while (!(tid = thread_tid))
		usleep(1000);
	tidfd = syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (caller_uid >= 0)
		drop_to(caller_uid);

	bad_call(&t, "not-a-pidfd", devnull, migrate, 6);
	bad_call(&t, "closed-fd", 1000, migrate, 6);
	bad_call(&t, "exited", gone.pidfd, migrate, 6);
	if (tidfd >= 0)
		bad_call(&t, "thread", tidfd, migrate, 6);
	else
		printf("bad thread: pidfd_open(PIDFD_THREAD): %s\n",
		       hb_errname(errno));
	{
		/* PROCESS after MIGRATE */
		uint32_t a[] = {
			HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS),
			0, 0,
			HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS),
			0, (uint32_t)t.pidfd,
		};

		bad_call(&t, "not-first", -2, a, 6);
	}
	{
		/* a BIND of another process's range */
		uint32_t a[] = {
			HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS),
			0, (uint32_t)t.pidfd,
			HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS),
			0, 0,
			HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS), 0,
		};

		bad_call(&t, "with-bind", -2, a, 8);
	}
	{
		uint32_t a[] = {
			HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS),
			1, (uint32_t)t.pidfd,
			HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS),
			0, 0,
		};

		bad_call(&t, "flags", -2, a, 6);
	}
	{
		/* MIGRATE_WHOLE of a range */
		uint32_t a[] = {
			HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS),
			0, (uint32_t)t.pidfd,
			HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS),
			HBIND_MIGRATE_WHOLE, 0,
		};

		bad_call(&t, "whole-range", -2, a, 6);
	}
	{
		/* MIGRATE_FROM: its one target a source, no destination */
		uint32_t a[] = {
			HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS),
			0, (uint32_t)t.pidfd,
			HBIND_ATOM(HBIND_CMD_MIGRATE,
				   HBIND_MIGRATE_FROM_NDWORDS),
			HBIND_MIGRATE_FROM, 0, 1,
		};

		bad_call(&t, "from-no-dest", -2, a, 7);
	}
	{
		/* the right call, for comparison: it moves pages */
		bad_call(&t, "valid", t.pidfd, migrate, 6);
	}
	close(pipefd[1]);
	pthread_join(th, NULL);
	close(gone.cmd);
	close(gone.ans);
	target_stop(&t);
	return 0;
}

/* hmsctl stat --pid @pid, each line of its output after "stat| " */
static void hmsctl_stat(pid_t pid)
{
	char cmd[64], line[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "hmsctl stat --pid %d 2>&1", pid);
	fflush(stdout);
	f = popen(cmd, "r");
	CHECK(f, "popen: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		printf("stat| %s", line);
	printf("stat| [exit %d]\n", WEXITSTATUS(pclose(f)));
}

/* MIGRATE through @pidfd to @uid: 0 or errno, the result word in *@moved */
static int migrate_pidfd(int pidfd, char *addr, uint32_t uid, uint32_t *moved)
{
	uint32_t atoms[] = {
		HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS), 0,
		(uint32_t)pidfd,
		HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), 0, 0,
	};
	int e = sys_hbind(addr, npages * psz, &uid, 1, atoms, 6) ? errno : 0;

	*moved = e ? 0 : atoms[5];
	return e;
}

static int do_devmigrate(void)
{
	char line[LAYOUT_MAX];
	struct target t;
	uint32_t moved;
	int e;

	CHECK(dev_uid >= 0 && dev_path, "-t UID -D DEV are needed");
	target_start(&t);
	CHECK((strcmp(opens, "both") && strcmp(opens, "caller")) ||
	      open(dev_path, O_RDWR) >= 0, "%s: %s", dev_path, strerror(errno));

	e = migrate_pidfd(t.pidfd, t.addr, dev_uid, &moved);
	target_layout(&t, line, sizeof(line));
	printf("devmigrate to: %s moved %u %s\n", hb_errname(e), moved, line);
	hmsctl_stat(t.pid);

	print_where(&t, "devmigrate query", "devmigrate move_pages");

	e = migrate_pidfd(t.pidfd, t.addr, hb_uid_of_node(nodes[0]), &moved);
	target_layout(&t, line, sizeof(line));
	printf("devmigrate back: %s moved %u %s\n", hb_errname(e), moved,
	       line);
	target_stop(&t);
	return 0;
}

static int do_devwhole(void)
{
	uint32_t to = hb_uid_of_node(nodes[2]), moved;
	uint32_t atoms[] = {
		HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS), 0, 0,
		HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), 0, 0,
	};
	uint32_t dev = dev_uid;
	struct target t;
	int e;

	CHECK(dev_uid >= 0 && dev_path, "-t UID -D DEV are needed");
	target_start(&t);
	CHECK((strcmp(opens, "both") && strcmp(opens, "caller")) ||
	      open(dev_path, O_RDWR) >= 0, "%s: %s", dev_path, strerror(errno));

	atoms[2] = (uint32_t)t.pidfd;
	e = sys_hbind(t.addr, npages / 2 * psz, &dev, 1, atoms, 6) ? errno : 0;
	printf("devwhole to: %s moved %u\n", hb_errname(e), e ? 0 : atoms[5]);
	print_where(&t, "devwhole query", "devwhole move_pages");

	e = migrate_whole(t.pidfd, dev, to, 0, &moved);
	printf("devwhole back: %s moved %u\n", hb_errname(e), moved);
	print_where(&t, "devwhole after", "devwhole after move_pages");
	target_stop(&t);
	return 0;
}

static void race_target(int ans)
{
	size_t len = npages * psz;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(write(ans, &p, sizeof(p)) == sizeof(p), "pipe");
	close(ans);
	for (i = 0; i < rounds; i++) {
		pid_t c;

		CHECK(mmap(p, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p,
		      "mmap: %s", strerror(errno));
		memset(p, i, len);
		c = fork();
		if (!c)
			_exit(0);
		waitpid(c, NULL, 0);
		munmap(p + len / 2, len / 2);
	}
	execl("/bin/true", "true", (char *)NULL);
	_exit(1);
}

static int do_race(void)
{
	uint32_t ua = hb_uid_of_node(nodes[0]), ub = hb_uid_of_node(nodes[1]);
	long calls = 0, ok = 0, efault = 0, esrch = 0, other = 0;
	int32_t *buf = calloc(npages, sizeof(*buf));
	int ans[2], pidfd, e;
	pid_t pid;
	char *addr;

	CHECK(buf, "out of memory");
	CHECK(!pipe(ans), "pipe");
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		close(ans[0]);
		race_target(ans[1]);
	}
	close(ans[1]);
	CHECK(read(ans[0], &addr, sizeof(addr)) == sizeof(addr), "pipe");
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	CHECK(pidfd >= 0, "pidfd_open: %s", strerror(errno));
	for (;;) {
		uint32_t moved;

		if (calls % 6 == 5)
			e = migrate_whole(pidfd, ub, ua, 0, &moved);
		else if (calls % 2)
			e = migrate_pidfd(pidfd, addr, calls % 6 == 1 ? ua : ub,
					  &moved);
		else
			e = query_hbind(pidfd, addr, buf) ? errno : 0;
		calls++;
		if (!e)
			ok++;
		else if (e == EFAULT)
			efault++;
		else if (e == ESRCH)
			esrch++;
		else {
			fprintf(stderr, "race: call %ld: %s\n", calls,
				hb_errname(e));
			other++;
		}
		/* reaped: the pidfd names no process any more */
		if (e == ESRCH && waitpid(pid, NULL, WNOHANG) == pid)
			break;
	}
	printf("race: calls %ld ok %ld EFAULT %ld ESRCH %ld other %ld\n",
	       calls, ok, efault, esrch, other);
	close(pidfd);
	return 0;
}

static void opt_nodes(const char *arg)
{
	long v[3];
	int i;

	nnodes = parse_list(arg, v, 3);
	for (i = 0; i < nnodes; i++)
		nodes[i] = (int)v[i];
}

static const struct hb_opt opts[] = {
	{ .name = 'n', .kind = HB_OPT_FN, .fn = opt_nodes, .arg = "A,B,TO",
	  .help = "the nodes of the two halves, and MIGRATE's node" },
	{ .name = 'p', .kind = HB_OPT_INT, .dest = &npages, .arg = "PAGES",
	  .help = "pages of the target process (default 64)" },
	{ .name = 'T', .kind = HB_OPT_LONG, .dest = &target_uid, .arg = "UID",
	  .help = "the target process runs as UID" },
	{ .name = 'U', .kind = HB_OPT_LONG, .dest = &caller_uid, .arg = "UID",
	  .help = "the helper works as UID" },
	{ .name = 'g', .kind = HB_OPT_STR, .dest = &cgroup, .arg = "CGROUP",
	  .help = "the target process moves into CGROUP (cgroup v2)" },
	{ .name = 'd', .kind = HB_OPT_FLAG, .dest = &nodump,
	  .help = "the target process is not dumpable" },
	{ .name = 't', .kind = HB_OPT_LONG, .dest = &dev_uid, .arg = "UID",
	  .help = "devmigrate: the device target" },
	{ .name = 'D', .kind = HB_OPT_STR, .dest = &dev_path, .arg = "DEV",
	  .help = "devmigrate: the device file" },
	{ .name = 'o', .kind = HB_OPT_STR, .dest = &opens,
	  .arg = "both|caller|target|none",
	  .help = "devmigrate: who opens DEV (default both)" },
	{ .name = 'r', .kind = HB_OPT_INT, .dest = &rounds, .arg = "ROUNDS",
	  .help = "race: rounds of the target process (default 200)" },
	{ .name = 's', .kind = HB_OPT_FLAG, .dest = &shared,
	  .help = "its first 8 pages are shared with a child of its own" },
	{ 0 }
};

static const struct hb_cli cli = {
	.prog = "hbind-pid",
	.synopsis = "hbind-pid -n A,B,TO [-p PAGES] [-T UID] [-U UID] [-d] "
		    "[-s] [-g CGROUP]\n"
		    "          query|migrate|migrate-all|whole|whole-all|bad\n"
		    "hbind-pid -n A,B,TO -t UID -D DEV [-o both|caller|target|none]\n"
		    "          devmigrate|devwhole\n"
		    "hbind-pid -n A,B,TO [-r ROUNDS] race",
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
	if (arg + 1 != argc || nnodes != 3 || npages < 16 ||
	    npages > LAYOUT_MAX / 16)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[arg], "query"))
		return do_query();
	if (!strcmp(argv[arg], "migrate"))
		return do_migrate(false);
	if (!strcmp(argv[arg], "migrate-all"))
		return do_migrate(true);
	if (!strcmp(argv[arg], "whole"))
		return do_whole(false);
	if (!strcmp(argv[arg], "whole-all"))
		return do_whole(true);
	if (!strcmp(argv[arg], "bad"))
		return do_bad();
	if (!strcmp(argv[arg], "devwhole"))
		return do_devwhole();
	if (!strcmp(argv[arg], "devmigrate"))
		return do_devmigrate();
	if (!strcmp(argv[arg], "race"))
		return do_race();
	usage();
}
