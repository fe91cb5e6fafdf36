/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Interface of the HMS test module (lib/test_hms.c), a simulated accelerator
 * with its own device-private memory. Each device is a character device
 * /dev/hms_test<N>; a process opens it to let the device access its address
 * space, like the HMM test module (lib/test_hmm_uapi.h).
 */
#ifndef _LIB_TEST_HMS_UAPI_H
#define _LIB_TEST_HMS_UAPI_H

#include <linux/types.h>
#include <linux/ioctl.h>

/*
 * Device access to a range of the caller's address space, through the
 * device's mirror of the CPU page tables.
 *
 * If the memory policy at a page of the range was set by hbind() with this
 * device's HMS target first in its target list, the device first migrates
 * the page to its own memory (also when the page was never touched: device
 * first touch), as long as it has room. Other pages are only mirrored.
 *
 * @addr:   (in) page aligned user address of the range
 * @ptr:    (in) user buffer of npages pages: HMS_TEST_READ copies the range
 *          into it, HMS_TEST_WRITE copies it into the range
 * @npages: (in) number of pages in the range
 * @cpages: (out) number of pages read or written
 * @faults: (out) number of device page faults (mirror refills) taken
 * @mpages: (out) number of pages migrated to the device by this access
 */
struct hms_test_cmd {
	__u64	addr;
	__u64	ptr;
	__u64	npages;
	__u64	cpages;
	__u64	faults;
	__u64	mpages;
};

/*
 * State of the device (not of the caller).
 *
 * @uid:           (out) uid of the device's HMS target (its sysfs "uid")
 * @capacity:      (out) device memory, in pages
 * @used:          (out) device pages in use
 * @migrated_to:   (out) pages migrated to the device since the module loaded
 * @migrated_from: (out) pages migrated back to system memory since then
 */
struct hms_test_stats {
	__u64	uid;
	__u64	capacity;
	__u64	used;
	__u64	migrated_to;
	__u64	migrated_from;
};

#define HMS_TEST_READ		_IOWR('h', 0xa0, struct hms_test_cmd)
#define HMS_TEST_WRITE		_IOWR('h', 0xa1, struct hms_test_cmd)
#define HMS_TEST_STATS		_IOR('h', 0xa2, struct hms_test_stats)

#endif /* _LIB_TEST_HMS_UAPI_H */
