// SPDX-License-Identifier: GPL-2.0
/*
 * hbind-devbench - time hbind() MIGRATE to and from device memory against
 * test_hmm's HMM_DMIRROR_MIGRATE_TO_DEV / HMM_DMIRROR_MIGRATE_TO_SYS moving
 * the same layout (every page of an anonymous 4 KiB-page buffer written by
 * the CPU on node NODE):
 *   system -> device: hbind MIGRATE {test_hms device} vs MIGRATE_TO_DEV;
 *   device -> system: hbind MIGRATE {NODE's target}    vs MIGRATE_TO_SYS.
 * Each size: one untimed round, then ROUNDS rounds; in each round both
 * methods move their own buffer to the device and back, the one that goes
 * first alternating. Prints the median time of each and the median of the
 * per-round ratios hbind / test_hmm. Asserts nothing about times; a cell
 * whose pages did not all move is marked with '!'.
 *
 * Run it pinned to a CPU of NODE (test_hmm brings pages back where the VMA's
 * policy says: the local node), with test_hms (mem_mb at least the largest
 * size) and test_hmm loaded.
 *
 * hbind-devbench [-d DEV] [-n NODE] [-s 16,64] [-r ROUNDS]
 * Exit 0, 1 on error, 77 when a device or hbind() is missing, 2 usage.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "hbtest.h"
#include "test_hms_uapi.h"
#include "test_hmm_uapi.h"

#define MIB		(1024UL * 1024UL)
#define MAX_ROUNDS	64

enum { TO_DEV, TO_SYS, NDIR };
enum { HBIND, HMM, NMETH };

static const char *const dir_name[NDIR] = {
	"system -> device", "device -> system",
};

static long psz;
static int fd_hms, fd_hmm;
static uint32_t dev_uid, node_uid;

static char *map_buffer(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap %zu: %s", len, strerror(errno));
	/* base pages: both drivers migrate 4 KiB pages */
	CHECK(!madvise(p, len, MADV_NOHUGEPAGE), "madvise: %s", strerror(errno));
	for (size_t i = 0; i < len; i += psz)
		memset(p + i, (int)((i / psz) & 0x7f) + 1, psz);
	return p;
}

/* one timed move of @p in direction @dir by method @m; *@moved = pages */
static uint64_t timed(int m, int dir, char *p, size_t len, uint64_t *moved)
{
	uint32_t atoms[3] = {
		HBIND_ATOM(HBIND_CMD_MIGRATE, HBIND_MIGRATE_NDWORDS), 0, 0
	};
	struct hmm_dmirror_cmd cmd = {
		.addr = (uintptr_t)p,
		.npages = len / psz,
	};
	static char *readback;
	static size_t readback_len;
	uint64_t t0, t1;
	int ret;

	if (m == HMM && dir == TO_DEV && readback_len < len) {
		/* MIGRATE_TO_DEV reads the pages back into cmd.ptr */
		free(readback);
		readback = malloc(len);
		CHECK(readback, "out of memory");
		readback_len = len;
	}
	cmd.ptr = (uintptr_t)readback;
	t0 = hb_now_ns();
	if (m == HBIND)
		ret = sys_hbind(p, len, dir == TO_DEV ? &dev_uid : &node_uid,
				1, atoms, 3);
	else
		ret = ioctl(fd_hmm, dir == TO_DEV ? HMM_DMIRROR_MIGRATE_TO_DEV :
			    HMM_DMIRROR_MIGRATE_TO_SYS, &cmd);
	t1 = hb_now_ns();
	CHECK(ret == 0, "%s %s: %s", m == HBIND ? "hbind MIGRATE" : "test_hmm",
	      dir_name[dir], strerror(errno));
	*moved = m == HBIND ? atoms[2] : cmd.cpages;
	return t1 - t0;
}

static void bench(unsigned long mib, int rounds)
{
	uint64_t t[NDIR][NMETH][MAX_ROUNDS], q[MAX_ROUNDS], moved;
	size_t len = mib * MIB, npages = len / psz;
	int ok[NDIR][NMETH];
	char *buf[NMETH];
	int k, o, m, d;

	for (m = 0; m < NMETH; m++) {
		buf[m] = map_buffer(len);
		for (d = 0; d < NDIR; d++)
			ok[d][m] = 1;
	}
	/* warm-up: device memory, page allocators, code under TCG */
	for (m = 0; m < NMETH; m++)
		for (d = 0; d < NDIR; d++)
			timed(m, d, buf[m], len, &moved);
	/*
	 * Round k: each method moves its buffer to the device and back; the
	 * method that goes first alternates, so that a noisy stretch of the
	 * machine hits both alike.
	 */
	for (k = 0; k < rounds; k++) {
		for (o = 0; o < NMETH; o++) {
			m = (o + k) % NMETH;
			for (d = 0; d < NDIR; d++) {
				t[d][m][k] = timed(m, d, buf[m], len, &moved);
				if (moved != npages)
					ok[d][m] = 0;
			}
		}
	}
	for (d = 0; d < NDIR; d++) {
		uint64_t mh, mm;

		/* the ratios first: hb_median() sorts its array */
		for (k = 0; k < rounds; k++)
			q[k] = t[d][HBIND][k] * 1000 /
			       (t[d][HMM][k] ? t[d][HMM][k] : 1);
		mh = hb_median(t[d][HBIND], rounds);
		mm = hb_median(t[d][HMM], rounds);
		printf("%5luMiB  %-16s | %9.2fms%s | %9.2fms%s | x%.2f\n",
		       mib, dir_name[d], mh / 1e6, ok[d][HBIND] ? " " : "!",
		       mm / 1e6, ok[d][HMM] ? " " : "!",
		       hb_median(q, rounds) / 1000.0);
	}
	/* the data went to the device and back: still intact */
	for (m = 0; m < NMETH; m++) {
		for (size_t i = 0; i < npages; i++)
			CHECK(buf[m][i * psz] == (char)((i & 0x7f) + 1) &&
			      buf[m][i * psz + psz - 1] == (char)((i & 0x7f) + 1),
			      "%s buffer: page %zu changed",
			      m == HBIND ? "hbind" : "test_hmm", i);
		munmap(buf[m], len);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: hbind-devbench [-d DEV] [-n NODE] [-s MIB,...] [-r ROUNDS]\n"
"  hbind MIGRATE to /dev/hms_test<DEV> (default 0) and back to NODE\n"
"  (default 0) vs test_hmm MIGRATE_TO_DEV/_TO_SYS, sizes default 16,64,\n"
"  ROUNDS (default 11) interleaved rounds after a warm-up\n");
}

int main(int argc, char **argv)
{
	const char *sizes = "16,64";
	int dev = 0, node = 0, rounds = 11, c;
	struct hms_test_stats st;
	char path[64], *dup, *tok, *save;
	long uid;

	psz = sysconf(_SC_PAGESIZE);
	while ((c = getopt(argc, argv, "d:n:s:r:h")) != -1) {
		switch (c) {
		case 'd':
			dev = atoi(optarg);
			break;
		case 'n':
			node = atoi(optarg);
			break;
		case 's':
			sizes = optarg;
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || dev < 0 || node < 0) {
		usage(stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	{
		uint32_t atom = HBIND_ATOM(HBIND_CMD_DEFAULT, 0);

		if (sys_hbind(NULL, 0, NULL, 0, &atom, 1) && errno == ENOSYS)
			SKIP("this kernel has no hbind() (ENOSYS)");
	}
	snprintf(path, sizeof(path), "/dev/hms_test%d", dev);
	fd_hms = open(path, O_RDWR);
	if (fd_hms < 0)
		SKIP("%s: %s", path, strerror(errno));
	fd_hmm = open("/dev/hmm_dmirror0", O_RDWR);
	if (fd_hmm < 0)
		SKIP("/dev/hmm_dmirror0: %s", strerror(errno));
	CHECK(ioctl(fd_hms, HMS_TEST_STATS, &st) == 0, "HMS_TEST_STATS: %s",
	      strerror(errno));
	dev_uid = st.uid;
	uid = hb_uid_of_node(node);
	CHECK(uid >= 0, "no HMS target for node %d", node);
	node_uid = uid;

	printf("device migration, 4 KiB pages, every page written: hbind MIGRATE "
	       "(test_hms target %u, node %d target %u) vs test_hmm "
	       "(HMM_DMIRROR_MIGRATE_TO_DEV / _TO_SYS)\n",
	       dev_uid, node, node_uid);
	printf("median of %d interleaved rounds after a warm-up; ratio = median "
	       "of hbind / test_hmm per round; '!' = not all pages moved\n",
	       rounds);
	printf("   size  direction        | hbind MIGRATE | test_hmm ioctl | ratio\n");
	dup = strdup(sizes);
	CHECK(dup, "out of memory");
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long mib = strtoul(tok, NULL, 0);

		CHECK(mib && (mib * MIB / psz) <= st.capacity - st.used,
		      "%lu MiB does not fit the device (%llu pages free)", mib,
		      (unsigned long long)(st.capacity - st.used));
		bench(mib, rounds);
	}
	free(dup);
	close(fd_hms);
	close(fd_hmm);
	return 0;
}
