// SPDX-License-Identifier: GPL-2.0
/*
 * lru-batch - migrate pages that another CPU's LRU batch holds.
 *
 *   lru-batch -p PAGES -h HOLD_CPU -c CALL_CPU -n NODE -u UID
 *             cold|free hbind|ilmove|mbind
 *
 * A thread on HOLD_CPU touches PAGES anonymous pages and advises them
 * (MADV_COLD or MADV_FREE), which puts the last of them in that CPU's
 * deactivate or lazyfree batch: they stay on the LRU, isolable, but the
 * batch holds a reference until the CPU drains it, and the thread then
 * sleeps so that it does not. The caller, on CALL_CPU, moves the range to
 * NODE with hbind MIGRATE to target UID (hbind), hbind INTERLEAVE|MOVE over
 * UID alone (ilmove) or mbind(MPOL_BIND, MPOL_MF_MOVE), then counts with
 * move_pages() where the pages are. Prints "moved N" (MIGRATE's count)
 * and "on-node M".
 * Exit 0, 1 on a failed call, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hbtest.h"

#ifndef MADV_COLD
#define MADV_COLD	20
#endif
#ifndef MADV_FREE
#define MADV_FREE	8
#endif

static char *buf;
static size_t len;
static int advice;
static int pipefd[2];

/* the command line */
static long npages;
static int hold_cpu = -1, call_cpu = -1, node = -1;
static unsigned long uid_arg = UINT32_MAX;

/* touch, advise, tell the caller, then sleep until it is done */
static void *holder(void *arg)
{
	(void)arg;
	HB_PIN(hold_cpu);
	memset(buf, 0x5a, len);
	CHECK(!madvise(buf, len, advice), "madvise: %s", strerror(errno));
	CHECK(write(pipefd[1], "r", 1) == 1, "pipe");
	/* asleep: this CPU runs nothing that drains its batches */
	for (;;)
		pause();
	return NULL;
}

static const struct hb_opt opts[] = {
	{ .name = 'p', .kind = HB_OPT_LONG, .dest = &npages, .arg = "PAGES",
	  .help = "anonymous pages to touch, advise and move" },
	{ .name = 'h', .kind = HB_OPT_INT, .dest = &hold_cpu,
	  .arg = "HOLD_CPU", .help = "the CPU whose LRU batch holds them" },
	{ .name = 'c', .kind = HB_OPT_INT, .dest = &call_cpu,
	  .arg = "CALL_CPU", .help = "the CPU that moves them" },
	{ .name = 'n', .kind = HB_OPT_INT, .dest = &node, .arg = "NODE",
	  .help = "the node they go to" },
	{ .name = 'u', .kind = HB_OPT_ULONG, .dest = &uid_arg, .arg = "UID",
	  .help = "NODE's target (hbind, ilmove)" },
	{ 0 }
};

static const struct hb_cli cli = {
	.prog = "lru-batch",
	.synopsis = "lru-batch -p PAGES -h HOLD_CPU -c CALL_CPU -n NODE -u UID "
		    "cold|free hbind|ilmove|mbind",
	.opts = opts,
};

int main(int argc, char **argv)
{
	long ps = sysconf(_SC_PAGESIZE), i, on = 0;
	int arg, hbind, ilmove, *status;
	unsigned long nmask[(HB_MAXNODE + 63) / 64] = { 0 };
	uint32_t uid;
	pthread_t t;
	void **pages;
	char c;

	arg = hb_getopt(&cli, argc, argv);
	uid = (uint32_t)uid_arg;
	if (argc - arg != 2 || npages <= 0 || hold_cpu < 0 || call_cpu < 0 ||
	    node < 0 || node >= HB_MAXNODE - 1)
		hb_usage_exit(&cli);
	if (!strcmp(argv[arg], "cold"))
		advice = MADV_COLD;
	else if (!strcmp(argv[arg], "free"))
		advice = MADV_FREE;
	else
		hb_usage_exit(&cli);
	hbind = !strcmp(argv[arg + 1], "hbind");
	ilmove = !strcmp(argv[arg + 1], "ilmove");
	if (!hbind && !ilmove && strcmp(argv[arg + 1], "mbind"))
		hb_usage_exit(&cli);
	if ((hbind || ilmove) && uid == UINT32_MAX)
		hb_usage_exit(&cli);

	HB_PIN(call_cpu);
	len = (size_t)npages * ps;
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	CHECK(buf != MAP_FAILED, "mmap: %s", strerror(errno));
	/* no THP: base pages, one batch entry each */
	madvise(buf, len, MADV_NOHUGEPAGE);
	CHECK(!pipe(pipefd), "pipe");
	CHECK(!pthread_create(&t, NULL, holder, NULL), "pthread_create");
	CHECK(read(pipefd[0], &c, 1) == 1, "pipe");

	if (hbind) {
		uint32_t atoms[3] = {
			HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), 0, 0
		};

		CHECK(!sys_hbind(buf, len, &uid, 1, atoms, 3),
		      "hbind MIGRATE: %s", hb_errname(errno));
		printf("moved %u\n", atoms[2]);
	} else if (ilmove) {
		static const uint32_t one = 1;
		uint32_t atoms[1 + HBIND_INTERLEAVE_NDWORDS];

		hb_il_atom(atoms, HBIND_IL_MOVE, 0, &one);
		CHECK(!sys_hbind(buf, len, &uid, 1, atoms,
				 1 + HBIND_INTERLEAVE_NDWORDS),
		      "hbind INTERLEAVE|MOVE: %s", hb_errname(errno));
	} else {
		nmask[node / 64] |= 1UL << (node % 64);
		CHECK(!sys_mbind((unsigned long)buf, len, HB_MPOL_BIND, nmask,
				 HB_MAXNODE, HB_MPOL_MF_MOVE),
		      "mbind MPOL_MF_MOVE: %s", hb_errname(errno));
	}

	pages = calloc(npages, sizeof(*pages));
	status = calloc(npages, sizeof(*status));
	CHECK(pages && status, "calloc");
	for (i = 0; i < npages; i++)
		pages[i] = buf + i * ps;
	CHECK(!sys_move_pages(0, npages, pages, NULL, status, 0),
	      "move_pages: %s", hb_errname(errno));
	for (i = 0; i < npages; i++)
		on += status[i] == node;
	printf("on-node %ld\n", on);
	for (i = 0; i < (long)len; i += ps)
		CHECK(buf[i] == 0x5a || (advice == MADV_FREE && buf[i] == 0),
		      "page %ld lost its data", i / ps);
	return 0;
}
