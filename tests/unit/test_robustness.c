// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_robustness.c - every file and symlink of the device fixture broken
 * in turn (garbage, missing, a directory, redirected): libhms loads or
 * fails with errno, never crashes, and every query on what it loaded is
 * safe (ASan/UBSan check the rest).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static char **mut_paths;
static int nmut, capmut;

static int collect(const char *path, const struct stat *st, int flag,
		   struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag != FTW_F && flag != FTW_SL)
		return 0;
	if (nmut == capmut) {
		char **p = realloc(mut_paths, sizeof(*p) * (size_t)(capmut = capmut * 2 + 64));

		if (!p)
			return -1;
		mut_paths = p;
	}
	mut_paths[nmut] = strdup(path);
	return mut_paths[nmut++] ? 0 : -1;
}

/* Load and use the whole topology: must not crash, leak or misbehave. */
static int exercise(const char *root, int *loaded)
{
	struct hms_topology *topo;
	unsigned int i, j;

	errno = 0;
	if (hms_topology_load(&topo, root, 0))
		return errno ? 0 : -1;	/* a failed load must set errno */
	(*loaded)++;
	for (i = 0; i < hms_topology_ninitiators(topo); i++) {
		const struct hms_initiator *in = hms_topology_initiator(topo, i);
		struct hms_target_perf r[16];

		hms_target_ranking(topo, in, HMS_BY_LATENCY, 0, r, 16);
		hms_best_target(topo, in, HMS_BY_CAPACITY, HMS_ONLY_SYSTEM);
		for (j = 0; j < hms_topology_ntargets(topo); j++) {
			struct hms_perf p;
			uint32_t el[16];

			hms_path(topo, in, hms_topology_target(topo, j), &p);
			hms_path_elements(topo, in, hms_topology_target(topo, j), el, 16);
		}
	}
	for (i = 0; i < hms_topology_nbridges(topo); i++)
		hms_bridge_link(hms_topology_bridge(topo, i), 1);
	hms_topology_free(topo);
	return 0;
}

static void mutations(void)
{
	static const char *const garbage[] = {
		"", "x", "-5", "99999999999999999999999", "1 2", "0-", "4294967296",
		"\x01\x02", "-", "1,,2", "v1-1-target",
	};
	char dir[PATH_MAX], root[PATH_MAX], cmd[2 * PATH_MAX];
	int k, bad = 0, runs = 0, loaded = 0;
	size_t g;

	snprintf(dir, sizeof(dir), "%s/mutate", tmpdir);
	snprintf(cmd, sizeof(cmd), "cp -a '%s/device' '%s'", fixtures, dir);
	if (system(cmd))
		SKIP("cannot copy the device fixture");
	snprintf(root, sizeof(root), "%s/sys/bus/hms", dir);
	nmut = 0;
	snprintf(cmd, sizeof(cmd), "%s/sys", dir);
	if (nftw(cmd, collect, 16, FTW_PHYS)) {
		CHECK(0, "nftw: %s", strerror(errno));
		return;
	}
	for (k = 0; k < nmut; k++) {
		char *p = mut_paths[k], save[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (lstat(p, &st))
			continue;
		if (S_ISLNK(st.st_mode)) {
			static const char *const targets[] = {
				"../../v1-999-link", "../../v1-1-target", "/nonexistent", "..",
			};

			n = readlink(p, save, sizeof(save) - 1);
			if (n < 0)
				continue;
			save[n] = '\0';
			for (g = 0; g < 4; g++) {
				unlink(p);
				if (symlink(targets[g], p))
					break;
				runs++;
				bad += exercise(root, &loaded) != 0;
			}
			unlink(p);
			runs++;
			bad += exercise(root, &loaded) != 0;
			if (symlink(save, p))
				bad++;
		} else {
			int fd = open(p, O_RDONLY);

			n = fd >= 0 ? read(fd, save, sizeof(save)) : -1;
			if (fd >= 0)
				close(fd);
			if (n < 0)
				continue;
			for (g = 0; g < sizeof(garbage) / sizeof(garbage[0]); g++) {
				FILE *f = fopen(p, "w");

				if (!f)
					break;
				fputs(garbage[g], f);
				fclose(f);
				runs++;
				bad += exercise(root, &loaded) != 0;
			}
			unlink(p);			/* missing file */
			runs++;
			bad += exercise(root, &loaded) != 0;
			mkdir(p, 0755);			/* a directory instead */
			runs++;
			bad += exercise(root, &loaded) != 0;
			rmdir(p);
			fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || write(fd, save, (size_t)n) != n)
				bad++;
			if (fd >= 0)
				close(fd);
		}
	}
	for (k = 0; k < nmut; k++)
		free(mut_paths[k]);
	free(mut_paths);
	mut_paths = NULL;
	capmut = 0;
	printf("# mutations: %d loads of broken trees, %d loaded\n", runs, loaded);
	CHECK(bad == 0 && runs > 100, "%d bad of %d runs", bad, runs);
	/* restored intact: the same as the original fixture */
	{
		struct hms_topology *topo;

		CHECK(hms_topology_load(&topo, root, 0) == 0 &&
		      hms_topology_nskipped(topo) == 0 &&
		      hms_topology_nbridges(topo) == 2, "restored tree");
		hms_topology_free(topo);
	}
}

TESTS(
	T(mutations, "with any one file or symlink of a tree broken, hms_topology_load() loads or fails with errno, and every query on the result is safe"),
);
