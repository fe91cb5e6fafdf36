// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * best-target.c - the best NUMA node for some CPUs by a memory attribute,
 * with plain hwloc calls (no libhms): what an application sees once the
 * hms plugin has filled the memory attributes.
 *
 *   hwloc-best-target ATTRIBUTE CPULIST
 *
 * ATTRIBUTE is a memory attribute name (Bandwidth, ReadBandwidth,
 * Latency, ...), CPULIST the initiator's CPUs ("0-3,8"). Prints
 * "P#<os_index> <value>" of the best node. Exit status 0, 1 when no node
 * has a value for these CPUs, 2 on bad arguments.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <hwloc.h>

int main(int argc, char **argv)
{
	struct hwloc_location loc;
	hwloc_topology_t topology;
	hwloc_memattr_id_t id;
	hwloc_bitmap_t cpuset;
	hwloc_uint64_t value;
	hwloc_obj_t best;
	int ret = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: hwloc-best-target ATTRIBUTE CPULIST\n");
		return 2;
	}
	cpuset = hwloc_bitmap_alloc();
	if (!cpuset || hwloc_bitmap_list_sscanf(cpuset, argv[2]) < 0 ||
	    hwloc_bitmap_iszero(cpuset)) {
		fprintf(stderr, "hwloc-best-target: invalid cpulist '%s'\n", argv[2]);
		hwloc_bitmap_free(cpuset);
		return 2;
	}
	if (hwloc_topology_init(&topology) < 0 || hwloc_topology_load(topology) < 0) {
		fprintf(stderr, "hwloc-best-target: cannot load the topology: %s\n",
			strerror(errno));
		hwloc_bitmap_free(cpuset);
		return 1;
	}
	if (hwloc_memattr_get_by_name(topology, argv[1], &id) < 0) {
		fprintf(stderr, "hwloc-best-target: unknown memory attribute '%s'\n",
			argv[1]);
		ret = 2;
		goto out;
	}
	loc.type = HWLOC_LOCATION_TYPE_CPUSET;
	loc.location.cpuset = cpuset;
	if (hwloc_memattr_get_best_target(topology, id, &loc, 0, &best, &value) < 0) {
		fprintf(stderr, "hwloc-best-target: no %s value for cpus %s: %s\n",
			argv[1], argv[2], strerror(errno));
		ret = 1;
		goto out;
	}
	printf("P#%u %" PRIu64 "\n", best->os_index, (uint64_t)value);
out:
	hwloc_topology_destroy(topology);
	hwloc_bitmap_free(cpuset);
	return ret;
}
