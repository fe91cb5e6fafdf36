// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_reference.c - generated topologies checked against independent
 * implementations of the path rule: exhaustive simple-path enumeration for
 * small random graphs, a bandwidth-threshold sweep with Bellman-Ford for
 * large ones. Times are printed for information only (speed is measured
 * by benchmarks, not asserted by tests).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

struct mperf { uint64_t rbw, wbw, rlat, wlat; };
struct mtarget { int nl, l[3]; uint64_t size; };
struct minit { int nl, l[3]; };
struct mbridge { struct mperf p; int l[2]; int nin, in[4]; };
struct model {
	int nt, ni, nl, nb;
	struct mtarget *t;
	struct minit *i;
	struct mperf *L;
	struct mbridge *b;
};

static uint32_t uid_tg(const struct model *m, int k) { (void)m; return (uint32_t)k + 1; }
static uint32_t uid_i(const struct model *m, int k) { return (uint32_t)(m->nt + k + 1); }
static uint32_t uid_l(const struct model *m, int k) { return (uint32_t)(m->nt + m->ni + k + 1); }
static uint32_t uid_b(const struct model *m, int k)
{
	return (uint32_t)(m->nt + m->ni + m->nl + k + 1);
}

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng % n);
}

static int wfile(const char *dir, const char *file, uint64_t v, const char *s)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	f = fopen(p, "w");
	if (!f)
		return -1;
	if (s)
		fprintf(f, "%s\n", s);
	else
		fprintf(f, "%" PRIu64 "\n", v);
	return fclose(f);
}

static const char *tname[] = { "", "target", "initiator", "link", "bridge" };

static int mkobj(const char *root, uint32_t uid, int type, char *dir)
{
	char link[PATH_MAX], target[128];

	snprintf(dir, PATH_MAX, "%s/devices/hms/v1-%u-%s", root, uid, tname[type]);
	snprintf(link, sizeof(link), "%s/bus/hms/devices/v1-%u-%s", root, uid,
		 tname[type]);
	snprintf(target, sizeof(target), "../../../devices/hms/v1-%u-%s", uid,
		 tname[type]);
	if (mkdir(dir, 0755) || symlink(target, link))
		return -1;
	return wfile(dir, "uid", uid, NULL);
}

static int mkmember(const char *root, uint32_t uid, int type, const char *sub,
		    uint32_t ouid, int otype)
{
	char p[PATH_MAX], target[128];

	snprintf(p, sizeof(p), "%s/devices/hms/v1-%u-%s/%s", root, uid, tname[type], sub);
	if (mkdir(p, 0755) && errno != EEXIST)
		return -1;
	snprintf(p, sizeof(p), "%s/devices/hms/v1-%u-%s/%s/v1-%u-%s", root, uid,
		 tname[type], sub, ouid, tname[otype]);
	snprintf(target, sizeof(target), "../../v1-%u-%s", ouid, tname[otype]);
	return symlink(target, p);
}

static int wperf(const char *dir, const struct mperf *p)
{
	return wfile(dir, "read_bandwidth", p->rbw, NULL) ||
	       wfile(dir, "write_bandwidth", p->wbw, NULL) ||
	       wfile(dir, "read_latency", p->rlat, NULL) ||
	       wfile(dir, "write_latency", p->wlat, NULL);
}

/* Write the model as a sysfs tree under dir; returns the bus root. */
static int write_model(const struct model *m, const char *dir, char *busroot)
{
	char root[PATH_MAX], d[PATH_MAX], cmd[PATH_MAX + 16];
	int k, j;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return -1;
	snprintf(root, sizeof(root), "%s/sys", dir);
	snprintf(d, sizeof(d), "mkdir -p '%s/devices/hms' '%s/bus/hms/devices'", root, root);
	if (system(d))
		return -1;
	snprintf(busroot, PATH_MAX, "%s/bus/hms", root);
	for (k = 0; k < m->nl; k++)
		if (mkobj(root, uid_l(m, k), 3, d) || wperf(d, &m->L[k]) ||
		    wfile(d, "distance", 0, NULL))
			return -1;
	for (k = 0; k < m->nt; k++) {
		if (mkobj(root, uid_tg(m, k), 1, d) ||
		    wfile(d, "size", m->t[k].size, NULL) ||
		    wfile(d, "nid", 0, "-1") || wfile(d, "type", 0, "system") ||
		    wfile(d, "cpu_accessible", 1, NULL))
			return -1;
		for (j = 0; j < m->t[k].nl; j++)
			if (mkmember(root, uid_tg(m, k), 1, "links", uid_l(m, m->t[k].l[j]), 3) ||
			    mkmember(root, uid_l(m, m->t[k].l[j]), 3, "targets", uid_tg(m, k), 1))
				return -1;
	}
	for (k = 0; k < m->ni; k++) {
		char cl[32];

		snprintf(cl, sizeof(cl), "%d", k);
		if (mkobj(root, uid_i(m, k), 2, d) || wfile(d, "cpulist", 0, cl) ||
		    wfile(d, "nid", 0, "-1"))
			return -1;
		for (j = 0; j < m->i[k].nl; j++)
			if (mkmember(root, uid_i(m, k), 2, "links", uid_l(m, m->i[k].l[j]), 3) ||
			    mkmember(root, uid_l(m, m->i[k].l[j]), 3, "initiators", uid_i(m, k), 2))
				return -1;
	}
	for (k = 0; k < m->nb; k++) {
		const struct mbridge *b = &m->b[k];

		if (mkobj(root, uid_b(m, k), 4, d) || wperf(d, &b->p))
			return -1;
		for (j = 0; j < 2; j++)
			if (mkmember(root, uid_b(m, k), 4, "links", uid_l(m, b->l[j]), 3) ||
			    mkmember(root, uid_l(m, b->l[j]), 3, "bridges", uid_b(m, k), 4))
				return -1;
		for (j = 0; j < b->nin; j++)
			if (mkmember(root, uid_b(m, k), 4, "initiators", uid_i(m, b->in[j]), 2) ||
			    mkmember(root, uid_i(m, b->in[j]), 2, "bridges", uid_b(m, k), 4))
				return -1;
	}
	return 0;
}

static int has(const int *a, int n, int v)
{
	for (int k = 0; k < n; k++)
		if (a[k] == v)
			return 1;
	return 0;
}

static void random_perf(struct mperf *p, int big)
{
	static const uint64_t bws[] = { 0, 100, 200, 300, 400 };
	static const uint64_t lats[] = { 0, 1, 2, 3, 5 };

	if (big) {
		p->rbw = rnd(8) ? 100 + rnd(20) * 50 : 0;
		p->rlat = rnd(10) ? 1 + rnd(50) : 0;
	} else {
		p->rbw = bws[rnd(5)];
		p->rlat = lats[rnd(5)];
	}
	p->wbw = rnd(4) ? p->rbw / 2 + rnd(3) : 0;
	p->wlat = rnd(4) ? p->rlat + rnd(3) : 0;
}

static void free_model(struct model *m)
{
	free(m->t);
	free(m->i);
	free(m->L);
	free(m->b);
}

static int gen_model(struct model *m, int nt, int ni, int nl, int nb, int big)
{
	int k;

	memset(m, 0, sizeof(*m));
	m->nt = nt; m->ni = ni; m->nl = nl; m->nb = nb;
	m->t = calloc((size_t)nt, sizeof(*m->t));
	m->i = calloc((size_t)ni, sizeof(*m->i));
	m->L = calloc((size_t)nl, sizeof(*m->L));
	m->b = calloc((size_t)nb + 1, sizeof(*m->b));
	if (!m->t || !m->i || !m->L || !m->b)
		return -1;
	for (k = 0; k < nl; k++)
		random_perf(&m->L[k], big);
	for (k = 0; k < nt; k++) {
		int n = 1 + (int)rnd(2);

		m->t[k].size = (1 + rnd(4)) << 20;
		while (m->t[k].nl < n) {
			int l = (int)rnd((unsigned int)nl);

			if (!has(m->t[k].l, m->t[k].nl, l))
				m->t[k].l[m->t[k].nl++] = l;
			else if (nl < 2)
				break;
		}
	}
	for (k = 0; k < ni; k++) {
		int n = 1 + (int)rnd(2);

		while (m->i[k].nl < n) {
			int l = (int)rnd((unsigned int)nl);

			if (!has(m->i[k].l, m->i[k].nl, l))
				m->i[k].l[m->i[k].nl++] = l;
			else if (nl < 2)
				break;
		}
	}
	for (k = 0; k < nb; k++) {
		struct mbridge *b = &m->b[k];
		int n = 1 + (int)rnd(ni < 3 ? (unsigned int)ni : 3);

		random_perf(&b->p, big);
		b->l[0] = (int)rnd((unsigned int)nl);
		do
			b->l[1] = (int)rnd((unsigned int)nl);
		while (b->l[1] == b->l[0]);
		if (big)	/* initiator 0 may use every bridge */
			b->in[b->nin++] = 0;
		while (b->nin < n) {
			int i = (int)rnd((unsigned int)ni);

			if (!has(b->in, b->nin, i))
				b->in[b->nin++] = i;
		}
	}
	return 0;
}

/* the rule's order on (read bw, read lat): 1 if a is better than b */
static int better(uint64_t bwa, uint64_t lata, uint64_t bwb, uint64_t latb)
{
	if (bwa != bwb)
		return bwa > bwb;
	if (lata == latb)
		return 0;
	if (!lata)
		return 0;
	return !latb || lata < latb;
}

/* exhaustive search over simple paths (small models) */
struct bf { const struct model *m; int in, tg; int found; uint64_t bw, lat; };

static void dfs(struct bf *s, int l, unsigned int visited, uint64_t bw, uint64_t lat,
		int unk)
{
	const struct model *m = s->m;
	int k;

	bw = bw < m->L[l].rbw ? bw : m->L[l].rbw;
	if (!m->L[l].rlat)
		unk = 1;
	lat += m->L[l].rlat;
	if (has(m->t[s->tg].l, m->t[s->tg].nl, l)) {
		uint64_t pl = unk ? 0 : lat;

		if (!s->found || better(bw, pl, s->bw, s->lat)) {
			s->found = 1;
			s->bw = bw;
			s->lat = pl;
		}
	}
	for (k = 0; k < m->nb; k++) {
		const struct mbridge *b = &m->b[k];
		int o;

		if (!has(b->in, b->nin, s->in) || (b->l[0] != l && b->l[1] != l))
			continue;
		o = b->l[0] == l ? b->l[1] : b->l[0];
		if (visited & (1U << o))
			continue;
		dfs(s, o, visited | (1U << o), bw < b->p.rbw ? bw : b->p.rbw,
		    lat + b->p.rlat, unk || !b->p.rlat);
	}
}

/* independent polynomial check (large models): threshold sweep + Bellman-Ford */
static int sweep(const struct model *m, int in, int tg, uint64_t *obw, uint64_t *olat)
{
	uint64_t *vals = malloc(sizeof(uint64_t) * (size_t)(m->nl + m->nb + 1));
	uint64_t *dist = malloc(sizeof(uint64_t) * (size_t)m->nl);
	char *reach = malloc((size_t)m->nl);
	int nv = 0, k, v, changed, found = 0;

	for (k = 0; k < m->nl; k++)
		vals[nv++] = m->L[k].rbw;
	for (k = 0; k < m->nb; k++)
		vals[nv++] = m->b[k].p.rbw;
	/* try thresholds from the highest down (selection by repeated max) */
	for (;;) {
		uint64_t th = 0;
		int any = 0;

		for (k = 0; k < nv; k++)
			if (vals[k] != UINT64_MAX && (!any || vals[k] > th)) {
				th = vals[k];
				any = 1;
			}
		if (!any)
			break;
		for (k = 0; k < nv; k++)
			if (vals[k] == th)
				vals[k] = UINT64_MAX;
		memset(reach, 0, (size_t)m->nl);
		for (k = 0; k < m->i[in].nl; k++)
			if (m->L[m->i[in].l[k]].rbw >= th)
				reach[m->i[in].l[k]] = 1;
		do {
			changed = 0;
			for (k = 0; k < m->nb; k++) {
				const struct mbridge *b = &m->b[k];

				if (b->p.rbw < th || !has(b->in, b->nin, in))
					continue;
				for (v = 0; v < 2; v++)
					if (reach[b->l[v]] && !reach[b->l[!v]] &&
					    m->L[b->l[!v]].rbw >= th) {
						reach[b->l[!v]] = 1;
						changed = 1;
					}
			}
		} while (changed);
		for (k = 0; k < m->t[tg].nl; k++)
			if (reach[m->t[tg].l[k]])
				found = 1;
		if (!found)
			continue;
		*obw = th;
		/* Bellman-Ford on known latencies over elements >= th */
		for (k = 0; k < m->nl; k++)
			dist[k] = UINT64_MAX;
		for (k = 0; k < m->i[in].nl; k++) {
			const struct mperf *p = &m->L[m->i[in].l[k]];

			if (p->rbw >= th && p->rlat)
				dist[m->i[in].l[k]] = p->rlat;
		}
		do {
			changed = 0;
			for (k = 0; k < m->nb; k++) {
				const struct mbridge *b = &m->b[k];

				if (b->p.rbw < th || !b->p.rlat || !has(b->in, b->nin, in))
					continue;
				for (v = 0; v < 2; v++) {
					const struct mperf *o = &m->L[b->l[!v]];
					uint64_t d;

					if (dist[b->l[v]] == UINT64_MAX || o->rbw < th || !o->rlat)
						continue;
					d = dist[b->l[v]] + b->p.rlat + o->rlat;
					if (d < dist[b->l[!v]]) {
						dist[b->l[!v]] = d;
						changed = 1;
					}
				}
			}
		} while (changed);
		*olat = 0;
		for (k = 0; k < m->t[tg].nl; k++) {
			uint64_t d = dist[m->t[tg].l[k]];

			if (d != UINT64_MAX && (!*olat || d < *olat))
				*olat = d;
		}
		break;
	}
	free(vals);
	free(dist);
	free(reach);
	return found;
}

/* Check the elements the library returns form a valid path with its perf. */
static int check_elements(struct hms_topology *topo, const struct hms_initiator *in,
			  const struct hms_target *t, const struct hms_perf *want)
{
	uint32_t el[256];
	int n = hms_path_elements(topo, in, t, el, 256), k;
	struct hms_perf p = { UINT64_MAX, UINT64_MAX, 0, 0 };
	int ru = 0, wu = 0;
	const struct hms_link *prev = NULL;

	if (n <= 0 || n % 2 == 0 || n > 256)
		return 0;
	for (k = 0; k < n; k++) {
		const struct hms_perf *e;

		if (k % 2 == 0) {
			const struct hms_link *l = hms_link_by_uid(topo, el[k]);
			const struct hms_bridge *b = k ? hms_bridge_by_uid(topo, el[k - 1]) : NULL;

			if (!l)
				return 0;
			if (k == 0) {
				int ok = 0;

				for (unsigned int j = 0; j < hms_initiator_nlinks(in); j++)
					ok |= hms_initiator_link(in, j) == l;
				if (!ok)
					return 0;
			} else if (!b || !hms_bridge_allows(b, in) ||
				   !((hms_bridge_link(b, 0) == prev && hms_bridge_link(b, 1) == l) ||
				     (hms_bridge_link(b, 1) == prev && hms_bridge_link(b, 0) == l))) {
				return 0;
			}
			prev = l;
			e = hms_link_perf(l);
		} else {
			const struct hms_bridge *b = hms_bridge_by_uid(topo, el[k]);

			if (!b)
				return 0;
			e = hms_bridge_perf(b);
		}
		p.read_bandwidth = e->read_bandwidth < p.read_bandwidth ? e->read_bandwidth : p.read_bandwidth;
		p.write_bandwidth = e->write_bandwidth < p.write_bandwidth ? e->write_bandwidth : p.write_bandwidth;
		p.read_latency += e->read_latency;
		p.write_latency += e->write_latency;
		ru |= !e->read_latency;
		wu |= !e->write_latency;
	}
	if (ru)
		p.read_latency = 0;
	if (wu)
		p.write_latency = 0;
	for (unsigned int j = 0; j < hms_target_nlinks(t); j++)
		if (hms_target_link(t, j) == prev)
			return !memcmp(&p, want, sizeof(p));
	return 0;
}

static void check_model(const struct model *m, struct hms_topology *topo, int brute,
			int *bad)
{
	int i, t;

	for (i = 0; i < m->ni; i++) {
		const struct hms_initiator *in = hms_initiator_by_uid(topo, uid_i(m, i));
		uint32_t list[4096];
		int nlist, reach = 0;

		if (brute && m->ni > 0 && i > 0 && (rnd(2)))
			continue;
		for (t = 0; t < m->nt; t++) {
			const struct hms_target *tg = hms_target_by_uid(topo, uid_tg(m, t));
			struct hms_perf p;
			uint64_t bw = 0, lat = 0;
			int found, r;

			if (brute) {
				struct bf s = { m, i, t, 0, 0, 0 };

				for (int k = 0; k < m->i[i].nl; k++)
					dfs(&s, m->i[i].l[k], 1U << m->i[i].l[k], UINT64_MAX, 0, 0);
				found = s.found;
				bw = s.bw;
				lat = s.lat;
			} else {
				found = sweep(m, i, t, &bw, &lat);
			}
			r = hms_path(topo, in, tg, &p);
			reach += found;
			if (found != (r == 0) ||
			    (found && (p.read_bandwidth != bw || p.read_latency != lat)) ||
			    (found && !check_elements(topo, in, tg, &p))) {
				if ((*bad)++ < 5)
					printf("#   initiator %u target %u: lib %d %" PRIu64 "/%" PRIu64
					       ", reference %d %" PRIu64 "/%" PRIu64 "\n",
					       uid_i(m, i), uid_tg(m, t), r == 0,
					       p.read_bandwidth, p.read_latency, found, bw, lat);
			}
		}
		nlist = hms_target_fallback_list(topo, in, HMS_BY_BANDWIDTH, 0, list, 4096);
		if (nlist != reach && (*bad)++ < 5)
			printf("#   initiator %u: fallback list %d, reachable %d\n",
			       uid_i(m, i), nlist, reach);
		for (int k = 1; k < nlist && nlist == reach; k++) {
			struct hms_perf a, b;

			hms_path(topo, in, hms_target_by_uid(topo, list[k - 1]), &a);
			hms_path(topo, in, hms_target_by_uid(topo, list[k]), &b);
			if (better(b.read_bandwidth, b.read_latency, a.read_bandwidth,
				   a.read_latency) && (*bad)++ < 5)
				printf("#   initiator %u: fallback list out of order at %d\n",
				       uid_i(m, i), k);
		}
	}
}

static void random_small(void)
{
	char dir[PATH_MAX], root[PATH_MAX];
	int iter, bad = 0;

	snprintf(dir, sizeof(dir), "%s/random", tmpdir);
	for (iter = 0; iter < 150 && bad < 5; iter++) {
		struct model m;
		struct hms_topology *topo;

		if (gen_model(&m, 1 + (int)rnd(4), 1 + (int)rnd(3), 2 + (int)rnd(6),
			      (int)rnd(12), 0) || write_model(&m, dir, root)) {
			CHECK(0, "cannot generate model %d", iter);
			free_model(&m);
			return;
		}
		if (hms_topology_load(&topo, root, 0)) {
			CHECK(0, "load model %d: %s", iter, strerror(errno));
			free_model(&m);
			return;
		}
		check_model(&m, topo, 1, &bad);
		/* the polynomial reference must agree with the exhaustive one */
		check_model(&m, topo, 0, &bad);
		hms_topology_free(topo);
		free_model(&m);
	}
	CHECK(bad == 0, "%d disagreements with the reference implementations", bad);
}


static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void large(void)
{
	char dir[PATH_MAX], root[PATH_MAX];
	struct hms_topology *topo;
	struct model m;
	double t0, tload, tall, tpath;
	int bad = 0, i, nobj;
	const int nt = 1500, ni = 64, nl = 1500, nb = 2500;

	snprintf(dir, sizeof(dir), "%s/large", tmpdir);
	if (gen_model(&m, nt, ni, nl, nb, 1) || write_model(&m, dir, root)) {
		CHECK(0, "cannot generate the large model");
		free_model(&m);
		return;
	}
	nobj = nt + ni + nl + nb;
	t0 = now();
	CHECK(hms_topology_load(&topo, root, 0) == 0, "load: %s", strerror(errno));
	tload = now() - t0;
	if (!topo) {
		free_model(&m);
		return;
	}
	CHECK_EQ(hms_topology_ntargets(topo) + hms_topology_ninitiators(topo) +
		 hms_topology_nlinks(topo) + hms_topology_nbridges(topo), nobj);
	/* every initiator ranks every target: ni full solves */
	t0 = now();
	for (i = 0; i < ni; i++) {
		uint32_t list[64];

		CHECK(hms_target_fallback_list(topo, hms_initiator_by_uid(topo, uid_i(&m, i)),
					       HMS_BY_LATENCY, 0, list, 64) >= 0, "list");
	}
	tall = now() - t0;
	/* one hms_path() per target from the initiator that reaches most */
	t0 = now();
	for (i = 0; i < nt; i++) {
		struct hms_perf p;

		hms_path(topo, hms_initiator_by_uid(topo, uid_i(&m, 0)),
			 hms_target_by_uid(topo, uid_tg(&m, i)), &p);
	}
	tpath = now() - t0;
	/* the one-search ranking agrees with hms_path() for every target */
	{
		struct hms_target_perf *r = calloc((size_t)nt, sizeof(*r));
		const struct hms_initiator *in0 = hms_initiator_by_uid(topo, uid_i(&m, 0));
		int n = r ? hms_target_ranking(topo, in0, HMS_BY_BANDWIDTH, 0, r,
					       (unsigned int)nt) : -1;
		int reach = 0, diff = 0;

		for (i = 0; i < nt; i++) {
			struct hms_perf p;

			reach += hms_path(topo, in0, hms_target_by_uid(topo, uid_tg(&m, i)),
					  &p) == 0;
		}
		for (i = 0; i < n; i++) {
			struct hms_perf p;

			if (hms_path(topo, in0, r[i].target, &p) ||
			    memcmp(&p, &r[i].perf, sizeof(p)))
				diff++;
		}
		CHECK(n == reach && diff == 0, "ranking %d/%d targets, %d differ",
		      n, reach, diff);
		printf("# large: initiator 0 reaches %d of %d targets\n", reach, nt);
		free(r);
	}
	/* initiator 0 may use every bridge: compare against the reference */
	for (i = 0; i < 40; i++) {
		int t = (int)rnd((unsigned int)nt);
		const struct hms_initiator *in = hms_initiator_by_uid(topo, uid_i(&m, 0));
		const struct hms_target *tg = hms_target_by_uid(topo, uid_tg(&m, t));
		uint64_t bw = 0, lat = 0;
		struct hms_perf p;
		int found = sweep(&m, 0, t, &bw, &lat), r = hms_path(topo, in, tg, &p);

		if (found != (r == 0) ||
		    (found && (p.read_bandwidth != bw || p.read_latency != lat ||
			       !check_elements(topo, in, tg, &p)))) {
			if (bad++ < 5)
				printf("#   large: target %d: lib %d %" PRIu64 "/%" PRIu64
				       ", reference %d %" PRIu64 "/%" PRIu64 "\n", t, r == 0,
				       p.read_bandwidth, p.read_latency, found, bw, lat);
		}
	}
	CHECK(bad == 0, "%d disagreements", bad);
	printf("# large: %d objects loaded in %.3f s, %d initiators ranked %d targets "
	       "in %.3f s, %d hms_path() in %.3f s\n", nobj, tload, ni, nt, tall, nt, tpath);
	if (hmsctl) {
		static struct run r;
		double tcli;

		t0 = now();
		run(&r, NULL, "--root", root, "topology", NULL);
		tcli = now() - t0;
		CHECK(r.status == 0 && !strncmp(r.out, "targets: 1500\n", 14),
		      "hmsctl topology on the large tree: %d %s", r.status, r.err);
		printf("# large: hmsctl topology (%d x %d matrix) in %.3f s\n", ni, nt, tcli);
	}
	hms_topology_free(topo);
	free_model(&m);
}

/*
 * A chain: initiator on link 0, bridge k joining links k and k+1, the
 * target on the last link: a path of 2 * NCHAIN + 1 elements, more than
 * any fixed-size buffer a caller might have guessed.
 */
#define NCHAIN	300

static int write_chain(struct model *m, const char *dir, char *root)
{
	int k;

	memset(m, 0, sizeof(*m));
	m->nt = 1; m->ni = 1; m->nl = NCHAIN + 1; m->nb = NCHAIN;
	m->t = calloc(1, sizeof(*m->t));
	m->i = calloc(1, sizeof(*m->i));
	m->L = calloc((size_t)m->nl, sizeof(*m->L));
	m->b = calloc((size_t)m->nb, sizeof(*m->b));
	if (!m->t || !m->i || !m->L || !m->b)
		return -1;
	m->t[0] = (struct mtarget){ 1, { NCHAIN }, 1 << 20 };
	m->i[0] = (struct minit){ 1, { 0 } };
	for (k = 0; k < m->nl; k++)
		m->L[k] = (struct mperf){ 1000, 500, 1, 2 };
	for (k = 0; k < m->nb; k++)
		m->b[k] = (struct mbridge){ { 1000, 500, 1, 2 }, { k, k + 1 }, 1, { 0 } };
	return write_model(m, dir, root);
}

static void long_path(void)
{
	char dir[PATH_MAX], root[PATH_MAX], arg[32];
	struct hms_topology *topo = NULL;
	static struct run r;
	struct hms_perf p;
	struct model m;
	uint32_t *el;
	int n;

	snprintf(dir, sizeof(dir), "%s/chain", tmpdir);
	if (write_chain(&m, dir, root) || hms_topology_load(&topo, root, 0)) {
		CHECK(0, "cannot generate the chain: %s", strerror(errno));
		free_model(&m);
		return;
	}
	n = hms_path_elements(topo, hms_topology_initiator(topo, 0),
			      hms_topology_target(topo, 0), NULL, 0);
	CHECK_EQ(n, 2 * NCHAIN + 1);
	el = calloc(2 * NCHAIN + 1, sizeof(*el));
	CHECK(el && hms_path_elements(topo, hms_topology_initiator(topo, 0),
				      hms_topology_target(topo, 0), el,
				      2 * NCHAIN + 1) == 2 * NCHAIN + 1 &&
	      el[0] == uid_l(&m, 0) && el[1] == uid_b(&m, 0) &&
	      el[2 * NCHAIN] == uid_l(&m, NCHAIN), "elements in order");
	free(el);
	CHECK(hms_path(topo, hms_topology_initiator(topo, 0),
		       hms_topology_target(topo, 0), &p) == 0 &&
	      p.read_latency == 2 * NCHAIN + 1 && p.write_latency == 2 * (2 * NCHAIN + 1),
	      "latency is the sum along the chain");
	hms_topology_free(topo);
	if (hmsctl) {
		snprintf(arg, sizeof(arg), "%u", uid_i(&m, 0));
		run(&r, NULL, "--root", root, "path", arg, "1", NULL);
		CHECK(r.status == 0 && strstr(r.out, "  link 3 bridge 304 link 4 ") &&
		      strstr(r.out, " bridge 603 link 303\n"),
		      "hmsctl path prints every element: %d %.200s", r.status, r.err);
	}
	free_model(&m);
}

TESTS(
	T(random_small, "on 150 random small topologies, every pair's path equals the exhaustive search and the polynomial reference, and fallback lists are in rule order"),
	T(large, "on a large generated topology (5564 objects), paths, elements and the one-search ranking agree with the reference and with hms_path()"),
	T(long_path, "a path of 601 elements is returned whole by hms_path_elements() and printed whole by hmsctl path"),
);
