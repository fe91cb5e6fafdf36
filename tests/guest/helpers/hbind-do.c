// SPDX-License-Identifier: GPL-2.0
/*
 * hbind-do - map memory, then run a sequence of hbind() / mbind() /
 * move_pages() / migrate_pages() / get_mempolicy() operations on it and
 * print one stable, parseable line per operation. The guest suites
 * (tests/guest/hbind*.bats) compare hbind with the mempolicy calls through it.
 *
 * Usage: hbind-do [-n SIZE] [-m anon|shm|thp|hugetlb] [-c CPU] OP...
 * ops[] (hbind-do -h) lists the operations and their output.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "hbtest.h"

#define MIB		(1024UL * 1024UL)
#define THP_SIZE	(2 * MIB)
#define COOKIE		0x48424e44000000ULL	/* "HBND" << 24 */
#define KERNEL_PTR	((void *)0xffff888000000000UL)

enum kind { K_ANON, K_SHM, K_THP, K_HUGETLB, NR_KINDS };

/* -m KIND */
static const char *const kind_names[NR_KINDS] = {
	[K_ANON] = "anon", [K_SHM] = "shm", [K_THP] = "thp",
	[K_HUGETLB] = "hugetlb",
};

/* the mapping the operations work on */
static struct {
	char *base;
	size_t len;
	size_t npages;		/* -n SIZE */
	enum kind kind;		/* -m KIND */
} M = { .npages = 16 };

static long PS;
static const char *prefix = "";
static pid_t hold_pid;

/* snapshot for snap/same */
static char *snap_pol, *snap_pages;

struct range {
	unsigned long start;
	unsigned long len;
	size_t count;		/* base pages covered (len rounded up) */
};

/* what an operation works on */
struct opctx {
	struct range r;		/* its @RANGE, else the whole mapping */
	const char *args;	/* ARGS, after NAME: (NULL without) */
	char **argv;		/* every OP on the command line */
	int argc;
	int i;			/* this OP's index (fork: to its end) */
};

static const char *prog = "hbind-do";

#define die(...)	hb_die(prog, __VA_ARGS__)

static void out(const char *fmt, ...)
{
	va_list ap;

	fputs(prefix, stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* a growing string */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL,
			      b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			die("vsnprintf failed");
		if (b->s && b->len + n < b->cap)
			break;
		b->cap = (b->cap + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			die("out of memory");
		if (!b->len)
			b->s[0] = '\0';
	}
	b->len += n;
}

static unsigned long parse_ul(const char *s, const char *what)
{
	return hb_parse_ul(prog, s, what);
}

/*
 * A user address nothing is mapped at: just below MAP_AREA, where neither
 * top-down mmap() nor brk ever reaches (see map_at()).
 */
static void *unmapped_ptr(void)
{
	return (void *)(0x200000000000UL - 0x10000);
}

/*
 * A copy of the @size bytes at @valid whose last 4 bytes fall on an unmapped
 * page: the kernel can read all of it but the end. Never freed (the helper
 * exits soon).
 */
static void *tail_unmapped_copy(const void *valid, size_t size)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t span = ((size + ps - 1) / ps + 1) * ps;
	char *p;

	p = mmap(NULL, span, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	if (munmap(p + span - ps, ps))
		die("munmap");
	p += span - ps - (size - 4);
	memcpy(p, valid, size - 4);
	return p;
}

/* null, bad (unmapped), kernel, tail (last dword unmapped) or ok */
static void *special_ptr(const char *s, void *valid, size_t size)
{
	if (!strcmp(s, "null"))
		return NULL;
	if (!strcmp(s, "bad"))
		return unmapped_ptr();
	if (!strcmp(s, "kernel"))
		return KERNEL_PTR;
	if (!strcmp(s, "tail") && valid && size >= 4)
		return tail_unmapped_copy(valid, size);
	if (!strcmp(s, "ok"))
		return valid;
	die("bad pointer kind '%s' (null|bad|kernel|tail|ok)", s);
}

/* ---------------------------------------------------------------- */
/* mapping                                                          */
/* ---------------------------------------------------------------- */

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
/*
 * The test mapping lives far below the mmap base (top-down allocation never
 * gets there), so that a hole punched in it stays a hole: malloc's own
 * mmap()s would otherwise land in it.
 */
#define MAP_AREA	0x200000000000UL

static void *map_at(void *addr, size_t len, enum kind kind)
{
	int flags = (kind == K_SHM ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS;
	unsigned long hint;
	char *p = MAP_FAILED;

	if (addr)
		return mmap(addr, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, -1, 0);
	for (hint = MAP_AREA; hint < 2 * MAP_AREA; hint += 1UL << 30) {
		p = mmap((void *)hint, len, PROT_READ | PROT_WRITE,
			 flags | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != MAP_FAILED && p != (void *)hint) {
			/* a kernel before 4.17 takes it as a hint only */
			munmap(p, len);
			p = MAP_FAILED;
			errno = EEXIST;
		}
		if (p != MAP_FAILED || errno != EEXIST)
			break;
	}
	if (p == MAP_FAILED)
		return p;
	/* MAP_AREA is 2 MiB aligned, so that whole huge pages fit */
	if (kind == K_THP && madvise(p, len, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE): %s", strerror(errno));
	return p;
}

/* [vvar] and the first page of [vdso], which follows it */
static void vdso_range(struct range *r)
{
	unsigned long a, b, vvar = 0, vdso = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		die("/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &a, &b) != 2)
			continue;
		if (strstr(line, "[vvar]"))
			vvar = a;
		else if (strstr(line, "[vdso]"))
			vdso = a;
	}
	fclose(f);
	if (!vvar || !vdso || vdso < vvar)
		die("no [vvar] followed by [vdso] in /proc/self/maps");
	r->start = vvar;
	r->len = vdso + PS - vvar;
}

static void parse_range(const char *spec, struct range *r)
{
	if (spec && !strcmp(spec, "vdso")) {
		vdso_range(r);
	} else if (!spec) {
		r->start = (unsigned long)M.base;
		r->len = M.len;
	} else if (!strncmp(spec, "o:", 2) || !strncmp(spec, "a:", 2)) {
		char *s = strdup(spec + 2), *colon = strchr(s, ':');
		long long off;

		if (!colon)
			die("bad range '%s'", spec);
		*colon = '\0';
		if (spec[0] == 'o') {
			off = strtoll(s, NULL, 0);
			r->start = (unsigned long)M.base + (unsigned long)off;
		} else {
			r->start = strtoull(s, NULL, 0);
		}
		r->len = strtoull(colon + 1, NULL, 0);
		free(s);
	} else {
		char *plus;
		unsigned long first = strtoul(spec, &plus, 0), count;

		count = *plus == '+' ? parse_ul(plus + 1, "page count") :
			M.npages - first;
		if (*plus && *plus != '+')
			die("bad range '%s'", spec);
		if (first + count > M.npages)
			die("range '%s' beyond the %zu pages", spec, M.npages);
		r->start = (unsigned long)M.base + first * PS;
		r->len = count * PS;
	}
	r->count = r->len / PS + !!(r->len % PS);
	if (r->len > (1UL << 40))	/* overflow tests: no per-page work */
		r->count = 0;
}

/* ---------------------------------------------------------------- */
/* targets, flags                                                   */
/* ---------------------------------------------------------------- */

/* "5,7,n2" or "5/7" or "-" -> uids; returns the count */
static unsigned int parse_targets(const char *s, uint32_t *t, unsigned int max)
{
	char *dup, *tok, *save;
	unsigned int n = 0;

	if (!s || !*s || !strcmp(s, "-"))
		return 0;
	dup = strdup(s);
	for (tok = strtok_r(dup, ",/", &save); tok; tok = strtok_r(NULL, ",/", &save)) {
		long uid;

		if (n == max)
			die("too many targets");
		if (tok[0] == 'n') {
			uid = hb_uid_of_node((int)parse_ul(tok + 1, "node"));
			if (uid < 0)
				die("no HMS target for node %s", tok + 1);
		} else {
			uid = (long)parse_ul(tok, "target uid");
		}
		t[n++] = (uint32_t)uid;
	}
	free(dup);
	return n;
}

/* "strict+0x4" -> bits; @names maps words to bits */
struct flagname {
	const char *name;
	unsigned long bit;
};

static unsigned long parse_flags(const char *s, const struct flagname *names)
{
	char *dup, *tok, *save;
	unsigned long v = 0;

	if (!s || !*s)
		return 0;
	dup = strdup(s);
	for (tok = strtok_r(dup, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		const struct flagname *f;

		for (f = names; f->name; f++)
			if (!strcmp(f->name, tok))
				break;
		v |= f->name ? f->bit : parse_ul(tok, "flags");
	}
	free(dup);
	return v;
}

static const struct flagname bind_flags[] = {
	{ "strict", HBIND_BIND_STRICT }, { "task", HBIND_BIND_TASK },
	{ NULL, 0 } };
static const struct flagname il_flags[] = {
	{ "move", HBIND_IL_MOVE }, { "task", HBIND_IL_TASK }, { NULL, 0 } };
static const struct flagname migrate_flags[] = {
	{ "all", HBIND_MIGRATE_ALL }, { NULL, 0 } };
static const struct flagname mbind_flags[] = {
	{ "strict", HB_MPOL_MF_STRICT }, { "move", HB_MPOL_MF_MOVE },
	{ "moveall", HB_MPOL_MF_MOVE_ALL }, { NULL, 0 } };

/* "0,2-3" -> mask; returns 0 or -1 */
static void parse_nodes(const char *s, unsigned long *mask)
{
	char *dup, *tok, *save;

	*mask = 0;
	if (!s || !*s || !strcmp(s, "-"))
		return;
	dup = strdup(s);
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		unsigned long a, b;

		if (dash)
			*dash = '\0';
		a = parse_ul(tok, "node");
		b = dash ? parse_ul(dash + 1, "node") : a;
		if (b >= 64 || a > b)
			die("bad node list '%s'", s);
		for (; a <= b; a++)
			*mask |= 1UL << a;
	}
	free(dup);
}

static void nodes_str(struct sbuf *b, unsigned long mask)
{
	int i, first = 1;

	for (i = 0; i < 64; i++) {
		int j;

		if (!(mask & (1UL << i)))
			continue;
		for (j = i; j + 1 < 64 && (mask & (1UL << (j + 1))); j++)
			;
		if (j > i)
			sb_add(b, "%s%d-%d", first ? "" : ",", i, j);
		else
			sb_add(b, "%s%d", first ? "" : ",", i);
		first = 0;
		i = j;
	}
}

static int parse_mode(const char *s, int *mode)
{
	static const struct { const char *n; int m; } modes[] = {
		{ "default", HB_MPOL_DEFAULT }, { "prefer", HB_MPOL_PREFERRED },
		{ "preferred", HB_MPOL_PREFERRED }, { "bind", HB_MPOL_BIND },
		{ "interleave", HB_MPOL_INTERLEAVE }, { "local", HB_MPOL_LOCAL },
		{ "pmany", HB_MPOL_PREFERRED_MANY },
		{ "prefer_many", HB_MPOL_PREFERRED_MANY },
		{ "weighted", HB_MPOL_WEIGHTED_INTERLEAVE },
	};
	char *dup = strdup(s), *plus = strchr(dup, '+');
	size_t i;

	*mode = -1;
	if (plus)
		*plus++ = '\0';
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(modes[i].n, dup))
			*mode = modes[i].m;
	if (*mode < 0)
		*mode = (int)parse_ul(dup, "mode");
	while (plus) {
		char *next = strchr(plus, '+');

		if (next)
			*next++ = '\0';
		if (!strcmp(plus, "static"))
			*mode |= HB_MPOL_F_STATIC_NODES;
		else if (!strcmp(plus, "relative"))
			*mode |= HB_MPOL_F_RELATIVE_NODES;
		else
			die("bad mode flag '%s'", plus);
		plus = next;
	}
	free(dup);
	return 0;
}

static void mode_str(struct sbuf *b, int mode, unsigned long nodes)
{
	static const char *const names[] = {
		"default", "prefer", "bind", "interleave", "local",
		"prefer_many", "weighted_interleave",
	};
	int m = mode & ~HB_MPOL_MODE_FLAGS;

	if (m >= 0 && m < (int)(sizeof(names) / sizeof(names[0])))
		sb_add(b, "%s", names[m]);
	else
		sb_add(b, "mode%d", m);
	if (mode & HB_MPOL_F_STATIC_NODES)
		sb_add(b, "=static");
	else if (mode & HB_MPOL_F_RELATIVE_NODES)
		sb_add(b, "=relative");
	else if (mode & HB_MPOL_F_NUMA_BALANCING)
		sb_add(b, "=balancing");
	if (nodes) {
		sb_add(b, ":");
		nodes_str(b, nodes);
	}
}

/* ---------------------------------------------------------------- */
/* per page results                                                 */
/* ---------------------------------------------------------------- */

/* one token per page value: nN for node/uid (letter @c), errno name < 0 */
static void val_tok(struct sbuf *b, char c, int v)
{
	if (v >= 0)
		sb_add(b, "%c%d", c, v);
	else
		sb_add(b, "%s", hb_errname(-v));
}

/* run-length list "0-11:n0 12:ENOENT" */
static void rle(struct sbuf *b, char c, const int *v, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j] == v[i]; j++)
			;
		if (j - 1 > i)
			sb_add(b, " %zu-%zu:", i, j - 1);
		else
			sb_add(b, " %zu:", i);
		val_tok(b, c, v[i]);
	}
}

/* summary "n0=12 n1=4 ENOENT=2": nodes ascending, then errnos ascending */
static void summary(struct sbuf *b, const int *v, size_t n)
{
	size_t i;
	int x, any = 0;

	for (x = 0; x < 1024; x++) {
		size_t c = 0;

		for (i = 0; i < n; i++)
			c += v[i] == x;
		if (c) {
			sb_add(b, " n%d=%zu", x, c);
			any = 1;
		}
	}
	for (x = 1; x < 4096; x++) {
		size_t c = 0;

		for (i = 0; i < n; i++)
			c += v[i] == -x;
		if (c) {
			sb_add(b, " %s=%zu", hb_errname(x), c);
			any = 1;
		}
	}
	for (i = 0; i < n; i++)
		if (v[i] >= 1024 || v[i] <= -4096) {
			sb_add(b, " other=%d", v[i]);
			any = 1;
			break;
		}
	if (!any)
		sb_add(b, " none");
}

static void **page_ptrs(const struct range *r)
{
	void **p = calloc(r->count ? r->count : 1, sizeof(*p));
	size_t i;

	if (!p)
		die("out of memory");
	for (i = 0; i < r->count; i++)
		p[i] = (char *)r->start + i * PS;
	return p;
}

/* move_pages(nodes=NULL) status of every page; NULL + errno on failure */
static int *page_status(const struct range *r)
{
	void **p = page_ptrs(r);
	int *st = malloc((r->count ? r->count : 1) * sizeof(*st));
	size_t i;

	if (!st)
		die("out of memory");
	for (i = 0; i < r->count; i++)
		st[i] = -4095;
	if (sys_move_pages(0, r->count, p, NULL, st, 0) < 0) {
		int e = errno;

		free(p);
		free(st);
		errno = e;
		return NULL;
	}
	free(p);
	return st;
}

/* get_mempolicy(MPOL_F_ADDR) of every page as one RLE string */
static char *policy_rle(const struct range *r)
{
	struct sbuf b = { 0 };
	char **tok = calloc(r->count ? r->count : 1, sizeof(*tok));
	size_t i, j;

	if (!tok)
		die("out of memory");
	for (i = 0; i < r->count; i++) {
		struct sbuf t = { 0 };
		unsigned long mask = 0;
		int mode = -1;

		if (sys_get_mempolicy(&mode, &mask, HB_MAXNODE,
				      r->start + i * PS, HB_MPOL_F_ADDR))
			sb_add(&t, "%s", hb_errname(errno));
		else
			mode_str(&t, mode, mask);
		tok[i] = t.s;
	}
	for (i = 0; i < r->count; i = j) {
		for (j = i + 1; j < r->count && !strcmp(tok[j], tok[i]); j++)
			;
		if (j - 1 > i)
			sb_add(&b, " %zu-%zu:%s", i, j - 1, tok[i]);
		else
			sb_add(&b, " %zu:%s", i, tok[i]);
	}
	for (i = 0; i < r->count; i++)
		free(tok[i]);
	free(tok);
	if (!b.s)
		sb_add(&b, " none");
	return b.s;
}

static char *pages_rle(const struct range *r)
{
	struct sbuf b = { 0 };
	int *st = page_status(r);

	if (!st) {
		sb_add(&b, " errno=%s", hb_errname(errno));
		return b.s;
	}
	rle(&b, 'n', st, r->count);
	if (!b.s)
		sb_add(&b, " none");
	free(st);
	return b.s;
}

static void op_where(struct opctx *c)
{
	int *st = page_status(&c->r);
	struct sbuf b = { 0 };

	if (!st) {
		out("nodes errno=%s", hb_errname(errno));
	} else {
		summary(&b, st, c->r.count);
		out("nodes%s", b.s);
	}
	free(b.s);
	free(st);
}

static void op_pages(struct opctx *c)
{
	char *s = pages_rle(&c->r);

	out("pages%s", s);
	free(s);
}

static void op_getpol(struct opctx *c)
{
	char *s = policy_rle(&c->r);

	out("policy%s", s);
	free(s);
}

static void op_snap(struct opctx *c)
{
	free(snap_pol);
	free(snap_pages);
	snap_pol = policy_rle(&c->r);
	snap_pages = pages_rle(&c->r);
	out("snap ok");
}

static void op_same(struct opctx *c)
{
	char *pol = policy_rle(&c->r), *pg = pages_rle(&c->r);

	if (!snap_pol)
		die("same: no snap before");
	if (strcmp(pol, snap_pol))
		out("changed policy%s ->%s", snap_pol, pol);
	else if (strcmp(pg, snap_pages))
		out("changed pages%s ->%s", snap_pages, pg);
	else
		out("unchanged");
	free(pol);
	free(pg);
}

/* ---------------------------------------------------------------- */
/* hbind                                                            */
/* ---------------------------------------------------------------- */

static long do_hbind(const struct range *r, const uint32_t *t, unsigned int nt,
		     uint32_t *atoms, unsigned int na)
{
	return sys_hbind(r->start, r->len, t, nt, atoms, na);
}

static void op_query(struct opctx *c)
{
	const struct range *r = &c->r;
	size_t n = r->count, i;
	int32_t *buf = malloc((n + 4) * sizeof(*buf));
	uint32_t atoms[4];
	struct sbuf b = { 0 };

	if (!buf)
		die("out of memory");
	/* never a uid: shows unwritten entries; 4 more catch overruns */
	for (i = 0; i < n + 4; i++)
		buf[i] = INT32_MAX;
	atoms[0] = HBIND_ATOM(HBIND_CMD_QUERY, HBIND_QUERY_NDWORDS);
	atoms[1] = 0;
	atoms[2] = (uint32_t)(uintptr_t)buf;
	atoms[3] = (uint32_t)((uint64_t)(uintptr_t)buf >> 32);
	if (do_hbind(r, NULL, 0, atoms, 4)) {
		out("query errno=%s", hb_errname(errno));
	} else {
		rle(&b, 'u', (int *)buf, r->count);
		out("query%s", b.s ? b.s : " none");
		for (i = n; i < n + 4; i++)
			if (buf[i] != INT32_MAX) {
				out("query overrun: entry %zu written", i);
				break;
			}
	}
	free(b.s);
	free(buf);
}

static void op_bind(struct opctx *c)
{
	const struct range *r = &c->r;
	const char *args = c->args;
	char *dup = strdup(args ? args : ""), *colon = strchr(dup, ':');
	uint32_t t[HBIND_MAX_TARGETS + 1], atoms[2];
	unsigned int nt;

	if (colon)
		*colon++ = '\0';
	nt = parse_targets(dup, t, HBIND_MAX_TARGETS + 1);
	atoms[0] = HBIND_ATOM(HBIND_CMD_BIND, HBIND_BIND_NDWORDS);
	atoms[1] = (uint32_t)parse_flags(colon, bind_flags);
	if (do_hbind(r, nt ? t : NULL, nt, atoms, 2))
		out("bind errno=%s", hb_errname(errno));
	else
		out("bind ok");
	free(dup);
}

static void op_migrate(struct opctx *c)
{
	const struct range *r = &c->r;
	const char *args = c->args;
	char *dup = strdup(args ? args : ""), *colon = strchr(dup, ':');
	uint32_t t[HBIND_MAX_TARGETS + 1], atoms[3];
	unsigned int nt;

	if (colon)
		*colon++ = '\0';
	nt = parse_targets(dup, t, HBIND_MAX_TARGETS + 1);
	atoms[0] = HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS);
	atoms[1] = (uint32_t)parse_flags(colon, migrate_flags);
	atoms[2] = 0xdeadbeef;
	if (do_hbind(r, nt ? t : NULL, nt, atoms, 3))
		out("migrate errno=%s", hb_errname(errno));
	else
		out("migrate moved=%" PRIu32, atoms[2]);
	free(dup);
}

/*
 * il:TGTS:W,W,...|auto|auto=INIT[:FLAGS] - hbind INTERLEAVE with the
 * caller's weights, or bandwidth weights from the calling CPU's initiator
 * (auto) or initiator uid INIT; FLAGS move+task|N: 'il ok' | errno
 */
static void op_il(struct opctx *c)
{
	const struct range *r = &c->r;
	const char *args = c->args;
	char *dup = strdup(args ? args : ""), *w = strchr(dup, ':'), *f = NULL;
	uint32_t t[HBIND_MAX_TARGETS + 1];
	/* a weight the list leaves out reads as 0 */
	uint32_t weights[HBIND_MAX_TARGETS + 1] = { 0 };
	uint32_t atoms[1 + HBIND_INTERLEAVE_NDWORDS];
	unsigned int nt, nw = 0;
	uint64_t wp = (uintptr_t)weights;

	if (w) {
		*w++ = '\0';
		f = strchr(w, ':');
		if (f)
			*f++ = '\0';
	}
	nt = parse_targets(dup, t, HBIND_MAX_TARGETS + 1);
	atoms[1] = (uint32_t)parse_flags(f, il_flags);
	atoms[2] = 0;
	if (w && !strncmp(w, "auto", 4)) {
		atoms[1] |= HBIND_IL_AUTO;
		wp = 0;
		if (w[4] == '=') {
			atoms[1] |= HBIND_IL_INITIATOR;
			atoms[2] = (uint32_t)parse_ul(w + 5, "initiator uid");
		}
	} else if (w) {
		char *tok, *save;

		for (tok = strtok_r(w, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (nw == HBIND_MAX_TARGETS + 1)
				die("too many weights");
			weights[nw++] = (uint32_t)parse_ul(tok, "weight");
		}
	}
	atoms[0] = HBIND_ATOM(HBIND_CMD_INTERLEAVE, HBIND_INTERLEAVE_NDWORDS);
	atoms[3] = (uint32_t)wp;
	atoms[4] = (uint32_t)(wp >> 32);
	if (do_hbind(r, nt ? t : NULL, nt, atoms, 1 + HBIND_INTERLEAVE_NDWORDS))
		out("il errno=%s", hb_errname(errno));
	else
		out("il ok");
	free(dup);
}

/* tdefault - hbind TASK_DEFAULT (the range is not used): 'tdefault ok' */
static void op_tdefault(struct opctx *c)
{
	uint32_t atom = HBIND_ATOM(HBIND_CMD_TASK_DEFAULT,
				   HBIND_TASK_DEFAULT_NDWORDS);

	(void)c;
	if (sys_hbind(0, 0, NULL, 0, &atom, 1))
		out("tdefault errno=%s", hb_errname(errno));
	else
		out("tdefault ok");
}

static void op_default(struct opctx *c)
{
	const struct range *r = &c->r;
	uint32_t atom = HBIND_ATOM(HBIND_CMD_DEFAULT, HBIND_DEFAULT_NDWORDS);

	if (do_hbind(r, NULL, 0, &atom, 1))
		out("default errno=%s", hb_errname(errno));
	else
		out("default ok");
}

/*
 * hcall:t=5/6,tp=bad,nt=3,a=0x10002/1,ap=null,na=0,pad=300
 * Q, QK, QB, QN in the atom list expand to the two dwords of a query buffer
 * pointer: a valid buffer for the range, a kernel address, an unmapped user
 * address, NULL; W to those of an INTERLEAVE weights array (every weight 1). pad=N extends the atom array to N dwords with DEFAULT
 * headers (for limit tests) without changing natoms unless na= says so.
 * r=0 makes the call's range start 0, length 0 (MIGRATE_WHOLE).
 */
static void op_hcall(struct opctx *c)
{
	static const struct range none;
	const struct range *r = &c->r;
	const char *args = c->args;
	char *dup = strdup(args ? args : ""), *kv, *save;
	uint32_t t[HBIND_MAX_TARGETS * 2 + 2] = { 0 };
	uint32_t *atoms = NULL;
	unsigned int nt = 0, na = 0, cap = 0, pad = 0, nt_eff, na_eff;
	long nt_over = -1, na_over = -1;
	const char *tp = "ok", *ap = "ok";
	uint32_t ones[HBIND_MAX_TARGETS * 2 + 2];
	int32_t *qbuf = NULL;
	int used_q = 0;
	size_t qn = r->count ? r->count : 1, i;
	struct sbuf b = { 0 };
	void *tptr, *aptr;
	long ret;

	qbuf = malloc(qn * sizeof(*qbuf));
	if (!qbuf)
		die("out of memory");
	for (i = 0; i < qn; i++)
		qbuf[i] = INT32_MAX;
	for (i = 0; i < sizeof(ones) / sizeof(ones[0]); i++)
		ones[i] = 1;
	for (kv = strtok_r(dup, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *v = strchr(kv, '=');

		if (!v)
			die("hcall: '%s' is not KEY=VALUE", kv);
		*v++ = '\0';
		if (!strcmp(kv, "t")) {
			nt = parse_targets(v, t, sizeof(t) / sizeof(t[0]));
		} else if (!strcmp(kv, "tp")) {
			tp = v;
		} else if (!strcmp(kv, "ap")) {
			ap = v;
		} else if (!strcmp(kv, "nt")) {
			nt_over = (long)parse_ul(v, "nt");
		} else if (!strcmp(kv, "na")) {
			na_over = (long)parse_ul(v, "na");
		} else if (!strcmp(kv, "pad")) {
			pad = (unsigned int)parse_ul(v, "pad");
		} else if (!strcmp(kv, "r")) {
			if (strcmp(v, "0"))
				die("hcall: r=%s: only r=0 (start 0, len 0)", v);
			r = &none;
		} else if (!strcmp(kv, "a")) {
			char *w, *s2;

			for (w = strtok_r(v, "/", &s2); w; w = strtok_r(NULL, "/", &s2)) {
				uint64_t p = 0;
				int two = 1;

				if (na + 2 > cap) {
					cap = cap * 2 + 8;
					atoms = realloc(atoms, cap * sizeof(*atoms));
					if (!atoms)
						die("out of memory");
				}
				if (!strcmp(w, "Q"))
					p = (uintptr_t)qbuf, used_q = 1;
				else if (!strcmp(w, "QK"))
					p = (uintptr_t)KERNEL_PTR;
				else if (!strcmp(w, "QB"))
					p = (uintptr_t)unmapped_ptr();
				else if (!strcmp(w, "QN"))
					p = 0;
				else if (!strcmp(w, "W"))
					p = (uintptr_t)ones;
				else
					two = 0;
				if (two) {
					atoms[na++] = (uint32_t)p;
					atoms[na++] = (uint32_t)(p >> 32);
				} else {
					atoms[na++] = (uint32_t)parse_ul(w, "atom");
				}
			}
		} else {
			die("hcall: unknown key '%s'", kv);
		}
	}
	nt_eff = nt;
	na_eff = na;
	if (pad > na) {
		atoms = realloc(atoms, pad * sizeof(*atoms));
		if (!atoms)
			die("out of memory");
		for (i = na; i < pad; i++)
			atoms[i] = HBIND_ATOM(HBIND_CMD_DEFAULT, 0);
		cap = pad;
	}
	if (nt_over >= 0)
		nt_eff = (unsigned int)nt_over;
	if (na_over >= 0)
		na_eff = (unsigned int)na_over;
	/* a "tail" copy holds what the kernel is told to read, if allocated */
	tptr = special_ptr(tp, nt ? t : NULL,
			   (nt_eff < sizeof(t) / sizeof(t[0]) ?
			    nt_eff : sizeof(t) / sizeof(t[0])) * sizeof(*t));
	aptr = special_ptr(ap, atoms, (na_eff < cap ? na_eff : cap) * sizeof(*atoms));
	ret = do_hbind(r, tptr, nt_eff, aptr, na_eff);
	r = &c->r;
	if (ret) {
		out("hcall errno=%s", hb_errname(errno));
	} else {
		for (i = 0; i < na; i++)
			sb_add(&b, "%s0x%" PRIx32, i ? "/" : "", atoms[i]);
		out("hcall ret=0 out=%s", b.s ? b.s : "-");
		free(b.s);
		b.s = NULL;
		b.len = b.cap = 0;
		if (used_q) {
			rle(&b, 'u', (int *)qbuf, r->count);
			out("query%s", b.s ? b.s : " none");
		}
	}
	free(b.s);
	free(atoms);
	free(qbuf);
	free(dup);
}

/* ---------------------------------------------------------------- */
/* mempolicy calls                                                  */
/* ---------------------------------------------------------------- */

static void op_mbind(struct opctx *c)
{
	const struct range *r = &c->r;
	const char *args = c->args;
	char *dup = strdup(args ? args : "default"), *nodes, *flags;
	unsigned long mask = 0;
	const unsigned long *mp = &mask;
	int mode;

	nodes = strchr(dup, ':');
	if (nodes)
		*nodes++ = '\0';
	flags = nodes ? strchr(nodes, ':') : NULL;
	if (flags)
		*flags++ = '\0';
	parse_mode(dup, &mode);
	if (nodes && (!strcmp(nodes, "null") || !strcmp(nodes, "bad") ||
		      !strcmp(nodes, "kernel")))
		mp = special_ptr(nodes, &mask, sizeof(mask));
	else
		parse_nodes(nodes, &mask);
	if (sys_mbind(r->start, r->len, mode, mp, HB_MAXNODE,
		      (unsigned int)parse_flags(flags, mbind_flags)))
		out("mbind errno=%s", hb_errname(errno));
	else
		out("mbind ok");
	free(dup);
}

static void op_move(struct opctx *c)
{
	const struct range *r = &c->r;
	const char *args = c->args;
	char *dup = strdup(args ? args : ""), *flags = strchr(dup, ':');
	static const struct flagname mf[] = {
		{ "all", HB_MPOL_MF_MOVE_ALL }, { "badstatus", 1UL << 20 },
		{ "badnodes", 1UL << 21 }, { "badpages", 1UL << 22 }, { NULL, 0 } };
	unsigned long f;
	size_t n = r->count ? r->count : 1, i;
	void **p = page_ptrs(r);
	int *nodes = malloc(n * sizeof(int)), *st = malloc(n * sizeof(int));
	struct sbuf b = { 0 };
	long ret;
	int node;

	if (!nodes || !st)
		die("out of memory");
	if (flags)
		*flags++ = '\0';
	node = (int)strtol(dup, NULL, 0);
	f = parse_flags(flags, mf);
	for (i = 0; i < n; i++) {
		nodes[i] = node;
		st[i] = -4095;
	}
	ret = sys_move_pages(0, r->count,
			     f & (1UL << 22) ? unmapped_ptr() : (void *)p,
			     f & (1UL << 21) ? unmapped_ptr() : (void *)nodes,
			     f & (1UL << 20) ? unmapped_ptr() : (void *)st,
			     (int)(f & 0xfffff));
	if (ret < 0) {
		out("move errno=%s", hb_errname(errno));
	} else {
		summary(&b, st, r->count);
		out("move ret=%ld%s", ret, b.s);
	}
	free(b.s);
	free(p);
	free(nodes);
	free(st);
	free(dup);
}

static void op_mpages(struct opctx *c)
{
	const char *args = c->args;
	char *dup = strdup(args ? args : ""), *to = strchr(dup, ':');
	unsigned long from_mask, to_mask;
	long ret;

	if (!to)
		die("mpages:FROM:TO");
	*to++ = '\0';
	parse_nodes(dup, &from_mask);
	parse_nodes(to, &to_mask);
	ret = sys_migrate_pages(0, HB_MAXNODE, &from_mask, &to_mask);
	if (ret < 0)
		out("migrate_pages errno=%s", hb_errname(errno));
	else
		out("migrate_pages ret=%ld", ret);
	free(dup);
}

static void op_taskpol(struct opctx *c)
{
	unsigned long mask = 0;
	struct sbuf b = { 0 };
	int mode = -1;

	(void)c;
	if (sys_get_mempolicy(&mode, &mask, HB_MAXNODE, 0, 0)) {
		out("taskpolicy errno=%s", hb_errname(errno));
		return;
	}
	mode_str(&b, mode, mask);
	out("taskpolicy %s", b.s);
	free(b.s);
}

static void op_setpol(struct opctx *c)
{
	const char *args = c->args;
	char *dup = strdup(args ? args : "default"), *nodes = strchr(dup, ':');
	unsigned long mask = 0;
	int mode;

	if (nodes)
		*nodes++ = '\0';
	parse_mode(dup, &mode);
	parse_nodes(nodes, &mask);
	if (sys_set_mempolicy(mode, &mask, HB_MAXNODE))
		out("setpol errno=%s", hb_errname(errno));
	else
		out("setpol ok");
	free(dup);
}

/* ---------------------------------------------------------------- */
/* /proc readers                                                    */
/* ---------------------------------------------------------------- */

static void op_numamaps(struct opctx *c)
{
	const struct range *r = &c->r;
	FILE *f = fopen("/proc/self/numa_maps", "r");
	char line[4096];
	unsigned long vstart = 0, s, e;
	FILE *m = fopen("/proc/self/maps", "r");

	if (!f || !m)
		die("cannot read /proc/self/numa_maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), m))
		if (sscanf(line, "%lx-%lx", &s, &e) == 2 &&
		    r->start >= s && r->start < e)
			vstart = s;
	fclose(m);
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');

		if (strtoul(line, NULL, 16) != vstart || !sp)
			continue;
		line[strcspn(line, "\n")] = '\0';
		out("numa_maps %s", sp + 1);
		fclose(f);
		return;
	}
	fclose(f);
	out("numa_maps none");
}

/* number of VMAs the range meets, from /proc/self/maps */
static void op_vmas(struct opctx *c)
{
	const struct range *r = &c->r;
	FILE *m = fopen("/proc/self/maps", "r");
	unsigned long s, e, end = r->start + r->len;
	char line[4096];
	int n = 0;

	if (!m)
		die("cannot read /proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), m))
		if (sscanf(line, "%lx-%lx", &s, &e) == 2 &&
		    s < end && e > r->start)
			n++;
	fclose(m);
	out("vmas %d", n);
}

static void op_thp(struct opctx *c)
{
	const struct range *r = &c->r;
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long s, e, kb, total = 0;
	int in = 0;

	if (!f)
		die("cannot read /proc/self/smaps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') &&
		    strchr(line, '-') < strchr(line, ' '))
			in = s < r->start + r->len && e > r->start;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			total += kb;
		else if (in && sscanf(line, "ShmemPmdMapped: %lu kB", &kb) == 1)
			total += kb;
	}
	fclose(f);
	out("thp kb=%lu", total);
}

/* ---------------------------------------------------------------- */
/* processes, capabilities, mappings                                */
/* ---------------------------------------------------------------- */

static void touch_range(const struct range *r, int write)
{
	size_t i;

	for (i = 0; i < r->count; i++) {
		volatile uint64_t *p = (uint64_t *)(r->start + i * PS);
		uint64_t idx = (r->start + i * PS - (unsigned long)M.base) / PS;

		if (write)
			*p = COOKIE | idx;
		else
			(void)*p;
	}
}

static void op_touch(struct opctx *c)
{
	touch_range(&c->r, 1);
	out("touch ok");
}

static void op_read(struct opctx *c)
{
	touch_range(&c->r, 0);
	out("read ok");
}

static void op_verify(struct opctx *c)
{
	const struct range *r = &c->r;
	size_t i, bad = 0;

	for (i = 0; i < r->count; i++) {
		uint64_t idx = (r->start + i * PS - (unsigned long)M.base) / PS;

		bad += *(volatile uint64_t *)(r->start + i * PS) != (COOKIE | idx);
	}
	if (bad)
		out("verify bad=%zu", bad);
	else
		out("verify ok");
}

static void op_hold(struct opctx *c)
{
	const struct range *r = &c->r;
	int fd[2];
	char ch;

	if (hold_pid)
		die("hold: already holding");
	if (pipe(fd))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	hold_pid = fork();
	if (hold_pid < 0)
		die("fork: %s", strerror(errno));
	if (!hold_pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fd[0]);
		touch_range(r, 0);
		if (write(fd[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fd[1]);
	if (read(fd[0], &ch, 1) != 1)
		die("hold: the child died");
	close(fd[0]);
	out("hold ok");
}

static void op_release(struct opctx *c)
{
	(void)c;
	if (!hold_pid)
		die("release: not holding");
	kill(hold_pid, SIGKILL);
	waitpid(hold_pid, NULL, 0);
	hold_pid = 0;
	out("release ok");
}

/* drop CAP_SYS_NICE everywhere, like setpriv --bounding-set -sys_nice */
#define HB_CAP_SYS_NICE		23
#define HB_CAP_VERSION_3	0x20080522
struct hb_cap_header { uint32_t version; int pid; };
struct hb_cap_data { uint32_t effective, permitted, inheritable; };

static void op_nocap(struct opctx *c)
{
	struct hb_cap_header h = { HB_CAP_VERSION_3, 0 };
	struct hb_cap_data d[2];
	uint32_t bit = 1U << HB_CAP_SYS_NICE;

	(void)c;
	if (prctl(PR_CAPBSET_DROP, HB_CAP_SYS_NICE, 0, 0, 0) ||
	    syscall(SYS_capget, &h, d)) {
		out("nocap errno=%s", hb_errname(errno));
		return;
	}
	d[0].effective &= ~bit;
	d[0].permitted &= ~bit;
	d[0].inheritable &= ~bit;
	if (syscall(SYS_capset, &h, d))
		out("nocap errno=%s", hb_errname(errno));
	else
		out("nocap ok");
}

/* cpu:N pins to CPU N, cpu:all lets the thread run on every CPU again */
static void op_cpu(struct opctx *c)
{
	int cpu = c->args && !strcmp(c->args, "all") ? -1 :
		  (int)parse_ul(c->args ? c->args : "", "cpu");

	if (hb_pin(cpu))
		die("sched_setaffinity(%d): %s", cpu, strerror(errno));
	out("cpu ok");
}

static void op_sleep(struct opctx *c)
{
	usleep(parse_ul(c->args ? c->args : "", "ms") * 1000);
}

/* open a file and keep it open: a device the process may then use */
static void op_open(struct opctx *c)
{
	if (!c->args || !*c->args)
		die("open: a path is needed");
	if (open(c->args, O_RDWR) < 0)
		out("open errno=%s", hb_errname(errno));
	else
		out("open ok");
}

static void op_info(struct opctx *c)
{
	(void)c;
	out("map base=%p pages=%zu kind=%s", (void *)M.base, M.npages,
	    kind_names[M.kind]);
}

/*
 * A valid call (DEFAULT on the first page) must return 0: a mere EINVAL
 * could come from another system call holding the number on another kernel.
 */
static void op_probe(struct opctx *c)
{
	uint32_t atom = HBIND_ATOM(HBIND_CMD_DEFAULT, 0);

	(void)c;
	if (!sys_hbind((unsigned long)M.base, PS, NULL, 0, &atom, 1))
		out("probe ok");
	else if (errno == ENOSYS)
		out("probe ENOSYS");
	else
		out("probe errno=%s", hb_errname(errno));
}

static void op_mremap(struct opctx *c)
{
	size_t resv = M.len + THP_SIZE;
	char *r = mmap(NULL, resv, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;
	void *n;

	(void)c;
	if (r == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	a = ((uintptr_t)r + THP_SIZE - 1) & ~(THP_SIZE - 1);
	n = mremap(M.base, M.len, M.len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)a);
	if (n == MAP_FAILED) {
		out("mremap errno=%s", hb_errname(errno));
		munmap(r, resv);
		return;
	}
	if (a > (uintptr_t)r)
		munmap(r, a - (uintptr_t)r);
	if ((uintptr_t)r + resv > a + M.len)
		munmap((char *)a + M.len, (uintptr_t)r + resv - a - M.len);
	out("mremap %s", n != (void *)M.base ? "moved" : "same");
	M.base = n;
}

static void op_unmap(struct opctx *c)
{
	if (munmap((void *)c->r.start, c->r.len))
		out("unmap errno=%s", hb_errname(errno));
	else
		out("unmap ok");
}

static void op_remap(struct opctx *c)
{
	enum kind kind = M.kind == K_THP ? K_ANON : M.kind;
	void *p = (void *)c->r.start;

	if (munmap(p, c->r.len) || map_at(p, c->r.len, kind) == MAP_FAILED)
		out("remap errno=%s", hb_errname(errno));
	else
		out("remap ok");
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGKILL: return "KILL";
	case SIGSEGV: return "SEGV";
	case SIGBUS: return "BUS";
	case SIGABRT: return "ABRT";
	case SIGTERM: return "TERM";
	}
	return "other";
}

/* index of the 'end' matching the 'fork' at @i (or argc) */
static int match_end(int argc, char **argv, int i)
{
	for (i++; i < argc; i++)
		if (!strcmp(argv[i], "end"))
			return i;
	return argc;
}

/* the child runs the OPs up to 'end', the parent then goes on after it */
static void op_fork(struct opctx *c)
{
	int end = match_end(c->argc, c->argv, c->i), status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		prefix = "child: ";
		hold_pid = 0;
		return;
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid: %s", strerror(errno));
	if (WIFSIGNALED(status))
		out("fork signal=%s", signame(WTERMSIG(status)));
	else
		out("fork exit=%d", WEXITSTATUS(status));
	c->i = end;
}

/* the end of a fork's OPs: the child exits; elsewhere nothing */
static void op_end(struct opctx *c)
{
	(void)c;
	if (*prefix) {
		fflush(stdout);
		exit(0);
	}
}

/* the operations, in the order hbind-do -h lists them */
static const struct op {
	const char *name;
	const char *args;	/* what may follow NAME (usage text) */
	void (*fn)(struct opctx *c);
	const char *help;	/* what it prints; '\n' between lines */
} ops[] = {
	{ "touch", "", op_touch, "write a cookie to every page: 'touch ok'" },
	{ "read", "", op_read, "read every page: 'read ok'" },
	{ "verify", "", op_verify,
	  "check the cookies: 'verify ok' | 'verify bad=N'" },
	{ "where", "", op_where,
	  "move_pages() query: 'nodes n0=12 ENOENT=4'" },
	{ "pages", "", op_pages, "per page: 'pages 0-11:n0 12-15:ENOENT'" },
	{ "query", "", op_query,
	  "hbind QUERY: 'query 0-11:u5 12-15:ENOENT'" },
	{ "bind", ":TGTS[:strict+task|FLAGS]", op_bind,
	  "hbind BIND (task: the task policy):\n"
	  "'bind ok' | 'bind errno=E'" },
	{ "migrate", ":TGTS[:all|FLAGS]", op_migrate,
	  "hbind MIGRATE: 'migrate moved=N' | errno" },
	{ "default", "", op_default, "hbind DEFAULT: 'default ok' | errno" },
	{ "il", ":TGTS:W,W..|auto|auto=INIT[:move+task|FLAGS]", op_il,
	  "hbind INTERLEAVE with these weights, or by bandwidth\n"
	  "from the CPU's initiator or initiator INIT:\n"
	  "'il ok' | errno" },
	{ "tdefault", "", op_tdefault,
	  "hbind TASK_DEFAULT: 'tdefault ok' | errno" },
	{ "hcall", ":KEY=VAL,...", op_hcall,
	  "raw hbind (KEYs below): 'hcall ret=0 out=..' | errno" },
	{ "mbind", ":MODE[+static|+relative][:NODES|-|null|bad[:FLAGS]]",
	  op_mbind,
	  "mbind(), FLAGS strict+move+moveall|N:\n"
	  "'mbind ok' | errno" },
	{ "move", ":NODE[:all+badstatus+badnodes+badpages]", op_move,
	  "move_pages() to NODE: 'move ret=0 n1=16' | errno" },
	{ "mpages", ":FROM:TO", op_mpages,
	  "migrate_pages(self): 'migrate_pages ret=N'" },
	{ "getpol", "", op_getpol,
	  "per page get_mempolicy(MPOL_F_ADDR):\n"
	  "'policy 0-15:bind=static:1'" },
	{ "taskpol", "", op_taskpol,
	  "the task policy: 'taskpolicy bind:1' | errno" },
	{ "setpol", ":MODE[:NODES]", op_setpol,
	  "set_mempolicy(): 'setpol ok' | errno" },
	{ "snap", "", op_snap, "remember policy and placement: 'snap ok'" },
	{ "same", "", op_same,
	  "compare them with snap's: 'unchanged' | 'changed ...'" },
	{ "numamaps", "", op_numamaps, "the numa_maps line: 'numa_maps ...'" },
	{ "thp", "", op_thp, "AnonHugePages + ShmemPmdMapped: 'thp kb=N'" },
	{ "vmas", "", op_vmas, "VMAs the range meets: 'vmas N'" },
	{ "fork", "", op_fork,
	  "run the OPs up to 'end' in a child (its lines\n"
	  "start with 'child: '): 'fork exit=N|signal=S'" },
	{ "end", "", op_end, "the end of fork's OPs" },
	{ "hold", "", op_hold,
	  "a child maps the range (pages shared): 'hold ok'" },
	{ "release", "", op_release, "the holding child exits: 'release ok'" },
	{ "unmap", "", op_unmap, "munmap(): 'unmap ok' | errno" },
	{ "remap", "", op_remap, "munmap(), mmap() again: 'remap ok' | errno" },
	{ "mremap", "", op_mremap,
	  "move the mapping: 'mremap moved|same' | errno" },
	{ "nocap", "", op_nocap,
	  "drop CAP_SYS_NICE (effective, permitted, bounding\n"
	  "set): 'nocap ok' | errno" },
	{ "cpu", ":N|all", op_cpu, "pin to CPU N, or allow all: 'cpu ok'" },
	{ "sleep", ":MS", op_sleep, "sleep MS milliseconds" },
	{ "open", ":PATH", op_open,
	  "open PATH (a device) and keep it open: 'open ok' | errno" },
	{ "info", "", op_info, "'map base=ADDR pages=N kind=KIND'" },
	{ "probe", "", op_probe,
	  "hbind() there? 'probe ok' | 'probe ENOSYS' | errno" },
};

#define NR_OPS	(sizeof(ops) / sizeof(ops[0]))

static void usage_ops(FILE *f)
{
	char left[64];
	size_t i;

	fputs(
"Each OP is NAME[:ARGS][@RANGE]; RANGE is FIRST[+COUNT] in pages, or\n"
"o:OFFSET:LEN (bytes from the mapping start) or a:ADDR:LEN (absolute)\n"
"or vdso ([vvar] and the first page of [vdso]);\n"
"the default range is the whole mapping. TGTS are target uids or nN (the\n"
"target of node N), separated by ',' ('-' = none). Operations:\n", f);
	for (i = 0; i < NR_OPS; i++) {
		snprintf(left, sizeof(left), "%s%s", ops[i].name, ops[i].args);
		hb_usage_row(f, 20, left, ops[i].help);
	}
	fputs(
"hcall's KEYs: t=TGTS (/-separated), tp=null|bad|kernel|tail (the targets\n"
"pointer; tail: the last dword on an unmapped page), nt=N, a=DWORD/... (Q,\n"
"QK, QB, QN: the two dwords of a query buffer pointer: valid, kernel,\n"
"unmapped, NULL), ap=... (as tp, for the atoms), na=N, pad=N (DEFAULT\n"
"atoms up to N dwords, natoms unchanged), r=0 (start and len 0, not the\n"
"mapping)\n", f);
}

static const struct op *find_op(const char *name)
{
	size_t i;

	for (i = 0; i < NR_OPS; i++)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	return NULL;
}

static void opt_size(const char *arg)
{
	char *end;

	M.npages = strtoul(arg, &end, 0);
	if (*end == 'M')
		M.npages = M.npages * MIB / PS;
	else if (*end)
		die("bad size '%s'", arg);
}

static const char *kind_arg = "anon";

static const struct hb_opt opts[] = {
	{ .name = 'n', .kind = HB_OPT_FN, .fn = opt_size, .arg = "SIZE",
	  .help = "mapping size: base pages, or MiB with an M suffix "
		  "(default 16)" },
	{ .name = 'm', .kind = HB_OPT_STR, .dest = &kind_arg, .arg = "KIND",
	  .help = "anon (private, default), shm (shared anonymous), thp "
		  "(private,\n2 MiB aligned, MADV_HUGEPAGE), hugetlb (first "
		  "half anon, second\nhalf MAP_HUGETLB 2 MiB pages; SIZE a "
		  "multiple of 4 MiB)" },
	{ .name = 'c', .kind = HB_OPT_PIN, .arg = "CPU",
	  .help = "pin the process to CPU first" },
	{ .name = 'h', .kind = HB_OPT_HELP, .help = "this text" },
	{ 0 }
};

static const struct hb_cli cli = {
	.prog = "hbind-do",
	.synopsis = "hbind-do [-n SIZE] [-m anon|shm|thp|hugetlb] [-c CPU] "
		    "OP...",
	.opts = opts,
	.more = usage_ops,
};

/* the mapping of -n SIZE and -m KIND */
static void map_setup(void)
{
	for (M.kind = 0; M.kind < NR_KINDS; M.kind++)
		if (!strcmp(kind_names[M.kind], kind_arg))
			break;
	if (M.kind == NR_KINDS)
		die("bad kind '%s'", kind_arg);
	if (!M.npages)
		die("size must not be 0");
	M.len = M.npages * PS;
	if (M.kind == K_HUGETLB && M.len % (2 * THP_SIZE))
		die("hugetlb: size must be a multiple of 4 MiB");
	M.base = map_at(NULL, M.len, M.kind == K_HUGETLB ? K_ANON : M.kind);
	if (M.base == MAP_FAILED) {
		fprintf(stderr, "%s: mmap %zu bytes: %s\n", prog, M.len,
			strerror(errno));
		exit(1);
	}
	if (M.kind == K_HUGETLB &&
	    mmap(M.base + M.len / 2, M.len / 2, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED,
		 -1, 0) == MAP_FAILED) {
		fprintf(stderr, "%s: MAP_HUGETLB %zu bytes: %s\n", prog,
			M.len / 2, strerror(errno));
		exit(77);
	}
}

int main(int argc, char **argv)
{
	struct opctx c = { .argc = argc, .argv = argv };

	PS = sysconf(_SC_PAGESIZE);
	c.i = hb_getopt(&cli, argc, argv);
	map_setup();
	for (; c.i < argc; c.i++) {
		char *word = strdup(argv[c.i]), *at = strrchr(word, '@');
		const struct op *op;
		char *args;

		if (at)
			*at++ = '\0';
		args = strchr(word, ':');
		if (args)
			*args++ = '\0';
		parse_range(at, &c.r);
		op = find_op(word);
		if (!op)
			die("unknown operation '%s' (see -h)", word);
		c.args = args;
		op->fn(&c);
		free(word);
	}
	if (hold_pid) {
		kill(hold_pid, SIGKILL);
		waitpid(hold_pid, NULL, 0);
	}
	fflush(stdout);
	return 0;
}
