// SPDX-License-Identifier: GPL-2.0-or-later
/* harness.c - runs the tests of one test program; see harness.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

const char *fixtures;
const char *hmsctl;
char tmpdir[PATH_MAX];
int cur_failed, cur_skipped;
char skip_reason[256];

char *fxroot(const char *name)
{
	static char buf[4][PATH_MAX];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, PATH_MAX, "%s/%s/sys/bus/hms", fixtures, name);
	return b;
}

struct hms_topology *load(const char *name)
{
	struct hms_topology *topo = NULL;

	if (hms_topology_load(&topo, fxroot(name), 0)) {
		printf("# cannot load fixture %s: %s\n", name, strerror(errno));
		cur_failed++;
		return NULL;
	}
	return topo;
}

static void slurp(int fd, char *buf, size_t n)
{
	ssize_t r;
	size_t len = 0;

	lseek(fd, 0, SEEK_SET);
	while (len + 1 < n && (r = read(fd, buf + len, n - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = '\0';
	close(fd);
}

int run(struct run *r, const char *envroot, ...)
{
	char *argv[16];
	char outp[PATH_MAX], errp[PATH_MAX];
	va_list ap;
	int n = 0, fo, fe, st;
	pid_t pid;

	r->status = -1;
	r->out[0] = r->err[0] = '\0';
	argv[n++] = (char *)hmsctl;
	va_start(ap, envroot);
	while (n < 15 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	snprintf(outp, sizeof(outp), "%s/out.XXXXXX", tmpdir);
	snprintf(errp, sizeof(errp), "%s/err.XXXXXX", tmpdir);
	fo = mkstemp(outp);
	fe = mkstemp(errp);
	if (fo < 0 || fe < 0)
		return -1;
	unlink(outp);
	unlink(errp);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(fo, 1);
		dup2(fe, 2);
		if (envroot)
			setenv("HMS_SYSFS_ROOT", envroot, 1);
		else
			unsetenv("HMS_SYSFS_ROOT");
		execv(hmsctl, argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	slurp(fo, r->out, sizeof(r->out));
	slurp(fe, r->err, sizeof(r->err));
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int i;
	int pass = 0, fail = 0, skip = 0, a = 1, tap = 0;
	char cmd[PATH_MAX + 16];

	if (a < argc && !strcmp(argv[a], "--tap")) {
		tap = 1;
		a++;
	}
	if (a >= argc) {
		fprintf(stderr, "usage: %s [--tap] FIXTURES_DIR [HMSCTL]\n", argv[0]);
		return 2;
	}
	fixtures = argv[a++];
	if (a < argc && !access(argv[a], X_OK))
		hmsctl = argv[a];
	/* generated trees hold tens of thousands of files: prefer tmpfs */
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_libhms.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") :
		 !access("/dev/shm", W_OK | X_OK) ? "/dev/shm" : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	unsetenv("HMS_SYSFS_ROOT");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (tap)
		printf("1..%u\n", ntests);
	for (i = 0; i < ntests; i++) {
		cur_failed = cur_skipped = 0;
		tests[i].fn();
		if (cur_skipped && !cur_failed) {
			skip++;
			if (tap)
				printf("ok %u - %s # SKIP %s\n", i + 1, tests[i].name,
				       skip_reason);
		} else if (cur_failed) {
			fail++;
			printf("not ok %u - %s\n", i + 1, tests[i].name);
		} else {
			pass++;
			if (tap)
				printf("ok %u - %s\n", i + 1, tests[i].name);
		}
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	if (tap)
		printf("# %d passed, %d failed, %d skipped\n", pass, fail, skip);
	else if (skip)
		printf("%d passed, %d failed, %d skipped\n", pass, fail, skip);
	else
		printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
