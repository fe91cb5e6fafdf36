// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_hbind.c - the hbind() wrappers on a kernel without hbind(): every
 * call is ENOSYS, argument errors come first; and when libhms believes a
 * kernel has hbind(): only when its bus says so, with the library's number.
 * (The guest suites test the wrappers on the patched kernel.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static void npages(void)
{
	uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE);

	CHECK_EQ(hms_npages((void *)ps, 1), 1);
	CHECK_EQ(hms_npages((void *)(ps + 1), (size_t)ps), 2);
	CHECK_EQ(hms_npages((void *)ps, 0), 0);
	CHECK_EQ(hms_npages((void *)ps, 3 * (size_t)ps), 3);
	CHECK_EQ(hms_npages((void *)(ps - 1), 2), 2);
	/* a range wrapping around the address space */
	CHECK_ERR(hms_npages((void *)ps, SIZE_MAX), 0, EINVAL);
}

static void enosys(void)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	uint32_t uid = 1, atom = 1;
	int32_t q[4];
	char *buf;

	if (hms_has_hbind())
		SKIP("the running kernel has hbind()");
	CHECK_EQ(hms_has_hbind(), 0);
	CHECK_ERR(hbind(0, 0, NULL, 0, &atom, 1), -1, ENOSYS);
	buf = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	CHECK(buf != MAP_FAILED, "mmap");
	if (buf == MAP_FAILED)
		return;
	CHECK_ERR(hms_bind(buf, 4 * ps, &uid, 1, HMS_BIND_STRICT), -1, ENOSYS);
	CHECK_ERR(hms_migrate(buf, 4 * ps, &uid, 1, 0), -1, ENOSYS);
	CHECK_ERR(hms_query(buf, 4 * ps, q), -1, ENOSYS);
	CHECK_ERR(hms_default(buf, 4 * ps), -1, ENOSYS);
	CHECK_ERR(hms_alloc_on_target(4 * ps, 1, HMS_ALLOC_POPULATE), NULL, ENOSYS);
	munmap(buf, 4 * ps);
}

static void has_hbind_keeps_errno(void)
{
	errno = 1234;
	hms_has_hbind();
	CHECK_EQ(errno, 1234);
}

/*
 * hms_has_hbind() caches its answer for the process: each answer below
 * comes from a new process, this program run again with HMS_TEST_HAS_HBIND
 * set, which exits with the answer before main().
 */
__attribute__((constructor)) static void has_hbind_child(void)
{
	if (getenv("HMS_TEST_HAS_HBIND"))
		_exit(hms_has_hbind());
}

/* hms_has_hbind() of a new process whose HMS bus is ROOT; -1 on error */
static int has_hbind_at(const char *root)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		setenv("HMS_SYSFS_ROOT", root, 1);
		setenv("HMS_TEST_HAS_HBIND", "1", 1);
		execl("/proc/self/exe", "test_hbind", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* write TEXT into DIR/hbind_syscall */
static void announce(const char *dir, const char *text)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/hbind_syscall", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0, "create %s", path);
	if (fd < 0)
		return;
	CHECK_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void announced_number(void)
{
	char dir[] = "/tmp/hms-abi-XXXXXX", path[64];

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	/* a bus without the file: a kernel without hbind(), or an older one */
	CHECK_EQ(has_hbind_at(dir), 0);
	/* another number: that call is not hbind() for this library */
	announce(dir, "463\n");
	CHECK_EQ(has_hbind_at(dir), 0);
	announce(dir, "500x\n");
	CHECK_EQ(has_hbind_at(dir), 0);
	announce(dir, "");
	CHECK_EQ(has_hbind_at(dir), 0);
#if defined(__x86_64__) && !defined(__ILP32__)
	/* the number this library was built for */
	announce(dir, "500\n");
	CHECK_EQ(has_hbind_at(dir), 1);
#endif
	snprintf(path, sizeof(path), "%s/hbind_syscall", dir);
	unlink(path);
	rmdir(dir);
}

static void argument_errors(void)
{
	uint32_t uid = 1;
	int32_t q[1];

	CHECK_ERR(hms_alloc_on_target(0, 1, 0), NULL, EINVAL);
	CHECK_ERR(hms_alloc_on_target(4096, 1, 0x100), NULL, EINVAL);
	CHECK_ERR(hms_alloc_on_target(4096, (uint32_t)INT32_MAX + 1, 0), NULL, EINVAL);
	/* a range that wraps around: EINVAL before any system call */
	CHECK_ERR(hms_bind((void *)4096, SIZE_MAX, &uid, 1, 0), -1, EINVAL);
	CHECK_ERR(hms_migrate((void *)4096, SIZE_MAX, &uid, 1, 0), -1, EINVAL);
	CHECK_ERR(hms_query((void *)4096, SIZE_MAX, q), -1, EINVAL);
	CHECK_ERR(hms_default((void *)4096, SIZE_MAX), -1, EINVAL);
}

static void migrate_process_errors(void)
{
	uint32_t uids[65] = { 0 };

	/* no destination, bad flags or pidfd, too many uids: EINVAL first */
	CHECK_ERR(hms_migrate_process(-1, uids, 1, uids + 1, 0, 0), -1, EINVAL);
	CHECK_ERR(hms_migrate_process(-1, uids, 1, uids + 1, 1, 0x2), -1,
		  EINVAL);
	CHECK_ERR(hms_migrate_process(-2, uids, 1, uids + 1, 1, 0), -1, EINVAL);
	CHECK_ERR(hms_migrate_process(-1, uids, 1, uids + 1, 64, 0), -1,
		  EINVAL);
	CHECK_ERR(hms_migrate_process(-1, NULL, 1, uids + 1, 1, 0), -1, EINVAL);
	CHECK_ERR(hms_migrate_process(-1, NULL, 0, NULL, 1, 0), -1, EINVAL);
	/* a well-formed call gets to the system call: ENOSYS here */
	CHECK_ERR(hms_migrate_process(-1, NULL, 0, uids, 64, 0), -1, ENOSYS);
}

static void alloc_fails_cleanly(void)
{
	/* more than the address space: mmap fails, errno is ENOMEM */
	CHECK_ERR(hms_alloc_on_target(SIZE_MAX - 4095, 1, 0), NULL, ENOMEM);
}

static void free_null(void)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK_EQ(hms_free(NULL, 0), 0);
	CHECK(p != MAP_FAILED, "mmap");
	CHECK_EQ(hms_free(p, ps), 0);
	CHECK_ERR(hms_free((void *)1, ps), -1, EINVAL);	/* not page aligned */
}

TESTS(
	T(npages, "hms_npages() counts the pages of the range widened to whole pages; a wrapping range is 0 with EINVAL"),
	T(enosys, "without kernel hbind(), hbind() and every wrapper fail with ENOSYS"),
	T(has_hbind_keeps_errno, "hms_has_hbind() probes without changing errno"),
	T(announced_number, "hms_has_hbind() is true only when the bus's hbind_syscall names the library's number (500 on x86-64): no file, another number or junk is false"),
	T(argument_errors, "hms_alloc_on_target() rejects size 0, unknown flags and uids above INT32_MAX, the wrappers a wrapping range, with EINVAL"),
	T(migrate_process_errors, "hms_migrate_process() rejects no destination, unknown flags, a pidfd below -1, more than 64 uids and NULL arrays with EINVAL before the system call"),
	T(alloc_fails_cleanly, "hms_alloc_on_target() returns NULL with the mmap errno when the mapping fails"),
	T(free_null, "hms_free() unmaps, accepts NULL and reports munmap errors"),
);
