// SPDX-License-Identifier: GPL-2.0
/*
 * hms-il - libhms's interleave and thread-policy wrappers, through the
 * library (static, musl): hms_interleave() on a fresh mapping, or
 * hms_set_membind(), hms_set_interleave(), hms_set_default() for the
 * thread, then a first touch of NPAGES pages and where they went. Output,
 * one item a line:
 *   'ret ok' | 'ret errno=E', 'mode M' (get_mempolicy() of the mapping for
 *   range, of the thread otherwise: mode with flags, decimal), and
 *   'nodes n0=12 n2=4' (move_pages() status counts).
 *
 * Usage: hms-il range|membind|membind-strict|interleave|default
 *               UIDS|- W,W,...|auto|- NPAGES [move]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hms.h>

#include "hbtest.h"

#define MAXN	64

static unsigned int parse_list(const char *s, unsigned int *v)
{
	char *dup, *tok, *save;
	unsigned int n = 0;

	if (!strcmp(s, "-"))
		return 0;
	dup = strdup(s);
	for (tok = strtok_r(dup, ",", &save); tok && n < MAXN;
	     tok = strtok_r(NULL, ",", &save))
		v[n++] = (unsigned int)strtoul(tok, NULL, 0);
	free(dup);
	return n;
}

int main(int argc, char **argv)
{
	unsigned int uids[MAXN], w[MAXN], n, nw, i, flags = 0;
	int count[MAXN] = { 0 }, mode = -1, ret;
	long ps = sysconf(_SC_PAGESIZE);
	unsigned long mask = 0, npages;
	const char *op;
	void **pages;
	int *status;
	char *p;

	if (argc < 5) {
		fprintf(stderr, "usage: hms-il range|membind|membind-strict|"
			"interleave|default UIDS|- W,W,...|auto|- NPAGES [move]\n");
		return 2;
	}
	op = argv[1];
	n = parse_list(argv[2], uids);
	nw = strcmp(argv[3], "auto") ? parse_list(argv[3], w) : 0;
	npages = strtoul(argv[4], NULL, 0);
	if (argc > 5 && !strcmp(argv[5], "move"))
		flags = HMS_INTERLEAVE_MOVE;
	p = mmap(NULL, npages * ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pages = calloc(npages, sizeof(*pages));
	status = calloc(npages, sizeof(*status));
	if (p == MAP_FAILED || !pages || !status) {
		perror("hms-il");
		return 1;
	}

	if (!strcmp(op, "range")) {
		if (flags)	/* pages there first, to move */
			memset(p, 1, npages * ps);
		ret = hms_interleave(p, npages * ps, uids, n, nw ? w : NULL,
				     HMS_INITIATOR_CURRENT, flags);
	} else if (!strcmp(op, "membind")) {
		ret = hms_set_membind(uids, n, 0);
	} else if (!strcmp(op, "membind-strict")) {
		ret = hms_set_membind(uids, n, HMS_BIND_STRICT);
	} else if (!strcmp(op, "interleave")) {
		ret = hms_set_interleave(uids, n, nw ? w : NULL,
					 HMS_INITIATOR_CURRENT);
	} else if (!strcmp(op, "default")) {
		ret = hms_set_default();
	} else {
		fprintf(stderr, "hms-il: unknown operation '%s'\n", op);
		return 2;
	}
	if (ret)
		printf("ret errno=%s\n", hb_errname(errno));
	else
		printf("ret ok\n");
	if (sys_get_mempolicy(&mode, &mask, HB_MAXNODE,
			      strcmp(op, "range") ? 0 : (unsigned long)p,
			      strcmp(op, "range") ? 0 : 2 /* MPOL_F_ADDR */))
		printf("mode errno=%s\n", hb_errname(errno));
	else
		printf("mode %d\n", mode);
	memset(p, 2, npages * ps);
	for (i = 0; i < npages; i++)
		pages[i] = p + i * ps;
	if (sys_move_pages(0, npages, pages, NULL, status, 0)) {
		printf("nodes errno=%s\n", hb_errname(errno));
		return 0;
	}
	for (i = 0; i < npages; i++)
		if (status[i] >= 0 && status[i] < MAXN)
			count[status[i]]++;
	printf("nodes");
	for (i = 0; i < MAXN; i++)
		if (count[i])
			printf(" n%u=%d", i, count[i]);
	printf("\n");
	return 0;
}
