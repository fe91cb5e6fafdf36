// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * topology-hms.c - hwloc plugin: memory attributes from the HMS topology.
 *
 * The Linux backend of hwloc fills the memory attributes (Bandwidth,
 * Latency and their Read/Write variants) from the kernel's access classes,
 * /sys/devices/system/node/nodeN/access{0,1}/initiators: one value per
 * target, for its best initiators only. HMS (/sys/bus/hms) carries the
 * whole initiator x target matrix. This component, "hms", runs in the
 * TWEAK phase, once the topology is loaded, and adds through the public
 * memattrs API the values of every CPU initiator x system target pair, as
 * libhms computes them with the HMS path rule (bandwidth the minimum along
 * the path, latency the sum, the path with the best read bandwidth).
 *
 * Like hwloc's own OS-specific backends it only reads this machine: it
 * does nothing when the topology is not this system (XML, synthetic, or
 * another fsroot) unless HWLOC_FSROOT is set, in which case it reads
 * $HWLOC_FSROOT/sys/bus/hms, as the Linux backend reads that root's sysfs.
 * Without an HMS bus, or with HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS, it does
 * nothing. HWLOC_HMS_VERBOSE=1 says what it did or why it did nothing, on
 * stderr.
 *
 * Values are stored as hwloc's Linux backend stores the kernel's: bandwidth
 * as the kernel gives it (MB/s; hwloc documents MiB/s and takes the
 * kernel's number unchanged), latency in ns; Bandwidth and Latency are the
 * average of read and write when both are known; an unknown (0) value is
 * not stored. hwloc finds an initiator's value by CPU set inclusion, so a
 * value it already has for a larger CPU set that contains the initiator's
 * (a target whose best initiators are several nodes) answers for that
 * initiator too: when HMS disagrees with it, the existing value is kept
 * and the conflict reported in verbose mode, since the memattrs API cannot
 * split it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <hwloc/plugins.h>

#include <hms.h>

#define PREFIX "hwloc/hms: "

/* One CPU initiator x system target pair, as read from HMS. */
struct hwloc_hms_pair {
	uint32_t initiator;		/* HMS uids, for messages */
	uint32_t target;
	char *cpulist;			/* the initiator's CPUs */
	int nid;			/* the target's NUMA node */
	struct hms_perf perf;		/* the HMS path's properties */
};

struct hwloc_hms_matrix {
	struct hwloc_hms_pair *pairs;
	unsigned int npairs;
	unsigned int nskipped;		/* HMS objects libhms could not read */
};

static void hwloc_hms_matrix_free(struct hwloc_hms_matrix *m)
{
	unsigned int i;

	for (i = 0; i < m->npairs; i++)
		free(m->pairs[i].cpulist);
	free(m->pairs);
	m->pairs = NULL;
	m->npairs = 0;
}

static int hwloc_hms_matrix_add(struct hwloc_hms_matrix *m, unsigned int *alloc,
				const struct hwloc_hms_pair *p, const char *cpulist)
{
	struct hwloc_hms_pair *pairs;

	if (m->npairs == *alloc) {
		unsigned int n = *alloc ? 2 * *alloc : 16;

		pairs = realloc(m->pairs, n * sizeof(*pairs));
		if (!pairs)
			return -1;
		m->pairs = pairs;
		*alloc = n;
	}
	m->pairs[m->npairs] = *p;
	m->pairs[m->npairs].cpulist = strdup(cpulist);
	if (!m->pairs[m->npairs].cpulist)
		return -1;
	m->npairs++;
	return 0;
}

/*
 * The only function that calls libhms: load the HMS topology under root
 * (NULL: libhms's default, $HMS_SYSFS_ROOT or /sys/bus/hms) and list, for
 * every CPU initiator, each system target it reaches with the properties
 * of the path the HMS path rule picks. Returns 0, or -1 with errno (ENOENT:
 * no HMS bus there).
 */
static int hwloc_hms_read(const char *root, struct hwloc_hms_matrix *m)
{
	struct hms_topology *topo;
	struct hms_target_perf *tp = NULL;
	unsigned int i, cap, alloc = 0;
	int err = 0;

	memset(m, 0, sizeof(*m));
	if (hms_topology_load(&topo, root, 0) < 0)
		return -1;
	m->nskipped = hms_topology_nskipped(topo);
	for (i = 0; i < hms_topology_ninitiators(topo) && !err; i++) {
		const struct hms_initiator *in = hms_topology_initiator(topo, i);
		int n, k;

		if (hms_initiator_is_device(in) || !*hms_initiator_cpulist(in))
			continue;
		n = hms_target_ranking(topo, in, HMS_BY_BANDWIDTH,
				       HMS_ONLY_SYSTEM, NULL, 0);
		if (n <= 0) {
			/* ENOENT: it reaches no system target */
			if (n < 0 && errno != ENOENT)
				err = errno;
			continue;
		}
		cap = (unsigned int)n;
		free(tp);
		tp = calloc(cap, sizeof(*tp));
		if (!tp) {
			err = errno;
			break;
		}
		n = hms_target_ranking(topo, in, HMS_BY_BANDWIDTH,
				       HMS_ONLY_SYSTEM, tp, cap);
		if (n < 0) {
			err = errno;
			break;
		}
		if ((unsigned int)n > cap)
			n = (int)cap;
		for (k = 0; k < n; k++) {
			struct hwloc_hms_pair p = {
				.initiator = hms_initiator_uid(in),
				.target = hms_target_uid(tp[k].target),
				.nid = hms_target_nid(tp[k].target),
				.perf = tp[k].perf,
			};

			if (p.nid < 0)
				continue;
			if (hwloc_hms_matrix_add(m, &alloc, &p,
						 hms_initiator_cpulist(in)) < 0) {
				err = errno;
				break;
			}
		}
	}
	free(tp);
	hms_topology_free(topo);
	if (err) {
		hwloc_hms_matrix_free(m);
		errno = err;
		return -1;
	}
	return 0;
}

struct hwloc_hms_state {
	int verbose;
	unsigned int added;		/* values hwloc did not have */
	unsigned int same;		/* values hwloc already had */
	unsigned int replaced;		/* values hwloc had otherwise */
	unsigned int kept;		/* values kept against HMS */
};

static void __attribute__((format(printf, 2, 3)))
hwloc_hms_say(const struct hwloc_hms_state *st, const char *fmt, ...)
{
	va_list ap;

	if (!st->verbose)
		return;
	va_start(ap, fmt);
	fputs(PREFIX, stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static const char *const hwloc_hms_attr_name[HWLOC_MEMATTR_ID_MAX] = {
	[HWLOC_MEMATTR_ID_BANDWIDTH] = "Bandwidth",
	[HWLOC_MEMATTR_ID_READ_BANDWIDTH] = "ReadBandwidth",
	[HWLOC_MEMATTR_ID_WRITE_BANDWIDTH] = "WriteBandwidth",
	[HWLOC_MEMATTR_ID_LATENCY] = "Latency",
	[HWLOC_MEMATTR_ID_READ_LATENCY] = "ReadLatency",
	[HWLOC_MEMATTR_ID_WRITE_LATENCY] = "WriteLatency",
};

/*
 * The initiator hwloc would answer for cpuset on node: the first one whose
 * CPU set contains cpuset, in hwloc's order (that of
 * hwloc_memattr_get_initiators()). Returns 1 and its value and whether its
 * set equals cpuset, 0 if there is none, -1 on error.
 */
static int hwloc_hms_find(hwloc_topology_t topology, hwloc_memattr_id_t id,
			  hwloc_obj_t node, hwloc_const_cpuset_t cpuset,
			  hwloc_uint64_t *value, int *exact)
{
	struct hwloc_location *locs;
	hwloc_uint64_t *values;
	unsigned int nr = 0, k;
	int found = 0;

	if (hwloc_memattr_get_initiators(topology, id, node, 0, &nr, NULL, NULL) < 0)
		return 0;	/* EINVAL: no value for this node yet */
	if (!nr)
		return 0;
	locs = calloc(nr, sizeof(*locs));
	values = calloc(nr, sizeof(*values));
	if (!locs || !values ||
	    hwloc_memattr_get_initiators(topology, id, node, 0, &nr, locs, values) < 0) {
		free(locs);
		free(values);
		return -1;
	}
	for (k = 0; k < nr; k++) {
		if (locs[k].type != HWLOC_LOCATION_TYPE_CPUSET ||
		    !hwloc_bitmap_isincluded(cpuset, locs[k].location.cpuset))
			continue;
		*value = values[k];
		*exact = hwloc_bitmap_isequal(cpuset, locs[k].location.cpuset);
		found = 1;
		break;
	}
	free(locs);
	free(values);
	return found;
}

static int hwloc_hms_set(hwloc_topology_t topology, struct hwloc_hms_state *st,
			 hwloc_memattr_id_t id, hwloc_obj_t node,
			 hwloc_cpuset_t cpuset, const char *cpulist,
			 hwloc_uint64_t value)
{
	struct hwloc_location loc;
	hwloc_uint64_t old;
	int exact, r;

	if (!value)		/* unknown */
		return 0;
	r = hwloc_hms_find(topology, id, node, cpuset, &old, &exact);
	if (r < 0)
		return -1;
	if (r > 0 && !exact && old != value) {
		hwloc_hms_say(st, "%s of NUMANode P#%u from cpus %s: keeping %" PRIu64
			      " (given for a larger cpuset), HMS says %" PRIu64 "\n",
			      hwloc_hms_attr_name[id], node->os_index, cpulist,
			      (uint64_t)old, (uint64_t)value);
		st->kept++;
		return 0;
	}
	if (r > 0 && old == value) {
		st->same++;
		return 0;
	}
	if (r > 0)
		hwloc_hms_say(st, "%s of NUMANode P#%u from cpus %s: %" PRIu64
			      " replaced by HMS's %" PRIu64 "\n",
			      hwloc_hms_attr_name[id], node->os_index, cpulist,
			      (uint64_t)old, (uint64_t)value);
	loc.type = HWLOC_LOCATION_TYPE_CPUSET;
	loc.location.cpuset = cpuset;
	if (hwloc_memattr_set_value(topology, id, node, &loc, 0, value) < 0)
		return -1;
	if (r > 0)
		st->replaced++;
	else
		st->added++;
	return 0;
}

/* hwloc's Linux backend: the average, when read and write are both known */
static hwloc_uint64_t hwloc_hms_avg(uint64_t r, uint64_t w)
{
	return r && w ? (r + w) / 2 : 0;
}

static int hwloc_hms_set_pair(hwloc_topology_t topology,
			      struct hwloc_hms_state *st,
			      const struct hwloc_hms_pair *p)
{
	const struct hms_perf *f = &p->perf;
	const struct {
		hwloc_memattr_id_t id;
		hwloc_uint64_t value;
	} v[] = {
		{ HWLOC_MEMATTR_ID_BANDWIDTH,
		  hwloc_hms_avg(f->read_bandwidth, f->write_bandwidth) },
		{ HWLOC_MEMATTR_ID_READ_BANDWIDTH, f->read_bandwidth },
		{ HWLOC_MEMATTR_ID_WRITE_BANDWIDTH, f->write_bandwidth },
		{ HWLOC_MEMATTR_ID_LATENCY,
		  hwloc_hms_avg(f->read_latency, f->write_latency) },
		{ HWLOC_MEMATTR_ID_READ_LATENCY, f->read_latency },
		{ HWLOC_MEMATTR_ID_WRITE_LATENCY, f->write_latency },
	};
	hwloc_bitmap_t cpuset;
	hwloc_obj_t node;
	unsigned int k;
	int err = 0;

	node = hwloc_get_numanode_obj_by_os_index(topology, (unsigned int)p->nid);
	if (!node) {
		hwloc_hms_say(st, "target %" PRIu32
			      ": NUMA node %d is not in the topology, skipped\n",
			      p->target, p->nid);
		return 0;
	}
	cpuset = hwloc_bitmap_alloc();
	if (!cpuset)
		return -1;
	if (hwloc_bitmap_list_sscanf(cpuset, p->cpulist) < 0) {
		hwloc_hms_say(st, "initiator %" PRIu32 ": bad cpulist \"%s\", skipped\n",
			      p->initiator, p->cpulist);
		goto out;
	}
	hwloc_bitmap_and(cpuset, cpuset, hwloc_topology_get_topology_cpuset(topology));
	if (hwloc_bitmap_iszero(cpuset)) {
		hwloc_hms_say(st, "initiator %" PRIu32
			      ": cpus %s are not in the topology, skipped\n",
			      p->initiator, p->cpulist);
		goto out;
	}
	for (k = 0; k < sizeof(v) / sizeof(v[0]) && !err; k++)
		err = hwloc_hms_set(topology, st, v[k].id, node, cpuset,
				    p->cpulist, v[k].value);
out:
	hwloc_bitmap_free(cpuset);
	return err;
}

static int hwloc_hms_discover(struct hwloc_backend *backend,
			      struct hwloc_disc_status *dstatus)
{
	hwloc_topology_t topology = backend->topology;
	struct hwloc_hms_state *st = backend->private_data;
	struct hwloc_hms_matrix m;
	const char *fsroot = getenv("HWLOC_FSROOT");
	const char *shown;
	char *root = NULL;
	unsigned int i;
	int err = 0;

	if (dstatus->phase != HWLOC_DISC_PHASE_TWEAK)
		return 0;
	if (hwloc_topology_get_flags(topology) & HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS) {
		hwloc_hms_say(st, "HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS: nothing to add\n");
		return 0;
	}
	if (fsroot && *fsroot && strcmp(fsroot, "/")) {
		if (asprintf(&root, "%s/sys/bus/hms", fsroot) < 0)
			return -1;
	} else if (!hwloc_topology_is_thissystem(topology)) {
		hwloc_hms_say(st, "the topology is not this system: nothing to add\n");
		return 0;
	}
	shown = root ? root : getenv("HMS_SYSFS_ROOT");
	if (!shown || !*shown)
		shown = HMS_SYSFS_ROOT;
	if (hwloc_hms_read(root, &m) < 0) {
		if (errno == ENOENT)
			hwloc_hms_say(st, "no HMS bus at %s: nothing to add\n", shown);
		else if (st->verbose || HWLOC_SHOW_ALL_ERRORS())
			fprintf(stderr, PREFIX "cannot read %s: %s\n", shown,
				strerror(errno));
		free(root);
		return 0;
	}
	if (m.nskipped)
		hwloc_hms_say(st, "%u malformed HMS objects under %s skipped\n",
			      m.nskipped, shown);
	for (i = 0; i < m.npairs && !err; i++)
		err = hwloc_hms_set_pair(topology, st, &m.pairs[i]);
	if (err)
		fprintf(stderr, PREFIX "cannot set memory attributes: %s\n",
			strerror(errno));
	else
		hwloc_hms_say(st, "%s: %u initiator x target pairs; values: %u added, "
			      "%u already there, %u replaced, %u kept\n", shown, m.npairs, st->added, st->same, st->replaced,
			      st->kept);
	hwloc_hms_matrix_free(&m);
	free(root);
	return err;
}

static void hwloc_hms_backend_disable(struct hwloc_backend *backend)
{
	free(backend->private_data);
}

static struct hwloc_backend *
hwloc_hms_component_instantiate(struct hwloc_topology *topology,
				struct hwloc_disc_component *component,
				unsigned excluded_phases __hwloc_attribute_unused,
				const void *data1 __hwloc_attribute_unused,
				const void *data2 __hwloc_attribute_unused,
				const void *data3 __hwloc_attribute_unused)
{
	struct hwloc_backend *backend;
	struct hwloc_hms_state *st;
	const char *env = getenv("HWLOC_HMS_VERBOSE");

	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->verbose = env ? atoi(env) : 0;
	backend = hwloc_backend_alloc(topology, component);
	if (!backend) {
		free(st);
		return NULL;
	}
	backend->private_data = st;
	backend->disable = hwloc_hms_backend_disable;
	backend->discover = hwloc_hms_discover;
	return backend;
}

static struct hwloc_disc_component hwloc_hms_disc_component = {
	"hms",
	HWLOC_DISC_PHASE_TWEAK,
	0,		/* excludes nothing */
	hwloc_hms_component_instantiate,
	10,		/* like the other misc components */
	1,		/* enabled by default */
	NULL
};

static int hwloc_hms_component_init(unsigned long flags)
{
	if (flags)
		return -1;
	if (hwloc_plugin_check_namespace("hms", "hwloc_backend_alloc") < 0)
		return -1;
	return 0;
}

HWLOC_DECLSPEC extern const struct hwloc_component hwloc_hms_component;

const struct hwloc_component hwloc_hms_component = {
	HWLOC_COMPONENT_ABI,
	hwloc_hms_component_init, NULL,
	HWLOC_COMPONENT_TYPE_DISC,
	0,
	&hwloc_hms_disc_component
};
