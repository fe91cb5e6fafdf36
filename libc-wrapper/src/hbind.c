// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hbind.c - the hbind() system call wrapper and the helpers that build its
 * atom stream (see <linux/hbind.h>, the single source of the ABI).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/hbind.h>

#include "internal.h"

/*
 * Until the C library knows the call, the number the kernel patch gives it
 * (provisional): 500 on x86-64, i386, arm and the architectures of the
 * generic table. Elsewhere every call is ENOSYS rather than a guess.
 */
#ifndef __NR_hbind
# if (defined(__x86_64__) && !defined(__ILP32__)) || defined(__i386__) || \
	defined(__aarch64__) || (defined(__arm__) && defined(__ARM_EABI__)) || \
	defined(__riscv) || defined(__loongarch__)
#  define __NR_hbind 500
# endif
#endif

_Static_assert(HMS_BIND_STRICT == HBIND_BIND_STRICT, "hms.h out of sync");
_Static_assert(HMS_MIGRATE_ALL == HBIND_MIGRATE_ALL, "hms.h out of sync");
_Static_assert(HMS_INTERLEAVE_MOVE == HBIND_IL_MOVE, "hms.h out of sync");
_Static_assert(sizeof(unsigned int) == sizeof(__u32), "weights are __u32");
_Static_assert(HMS_WEIGHT_MAX == HBIND_IL_WEIGHT_MAX, "hms.h out of sync");
_Static_assert(HMS_QUERY_NOT_PRESENT == -ENOENT, "hms.h out of sync");
_Static_assert(HMS_QUERY_NO_MEMORY == -EFAULT, "hms.h out of sync");

static long raw_hbind(unsigned long start, unsigned long len,
		      const uint32_t *targets, unsigned int ntargets,
		      uint32_t *atoms, unsigned int natoms)
{
#ifdef __NR_hbind
	return syscall(__NR_hbind, start, len, targets, ntargets, atoms, natoms);
#else
	(void)start; (void)len; (void)targets; (void)ntargets;
	(void)atoms; (void)natoms;
	errno = ENOSYS;
	return -1;
#endif
}

/* -1 unknown, 0 absent, 1 present */
static int has_hbind = -1;

/*
 * The kernel says which number hbind() has, in /sys/bus/hms/hbind_syscall
 * (the bus directory may be $HMS_SYSFS_ROOT instead). The call is issued
 * only when that is the number this library was built for: a kernel without
 * hbind() may give the number to another call (463, the number of early
 * versions of the series, is setxattrat() since Linux 6.13).
 */
static int kernel_has_hbind(void)
{
#ifdef __NR_hbind
	const char *root = secure_getenv("HMS_SYSFS_ROOT");
	char path[4096], buf[32], *end;
	ssize_t n;
	long nr;
	int fd;

	if (!root || !*root)
		root = HMS_SYSFS_ROOT;
	if ((size_t)snprintf(path, sizeof(path), "%s/hbind_syscall", root) >=
	    sizeof(path))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	errno = 0;
	nr = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return 0;
	return nr == __NR_hbind;
#else
	return 0;
#endif
}

int hms_has_hbind(void)
{
	int v = __atomic_load_n(&has_hbind, __ATOMIC_RELAXED);

	if (v < 0) {
		int saved = errno;

		v = kernel_has_hbind();
		__atomic_store_n(&has_hbind, v, __ATOMIC_RELAXED);
		errno = saved;
	}
	return v;
}

long hbind(unsigned long start, unsigned long len, const uint32_t *targets,
	   unsigned int ntargets, uint32_t *atoms, unsigned int natoms)
{
	if (!hms_has_hbind()) {
		errno = ENOSYS;
		return -1;
	}
	return raw_hbind(start, len, targets, ntargets, atoms, natoms);
}

static size_t page_size(void)
{
	static size_t cached;
	size_t ps = __atomic_load_n(&cached, __ATOMIC_RELAXED);

	if (!ps) {
		long v = sysconf(_SC_PAGESIZE);

		ps = v > 0 ? (size_t)v : 4096;
		__atomic_store_n(&cached, ps, __ATOMIC_RELAXED);
	}
	return ps;
}

/* Widen [addr, addr+len) to whole pages. */
static int widen(const void *addr, size_t len, unsigned long *start,
		 unsigned long *wlen)
{
	unsigned long ps = page_size(), a = (unsigned long)addr;
	unsigned long s = a & ~(ps - 1), e;

	if (len > ~0UL - a - ps) {
		errno = EINVAL;
		return -1;
	}
	e = (a + len + ps - 1) & ~(ps - 1);
	*start = s;
	*wlen = len ? e - s : 0;
	return 0;
}

size_t hms_npages(const void *addr, size_t len)
{
	unsigned long s, l;

	if (widen(addr, len, &s, &l))
		return 0;
	return l / page_size();
}

static long call(const void *addr, size_t len, const uint32_t *targets,
		 unsigned int n, uint32_t *atoms, unsigned int natoms)
{
	unsigned long s, l;

	if (widen(addr, len, &s, &l))
		return -1;
	return hbind(s, l, targets, n, atoms, natoms);
}

int hms_bind(void *addr, size_t len, const uint32_t *targets, unsigned int n,
	     unsigned int flags)
{
	uint32_t atoms[1 + HBIND_BIND_NDWORDS] = {
		HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS), flags,
	};

	return (int)call(addr, len, targets, n, atoms, 2);
}

long hms_migrate(void *addr, size_t len, const uint32_t *targets,
		 unsigned int n, unsigned int flags)
{
	uint32_t atoms[1 + HBIND_MIGRATE_NDWORDS] = {
		HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), flags, 0,
	};

	if (call(addr, len, targets, n, atoms, 3) < 0)
		return -1;
	return (long)atoms[2];
}

int hms_query(const void *addr, size_t len, int32_t *out)
{
	uint64_t p = (uintptr_t)out;
	uint32_t atoms[1 + HBIND_QUERY_NDWORDS] = {
		HBIND_ATOM(HBIND_CMD_QUERY, HBIND_QUERY_NDWORDS), 0,
		(uint32_t)p, (uint32_t)(p >> 32),
	};

	return (int)call(addr, len, NULL, 0, atoms, 4);
}

int hms_query_pid(int pidfd, unsigned long addr, size_t len, int32_t *out)
{
	uint64_t p = (uintptr_t)out;
	uint32_t atoms[2 + HBIND_PROCESS_NDWORDS + HBIND_QUERY_NDWORDS] = {
		HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS), 0,
		(uint32_t)pidfd,
		HBIND_ATOM(HBIND_CMD_QUERY, HBIND_QUERY_NDWORDS), 0,
		(uint32_t)p, (uint32_t)(p >> 32),
	};

	return (int)call((const void *)addr, len, NULL, 0, atoms, 7);
}

long hms_migrate_pid(int pidfd, unsigned long addr, size_t len,
		     const uint32_t *targets, unsigned int n,
		     unsigned int flags)
{
	uint32_t atoms[2 + HBIND_PROCESS_NDWORDS + HBIND_MIGRATE_NDWORDS] = {
		HBIND_ATOM(HBIND_CMD_PROCESS, HBIND_PROCESS_NDWORDS), 0,
		(uint32_t)pidfd,
		HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), flags, 0,
	};

	if (call((const void *)addr, len, targets, n, atoms, 6) < 0)
		return -1;
	return (long)atoms[5];
}

long hms_migrate_process(int pidfd, const uint32_t *from, unsigned int nfrom,
			 const uint32_t *to, unsigned int nto,
			 unsigned int flags)
{
	uint32_t uids[HBIND_MAX_TARGETS];
	uint32_t atoms[2 + HBIND_PROCESS_NDWORDS + HBIND_MIGRATE_FROM_NDWORDS];
	unsigned int na = 0;

	if ((flags & ~HMS_MIGRATE_ALL) || !nto || nfrom > HBIND_MAX_TARGETS ||
	    nto > HBIND_MAX_TARGETS - nfrom || pidfd < -1 ||
	    (nfrom && !from) || !to) {
		errno = EINVAL;
		return -1;
	}
	if (nfrom)
		memcpy(uids, from, nfrom * sizeof(*uids));
	memcpy(uids + nfrom, to, nto * sizeof(*uids));
	if (pidfd >= 0) {
		atoms[na++] = HBIND_ATOM(HBIND_CMD_PROCESS,
					 HBIND_PROCESS_NDWORDS);
		atoms[na++] = 0;
		atoms[na++] = (uint32_t)pidfd;
	}
	atoms[na++] = HBIND_ATOM(HBIND_CMD_MIGRATE, nfrom ?
				 HBIND_MIGRATE_FROM_NDWORDS :
				 HBIND_MIGRATE_NDWORDS);
	atoms[na++] = flags | HBIND_MIGRATE_WHOLE |
		      (nfrom ? HBIND_MIGRATE_FROM : 0);
	atoms[na++] = 0;
	if (nfrom)
		atoms[na++] = nfrom;
	if (hbind(0, 0, uids, nfrom + nto, atoms, na) < 0)
		return -1;
	return (long)atoms[pidfd >= 0 ? 5 : 2];
}

int hms_default(void *addr, size_t len)
{
	uint32_t atom = HBIND_ATOM(HBIND_CMD_DEFAULT, HBIND_DEFAULT_NDWORDS);

	return (int)call(addr, len, NULL, 0, &atom, 1);
}

/*
 * The INTERLEAVE atom: caller weights (each 1 to HMS_WEIGHT_MAX) or, when
 * weights is NULL, bandwidth weights from the initiator. Returns the
 * number of dwords, or 0 with errno EINVAL.
 */
static unsigned int il_atom(uint32_t *atoms, unsigned int n,
			    const unsigned int *weights, uint32_t initiator,
			    uint32_t flags)
{
	uint64_t w = (uintptr_t)weights;

	if (n > HBIND_MAX_TARGETS) {
		errno = EINVAL;
		return 0;
	}
	atoms[0] = HBIND_ATOM(HBIND_CMD_INTERLEAVE, HBIND_INTERLEAVE_NDWORDS);
	atoms[1] = flags;
	atoms[2] = 0;
	/* the kernel reads n weights from here; unsigned int is a __u32 */
	atoms[3] = (uint32_t)w;
	atoms[4] = (uint32_t)(w >> 32);
	if (!weights) {
		atoms[1] |= HBIND_IL_AUTO;
		if (initiator != HMS_INITIATOR_CURRENT) {
			atoms[1] |= HBIND_IL_INITIATOR;
			atoms[2] = initiator;
		}
	}
	return 1 + HBIND_INTERLEAVE_NDWORDS;
}

int hms_interleave(void *addr, size_t len, const uint32_t *targets,
		   unsigned int n, const unsigned int *weights,
		   uint32_t initiator, unsigned int flags)
{
	uint32_t atoms[1 + HBIND_INTERLEAVE_NDWORDS];
	unsigned int natoms;

	if (flags & ~HMS_INTERLEAVE_MOVE) {
		errno = EINVAL;
		return -1;
	}
	natoms = il_atom(atoms, n, weights, initiator, flags);
	if (!natoms)
		return -1;
	return (int)call(addr, len, targets, n, atoms, natoms);
}

int hms_set_membind(const uint32_t *targets, unsigned int n,
		    unsigned int flags)
{
	uint32_t atoms[1 + HBIND_BIND_NDWORDS] = {
		HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS),
		flags | HBIND_BIND_TASK,
	};

	if (flags & ~HMS_BIND_STRICT) {
		errno = EINVAL;
		return -1;
	}
	return (int)hbind(0, 0, targets, n, atoms, 2);
}

int hms_set_interleave(const uint32_t *targets, unsigned int n,
		       const unsigned int *weights, uint32_t initiator)
{
	uint32_t atoms[1 + HBIND_INTERLEAVE_NDWORDS];
	unsigned int natoms;

	natoms = il_atom(atoms, n, weights, initiator, HBIND_IL_TASK);
	if (!natoms)
		return -1;
	return (int)hbind(0, 0, targets, n, atoms, natoms);
}

int hms_set_default(void)
{
	uint32_t atom = HBIND_ATOM(HBIND_CMD_TASK_DEFAULT,
				   HBIND_TASK_DEFAULT_NDWORDS);

	return (int)hbind(0, 0, NULL, 0, &atom, 1);
}

#define ALLOC_VALID	(HMS_ALLOC_STRICT | HMS_ALLOC_POPULATE | HMS_ALLOC_MIGRATE)

void *hms_alloc_on_target(size_t size, uint32_t uid, unsigned int flags)
{
	size_t ps = page_size(), i;
	char *p;
	int e;

	if (!size || (flags & ~ALLOC_VALID) || uid > INT32_MAX) {
		errno = EINVAL;
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (hms_bind(p, size, &uid, 1,
		     (flags & HMS_ALLOC_STRICT) ? HMS_BIND_STRICT : 0))
		goto fail;
	if (flags & (HMS_ALLOC_POPULATE | HMS_ALLOC_MIGRATE))
		for (i = 0; i < size; i += ps)
			((volatile char *)p)[i] = 0;
	if ((flags & HMS_ALLOC_MIGRATE) && hms_migrate(p, size, &uid, 1, 0) < 0)
		goto fail;
	return p;
fail:
	e = errno;
	munmap(p, size);
	errno = e;
	return NULL;
}

int hms_free(void *ptr, size_t size)
{
	if (!ptr)
		return 0;
	return munmap(ptr, size);
}
