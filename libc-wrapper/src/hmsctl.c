// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hmsctl - show the Heterogeneous Memory System topology and its paths,
 * and run programs with a memory policy over HMS targets.
 *
 *   hmsctl [--root DIR] [--format table|json|dot] COMMAND [ARGS]
 *
 * The command table, commands[], gives each command its arguments, the
 * options and output formats it takes, its checks, its handler and its
 * help line: parsing, checking, dispatch and the usage text all read it.
 * Options may appear anywhere. INITIATOR and TARGET arguments are parsed
 * and resolved in hmsctl-select.c, output is printed by hmsctl-print.c.
 *
 * Exit status: 0 success, 1 runtime error (no topology, unknown object,
 * no path), 2 usage error; all usage errors are found before the topology
 * is read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hmsctl.h"

/* parse_cmdline(): --help or --version, done; exit 0 */
#define DONE		(-1)

void errmsg(const char *fmt, ...)
{
	va_list ap;

	fputs("hmsctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("hmsctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'hmsctl --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

/* ------------------------------------------------------------------ */
/* the command line                                                    */

struct run_opts {
	int strict;
	int interleave;		/* 0 bind, 1 interleave */
	const char *weights;	/* NULL (1 each), "auto", or W,W,... */
	const char *initiator;	/* with auto */
	const char *targets;	/* SPEC */
	char **argv;		/* PROGRAM [ARGS], after the first "--" */
};

struct proc_opts {
	const char *pid;	/* --pid, as given */
	const char *cgroup;	/* --cgroup, as given */
	const char *from, *to;	/* SPECs, as given */
	int all;		/* --all: HMS_MIGRATE_ALL */
	uint32_t npid;		/* --pid, parsed */
};

struct command;

struct cmdline {
	const struct command *cmd;
	char **args;			/* the command's arguments */
	int nargs;
	const char *root;		/* --root or NULL */
	enum format fmt;
	int fmt_given;
	const char *by, *only;		/* as given */
	enum hms_by how;		/* --by and --only, parsed */
	unsigned int filters;
	struct selector sel[2];		/* args: INITIATOR [TARGET], parsed */
	int run_opt;			/* one of run's options was given */
	struct run_opts run;
	struct proc_opts proc;
};

struct command {
	const char *name;
	const char *synopsis;	/* what follows the name, for the usage */
	int nargs;		/* arguments: INITIATOR [TARGET] selectors */
	unsigned int flags;	/* CMD_* */
	/* usage errors beyond those flags and nargs find, or NULL */
	int (*check)(struct cmdline *cl);
	/* topo is NULL only for a CMD_NO_TOPOLOGY command without one */
	int (*handler)(const struct hms_topology *topo,
		       const struct cmdline *cl);
	const char *help;	/* what it does, one line */
};

#define CMD_JSON	(1U << 0)	/* prints JSON: --format json */
#define CMD_DOT		(1U << 1)	/* prints a graph: --format dot */
#define CMD_BY		(1U << 2)	/* takes --by (required) and --only */
#define CMD_RUN		(1U << 3)	/* takes run's options and -- PROGRAM */
#define CMD_NO_TOPOLOGY	(1U << 4)	/* also runs without an HMS topology */
#define CMD_PID		(1U << 5)	/* takes --pid (required) */
#define CMD_CGROUP	(1U << 7)	/* --pid optional; takes --cgroup */
#define CMD_MOVE	(1U << 6)	/* takes --from, --to and --all */

static const char *const format_names[FMT_COUNT] = {
	[FMT_TABLE] = "table", [FMT_JSON] = "json", [FMT_DOT] = "dot",
};

/* the flag a command needs to take a format (table: every command) */
static const unsigned int format_flags[FMT_COUNT] = {
	[FMT_TABLE] = 0, [FMT_JSON] = CMD_JSON, [FMT_DOT] = CMD_DOT,
};

static const struct {
	const char *name;
	enum hms_by how;
} criteria[] = {
	{ "bandwidth", HMS_BY_BANDWIDTH },
	{ "latency", HMS_BY_LATENCY },
	{ "capacity", HMS_BY_CAPACITY },
};

static const struct {
	const char *name;
	unsigned int flag;
} only_filters[] = {
	{ "system", HMS_ONLY_SYSTEM },
	{ "device", HMS_ONLY_DEVICE },
	{ "cpuless", HMS_ONLY_CPULESS },
	{ "cpu-accessible", HMS_ONLY_CPU_ACCESSIBLE },
};

/* CRITERION: 0, or -1 if s names none */
static int parse_criterion(const char *s, enum hms_by *how)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(criteria); i++) {
		if (!strcmp(s, criteria[i].name)) {
			*how = criteria[i].how;
			return 0;
		}
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* topology, path, best, fallback                                      */

static int cmd_topology(const struct hms_topology *topo,
			const struct cmdline *cl)
{
	if (!print_topology(topo, cl->fmt))
		return 0;
	errmsg("paths: %s", strerror(errno));
	return EXIT_RUNTIME;
}

static int cmd_path(const struct hms_topology *topo, const struct cmdline *cl)
{
	const struct hms_initiator *in;
	const struct hms_target *t;
	struct hms_perf p;
	uint32_t *elems = NULL;
	int r, n;

	r = get_initiator(topo, &cl->sel[0], &in);
	if (!r)
		r = get_target(topo, &cl->sel[1], &t);
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
	print_path(cl->fmt, in, t, &p, elems, n);
	free(elems);
	return 0;
}

static int cmd_best(const struct hms_topology *topo, const struct cmdline *cl)
{
	const struct hms_initiator *in;
	const struct hms_target *t;
	struct hms_perf p;
	int r;

	r = get_initiator(topo, &cl->sel[0], &in);
	if (r)
		return r;
	t = hms_best_target(topo, in, cl->how, cl->filters);
	if (!t || hms_path(topo, in, t, &p)) {
		errmsg("no target for initiator %" PRIu32 ": %s",
		       hms_initiator_uid(in),
		       errno == ENOENT ? "none reachable" : strerror(errno));
		return EXIT_RUNTIME;
	}
	print_best(cl->fmt, in, cl->by, t, &p);
	return 0;
}

static int cmd_fallback(const struct hms_topology *topo,
			const struct cmdline *cl)
{
	const struct hms_initiator *in;
	struct hms_target_perf *r = NULL;
	int ret, n;

	ret = get_initiator(topo, &cl->sel[0], &in);
	if (ret)
		return ret;
	n = hms_target_ranking(topo, in, cl->how, cl->filters, NULL, 0);
	if (n > 0) {
		r = calloc((size_t)n, sizeof(*r));
		if (!r) {
			errmsg("%s", strerror(errno));
			return EXIT_RUNTIME;
		}
		n = hms_target_ranking(topo, in, cl->how, cl->filters, r,
				       (unsigned int)n);
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
	print_fallback(cl->fmt, in, cl->by, r, n);
	free(r);
	return 0;
}

/* INITIATOR [TARGET]: their syntax */
static int check_selectors(struct cmdline *cl)
{
	int i, r;

	for (i = 0; i < cl->nargs; i++) {
		r = parse_selector(cl->args[i], i ? "target" : "initiator",
				   &cl->sel[i]);
		if (r)
			return r;
	}
	return 0;
}

/* --by CRITERION [--only FILTER,...] */
static int parse_by(struct cmdline *cl)
{
	char *s, *tok, *save = NULL;
	size_t i;

	if (!cl->by)
		return usage_error("--by is required");
	if (parse_criterion(cl->by, &cl->how))
		return usage_error("invalid --by '%s'", cl->by);
	cl->filters = 0;
	if (!cl->only)
		return 0;
	s = strdup(cl->only);
	if (!s) {
		errmsg("%s", strerror(errno));
		return EXIT_RUNTIME;
	}
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(only_filters); i++)
			if (!strcmp(tok, only_filters[i].name))
				break;
		if (i == ARRAY_SIZE(only_filters)) {
			int r = usage_error("invalid --only filter '%s'", tok);

			free(s);
			return r;
		}
		cl->filters |= only_filters[i].flag;
	}
	free(s);
	return 0;
}

/* best, fallback: the criterion, the filters and the initiator */
static int check_ranking(struct cmdline *cl)
{
	int r = parse_by(cl);

	return r ? r : check_selectors(cl);
}

/* ------------------------------------------------------------------ */
/* run, show                                                           */

static int auto_weights(const struct run_opts *o)
{
	return o->weights && !strcmp(o->weights, "auto");
}

/* "best:bandwidth" etc. -> criterion; 1 if @s is not a best: selector */
static int parse_best(const char *s, enum hms_by *how)
{
	if (strncmp(s, "best:", 5))
		return 1;
	return parse_criterion(s + 5, how);
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
		ret = usage_error("--targets: no target");
	if (!ret && *n > 64)
		ret = usage_error("--targets: more than 64 targets");
	return ret;
}

/* W,W,...: n weights, 1 to HMS_WEIGHT_MAX, into w */
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
	if (!ret && i != n)
		ret = usage_error("--interleave: %u weights for %u targets", i, n);
	return ret;
}

/* run: its options, SPEC, the initiator and the weights (syntax only) */
static int check_run(struct cmdline *cl)
{
	const struct run_opts *o = &cl->run;
	unsigned int n, w[64];
	struct selector sel;
	int ret;

	if (!o->targets)
		return usage_error("run: --targets is required");
	if (!o->argv || !o->argv[0])
		return usage_error("run: missing -- PROGRAM");
	if (o->strict && o->interleave)
		return usage_error("run: --strict is for a bind, not with "
				   "--interleave");
	if (o->initiator && !auto_weights(o))
		return usage_error("run: --initiator only applies to "
				   "--interleave=auto");
	ret = parse_spec(o->targets, &n);
	if (!ret && o->initiator)
		ret = parse_selector(o->initiator, "initiator", &sel);
	if (!ret && o->weights && !auto_weights(o))
		ret = parse_weights(o->weights, n, w);
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
				errmsg("%s: no system target reachable from "
				       "initiator %" PRIu32, tok,
				       hms_initiator_uid(in));
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

static void policy_error(const uint32_t *uids, unsigned int n)
{
	int e = errno;
	unsigned int i;

	fprintf(stderr, "hmsctl: run: cannot set the policy (targets");
	for (i = 0; i < n; i++)
		fprintf(stderr, " %" PRIu32, uids[i]);
	fprintf(stderr, "): %s%s\n", strerror(e),
		e == EINVAL ? " (device memory cannot back a program's "
		"policy; a target may be gone or outside the cpuset)" :
		e == ENODATA ? " (no bandwidth known from the initiator "
		"to a target: give weights)" : "");
}

static int cmd_run(const struct hms_topology *topo, const struct cmdline *cl)
{
	const struct run_opts *o = &cl->run;
	unsigned int w[64], n, i;
	uint32_t uids[64], initiator = HMS_INITIATOR_CURRENT;
	const struct hms_initiator *in;
	struct selector sel;
	int ret;

	parse_spec(o->targets, &n);
	ret = resolve_spec(topo, o->targets, uids);
	if (ret)
		return ret;
	if (o->interleave && auto_weights(o) && o->initiator) {
		parse_selector(o->initiator, "initiator", &sel);
		ret = get_initiator(topo, &sel, &in);
		if (ret)
			return ret;
		initiator = hms_initiator_uid(in);
	}
	if (!o->interleave) {
		ret = hms_set_membind(uids, n, o->strict ? HMS_BIND_STRICT : 0);
	} else if (auto_weights(o)) {
		ret = hms_set_interleave(uids, n, NULL, initiator);
	} else {
		for (i = 0; i < n; i++)
			w[i] = 1;
		if (o->weights)
			parse_weights(o->weights, n, w);
		ret = hms_set_interleave(uids, n, w, initiator);
	}
	if (ret) {
		policy_error(uids, n);
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

static int cmd_show(const struct hms_topology *topo, const struct cmdline *cl)
{
	static const char *const names[] = {
		"default", "preferred", "bind", "interleave", "local",
		"preferred-many", "weighted-interleave",
	};
	unsigned long *mask, maxnode, nid, bits = 8 * sizeof(long);
	cpu_set_t cpus;
	int mode, m;

	(void)cl;
	if (task_policy(&mode, &mask, &maxnode)) {
		errmsg("show: get_mempolicy: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	m = mode & 0xff;
	if (m >= 0 && m < (int)ARRAY_SIZE(names))
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

/* ------------------------------------------------------------------ */
/* stat, migrate                                                       */

static int check_pid(struct cmdline *cl)
{
	struct proc_opts *o = &cl->proc;
	unsigned int n;
	int ret;

	if (o->pid && o->cgroup)
		return usage_error("%s: --pid or --cgroup, not both",
				   cl->cmd->name);
	if (!o->pid && (cl->cmd->flags & CMD_CGROUP))
		return 0;	/* every process, or a cgroup's */
	if (!o->pid)
		return usage_error("%s: --pid is required", cl->cmd->name);
	if (parse_num(o->pid, &o->npid) || !o->npid)
		return usage_error("invalid --pid '%s'", o->pid);
	if (!(cl->cmd->flags & CMD_MOVE))
		return 0;
	if (!o->to)
		return usage_error("%s: --to is required", cl->cmd->name);
	ret = parse_spec(o->to, &n);
	if (!ret && o->from)
		ret = parse_spec(o->from, &n);
	return ret;
}

static int cmd_stat(const struct hms_topology *topo, const struct cmdline *cl)
{
	if (!cl->proc.pid)
		return proc_stat_many(topo, cl->proc.cgroup, cl->fmt);
	return proc_stat(topo, (int)cl->proc.npid, cl->fmt);
}

static int cmd_migrate(const struct hms_topology *topo,
		       const struct cmdline *cl)
{
	const struct proc_opts *o = &cl->proc;
	uint32_t from[64], to[64];
	unsigned int nfrom = 0, nto;
	int ret;

	parse_spec(o->to, &nto);
	ret = resolve_spec(topo, o->to, to);
	if (!ret && o->from) {
		parse_spec(o->from, &nfrom);
		ret = resolve_spec(topo, o->from, from);
	}
	if (ret)
		return ret;
	return proc_migrate(topo, (int)o->npid, from, nfrom, to, nto,
			    o->all ? HMS_MIGRATE_ALL : 0, cl->fmt);
}

/* ------------------------------------------------------------------ */
/* the commands                                                        */

static const struct command commands[] = {
	{
		.name = "topology",
		.synopsis = "",
		.flags = CMD_JSON | CMD_DOT,
		.handler = cmd_topology,
		.help = "targets, initiators, links, bridges and the initiator "
			"x target path bandwidth/latency",
	}, {
		.name = "path",
		.synopsis = "INITIATOR TARGET",
		.nargs = 2,
		.flags = CMD_JSON,
		.check = check_selectors,
		.handler = cmd_path,
		.help = "properties and elements of the path the HMS path rule "
			"picks",
	}, {
		.name = "best",
		.synopsis = "INITIATOR --by CRITERION [--only FILTERS]",
		.nargs = 1,
		.flags = CMD_JSON | CMD_BY,
		.check = check_ranking,
		.handler = cmd_best,
		.help = "uid of the best target for INITIATOR",
	}, {
		.name = "fallback",
		.synopsis = "INITIATOR --by CRITERION [--only FILTERS]",
		.nargs = 1,
		.flags = CMD_JSON | CMD_BY,
		.check = check_ranking,
		.handler = cmd_fallback,
		.help = "reachable targets, best first (hbind order)",
	}, {
		.name = "run",
		.synopsis = "[--strict] [--interleave[=auto|W,W,...]] "
			    "[--initiator INITIATOR] --targets SPEC -- PROGRAM "
			    "[ARGS]",
		.flags = CMD_RUN,
		.check = check_run,
		.handler = cmd_run,
		.help = "run PROGRAM with a memory policy over the targets "
			"(inherited by its children): an ordered bind "
			"(--strict: only these), or a weighted interleave "
			"(weights 1 each, given, or auto: by read bandwidth "
			"from INITIATOR, default the CPU hmsctl runs on)",
	}, {
		.name = "show",
		.synopsis = "",
		.flags = CMD_NO_TOPOLOGY,
		.handler = cmd_show,
		.help = "the memory policy of hmsctl itself, as inherited "
			"(like numactl --show)",
	}, {
		.name = "stat",
		.synopsis = "[--pid PID | --cgroup PATH]",
		.flags = CMD_JSON | CMD_PID | CMD_CGROUP,
		.check = check_pid,
		.handler = cmd_stat,
		.help = "the memory of process PID on each target, system and "
			"device, in MB (like numastat -p); without --pid, a row "
			"per process hmsctl may read, or per process of the "
			"cgroup PATH and its descendants",
	}, {
		.name = "migrate",
		.synopsis = "--pid PID [--from SPEC] --to SPEC [--all]",
		.flags = CMD_JSON | CMD_PID | CMD_MOVE,
		.check = check_pid,
		.handler = cmd_migrate,
		.help = "move the pages of process PID (those on the --from "
			"targets) to the first --to target with room; --all: "
			"also pages other processes map (like migratepages)",
	},
};

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* The names of the commands with flag, "a, b and c", in buf. */
static const char *commands_with(unsigned int flag, char *buf, size_t size)
{
	size_t i, n = 0, k = 0;
	int len = 0;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		n += !!(commands[i].flags & flag);
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(commands) && (size_t)len < size; i++) {
		if (!(commands[i].flags & flag))
			continue;
		k++;
		len += snprintf(buf + len, size - (size_t)len, "%s%s",
				k == 1 ? "" : k == n ? " and " : ", ",
				commands[i].name);
	}
	return buf;
}

/* ------------------------------------------------------------------ */
/* usage                                                               */

#define USAGE_WIDTH	79	/* columns of the usage text, at most */
#define HELP_COLUMN	33	/* where a command's help line starts */

static const char usage_notes[] =
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
"  -p, --pid PID        stat, migrate: the process (its memory is read and\n"
"                       moved with move_pages()'s permissions)\n"
"      --cgroup PATH    stat: the processes of cgroup PATH (under\n"
"                       /sys/fs/cgroup, or absolute) and its descendants\n"
"  -h, --help           this text\n"
"  -V, --version        version\n"
"\n"
"exit status: 0 success, 1 runtime error, 2 usage error\n";

/*
 * Print the words of text from column col, where the cursor is, wrapped
 * at USAGE_WIDTH with the next lines indented to column indent.
 */
static void wrap(FILE *f, const char *text, int col, int indent)
{
	int first = 1, len;

	while (*text) {
		len = (int)strcspn(text, " ");
		if (!first && col + 1 + len > USAGE_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", len, text);
		col += len;
		first = 0;
		text += len;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

/* "  name synopsis", then the help line from HELP_COLUMN */
static void usage_command(FILE *f, const struct command *c)
{
	char syn[256];
	int n;

	n = snprintf(syn, sizeof(syn), "%s%s%s", c->name,
		     *c->synopsis ? " " : "", c->synopsis);
	if (n < HELP_COLUMN - 2) {
		fprintf(f, "  %-*s", HELP_COLUMN - 2, syn);
	} else {
		fputs("  ", f);
		wrap(f, syn, 2, 6);
		fprintf(f, "%*s", HELP_COLUMN, "");
	}
	wrap(f, c->help, HELP_COLUMN, HELP_COLUMN);
}

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: hmsctl [--root DIR] [--format FORMAT] COMMAND [ARGS]\n"
	      "Show the Heterogeneous Memory System (HMS) topology and its "
	      "paths.\n\ncommands:\n", f);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		usage_command(f, &commands[i]);
	fputs(usage_notes, f);
}

/* ------------------------------------------------------------------ */
/* parsing and checking                                                */

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
	{ "pid",	required_argument,	NULL, 'p' },
	{ "cgroup",	required_argument,	NULL, 'c' },
	{ "from",	required_argument,	NULL, 'F' },
	{ "to",		required_argument,	NULL, 'T' },
	{ "all",	no_argument,		NULL, 'a' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static int set_format(struct cmdline *cl, const char *name)
{
	int f;

	for (f = 0; f < FMT_COUNT && strcmp(name, format_names[f]); f++)
		;
	if (f == FMT_COUNT)
		return usage_error("invalid --format '%s' (table, json or dot)",
				   name);
	if (cl->fmt_given && cl->fmt != (enum format)f)
		return usage_error("conflicting output formats (last: %s)", name);
	cl->fmt = (enum format)f;
	cl->fmt_given = 1;
	return 0;
}

/* one option, getopt_long()'s c */
static int parse_option(struct cmdline *cl, int c, char **argv)
{
	switch (c) {
	case 'r':
		cl->root = optarg;
		return 0;
	case 'f':
		return set_format(cl, optarg);
	case 'j':
		return set_format(cl, "json");
	case 'd':
		return set_format(cl, "dot");
	case 'b':
		cl->by = optarg;
		return 0;
	case 'o':
		cl->only = optarg;
		return 0;
	/* run's options: break, to note that one was given */
	case 's':
		cl->run.strict = 1;
		break;
	case 'i':
		cl->run.interleave = 1;
		cl->run.weights = optarg;
		break;
	case 't':
		cl->run.targets = optarg;
		break;
	case 'I':
		cl->run.initiator = optarg;
		break;
	case 'p':
		cl->proc.pid = optarg;
		return 0;
	case 'c':
		cl->proc.cgroup = optarg;
		return 0;
	case 'F':
		cl->proc.from = optarg;
		return 0;
	case 'T':
		cl->proc.to = optarg;
		return 0;
	case 'a':
		cl->proc.all = 1;
		return 0;
	case 'h':
		usage(stdout);
		return DONE;
	case 'V':
		printf("hmsctl (libhms) %d.%d\n", HMS_API_VERSION >> 16 & 0xff,
		       HMS_API_VERSION >> 8 & 0xff);
		return DONE;
	case ':':
		return usage_error("option '%s' requires an argument",
				   argv[optind - 1]);
	default:
		return usage_error("unrecognized option '%s'", argv[optind - 1]);
	}
	cl->run_opt = 1;
	return 0;
}

/*
 * The options, wherever they are, the command and its arguments; run's
 * PROGRAM [ARGS] follow the first "--" and are not parsed. Returns 0, an
 * exit status, or DONE.
 */
static int parse_cmdline(int argc, char **argv, struct cmdline *cl)
{
	int i, c, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			cl->run.argv = argv + i + 1;
			argc = i;
			break;
		}
	}
	opterr = 0;	/* our own messages, prefixed "hmsctl:" */
	while ((c = getopt_long(argc, argv, ":r:f:p:hV", opts, NULL)) != -1) {
		ret = parse_option(cl, c, argv);
		if (ret)
			return ret;
	}
	if (optind >= argc)
		return usage_error("missing command");
	cl->cmd = find_command(argv[optind]);
	if (!cl->cmd)
		return usage_error("unknown command '%s'", argv[optind]);
	cl->args = argv + optind + 1;
	cl->nargs = argc - optind - 1;
	return 0;
}

/* What the command line gives that its command does not take. */
static int check_cmdline(struct cmdline *cl)
{
	const struct command *c = cl->cmd;
	unsigned int need = format_flags[cl->fmt];
	char names[128];

	if (cl->run_opt && !(c->flags & CMD_RUN))
		return usage_error("--strict, --interleave, --targets and "
				   "--initiator only apply to %s, not to %s",
				   commands_with(CMD_RUN, names, sizeof(names)),
				   c->name);
	if (cl->run.argv && !(c->flags & CMD_RUN))
		return usage_error("'--' only applies to %s, not to %s",
				   commands_with(CMD_RUN, names, sizeof(names)),
				   c->name);
	if (cl->nargs != c->nargs)
		return usage_error("%s: expected %d argument%s, got %d", c->name,
				   c->nargs, c->nargs == 1 ? "" : "s", cl->nargs);
	if (need && !(c->flags & need))
		return usage_error("--format %s applies only to %s, not to %s",
				   format_names[cl->fmt],
				   commands_with(need, names, sizeof(names)),
				   c->name);
	if ((cl->by || cl->only) && !(c->flags & CMD_BY))
		return usage_error("--by/--only only apply to %s",
				   commands_with(CMD_BY, names, sizeof(names)));
	if (cl->proc.pid && !(c->flags & CMD_PID))
		return usage_error("--pid only applies to %s",
				   commands_with(CMD_PID, names, sizeof(names)));
	if (cl->proc.cgroup && !(c->flags & CMD_CGROUP))
		return usage_error("--cgroup only applies to %s",
				   commands_with(CMD_CGROUP, names,
						 sizeof(names)));
	if ((cl->proc.from || cl->proc.to || cl->proc.all) &&
	    !(c->flags & CMD_MOVE))
		return usage_error("--from, --to and --all only apply to %s",
				   commands_with(CMD_MOVE, names, sizeof(names)));
	return c->check ? c->check(cl) : 0;
}

/* The topology at --root; none is fine for a CMD_NO_TOPOLOGY command. */
static int load_topology(const struct cmdline *cl, struct hms_topology **topo)
{
	const char *r;

	if (!hms_topology_load(topo, cl->root, 0))
		return 0;
	if (cl->cmd->flags & CMD_NO_TOPOLOGY)
		return 0;
	r = cl->root ? cl->root : getenv("HMS_SYSFS_ROOT");
	errmsg("cannot read the HMS topology from %s: %s",
	       r && *r ? r : HMS_SYSFS_ROOT, strerror(errno));
	return EXIT_RUNTIME;
}

int main(int argc, char **argv)
{
	struct cmdline cl = { .fmt = FMT_TABLE, .how = HMS_BY_BANDWIDTH };
	struct hms_topology *topo = NULL;
	int ret;

	ret = parse_cmdline(argc, argv, &cl);
	if (!ret)
		ret = check_cmdline(&cl);
	if (!ret)
		ret = load_topology(&cl, &topo);
	if (ret)
		return ret == DONE ? 0 : ret;
	ret = cl.cmd->handler(topo, &cl);
	hms_topology_free(topo);
	if (!ret && (fflush(stdout) || ferror(stdout))) {
		errmsg("write error: %s", strerror(errno));
		ret = EXIT_RUNTIME;
	}
	return ret;
}
