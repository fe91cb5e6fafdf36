// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hmsctl-select.c - the objects hmsctl's INITIATOR and TARGET arguments
 * name: a uid, node:N, cpu:N, current, or a device's name or sysfs path.
 * Parsing checks the syntax before the topology is read (usage errors);
 * resolving looks the object up (runtime errors).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmsctl.h"

int parse_num(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > INT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int parse_selector(const char *arg, const char *what, struct selector *sel)
{
	sel->arg = arg;
	if (!strncmp(arg, "node:", 5) || !strncmp(arg, "cpu:", 4)) {
		int node = arg[0] == 'n';

		sel->kind = node ? SEL_NODE : SEL_CPU;
		if (parse_num(arg + (node ? 5 : 4), &sel->n))
			return usage_error("invalid %s '%s': expected %s:N with N "
					   "a number", what, arg,
					   node ? "node" : "cpu");
		return 0;
	}
	if (!strcmp(arg, "current")) {
		sel->kind = SEL_CURRENT;
		return 0;
	}
	if (arg[0] >= '0' && arg[0] <= '9' && strspn(arg, "0123456789") == strlen(arg)) {
		sel->kind = SEL_UID;
		if (parse_num(arg, &sel->n))
			return usage_error("invalid %s uid '%s'", what, arg);
		return 0;
	}
	if (!*arg)
		return usage_error("empty %s", what);
	sel->kind = SEL_DEVICE;
	return 0;
}

const struct hms_initiator *cpu_initiator(const struct hms_topology *topo,
					  const struct selector *sel)
{
	const struct hms_initiator *in;

	if (sel->kind == SEL_CURRENT) {
		in = hms_initiator_current(topo);
		if (!in)
			errmsg("current: no initiator for the CPU hmsctl runs on (%s)",
			       strerror(errno));
		return in;
	}
	in = hms_initiator_by_cpu(topo, (int)sel->n);
	if (!in)
		errmsg("%s: no initiator has CPU %" PRIu32, sel->arg, sel->n);
	return in;
}

static const struct hms_initiator *device_initiator(const struct hms_topology *topo,
						    const char *dev)
{
	const struct hms_initiator *in = hms_initiator_by_device(topo, dev);

	if (!in)
		errmsg("%s: no device initiator of that device", dev);
	return in;
}

int get_initiator(const struct hms_topology *topo, const struct selector *sel,
		  const struct hms_initiator **in)
{
	*in = NULL;
	switch (sel->kind) {
	case SEL_UID:
		*in = hms_initiator_by_uid(topo, sel->n);
		if (!*in)
			errmsg("%s: no such initiator", sel->arg);
		break;
	case SEL_NODE:
		*in = hms_initiator_by_nid(topo, (int)sel->n);
		if (!*in)
			errmsg("%s: no CPU initiator on node %" PRIu32, sel->arg, sel->n);
		break;
	case SEL_CPU:
	case SEL_CURRENT:
		*in = cpu_initiator(topo, sel);
		break;
	case SEL_DEVICE:
		*in = device_initiator(topo, sel->arg);
		break;
	}
	return *in ? 0 : EXIT_RUNTIME;
}

/*
 * The memory of a device. The kernel links a device initiator to its
 * parent device ("device" symlink) but not a target: a device's memory is
 * the device-private or device-coherent target on a link of its
 * initiator; there must be exactly one.
 */
static const struct hms_target *device_target(const struct hms_topology *topo,
					      const char *dev)
{
	const struct hms_initiator *in = device_initiator(topo, dev);
	const struct hms_target *found = NULL;
	unsigned int i, j, n = 0;

	if (!in)
		return NULL;
	for (i = 0; i < hms_initiator_nlinks(in); i++) {
		const struct hms_link *l = hms_initiator_link(in, i);

		for (j = 0; j < hms_link_ntargets(l); j++) {
			const struct hms_target *t = hms_link_target(l, j);

			if (hms_target_type(t) == HMS_TARGET_SYSTEM || t == found)
				continue;
			found = t;
			n++;
		}
	}
	if (n == 1)
		return found;
	if (!n)
		errmsg("%s: the device has no memory target of its own", dev);
	else
		errmsg("%s: the device has %u memory targets: give a uid", dev, n);
	return NULL;
}

int get_target(const struct hms_topology *topo, const struct selector *sel,
	       const struct hms_target **t)
{
	const struct hms_initiator *in;

	*t = NULL;
	switch (sel->kind) {
	case SEL_UID:
		*t = hms_target_by_uid(topo, sel->n);
		if (!*t)
			errmsg("%s: no such target", sel->arg);
		break;
	case SEL_NODE:
		*t = hms_target_by_nid(topo, (int)sel->n);
		if (!*t)
			errmsg("%s: no system target on node %" PRIu32, sel->arg, sel->n);
		break;
	case SEL_CPU:
	case SEL_CURRENT:
		in = cpu_initiator(topo, sel);
		if (!in)
			break;
		*t = hms_target_by_nid(topo, hms_initiator_nid(in));
		if (!*t)
			errmsg("%s: the node of CPU initiator %" PRIu32
			       " has no system target", sel->arg,
			       hms_initiator_uid(in));
		break;
	case SEL_DEVICE:
		*t = device_target(topo, sel->arg);
		break;
	}
	return *t ? 0 : EXIT_RUNTIME;
}

