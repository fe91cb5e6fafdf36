// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_hmsctl.c - the hmsctl command line on the fixtures: output formats,
 * object selectors, exit codes and messages.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static struct run r;

#define HMSCTL(...)	run(&r, NULL, __VA_ARGS__, NULL)
#define OK_OUT(want)							\
	CHECK(r.status == 0 && !strcmp(r.out, want) && !r.err[0],	\
	      "status %d, stdout '%s', expected '%s', stderr '%s'", r.status, \
	      r.out, want, r.err)

static int balanced_json(const char *s)
{
	int depth = 0, min = 0;

	for (; *s; s++) {
		depth += (*s == '{' || *s == '[') - (*s == '}' || *s == ']');
		if (depth < min)
			min = depth;
	}
	return depth == 0 && min == 0;
}

static void topology_table(void)
{
	NEED_HMSCTL();
	HMSCTL("--root", fxroot("two-socket-hbm"), "topology");
	CHECK_EQ(r.status, 0);
	CHECK(strstr(r.out, "targets: 4\n") != NULL, "targets line: %s", r.out);
	CHECK(strstr(r.out, "initiators: 2\n") != NULL, "initiators line");
	CHECK(strstr(r.out, "        5    20480    10240    81920     8192\n") != NULL,
	      "bandwidth row: %s", r.out);
	CHECK(strstr(r.out, "        6      145       95      175       65\n") != NULL,
	      "latency row");
	CHECK(strstr(r.out, "128 MiB") != NULL, "size");
	CHECK(r.err[0] == '\0', "stderr: %s", r.err);
	HMSCTL("--root", fxroot("two-socket-hbm"), "--format", "table", "topology");
	CHECK(r.status == 0 && strstr(r.out, "targets: 4\n"), "--format table");
}

static void topology_unknown_and_unreachable(void)
{
	NEED_HMSCTL();
	/* HMS_SYSFS_ROOT is the default root */
	CHECK(run(&r, fxroot("device"), "topology", NULL) == 0, "run");
	CHECK_EQ(r.status, 0);
	CHECK(strstr(r.out, "hms_test0") != NULL, "device name");
	CHECK(strstr(r.out, "        2    20000        -        -\n") != NULL,
	      "no path shown as -: %s", r.out);
	HMSCTL("--root", fxroot("paths"), "topology");
	CHECK(strstr(r.out, "        3        ?        -        -        -        -\n") != NULL,
	      "unknown shown as ?: %s", r.out);
}

static void topology_json(void)
{
	NEED_HMSCTL();
	HMSCTL("--root", fxroot("device"), "topology", "--format", "json");
	CHECK_EQ(r.status, 0);
	CHECK(r.out[0] == '{' && balanced_json(r.out), "balanced JSON");
	CHECK(strstr(r.out, "\"device\": \"hms_test0\"") != NULL, "json device");
	CHECK(strstr(r.out, "{\"initiator\": 5, \"target\": 8, \"read_bandwidth\": 50000, "
		      "\"write_bandwidth\": 30000, \"read_latency\": 270, "
		      "\"write_latency\": 295}") != NULL, "json path: %s", r.out);
}

static void topology_dot(void)
{
	NEED_HMSCTL();
	HMSCTL("--root", fxroot("device"), "--format=dot", "topology");
	CHECK_EQ(r.status, 0);
	CHECK(!strncmp(r.out, "graph hms {\n", 12), "dot header");
	CHECK(strstr(r.out, "\tl12 -- i5;\n") && strstr(r.out, "\tb13 -- l10;\n") &&
	      strstr(r.out, "\tb13 -- i5 [style=dashed];\n") && strstr(r.out, "\tl6 -- t4;\n"),
	      "dot edges");
	CHECK(strlen(r.out) > 2 && !strcmp(r.out + strlen(r.out) - 2, "}\n"), "dot end");
}

static void format_shorthands(void)
{
	static struct run a;

	NEED_HMSCTL();
	run(&a, NULL, "--root", fxroot("device"), "topology", "--format", "json", NULL);
	HMSCTL("--root", fxroot("device"), "topology", "--json");
	CHECK(r.status == 0 && !strcmp(r.out, a.out), "--json = --format json");
	run(&a, NULL, "--root", fxroot("device"), "topology", "-f", "dot", NULL);
	HMSCTL("--root", fxroot("device"), "topology", "--dot");
	CHECK(r.status == 0 && !strcmp(r.out, a.out), "--dot = --format dot");
	/* the same format twice is fine */
	HMSCTL("--root", fxroot("device"), "--json", "-f", "json", "path", "5", "8");
	CHECK_EQ(r.status, 0);
}

static void path_output(void)
{
	NEED_HMSCTL();
	HMSCTL("--root", fxroot("device"), "path", "5", "8");
	OK_OUT("initiator 5 -> target 8\n"
	       "read bandwidth:  50000 MB/s\nwrite bandwidth: 30000 MB/s\n"
	       "read latency:    270 ns\nwrite latency:   295 ns\n"
	       "path:            link 12 bridge 13 link 10\n");
	HMSCTL("--root", fxroot("paths"), "path", "1", "30");
	CHECK(r.status == 0 && strstr(r.out, "read latency:    ? ns\n"), "unknown: %s", r.out);
	HMSCTL("--root", fxroot("device"), "path", "5", "8", "--format", "json");
	OK_OUT("{\"initiator\": 5, \"target\": 8, \"read_bandwidth\": 50000, "
	       "\"write_bandwidth\": 30000, \"read_latency\": 270, \"write_latency\": 295, "
	       "\"elements\": [12, 13, 10]}\n");
}

static void best_and_fallback(void)
{
	NEED_HMSCTL();
	HMSCTL("--root", fxroot("two-socket-hbm"), "best", "5", "--by", "bandwidth");
	OK_OUT("3\n");
	HMSCTL("--root", fxroot("two-socket-hbm"), "best", "6", "--by", "capacity");
	OK_OUT("2\n");
	HMSCTL("--root", fxroot("two-socket-hbm"), "--by", "capacity", "--only",
	       "cpuless,system", "best", "5");
	OK_OUT("3\n");
	HMSCTL("--root", fxroot("two-socket-hbm"), "fallback", "6", "--by", "latency");
	OK_OUT("4 2 1 3\n");
	HMSCTL("--root", fxroot("device"), "best", "5", "--by", "bandwidth", "--only",
	       "device");
	OK_OUT("4\n");
	HMSCTL("--root", fxroot("device"), "fallback", "5", "--by", "bandwidth", "--only",
	       "cpu-accessible");
	OK_OUT("1\n");
}

static void best_and_fallback_json(void)
{
	NEED_HMSCTL();
	HMSCTL("--root", fxroot("two-socket-hbm"), "best", "5", "--by", "latency",
	       "--format", "json");
	OK_OUT("{\"initiator\": 5, \"by\": \"latency\", \"target\": 3, "
	       "\"read_bandwidth\": 81920, \"write_bandwidth\": 81920, "
	       "\"read_latency\": 60, \"write_latency\": 60}\n");
	HMSCTL("--root", fxroot("two-socket-hbm"), "fallback", "6", "--by", "latency",
	       "--only", "cpuless", "--format", "json");
	OK_OUT("{\"initiator\": 6, \"by\": \"latency\", \"targets\": [4, 3], \"paths\": ["
	       "{\"target\": 4, \"read_bandwidth\": 83968, \"write_bandwidth\": 83968, "
	       "\"read_latency\": 65, \"write_latency\": 65}, "
	       "{\"target\": 3, \"read_bandwidth\": 9216, \"write_bandwidth\": 9216, "
	       "\"read_latency\": 175, \"write_latency\": 175}]}\n");
}

static void node_and_cpu_selectors(void)
{
	static struct run a;

	NEED_HMSCTL();
	/* node:1 is initiator 6 and target 2; cpu:0 is initiator 5, target 1 */
	HMSCTL("--root", fxroot("two-socket-hbm"), "path", "node:1", "node:1", "-f", "json");
	CHECK(r.status == 0 && !strncmp(r.out, "{\"initiator\": 6, \"target\": 2, ", 30),
	      "node:1: %s%s", r.out, r.err);
	HMSCTL("--root", fxroot("two-socket-hbm"), "path", "cpu:0", "cpu:1", "-f", "json");
	CHECK(r.status == 0 && !strncmp(r.out, "{\"initiator\": 5, \"target\": 2, ", 30),
	      "cpu:0 cpu:1: %s%s", r.out, r.err);
	/* a CPU-less node's system target */
	HMSCTL("--root", fxroot("two-socket-hbm"), "path", "cpu:1", "node:3");
	CHECK(r.status == 0 && !strncmp(r.out, "initiator 6 -> target 4\n", 24),
	      "node:3: %s%s", r.out, r.err);
	run(&a, NULL, "--root", fxroot("two-socket-hbm"), "fallback", "6", "--by",
	    "latency", NULL);
	HMSCTL("--root", fxroot("two-socket-hbm"), "fallback", "node:1", "--by", "latency");
	CHECK(r.status == 0 && !strcmp(r.out, a.out), "fallback node:1");
	HMSCTL("--root", fxroot("two-socket-hbm"), "best", "cpu:1", "--by", "bandwidth");
	OK_OUT("4\n");
}

static void device_selectors(void)
{
	char path[PATH_MAX];

	NEED_HMSCTL();
	HMSCTL("--root", fxroot("device"), "path", "hms_test0", "hms_test1");
	CHECK(r.status == 0 && !strncmp(r.out, "initiator 5 -> target 8\n", 24),
	      "by name: %s%s", r.out, r.err);
	snprintf(path, sizeof(path), "%s/device/sys/devices/virtual/hms_test/hms_test1",
		 fixtures);
	HMSCTL("--root", fxroot("device"), "path", path, "hms_test0");
	CHECK(r.status == 0 && !strncmp(r.out, "initiator 9 -> target 4\n", 24),
	      "by path: %s%s", r.out, r.err);
	HMSCTL("--root", fxroot("device"), "best", "hms_test1", "--by", "latency");
	OK_OUT("8\n");
	HMSCTL("--root", fxroot("device"), "path", "hms_test0", "node:0");
	CHECK(r.status == 0 && !strncmp(r.out, "initiator 5 -> target 1\n", 24),
	      "device to node: %s%s", r.out, r.err);
}

static void current_selector(void)
{
	cpu_set_t saved, one;

	NEED_HMSCTL();
	if (sched_getaffinity(0, sizeof(saved), &saved))
		SKIP("sched_getaffinity: %s", strerror(errno));
	if (!CPU_ISSET(1, &saved))
		SKIP("CPU 1 is not available to this process");
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		SKIP("sched_setaffinity: %s", strerror(errno));
	/* hmsctl inherits the affinity: it runs on CPU 1, node 1 */
	HMSCTL("--root", fxroot("two-socket-hbm"), "path", "current", "current");
	CHECK(r.status == 0 && !strncmp(r.out, "initiator 6 -> target 2\n", 24),
	      "current: %s%s", r.out, r.err);
	HMSCTL("--root", fxroot("two-socket-hbm"), "best", "current", "--by", "latency");
	OK_OUT("4\n");
	sched_setaffinity(0, sizeof(saved), &saved);
}

/* copy the device fixture to tmpdir/dir and run the shell command in it */
static const char *device_variant(const char *dir, const char *cmd, char *root)
{
	char buf[4 * PATH_MAX];

	snprintf(buf, sizeof(buf), "rm -rf '%s/%s' && cp -a '%s/device' '%s/%s' && "
		 "cd '%s/%s/sys/bus/hms/devices' && %s", tmpdir, dir, fixtures, tmpdir,
		 dir, tmpdir, dir, cmd);
	if (system(buf))
		return NULL;
	snprintf(root, PATH_MAX, "%s/%s/sys/bus/hms", tmpdir, dir);
	return root;
}

static void device_target_errors(void)
{
	char root[PATH_MAX];

	NEED_HMSCTL();
	/* the initiator of hms_test0 loses its local link to target 4 */
	if (!device_variant("nomem", "rm v1-6-link/targets/v1-4-target "
			    "v1-4-target/links/v1-6-link", root))
		SKIP("cannot make the fixture variant");
	HMSCTL("--root", root, "path", "hms_test0", "hms_test0");
	CHECK(r.status == 1 && !r.out[0] &&
	      strstr(r.err, "hmsctl: hms_test0: the device has no memory target of its own"),
	      "no memory: %d %s", r.status, r.err);
	/* a second device target on its local link */
	if (!device_variant("twomem", "ln -s ../../v1-8-target v1-6-link/targets/ && "
			    "ln -s ../../v1-6-link v1-8-target/links/", root))
		SKIP("cannot make the fixture variant");
	HMSCTL("--root", root, "path", "hms_test0", "hms_test0");
	CHECK(r.status == 1 && !r.out[0] &&
	      strstr(r.err, "hmsctl: hms_test0: the device has 2 memory targets: give a uid"),
	      "two: %d %s", r.status, r.err);
}

static void selector_errors(void)
{
	static const struct { const char *a[6]; int status; const char *msg; } cases[] = {
		{ { "path", "node:", "1" }, 2, "invalid initiator 'node:': expected node:N" },
		{ { "path", "5", "node:x" }, 2, "invalid target 'node:x': expected node:N" },
		{ { "path", "cpu:-1", "1" }, 2, "invalid initiator 'cpu:-1': expected cpu:N" },
		{ { "best", "cpu:1x", "--by", "latency" }, 2, "invalid initiator 'cpu:1x'" },
		{ { "path", "5", "99999999999" }, 2, "invalid target uid '99999999999'" },
		{ { "path", "", "1" }, 2, "empty initiator" },
		{ { "path", "node:7", "1" }, 1, "node:7: no CPU initiator on node 7" },
		{ { "path", "5", "node:7" }, 1, "node:7: no system target on node 7" },
		{ { "path", "cpu:9", "1" }, 1, "cpu:9: no initiator has CPU 9" },
		{ { "path", "5", "cpu:9" }, 1, "cpu:9: no initiator has CPU 9" },
		{ { "path", "hms_test7", "1" }, 1, "hms_test7: no device initiator of that device" },
		{ { "path", "5", "nodev" }, 1, "nodev: no device initiator of that device" },
		{ { "path", "99", "1" }, 1, "99: no such initiator" },
		{ { "path", "5", "5" }, 1, "5: no such target" },
		{ { "path", "2", "hms_test0" }, 1, "initiator 2 cannot reach target 4" },
	};

	NEED_HMSCTL();
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *const *a = cases[k].a;

		run(&r, fxroot("device"), a[0], a[1], a[2], a[3], a[4], NULL);
		CHECK(r.status == cases[k].status && !r.out[0] &&
		      !strncmp(r.err, "hmsctl: ", 8) && strstr(r.err, cases[k].msg),
		      "case %zu (%s %s %s): status %d, stderr %s", k, a[0], a[1], a[2],
		      r.status, r.err);
	}
	/* cpu:N as a target: the system target of the CPU's node */
	run(&r, fxroot("device"), "path", "node:0", "cpu:0", NULL);
	CHECK_EQ(r.status, 0);
}

static void format_errors(void)
{
	static const struct { const char *a[6]; const char *msg; } cases[] = {
		{ { "--format", "xml", "topology" }, "invalid --format 'xml'" },
		{ { "--format", "json", "--dot", "topology" }, "conflicting output formats" },
		{ { "--json", "--format", "table", "topology" }, "conflicting output formats" },
		{ { "--format", "dot", "path", "5", "8" }, "--format dot applies only to topology, not to path" },
		{ { "--dot", "best", "5", "--by", "latency" }, "--format dot applies only to topology, not to best" },
		{ { "-f", "dot", "fallback", "5", "--by", "latency" }, "not to fallback" },
		{ { "topology", "--format" }, "option '--format' requires an argument" },
	};

	NEED_HMSCTL();
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *const *a = cases[k].a;

		run(&r, fxroot("device"), a[0], a[1], a[2], a[3], a[4], a[5], NULL);
		CHECK(r.status == 2 && !r.out[0] && !strncmp(r.err, "hmsctl: ", 8) &&
		      strstr(r.err, cases[k].msg) &&
		      strstr(r.err, "Try 'hmsctl --help' for more information."),
		      "case %zu: status %d, stderr %s", k, r.status, r.err);
	}
}

static void usage_and_runtime_errors(void)
{
	static const struct { const char *a[7]; int status; } cases[] = {
		{ { NULL }, 2 },
		{ { "bogus", NULL }, 2 },
		{ { "path", "5", NULL }, 2 },
		{ { "path", "5", "-1", NULL }, 2 },
		{ { "best", "5", NULL }, 2 },
		{ { "best", "5", "--by", "speed", NULL }, 2 },
		{ { "best", "5", "--by", "latency", "--only", "fast", NULL }, 2 },
		{ { "topology", "--by", "latency", NULL }, 2 },
		{ { "path", "5", "8", "--only", "device", NULL }, 2 },
		{ { "topology", "extra", NULL }, 2 },
		{ { "--bogus-option", "topology", NULL }, 2 },
		{ { "path", "99", "1", NULL }, 1 },
		{ { "path", "5", "99", NULL }, 1 },
		{ { "path", "5", "6", NULL }, 1 },	/* 6 is a link */
		{ { "path", "2", "4", NULL }, 1 },	/* no path */
		{ { "best", "2", "--by", "latency", "--only", "device", NULL }, 1 },
		{ { "fallback", "2", "--by", "latency", "--only", "device", NULL }, 1 },
	};

	NEED_HMSCTL();
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *const *a = cases[k].a;

		run(&r, fxroot("device"), a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
		CHECK(r.status == cases[k].status && !strncmp(r.err, "hmsctl:", 7) &&
		      r.out[0] == '\0', "case %zu (%s %s): status %d, stderr %s", k,
		      a[0] ? a[0] : "", a[0] && a[1] ? a[1] : "", r.status, r.err);
	}
}

static void usage_before_load(void)
{
	NEED_HMSCTL();
	HMSCTL("--root", "/nonexistent", "best", "0", "--by", "weight");
	CHECK_EQ(r.status, 2);
	HMSCTL("--root", "/nonexistent", "path", "1", "node:x");
	CHECK_EQ(r.status, 2);
	HMSCTL("--root", "/nonexistent", "--format", "dot", "path", "1", "2");
	CHECK_EQ(r.status, 2);
	HMSCTL("--root", "/nonexistent", "topology");
	CHECK(r.status == 1 && strstr(r.err, "hmsctl: cannot read the HMS topology from "
				      "/nonexistent: No such file or directory"),
	      "missing root: %d %s", r.status, r.err);
	run(&r, "/nonexistent/env", "topology", NULL);
	CHECK(r.status == 1 && strstr(r.err, "from /nonexistent/env: "),
	      "missing env root: %d %s", r.status, r.err);
}

static void run_and_show(void)
{
	static const struct { const char *a[8]; const char *msg; } usage[] = {
		{ { "run", "--targets", "5", NULL }, "run: missing -- PROGRAM" },
		{ { "run", "--", "true", NULL }, "run: --targets is required" },
		{ { "run", "--targets", "5,best:speed", "--", "true", NULL }, "invalid target 'best:speed'" },
		{ { "run", "--targets", "node:x", "--", "true", NULL }, "invalid target 'node:x'" },
		{ { "run", "--interleave=1,2", "--targets", "5", "--", "true", NULL }, "2 weights for 1 targets" },
		{ { "run", "--interleave=0", "--targets", "5", "--", "true", NULL }, "invalid weight '0'" },
		{ { "run", "--interleave=256", "--targets", "5", "--", "true", NULL }, "invalid weight '256'" },
		{ { "run", "--strict", "--interleave", "--targets", "5", "--", "true", NULL }, "--strict is for a bind" },
		{ { "run", "--initiator", "5", "--targets", "5", "--", "true", NULL }, "--initiator only applies to --interleave=auto" },
		{ { "show", "--strict", NULL }, "only apply to run, not to show" },
		{ { "topology", "--targets", "5", NULL }, "only apply to run, not to topology" },
		{ { "topology", "--", "true", NULL }, "'--' only applies to run" },
	};

	NEED_HMSCTL();
	for (size_t k = 0; k < sizeof(usage) / sizeof(usage[0]); k++) {
		const char *const *a = usage[k].a;

		run(&r, "/nonexistent", a[0], a[1], a[2], a[3], a[4], a[5], a[6],
		    a[7], NULL);
		CHECK(r.status == 2 && !r.out[0] && strstr(r.err, usage[k].msg),
		      "case %zu: status %d, stderr %s", k, r.status, r.err);
	}
	/* a target that names nothing: runtime error, the program not run */
	run(&r, fxroot("two-socket-hbm"), "run", "--targets", "node:9", "--",
	    "echo", "ran", NULL);
	CHECK(r.status == 1 && !r.out[0] && strstr(r.err, "node:9"),
	      "unknown node: %d %s", r.status, r.err);
	/* show: the policy hmsctl inherited (none here) */
	run(&r, fxroot("two-socket-hbm"), "show", NULL);
	CHECK(r.status == 0 && !strncmp(r.out, "policy: default\nnodes:\ntargets:\n"
					 "physcpubind:", 44), "show: %d %s %s",
	      r.status, r.out, r.err);
	/* without an HMS topology too, like numactl --show */
	run(&r, "/nonexistent", "show", NULL);
	CHECK(r.status == 0 && !strncmp(r.out, "policy: default\n", 16),
	      "show without HMS: %d %s %s", r.status, r.out, r.err);
}

static void help_and_version(void)
{
	NEED_HMSCTL();
	HMSCTL("--help");
	CHECK(r.status == 0 && !strncmp(r.out, "usage: hmsctl", 13) && !r.err[0] &&
	      strstr(r.out, "node:N") && strstr(r.out, "--format"), "help: %s", r.out);
	HMSCTL("path", "-h");
	CHECK(r.status == 0 && !strncmp(r.out, "usage: hmsctl", 13), "-h anywhere");
	HMSCTL("--version");
	OK_OUT("hmsctl (libhms) 1.2\n");
}

TESTS(
	T(topology_table, "topology prints the objects and the initiator x target bandwidth and latency matrices as a table"),
	T(topology_unknown_and_unreachable, "the topology table shows - for no path and ? for an unknown value, and reads $HMS_SYSFS_ROOT by default"),
	T(topology_json, "topology --format json is one balanced JSON object with devices and every path"),
	T(topology_dot, "topology --format dot is a Graphviz graph with membership edges, dashed to a bridge's initiators"),
	T(format_shorthands, "--json and --dot print the same as --format json and --format dot"),
	T(path_output, "path prints the chosen path's values and elements, ? for unknown, and the same as JSON"),
	T(best_and_fallback, "best and fallback follow the criterion and the --only filters; options may come before the command"),
	T(best_and_fallback_json, "best and fallback --format json give the initiator, the criterion, the targets and their path values"),
	T(node_and_cpu_selectors, "node:N and cpu:N select a node's CPU initiator and system target, and CPU N's initiator and its node's target"),
	T(device_selectors, "a device's name or sysfs path selects its device initiator and the device memory on that initiator's links"),
	T(current_selector, "current selects the initiator of the CPU hmsctl runs on, and its node's system target"),
	T(device_target_errors, "a device with no memory target of its own, or several, is a runtime error naming the device"),
	T(selector_errors, "malformed selectors are usage errors (2), selectors naming nothing are runtime errors (1), each with a message"),
	T(format_errors, "an unknown format, two different formats, or dot outside topology is a usage error (2) with a message"),
	T(usage_and_runtime_errors, "usage errors exit 2, runtime errors exit 1, with a message prefixed hmsctl: and nothing on stdout"),
	T(usage_before_load, "usage errors are reported before the topology is read; a missing root is a runtime error naming it"),
	T(run_and_show, "run: malformed options, targets and weights are usage errors (2) before anything runs, a target naming nothing is a runtime error (1); show prints the inherited policy, with or without an HMS topology"),
	T(help_and_version, "--help prints the usage on stdout and exits 0, anywhere on the line; --version prints the version"),
);
