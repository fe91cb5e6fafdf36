/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hbtest.h - shared by the guest test helpers (hbind-do, hbind-bench,
 * fault-bench, devtest, dmirror-cmp, lru-batch, hbind-race, ...): the
 * FAIL/CHECK/SKIP exits, raw system call wrappers (musl has no libnuma and
 * no <numaif.h>), the mempolicy ABI constants, errno names, HMS sysfs
 * lookups, timing, CPU pinning and the table-driven command line parser.
 */
#ifndef HBTEST_H
#define HBTEST_H

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * The hbind ABI comes from the repository's uapi/ directory, the single
 * source; the Makefile puts the kernel's linux/ and asm/ headers on musl's
 * include path (-idirafter), which <linux/hbind.h> needs.
 */
#include <linux/hbind.h>

/*
 * The one definition of the number for the test helpers, until the C
 * library's <sys/syscall.h> has it: kernel-patches/ gives hbind 500 on
 * x86_64, i386 and in the generic table (provisional; the kernel says so in
 * /sys/bus/hms/hbind_syscall).
 */
#ifndef __NR_hbind
#define __NR_hbind 500
#endif

/*
 * A helper's verdicts: FAIL prints "FAIL: what (line N)" on stderr and
 * exits 1; SKIP prints "SKIP: why" and exits 77, which the suites report as
 * a skipped test (only for a missing device or system call).
 */
#define FAIL(...) do {							\
	fprintf(stderr, "FAIL: " __VA_ARGS__);				\
	fprintf(stderr, " (line %d)\n", __LINE__);			\
	exit(1);							\
} while (0)
#define CHECK(c, ...) do { if (!(c)) FAIL(__VA_ARGS__); } while (0)
#define SKIP(...) do {							\
	fprintf(stderr, "SKIP: " __VA_ARGS__);				\
	fputc('\n', stderr);						\
	exit(77);							\
} while (0)

/* <linux/mempolicy.h> values (stable ABI; musl does not ship the header) */
#define HB_MPOL_DEFAULT			0
#define HB_MPOL_PREFERRED		1
#define HB_MPOL_BIND			2
#define HB_MPOL_INTERLEAVE		3
#define HB_MPOL_LOCAL			4
#define HB_MPOL_PREFERRED_MANY		5
#define HB_MPOL_WEIGHTED_INTERLEAVE	6
#define HB_MPOL_F_STATIC_NODES		(1 << 15)
#define HB_MPOL_F_RELATIVE_NODES	(1 << 14)
#define HB_MPOL_F_NUMA_BALANCING	(1 << 13)
#define HB_MPOL_MODE_FLAGS		(HB_MPOL_F_STATIC_NODES | \
					 HB_MPOL_F_RELATIVE_NODES | \
					 HB_MPOL_F_NUMA_BALANCING)
#define HB_MPOL_F_NODE			(1 << 0)
#define HB_MPOL_F_ADDR			(1 << 1)
#define HB_MPOL_F_MEMS_ALLOWED		(1 << 2)
#define HB_MPOL_MF_STRICT		(1 << 0)
#define HB_MPOL_MF_MOVE			(1 << 1)
#define HB_MPOL_MF_MOVE_ALL		(1 << 2)

/* nodemasks passed to the kernel: 64 nodes, maxnode = 65 (get_nodes' -1) */
#define HB_MAXNODE	65

static inline long hb_sys_hbind(unsigned long start, unsigned long len,
				const uint32_t *targets, unsigned int ntargets,
				uint32_t *atoms, unsigned int natoms)
{
	return syscall(__NR_hbind, start, len, targets, ntargets, atoms, natoms);
}

/* hbind(2); @start may be an address (unsigned long) or a pointer */
#define sys_hbind(start, len, targets, ntargets, atoms, natoms)		\
	hb_sys_hbind((unsigned long)(start), len, targets, ntargets,	\
		     atoms, natoms)

/*
 * An INTERLEAVE atom (1 + HBIND_INTERLEAVE_NDWORDS dwords at @a): @flags,
 * @initiator, and a pointer to the caller's weights, one per target (NULL
 * with HBIND_IL_AUTO).
 */
static inline void hb_il_atom(uint32_t *a, uint32_t flags, uint32_t initiator,
			      const uint32_t *weights)
{
	uint64_t w = (uintptr_t)weights;

	a[0] = HBIND_ATOM(HBIND_CMD_INTERLEAVE, HBIND_INTERLEAVE_NDWORDS);
	a[1] = flags;
	a[2] = initiator;
	a[3] = (uint32_t)w;
	a[4] = (uint32_t)(w >> 32);
}

static inline long sys_mbind(unsigned long start, unsigned long len,
			     int mode, const unsigned long *nmask,
			     unsigned long maxnode, unsigned int flags)
{
	return syscall(SYS_mbind, start, len, mode, nmask, maxnode, flags);
}

static inline long sys_get_mempolicy(int *mode, unsigned long *nmask,
				     unsigned long maxnode, unsigned long addr,
				     unsigned long flags)
{
	return syscall(SYS_get_mempolicy, mode, nmask, maxnode, addr, flags);
}

static inline long sys_set_mempolicy(int mode, const unsigned long *nmask,
				     unsigned long maxnode)
{
	return syscall(SYS_set_mempolicy, mode, nmask, maxnode);
}

static inline long sys_move_pages(int pid, unsigned long count, void **pages,
				  const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, pid, count, pages, nodes, status, flags);
}

static inline long sys_migrate_pages(int pid, unsigned long maxnode,
				     const unsigned long *from,
				     const unsigned long *to)
{
	return syscall(SYS_migrate_pages, pid, maxnode, from, to);
}

/* errno as its symbolic name ("EINVAL"); numbers for the rare others */
static inline const char *hb_errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case ENOSYS: return "ENOSYS";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EOVERFLOW: return "EOVERFLOW";
	case ENODATA: return "ENODATA";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

/* read one integer from a sysfs file; -1 on any error */
static inline long hb_read_long(const char *path, long *val)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%ld", val) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

#define HB_HMS_DEVICES "/sys/bus/hms/devices"

/*
 * The uid of the HMS target of NUMA node @nid (v1-<uid>-target/nid), or -1
 * when the bus or that target does not exist.
 */
static inline long hb_uid_of_node(int nid)
{
	DIR *d = opendir(HB_HMS_DEVICES);
	struct dirent *de;
	char path[512];
	long uid = -1, v;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (strncmp(de->d_name, "v1-", 3) || n < 7 ||
		    strcmp(de->d_name + n - 7, "-target"))
			continue;
		snprintf(path, sizeof(path), HB_HMS_DEVICES "/%s/nid", de->d_name);
		if (hb_read_long(path, &v) || v != nid)
			continue;
		snprintf(path, sizeof(path), HB_HMS_DEVICES "/%s/uid", de->d_name);
		if (!hb_read_long(path, &v)) {
			uid = v;
			break;
		}
	}
	closedir(d);
	return uid;
}

/* the node of the target with uid @uid, -2 if there is none */
static inline int hb_node_of_uid(long uid)
{
	DIR *d = opendir(HB_HMS_DEVICES);
	struct dirent *de;
	char path[512];
	long v;
	int nid = -2;

	if (!d)
		return -2;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (strncmp(de->d_name, "v1-", 3) || n < 7 ||
		    strcmp(de->d_name + n - 7, "-target"))
			continue;
		snprintf(path, sizeof(path), HB_HMS_DEVICES "/%s/uid", de->d_name);
		if (hb_read_long(path, &v) || v != uid)
			continue;
		snprintf(path, sizeof(path), HB_HMS_DEVICES "/%s/nid", de->d_name);
		if (!hb_read_long(path, &v))
			nid = (int)v;
		break;
	}
	closedir(d);
	return nid;
}

static inline uint64_t hb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline int hb_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* median of @n values (sorts them) */
static inline uint64_t hb_median(uint64_t *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, n, sizeof(*v), hb_cmp_u64);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Pin the calling thread to CPU @cpu, or let it run on every CPU when @cpu
 * is negative; 0, or -1 and errno, like sched_setaffinity(). The raw call
 * takes a mask of HB_NR_CPUS bits (CPU_SETSIZE), so that the includer
 * needs no _GNU_SOURCE for cpu_set_t.
 */
#define HB_NR_CPUS	1024
#define HB_LONG_BITS	(8 * (int)sizeof(unsigned long))

static inline int hb_pin(int cpu)
{
	unsigned long mask[HB_NR_CPUS / HB_LONG_BITS];

	memset(mask, cpu < 0 ? 0xff : 0, sizeof(mask));
	if (cpu >= 0 && cpu < HB_NR_CPUS)
		mask[cpu / HB_LONG_BITS] |= 1UL << (cpu % HB_LONG_BITS);
	return syscall(SYS_sched_setaffinity, 0, sizeof(mask), mask) ? -1 : 0;
}

/* pin to CPU @cpu or FAIL: "pin to CPU N: why" */
#define HB_PIN(cpu) do {						\
	int hb_cpu_ = (cpu);						\
									\
	CHECK(!hb_pin(hb_cpu_), "pin to CPU %d: %s", hb_cpu_,		\
	      strerror(errno));						\
} while (0)

/* a usage error: "PROG: message" on stderr, exit 2 */
static inline void __attribute__((noreturn, format(printf, 2, 3)))
hb_die(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* @s as a whole number (strtoul base 0), else hb_die("bad WHAT 's'") */
static inline unsigned long hb_parse_ul(const char *prog, const char *s,
					const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end)
		hb_die(prog, "bad %s '%s'", what, s);
	return v;
}

/*
 * "N,N,...": up to @max numbers (strtol base 0) into @v; their count, or -1
 * for anything else (an empty item, a stray character, more than @max).
 */
static inline int hb_parse_list(const char *s, long *v, int max)
{
	char *end;
	int n = 0;

	while (n < max) {
		v[n++] = strtol(s, &end, 0);
		if (end == s || (*end && *end != ','))
			return -1;
		if (!*end)
			return n;
		s = end + 1;
	}
	return -1;
}

/*
 * The command line: a table of struct hb_opt, ended by { 0 }, drives
 * getopt() (options come first: parsing stops at the first non-option)
 * and the options part of the usage text. Each option is acted on when it
 * is met, in command line order.
 */
enum hb_opt_kind {
	HB_OPT_HELP,	/* no argument: the usage text on stdout, exit 0 */
	HB_OPT_INT,	/* atoi() into the int */
	HB_OPT_LONG,	/* atol() into the long */
	HB_OPT_ULONG,	/* strtoul(, NULL, 0) into the unsigned long */
	HB_OPT_STR,	/* the argument itself into the const char * */
	HB_OPT_PIN,	/* pin to CPU N now; a bad N, a failed pin: exit 2 */
	HB_OPT_FN,	/* .fn(argument) */
	HB_OPT_FLAG,	/* no argument: 1 into the int */
};

struct hb_opt {
	char name;			/* the option letter */
	enum hb_opt_kind kind;
	void *dest;			/* INT, LONG, ULONG, STR: where to */
	void (*fn)(const char *arg);
	const char *arg;		/* its argument in the usage text */
	const char *help;		/* usage text; '\n' between lines */
};

struct hb_cli {
	const char *prog;
	const char *synopsis;	/* "PROG ARGS..."; '\n' between forms */
	const struct hb_opt *opts;
	void (*more)(FILE *f);	/* the rest of the usage text, or NULL */
};

/*
 * One row of a usage table: "  LEFT  HELP" with HELP at column @width + 4;
 * a longer LEFT gets a line of its own, HELP's further lines are indented
 * to that column.
 */
static inline void hb_usage_row(FILE *f, int width, const char *left,
				const char *help)
{
	const char *nl;

	if ((int)strlen(left) > width) {
		fprintf(f, "  %s\n", left);
		left = "";
	}
	for (;;) {
		nl = strchr(help, '\n');
		fprintf(f, "  %-*s  %.*s\n", width, left,
			nl ? (int)(nl - help) : (int)strlen(help), help);
		if (!nl)
			break;
		help = nl + 1;
		left = "";
	}
}

static inline void hb_usage(const struct hb_cli *cli, FILE *f)
{
	const struct hb_opt *o;
	const char *s = cli->synopsis, *nl;
	char left[64];
	int width = 0;

	fputs("usage: ", f);
	while ((nl = strchr(s, '\n'))) {
		fprintf(f, "%.*s\n       ", (int)(nl - s), s);
		s = nl + 1;
	}
	fprintf(f, "%s\n", s);
	for (o = cli->opts; o->name; o++) {
		int n = 2 + (o->arg ? 1 + (int)strlen(o->arg) : 0);

		if (n > width)
			width = n;
	}
	for (o = cli->opts; o->name; o++) {
		snprintf(left, sizeof(left), "-%c%s%s", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		hb_usage_row(f, width, left, o->help);
	}
	if (cli->more)
		cli->more(f);
}

/* the usage text on stderr, exit 2 */
static inline void __attribute__((noreturn))
hb_usage_exit(const struct hb_cli *cli)
{
	hb_usage(cli, stderr);
	exit(2);
}

/* parse the options; returns the index of the first other argument */
static inline int hb_getopt(const struct hb_cli *cli, int argc, char **argv)
{
	const struct hb_opt *o;
	char optstr[128], *s = optstr;
	int c, cpu;

	*s++ = '+';
	for (o = cli->opts; o->name && s < optstr + sizeof(optstr) - 3; o++) {
		*s++ = o->name;
		if (o->kind != HB_OPT_HELP && o->kind != HB_OPT_FLAG)
			*s++ = ':';
	}
	*s = '\0';
	while ((c = getopt(argc, argv, optstr)) != -1) {
		for (o = cli->opts; o->name && o->name != c; o++)
			;
		if (!o->name)
			hb_usage_exit(cli);
		switch (o->kind) {
		case HB_OPT_HELP:
			hb_usage(cli, stdout);
			exit(0);
		case HB_OPT_INT:
			*(int *)o->dest = atoi(optarg);
			break;
		case HB_OPT_LONG:
			*(long *)o->dest = atol(optarg);
			break;
		case HB_OPT_ULONG:
			*(unsigned long *)o->dest = strtoul(optarg, NULL, 0);
			break;
		case HB_OPT_STR:
			*(const char **)o->dest = optarg;
			break;
		case HB_OPT_PIN:
			cpu = (int)hb_parse_ul(cli->prog, optarg, "cpu");
			if (hb_pin(cpu))
				hb_die(cli->prog, "sched_setaffinity(%d): %s",
				       cpu, strerror(errno));
			break;
		case HB_OPT_FN:
			o->fn(optarg);
			break;
		case HB_OPT_FLAG:
			*(int *)o->dest = 1;
			break;
		}
	}
	return optind;
}

#endif /* HBTEST_H */
