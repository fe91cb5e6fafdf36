// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hmsctl - show the Heterogeneous Memory System topology and its paths.
 *
 *   hmsctl [--root DIR] [--format table|json|dot] topology
 *   hmsctl [--root DIR] [--format table|json] path INITIATOR TARGET
 *   hmsctl [--root DIR] [--format table|json] best INITIATOR
 *          --by bandwidth|latency|capacity
 *          [--only system,device,cpuless,cpu-accessible]
 *   hmsctl [--root DIR] [--format table|json] fallback INITIATOR --by ...
 *          [--only ...]
 *   hmsctl [--root DIR] run [--strict] [--interleave[=auto|W,W,...]]
 *          [--initiator INITIATOR] --targets SPEC -- PROGRAM [ARGS]
 *   hmsctl [--root DIR] show
 *
 * INITIATOR and TARGET: a uid, node:N, cpu:N, current, or a device name
 * or sysfs path. Options may appear anywhere.
 *
 * Exit status: 0 success, 1 runtime error (no topology, unknown object,
 * no path), 2 usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hms.h"

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

static const char *prog = "hmsctl";

static const struct option opts[] = {
	{ "root",	required_argument,	NULL, 'r' },
	{ "format",	required_argument,	NULL, 'f' },
	{ "json",	no_argument,		NULL, 'j' },
	{ "dot",	no_argument,		NULL, 'd' },
	{ "by",		required_argument,	NULL, 'b' },
	{ "only",	required_argument,	NULL, 'o' },
	{ "strict",	no_argument,		NULL, 's' },
	{ "interleave",	optional_argument,	NULL, 'i' },
	{ "targets",	required_argument,	NULL, 't' },
	{ "initiator",	required_argument,	NULL, 'I' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: hmsctl [--root DIR] [--format FORMAT] COMMAND [ARGS]\n"
"Show the Heterogeneous Memory System (HMS) topology and its paths.\n"
"\n"
"commands:\n"
"  topology                       targets, initiators, links, bridges and the\n"
"                                 initiator x target path bandwidth/latency\n"
"  path INITIATOR TARGET          properties and elements of the path the\n"
"                                 HMS path rule picks\n"
"  best INITIATOR --by CRITERION [--only FILTERS]\n"
"                                 uid of the best target for INITIATOR\n"
"  fallback INITIATOR --by CRITERION [--only FILTERS]\n"
"                                 reachable targets, best first (hbind order)\n"
"  run [--strict] [--interleave[=auto|W,W,...]] [--initiator INITIATOR]\n"
"      --targets SPEC -- PROGRAM [ARGS]\n"
"                                 run PROGRAM with a memory policy over the\n"
"                                 targets (inherited by its children): an\n"
"                                 ordered bind (--strict: only these), or a\n"
"                                 weighted interleave (weights 1 each, given,\n"
"                                 or auto: by read bandwidth from INITIATOR,\n"
"                                 default the CPU hmsctl runs on)\n"
"  show                           the memory policy of hmsctl itself, as\n"
"                                 inherited (like numactl --show)\n"
"\n"
"INITIATOR and TARGET select an object by:\n"
"  UID          its uid\n"
"  node:N       NUMA node N: its CPU initiator, its system target\n"
"  cpu:N        CPU N: its initiator, the system target of its node\n"
"  current      the same for the CPU hmsctl runs on\n"
"  DEVICE       a device's name (hms_test0) or sysfs path: its device\n"
"               initiator, the device memory on that initiator's links\n"
"CRITERION: bandwidth, latency or capacity. FILTERS: comma-separated\n"
"system, device, cpuless, cpu-accessible.\n"
"SPEC: comma-separated TARGETs, in order, or best:CRITERION (the best\n"
"system target for the CPU hmsctl runs on).\n"
"\n"
"options:\n"
"  -r, --root DIR       read the HMS bus from DIR (a directory containing\n"
"                       \"devices\"; default $HMS_SYSFS_ROOT or /sys/bus/hms)\n"
"  -f, --format FORMAT  table (default), json, or dot (topology only);\n"
"                       --json and --dot are short for --format json|dot\n"
"  -h, --help           this text\n"
"  -V, --version        version\n"
"\n"
"exit status: 0 success, 1 runtime error, 2 usage error\n");
}

static void __attribute__((format(printf, 1, 2))) err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'hmsctl --help' for more information.\n");
	return EXIT_USAGE;
}

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

static void json_str(const char *s)
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

/* ------------------------------------------------------------------ */
/* topology                                                            */

/*
 * Path properties of every (initiator, target) pair, row-major by topology
 * index; unreachable pairs have reach 0. One ranking per initiator.
 */
static int path_table(const struct hms_topology *topo, struct hms_perf **perfs,
		      unsigned char **reach)
{
	unsigned int ni = hms_topology_ninitiators(topo);
	unsigned int nt = hms_topology_ntargets(topo), i, j;
	struct hms_target_perf *r = calloc(nt + 1, sizeof(*r));

	*perfs = calloc((size_t)ni * nt + 1, sizeof(**perfs));
	*reach = calloc((size_t)ni * nt + 1, 1);
	if (!r || !*perfs || !*reach) {
		free(r);
		free(*perfs);
		free(*reach);
		return -1;
	}
	for (i = 0; i < ni; i++) {
		int n = hms_target_ranking(topo, hms_topology_initiator(topo, i),
					   HMS_BY_BANDWIDTH, 0, r, nt);

		/* every target at most once: n <= nt */
		if (n > (int)nt)
			n = (int)nt;

		for (j = 0; n > 0 && j < (unsigned int)n; j++) {
			unsigned int lo = 0, hi = nt;
			uint32_t uid = hms_target_uid(r[j].target);

			/* targets are indexed by increasing uid */
			while (lo < hi) {
				unsigned int mid = (lo + hi) / 2;

				if (hms_target_uid(hms_topology_target(topo, mid)) < uid)
					lo = mid + 1;
				else
					hi = mid;
			}
			(*perfs)[(size_t)i * nt + lo] = r[j].perf;
			(*reach)[(size_t)i * nt + lo] = 1;
		}
	}
	free(r);
	return 0;
}

static void show_matrix(const struct hms_topology *topo,
			const struct hms_perf *perfs, const unsigned char *reach,
			int latency)
{
	unsigned int i, j, nt = hms_topology_ntargets(topo);
	unsigned int ni = hms_topology_ninitiators(topo);
	char buf[32];

	printf("path %s (%s), initiator x target (-: no path, ?: unknown):\n",
	       latency ? "read latency" : "read bandwidth",
	       latency ? "ns" : "MB/s");
	printf("  %9s", "init\\tgt");
	for (j = 0; j < nt; j++)
		printf(" %8" PRIu32, hms_target_uid(hms_topology_target(topo, j)));
	putchar('\n');
	for (i = 0; i < ni; i++) {
		printf("  %9" PRIu32, hms_initiator_uid(hms_topology_initiator(topo, i)));
		for (j = 0; j < nt; j++) {
			const struct hms_perf *p = &perfs[(size_t)i * nt + j];

			if (!reach[(size_t)i * nt + j])
				printf(" %8s", "-");
			else
				printf(" %8s", fmt_val(latency ? p->read_latency :
						       p->read_bandwidth, buf, sizeof(buf)));
		}
		putchar('\n');
	}
}

static void show_table(const struct hms_topology *topo)
{
	unsigned int i, n;
	char b1[32], b2[32], b3[32], b4[32];

	n = hms_topology_ntargets(topo);
	printf("targets: %u\n", n);
	if (n)
		printf("  %6s %4s %-16s %12s %3s  %s\n", "uid", "nid", "type", "size",
		       "cpu", "links");
	for (i = 0; i < n; i++) {
		const struct hms_target *t = hms_topology_target(topo, i);

		printf("  %6" PRIu32 " %4d %-16s %12s %3s  ", hms_target_uid(t),
		       hms_target_nid(t), hms_target_type_name(t),
		       fmt_size(hms_target_size(t), b1, sizeof(b1)),
		       hms_target_cpu_accessible(t) ? "yes" : "no");
		LIST(",", t, target, links, link);
		putchar('\n');
	}
	n = hms_topology_ninitiators(topo);
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
	n = hms_topology_nlinks(topo);
	printf("links: %u (bandwidth MB/s, latency ns, ?: unknown)\n", n);
	if (n)
		printf("  %6s %8s %8s %8s %8s %4s  %s\n", "uid", "rd-bw", "wr-bw",
		       "rd-lat", "wr-lat", "dist", "initiators / targets / bridges");
	for (i = 0; i < n; i++) {
		const struct hms_link *l = hms_topology_link(topo, i);
		const struct hms_perf *p = hms_link_perf(l);

		printf("  %6" PRIu32 " %8s %8s %8s %8s %4" PRIu32 "  ", hms_link_uid(l),
		       fmt_val(p->read_bandwidth, b1, sizeof(b1)),
		       fmt_val(p->write_bandwidth, b2, sizeof(b2)),
		       fmt_val(p->read_latency, b3, sizeof(b3)),
		       fmt_val(p->write_latency, b4, sizeof(b4)),
		       hms_link_distance(l));
		LIST(",", l, link, initiators, initiator);
		printf(" / ");
		LIST(",", l, link, targets, target);
		printf(" / ");
		LIST(",", l, link, bridges, bridge);
		putchar('\n');
	}
	n = hms_topology_nbridges(topo);
	printf("bridges: %u\n", n);
	if (n)
		printf("  %6s %8s %8s %8s %8s  %s\n", "uid", "rd-bw", "wr-bw",
		       "rd-lat", "wr-lat", "links / initiators");
	for (i = 0; i < n; i++) {
		const struct hms_bridge *b = hms_topology_bridge(topo, i);
		const struct hms_perf *p = hms_bridge_perf(b);

		printf("  %6" PRIu32 " %8s %8s %8s %8s  ", hms_bridge_uid(b),
		       fmt_val(p->read_bandwidth, b1, sizeof(b1)),
		       fmt_val(p->write_bandwidth, b2, sizeof(b2)),
		       fmt_val(p->read_latency, b3, sizeof(b3)),
		       fmt_val(p->write_latency, b4, sizeof(b4)));
		LIST(",", b, bridge, links, link);
		printf(" / ");
		LIST(",", b, bridge, initiators, initiator);
		putchar('\n');
	}
	if (hms_topology_ninitiators(topo) && hms_topology_ntargets(topo)) {
		struct hms_perf *perfs;
		unsigned char *reach;

		if (path_table(topo, &perfs, &reach)) {
			err("paths: %s", strerror(errno));
			return;
		}
		show_matrix(topo, perfs, reach, 0);
		show_matrix(topo, perfs, reach, 1);
		free(perfs);
		free(reach);
	}
}

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

static int show_json(const struct hms_topology *topo)
{
	struct hms_perf *perfs;
	unsigned char *reach;
	unsigned int i, j, n;

	printf("{\n  \"targets\": [");
	n = hms_topology_ntargets(topo);
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
	printf("\n  ],\n  \"initiators\": [");
	n = hms_topology_ninitiators(topo);
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
	printf("\n  ],\n  \"links\": [");
	n = hms_topology_nlinks(topo);
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
	printf("\n  ],\n  \"bridges\": [");
	n = hms_topology_nbridges(topo);
	for (i = 0; i < n; i++) {
		const struct hms_bridge *b = hms_topology_bridge(topo, i);

		printf("%s\n    {\"uid\": %" PRIu32 ", ", i ? "," : "", hms_bridge_uid(b));
		json_perf(hms_bridge_perf(b));
		JLIST("links", b, bridge, links, link);
		JLIST("initiators", b, bridge, initiators, initiator);
		printf("}");
	}
	printf("\n  ],\n  \"paths\": [");
	if (path_table(topo, &perfs, &reach))
		return -1;
	n = 0;
	for (i = 0; i < hms_topology_ninitiators(topo); i++) {
		const struct hms_initiator *in = hms_topology_initiator(topo, i);
		unsigned int nt = hms_topology_ntargets(topo);

		for (j = 0; j < nt; j++) {
			if (!reach[(size_t)i * nt + j])
				continue;
			printf("%s\n    {\"initiator\": %" PRIu32 ", \"target\": %"
			       PRIu32 ", ", n++ ? "," : "", hms_initiator_uid(in),
			       hms_target_uid(hms_topology_target(topo, j)));
			json_perf(&perfs[(size_t)i * nt + j]);
			printf("}");
		}
	}
	printf("\n  ]\n}\n");
	free(perfs);
	free(reach);
	return 0;
}

static void show_dot(const struct hms_topology *topo)
{
	unsigned int i, j, n;
	char b1[32], b2[32];

	printf("graph hms {\n\tnode [fontsize=10];\n");
	n = hms_topology_ntargets(topo);
	for (i = 0; i < n; i++) {
		const struct hms_target *t = hms_topology_target(topo, i);

		printf("\tt%" PRIu32 " [shape=box, label=\"target %" PRIu32
		       "\\n%s, node %d\\n%s\"];\n", hms_target_uid(t),
		       hms_target_uid(t), hms_target_type_name(t), hms_target_nid(t),
		       fmt_size(hms_target_size(t), b1, sizeof(b1)));
	}
	n = hms_topology_ninitiators(topo);
	for (i = 0; i < n; i++) {
		const struct hms_initiator *in = hms_topology_initiator(topo, i);
		const char *dev = hms_initiator_device_name(in);

		printf("\ti%" PRIu32 " [shape=ellipse, label=\"initiator %" PRIu32
		       "\\n%s%s\"];\n", hms_initiator_uid(in), hms_initiator_uid(in),
		       dev ? "" : "cpus ",
		       dev ? dev : hms_initiator_cpulist(in));
	}
	n = hms_topology_nlinks(topo);
	for (i = 0; i < n; i++) {
		const struct hms_link *l = hms_topology_link(topo, i);
		const struct hms_perf *p = hms_link_perf(l);

		printf("\tl%" PRIu32 " [shape=diamond, label=\"link %" PRIu32
		       "\\n%s MB/s %s ns\"];\n", hms_link_uid(l), hms_link_uid(l),
		       fmt_val(p->read_bandwidth, b1, sizeof(b1)),
		       fmt_val(p->read_latency, b2, sizeof(b2)));
		for (j = 0; j < hms_link_ninitiators(l); j++)
			printf("\tl%" PRIu32 " -- i%" PRIu32 ";\n", hms_link_uid(l),
			       hms_initiator_uid(hms_link_initiator(l, j)));
		for (j = 0; j < hms_link_ntargets(l); j++)
			printf("\tl%" PRIu32 " -- t%" PRIu32 ";\n", hms_link_uid(l),
			       hms_target_uid(hms_link_target(l, j)));
	}
	n = hms_topology_nbridges(topo);
	for (i = 0; i < n; i++) {
		const struct hms_bridge *b = hms_topology_bridge(topo, i);
		const struct hms_perf *p = hms_bridge_perf(b);

		printf("\tb%" PRIu32 " [shape=hexagon, label=\"bridge %" PRIu32
		       "\\n%s MB/s %s ns\"];\n", hms_bridge_uid(b), hms_bridge_uid(b),
		       fmt_val(p->read_bandwidth, b1, sizeof(b1)),
		       fmt_val(p->read_latency, b2, sizeof(b2)));
		for (j = 0; j < 2 && hms_bridge_link(b, j); j++)
			printf("\tb%" PRIu32 " -- l%" PRIu32 ";\n", hms_bridge_uid(b),
			       hms_link_uid(hms_bridge_link(b, j)));
		for (j = 0; j < hms_bridge_ninitiators(b); j++)
			printf("\tb%" PRIu32 " -- i%" PRIu32 " [style=dashed];\n",
			       hms_bridge_uid(b),
			       hms_initiator_uid(hms_bridge_initiator(b, j)));
	}
	printf("}\n");
}

/* ------------------------------------------------------------------ */
/* selectors: uid, node:N, cpu:N, current, device                     */

enum sel_kind { SEL_UID, SEL_NODE, SEL_CPU, SEL_CURRENT, SEL_DEVICE };

struct selector {
	enum sel_kind kind;
	uint32_t n;		/* uid, node or CPU number */
	const char *arg;	/* as given, for messages; the device */
};

static int parse_num(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > INT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Syntax only: a usage error (exit 2) before anything is loaded. */
static int parse_selector(const char *arg, const char *what,
			  struct selector *sel)
{
	sel->arg = arg;
	if (!strncmp(arg, "node:", 5) || !strncmp(arg, "cpu:", 4)) {
		int node = arg[0] == 'n';

		sel->kind = node ? SEL_NODE : SEL_CPU;
		if (parse_num(arg + (node ? 5 : 4), &sel->n)) {
			fprintf(stderr, "%s: invalid %s '%s': expected %s:N with N a "
				"number\nTry 'hmsctl --help' for more information.\n",
				prog, what, arg, node ? "node" : "cpu");
			return EXIT_USAGE;
		}
		return 0;
	}
	if (!strcmp(arg, "current")) {
		sel->kind = SEL_CURRENT;
		return 0;
	}
	if (arg[0] >= '0' && arg[0] <= '9' && strspn(arg, "0123456789") == strlen(arg)) {
		sel->kind = SEL_UID;
		if (parse_num(arg, &sel->n)) {
			fprintf(stderr, "%s: invalid %s uid '%s'\nTry 'hmsctl --help' "
				"for more information.\n", prog, what, arg);
			return EXIT_USAGE;
		}
		return 0;
	}
	if (!*arg) {
		fprintf(stderr, "%s: empty %s\nTry 'hmsctl --help' for more "
			"information.\n", prog, what);
		return EXIT_USAGE;
	}
	sel->kind = SEL_DEVICE;
	return 0;
}

/* The initiator of CPU N, or of the CPU hmsctl runs on. */
static const struct hms_initiator *cpu_initiator(const struct hms_topology *topo,
						 const struct selector *sel)
{
	const struct hms_initiator *in;

	if (sel->kind == SEL_CURRENT) {
		in = hms_initiator_current(topo);
		if (!in)
			err("current: no initiator for the CPU hmsctl runs on (%s)",
			    strerror(errno));
		return in;
	}
	in = hms_initiator_by_cpu(topo, (int)sel->n);
	if (!in)
		err("%s: no initiator has CPU %" PRIu32, sel->arg, sel->n);
	return in;
}

static const struct hms_initiator *device_initiator(const struct hms_topology *topo,
						    const char *dev)
{
	const struct hms_initiator *in = hms_initiator_by_device(topo, dev);

	if (!in)
		err("%s: no device initiator of that device", dev);
	return in;
}

static int get_initiator(const struct hms_topology *topo,
			 const struct selector *sel,
			 const struct hms_initiator **in)
{
	*in = NULL;
	switch (sel->kind) {
	case SEL_UID:
		*in = hms_initiator_by_uid(topo, sel->n);
		if (!*in)
			err("%s: no such initiator", sel->arg);
		break;
	case SEL_NODE:
		*in = hms_initiator_by_nid(topo, (int)sel->n);
		if (!*in)
			err("%s: no CPU initiator on node %" PRIu32, sel->arg, sel->n);
		break;
	case SEL_CPU:
	case SEL_CURRENT:
		*in = cpu_initiator(topo, sel);
		break;
	case SEL_DEVICE:
		*in = device_initiator(topo, sel->arg);
		break;
	}
	return *in ? 0 : EXIT_RUNTIME;
}

/*
 * The memory of a device. The kernel links a device initiator to its
 * parent device ("device" symlink) but not a target: a device's memory is
 * the device-private or device-coherent target on a link of its
 * initiator; there must be exactly one.
 */
static const struct hms_target *device_target(const struct hms_topology *topo,
					      const char *dev)
{
	const struct hms_initiator *in = device_initiator(topo, dev);
	const struct hms_target *found = NULL;
	unsigned int i, j, n = 0;

	if (!in)
		return NULL;
	for (i = 0; i < hms_initiator_nlinks(in); i++) {
		const struct hms_link *l = hms_initiator_link(in, i);

		for (j = 0; j < hms_link_ntargets(l); j++) {
			const struct hms_target *t = hms_link_target(l, j);

			if (hms_target_type(t) == HMS_TARGET_SYSTEM || t == found)
				continue;
			found = t;
			n++;
		}
	}
	if (n == 1)
		return found;
	if (!n)
		err("%s: the device has no memory target of its own", dev);
	else
		err("%s: the device has %u memory targets: give a uid", dev, n);
	return NULL;
}

static int get_target(const struct hms_topology *topo,
		      const struct selector *sel, const struct hms_target **t)
{
	const struct hms_initiator *in;

	*t = NULL;
	switch (sel->kind) {
	case SEL_UID:
		*t = hms_target_by_uid(topo, sel->n);
		if (!*t)
			err("%s: no such target", sel->arg);
		break;
	case SEL_NODE:
		*t = hms_target_by_nid(topo, (int)sel->n);
		if (!*t)
			err("%s: no system target on node %" PRIu32, sel->arg, sel->n);
		break;
	case SEL_CPU:
	case SEL_CURRENT:
		in = cpu_initiator(topo, sel);
		if (!in)
			break;
		*t = hms_target_by_nid(topo, hms_initiator_nid(in));
		if (!*t)
			err("%s: the node of CPU initiator %" PRIu32 " has no system target",
			    sel->arg, hms_initiator_uid(in));
		break;
	case SEL_DEVICE:
		*t = device_target(topo, sel->arg);
		break;
	}
	return *t ? 0 : EXIT_RUNTIME;
}

/* ------------------------------------------------------------------ */
/* path, best, fallback                                                */

enum format { FMT_TABLE, FMT_JSON, FMT_DOT };

static int cmd_path(const struct hms_topology *topo, const struct selector *sel,
		    enum format fmt)
{
	const struct hms_initiator *in;
	const struct hms_target *t;
	struct hms_perf p;
	uint32_t *elems = NULL;
	int r, n, i;
	char b[4][32];

	r = get_initiator(topo, &sel[0], &in);
	if (!r)
		r = get_target(topo, &sel[1], &t);
	if (r)
		return r;
	n = hms_path(topo, in, t, &p);
	if (!n)
		n = hms_path_elements(topo, in, t, NULL, 0);
	if (n > 0) {
		elems = calloc((size_t)n, sizeof(*elems));
		if (!elems) {
			err("%s", strerror(errno));
			return EXIT_RUNTIME;
		}
		/* a topology is a snapshot: the count cannot change */
		n = hms_path_elements(topo, in, t, elems, (unsigned int)n);
	}
	if (n < 0) {
		if (errno == ENOENT)
			err("initiator %" PRIu32 " cannot reach target %" PRIu32,
			    hms_initiator_uid(in), hms_target_uid(t));
		else
			err("path: %s", strerror(errno));
		free(elems);
		return EXIT_RUNTIME;
	}
	if (fmt == FMT_JSON) {
		printf("{\"initiator\": %" PRIu32 ", \"target\": %" PRIu32 ", ",
		       hms_initiator_uid(in), hms_target_uid(t));
		json_perf(&p);
		printf(", \"elements\": [");
		for (i = 0; i < n; i++)
			printf("%s%" PRIu32, i ? ", " : "", elems[i]);
		printf("]}\n");
		free(elems);
		return 0;
	}
	printf("initiator %" PRIu32 " -> target %" PRIu32 "\n"
	       "read bandwidth:  %s MB/s\nwrite bandwidth: %s MB/s\n"
	       "read latency:    %s ns\nwrite latency:   %s ns\npath:           ",
	       hms_initiator_uid(in), hms_target_uid(t),
	       fmt_val(p.read_bandwidth, b[0], 32), fmt_val(p.write_bandwidth, b[1], 32),
	       fmt_val(p.read_latency, b[2], 32), fmt_val(p.write_latency, b[3], 32));
	for (i = 0; i < n; i++)
		printf(" %s %" PRIu32, i % 2 ? "bridge" : "link", elems[i]);
	putchar('\n');
	free(elems);
	return 0;
}

static int parse_by(const char *by, const char *only, enum hms_by *how,
		    unsigned int *filters)
{
	char *s, *tok, *save = NULL;

	if (!by)
		return usage_error("%s", "--by is required");
	if (!strcmp(by, "bandwidth"))
		*how = HMS_BY_BANDWIDTH;
	else if (!strcmp(by, "latency"))
		*how = HMS_BY_LATENCY;
	else if (!strcmp(by, "capacity"))
		*how = HMS_BY_CAPACITY;
	else
		return usage_error("invalid --by '%s'", by);
	*filters = 0;
	if (!only)
		return 0;
	s = strdup(only);
	if (!s) {
		err("%s", strerror(errno));
		return EXIT_RUNTIME;
	}
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "system")) {
			*filters |= HMS_ONLY_SYSTEM;
		} else if (!strcmp(tok, "device")) {
			*filters |= HMS_ONLY_DEVICE;
		} else if (!strcmp(tok, "cpuless")) {
			*filters |= HMS_ONLY_CPULESS;
		} else if (!strcmp(tok, "cpu-accessible")) {
			*filters |= HMS_ONLY_CPU_ACCESSIBLE;
		} else {
			int r = usage_error("invalid --only filter '%s'", tok);

			free(s);
			return r;
		}
	}
	free(s);
	return 0;
}

static int cmd_best(const struct hms_topology *topo, const struct selector *sel,
		    const char *by, enum hms_by how, unsigned int filters,
		    enum format fmt)
{
	const struct hms_initiator *in;
	const struct hms_target *t;
	struct hms_perf p;
	int r;

	r = get_initiator(topo, sel, &in);
	if (r)
		return r;
	t = hms_best_target(topo, in, how, filters);
	if (!t || hms_path(topo, in, t, &p)) {
		err("no target for initiator %" PRIu32 ": %s", hms_initiator_uid(in),
		    errno == ENOENT ? "none reachable" : strerror(errno));
		return EXIT_RUNTIME;
	}
	if (fmt == FMT_JSON) {
		printf("{\"initiator\": %" PRIu32 ", \"by\": ", hms_initiator_uid(in));
		json_str(by);
		printf(", \"target\": %" PRIu32 ", ", hms_target_uid(t));
		json_perf(&p);
		printf("}\n");
	} else {
		printf("%" PRIu32 "\n", hms_target_uid(t));
	}
	return 0;
}

static int cmd_fallback(const struct hms_topology *topo,
			const struct selector *sel, const char *by,
			enum hms_by how, unsigned int filters, enum format fmt)
{
	const struct hms_initiator *in;
	struct hms_target_perf *r = NULL;
	int ret, n, i;

	ret = get_initiator(topo, sel, &in);
	if (ret)
		return ret;
	n = hms_target_ranking(topo, in, how, filters, NULL, 0);
	if (n > 0) {
		r = calloc((size_t)n, sizeof(*r));
		if (!r) {
			err("%s", strerror(errno));
			return EXIT_RUNTIME;
		}
		n = hms_target_ranking(topo, in, how, filters, r, (unsigned int)n);
	}
	if (n < 0) {
		err("fallback: %s", strerror(errno));
		free(r);
		return EXIT_RUNTIME;
	}
	if (n == 0) {
		err("no target reachable from initiator %" PRIu32,
		    hms_initiator_uid(in));
		return EXIT_RUNTIME;
	}
	if (fmt == FMT_JSON) {
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
	} else {
		for (i = 0; i < n; i++)
			printf("%s%" PRIu32, i ? " " : "", hms_target_uid(r[i].target));
		putchar('\n');
	}
	free(r);
	return 0;
}

/* ------------------------------------------------------------------ */
/* run, show                                                           */

struct run_opts {
	int strict;
	int interleave;		/* 0 bind, 1 interleave */
	const char *weights;	/* NULL (1 each), "auto", or W,W,... */
	const char *initiator;	/* with auto */
	const char *targets;
	char **argv;		/* PROGRAM [ARGS] */
};

/* "best:bandwidth" etc. -> criterion; 1 if @s is not a best: selector */
static int parse_best(const char *s, enum hms_by *how)
{
	if (strncmp(s, "best:", 5))
		return 1;
	s += 5;
	if (!strcmp(s, "bandwidth"))
		*how = HMS_BY_BANDWIDTH;
	else if (!strcmp(s, "latency"))
		*how = HMS_BY_LATENCY;
	else if (!strcmp(s, "capacity"))
		*how = HMS_BY_CAPACITY;
	else
		return -1;
	return 0;
}

/* Count and check the items of SPEC (syntax only). */
static int parse_spec(const char *spec, unsigned int *n)
{
	char *dup = strdup(spec), *tok, *save = NULL;
	struct selector sel;
	enum hms_by how;
	int ret = 0;

	*n = 0;
	if (!dup) {
		err("%s", strerror(errno));
		return EXIT_RUNTIME;
	}
	for (tok = strtok_r(dup, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		int b = parse_best(tok, &how);

		if (b < 0)
			ret = usage_error("invalid target '%s' (best:bandwidth, "
					  "best:latency or best:capacity)", tok);
		else if (b)
			ret = parse_selector(tok, "target", &sel);
		(*n)++;
	}
	free(dup);
	if (!ret && !*n)
		ret = usage_error("%s", "--targets: no target");
	if (!ret && *n > 64)
		ret = usage_error("%s", "--targets: more than 64 targets");
	return ret;
}

static int parse_weights(const char *s, unsigned int n, unsigned int *w)
{
	char *dup = strdup(s), *tok, *save = NULL;
	unsigned int i = 0;
	uint32_t v;
	int ret = 0;

	if (!dup) {
		err("%s", strerror(errno));
		return EXIT_RUNTIME;
	}
	for (tok = strtok_r(dup, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		if (parse_num(tok, &v) || !v || v > HMS_WEIGHT_MAX)
			ret = usage_error("invalid weight '%s' (1 to 255)", tok);
		else if (i < n)
			w[i] = v;
		i++;
	}
	free(dup);
	if (!ret && i != n) {
		fprintf(stderr, "%s: --interleave: %u weights for %u targets\n"
			"Try 'hmsctl --help' for more information.\n", prog, i, n);
		ret = EXIT_USAGE;
	}
	return ret;
}

/* Resolve SPEC into target uids, in order. */
static int resolve_spec(const struct hms_topology *topo, const char *spec,
			uint32_t *uids)
{
	char *dup = strdup(spec), *tok, *save = NULL;
	const struct hms_initiator *in;
	const struct hms_target *t;
	struct selector sel;
	unsigned int n = 0;
	enum hms_by how;
	int ret = 0;

	if (!dup) {
		err("%s", strerror(errno));
		return EXIT_RUNTIME;
	}
	for (tok = strtok_r(dup, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!parse_best(tok, &how)) {
			sel.kind = SEL_CURRENT;
			sel.arg = tok;
			in = cpu_initiator(topo, &sel);
			t = in ? hms_best_target(topo, in, how, HMS_ONLY_SYSTEM) : NULL;
			if (in && !t) {
				err("%s: no system target reachable from initiator %"
				    PRIu32, tok, hms_initiator_uid(in));
			}
			ret = t ? 0 : EXIT_RUNTIME;
		} else {
			parse_selector(tok, "target", &sel);
			ret = get_target(topo, &sel, &t);
		}
		if (!ret)
			uids[n++] = hms_target_uid(t);
	}
	free(dup);
	return ret;
}

static int cmd_run(const struct hms_topology *topo, const struct run_opts *o)
{
	unsigned int w[64], n, i;
	uint32_t uids[64], initiator = HMS_INITIATOR_CURRENT;
	const struct hms_initiator *in;
	struct selector sel;
	int ret;

	parse_spec(o->targets, &n);
	ret = resolve_spec(topo, o->targets, uids);
	if (ret)
		return ret;
	if (o->interleave && o->weights && !strcmp(o->weights, "auto") &&
	    o->initiator) {
		parse_selector(o->initiator, "initiator", &sel);
		ret = get_initiator(topo, &sel, &in);
		if (ret)
			return ret;
		initiator = hms_initiator_uid(in);
	}
	if (!o->interleave) {
		ret = hms_set_membind(uids, n, o->strict ? HMS_BIND_STRICT : 0);
	} else if (o->weights && !strcmp(o->weights, "auto")) {
		ret = hms_set_interleave(uids, n, NULL, initiator);
	} else {
		for (i = 0; i < n; i++)
			w[i] = 1;
		if (o->weights)
			parse_weights(o->weights, n, w);
		ret = hms_set_interleave(uids, n, w, initiator);
	}
	if (ret) {
		int e = errno;

		fprintf(stderr, "%s: run: cannot set the policy (targets", prog);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %" PRIu32, uids[i]);
		fprintf(stderr, "): %s%s\n", strerror(e),
			e == EINVAL ? " (device memory cannot back a program's "
			"policy; a target may be gone or outside the cpuset)" :
			e == ENODATA ? " (no bandwidth known from the initiator "
			"to a target: give weights)" : "");
		return EXIT_RUNTIME;
	}
	fflush(stdout);
	execvp(o->argv[0], o->argv);
	ret = errno;
	err("run: %s: %s", o->argv[0], strerror(ret));
	return ret == ENOENT ? 127 : 126;
}

/* get_mempolicy() of the thread, without libnuma */
static int task_policy(int *mode, unsigned long **mask, unsigned long *maxnode)
{
	unsigned long n = 1024;

	for (;;) {
		*mask = calloc(n / (8 * sizeof(long)), sizeof(long));
		if (!*mask)
			return -1;
		if (!syscall(SYS_get_mempolicy, mode, *mask, n, NULL, 0UL)) {
			*maxnode = n;
			return 0;
		}
		free(*mask);
		*mask = NULL;
		if (errno != EINVAL || n >= (1UL << 20))
			return -1;
		n *= 2;
	}
}

static int cmd_show(const struct hms_topology *topo)
{
	static const char *const names[] = {
		"default", "preferred", "bind", "interleave", "local",
		"preferred-many", "weighted-interleave",
	};
	unsigned long *mask, maxnode, nid, bits = 8 * sizeof(long);
	cpu_set_t cpus;
	int mode, m;

	if (task_policy(&mode, &mask, &maxnode)) {
		err("show: get_mempolicy: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	m = mode & 0xff;
	if (m >= 0 && m < (int)(sizeof(names) / sizeof(names[0])))
		printf("policy: %s", names[m]);
	else
		printf("policy: mode%d", m);
	if (mode & (1 << 15))
		printf(" static");
	if (mode & (1 << 14))
		printf(" relative");
	printf("\nnodes:");
	for (nid = 0; nid < maxnode; nid++)
		if (mask[nid / bits] & (1UL << (nid % bits)))
			printf(" %lu", nid);
	printf("\ntargets:");
	for (nid = 0; nid < maxnode; nid++) {
		const struct hms_target *t;

		if (!(mask[nid / bits] & (1UL << (nid % bits))))
			continue;
		t = topo ? hms_target_by_nid(topo, (int)nid) : NULL;
		if (t)
			printf(" %" PRIu32, hms_target_uid(t));
		else
			printf(" ?");
	}
	printf("\nphyscpubind:");
	if (!sched_getaffinity(0, sizeof(cpus), &cpus))
		for (m = 0; m < CPU_SETSIZE; m++)
			if (CPU_ISSET(m, &cpus))
				printf(" %d", m);
	putchar('\n');
	free(mask);
	return 0;
}

static int set_format(enum format *fmt, int *given, enum format want,
		      const char *name)
{
	if (*given && *fmt != want)
		return usage_error("conflicting output formats (last: %s)", name);
	*fmt = want;
	*given = 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *root = NULL, *by = NULL, *only = NULL, *cmd;
	enum format fmt = FMT_TABLE;
	struct hms_topology *topo;
	struct selector sel[2];
	int given = 0, c, nargs, ret, want, i;
	enum hms_by how = HMS_BY_BANDWIDTH;
	struct run_opts ro = { 0 };
	unsigned int filters = 0, ntargets;
	int run_opt = 0;
	char **args;

	/* run: PROGRAM [ARGS] follow the first "--", never parsed here */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			ro.argv = argv + i + 1;
			argc = i;
			break;
		}

	opterr = 0;	/* our own messages, prefixed "hmsctl:" */
	while ((c = getopt_long(argc, argv, ":r:f:hV", opts, NULL)) != -1) {
		ret = 0;
		switch (c) {
		case 's':
			ro.strict = 1;
			run_opt = 1;
			break;
		case 'i':
			ro.interleave = 1;
			ro.weights = optarg;
			run_opt = 1;
			break;
		case 't':
			ro.targets = optarg;
			run_opt = 1;
			break;
		case 'I':
			ro.initiator = optarg;
			run_opt = 1;
			break;
		case 'r':
			root = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "table"))
				ret = set_format(&fmt, &given, FMT_TABLE, optarg);
			else if (!strcmp(optarg, "json"))
				ret = set_format(&fmt, &given, FMT_JSON, optarg);
			else if (!strcmp(optarg, "dot"))
				ret = set_format(&fmt, &given, FMT_DOT, optarg);
			else
				ret = usage_error("invalid --format '%s' (table, json "
						  "or dot)", optarg);
			break;
		case 'j':
			ret = set_format(&fmt, &given, FMT_JSON, "json");
			break;
		case 'd':
			ret = set_format(&fmt, &given, FMT_DOT, "dot");
			break;
		case 'b':
			by = optarg;
			break;
		case 'o':
			only = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("hmsctl (libhms) 1.1\n");
			return 0;
		case ':':
			return usage_error("option '%s' requires an argument",
					   argv[optind - 1]);
		default:
			return usage_error("unrecognized option '%s'", argv[optind - 1]);
		}
		if (ret)
			return ret;
	}
	if (optind >= argc)
		return usage_error("%s", "missing command");
	cmd = argv[optind];
	args = argv + optind + 1;
	nargs = argc - optind - 1;
	if (!strcmp(cmd, "topology"))
		want = 0;
	else if (!strcmp(cmd, "path"))
		want = 2;
	else if (!strcmp(cmd, "best") || !strcmp(cmd, "fallback"))
		want = 1;
	else if (!strcmp(cmd, "run") || !strcmp(cmd, "show"))
		want = 0;
	else
		return usage_error("unknown command '%s'", cmd);
	if (run_opt && strcmp(cmd, "run"))
		return usage_error("--strict, --interleave, --targets and "
				   "--initiator only apply to run, not to %s", cmd);
	if (ro.argv && strcmp(cmd, "run"))
		return usage_error("'--' only applies to run, not to %s", cmd);
	if (!strcmp(cmd, "run")) {
		if (!ro.targets)
			return usage_error("%s", "run: --targets is required");
		if (!ro.argv || !ro.argv[0])
			return usage_error("%s", "run: missing -- PROGRAM");
		if (ro.strict && ro.interleave)
			return usage_error("%s", "run: --strict is for a bind, "
					   "not with --interleave");
		if (ro.initiator && !(ro.weights && !strcmp(ro.weights, "auto")))
			return usage_error("%s", "run: --initiator only applies "
					   "to --interleave=auto");
		ret = parse_spec(ro.targets, &ntargets);
		if (!ret && ro.initiator)
			ret = parse_selector(ro.initiator, "initiator", &sel[0]);
		if (!ret && ro.weights && strcmp(ro.weights, "auto")) {
			unsigned int w[64];

			ret = parse_weights(ro.weights, ntargets, w);
		}
		if (ret)
			return ret;
	}
	if (nargs != want) {
		fprintf(stderr, "%s: %s: expected %d argument%s, got %d\n", prog, cmd,
			want, want == 1 ? "" : "s", nargs);
		return EXIT_USAGE;
	}
	if (fmt == FMT_DOT && want)
		return usage_error("--format dot applies only to topology, not to %s",
				   cmd);
	if ((by || only) && want != 1)
		return usage_error("--by/--only only apply to best and fallback%s", "");
	/* usage errors before anything can fail at run time */
	if (want == 1) {
		ret = parse_by(by, only, &how, &filters);
		if (ret)
			return ret;
	}
	for (i = 0; i < want; i++) {
		ret = parse_selector(args[i], i ? "target" : "initiator", &sel[i]);
		if (ret)
			return ret;
	}

	if (hms_topology_load(&topo, root, 0) && !strcmp(cmd, "show")) {
		topo = NULL;	/* show the policy all the same, targets as ? */
	} else if (!topo) {
		const char *r = root ? root : getenv("HMS_SYSFS_ROOT");

		err("cannot read the HMS topology from %s: %s",
		    r && *r ? r : HMS_SYSFS_ROOT, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (!strcmp(cmd, "run")) {
		ret = cmd_run(topo, &ro);
	} else if (!strcmp(cmd, "show")) {
		ret = cmd_show(topo);
	} else if (!strcmp(cmd, "topology")) {
		ret = 0;
		if (fmt == FMT_DOT) {
			show_dot(topo);
		} else if (fmt == FMT_TABLE) {
			show_table(topo);
		} else if (show_json(topo)) {
			err("paths: %s", strerror(errno));
			ret = EXIT_RUNTIME;
		}
	} else if (!strcmp(cmd, "path")) {
		ret = cmd_path(topo, sel, fmt);
	} else if (!strcmp(cmd, "best")) {
		ret = cmd_best(topo, sel, by, how, filters, fmt);
	} else {
		ret = cmd_fallback(topo, sel, by, how, filters, fmt);
	}
	hms_topology_free(topo);
	if (!ret && (fflush(stdout) || ferror(stdout))) {
		err("write error: %s", strerror(errno));
		ret = EXIT_RUNTIME;
	}
	return ret;
}
