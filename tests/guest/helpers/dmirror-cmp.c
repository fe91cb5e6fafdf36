// SPDX-License-Identifier: GPL-2.0
/*
 * dmirror-cmp - the same migration to device memory done two ways, on the
 * same buffer layout, and the pages each moved compared:
 *   - hbind() MIGRATE to the HMS target of /dev/hms_test<DEV> (test_hms),
 *     read back with hbind QUERY;
 *   - HMM_DMIRROR_MIGRATE_TO_DEV on /dev/hmm_dmirror0 (test_hmm), read back
 *     with HMM_DMIRROR_SNAPSHOT (the device's view);
 * with move_pages() status (nodes == NULL) of both buffers before and after.
 *
 * Layout of NPAGES pages, by page index i % 8:
 *   0, 1, 3, 4, 6: written by the CPU (populated anonymous pages)
 *   2, 7:          never touched (no page)
 *   5:             read by the CPU only (the shared zero page)
 *
 * What must hold:
 *   - both move every populated page, at the same indices (compared);
 *   - hbind MIGRATE moves only populated pages (mbind/move_pages parity:
 *     it does not populate; "moved" == the number of populated pages);
 *   - test_hmm also populates the never-touched and zero-page entries with
 *     fresh device pages (upstream migrate_vma collects pte_none and the
 *     zero page as migratable and dmirror allocates for them): reported
 *     and checked, so that a change on either side shows;
 *   - data of both buffers intact after the CPU reads them back.
 *
 * dmirror-cmp [-d DEV] [-p NPAGES]
 * Exit 0 pass, 1 fail, 77 skip (a device or hbind() missing), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/hbind.h>

#include "hbtest.h"
#include "test_hms_uapi.h"
#include "test_hmm_uapi.h"

enum kind { WRITTEN, UNTOUCHED, ZERO };

static unsigned long psz;

static enum kind kind_of(unsigned long i)
{
	switch (i % 8) {
	case 2:
	case 7:
		return UNTOUCHED;
	case 5:
		return ZERO;
	default:
		return WRITTEN;
	}
}

static int open_dev(const char *path)
{
	int fd = open(path, O_RDWR);

	if (fd < 0)
		SKIP("%s: %s", path, strerror(errno));
	return fd;
}

static char *layout(unsigned long npages)
{
	char *p = mmap(NULL, npages * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char sink;

	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	madvise(p, npages * psz, MADV_NOHUGEPAGE);
	for (unsigned long i = 0; i < npages; i++) {
		if (kind_of(i) == WRITTEN)
			memset(p + i * psz, (int)(i & 0x7f) + 1, psz);
		else if (kind_of(i) == ZERO)
			sink = p[i * psz];
	}
	(void)sink;
	return p;
}

/* data check after the CPU reads everything back */
static void verify(const char *what, const char *p, unsigned long npages)
{
	for (unsigned long i = 0; i < npages; i++) {
		int want = kind_of(i) == WRITTEN ? (int)(i & 0x7f) + 1 : 0;

		for (unsigned long j = 0; j < psz; j++)
			CHECK(p[i * psz + j] == want,
			      "%s: page %lu byte %lu is %d, want %d", what, i, j,
			      p[i * psz + j], want);
	}
}

static void page_status(char *p, unsigned long npages, int *status)
{
	void **pages = calloc(npages, sizeof(*pages));

	CHECK(pages, "out of memory");
	for (unsigned long i = 0; i < npages; i++)
		pages[i] = p + i * psz;
	CHECK(syscall(SYS_move_pages, 0, npages, pages, NULL, status, 0) == 0,
	      "move_pages (status): %s", strerror(errno));
	free(pages);
}

static const char *status_name(int s)
{
	static char buf[16];

	if (s == -ENOENT)
		return "ENOENT";
	if (s == -EFAULT)
		return "EFAULT";
	snprintf(buf, sizeof(buf), "%s%d", s >= 0 ? "n" : "E", s < 0 ? -s : s);
	return buf;
}

/* "0-3,5" style list of the indices set in @set */
static void print_set(const char *what, const unsigned char *set,
		      unsigned long npages)
{
	unsigned long i = 0, n = 0;
	const char *sep = "";

	for (unsigned long k = 0; k < npages; k++)
		n += set[k];
	printf("%s: %lu pages:", what, n);
	while (i < npages) {
		unsigned long j;

		if (!set[i]) {
			i++;
			continue;
		}
		for (j = i; j + 1 < npages && set[j + 1]; j++)
			;
		if (j == i)
			printf("%s%lu", sep, i);
		else
			printf("%s%lu-%lu", sep, i, j);
		sep = ",";
		i = j + 1;
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	unsigned long npages = 256, moved, populated = 0, nh = 0, nd = 0;
	unsigned long long used0;
	struct hms_test_stats st;
	struct hmm_dmirror_cmd cmd;
	unsigned char *inh, *ind, *snap, *pop;
	int *before_h, *before_d, *after_h, *after_d;
	__s32 *where;
	__u32 uid, atoms[4];
	char path[64], *ph, *pd, *rb;
	int dev = 0, fd_hms, fd_hmm, c;

	psz = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "d:p:")) != -1) {
		switch (c) {
		case 'd':
			dev = atoi(optarg);
			break;
		case 'p':
			npages = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: dmirror-cmp [-d DEV] [-p NPAGES]\n");
			return 2;
		}
	}
	if (npages < 8) {
		fprintf(stderr, "dmirror-cmp: NPAGES must be at least 8\n");
		return 2;
	}
	atoms[0] = HBIND_ATOM(HBIND_CMD_DEFAULT, 0);
	if (sys_hbind(NULL, 0, NULL, 0, atoms, 1) && errno == ENOSYS)
		SKIP("this kernel has no hbind() (ENOSYS)");
	snprintf(path, sizeof(path), "/dev/hms_test%d", dev);
	fd_hms = open_dev(path);
	fd_hmm = open_dev("/dev/hmm_dmirror0");
	CHECK(ioctl(fd_hms, HMS_TEST_STATS, &st) == 0, "HMS_TEST_STATS: %s",
	      strerror(errno));
	uid = st.uid;
	used0 = st.used;
	CHECK(st.capacity - st.used >= npages, "device %d too small", dev);

	inh = calloc(npages, 1);
	ind = calloc(npages, 1);
	snap = calloc(npages, 1);
	pop = calloc(npages, 1);
	before_h = calloc(npages, sizeof(int));
	before_d = calloc(npages, sizeof(int));
	after_h = calloc(npages, sizeof(int));
	after_d = calloc(npages, sizeof(int));
	where = calloc(npages, sizeof(*where));
	rb = malloc(npages * psz);
	CHECK(rb && inh && ind && snap && pop && before_h && before_d && after_h &&
	      after_d && where, "out of memory");

	ph = layout(npages);
	pd = layout(npages);
	page_status(ph, npages, before_h);
	page_status(pd, npages, before_d);
	for (unsigned long i = 0; i < npages; i++) {
		int want = kind_of(i) == UNTOUCHED ? -ENOENT : kind_of(i) == ZERO ?
			   -EFAULT : 0;

		CHECK(before_h[i] == before_d[i] || (before_h[i] >= 0 && before_d[i] >= 0),
		      "page %lu: move_pages status differs before migration: %s / %s",
		      i, status_name(before_h[i]), status_name(before_d[i]));
		CHECK(want ? before_h[i] == want : before_h[i] >= 0,
		      "page %lu (%s): move_pages status %s before migration", i,
		      kind_of(i) == WRITTEN ? "written" : kind_of(i) == ZERO ?
		      "zero page" : "never touched", status_name(before_h[i]));
		pop[i] = before_h[i] >= 0;
		populated += pop[i];
	}
	print_set("populated before", pop, npages);

	/* hbind MIGRATE to the test_hms target */
	atoms[0] = HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS);
	atoms[1] = atoms[2] = 0;
	CHECK(sys_hbind(ph, npages * psz, &uid, 1, atoms, 3) == 0,
	      "hbind MIGRATE to %u: %s", uid, strerror(errno));
	moved = atoms[2];
	atoms[0] = HBIND_ATOM(HBIND_CMD_QUERY, HBIND_QUERY_NDWORDS);
	atoms[1] = 0;
	atoms[2] = (__u32)(uintptr_t)where;
	atoms[3] = (__u32)((uint64_t)(uintptr_t)where >> 32);
	CHECK(sys_hbind(ph, npages * psz, NULL, 0, atoms, 4) == 0,
	      "hbind QUERY: %s", strerror(errno));
	for (unsigned long i = 0; i < npages; i++) {
		inh[i] = where[i] == (__s32)uid;
		nh += inh[i];
	}
	printf("hbind MIGRATE: moved %lu\n", moved);
	print_set("hbind QUERY on the device", inh, npages);

	/* test_hmm: HMM_DMIRROR_MIGRATE_TO_DEV, then the device's snapshot */
	/* it reads the range back into cmd.ptr after migrating (EFAULT if none) */
	memset(&cmd, 0, sizeof(cmd));
	cmd.addr = (uintptr_t)pd;
	cmd.ptr = (uintptr_t)rb;
	cmd.npages = npages;
	CHECK(ioctl(fd_hmm, HMM_DMIRROR_MIGRATE_TO_DEV, &cmd) == 0,
	      "HMM_DMIRROR_MIGRATE_TO_DEV: %s", strerror(errno));
	memset(&cmd, 0, sizeof(cmd));
	cmd.addr = (uintptr_t)pd;
	cmd.ptr = (uintptr_t)snap;
	cmd.npages = npages;
	CHECK(ioctl(fd_hmm, HMM_DMIRROR_SNAPSHOT, &cmd) == 0,
	      "HMM_DMIRROR_SNAPSHOT: %s", strerror(errno));
	for (unsigned long i = 0; i < npages; i++) {
		ind[i] = (snap[i] & 0xf0) == HMM_DMIRROR_PROT_DEV_PRIVATE_LOCAL;
		nd += ind[i];
	}
	print_set("dmirror SNAPSHOT on the device", ind, npages);

	page_status(ph, npages, after_h);
	page_status(pd, npages, after_d);

	/* the comparison */
	for (unsigned long i = 0; i < npages; i++) {
		CHECK(inh[i] == pop[i],
		      "page %lu (populated %d): hbind %s it", i, pop[i],
		      inh[i] ? "moved" : "did not move");
		if (pop[i])
			CHECK(ind[i], "page %lu: populated, hbind moved it, test_hmm did not", i);
		CHECK(!inh[i] || after_h[i] == -ENOENT,
		      "page %lu: on the test_hms device but move_pages says %s", i,
		      status_name(after_h[i]));
		CHECK(!ind[i] || after_d[i] == -ENOENT,
		      "page %lu: on the dmirror device but move_pages says %s", i,
		      status_name(after_d[i]));
		CHECK(inh[i] || after_h[i] == before_h[i],
		      "page %lu: not moved by hbind but move_pages status went %s -> %s",
		      i, status_name(before_h[i]), status_name(after_h[i]));
		if (!pop[i])
			CHECK(ind[i], "page %lu (%s): test_hmm did not populate it on the device, as 6.12's test_hmm does",
			      i, kind_of(i) == ZERO ? "zero page" : "never touched");
	}
	printf("same pages: hbind moved %lu (QUERY %lu), test_hmm moved %lu of them at the same indices\n",
	       moved, nh, populated);
	printf("test_hmm also populated %lu never-touched/zero-page entries on its device; hbind leaves them (move_pages parity)\n",
	       nd - populated);
	CHECK(moved == populated && nh == populated,
	      "hbind moved %lu (QUERY %lu), want the %lu populated pages", moved,
	      nh, populated);

	/* back to system memory by CPU reads; data intact */
	verify("hbind buffer", ph, npages);
	verify("dmirror buffer", pd, npages);
	CHECK(ioctl(fd_hms, HMS_TEST_STATS, &st) == 0 && st.used == used0,
	      "test_hms device pages left after CPU read (used %llu, was %llu)",
	      (unsigned long long)st.used, (unsigned long long)used0);
	close(fd_hms);
	close(fd_hmm);
	printf("PASS dmirror-cmp %lu pages\n", npages);
	return 0;
}
