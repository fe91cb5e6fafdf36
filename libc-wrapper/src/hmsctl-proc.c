// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hmsctl-proc.c - another process's memory: where it is, target by target
 * (hmsctl stat -p, the numastat -p form, device memory included), and
 * moving it (hmsctl migrate -p, the migratepages form), through a pidfd
 * with hms_query_pid() and hms_migrate_process(): the kernel checks
 * move_pages(2)'s permissions.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hmsctl.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* the rows of numastat -p */
enum kind { K_HUGE, K_HEAP, K_STACK, K_PRIVATE, K_COUNT };

static const char *const kind_names[K_COUNT] = {
	"Huge", "Heap", "Stack", "Private",
};

/* One mapping of the process, from /proc/PID/smaps. */
struct mapping {
	unsigned long start, end;
	enum kind kind;
};

/* Pages per query: the buffer holds this many entries. */
#define CHUNK_PAGES	4096UL

struct proc {
	int pid, pidfd;
	int quiet;		/* one of many: a process gone is no error */
	char comm[64];
	struct mapping *maps;
	size_t nmaps;
	int32_t *buf;		/* CHUNK_PAGES entries */
	unsigned long psz;
};

/*
 * Is @err what a process that is gone, has no memory (a kernel thread) or
 * is not the caller's to read gives? stat of many processes skips those.
 */
static int skipped(int err)
{
	return err == ESRCH || err == EPERM || err == EACCES || err == ENOENT;
}

/*
 * Open process @pid: its pidfd, name and mappings. @quiet (one of many):
 * a process that skipped() says to leave out returns -1, no message.
 */
static int proc_open(struct proc *p, int pid, int quiet)
{
	char path[64], line[512];
	size_t cap = 0, i;
	FILE *f;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->quiet = quiet;
	p->psz = (unsigned long)sysconf(_SC_PAGESIZE);
	p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	/* the kernel's answer on the permission first (an empty range) */
	if (p->pidfd < 0 || hms_query_pid(p->pidfd, 0, 0, NULL)) {
		if (quiet && skipped(errno))
			return -1;
		errmsg("process %d: %s", pid, strerror(errno));
		return EXIT_RUNTIME;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(p->comm, sizeof(p->comm), f))
			p->comm[strcspn(p->comm, "\n")] = '\0';
		fclose(f);
	}
	/* printed as it is in JSON too: nothing to escape */
	for (i = 0; p->comm[i]; i++) {
		if (p->comm[i] < ' ' || p->comm[i] == '"' ||
		    p->comm[i] == '\\' || p->comm[i] == 127)
			p->comm[i] = '?';
	}
	/* smaps: the mappings, and the page size of hugetlb ones */
	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	f = fopen(path, "r");
	if (!f) {
		if (quiet && skipped(errno))
			return -1;
		errmsg("%s: %s", path, strerror(errno));
		return EXIT_RUNTIME;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e, kb;
		char name[256] = "";
		struct mapping *m;

		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &s, &e,
			   name) >= 2 && strchr(line, '-') < strchr(line, ' ')) {
			if (p->nmaps == cap) {
				cap = cap ? 2 * cap : 64;
				m = realloc(p->maps, cap * sizeof(*m));
				if (!m)
					break;
				p->maps = m;
			}
			m = &p->maps[p->nmaps++];
			m->start = s;
			m->end = e;
			m->kind = !strcmp(name, "[heap]") ? K_HEAP :
				  !strncmp(name, "[stack", 6) ? K_STACK :
				  K_PRIVATE;
		} else if (p->nmaps &&
			   sscanf(line, "KernelPageSize: %lu kB", &kb) == 1 &&
			   kb * 1024 != p->psz) {
			p->maps[p->nmaps - 1].kind = K_HUGE;
		}
	}
	fclose(f);
	p->buf = calloc(CHUNK_PAGES, sizeof(*p->buf));
	if (!p->buf || (cap && !p->maps)) {
		errmsg("%s", strerror(ENOMEM));
		return EXIT_RUNTIME;
	}
	return 0;
}

static void proc_close(struct proc *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd);
	free(p->maps);
	free(p->buf);
}

/*
 * QUERY [addr, addr + n pages) of the process into p->buf. A mapping gone
 * meanwhile (EFAULT) or one hbind() cannot name ([vsyscall], EINVAL) reads
 * as not populated: 1; an error the caller must see: -1 with a message.
 */
static int query_chunk(struct proc *p, unsigned long addr, unsigned long n)
{
	unsigned long i;

	if (!hms_query_pid(p->pidfd, addr, n * p->psz, p->buf))
		return 0;
	if (errno != EFAULT && errno != EINVAL) {
		if (!p->quiet || errno != ESRCH)
			errmsg("process %d: %s", p->pid, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		p->buf[i] = HMS_QUERY_NOT_PRESENT;
	return 1;
}

/*
 * @fn on each run of at most CHUNK_PAGES pages of each mapping, in address
 * order, until it returns non-zero, which is returned.
 */
static int for_each_chunk(struct proc *p,
			  int (*fn)(struct proc *p, const struct mapping *map,
				    unsigned long addr, unsigned long n,
				    void *arg),
			  void *arg)
{
	unsigned long addr, n;
	size_t m;
	int ret = 0;

	for (m = 0; !ret && m < p->nmaps; m++) {
		const struct mapping *map = &p->maps[m];

		for (addr = map->start; !ret && addr < map->end;
		     addr += n * p->psz) {
			n = (map->end - addr) / p->psz;
			if (n > CHUNK_PAGES)
				n = CHUNK_PAGES;
			ret = fn(p, map, addr, n, arg);
		}
	}
	return ret;
}

/* the column of the target with uid @uid, or -1 */
static int column_of(const struct hms_topology *topo, int32_t uid)
{
	unsigned int i, n = hms_topology_ntargets(topo);

	for (i = 0; i < n; i++)
		if (hms_target_uid(hms_topology_target(topo, i)) ==
		    (uint32_t)uid)
			return (int)i;
	return -1;
}

static void column_name(const struct hms_target *t, char *buf, size_t size)
{
	if (hms_target_nid(t) >= 0)
		snprintf(buf, size, "Node %d", hms_target_nid(t));
	else
		snprintf(buf, size, "Target %" PRIu32, hms_target_uid(t));
}

/* the fields of a target in JSON, after its opening brace */
static void json_target(const struct hms_target *t)
{
	printf("\"uid\": %" PRIu32 ", \"nid\": %d, \"type\": \"%s\"",
	       hms_target_uid(t), hms_target_nid(t), hms_target_type_name(t));
}

/* a rule under a table's first column (@width wide) and its n + 1 others */
static void print_rule(int width, unsigned int n, int under_label)
{
	unsigned int i;
	int c;

	for (c = 0; c < width; c++)
		putchar(under_label ? '-' : ' ');
	for (i = 0; i <= n; i++)
		printf(" ---------------");
	putchar('\n');
}

/* the header of a table: @label, a column per target, Total; a rule */
static void print_head(const struct hms_topology *topo, int width,
		       const char *label, int rule_label)
{
	unsigned int i, n = hms_topology_ntargets(topo);
	char name[32];

	printf("%-*s", width, label);
	for (i = 0; i < n; i++) {
		column_name(hms_topology_target(topo, i), name, sizeof(name));
		printf(" %15s", name);
	}
	printf(" %15s\n", "Total");
	print_rule(width, n, rule_label);
}

static void print_stat(const struct hms_topology *topo, const struct proc *p,
		       unsigned long (*pages)[K_COUNT], enum format fmt)
{
	unsigned int i, n = hms_topology_ntargets(topo);
	double mb = (double)p->psz / (1024 * 1024), total, sum;
	int k;

	if (fmt == FMT_JSON) {
		printf("{\"pid\": %d, \"comm\": \"%s\", \"page_size\": %lu, "
		       "\"targets\": [", p->pid, p->comm, p->psz);
		for (i = 0; i < n; i++) {
			const struct hms_target *t = hms_topology_target(topo, i);

			printf("%s\n  {", i ? "," : "");
			json_target(t);
			sum = 0;
			for (k = 0; k < K_COUNT; k++) {
				printf(", \"%c%s\": %lu", kind_names[k][0] + 32,
				       kind_names[k] + 1, pages[i][k]);
				sum += (double)pages[i][k];
			}
			printf(", \"pages\": %.0f}", sum);
		}
		printf("\n]}\n");
		return;
	}
	printf("Per-target process memory usage (in MBs) for PID %d (%s)\n",
	       p->pid, p->comm);
	print_head(topo, 16, "", 0);
	for (k = 0; k < K_COUNT; k++) {
		printf("%-16s", kind_names[k]);
		for (i = 0, total = 0; i < n; i++) {
			printf(" %15.2f", (double)pages[i][k] * mb);
			total += (double)pages[i][k] * mb;
		}
		printf(" %15.2f\n", total);
	}
	print_rule(16, n, 1);
	printf("%-16s", "Total");
	for (i = 0, total = 0; i < n; i++) {
		for (k = 0, sum = 0; k < K_COUNT; k++)
			sum += (double)pages[i][k] * mb;
		printf(" %15.2f", sum);
		total += sum;
	}
	printf(" %15.2f\n", total);
}

struct stat_arg {
	const struct hms_topology *topo;
	unsigned long (*pages)[K_COUNT];	/* per target, per row */
};

/* count the pages of a chunk, by target and row */
static int stat_chunk(struct proc *p, const struct mapping *map,
		      unsigned long addr, unsigned long n, void *arg)
{
	struct stat_arg *a = arg;
	unsigned long i;

	if (query_chunk(p, addr, n) < 0)
		return EXIT_RUNTIME;
	for (i = 0; i < n; i++) {
		int col = p->buf[i] >= 0 ? column_of(a->topo, p->buf[i]) : -1;

		if (col >= 0)
			a->pages[col][map->kind]++;
	}
	return 0;
}

int proc_stat(const struct hms_topology *topo, int pid, enum format fmt)
{
	unsigned int n = hms_topology_ntargets(topo);
	struct stat_arg a = {
		.topo = topo, .pages = calloc(n ? n : 1, sizeof(*a.pages)),
	};
	unsigned long (*pages)[K_COUNT] = a.pages;
	struct proc p;
	int ret;

	if (!pages) {
		errmsg("%s", strerror(errno));
		return EXIT_RUNTIME;
	}
	ret = proc_open(&p, pid, 0);
	if (!ret)
		ret = for_each_chunk(&p, stat_chunk, &a);
	if (!ret)
		print_stat(topo, &p, pages, fmt);
	proc_close(&p);
	free(pages);
	return ret;
}

int proc_migrate(const struct hms_topology *topo, int pid,
		 const uint32_t *from, unsigned int nfrom,
		 const uint32_t *to, unsigned int nto, unsigned int flags,
		 enum format fmt)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	long moved;

	(void)topo;
	/* every mapping, in one call: the kernel walks them */
	moved = pidfd < 0 ? -1 : hms_migrate_process(pidfd, from, nfrom, to,
						     nto, flags);
	if (moved < 0) {
		errmsg("process %d: %s", pid, strerror(errno));
		if (pidfd >= 0)
			close(pidfd);
		return EXIT_RUNTIME;
	}
	close(pidfd);
	if (fmt == FMT_JSON)
		printf("{\"pid\": %d, \"moved\": %ld}\n", pid, moved);
	else
		printf("%ld pages moved\n", moved);
	return 0;
}

/* ------------------------------------------------------------------ */
/* many processes: the machine, or a cgroup                            */

struct pids {
	int *v;
	size_t n, cap;
};

static int pids_add(struct pids *l, int pid)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		int *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = pid;
	return 0;
}

static int pid_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* every process of /proc */
static int pids_all(struct pids *l)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char *end;
	long pid;

	if (!d) {
		errmsg("/proc: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	while ((e = readdir(d))) {
		pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid > INT32_MAX)
			continue;
		if (pids_add(l, (int)pid)) {
			closedir(d);
			errmsg("%s", strerror(ENOMEM));
			return EXIT_RUNTIME;
		}
	}
	closedir(d);
	return 0;
}

/* the processes of cgroup directory @dir and of its descendants */
static int pids_cgroup(struct pids *l, const char *dir)
{
	char path[4096];
	struct dirent *e;
	FILE *f;
	DIR *d;
	int pid, ret = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >=
	    sizeof(path)) {
		errmsg("%s: %s", dir, strerror(ENAMETOOLONG));
		return EXIT_RUNTIME;
	}
	f = fopen(path, "r");
	if (!f) {
		errmsg("%s: %s", path, strerror(errno));
		return EXIT_RUNTIME;
	}
	while (!ret && fscanf(f, "%d", &pid) == 1)
		if (pids_add(l, pid)) {
			errmsg("%s", strerror(ENOMEM));
			ret = EXIT_RUNTIME;
		}
	fclose(f);
	d = opendir(dir);
	if (!d) {
		errmsg("%s: %s", dir, strerror(errno));
		return EXIT_RUNTIME;
	}
	while (!ret && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     e->d_name) >= sizeof(path)) {
			errmsg("%s/%s: %s", dir, e->d_name,
			       strerror(ENAMETOOLONG));
			ret = EXIT_RUNTIME;
			break;
		}
		ret = pids_cgroup(l, path);
	}
	closedir(d);
	return ret;
}

/* one row: a process and its pages per target */
struct row {
	int pid;
	char comm[64];
	unsigned long *pages;	/* per target */
};

struct many_arg {
	const struct hms_topology *topo;
	unsigned long *pages;
};

static int many_chunk(struct proc *p, const struct mapping *map,
		      unsigned long addr, unsigned long n, void *arg)
{
	struct many_arg *a = arg;
	unsigned long i;

	(void)map;
	if (query_chunk(p, addr, n) < 0)
		return EXIT_RUNTIME;
	for (i = 0; i < n; i++) {
		int col = p->buf[i] >= 0 ? column_of(a->topo, p->buf[i]) : -1;

		if (col >= 0)
			a->pages[col]++;
	}
	return 0;
}

static void print_many(const struct hms_topology *topo, const char *cgroup,
		       const struct row *rows, size_t nrows,
		       const unsigned long *total, enum format fmt)
{
	unsigned int i, n = hms_topology_ntargets(topo);
	double mb = (double)sysconf(_SC_PAGESIZE) / (1024 * 1024), sum;
	char name[96];
	size_t r;

	if (fmt == FMT_JSON) {
		printf("{\"cgroup\": ");
		if (cgroup)
			json_str(cgroup);
		else
			printf("null");
		printf(", \"page_size\": %ld, \"targets\": [",
		       sysconf(_SC_PAGESIZE));
		for (i = 0; i < n; i++) {
			const struct hms_target *t = hms_topology_target(topo, i);

			printf("%s{", i ? ", " : "");
			json_target(t);
			putchar('}');
		}
		printf("],\n \"processes\": [");
		for (r = 0; r < nrows; r++) {
			printf("%s\n  {\"pid\": %d, \"comm\": \"%s\", "
			       "\"pages\": [", r ? "," : "", rows[r].pid,
			       rows[r].comm);
			for (i = 0; i < n; i++)
				printf("%s%lu", i ? ", " : "",
				       rows[r].pages[i]);
			printf("]}");
		}
		printf("],\n \"total\": [");
		for (i = 0; i < n; i++)
			printf("%s%lu", i ? ", " : "", total[i]);
		printf("]}\n");
		return;
	}
	if (cgroup)
		printf("Per-target process memory usage (in MBs) for cgroup "
		       "%s\n", cgroup);
	else
		printf("Per-target process memory usage (in MBs)\n");
	print_head(topo, 24, "PID", 1);
	for (r = 0; r < nrows; r++) {
		snprintf(name, sizeof(name), "%d (%s)", rows[r].pid,
			 rows[r].comm);
		printf("%-24.24s", name);
		for (i = 0, sum = 0; i < n; i++) {
			printf(" %15.2f", (double)rows[r].pages[i] * mb);
			sum += (double)rows[r].pages[i] * mb;
		}
		printf(" %15.2f\n", sum);
	}
	print_rule(24, n, 1);
	printf("%-24s", "Total");
	for (i = 0, sum = 0; i < n; i++) {
		printf(" %15.2f", (double)total[i] * mb);
		sum += (double)total[i] * mb;
	}
	printf(" %15.2f\n", sum);
}

int proc_stat_many(const struct hms_topology *topo, const char *cgroup,
		   enum format fmt)
{
	unsigned int i, n = hms_topology_ntargets(topo);
	unsigned long *total = calloc(n ? n : 1, sizeof(*total));
	char dir[4096];
	struct pids l = { 0 };
	struct row *rows = NULL;
	size_t r, nrows = 0;
	int ret;

	if (!total) {
		errmsg("%s", strerror(ENOMEM));
		return EXIT_RUNTIME;
	}
	if (cgroup) {
		/* a path under the cgroup2 mount, or an absolute one */
		if ((size_t)snprintf(dir, sizeof(dir), "%s%s", cgroup[0] == '/' ?
				     "" : "/sys/fs/cgroup/", cgroup) >=
		    sizeof(dir)) {
			errmsg("%s: %s", cgroup, strerror(ENAMETOOLONG));
			free(total);
			return EXIT_RUNTIME;
		}
		ret = pids_cgroup(&l, dir);
	} else {
		ret = pids_all(&l);
	}
	if (!ret && l.n) {
		qsort(l.v, l.n, sizeof(*l.v), pid_cmp);
		rows = calloc(l.n, sizeof(*rows));
		if (!rows) {
			errmsg("%s", strerror(ENOMEM));
			ret = EXIT_RUNTIME;
		}
	}
	for (r = 0; !ret && r < l.n; r++) {
		struct many_arg a = { .topo = topo };
		struct proc p;
		int err;

		if (r && l.v[r] == l.v[r - 1])
			continue;	/* listed twice: a cgroup migration */
		a.pages = calloc(n ? n : 1, sizeof(*a.pages));
		if (!a.pages) {
			errmsg("%s", strerror(ENOMEM));
			ret = EXIT_RUNTIME;
			break;
		}
		err = proc_open(&p, l.v[r], 1);
		if (!err)
			err = for_each_chunk(&p, many_chunk, &a);
		if (err && (err < 0 || skipped(errno))) {
			/* gone meanwhile, a kernel thread, not ours */
			free(a.pages);
		} else if (err) {
			free(a.pages);
			ret = err;
		} else {
			rows[nrows].pid = p.pid;
			memcpy(rows[nrows].comm, p.comm, sizeof(p.comm));
			rows[nrows].pages = a.pages;
			for (i = 0; i < n; i++)
				total[i] += a.pages[i];
			nrows++;
		}
		proc_close(&p);
	}
	if (!ret)
		print_many(topo, cgroup, rows, nrows, total, fmt);
	for (r = 0; r < nrows; r++)
		free(rows[r].pages);
	free(rows);
	free(l.v);
	free(total);
	return ret;
}
