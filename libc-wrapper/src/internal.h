/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* internal.h - libhms private definitions. */
#ifndef HMS_INTERNAL_H
#define HMS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "hms.h"

#define HMS_HIDDEN __attribute__((visibility("hidden")))

struct hms_object {
	enum hms_object_type type;
	uint32_t uid;
	unsigned int index;		/* in its type's array */
	char name[32];			/* v1-<uid>-<type> */
};

struct hms_target {
	struct hms_object obj;
	uint64_t size;
	int nid;
	enum hms_target_type type;
	char type_name[32];
	int cpu_accessible;
	int cpuless;			/* no CPU initiator on its node */
	struct hms_link **links;
	unsigned int nlinks;
};

struct hms_initiator {
	struct hms_object obj;
	int nid;
	char *cpulist;
	uint64_t *cpus;			/* bitmap */
	unsigned int cpus_words;
	unsigned int ncpus;
	char *device;			/* resolved path or NULL */
	const char *device_name;	/* basename of device */
	struct hms_link **links;
	unsigned int nlinks;
	struct hms_bridge **bridges;
	unsigned int nbridges;
};

struct hms_link {
	struct hms_object obj;
	struct hms_perf perf;
	uint32_t distance;
	struct hms_initiator **initiators;
	unsigned int ninitiators;
	struct hms_target **targets;
	unsigned int ntargets;
	struct hms_bridge **bridges;
	unsigned int nbridges;
};

struct hms_bridge {
	struct hms_object obj;
	struct hms_perf perf;
	struct hms_link *links[2];
	int usable;			/* exactly two valid links */
	struct hms_initiator **initiators;	/* sorted by uid */
	unsigned int ninitiators;
};

struct hms_topology {
	struct hms_target *targets;
	unsigned int ntargets;
	struct hms_initiator *initiators;
	unsigned int ninitiators;
	struct hms_link *links;
	unsigned int nlinks;
	struct hms_bridge *bridges;
	unsigned int nbridges;
	struct hms_object **by_uid;	/* all objects sorted by uid */
	unsigned int nobjects;
	unsigned int nskipped;
	unsigned int nignored;
};

HMS_HIDDEN const struct hms_object *
hms__lookup(const struct hms_topology *topo, uint32_t uid);

#endif /* HMS_INTERNAL_H */
