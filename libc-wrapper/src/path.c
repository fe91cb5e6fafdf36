// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * path.c - the HMS path rule (Documentation/mm/hms.rst).
 *
 * A path from initiator I to target T is L0, B1, L1, ..., Bk, Lk: I is on
 * L0, T is on Lk, each Bj connects L(j-1) and Lj and lists I among its
 * initiators. Path bandwidth = minimum over its elements, path latency =
 * sum, and an unknown (0) value in any element makes that path property
 * unknown. The pair (I, T) takes the properties of the path with the
 * highest read bandwidth, ties broken by the lowest read latency (unknown
 * ranks below every known value).
 *
 * The graph's vertices are links, its edges the bridges I may use.
 *  1. widest-path search (Dijkstra with max-min labels) from I's links
 *     gives, per link, the best bottleneck read bandwidth W(L) of a path
 *     ending on it; B = max W(L) over the links T is on.
 *  2. every path through elements of read bandwidth >= B has bandwidth
 *     exactly B, and those are all the widest paths: Dijkstra on read
 *     latency restricted to them and to elements of known latency gives
 *     the lowest latency (ties: fewest elements).
 *  3. if no widest path has a known latency, the path latency is unknown:
 *     a breadth-first search restricted to bandwidth >= B gives the
 *     widest path with the fewest elements.
 * Write bandwidth and latency are those of the chosen path. Each step is
 * O((L + B) log L); ranking every target groups them by B, so one
 * latency search serves all targets with the same bottleneck; a single
 * pair stops each search as soon as the target's best link is final.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define INF	UINT64_MAX

struct heap_item {
	uint64_t key;		/* widest: bandwidth; dijkstra: latency */
	uint32_t hops;
	uint32_t link;
};

struct solver {
	const struct hms_topology *topo;
	const struct hms_initiator *in;
	unsigned char *bridge_ok;	/* I may use bridge i */
	unsigned char *reached, *done;
	uint64_t *width;		/* widest-path bottleneck */
	uint64_t *dist;			/* latency search */
	uint32_t *hops;
	int32_t *pred_link, *pred_bridge;
	struct heap_item *heap;
	size_t nheap, capheap;
	int max_heap;
	unsigned char *stop;		/* links of the one target asked for */
};

/* ---------------------------------------------------------------- */
/* binary heap with lazy deletion                                    */

static int item_before(const struct solver *s, const struct heap_item *a,
		       const struct heap_item *b)
{
	if (a->key != b->key)
		return s->max_heap ? a->key > b->key : a->key < b->key;
	if (a->hops != b->hops)
		return a->hops < b->hops;
	return a->link < b->link;
}

static int heap_push(struct solver *s, uint64_t key, uint32_t hops,
		     uint32_t link)
{
	size_t i;

	if (s->nheap == s->capheap) {
		size_t cap = s->capheap ? s->capheap * 2 : 64;
		struct heap_item *h = realloc(s->heap, cap * sizeof(*h));

		if (!h)
			return -1;
		s->heap = h;
		s->capheap = cap;
	}
	i = s->nheap++;
	s->heap[i] = (struct heap_item){ key, hops, link };
	while (i > 0) {
		size_t p = (i - 1) / 2;
		struct heap_item t;

		if (!item_before(s, &s->heap[i], &s->heap[p]))
			break;
		t = s->heap[p];
		s->heap[p] = s->heap[i];
		s->heap[i] = t;
		i = p;
	}
	return 0;
}

static struct heap_item heap_pop(struct solver *s)
{
	struct heap_item top = s->heap[0];
	size_t i = 0;

	s->heap[0] = s->heap[--s->nheap];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct heap_item t;

		if (l < s->nheap && item_before(s, &s->heap[l], &s->heap[m]))
			m = l;
		if (r < s->nheap && item_before(s, &s->heap[r], &s->heap[m]))
			m = r;
		if (m == i)
			break;
		t = s->heap[m];
		s->heap[m] = s->heap[i];
		s->heap[i] = t;
		i = m;
	}
	return top;
}

/* ---------------------------------------------------------------- */

static void solver_fini(struct solver *s)
{
	free(s->bridge_ok);
	free(s->reached);
	free(s->done);
	free(s->width);
	free(s->dist);
	free(s->hops);
	free(s->pred_link);
	free(s->pred_bridge);
	free(s->heap);
	free(s->stop);
}

static int solver_init(struct solver *s, const struct hms_topology *topo,
		       const struct hms_initiator *in)
{
	size_t nl = topo->nlinks + 1;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->topo = topo;
	s->in = in;
	s->bridge_ok = calloc(topo->nbridges + 1, 1);
	s->reached = calloc(nl, 1);
	s->done = calloc(nl, 1);
	s->width = calloc(nl, sizeof(*s->width));
	s->dist = calloc(nl, sizeof(*s->dist));
	s->hops = calloc(nl, sizeof(*s->hops));
	s->pred_link = calloc(nl, sizeof(*s->pred_link));
	s->pred_bridge = calloc(nl, sizeof(*s->pred_bridge));
	if (!s->bridge_ok || !s->reached || !s->done || !s->width ||
	    !s->dist || !s->hops || !s->pred_link || !s->pred_bridge) {
		solver_fini(s);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < in->nbridges; i++)
		if (in->bridges[i]->usable)
			s->bridge_ok[in->bridges[i]->obj.index] = 1;
	return 0;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static const struct hms_link *other_end(const struct hms_bridge *b,
					const struct hms_link *l)
{
	return b->links[0] == l ? b->links[1] : b->links[0];
}

/* Step 1: W(L) for every link reachable from the initiator. */
static int widest(struct solver *s)
{
	const struct hms_topology *topo = s->topo;
	unsigned int i;

	s->max_heap = 1;
	s->nheap = 0;
	memset(s->reached, 0, topo->nlinks);
	memset(s->done, 0, topo->nlinks);
	for (i = 0; i < s->in->nlinks; i++) {
		const struct hms_link *l = s->in->links[i];
		uint32_t li = l->obj.index;

		s->reached[li] = 1;
		s->width[li] = l->perf.read_bandwidth;
		if (heap_push(s, s->width[li], 1, li))
			return -1;
	}
	while (s->nheap) {
		struct heap_item it = heap_pop(s);
		const struct hms_link *l = &topo->links[it.link];

		if (s->done[it.link] || it.key != s->width[it.link])
			continue;
		s->done[it.link] = 1;
		/* labels pop in decreasing order: this is the target's best */
		if (s->stop && s->stop[it.link])
			break;
		for (i = 0; i < l->nbridges; i++) {
			const struct hms_bridge *b = l->bridges[i];
			const struct hms_link *o;
			uint64_t w;

			if (!s->bridge_ok[b->obj.index])
				continue;
			o = other_end(b, l);
			if (s->done[o->obj.index])
				continue;
			w = min64(it.key, min64(b->perf.read_bandwidth,
						o->perf.read_bandwidth));
			if (!s->reached[o->obj.index] || w > s->width[o->obj.index]) {
				s->reached[o->obj.index] = 1;
				s->width[o->obj.index] = w;
				if (heap_push(s, w, 1, o->obj.index))
					return -1;
			}
		}
	}
	return 0;
}

/* B for a target: -1 if unreachable. */
static int bottleneck(const struct solver *s, const struct hms_target *t,
		      uint64_t *bw)
{
	unsigned int i;
	int found = 0;

	for (i = 0; i < t->nlinks; i++) {
		uint32_t li = t->links[i]->obj.index;

		if (s->reached[li] && (!found || s->width[li] > *bw)) {
			*bw = s->width[li];
			found = 1;
		}
	}
	return found ? 0 : -1;
}

/*
 * Steps 2 and 3: shortest paths over elements of read bandwidth >= bw;
 * with known_lat, only elements of known read latency, weighted by it,
 * otherwise every element weighs 0 (fewest elements).
 */
static int restricted(struct solver *s, uint64_t bw, int known_lat)
{
	const struct hms_topology *topo = s->topo;
	unsigned int i;

	s->max_heap = 0;
	s->nheap = 0;
	memset(s->done, 0, topo->nlinks);
	for (i = 0; i < topo->nlinks; i++)
		s->dist[i] = INF;
	for (i = 0; i < s->in->nlinks; i++) {
		const struct hms_link *l = s->in->links[i];
		uint32_t li = l->obj.index;
		uint64_t d = known_lat ? l->perf.read_latency : 0;

		if (l->perf.read_bandwidth < bw || (known_lat && !d))
			continue;
		s->dist[li] = d;
		s->hops[li] = 1;
		s->pred_link[li] = -1;
		s->pred_bridge[li] = -1;
		if (heap_push(s, d, 1, li))
			return -1;
	}
	while (s->nheap) {
		struct heap_item it = heap_pop(s);
		const struct hms_link *l = &topo->links[it.link];

		if (s->done[it.link] || it.key != s->dist[it.link] ||
		    it.hops != s->hops[it.link])
			continue;
		s->done[it.link] = 1;
		/* (latency, hops, index) pop in increasing order */
		if (s->stop && s->stop[it.link])
			break;
		for (i = 0; i < l->nbridges; i++) {
			const struct hms_bridge *b = l->bridges[i];
			const struct hms_link *o;
			uint32_t oi, h;
			uint64_t d;

			if (!s->bridge_ok[b->obj.index] ||
			    b->perf.read_bandwidth < bw)
				continue;
			o = other_end(b, l);
			oi = o->obj.index;
			if (s->done[oi] || o->perf.read_bandwidth < bw)
				continue;
			if (known_lat) {
				if (!b->perf.read_latency || !o->perf.read_latency)
					continue;
				d = it.key + b->perf.read_latency +
				    o->perf.read_latency;
				if (d < it.key)		/* overflow */
					d = INF - 1;
			} else {
				d = 0;
			}
			h = it.hops + 2;
			if (d < s->dist[oi] || (d == s->dist[oi] && h < s->hops[oi])) {
				s->dist[oi] = d;
				s->hops[oi] = h;
				s->pred_link[oi] = (int32_t)it.link;
				s->pred_bridge[oi] = (int32_t)b->obj.index;
				if (heap_push(s, d, h, oi))
					return -1;
			}
		}
	}
	return 0;
}

/* The end link of the best restricted path to t, or -1. */
static int end_link(const struct solver *s, const struct hms_target *t)
{
	unsigned int i;
	int best = -1;

	for (i = 0; i < t->nlinks; i++) {
		uint32_t li = t->links[i]->obj.index;

		if (s->dist[li] == INF)
			continue;
		if (best < 0 || s->dist[li] < s->dist[best] ||
		    (s->dist[li] == s->dist[best] && s->hops[li] < s->hops[best]))
			best = (int)li;
	}
	return best;
}

/* Walk the path back from link li; fill perf and (optionally) elements. */
static unsigned int walk(const struct solver *s, int li, struct hms_perf *p,
			 uint32_t *elems, unsigned int n)
{
	const struct hms_topology *topo = s->topo;
	unsigned int count = s->hops[li], pos = count;
	int rl = 1, wl = 1;
	struct hms_perf r = { INF, INF, 0, 0 };

	while (li >= 0) {
		const struct hms_link *l = &topo->links[li];
		const struct hms_perf *ps[2] = { &l->perf, NULL };
		unsigned int k;

		if (s->pred_bridge[li] >= 0)
			ps[1] = &topo->bridges[s->pred_bridge[li]].perf;
		for (k = 0; k < 2 && ps[k]; k++) {
			r.read_bandwidth = min64(r.read_bandwidth, ps[k]->read_bandwidth);
			r.write_bandwidth = min64(r.write_bandwidth, ps[k]->write_bandwidth);
			if (!ps[k]->read_latency)
				rl = 0;
			if (!ps[k]->write_latency)
				wl = 0;
			r.read_latency += ps[k]->read_latency;
			r.write_latency += ps[k]->write_latency;
		}
		if (elems && pos >= 1 && pos - 1 < n)
			elems[pos - 1] = l->obj.uid;
		pos--;
		if (s->pred_bridge[li] >= 0) {
			if (elems && pos >= 1 && pos - 1 < n)
				elems[pos - 1] = topo->bridges[s->pred_bridge[li]].obj.uid;
			pos--;
		}
		li = s->pred_link[li];
	}
	if (!rl)
		r.read_latency = 0;
	if (!wl)
		r.write_latency = 0;
	if (p)
		*p = r;
	return count;
}

static int check_args(const struct hms_topology *topo,
		      const struct hms_initiator *in, const struct hms_target *t)
{
	if (!topo || !in || (t && hms__lookup(topo, t->obj.uid) != &t->obj) ||
	    hms__lookup(topo, in->obj.uid) != &in->obj) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int path_one(const struct hms_topology *topo,
		    const struct hms_initiator *in, const struct hms_target *t,
		    struct hms_perf *perf, uint32_t *elems, unsigned int n)
{
	struct solver s;
	uint64_t bw = 0;
	int li, ret = -1;

	if (!t || check_args(topo, in, t)) {
		errno = EINVAL;
		return -1;
	}
	if (solver_init(&s, topo, in))
		return -1;
	s.stop = calloc(topo->nlinks + 1, 1);
	if (!s.stop) {
		errno = ENOMEM;
		goto out;
	}
	for (unsigned int i = 0; i < t->nlinks; i++)
		s.stop[t->links[i]->obj.index] = 1;
	if (widest(&s))
		goto out;
	if (bottleneck(&s, t, &bw)) {
		errno = ENOENT;
		goto out;
	}
	if (restricted(&s, bw, 1))
		goto out;
	li = end_link(&s, t);
	if (li < 0) {
		if (restricted(&s, bw, 0))
			goto out;
		li = end_link(&s, t);
	}
	if (li < 0) {		/* cannot happen: the widest path exists */
		errno = ENOENT;
		goto out;
	}
	ret = (int)walk(&s, li, perf, elems, n);
out:
	solver_fini(&s);
	return ret;
}

int hms_path(const struct hms_topology *topo, const struct hms_initiator *in,
	     const struct hms_target *t, struct hms_perf *perf)
{
	struct hms_perf p;

	if (path_one(topo, in, t, &p, NULL, 0) < 0)
		return -1;
	if (perf)
		*perf = p;
	return 0;
}

int hms_path_elements(const struct hms_topology *topo,
		      const struct hms_initiator *in,
		      const struct hms_target *t, uint32_t *uids,
		      unsigned int n)
{
	if (!uids && n) {
		errno = EINVAL;
		return -1;
	}
	return path_one(topo, in, t, NULL, uids, n);
}

/* ---------------------------------------------------------------- */
/* ranking every target                                              */

struct cand {
	const struct hms_target *t;
	struct hms_perf perf;
	uint64_t bw;		/* bottleneck, grouping key */
	int ok;
};

static int cand_bw_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->bw != b->bw)
		return a->bw < b->bw ? -1 : 1;
	return 0;
}

/* known values first, lower first */
static int lat_cmp(uint64_t a, uint64_t b)
{
	if (a == b)
		return 0;
	if (!a)
		return 1;
	if (!b)
		return -1;
	return a < b ? -1 : 1;
}

static int bw_cmp(uint64_t a, uint64_t b)
{
	return a == b ? 0 : a > b ? -1 : 1;
}

static int by_bandwidth(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	int c = bw_cmp(a->perf.read_bandwidth, b->perf.read_bandwidth);

	if (!c)
		c = lat_cmp(a->perf.read_latency, b->perf.read_latency);
	if (!c)
		c = a->t->obj.uid < b->t->obj.uid ? -1 : 1;
	return c;
}

static int by_latency(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	int c = lat_cmp(a->perf.read_latency, b->perf.read_latency);

	if (!c)
		c = bw_cmp(a->perf.read_bandwidth, b->perf.read_bandwidth);
	if (!c)
		c = a->t->obj.uid < b->t->obj.uid ? -1 : 1;
	return c;
}

static int by_capacity(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->t->size != b->t->size)
		return a->t->size > b->t->size ? -1 : 1;
	return by_bandwidth(x, y);
}

static int filter_ok(const struct hms_target *t, unsigned int flags)
{
	unsigned int types = flags & (HMS_ONLY_SYSTEM | HMS_ONLY_DEVICE);

	if (types) {
		int sys = t->type == HMS_TARGET_SYSTEM;
		int dev = t->type == HMS_TARGET_DEVICE_PRIVATE ||
			  t->type == HMS_TARGET_DEVICE_COHERENT;

		if (!((sys && (types & HMS_ONLY_SYSTEM)) ||
		      (dev && (types & HMS_ONLY_DEVICE))))
			return 0;
	}
	if ((flags & HMS_ONLY_CPULESS) && !t->cpuless)
		return 0;
	if ((flags & HMS_ONLY_CPU_ACCESSIBLE) && !t->cpu_accessible)
		return 0;
	return 1;
}

#define FILTERS_VALID	(HMS_ONLY_SYSTEM | HMS_ONLY_DEVICE | HMS_ONLY_CPULESS | \
			 HMS_ONLY_CPU_ACCESSIBLE)

/* Rank every reachable target passing the filters; returns the count. */
static int rank(const struct hms_topology *topo, const struct hms_initiator *in,
		enum hms_by by, unsigned int flags, struct cand **out)
{
	struct cand *c;
	struct solver s;
	unsigned int i, j, n = 0;
	int (*cmp)(const void *x, const void *y);

	*out = NULL;
	switch (by) {
	case HMS_BY_BANDWIDTH:
		cmp = by_bandwidth;
		break;
	case HMS_BY_LATENCY:
		cmp = by_latency;
		break;
	case HMS_BY_CAPACITY:
		cmp = by_capacity;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if ((flags & ~FILTERS_VALID) || check_args(topo, in, NULL)) {
		errno = EINVAL;
		return -1;
	}
	c = calloc(topo->ntargets + 1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return -1;
	}
	if (solver_init(&s, topo, in)) {
		free(c);
		return -1;
	}
	if (widest(&s))
		goto fail;
	for (i = 0; i < topo->ntargets; i++) {
		const struct hms_target *t = &topo->targets[i];

		if (!filter_ok(t, flags) || bottleneck(&s, t, &c[n].bw))
			continue;
		c[n++].t = t;
	}
	qsort(c, n, sizeof(*c), cand_bw_cmp);
	for (i = 0; i < n; i = j) {
		int again = 0;

		for (j = i; j < n && c[j].bw == c[i].bw; j++)
			;
		if (restricted(&s, c[i].bw, 1))
			goto fail;
		for (unsigned int k = i; k < j; k++) {
			int li = end_link(&s, c[k].t);

			if (li < 0) {
				again = 1;
				continue;
			}
			walk(&s, li, &c[k].perf, NULL, 0);
			c[k].ok = 1;
		}
		if (!again)
			continue;
		if (restricted(&s, c[i].bw, 0))
			goto fail;
		for (unsigned int k = i; k < j; k++) {
			int li;

			if (c[k].ok)
				continue;
			li = end_link(&s, c[k].t);
			if (li >= 0)
				walk(&s, li, &c[k].perf, NULL, 0);
		}
	}
	solver_fini(&s);
	qsort(c, n, sizeof(*c), cmp);
	*out = c;
	return (int)n;
fail:
	solver_fini(&s);
	free(c);
	errno = ENOMEM;
	return -1;
}

const struct hms_target *hms_best_target(const struct hms_topology *topo,
					 const struct hms_initiator *in,
					 enum hms_by by, unsigned int flags)
{
	const struct hms_target *t;
	struct cand *c;
	int n;

	n = rank(topo, in, by, flags, &c);
	if (n < 0)
		return NULL;
	if (!n) {
		free(c);
		errno = ENOENT;
		return NULL;
	}
	t = c[0].t;
	free(c);
	return t;
}

int hms_target_ranking(const struct hms_topology *topo,
		       const struct hms_initiator *in, enum hms_by by,
		       unsigned int flags, struct hms_target_perf *out,
		       unsigned int n)
{
	struct cand *c;
	int i, cnt;

	if (!out && n) {
		errno = EINVAL;
		return -1;
	}
	cnt = rank(topo, in, by, flags, &c);
	if (cnt < 0)
		return -1;
	for (i = 0; i < cnt && (unsigned int)i < n; i++) {
		out[i].target = c[i].t;
		out[i].perf = c[i].perf;
	}
	free(c);
	return cnt;
}

int hms_target_fallback_list(const struct hms_topology *topo,
			     const struct hms_initiator *in, enum hms_by by,
			     unsigned int flags, uint32_t *uids, unsigned int n)
{
	struct cand *c;
	int i, cnt;

	if (!uids && n) {
		errno = EINVAL;
		return -1;
	}
	cnt = rank(topo, in, by, flags, &c);
	if (cnt < 0)
		return -1;
	for (i = 0; i < cnt && (unsigned int)i < n; i++)
		uids[i] = c[i].t->obj.uid;
	free(c);
	return cnt;
}
