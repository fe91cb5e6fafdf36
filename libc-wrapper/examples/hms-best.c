// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hms-best - the README's libhms example: the memory with the highest
 * bandwidth from the CPU this runs on, 16 MiB bound to it and touched, and
 * where hbind QUERY finds the pages. Exit status 0 when all are there.
 *
 * Build: `make -C libc-wrapper musl BUILDDIR=DIR` gives DIR/hms-best, static
 * (it runs in the guest, which has no compiler); against an installed
 * libhms: cc -o hms-best hms-best.c $(pkg-config --cflags --libs hms)
 */
#define _GNU_SOURCE
#include <err.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <hms.h>

#define SIZE	(16 << 20)

int main(void)
{
	struct hms_topology *topo;
	const struct hms_target *best;
	size_t i, n, on = 0;
	int32_t *where;
	uint32_t uid;
	char *buf;

	/* the memory with the highest bandwidth from the CPU this runs on */
	if (hms_topology_load(&topo, NULL, 0) ||
	    !(best = hms_best_target(topo, hms_initiator_current(topo),
				     HMS_BY_BANDWIDTH, 0)))
		err(1, "hms_topology_load, hms_best_target");
	uid = hms_target_uid(best);
	printf("CPU %d: best target by bandwidth: %u (node %d, %s)\n",
	       sched_getcpu(), uid, hms_target_nid(best),
	       hms_target_type_name(best));

	/* 16 MiB bound to it and touched: which target holds each page? */
	buf = hms_alloc_on_target(SIZE, uid, HMS_ALLOC_POPULATE);
	n = buf ? hms_npages(buf, SIZE) : 0;
	where = calloc(n ? n : 1, sizeof(*where));
	if (!buf || !where || hms_query(buf, SIZE, where))
		err(1, "hms_alloc_on_target, hms_query");
	for (i = 0; i < n; i++)
		on += where[i] == (int32_t)uid;
	printf("16 MiB bound to target %u: %zu of %zu pages there\n", uid, on, n);
	hms_topology_free(topo);
	return on == n ? 0 : 1;
}
