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

#include "hmsctl.h"

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

void errmsg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'hmsctl --help' for more information.\n");
	return EXIT_USAGE;
}

/* ------------------------------------------------------------------ */
/* path, best, fallback                                                */

static int cmd_path(const struct hms_topology *topo, const struct selector *sel,
		    enum format fmt)
{
	const struct hms_initiator *in;
	const struct hms_target *t;
	struct hms_perf p;
	uint32_t *elems = NULL;
	int r, n;

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
			errmsg("%s", strerror(errno));
			return EXIT_RUNTIME;
		}
		/* a topology is a snapshot: the count cannot change */
		n = hms_path_elements(topo, in, t, elems, (unsigned int)n);
	}
	if (n < 0) {
		if (errno == ENOENT)
			errmsg("initiator %" PRIu32 " cannot reach target %" PRIu32,
			       hms_initiator_uid(in), hms_target_uid(t));
		else
			errmsg("path: %s", strerror(errno));
		free(elems);
		return EXIT_RUNTIME;
	}
	print_path(fmt, in, t, &p, elems, n);
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
		errmsg("%s", strerror(errno));
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
		errmsg("no target for initiator %" PRIu32 ": %s", hms_initiator_uid(in),
		       errno == ENOENT ? "none reachable" : strerror(errno));
		return EXIT_RUNTIME;
	}
	print_best(fmt, in, by, t, &p);
	return 0;
}

static int cmd_fallback(const struct hms_topology *topo,
			const struct selector *sel, const char *by,
			enum hms_by how, unsigned int filters, enum format fmt)
{
	const struct hms_initiator *in;
	struct hms_target_perf *r = NULL;
	int ret, n;

	ret = get_initiator(topo, sel, &in);
	if (ret)
		return ret;
	n = hms_target_ranking(topo, in, how, filters, NULL, 0);
	if (n > 0) {
		r = calloc((size_t)n, sizeof(*r));
		if (!r) {
			errmsg("%s", strerror(errno));
			return EXIT_RUNTIME;
		}
		n = hms_target_ranking(topo, in, how, filters, r, (unsigned int)n);
	}
	if (n < 0) {
		errmsg("fallback: %s", strerror(errno));
		free(r);
		return EXIT_RUNTIME;
	}
	if (n == 0) {
		errmsg("no target reachable from initiator %" PRIu32,
		       hms_initiator_uid(in));
		return EXIT_RUNTIME;
	}
	print_fallback(fmt, in, by, r, n);
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
		errmsg("%s", strerror(errno));
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
		errmsg("%s", strerror(errno));
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
		errmsg("%s", strerror(errno));
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
				errmsg("%s: no system target reachable from initiator %"
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
	errmsg("run: %s: %s", o->argv[0], strerror(ret));
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
		errmsg("show: get_mempolicy: %s", strerror(errno));
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

		errmsg("cannot read the HMS topology from %s: %s",
		       r && *r ? r : HMS_SYSFS_ROOT, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (!strcmp(cmd, "run")) {
		ret = cmd_run(topo, &ro);
	} else if (!strcmp(cmd, "show")) {
		ret = cmd_show(topo);
	} else if (!strcmp(cmd, "topology")) {
		ret = 0;
		if (print_topology(topo, fmt)) {
			errmsg("paths: %s", strerror(errno));
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
		errmsg("write error: %s", strerror(errno));
		ret = EXIT_RUNTIME;
	}
	return ret;
}
