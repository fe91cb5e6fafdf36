// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * error.c - default error hooks. Both are weak: a program that defines
 * hms_error() or hms_warn() replaces them (like numa_error/numa_warn).
 * They print only when the environment has HMS_DEBUG set, and always
 * preserve errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int debug(void)
{
	static int cached = -1;
	int d = __atomic_load_n(&cached, __ATOMIC_RELAXED);

	if (d < 0) {
		d = !!getenv("HMS_DEBUG");
		__atomic_store_n(&cached, d, __ATOMIC_RELAXED);
	}
	return d;
}

__attribute__((weak)) void hms_error(const char *where)
{
	int e = errno;

	if (debug())
		fprintf(stderr, "libhms: %s: %s\n", where, strerror(e));
	errno = e;
}

__attribute__((weak)) void hms_warn(int num, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	(void)num;
	if (debug()) {
		va_start(ap, fmt);
		fputs("libhms: warning: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	errno = e;
}
