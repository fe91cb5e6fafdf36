/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hms.h - libhms: Heterogeneous Memory System topology and hbind().
 *
 * libhms reads the HMS topology the kernel exposes under /sys/bus/hms
 * (targets = memory, initiators = CPUs or devices, links and bridges that
 * connect them, each with bandwidth and latency), answers "how does this
 * initiator reach that target, and how fast" with the path rule of
 * Documentation/mm/hms.rst, and wraps the hbind() system call that binds,
 * migrates and queries a virtual address range by HMS target.
 *
 * Conventions:
 * - functions returning int or long return -1 and set errno on error;
 *   functions returning a pointer return NULL and set errno;
 * - unknown "flags" bits are an error (EINVAL), so that they can be given
 *   a meaning later;
 * - list calls take (array, n) and return the number of entries available,
 *   like snprintf(): they fill min(n, that number) entries, so a return
 *   value above n means the array was too small; (NULL, 0) only counts,
 *   (NULL, n > 0) is EINVAL;
 * - the library never prints and never exits: errno says why a call
 *   failed, hms_topology_nskipped() and hms_topology_nignored() what a
 *   tolerant load left out.
 *
 * Objects (struct hms_target etc.) belong to the topology they came from
 * and stay valid until hms_topology_free(). A topology is a snapshot: it
 * is never updated; load a new one after hotplug. A topology may be read
 * from several threads at once.
 *
 * See libhms(3) and the per-group man pages.
 */
#ifndef HMS_H
#define HMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The libhms version, 0x00MMmmpp: major, minor, patch. It is written only
 * here: the build gives it to the library, hms.pc and hmsctl.
 */
#define HMS_API_VERSION		0x00010200

/* ------------------------------------------------------------------ */
/* hbind(2) and helpers building its atom stream (hms_bind(3))        */
/* ------------------------------------------------------------------ */

/*
 * The raw system call: see the hbind(2) ABI in <linux/hbind.h>. Returns 0
 * or -1 with errno; ENOSYS when the running kernel has no hbind().
 */
long hbind(unsigned long start, unsigned long len, const uint32_t *targets,
	   unsigned int ntargets, uint32_t *atoms, unsigned int natoms);

/* 1 if the running kernel implements hbind(), 0 if not (probed once). */
int hms_has_hbind(void);

/* Same values as HBIND_BIND_STRICT / HBIND_MIGRATE_ALL in <linux/hbind.h>. */
#define HMS_BIND_STRICT		(1U << 0)	/* hms_bind(): MPOL_BIND-like */
#define HMS_MIGRATE_ALL		(1U << 0)	/* hms_migrate(): MOVE_ALL-like */

/* Value of a hms_query() entry for a page that is not populated... */
#define HMS_QUERY_NOT_PRESENT	(-2)		/* -ENOENT */
/* ...and for the zero page or a page without memory behind it. */
#define HMS_QUERY_NO_MEMORY	(-14)		/* -EFAULT */

/*
 * The range helpers widen [addr, addr + len) to whole pages (start rounded
 * down, end rounded up), so they accept any buffer; hms_npages() gives the
 * number of pages of the widened range (entries of a hms_query() buffer).
 */
size_t hms_npages(const void *addr, size_t len);

/* Bind the range to the ordered targets (first = preferred). */
int hms_bind(void *addr, size_t len, const uint32_t *targets, unsigned int n,
	     unsigned int flags);
/* Migrate the range to the ordered targets; returns pages moved. */
long hms_migrate(void *addr, size_t len, const uint32_t *targets,
		 unsigned int n, unsigned int flags);
/* Per page: target uid holding it, or HMS_QUERY_NOT_PRESENT/NO_MEMORY. */
int hms_query(const void *addr, size_t len, int32_t *out);
/* Drop any hbind/mbind policy of the range (back to the default policy). */
int hms_default(void *addr, size_t len);

/*
 * hms_query() and hms_migrate() on the memory of another process, named by
 * a pidfd (pidfd_open(2)), with move_pages(2)'s permissions; addr is an
 * address of that process.
 */
int hms_query_pid(int pidfd, unsigned long addr, size_t len, int32_t *out);
long hms_migrate_pid(int pidfd, unsigned long addr, size_t len,
		     const uint32_t *targets, unsigned int n,
		     unsigned int flags);
/*
 * Every mapping of the process of pidfd (-1: the caller), the form of
 * migrate_pages(2): the pages on the nfrom targets of from (every page not
 * on a target of to, when nfrom is 0) move to the first of the nto targets
 * of to with room. Returns the pages moved.
 */
long hms_migrate_process(int pidfd, const uint32_t *from, unsigned int nfrom,
			 const uint32_t *to, unsigned int nto,
			 unsigned int flags);

/*
 * Weighted interleave over system targets (hms_interleave(3)). weights:
 * one per target (1 to HMS_WEIGHT_MAX), or NULL for weights proportional
 * to the read bandwidth from the initiator (HMS_INITIATOR_CURRENT: the mean
 * over the CPU initiators of the CPUs the calling thread may run on).
 * HMS_INTERLEAVE_MOVE also moves the pages already there.
 */
#define HMS_INTERLEAVE_MOVE	(1U << 2)	/* HBIND_IL_MOVE */
#define HMS_INITIATOR_CURRENT	UINT32_MAX
#define HMS_WEIGHT_MAX		255
int hms_interleave(void *addr, size_t len, const uint32_t *targets,
		   unsigned int n, const unsigned int *weights,
		   uint32_t initiator, unsigned int flags);

/*
 * The calling thread's policy, as set_mempolicy() sets it: inherited across
 * fork(), kept across execve(). hms_set_membind(): ordered targets, flags 0
 * (MPOL_PREFERRED_MANY-like) or HMS_BIND_STRICT (MPOL_BIND-like).
 * hms_set_interleave(): as hms_interleave(). hms_set_default(): none.
 */
int hms_set_membind(const uint32_t *targets, unsigned int n,
		    unsigned int flags);
int hms_set_interleave(const uint32_t *targets, unsigned int n,
		       const unsigned int *weights, uint32_t initiator);
int hms_set_default(void);

/* hms_alloc_on_target() flags */
#define HMS_ALLOC_STRICT	(1U << 0)	/* HMS_BIND_STRICT binding */
#define HMS_ALLOC_POPULATE	(1U << 1)	/* touch every page after binding */
/* populate, then migrate to the target (device-private targets) */
#define HMS_ALLOC_MIGRATE	(1U << 2)
/*
 * Anonymous private mapping of size bytes bound to target uid. Returns the
 * mapping or NULL with errno. Free with hms_free().
 */
void *hms_alloc_on_target(size_t size, uint32_t uid, unsigned int flags);
int hms_free(void *ptr, size_t size);

/* ------------------------------------------------------------------ */
/* Topology (hms_topology_load(3))                                    */
/* ------------------------------------------------------------------ */

struct hms_topology;
struct hms_target;
struct hms_initiator;
struct hms_link;
struct hms_bridge;

enum hms_object_type {
	HMS_OBJ_NONE = 0,
	HMS_OBJ_TARGET,
	HMS_OBJ_INITIATOR,
	HMS_OBJ_LINK,
	HMS_OBJ_BRIDGE,
};

enum hms_target_type {
	HMS_TARGET_UNKNOWN = 0,		/* a type this library does not know */
	HMS_TARGET_SYSTEM,		/* "system": a NUMA node's memory */
	HMS_TARGET_DEVICE_PRIVATE,	/* "device-private" */
	HMS_TARGET_DEVICE_COHERENT,	/* "device-coherent" */
};

/* Bandwidth in MB/s, latency in ns; 0 = unknown. */
struct hms_perf {
	uint64_t read_bandwidth;
	uint64_t write_bandwidth;
	uint64_t read_latency;
	uint64_t write_latency;
};

/* Default sysfs root: the directory holding the bus's "devices". */
#define HMS_SYSFS_ROOT		"/sys/bus/hms"

/* hms_topology_load() flags */
/* a malformed object fails the load (EINVAL) instead of being skipped */
#define HMS_TOPOLOGY_STRICT	(1U << 0)
/*
 * Load the topology from root, a directory containing the bus's "devices"
 * directory; NULL (or "") means $HMS_SYSFS_ROOT if set, else
 * HMS_SYSFS_ROOT. Returns 0, or -1 with errno (ENOENT: no HMS bus there,
 * EINVAL: bad argument or flag, or a malformed object with
 * HMS_TOPOLOGY_STRICT, ENOMEM) and *topo NULL.
 */
int hms_topology_load(struct hms_topology **topo, const char *root,
		      unsigned int flags);
void hms_topology_free(struct hms_topology *topo);
/*
 * What a tolerant load left out: objects skipped because an attribute was
 * missing or malformed (or their uid was duplicated), and entries ignored
 * because their version or type is unknown (newer kernels).
 */
unsigned int hms_topology_nskipped(const struct hms_topology *topo);
unsigned int hms_topology_nignored(const struct hms_topology *topo);

/* Iteration, by increasing uid: index 0 .. count-1. */
unsigned int hms_topology_ntargets(const struct hms_topology *topo);
unsigned int hms_topology_ninitiators(const struct hms_topology *topo);
unsigned int hms_topology_nlinks(const struct hms_topology *topo);
unsigned int hms_topology_nbridges(const struct hms_topology *topo);
const struct hms_target *hms_topology_target(const struct hms_topology *topo,
					     unsigned int i);
const struct hms_initiator *
hms_topology_initiator(const struct hms_topology *topo, unsigned int i);
const struct hms_link *hms_topology_link(const struct hms_topology *topo,
					 unsigned int i);
const struct hms_bridge *hms_topology_bridge(const struct hms_topology *topo,
					     unsigned int i);

/* Lookups; NULL with errno ENOENT when absent. */
enum hms_object_type hms_uid_type(const struct hms_topology *topo,
				  uint32_t uid);
const struct hms_target *hms_target_by_uid(const struct hms_topology *topo,
					   uint32_t uid);
const struct hms_initiator *
hms_initiator_by_uid(const struct hms_topology *topo, uint32_t uid);
const struct hms_link *hms_link_by_uid(const struct hms_topology *topo,
				       uint32_t uid);
const struct hms_bridge *hms_bridge_by_uid(const struct hms_topology *topo,
					   uint32_t uid);
/* The system target of NUMA node nid. */
const struct hms_target *hms_target_by_nid(const struct hms_topology *topo,
					   int nid);
/* The CPU initiator of node nid / holding CPU cpu. */
const struct hms_initiator *
hms_initiator_by_nid(const struct hms_topology *topo, int nid);
const struct hms_initiator *
hms_initiator_by_cpu(const struct hms_topology *topo, int cpu);
/*
 * The device initiator whose parent device is dev: either a sysfs path of
 * the device (resolved, e.g. "/sys/class/misc/hms_test0") or its name
 * ("hms_test0").
 */
const struct hms_initiator *
hms_initiator_by_device(const struct hms_topology *topo, const char *dev);
/* Initiator of the CPU the calling thread runs on (sched_getcpu()). */
const struct hms_initiator *
hms_initiator_current(const struct hms_topology *topo);

/* Target attributes */
uint32_t hms_target_uid(const struct hms_target *t);
uint64_t hms_target_size(const struct hms_target *t);	/* bytes */
int hms_target_nid(const struct hms_target *t);		/* -1: no node */
enum hms_target_type hms_target_type(const struct hms_target *t);
const char *hms_target_type_name(const struct hms_target *t); /* sysfs text */
int hms_target_cpu_accessible(const struct hms_target *t);
unsigned int hms_target_nlinks(const struct hms_target *t);
const struct hms_link *hms_target_link(const struct hms_target *t,
				       unsigned int i);

/* Initiator attributes */
uint32_t hms_initiator_uid(const struct hms_initiator *in);
int hms_initiator_nid(const struct hms_initiator *in);	/* -1: device */
/* 1 for a device initiator: a "device" link, or no CPUs and no node */
int hms_initiator_is_device(const struct hms_initiator *in);
const char *hms_initiator_cpulist(const struct hms_initiator *in); /* "" */
int hms_initiator_has_cpu(const struct hms_initiator *in, int cpu);
unsigned int hms_initiator_ncpus(const struct hms_initiator *in);
/* Resolved path / name of the parent device, NULL for CPU initiators. */
const char *hms_initiator_device(const struct hms_initiator *in);
const char *hms_initiator_device_name(const struct hms_initiator *in);
unsigned int hms_initiator_nlinks(const struct hms_initiator *in);
const struct hms_link *hms_initiator_link(const struct hms_initiator *in,
					  unsigned int i);
unsigned int hms_initiator_nbridges(const struct hms_initiator *in);
const struct hms_bridge *hms_initiator_bridge(const struct hms_initiator *in,
					      unsigned int i);

/* Link attributes */
uint32_t hms_link_uid(const struct hms_link *l);
const struct hms_perf *hms_link_perf(const struct hms_link *l);
uint32_t hms_link_distance(const struct hms_link *l);	/* SLIT, 0: none */
unsigned int hms_link_ninitiators(const struct hms_link *l);
const struct hms_initiator *hms_link_initiator(const struct hms_link *l,
					       unsigned int i);
unsigned int hms_link_ntargets(const struct hms_link *l);
const struct hms_target *hms_link_target(const struct hms_link *l,
					 unsigned int i);
unsigned int hms_link_nbridges(const struct hms_link *l);
const struct hms_bridge *hms_link_bridge(const struct hms_link *l,
					 unsigned int i);

/* Bridge attributes */
uint32_t hms_bridge_uid(const struct hms_bridge *b);
const struct hms_perf *hms_bridge_perf(const struct hms_bridge *b);
/* i = 0 or 1: the two links the bridge connects (by increasing uid). */
const struct hms_link *hms_bridge_link(const struct hms_bridge *b,
				       unsigned int i);
unsigned int hms_bridge_ninitiators(const struct hms_bridge *b);
const struct hms_initiator *hms_bridge_initiator(const struct hms_bridge *b,
						 unsigned int i);
int hms_bridge_allows(const struct hms_bridge *b,
		      const struct hms_initiator *in);

/* ------------------------------------------------------------------ */
/* Paths and target choice (hms_path(3))                              */
/* ------------------------------------------------------------------ */

/*
 * The properties of the (initiator, target) pair: those of the path with
 * the highest read bandwidth, ties broken by the lowest read latency (an
 * unknown value ranks below every known one); remaining ties go to the path
 * with the fewest elements. Returns 0, or -1 with errno ENOENT when the
 * initiator cannot reach the target (EINVAL for NULL arguments).
 */
int hms_path(const struct hms_topology *topo, const struct hms_initiator *in,
	     const struct hms_target *t, struct hms_perf *perf);
/*
 * The uids of the elements of that path, L0, B1, L1, ..., Bk, Lk (list
 * call). -1/ENOENT: no path.
 */
int hms_path_elements(const struct hms_topology *topo,
		      const struct hms_initiator *in,
		      const struct hms_target *t, uint32_t *uids,
		      unsigned int n);

/* Ranking criteria ("by"), one of: */
enum hms_by {
	/* highest path read bandwidth, then lowest read latency */
	HMS_BY_BANDWIDTH = 1,
	/* lowest path read latency, then highest read bandwidth */
	HMS_BY_LATENCY = 2,
	/* largest size, then as HMS_BY_BANDWIDTH */
	HMS_BY_CAPACITY = 3,
};

/*
 * Filters on the candidate targets ("flags" of the ranking calls). Their
 * values are not those of any HMS_BY_*, so that a filter given as "by" is
 * an EINVAL, not another criterion. HMS_ONLY_SYSTEM | HMS_ONLY_DEVICE
 * passes either type.
 */
#define HMS_ONLY_SYSTEM		(1U << 8)	/* "system" targets */
#define HMS_ONLY_DEVICE		(1U << 9)	/* device-private/coherent */
/* no CPU initiator on the target's node (HBM, far memory, devices) */
#define HMS_ONLY_CPULESS	(1U << 10)
#define HMS_ONLY_CPU_ACCESSIBLE	(1U << 11)	/* cpu_accessible = 1 */

/*
 * The best target the initiator can reach by "by" among those passing the
 * filters in flags (like hwloc_memattr_get_best_target()); remaining ties
 * go to the lowest uid. NULL with errno ENOENT if no reachable target
 * passes the filters, EINVAL for bad arguments.
 */
const struct hms_target *hms_best_target(const struct hms_topology *topo,
					 const struct hms_initiator *in,
					 enum hms_by by, unsigned int flags);
/*
 * Every target the initiator can reach and that passes the filters, best
 * first by "by", as uids ready for hbind() (list call). At most
 * HBIND_MAX_TARGETS (64) are useful to hbind().
 */
int hms_target_fallback_list(const struct hms_topology *topo,
			     const struct hms_initiator *in, enum hms_by by,
			     unsigned int flags, uint32_t *uids,
			     unsigned int n);

/* A target and the properties of its path from an initiator. */
struct hms_target_perf {
	const struct hms_target *target;
	struct hms_perf perf;
};

/*
 * The same list with the path properties of each target (list call). One
 * search serves all targets: use it rather than hms_path() per target for
 * tables.
 */
int hms_target_ranking(const struct hms_topology *topo,
		       const struct hms_initiator *in, enum hms_by by,
		       unsigned int flags, struct hms_target_perf *out,
		       unsigned int n);

#ifdef __cplusplus
}
#endif

#endif /* HMS_H */
