/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * harness.h - the small test harness of the libhms host unit tests.
 *
 * Each test program (test_<area>.c) lists its tests with TESTS(T(fn,
 * "what must hold, as a sentence"), ...); harness.c runs them:
 *
 *   test_<area> [--tap] FIXTURES_DIR [HMSCTL]
 *
 * FIXTURES_DIR holds the trees built by tests/fixtures/mkfixture.sh (one
 * directory per fixture name); HMSCTL is the hmsctl binary for the CLI
 * tests (they are skipped without it). Output: with --tap, TAP (plan
 * first); otherwise the failures and a last line "N passed, N failed"
 * (", N skipped" if any). Exit status 0 when nothing failed.
 */
#ifndef HMS_TEST_HARNESS_H
#define HMS_TEST_HARNESS_H

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "hms.h"

struct test {
	const char *name;	/* a specification: what must hold */
	void (*fn)(void);
};

#define T(fn, spec)	{ spec, fn }
#define TESTS(...)							\
	const struct test tests[] = { __VA_ARGS__ };			\
	const unsigned int ntests = sizeof(tests) / sizeof(tests[0])

extern const struct test tests[];
extern const unsigned int ntests;

extern const char *fixtures;	/* FIXTURES_DIR */
extern const char *hmsctl;	/* HMSCTL or NULL */
extern char tmpdir[PATH_MAX];	/* private, removed at exit */
extern int cur_failed, cur_skipped;
extern char skip_reason[256];

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			cur_failed++;					\
			printf("# %s:%d: check failed: %s\n", __FILE__,	\
			       __LINE__, #cond);			\
			printf("#   ");					\
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	CHECK((uint64_t)(a) == (uint64_t)(b), "%s = %" PRIu64 ", expected %" PRIu64, \
	      #a, (uint64_t)(a), (uint64_t)(b))

/* a call that must fail with this errno */
#define CHECK_ERR(call, bad, err)					\
	do {								\
		errno = 0;						\
		CHECK((call) == (bad) && errno == (err),		\
		      "%s: errno %d (%s), expected %s", #call, errno,	\
		      strerror(errno), #err);				\
	} while (0)

#define SKIP(...)							\
	do {								\
		cur_skipped = 1;					\
		snprintf(skip_reason, sizeof(skip_reason), __VA_ARGS__); \
		return;							\
	} while (0)

/* The libhms root of fixture name (4 rotating buffers). */
char *fxroot(const char *name);
/* Load fixture name; on failure count a failure and return NULL. */
struct hms_topology *load(const char *name);

/* hmsctl runs */
struct run {
	int status;
	char out[65536];
	char err[4096];
};

/*
 * Run hmsctl with the NULL-terminated arguments, HMS_SYSFS_ROOT set to
 * envroot (unset when NULL). Returns 0 when it ran.
 */
int run(struct run *r, const char *envroot, ...);

#define NEED_HMSCTL()							\
	do {								\
		if (!hmsctl)						\
			SKIP("no hmsctl binary given");			\
	} while (0)

#endif /* HMS_TEST_HARNESS_H */
