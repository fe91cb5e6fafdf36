/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hbtest.h - shared by the guest test helpers (hbind-do, hbind-bench,
 * fault-bench, devtest, dmirror-cmp): the FAIL/CHECK/SKIP exits, raw system
 * call wrappers (musl has no libnuma and no <numaif.h>), the mempolicy ABI
 * constants, errno names, HMS sysfs lookups and timing.
 */
#ifndef HBTEST_H
#define HBTEST_H

#include <dirent.h>
#include <errno.h>
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

#endif /* HBTEST_H */
