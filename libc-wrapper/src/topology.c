// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * topology.c - read the HMS topology from sysfs (or a copy of it).
 *
 * Layout (Documentation/ABI/testing/sysfs-bus-hms):
 *   ROOT/devices/v1-<uid>-<type> -> the object directory, with one value per
 *   file and membership directories holding symlinks named after the
 *   objects they point to (links/v1-7-link -> ../../v1-7-link).
 *
 * Reading is tolerant: entries that are not HMS objects or have another
 * version prefix are ignored; an object with a malformed or missing
 * required attribute is skipped (or fails the load with
 * HMS_TOPOLOGY_STRICT); a membership symlink that dangles or names an
 * object that was not loaded is ignored. Memberships are the union of both
 * directions (target/links and link/targets...), so a single missing
 * symlink loses nothing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define MAX_CPUS	(1U << 20)	/* cpulist sanity bound */
#define ATTR_MAX	4096

/* ---------------------------------------------------------------- */
/* small parsers                                                     */

/* Parse "v<ver>-<uid>-<type>". Returns 0 and fills the fields. */
static int parse_name(const char *name, unsigned long *ver, uint32_t *uid,
		      enum hms_object_type *type)
{
	const char *p = name;
	char *end;
	unsigned long v, u;

	if (*p++ != 'v' || *p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtoul(p, &end, 10);
	if (errno || *end != '-')
		return -1;
	p = end + 1;
	if (*p < '0' || *p > '9')
		return -1;
	u = strtoul(p, &end, 10);
	if (errno || *end != '-' || u > INT32_MAX)
		return -1;
	p = end + 1;
	if (!strcmp(p, "target"))
		*type = HMS_OBJ_TARGET;
	else if (!strcmp(p, "initiator"))
		*type = HMS_OBJ_INITIATOR;
	else if (!strcmp(p, "link"))
		*type = HMS_OBJ_LINK;
	else if (!strcmp(p, "bridge"))
		*type = HMS_OBJ_BRIDGE;
	else
		*type = HMS_OBJ_NONE;
	*ver = v;
	*uid = (uint32_t)u;
	return 0;
}

/* Read a one-line attribute; strips one trailing newline. */
static int read_attr(int dfd, const char *file, char *buf, size_t size)
{
	ssize_t n;
	int fd = openat(dfd, file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	if ((size_t)n == size - 1) {
		errno = EFBIG;
		return -1;
	}
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (memchr(buf, '\n', (size_t)n) || memchr(buf, '\0', (size_t)n)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (!((*s >= '0' && *s <= '9') || (*s == '-' && s[1] >= '0' && s[1] <= '9')))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < INT32_MIN || v > INT32_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

/* Parse a cpulist ("0-3,8,10-11", "" = none) into a bitmap. */
static int parse_cpulist(const char *s, struct hms_initiator *in)
{
	const char *p;
	unsigned long maxcpu = 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		p = s;
		while (*p) {
			unsigned long a, b;
			char *end;

			if (*p < '0' || *p > '9')
				return -1;
			a = strtoul(p, &end, 10);
			b = a;
			if (*end == '-') {
				if (end[1] < '0' || end[1] > '9')
					return -1;
				b = strtoul(end + 1, &end, 10);
			}
			if (b < a || b >= MAX_CPUS)
				return -1;
			if (*end == ',' && end[1])
				end++;
			else if (*end)
				return -1;
			p = end;
			if (pass == 0) {
				if (b + 1 > maxcpu)
					maxcpu = b + 1;
				continue;
			}
			for (; a <= b; a++) {
				uint64_t bit = 1ULL << (a % 64);

				if (!(in->cpus[a / 64] & bit))
					in->ncpus++;
				in->cpus[a / 64] |= bit;
			}
		}
		if (pass == 0) {
			in->cpus_words = (unsigned int)((maxcpu + 63) / 64);
			if (in->cpus_words) {
				in->cpus = calloc(in->cpus_words, sizeof(uint64_t));
				if (!in->cpus)
					return -2;
			}
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* growable arrays                                                   */

struct vec {
	void *data;
	size_t n, cap, elem;
};

static void *vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		void *d = realloc(v->data, cap * v->elem);

		if (!d)
			return NULL;
		v->data = d;
		v->cap = cap;
	}
	return memset((char *)v->data + v->n++ * v->elem, 0, v->elem);
}

/* membership pair (a, b): indexes in their type arrays */
struct pair {
	unsigned int a, b;
};

static int pair_cmp(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return 0;
}

/* ---------------------------------------------------------------- */
/* loading                                                           */

struct loader {
	struct hms_topology *topo;
	const char *root;
	int devfd;			/* ROOT/devices */
	unsigned int flags;
	int failed;			/* strict mode: first error */
	/* link-target, link-initiator, link-bridge, bridge-initiator */
	struct vec pairs[4];
};

enum { P_LT, P_LI, P_LB, P_BI };

/* An object with a missing or malformed attribute: skip it (or fail). */
static int skip_object(struct loader *ld)
{
	ld->topo->nskipped++;
	if (ld->flags & HMS_TOPOLOGY_STRICT)
		ld->failed = EINVAL;
	return -1;
}

/* Optional perf/distance file: absent = 0 (unknown), malformed = error. */
static int read_opt_u64(int dfd, const char *file, uint64_t *out)
{
	char buf[64];

	*out = 0;
	if (read_attr(dfd, file, buf, sizeof(buf)) < 0)
		return errno == ENOENT ? 0 : -1;
	return parse_u64(buf, out);
}

static int read_perf(int dfd, struct hms_perf *p)
{
	if (read_opt_u64(dfd, "read_bandwidth", &p->read_bandwidth) ||
	    read_opt_u64(dfd, "write_bandwidth", &p->write_bandwidth) ||
	    read_opt_u64(dfd, "read_latency", &p->read_latency) ||
	    read_opt_u64(dfd, "write_latency", &p->write_latency))
		return -1;
	return 0;
}

static int load_target(struct loader *ld, int dfd, struct hms_target *t)
{
	char buf[64];
	uint64_t v;

	if (read_attr(dfd, "size", buf, sizeof(buf)) || parse_u64(buf, &t->size))
		return skip_object(ld);
	if (read_attr(dfd, "nid", buf, sizeof(buf)) || parse_int(buf, &t->nid) ||
	    t->nid < -1)
		return skip_object(ld);
	if (read_attr(dfd, "type", t->type_name, sizeof(t->type_name)) ||
	    !t->type_name[0])
		return skip_object(ld);
	if (!strcmp(t->type_name, "system"))
		t->type = HMS_TARGET_SYSTEM;
	else if (!strcmp(t->type_name, "device-private"))
		t->type = HMS_TARGET_DEVICE_PRIVATE;
	else if (!strcmp(t->type_name, "device-coherent"))
		t->type = HMS_TARGET_DEVICE_COHERENT;
	else
		t->type = HMS_TARGET_UNKNOWN;
	if (read_attr(dfd, "cpu_accessible", buf, sizeof(buf)) == 0) {
		if (parse_u64(buf, &v) || v > 1)
			return skip_object(ld);
		t->cpu_accessible = (int)v;
	} else {
		t->cpu_accessible = t->type == HMS_TARGET_SYSTEM ||
				    t->type == HMS_TARGET_DEVICE_COHERENT;
	}
	return 0;
}

static int load_initiator(struct loader *ld, int dfd, struct hms_initiator *in)
{
	char *buf = malloc(ATTR_MAX);
	char dev[PATH_MAX];
	int r;

	if (!buf)
		return -2;
	if (read_attr(dfd, "cpulist", buf, ATTR_MAX)) {
		free(buf);
		return skip_object(ld);
	}
	r = parse_cpulist(buf, in);
	if (r == -2) {
		free(buf);
		return -2;
	}
	if (r) {
		free(buf);
		return skip_object(ld);
	}
	in->cpulist = buf;
	in->nid = -1;
	if (read_attr(dfd, "nid", dev, sizeof(dev)) == 0) {
		if (parse_int(dev, &in->nid) || in->nid < -1)
			return skip_object(ld);
	}
	/* device symlink: resolve it; a dangling one is ignored */
	{
		char rel[PATH_MAX];
		int n = snprintf(rel, sizeof(rel), "%s/devices/%s/device",
				 ld->root, in->obj.name);

		if (n > 0 && (size_t)n < sizeof(rel) && realpath(rel, dev)) {
			in->device = strdup(dev);
			if (!in->device)
				return -2;
			in->device_name = strrchr(in->device, '/');
			in->device_name = in->device_name ? in->device_name + 1
							  : in->device;
		}
	}
	return 0;
}

static int load_link(struct loader *ld, int dfd, struct hms_link *l)
{
	uint64_t d;

	if (read_perf(dfd, &l->perf))
		return skip_object(ld);
	if (read_opt_u64(dfd, "distance", &d) || d > UINT32_MAX)
		return skip_object(ld);
	l->distance = (uint32_t)d;
	return 0;
}

static int load_bridge(struct loader *ld, int dfd, struct hms_bridge *b)
{
	if (read_perf(dfd, &b->perf))
		return skip_object(ld);
	return 0;
}

const struct hms_object *hms__lookup(const struct hms_topology *topo,
				     uint32_t uid)
{
	size_t lo = 0, hi;

	if (!topo)
		return NULL;
	hi = topo->nobjects;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint32_t u = topo->by_uid[mid]->uid;

		if (u == uid)
			return topo->by_uid[mid];
		if (u < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Object struct sizes per type, and array accessors */
static size_t type_size(enum hms_object_type t)
{
	switch (t) {
	case HMS_OBJ_TARGET:
		return sizeof(struct hms_target);
	case HMS_OBJ_INITIATOR:
		return sizeof(struct hms_initiator);
	case HMS_OBJ_LINK:
		return sizeof(struct hms_link);
	case HMS_OBJ_BRIDGE:
		return sizeof(struct hms_bridge);
	default:
		return 0;
	}
}

static const char *const member_dirs[5][3] = {
	[HMS_OBJ_TARGET] = { "links" },
	[HMS_OBJ_INITIATOR] = { "links", "bridges" },
	[HMS_OBJ_LINK] = { "initiators", "targets", "bridges" },
	[HMS_OBJ_BRIDGE] = { "links", "initiators" },
};

static const enum hms_object_type member_types[5][3] = {
	[HMS_OBJ_TARGET] = { HMS_OBJ_LINK },
	[HMS_OBJ_INITIATOR] = { HMS_OBJ_LINK, HMS_OBJ_BRIDGE },
	[HMS_OBJ_LINK] = { HMS_OBJ_INITIATOR, HMS_OBJ_TARGET, HMS_OBJ_BRIDGE },
	[HMS_OBJ_BRIDGE] = { HMS_OBJ_LINK, HMS_OBJ_INITIATOR },
};

/*
 * A membership symlink is used only when it resolves (not dangling) and its
 * text ends with the name it is listed under (links/v1-7-link ->
 * ../../v1-7-link): a link that points elsewhere is as broken as a
 * dangling one.
 */
static int member_ok(int dfd, const char *name)
{
	char buf[PATH_MAX];
	const char *base;
	struct stat st;
	ssize_t n;

	if (fstatat(dfd, name, &st, 0) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	n = readlinkat(dfd, name, buf, sizeof(buf) - 1);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	return !strcmp(base, name);
}

/* Record membership "self (type st) -> other (type ot)" as a pair. */
static int add_pair(struct loader *ld, const struct hms_object *self,
		    const struct hms_object *other)
{
	enum hms_object_type st = self->type, ot = other->type;
	const struct hms_object *a = self, *b = other;
	struct pair *p;
	int k;

	/* normalise to (link, x) or (bridge, initiator) */
	if (st == HMS_OBJ_TARGET || st == HMS_OBJ_INITIATOR ||
	    (st == HMS_OBJ_BRIDGE && ot == HMS_OBJ_LINK)) {
		a = other;
		b = self;
	}
	if (a->type == HMS_OBJ_LINK) {
		k = b->type == HMS_OBJ_TARGET ? P_LT :
		    b->type == HMS_OBJ_INITIATOR ? P_LI : P_LB;
	} else {
		k = P_BI;
	}
	p = vec_push(&ld->pairs[k]);
	if (!p)
		return -1;
	p->a = a->index;
	p->b = b->index;
	return 0;
}

static int load_members(struct loader *ld, int objfd,
			const struct hms_object *self)
{
	unsigned int k;

	for (k = 0; k < 3 && member_dirs[self->type][k]; k++) {
		enum hms_object_type want = member_types[self->type][k];
		struct dirent *de;
		DIR *d;
		int fd = openat(objfd, member_dirs[self->type][k],
				O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			continue;	/* absent: the other side may have it */
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			continue;
		}
		while ((de = readdir(d))) {
			const struct hms_object *o;
			enum hms_object_type type;
			unsigned long ver;
			uint32_t uid;

			if (de->d_name[0] == '.')
				continue;
			if (parse_name(de->d_name, &ver, &uid, &type) || ver != 1)
				continue;
			o = hms__lookup(ld->topo, uid);
			/* dangling, misdirected or naming an object not loaded */
			if (!o || o->type != type || type != want ||
			    !member_ok(dirfd(d), de->d_name))
				continue;
			if (add_pair(ld, self, o)) {
				closedir(d);
				return -1;
			}
		}
		closedir(d);
	}
	return 0;
}

/* Deduplicate pairs and build a pointer array per "a" object. */
static int build_lists(struct vec *v, void *abase, size_t asz, size_t aoff_list,
		       size_t aoff_n, void *bbase, size_t bsz)
{
	struct pair *p = v->data;
	size_t i, j, n = 0;

	if (!v->n)
		return 0;
	qsort(p, v->n, sizeof(*p), pair_cmp);
	for (i = 0; i < v->n; i++)
		if (!n || pair_cmp(&p[n - 1], &p[i]))
			p[n++] = p[i];
	v->n = n;
	for (i = 0; i < n; i = j) {
		char *a = (char *)abase + p[i].a * asz;
		void ***list = (void ***)(a + aoff_list);
		unsigned int *cnt = (unsigned int *)(a + aoff_n);

		for (j = i; j < n && p[j].a == p[i].a; j++)
			;
		*list = malloc((j - i) * sizeof(void *));
		if (!*list)
			return -1;
		for (*cnt = 0; *cnt < j - i; (*cnt)++)
			(*list)[*cnt] = (char *)bbase + p[i + *cnt].b * bsz;
	}
	return 0;
}

/* Same, reversed: (a, b) pairs give lists on the "b" objects. */
static int build_rlists(struct vec *v, void *abase, size_t asz, void *bbase,
			size_t bsz, size_t boff_list, size_t boff_n)
{
	struct pair *p = v->data;
	size_t i;
	int r;

	for (i = 0; i < v->n; i++) {
		unsigned int t = p[i].a;

		p[i].a = p[i].b;
		p[i].b = t;
	}
	r = build_lists(v, bbase, bsz, boff_list, boff_n, abase, asz);
	for (i = 0; i < v->n; i++) {
		unsigned int t = p[i].a;

		p[i].a = p[i].b;
		p[i].b = t;
	}
	return r;
}

struct entry {
	uint32_t uid;
	enum hms_object_type type;
	char name[32];
};

static int entry_cmp(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;

	if (a->uid != b->uid)
		return a->uid < b->uid ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void *type_array(struct hms_topology *t, enum hms_object_type type,
			unsigned int **n)
{
	switch (type) {
	case HMS_OBJ_TARGET:
		*n = &t->ntargets;
		return t->targets;
	case HMS_OBJ_INITIATOR:
		*n = &t->ninitiators;
		return t->initiators;
	case HMS_OBJ_LINK:
		*n = &t->nlinks;
		return t->links;
	case HMS_OBJ_BRIDGE:
		*n = &t->nbridges;
		return t->bridges;
	default:
		return NULL;
	}
}

static void free_object(struct hms_object *o)
{
	switch (o->type) {
	case HMS_OBJ_TARGET: {
		struct hms_target *t = (struct hms_target *)o;

		free(t->links);
		break;
	}
	case HMS_OBJ_INITIATOR: {
		struct hms_initiator *in = (struct hms_initiator *)o;

		free(in->cpulist);
		free(in->cpus);
		free(in->device);
		free(in->links);
		free(in->bridges);
		break;
	}
	case HMS_OBJ_LINK: {
		struct hms_link *l = (struct hms_link *)o;

		free(l->initiators);
		free(l->targets);
		free(l->bridges);
		break;
	}
	case HMS_OBJ_BRIDGE:
		free(((struct hms_bridge *)o)->initiators);
		break;
	default:
		break;
	}
}

void hms_topology_free(struct hms_topology *topo)
{
	unsigned int i;

	if (!topo)
		return;
	for (i = 0; i < topo->nobjects; i++)
		free_object(topo->by_uid[i]);
	free(topo->by_uid);
	free(topo->targets);
	free(topo->initiators);
	free(topo->links);
	free(topo->bridges);
	free(topo);
}

/* Open ROOT/devices, which every pass reads (ld->devfd). */
static int open_devices(struct loader *ld, const char *root)
{
	char path[PATH_MAX];

	ld->root = root;
	if (snprintf(path, sizeof(path), "%s/devices", root) >= (int)sizeof(path))
		return ENAMETOOLONG;
	ld->devfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return ld->devfd < 0 ? errno : 0;
}

/*
 * The entries of ROOT/devices named v1-<uid>-<type> with a known type, in
 * uid order; names of another version or type are counted as ignored.
 */
static int read_names(struct loader *ld, struct vec *ents)
{
	struct dirent *de;
	struct entry *e;
	int fd, err = 0;
	DIR *d;

	fd = dup(ld->devfd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		err = errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	while ((de = readdir(d))) {
		enum hms_object_type type;
		unsigned long ver;
		uint32_t uid;

		if (de->d_name[0] == '.' ||
		    parse_name(de->d_name, &ver, &uid, &type))
			continue;
		if (ver != 1 || type == HMS_OBJ_NONE) {
			ld->topo->nignored++;
			continue;
		}
		if (strlen(de->d_name) >= sizeof(e->name))
			continue;
		e = vec_push(ents);
		if (!e) {
			err = ENOMEM;
			break;
		}
		e->uid = uid;
		e->type = type;
		memcpy(e->name, de->d_name, strlen(de->d_name) + 1);
	}
	closedir(d);
	if (!err)
		qsort(ents->data, ents->n, sizeof(struct entry), entry_cmp);
	return err;
}

/*
 * Count the entries of each type into counts[]. A uid that two entries
 * share (impossible with one IDA) is skipped, both entries: their type
 * becomes HMS_OBJ_NONE.
 */
static void count_names(struct loader *ld, struct vec *ents,
			unsigned int *counts)
{
	struct entry *e = ents->data;
	size_t i;

	for (i = 0; i < ents->n; i++) {
		if ((i + 1 < ents->n && e[i + 1].uid == e[i].uid) ||
		    (i > 0 && e[i - 1].uid == e[i].uid)) {
			ld->topo->nskipped++;
			if (ld->flags & HMS_TOPOLOGY_STRICT)
				ld->failed = EINVAL;
			e[i].type = HMS_OBJ_NONE;
			continue;
		}
		counts[e[i].type]++;
	}
}

/* The array of each type (counts[] long) and by_uid (nents long). */
static int alloc_arrays(struct hms_topology *topo, const unsigned int *counts,
			size_t nents)
{
	topo->targets = calloc(counts[HMS_OBJ_TARGET] + 1,
			       sizeof(struct hms_target));
	topo->initiators = calloc(counts[HMS_OBJ_INITIATOR] + 1,
				  sizeof(struct hms_initiator));
	topo->links = calloc(counts[HMS_OBJ_LINK] + 1, sizeof(struct hms_link));
	topo->bridges = calloc(counts[HMS_OBJ_BRIDGE] + 1,
			       sizeof(struct hms_bridge));
	topo->by_uid = calloc(nents + 1, sizeof(struct hms_object *));
	if (!topo->targets || !topo->initiators || !topo->links ||
	    !topo->bridges || !topo->by_uid)
		return ENOMEM;
	return 0;
}

/* The type-specific attributes of o, read from its directory dfd. */
static int load_type_attrs(struct loader *ld, int dfd, struct hms_object *o)
{
	switch (o->type) {
	case HMS_OBJ_TARGET:
		return load_target(ld, dfd, (struct hms_target *)o);
	case HMS_OBJ_INITIATOR:
		return load_initiator(ld, dfd, (struct hms_initiator *)o);
	case HMS_OBJ_LINK:
		return load_link(ld, dfd, (struct hms_link *)o);
	case HMS_OBJ_BRIDGE:
		return load_bridge(ld, dfd, (struct hms_bridge *)o);
	default:
		return -1;
	}
}

/*
 * Load the object of entry e into the next slot of its type's array: 0 and
 * *op when it loads, -1 when it is skipped (its uid file must match its
 * name), -2 when out of memory.
 */
static int load_object(struct loader *ld, const struct entry *e,
		       struct hms_object **op)
{
	unsigned int *cnt = NULL;
	struct hms_object *o;
	char *base, buf[32];
	uint64_t uid;
	int fd, r;

	base = type_array(ld->topo, e->type, &cnt);
	if (!base || !cnt)
		return -1;
	o = (struct hms_object *)(base + *cnt * type_size(e->type));
	memset(o, 0, type_size(e->type));
	o->type = e->type;
	o->uid = e->uid;
	o->index = *cnt;
	memcpy(o->name, e->name, sizeof(o->name));
	fd = openat(ld->devfd, e->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return skip_object(ld);
	if (read_attr(fd, "uid", buf, sizeof(buf)) ||
	    parse_u64(buf, &uid) || uid != o->uid)
		r = skip_object(ld);
	else
		r = load_type_attrs(ld, fd, o);
	close(fd);
	if (r) {
		free_object(o);
		return r;
	}
	(*cnt)++;
	*op = o;
	return 0;
}

/*
 * The attributes of every counted entry: the objects that load fill their
 * type's arrays and by_uid, in uid order as the entries are. Stops at the
 * first error of a strict load.
 */
static int load_attributes(struct loader *ld, struct vec *ents)
{
	struct hms_topology *topo = ld->topo;
	struct entry *e = ents->data;
	struct hms_object *o;
	size_t i;

	for (i = 0; i < ents->n && !ld->failed; i++) {
		if (e[i].type == HMS_OBJ_NONE)
			continue;
		switch (load_object(ld, &e[i], &o)) {
		case 0:
			topo->by_uid[topo->nobjects++] = o;
			break;
		case -2:
			return ENOMEM;
		}
	}
	return ld->failed;
}

/* The membership symlinks of every loaded object, as pairs (ld->pairs). */
static int read_memberships(struct loader *ld)
{
	unsigned int i;
	int fd, r;

	for (i = 0; i < ld->topo->nobjects; i++) {
		struct hms_object *o = ld->topo->by_uid[i];

		fd = openat(ld->devfd, o->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		r = load_members(ld, fd, o);
		close(fd);
		if (r)
			return ENOMEM;
	}
	return 0;
}

/*
 * The member arrays of both sides of every pair: link targets and
 * initiators, link bridges, bridge initiators, and back.
 */
static int build_memberships(struct loader *ld)
{
	struct hms_topology *topo = ld->topo;

	if (build_lists(&ld->pairs[P_LT], topo->links, sizeof(struct hms_link),
			offsetof(struct hms_link, targets),
			offsetof(struct hms_link, ntargets),
			topo->targets, sizeof(struct hms_target)) ||
	    build_rlists(&ld->pairs[P_LT], topo->links, sizeof(struct hms_link),
			 topo->targets, sizeof(struct hms_target),
			 offsetof(struct hms_target, links),
			 offsetof(struct hms_target, nlinks)) ||
	    build_lists(&ld->pairs[P_LI], topo->links, sizeof(struct hms_link),
			offsetof(struct hms_link, initiators),
			offsetof(struct hms_link, ninitiators),
			topo->initiators, sizeof(struct hms_initiator)) ||
	    build_rlists(&ld->pairs[P_LI], topo->links, sizeof(struct hms_link),
			 topo->initiators, sizeof(struct hms_initiator),
			 offsetof(struct hms_initiator, links),
			 offsetof(struct hms_initiator, nlinks)) ||
	    build_lists(&ld->pairs[P_LB], topo->links, sizeof(struct hms_link),
			offsetof(struct hms_link, bridges),
			offsetof(struct hms_link, nbridges),
			topo->bridges, sizeof(struct hms_bridge)) ||
	    build_lists(&ld->pairs[P_BI], topo->bridges, sizeof(struct hms_bridge),
			offsetof(struct hms_bridge, initiators),
			offsetof(struct hms_bridge, ninitiators),
			topo->initiators, sizeof(struct hms_initiator)) ||
	    build_rlists(&ld->pairs[P_BI], topo->bridges, sizeof(struct hms_bridge),
			 topo->initiators, sizeof(struct hms_initiator),
			 offsetof(struct hms_initiator, bridges),
			 offsetof(struct hms_initiator, nbridges)))
		return ENOMEM;
	return 0;
}

/*
 * Each bridge's links, from the links' bridge lists: a bridge joins
 * exactly two links, else it is unusable (an error when strict).
 */
static int connect_bridges(struct loader *ld)
{
	struct hms_topology *topo = ld->topo;
	unsigned int i, n;

	for (i = 0; i < topo->nlinks; i++) {
		struct hms_link *l = &topo->links[i];

		for (n = 0; n < l->nbridges; n++) {
			struct hms_bridge *b = l->bridges[n];

			if (b->usable < 2)
				b->links[b->usable] = l;
			b->usable++;
		}
	}
	for (i = 0; i < topo->nbridges; i++) {
		struct hms_bridge *b = &topo->bridges[i];

		if (b->usable != 2) {
			b->links[0] = NULL;
			b->links[1] = NULL;
			if (ld->flags & HMS_TOPOLOGY_STRICT)
				return EINVAL;
		}
		b->usable = b->usable == 2;
	}
	return 0;
}

/* CPU-less targets: no CPU initiator on their node. */
static void mark_cpuless(struct hms_topology *topo)
{
	unsigned int i;

	for (i = 0; i < topo->ntargets; i++) {
		struct hms_target *t = &topo->targets[i];

		t->cpuless = t->nid < 0 || !hms_initiator_by_nid(topo, t->nid);
	}
}

/* Read ROOT into ld->topo, pass after pass. Returns 0 or an errno. */
static int do_load(struct loader *ld, const char *root)
{
	struct vec ents = { .elem = sizeof(struct entry) };
	unsigned int counts[5] = { 0 };
	int err;

	err = open_devices(ld, root);
	if (err)
		return err;
	err = read_names(ld, &ents);
	if (!err) {
		count_names(ld, &ents, counts);
		err = alloc_arrays(ld->topo, counts, ents.n);
	}
	if (!err)
		err = load_attributes(ld, &ents);
	if (!err)
		err = read_memberships(ld);
	if (!err)
		err = build_memberships(ld);
	if (!err)
		err = connect_bridges(ld);
	if (!err)
		mark_cpuless(ld->topo);
	free(ents.data);
	close(ld->devfd);
	return err;
}

int hms_topology_load(struct hms_topology **topop, const char *root,
		      unsigned int flags)
{
	struct loader ld = { .flags = flags };
	int err, k;

	if (!topop || (flags & ~HMS_TOPOLOGY_STRICT)) {
		errno = EINVAL;
		return -1;
	}
	*topop = NULL;
	if (!root || !*root)
		root = secure_getenv("HMS_SYSFS_ROOT");
	if (!root || !*root)
		root = HMS_SYSFS_ROOT;
	ld.topo = calloc(1, sizeof(*ld.topo));
	if (!ld.topo)
		return -1;
	for (k = 0; k < 4; k++)
		ld.pairs[k].elem = sizeof(struct pair);
	err = do_load(&ld, root);
	for (k = 0; k < 4; k++)
		free(ld.pairs[k].data);
	if (err) {
		hms_topology_free(ld.topo);
		errno = err;
		return -1;
	}
	*topop = ld.topo;
	return 0;
}

/* ---------------------------------------------------------------- */
/* iteration and lookups                                             */

unsigned int hms_topology_nskipped(const struct hms_topology *t)
{
	return t ? t->nskipped : 0;
}

unsigned int hms_topology_nignored(const struct hms_topology *t)
{
	return t ? t->nignored : 0;
}

#define ITER(kind, arr, cnt, otype)					\
unsigned int hms_topology_n##arr(const struct hms_topology *t)		\
{									\
	return t ? t->cnt : 0;						\
}									\
const struct hms_##kind *hms_topology_##kind(const struct hms_topology *t, \
					     unsigned int i)		\
{									\
	if (!t || i >= t->cnt) {					\
		errno = EINVAL;						\
		return NULL;						\
	}								\
	return &t->arr[i];						\
}									\
const struct hms_##kind *hms_##kind##_by_uid(const struct hms_topology *t, \
					     uint32_t uid)		\
{									\
	const struct hms_object *o = hms__lookup(t, uid);		\
									\
	if (!o || o->type != otype) {					\
		errno = ENOENT;						\
		return NULL;						\
	}								\
	return &t->arr[o->index];					\
}

ITER(target, targets, ntargets, HMS_OBJ_TARGET)
ITER(initiator, initiators, ninitiators, HMS_OBJ_INITIATOR)
ITER(link, links, nlinks, HMS_OBJ_LINK)
ITER(bridge, bridges, nbridges, HMS_OBJ_BRIDGE)

enum hms_object_type hms_uid_type(const struct hms_topology *t, uint32_t uid)
{
	const struct hms_object *o = hms__lookup(t, uid);

	return o ? o->type : HMS_OBJ_NONE;
}

const struct hms_target *hms_target_by_nid(const struct hms_topology *t, int nid)
{
	unsigned int i;

	for (i = 0; t && nid >= 0 && i < t->ntargets; i++)
		if (t->targets[i].nid == nid &&
		    t->targets[i].type == HMS_TARGET_SYSTEM)
			return &t->targets[i];
	errno = ENOENT;
	return NULL;
}

const struct hms_initiator *hms_initiator_by_nid(const struct hms_topology *t,
						 int nid)
{
	unsigned int i;

	for (i = 0; t && nid >= 0 && i < t->ninitiators; i++)
		if (t->initiators[i].nid == nid && !t->initiators[i].device)
			return &t->initiators[i];
	errno = ENOENT;
	return NULL;
}

const struct hms_initiator *hms_initiator_by_cpu(const struct hms_topology *t,
						 int cpu)
{
	unsigned int i;

	for (i = 0; t && cpu >= 0 && i < t->ninitiators; i++)
		if (hms_initiator_has_cpu(&t->initiators[i], cpu))
			return &t->initiators[i];
	errno = ENOENT;
	return NULL;
}

const struct hms_initiator *
hms_initiator_by_device(const struct hms_topology *t, const char *dev)
{
	char real[PATH_MAX];
	const char *rp = NULL;
	unsigned int i;

	if (!t || !dev || !*dev) {
		errno = EINVAL;
		return NULL;
	}
	if (strchr(dev, '/'))
		rp = realpath(dev, real);
	for (i = 0; i < t->ninitiators; i++) {
		const struct hms_initiator *in = &t->initiators[i];

		if (!in->device)
			continue;
		if (rp ? !strcmp(rp, in->device) : !strcmp(dev, in->device_name))
			return in;
	}
	errno = ENOENT;
	return NULL;
}

const struct hms_initiator *hms_initiator_current(const struct hms_topology *t)
{
	int cpu = sched_getcpu();

	if (cpu < 0)
		return NULL;
	return hms_initiator_by_cpu(t, cpu);
}

/* ---------------------------------------------------------------- */
/* accessors                                                         */

#define GET(kind, ret, name, expr, bad)					\
ret hms_##kind##_##name(const struct hms_##kind *o)			\
{									\
	if (!o) {							\
		errno = EINVAL;						\
		return bad;						\
	}								\
	return expr;							\
}

#define GETI(kind, ret, name, arr, cnt)					\
unsigned int hms_##kind##_n##name(const struct hms_##kind *o)		\
{									\
	return o ? o->cnt : 0;						\
}									\
const struct hms_##ret *hms_##kind##_##arr(const struct hms_##kind *o,	\
					   unsigned int i)		\
{									\
	if (!o || i >= o->cnt) {					\
		errno = EINVAL;						\
		return NULL;						\
	}								\
	return o->name[i];						\
}

GET(target, uint32_t, uid, o->obj.uid, UINT32_MAX)
GET(target, uint64_t, size, o->size, 0)
GET(target, int, nid, o->nid, -1)
GET(target, enum hms_target_type, type, o->type, HMS_TARGET_UNKNOWN)
GET(target, const char *, type_name, o->type_name, NULL)
GET(target, int, cpu_accessible, o->cpu_accessible, -1)
GETI(target, link, links, link, nlinks)

GET(initiator, uint32_t, uid, o->obj.uid, UINT32_MAX)
GET(initiator, int, nid, o->nid, -1)
GET(initiator, int, is_device, o->device || (!o->ncpus && o->nid < 0), -1)
GET(initiator, const char *, cpulist, o->cpulist, NULL)
GET(initiator, unsigned int, ncpus, o->ncpus, 0)
GET(initiator, const char *, device, o->device, NULL)
GET(initiator, const char *, device_name, o->device_name, NULL)
GETI(initiator, link, links, link, nlinks)
GETI(initiator, bridge, bridges, bridge, nbridges)

GET(link, uint32_t, uid, o->obj.uid, UINT32_MAX)
GET(link, const struct hms_perf *, perf, &o->perf, NULL)
GET(link, uint32_t, distance, o->distance, 0)
GETI(link, initiator, initiators, initiator, ninitiators)
GETI(link, target, targets, target, ntargets)
GETI(link, bridge, bridges, bridge, nbridges)

GET(bridge, uint32_t, uid, o->obj.uid, UINT32_MAX)
GET(bridge, const struct hms_perf *, perf, &o->perf, NULL)
GETI(bridge, initiator, initiators, initiator, ninitiators)

int hms_initiator_has_cpu(const struct hms_initiator *in, int cpu)
{
	if (!in || cpu < 0 || (unsigned int)cpu / 64 >= in->cpus_words)
		return 0;
	return !!(in->cpus[cpu / 64] & (1ULL << (cpu % 64)));
}

const struct hms_link *hms_bridge_link(const struct hms_bridge *b,
				       unsigned int i)
{
	if (!b || i > 1 || !b->usable) {
		errno = EINVAL;
		return NULL;
	}
	return b->links[i];
}

int hms_bridge_allows(const struct hms_bridge *b, const struct hms_initiator *in)
{
	unsigned int lo = 0, hi;

	if (!b || !in)
		return 0;
	hi = b->ninitiators;
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;
		uint32_t u = b->initiators[mid]->obj.uid;

		if (u == in->obj.uid)
			return b->initiators[mid] == in;
		if (u < in->obj.uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}
