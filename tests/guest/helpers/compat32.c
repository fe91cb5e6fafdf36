// SPDX-License-Identifier: GPL-2.0
/*
 * compat32 - hbind() from a 32-bit program on the 64-bit guest kernel
 * (IA32_EMULATION): every command works there as in a 64-bit caller, and a
 * pointer in the stream (a QUERY buffer, INTERLEAVE weights) whose high word
 * is set fails with EINVAL, changing nothing, instead of being truncated.
 *
 * Built static for i386 (i686-linux-gnu-gcc, or gcc -m32). Each case
 * compares hbind with mbind()/move_pages() on the same kind of range:
 *
 *   compat32 CASE HOME OTHER
 *
 * CASE: abi, bind, migrate, query, default, stream, highword, interleave;
 * HOME is the memory node of the CPU the program runs on, OTHER another
 * memory node.
 * Prints one line per check; exits 0 when all pass, 1 on a failure, 77
 * when the kernel has no hbind().
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hbtest.h"

#define NPAGES	16

static size_t page_size;
static int failures;

#define check(cond, ...)						\
	do {								\
		if (cond) {						\
			printf("ok: ");					\
		} else {						\
			printf("FAIL: ");				\
			failures++;					\
		}							\
		printf(__VA_ARGS__);					\
		putchar('\n');						\
	} while (0)

static char *map_pages(void)
{
	void *p = mmap(NULL, NPAGES * page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static void touch(char *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i * page_size] = (char)i;
}

static long hbind(void *p, unsigned long len, const uint32_t *t,
		  unsigned int nt, uint32_t *a, unsigned int na)
{
	return sys_hbind((unsigned long)p, len, t, nt, a, na);
}

/* a nodemask of one node, sized for the 64-node maxnode */
static void one_node(unsigned long *mask, int node)
{
	memset(mask, 0, 4 * sizeof(*mask));
	mask[node / (8 * sizeof(*mask))] |= 1UL << (node % (8 * sizeof(*mask)));
}

static long mbind1(void *p, int mode, int node)
{
	unsigned long mask[4];

	if (node < 0)
		return sys_mbind((unsigned long)p, NPAGES * page_size, mode,
				 NULL, 0, 0);
	one_node(mask, node);
	return sys_mbind((unsigned long)p, NPAGES * page_size, mode, mask,
			 HB_MAXNODE, 0);
}

/*
 * The policy at @p: mode with its flags, and the single node of its mask
 * (-1: none, -2: more).
 */
static int policy_at(void *p, int *node)
{
	unsigned long mask[4] = { 0 };
	int mode = -1;

	*node = -1;
	if (sys_get_mempolicy(&mode, mask, HB_MAXNODE, (unsigned long)p,
			      HB_MPOL_F_ADDR))
		return -errno;
	for (int n = 0; n < 64; n++) {
		if (!(mask[n / (8 * sizeof(*mask))] &
		      (1UL << (n % (8 * sizeof(*mask))))))
			continue;
		*node = *node == -1 ? n : -2;
	}
	return mode;
}

/* the node of each page (move_pages status): all equal to @want? */
static int all_on(char *p, int n, int want)
{
	void *pages[NPAGES];
	int status[NPAGES];

	for (int i = 0; i < n; i++)
		pages[i] = p + i * page_size;
	if (sys_move_pages(0, n, pages, NULL, status, 0))
		return 0;
	for (int i = 0; i < n; i++)
		if (status[i] != want)
			return 0;
	return 1;
}

static int move_to(char *p, int n, int node)
{
	void *pages[NPAGES];
	int nodes[NPAGES], status[NPAGES];

	for (int i = 0; i < n; i++) {
		pages[i] = p + i * page_size;
		nodes[i] = node;
	}
	return sys_move_pages(0, n, pages, nodes, status, HB_MPOL_MF_MOVE) ? -errno : 0;
}

static void query_atoms(uint32_t *a, const int32_t *buf, uint32_t high)
{
	a[0] = HBIND_ATOM(HBIND_CMD_QUERY, HBIND_QUERY_NDWORDS);
	a[1] = 0;
	a[2] = (uint32_t)(uintptr_t)buf;
	a[3] = high;
}

static int case_abi(void)
{
	struct utsname u;
	uint32_t a[1] = { HBIND_ATOM(HBIND_CMD_DEFAULT, 0) };
	char *p = map_pages();

	uname(&u);
	check(sizeof(long) == 4 && sizeof(void *) == 4,
	      "a 32-bit program (long and pointers are %zu bytes)", sizeof(long));
	check(!strcmp(u.machine, "x86_64"), "on a 64-bit kernel (%s)", u.machine);
	if (hbind(p, page_size, NULL, 0, a, 1) && errno == ENOSYS) {
		printf("SKIP: no hbind() (syscall %d) for 32-bit callers\n", __NR_hbind);
		exit(77);
	}
	errno = 0;
	check(hbind(p, page_size, NULL, 0, a, 1) == 0,
	      "hbind (syscall %d) DEFAULT on one page: %s", __NR_hbind, hb_errname(errno));
	return 0;
}

static int case_bind(uint32_t uid, int other)
{
	uint32_t a[2] = { HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS),
			  HBIND_BIND_STRICT };
	char *p = map_pages(), *q = map_pages();
	int pn, qn, pm, qm;

	errno = 0;
	check(hbind(p, NPAGES * page_size, &uid, 1, a, 2) == 0,
	      "hbind BIND strict {target %u}: %s", uid, hb_errname(errno));
	errno = 0;
	/* a target is a fixed node: hbind's policies have MPOL_F_STATIC_NODES */
	check(mbind1(q, HB_MPOL_BIND | HB_MPOL_F_STATIC_NODES, other) == 0,
	      "mbind MPOL_BIND|MPOL_F_STATIC_NODES {%d}: %s", other, hb_errname(errno));
	touch(p, NPAGES);
	touch(q, NPAGES);
	pm = policy_at(p, &pn);
	qm = policy_at(q, &qn);
	check(pm == (HB_MPOL_BIND | HB_MPOL_F_STATIC_NODES) && pn == other,
	      "get_mempolicy after hbind: mode 0x%x node %d (want 0x%x, %d)",
	      pm, pn, HB_MPOL_BIND | HB_MPOL_F_STATIC_NODES, other);
	check(pm == qm && pn == qn, "same policy as mbind's: mode %d node %d", qm, qn);
	check(all_on(p, NPAGES, other), "hbind-bound pages on node %d", other);
	check(all_on(q, NPAGES, other), "mbind-bound pages on node %d", other);
	return 0;
}

static int case_migrate(uint32_t uid, int home, int other)
{
	uint32_t a[3] = { HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS),
			  0, 0xdead };
	char *p = map_pages(), *q = map_pages();

	mbind1(p, HB_MPOL_BIND, home);
	mbind1(q, HB_MPOL_BIND, home);
	touch(p, NPAGES);
	touch(q, NPAGES);
	mbind1(p, HB_MPOL_DEFAULT, -1);
	mbind1(q, HB_MPOL_DEFAULT, -1);
	check(all_on(p, NPAGES, home) && all_on(q, NPAGES, home),
	      "%d pages on node %d to start with", NPAGES, home);
	errno = 0;
	check(hbind(p, NPAGES * page_size, &uid, 1, a, 3) == 0,
	      "hbind MIGRATE {target %u}: %s", uid, hb_errname(errno));
	check(a[2] == NPAGES, "moved count written back: %u (want %d)", a[2], NPAGES);
	check(all_on(p, NPAGES, other), "hbind-migrated pages on node %d", other);
	check(move_to(q, NPAGES, other) == 0 && all_on(q, NPAGES, other),
	      "move_pages moves the same pages to node %d", other);
	for (int i = 0; i < NPAGES; i++)
		if (p[i * page_size] != (char)i) {
			check(0, "data intact after MIGRATE (page %d)", i);
			return 0;
		}
	check(1, "data intact after MIGRATE");
	return 0;
}

static int case_query(uint32_t home_uid, int home)
{
	int32_t buf[NPAGES];
	void *pages[NPAGES];
	int status[NPAGES];
	uint32_t a[4];
	char *p = map_pages();
	int bad = 0;

	mbind1(p, HB_MPOL_BIND, home);
	touch(p, NPAGES / 2);
	for (int i = 0; i < NPAGES; i++) {
		buf[i] = 0x5a5a5a5a;
		pages[i] = p + i * page_size;
	}
	query_atoms(a, buf, 0);
	errno = 0;
	check(hbind(p, NPAGES * page_size, NULL, 0, a, 4) == 0,
	      "hbind QUERY: %s", hb_errname(errno));
	check(sys_move_pages(0, NPAGES, pages, NULL, status, 0) == 0,
	      "move_pages query: %s", hb_errname(errno));
	for (int i = 0; i < NPAGES; i++) {
		int populated = i < NPAGES / 2;
		int32_t want = populated ? (int32_t)home_uid : -ENOENT;

		if (buf[i] != want || status[i] != (populated ? home : -ENOENT)) {
			printf("  page %d: QUERY %d (want %d), move_pages %d\n",
			       i, buf[i], want, status[i]);
			bad++;
		}
	}
	check(!bad, "QUERY: %d pages on target %u (node %d), %d -ENOENT, as move_pages reports",
	      NPAGES / 2, home_uid, home, NPAGES / 2);
	return 0;
}

static int case_default(uint32_t uid, int other)
{
	uint32_t b[2] = { HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS), 0 };
	uint32_t d[1] = { HBIND_ATOM(HBIND_CMD_DEFAULT, 0) };
	char *p = map_pages(), *q = map_pages();
	int pn, qn, pm, qm;

	hbind(p, NPAGES * page_size, &uid, 1, b, 2);
	mbind1(q, HB_MPOL_PREFERRED_MANY | HB_MPOL_F_STATIC_NODES, other);
	pm = policy_at(p, &pn);
	qm = policy_at(q, &qn);
	check(pm == qm && pn == qn && pn == other,
	      "hbind BIND (not strict) = mbind MPOL_PREFERRED_MANY|MPOL_F_STATIC_NODES {%d} (mode 0x%x node %d)",
	      other, pm, pn);
	errno = 0;
	check(hbind(p, NPAGES * page_size, NULL, 0, d, 1) == 0,
	      "hbind DEFAULT: %s", hb_errname(errno));
	mbind1(q, HB_MPOL_DEFAULT, -1);
	pm = policy_at(p, &pn);
	qm = policy_at(q, &qn);
	check(pm == HB_MPOL_DEFAULT && pm == qm && pn == qn,
	      "policy after hbind DEFAULT: mode %d, as after mbind(MPOL_DEFAULT): mode %d",
	      pm, qm);
	return 0;
}

/* BIND, MIGRATE, QUERY and DEFAULT in one call, as a 64-bit caller would */
static int case_stream(uint32_t uid, int home, int other)
{
	int32_t buf[NPAGES];
	uint32_t a[11];
	char *p = map_pages();
	int pn, pm, bad = 0;

	mbind1(p, HB_MPOL_BIND, home);
	touch(p, NPAGES);
	a[0] = HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS);
	a[1] = HBIND_BIND_STRICT;
	a[2] = HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS);
	a[3] = 0;
	a[4] = 0;
	query_atoms(&a[5], buf, 0);
	a[9] = HBIND_ATOM(HBIND_CMD_DEFAULT, 0);
	errno = 0;
	check(hbind(p, NPAGES * page_size, &uid, 1, a, 10) == 0,
	      "hbind BIND+MIGRATE+QUERY+DEFAULT: %s", hb_errname(errno));
	check(a[4] == NPAGES, "MIGRATE moved %u (want %d)", a[4], NPAGES);
	for (int i = 0; i < NPAGES; i++)
		bad += buf[i] != (int32_t)uid;
	check(!bad, "QUERY after MIGRATE: every page on target %u", uid);
	check(all_on(p, NPAGES, other), "move_pages agrees: node %d", other);
	pm = policy_at(p, &pn);
	check(pm == HB_MPOL_DEFAULT, "DEFAULT last: policy mode %d", pm);
	return 0;
}

/*
 * A QUERY buffer address with a high word: EINVAL while parsing, so a
 * MIGRATE before it in the stream does not run and the buffer (at the
 * address the low word names) is not written; the same for a QUERY alone.
 */
/* NPAGES entries of @buf still hold the 0x5a5a5a5a they were filled with */
static int unwritten(const int32_t *buf)
{
	for (int i = 0; i < NPAGES; i++)
		if (buf[i] != 0x5a5a5a5a)
			return 0;
	return 1;
}

static int case_highword(uint32_t uid, int home)
{
	static const uint32_t highs[] = { 1, 0x80000000, 0xffffffff };
	int32_t buf[NPAGES];
	uint32_t a[7];
	char *p = map_pages();

	mbind1(p, HB_MPOL_BIND, home);
	touch(p, NPAGES);
	mbind1(p, HB_MPOL_DEFAULT, -1);
	for (unsigned int h = 0; h < sizeof(highs) / sizeof(highs[0]); h++) {
		for (int i = 0; i < NPAGES; i++)
			buf[i] = 0x5a5a5a5a;
		a[0] = HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS);
		a[1] = 0;
		a[2] = 0xdead;
		query_atoms(&a[3], buf, highs[h]);
		errno = 0;
		check(hbind(p, NPAGES * page_size, &uid, 1, a, 7) == -1 && errno == EINVAL,
		      "MIGRATE + QUERY with high word 0x%x: %s (want EINVAL)",
		      highs[h], hb_errname(errno));
		check(unwritten(buf), "  the buffer at the low word was not written");
		check(all_on(p, NPAGES, home), "  MIGRATE did not run: pages still on node %d",
		      home);
		check(a[2] == 0xdead, "  no moved count written back");
		/* a QUERY alone (hbind()'s own path for it) checks it too */
		errno = 0;
		check(hbind(p, NPAGES * page_size, NULL, 0, &a[3], 4) == -1 &&
		      errno == EINVAL,
		      "  QUERY alone with high word 0x%x: %s (want EINVAL)",
		      highs[h], hb_errname(errno));
		check(unwritten(buf), "  the buffer at the low word was not written");
	}
	/* the same call with a high word of 0 runs */
	query_atoms(&a[3], buf, 0);
	errno = 0;
	check(hbind(p, NPAGES * page_size, &uid, 1, a, 7) == 0 && a[2] == NPAGES &&
	      buf[0] == (int32_t)uid,
	      "with high word 0 it runs: %s, moved %u, page 0 on target %d",
	      hb_errname(errno), a[2], buf[0]);
	return 0;
}

/*
 * INTERLEAVE with the caller's weights 1 and 3 over HOME and OTHER: the
 * kernel reads them at the 32-bit pointer in the atom, and the pages go 1:3
 * to the two nodes in node order. A high word in that pointer is EINVAL and
 * leaves the range without a policy.
 */
static int case_interleave(uint32_t home_uid, uint32_t other_uid, int home,
			   int other)
{
	int lo = home < other ? home : other, hi = home ^ other ^ lo;
	uint32_t t[2] = { home_uid, other_uid };
	uint32_t w[2] = { home == lo ? 1 : 3, home == lo ? 3 : 1 };
	uint32_t a[1 + HBIND_INTERLEAVE_NDWORDS];
	void *pages[NPAGES];
	int status[NPAGES], n_lo = 0, n_hi = 0, mode, node;
	char *p = map_pages();

	hb_il_atom(a, 0, 0, w);
	a[4] = 1;
	errno = 0;
	check(hbind(p, NPAGES * page_size, t, 2, a, 5) == -1 && errno == EINVAL,
	      "INTERLEAVE, weights pointer with high word 0x1: %s (want EINVAL)",
	      hb_errname(errno));
	mode = policy_at(p, &node);
	check(mode == HB_MPOL_DEFAULT, "  the range keeps no policy (mode %d)", mode);
	a[4] = 0;
	errno = 0;
	check(hbind(p, NPAGES * page_size, t, 2, a, 5) == 0,
	      "INTERLEAVE with weights at a 32-bit pointer: %s", hb_errname(errno));
	mode = policy_at(p, &node);
	check(mode == (HB_MPOL_WEIGHTED_INTERLEAVE | HB_MPOL_F_STATIC_NODES) &&
	      node == -2, "  policy: weighted interleave, static, two nodes (mode %#x)",
	      mode);
	touch(p, NPAGES);
	for (int i = 0; i < NPAGES; i++)
		pages[i] = p + i * page_size;
	check(!sys_move_pages(0, NPAGES, pages, NULL, status, 0), "move_pages: %s",
	      hb_errname(errno));
	for (int i = 0; i < NPAGES; i++) {
		n_lo += status[i] == lo;
		n_hi += status[i] == hi;
	}
	check(n_lo == NPAGES / 4 && n_hi == 3 * NPAGES / 4,
	      "INTERLEAVE weights 1:3: %d pages on node %d, %d on node %d", n_lo, lo,
	      n_hi, hi);
	return 0;
}

int main(int argc, char **argv)
{
	long home_uid, other_uid;
	int home, other;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	if (argc != 4) {
		fprintf(stderr, "usage: %s abi|bind|migrate|query|default|stream|highword|interleave HOME OTHER\n",
			argv[0]);
		return 2;
	}
	home = atoi(argv[2]);
	other = atoi(argv[3]);
	home_uid = hb_uid_of_node(home);
	other_uid = hb_uid_of_node(other);
	if (home_uid < 0 || other_uid < 0) {
		fprintf(stderr, "no HMS target for node %d or %d\n", home, other);
		return 1;
	}

	if (!strcmp(argv[1], "abi"))
		case_abi();
	else if (!strcmp(argv[1], "bind"))
		case_bind(other_uid, other);
	else if (!strcmp(argv[1], "migrate"))
		case_migrate(other_uid, home, other);
	else if (!strcmp(argv[1], "query"))
		case_query(home_uid, home);
	else if (!strcmp(argv[1], "default"))
		case_default(other_uid, other);
	else if (!strcmp(argv[1], "stream"))
		case_stream(other_uid, home, other);
	else if (!strcmp(argv[1], "highword"))
		case_highword(other_uid, home);
	else if (!strcmp(argv[1], "interleave"))
		case_interleave(home_uid, other_uid, home, other);
	else {
		fprintf(stderr, "%s: unknown case %s\n", argv[0], argv[1]);
		return 2;
	}
	return failures ? 1 : 0;
}
