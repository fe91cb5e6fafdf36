// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hmsctl-print.c - what hmsctl prints on stdout: the topology as a table,
 * JSON or a Graphviz graph, and the answers of path, best and fallback as
 * text or JSON. The printers only read the topology; the commands in
 * hmsctl.c find what to print.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmsctl.h"

/* ------------------------------------------------------------------ */
/* formatting                                                          */

static const char *fmt_size(uint64_t v, char *buf, size_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned int u = 0;
	uint64_t d = 1;

	while (u < 5 && v >= d * 1024) {
		d *= 1024;
		u++;
	}
	if (v % d == 0)
		snprintf(buf, n, "%" PRIu64 " %s", v / d, unit[u]);
	else
		snprintf(buf, n, "%.1f %s", (double)v / (double)d, unit[u]);
	return buf;
}

/* value or "?" when unknown (0) */
static const char *fmt_val(uint64_t v, char *buf, size_t n)
{
	if (!v)
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, "%" PRIu64, v);
	return buf;
}

void json_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_uids(const char *sep, const void *obj,
		       unsigned int (*count)(const void *),
		       const void *(*get)(const void *, unsigned int),
		       uint32_t (*uid)(const void *))
{
	unsigned int i, n = count(obj);

	for (i = 0; i < n; i++)
		printf("%s%" PRIu32, i ? sep : "", uid(get(obj, i)));
	if (!n && !strcmp(sep, ","))
		printf("-");
}

/* adapters so the list printers can take any object kind */
#define ADAPT(kind, list, elem)						\
static unsigned int kind##_n##list##_v(const void *o)			\
{ return hms_##kind##_n##list(o); }					\
static const void *kind##_##list##_v(const void *o, unsigned int i)	\
{ return hms_##kind##_##elem(o, i); }

ADAPT(target, links, link)
ADAPT(initiator, links, link)
ADAPT(initiator, bridges, bridge)
ADAPT(link, initiators, initiator)
ADAPT(link, targets, target)
ADAPT(link, bridges, bridge)
ADAPT(bridge, initiators, initiator)

static unsigned int bridge_nlinks_v(const void *o)
{
	return hms_bridge_link(o, 0) ? 2 : 0;
}

static const void *bridge_links_v(const void *o, unsigned int i)
{
	return hms_bridge_link(o, i);
}

static uint32_t link_uid_v(const void *o) { return hms_link_uid(o); }
static uint32_t bridge_uid_v(const void *o) { return hms_bridge_uid(o); }
static uint32_t target_uid_v(const void *o) { return hms_target_uid(o); }
static uint32_t initiator_uid_v(const void *o) { return hms_initiator_uid(o); }

#define LIST(sep, obj, kind, list, ekind)				\
	print_uids(sep, obj, kind##_n##list##_v, kind##_##list##_v, ekind##_uid_v)

static void json_perf(const struct hms_perf *p)
{
	printf("\"read_bandwidth\": %" PRIu64 ", \"write_bandwidth\": %" PRIu64
	       ", \"read_latency\": %" PRIu64 ", \"write_latency\": %" PRIu64,
	       p->read_bandwidth, p->write_bandwidth, p->read_latency,
	       p->write_latency);
}

#define JLIST(key, obj, kind, list, ekind)				\
	do {								\
		printf(", \"" key "\": [");				\
		LIST(", ", obj, kind, list, ekind);			\
		printf("]");						\
	} while (0)

/* ------------------------------------------------------------------ */
/* topology                                                            */

/*
 * Path values of every (initiator, target) pair, row-major by topology
 * index (ni x nt); unreachable pairs have reach 0.
 */
struct paths {
	unsigned int ni, nt;
	struct hms_perf *perfs;
	unsigned char *reach;
};

/* The index of the target with this uid: targets are in uid order. */
static unsigned int target_index(const struct hms_topology *topo, uint32_t uid)
{
	unsigned int lo = 0, hi = hms_topology_ntargets(topo);

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (hms_target_uid(hms_topology_target(topo, mid)) < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Fill ps from one ranking per initiator; -1 with errno if out of memory. */
static int get_paths(const struct hms_topology *topo, struct paths *ps)
{
	unsigned int i, j, nt = hms_topology_ntargets(topo);
	struct hms_target_perf *r = calloc(nt + 1, sizeof(*r));

	ps->ni = hms_topology_ninitiators(topo);
	ps->nt = nt;
	ps->perfs = calloc((size_t)ps->ni * nt + 1, sizeof(*ps->perfs));
	ps->reach = calloc((size_t)ps->ni * nt + 1, 1);
	if (!r || !ps->perfs || !ps->reach) {
		free(r);
		free(ps->perfs);
		free(ps->reach);
		return -1;
	}
	for (i = 0; i < ps->ni; i++) {
		int n = hms_target_ranking(topo, hms_topology_initiator(topo, i),
					   HMS_BY_BANDWIDTH, 0, r, nt);

		/* every target at most once: n <= nt */
		if (n > (int)nt)
			n = (int)nt;
		for (j = 0; n > 0 && j < (unsigned int)n; j++) {
			size_t k = (size_t)i * nt +
				   target_index(topo, hms_target_uid(r[j].target));

			ps->perfs[k] = r[j].perf;
			ps->reach[k] = 1;
		}
	}
	free(r);
	return 0;
}

static void table_targets(const struct hms_topology *topo)
{
	unsigned int i, n = hms_topology_ntargets(topo);
	char b[32];

	printf("targets: %u\n", n);
	if (n)
		printf("  %6s %4s %-16s %12s %3s  %s\n", "uid", "nid", "type", "size",
		       "cpu", "links");
	for (i = 0; i < n; i++) {
		const struct hms_target *t = hms_topology_target(topo, i);

		printf("  %6" PRIu32 " %4d %-16s %12s %3s  ", hms_target_uid(t),
		       hms_target_nid(t), hms_target_type_name(t),
		       fmt_size(hms_target_size(t), b, sizeof(b)),
		       hms_target_cpu_accessible(t) ? "yes" : "no");
		LIST(",", t, target, links, link);
		putchar('\n');
	}
}

static void table_initiators(const struct hms_topology *topo)
{
	unsigned int i, n = hms_topology_ninitiators(topo);

	printf("initiators: %u\n", n);
	if (n)
		printf("  %6s %4s %-16s %-10s %s\n", "uid", "nid", "cpus/device",
		       "links", "bridges");
	for (i = 0; i < n; i++) {
		const struct hms_initiator *in = hms_topology_initiator(topo, i);
		const char *what = hms_initiator_is_device(in) ?
				   hms_initiator_device_name(in) :
				   hms_initiator_cpulist(in);

		printf("  %6" PRIu32 " %4d %-16s ", hms_initiator_uid(in),
		       hms_initiator_nid(in), what ? what : "(device)");
		LIST(",", in, initiator, links, link);
		printf(" ");
		LIST(",", in, initiator, bridges, bridge);
		putchar('\n');
	}
}

/* the four values of p, ? when unknown, in columns of 8 */
static void table_perf(const struct hms_perf *p)
{
	char b1[32], b2[32], b3[32], b4[32];

	printf(" %8s %8s %8s %8s", fmt_val(p->read_bandwidth, b1, sizeof(b1)),
	       fmt_val(p->write_bandwidth, b2, sizeof(b2)),
	       fmt_val(p->read_latency, b3, sizeof(b3)),
	       fmt_val(p->write_latency, b4, sizeof(b4)));
}

static void table_links(const struct hms_topology *topo)
{
	unsigned int i, n = hms_topology_nlinks(topo);

	printf("links: %u (bandwidth MB/s, latency ns, ?: unknown)\n", n);
	if (n)
		printf("  %6s %8s %8s %8s %8s %4s  %s\n", "uid", "rd-bw", "wr-bw",
		       "rd-lat", "wr-lat", "dist", "initiators / targets / bridges");
	for (i = 0; i < n; i++) {
		const struct hms_link *l = hms_topology_link(topo, i);

		printf("  %6" PRIu32, hms_link_uid(l));
		table_perf(hms_link_perf(l));
		printf(" %4" PRIu32 "  ", hms_link_distance(l));
		LIST(",", l, link, initiators, initiator);
		printf(" / ");
		LIST(",", l, link, targets, target);
		printf(" / ");
		LIST(",", l, link, bridges, bridge);
		putchar('\n');
	}
}

static void table_bridges(const struct hms_topology *topo)
{
	unsigned int i, n = hms_topology_nbridges(topo);

	printf("bridges: %u\n", n);
	if (n)
		printf("  %6s %8s %8s %8s %8s  %s\n", "uid", "rd-bw", "wr-bw",
		       "rd-lat", "wr-lat", "links / initiators");
	for (i = 0; i < n; i++) {
		const struct hms_bridge *b = hms_topology_bridge(topo, i);

		printf("  %6" PRIu32, hms_bridge_uid(b));
		table_perf(hms_bridge_perf(b));
		printf("  ");
		LIST(",", b, bridge, links, link);
		printf(" / ");
		LIST(",", b, bridge, initiators, initiator);
		putchar('\n');
	}
}

/* initiator x target: path read latency, or read bandwidth */
static void table_matrix(const struct hms_topology *topo,
			 const struct paths *ps, int latency)
{
	unsigned int i, j;
	char buf[32];

	printf("path %s (%s), initiator x target (-: no path, ?: unknown):\n",
	       latency ? "read latency" : "read bandwidth",
	       latency ? "ns" : "MB/s");
	printf("  %9s", "init\\tgt");
	for (j = 0; j < ps->nt; j++)
		printf(" %8" PRIu32, hms_target_uid(hms_topology_target(topo, j)));
	putchar('\n');
	for (i = 0; i < ps->ni; i++) {
		printf("  %9" PRIu32, hms_initiator_uid(hms_topology_initiator(topo, i)));
		for (j = 0; j < ps->nt; j++) {
			size_t k = (size_t)i * ps->nt + j;
			const struct hms_perf *p = &ps->perfs[k];

			if (!ps->reach[k])
				printf(" %8s", "-");
			else
				printf(" %8s", fmt_val(latency ? p->read_latency :
						       p->read_bandwidth, buf, sizeof(buf)));
		}
		putchar('\n');
	}
}

static void print_table(const struct hms_topology *topo, const struct paths *ps)
{
	table_targets(topo);
	table_initiators(topo);
	table_links(topo);
	table_bridges(topo);
	if (ps->ni && ps->nt) {
		table_matrix(topo, ps, 0);
		table_matrix(topo, ps, 1);
	}
}

static void json_targets(const struct hms_topology *topo)
{
	unsigned int i, n = hms_topology_ntargets(topo);

	for (i = 0; i < n; i++) {
		const struct hms_target *t = hms_topology_target(topo, i);

		printf("%s\n    {\"uid\": %" PRIu32 ", \"nid\": %d, \"type\": ",
		       i ? "," : "", hms_target_uid(t), hms_target_nid(t));
		json_str(hms_target_type_name(t));
		printf(", \"size\": %" PRIu64 ", \"cpu_accessible\": %s",
		       hms_target_size(t),
		       hms_target_cpu_accessible(t) ? "true" : "false");
		JLIST("links", t, target, links, link);
		printf("}");
	}
}

static void json_initiators(const struct hms_topology *topo)
{
	unsigned int i, n = hms_topology_ninitiators(topo);

	for (i = 0; i < n; i++) {
		const struct hms_initiator *in = hms_topology_initiator(topo, i);

		printf("%s\n    {\"uid\": %" PRIu32 ", \"nid\": %d, \"cpulist\": ",
		       i ? "," : "", hms_initiator_uid(in), hms_initiator_nid(in));
		json_str(hms_initiator_cpulist(in));
		printf(", \"device\": ");
		if (hms_initiator_device_name(in))
			json_str(hms_initiator_device_name(in));
		else
			printf("null");
		JLIST("links", in, initiator, links, link);
		JLIST("bridges", in, initiator, bridges, bridge);
		printf("}");
	}
}

static void json_links(const struct hms_topology *topo)
{
	unsigned int i, n = hms_topology_nlinks(topo);

	for (i = 0; i < n; i++) {
		const struct hms_link *l = hms_topology_link(topo, i);

		printf("%s\n    {\"uid\": %" PRIu32 ", ", i ? "," : "", hms_link_uid(l));
		json_perf(hms_link_perf(l));
		printf(", \"distance\": %" PRIu32, hms_link_distance(l));
		JLIST("initiators", l, link, initiators, initiator);
		JLIST("targets", l, link, targets, target);
		JLIST("bridges", l, link, bridges, bridge);
		printf("}");
	}
}

static void json_bridges(const struct hms_topology *topo)
{
	unsigned int i, n = hms_topology_nbridges(topo);

	for (i = 0; i < n; i++) {
		const struct hms_bridge *b = hms_topology_bridge(topo, i);

		printf("%s\n    {\"uid\": %" PRIu32 ", ", i ? "," : "", hms_bridge_uid(b));
		json_perf(hms_bridge_perf(b));
		JLIST("links", b, bridge, links, link);
		JLIST("initiators", b, bridge, initiators, initiator);
		printf("}");
	}
}

/* the reachable pairs only */
static void json_paths(const struct hms_topology *topo, const struct paths *ps)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < ps->ni; i++) {
		const struct hms_initiator *in = hms_topology_initiator(topo, i);

		for (j = 0; j < ps->nt; j++) {
			size_t k = (size_t)i * ps->nt + j;

			if (!ps->reach[k])
				continue;
			printf("%s\n    {\"initiator\": %" PRIu32 ", \"target\": %"
			       PRIu32 ", ", n++ ? "," : "", hms_initiator_uid(in),
			       hms_target_uid(hms_topology_target(topo, j)));
			json_perf(&ps->perfs[k]);
			printf("}");
		}
	}
}

static void print_json(const struct hms_topology *topo, const struct paths *ps)
{
	printf("{\n  \"targets\": [");
	json_targets(topo);
	printf("\n  ],\n  \"initiators\": [");
	json_initiators(topo);
	printf("\n  ],\n  \"links\": [");
	json_links(topo);
	printf("\n  ],\n  \"bridges\": [");
	json_bridges(topo);
	printf("\n  ],\n  \"paths\": [");
	json_paths(topo, ps);
	printf("\n  ]\n}\n");
}

static void dot_targets(const struct hms_topology *topo)
{
	unsigned int i, n = hms_topology_ntargets(topo);
	char b[32];

	for (i = 0; i < n; i++) {
		const struct hms_target *t = hms_topology_target(topo, i);

		printf("\tt%" PRIu32 " [shape=box, label=\"target %" PRIu32
		       "\\n%s, node %d\\n%s\"];\n", hms_target_uid(t),
		       hms_target_uid(t), hms_target_type_name(t), hms_target_nid(t),
		       fmt_size(hms_target_size(t), b, sizeof(b)));
	}
}

static void dot_initiators(const struct hms_topology *topo)
{
	unsigned int i, n = hms_topology_ninitiators(topo);

	for (i = 0; i < n; i++) {
		const struct hms_initiator *in = hms_topology_initiator(topo, i);
		const char *dev = hms_initiator_device_name(in);

		printf("\ti%" PRIu32 " [shape=ellipse, label=\"initiator %" PRIu32
		       "\\n%s%s\"];\n", hms_initiator_uid(in), hms_initiator_uid(in),
		       dev ? "" : "cpus ",
		       dev ? dev : hms_initiator_cpulist(in));
	}
}

/* a link or bridge node: its read bandwidth and latency in the label */
static void dot_perf_node(char id, const char *shape, const char *what,
			  uint32_t uid, const struct hms_perf *p)
{
	char b1[32], b2[32];

	printf("\t%c%" PRIu32 " [shape=%s, label=\"%s %" PRIu32
	       "\\n%s MB/s %s ns\"];\n", id, uid, shape, what, uid,
	       fmt_val(p->read_bandwidth, b1, sizeof(b1)),
	       fmt_val(p->read_latency, b2, sizeof(b2)));
}

static void dot_links(const struct hms_topology *topo)
{
	unsigned int i, j, n = hms_topology_nlinks(topo);

	for (i = 0; i < n; i++) {
		const struct hms_link *l = hms_topology_link(topo, i);

		dot_perf_node('l', "diamond", "link", hms_link_uid(l),
			      hms_link_perf(l));
		for (j = 0; j < hms_link_ninitiators(l); j++)
			printf("\tl%" PRIu32 " -- i%" PRIu32 ";\n", hms_link_uid(l),
			       hms_initiator_uid(hms_link_initiator(l, j)));
		for (j = 0; j < hms_link_ntargets(l); j++)
			printf("\tl%" PRIu32 " -- t%" PRIu32 ";\n", hms_link_uid(l),
			       hms_target_uid(hms_link_target(l, j)));
	}
}

static void dot_bridges(const struct hms_topology *topo)
{
	unsigned int i, j, n = hms_topology_nbridges(topo);

	for (i = 0; i < n; i++) {
		const struct hms_bridge *b = hms_topology_bridge(topo, i);

		dot_perf_node('b', "hexagon", "bridge", hms_bridge_uid(b),
			      hms_bridge_perf(b));
		for (j = 0; j < 2 && hms_bridge_link(b, j); j++)
			printf("\tb%" PRIu32 " -- l%" PRIu32 ";\n", hms_bridge_uid(b),
			       hms_link_uid(hms_bridge_link(b, j)));
		for (j = 0; j < hms_bridge_ninitiators(b); j++)
			printf("\tb%" PRIu32 " -- i%" PRIu32 " [style=dashed];\n",
			       hms_bridge_uid(b),
			       hms_initiator_uid(hms_bridge_initiator(b, j)));
	}
}

/* Graphviz: objects are nodes, memberships edges */
static void print_dot(const struct hms_topology *topo)
{
	printf("graph hms {\n\tnode [fontsize=10];\n");
	dot_targets(topo);
	dot_initiators(topo);
	dot_links(topo);
	dot_bridges(topo);
	printf("}\n");
}

int print_topology(const struct hms_topology *topo, enum format fmt)
{
	struct paths ps;

	if (fmt == FMT_DOT) {
		print_dot(topo);
		return 0;
	}
	if (get_paths(topo, &ps))
		return -1;
	if (fmt == FMT_JSON)
		print_json(topo, &ps);
	else
		print_table(topo, &ps);
	free(ps.perfs);
	free(ps.reach);
	return 0;
}

/* ------------------------------------------------------------------ */
/* path, best, fallback                                                */

void print_path(enum format fmt, const struct hms_initiator *in,
		const struct hms_target *t, const struct hms_perf *p,
		const uint32_t *elems, int n)
{
	char b[4][32];
	int i;

	if (fmt == FMT_JSON) {
		printf("{\"initiator\": %" PRIu32 ", \"target\": %" PRIu32 ", ",
		       hms_initiator_uid(in), hms_target_uid(t));
		json_perf(p);
		printf(", \"elements\": [");
		for (i = 0; i < n; i++)
			printf("%s%" PRIu32, i ? ", " : "", elems[i]);
		printf("]}\n");
		return;
	}
	printf("initiator %" PRIu32 " -> target %" PRIu32 "\n"
	       "read bandwidth:  %s MB/s\nwrite bandwidth: %s MB/s\n"
	       "read latency:    %s ns\nwrite latency:   %s ns\npath:           ",
	       hms_initiator_uid(in), hms_target_uid(t),
	       fmt_val(p->read_bandwidth, b[0], 32),
	       fmt_val(p->write_bandwidth, b[1], 32),
	       fmt_val(p->read_latency, b[2], 32),
	       fmt_val(p->write_latency, b[3], 32));
	for (i = 0; i < n; i++)
		printf(" %s %" PRIu32, i % 2 ? "bridge" : "link", elems[i]);
	putchar('\n');
}

void print_best(enum format fmt, const struct hms_initiator *in,
		const char *by, const struct hms_target *t,
		const struct hms_perf *p)
{
	if (fmt != FMT_JSON) {
		printf("%" PRIu32 "\n", hms_target_uid(t));
		return;
	}
	printf("{\"initiator\": %" PRIu32 ", \"by\": ", hms_initiator_uid(in));
	json_str(by);
	printf(", \"target\": %" PRIu32 ", ", hms_target_uid(t));
	json_perf(p);
	printf("}\n");
}

void print_fallback(enum format fmt, const struct hms_initiator *in,
		    const char *by, const struct hms_target_perf *r, int n)
{
	int i;

	if (fmt != FMT_JSON) {
		for (i = 0; i < n; i++)
			printf("%s%" PRIu32, i ? " " : "", hms_target_uid(r[i].target));
		putchar('\n');
		return;
	}
	printf("{\"initiator\": %" PRIu32 ", \"by\": ", hms_initiator_uid(in));
	json_str(by);
	printf(", \"targets\": [");
	for (i = 0; i < n; i++)
		printf("%s%" PRIu32, i ? ", " : "", hms_target_uid(r[i].target));
	printf("], \"paths\": [");
	for (i = 0; i < n; i++) {
		printf("%s{\"target\": %" PRIu32 ", ", i ? ", " : "",
		       hms_target_uid(r[i].target));
		json_perf(&r[i].perf);
		printf("}");
	}
	printf("]}\n");
}
