/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hmsctl.h - what the parts of hmsctl share: the command line and its
 * commands (hmsctl.c), the object selectors (hmsctl-select.c), the
 * output printers (hmsctl-print.c) and another process's memory
 * (hmsctl-proc.c).
 */
#ifndef HMSCTL_H
#define HMSCTL_H

#include <stdint.h>

#include "hms.h"

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum format { FMT_TABLE, FMT_JSON, FMT_DOT, FMT_COUNT };

/* "hmsctl: " and the message on stderr: a runtime error. */
void errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, then where to find the usage; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A decimal number up to INT32_MAX, digits only: 0, or -1. */
int parse_num(const char *s, uint32_t *out);

/* hmsctl-select.c: INITIATOR and TARGET arguments */

enum sel_kind { SEL_UID, SEL_NODE, SEL_CPU, SEL_CURRENT, SEL_DEVICE };

struct selector {
	enum sel_kind kind;
	uint32_t n;		/* uid, node or CPU number */
	const char *arg;	/* as given, for messages; the device */
};

/*
 * Syntax only, before anything is loaded: 0, or a usage error (EXIT_USAGE)
 * reported as an invalid @what ("initiator", "target").
 */
int parse_selector(const char *arg, const char *what, struct selector *sel);
/* The object a selector names: 0, or EXIT_RUNTIME with a message. */
int get_initiator(const struct hms_topology *topo, const struct selector *sel,
		  const struct hms_initiator **in);
int get_target(const struct hms_topology *topo, const struct selector *sel,
	       const struct hms_target **t);
/* The initiator of CPU N (SEL_CPU) or of this CPU (SEL_CURRENT), or NULL. */
const struct hms_initiator *cpu_initiator(const struct hms_topology *topo,
					  const struct selector *sel);

/* hmsctl-print.c: what the commands print on stdout, in each format */

/*
 * The objects of the topology and the path values of every initiator and
 * target pair. -1 with errno when out of memory (nothing printed).
 */
/* @s as a JSON string, quotes included */
void json_str(const char *s);
int print_topology(const struct hms_topology *topo, enum format fmt);
/* A path's values and its n elements (uids, a link first). */
void print_path(enum format fmt, const struct hms_initiator *in,
		const struct hms_target *t, const struct hms_perf *p,
		const uint32_t *elems, int n);
/* The best target by criterion @by ("bandwidth"...), and its path. */
void print_best(enum format fmt, const struct hms_initiator *in,
		const char *by, const struct hms_target *t,
		const struct hms_perf *p);
/* The n targets the initiator reaches, best first, and their paths. */
void print_fallback(enum format fmt, const struct hms_initiator *in,
		    const char *by, const struct hms_target_perf *r, int n);

/*
 * hmsctl-proc.c: the memory of process @pid per target (stat); of every
 * process the caller may read, or of those of cgroup @cgroup (a path under
 * /sys/fs/cgroup, or absolute) and its descendants, a row each
 * (stat_many); and moving it (migrate: the pages on @from, or all with
 * nfrom 0, to the ordered @to; flags 0 or HMS_MIGRATE_ALL). 0, or
 * EXIT_RUNTIME with a message.
 */
int proc_stat(const struct hms_topology *topo, int pid, enum format fmt);
int proc_stat_many(const struct hms_topology *topo, const char *cgroup,
		   enum format fmt);
int proc_migrate(const struct hms_topology *topo, int pid,
		 const uint32_t *from, unsigned int nfrom,
		 const uint32_t *to, unsigned int nto, unsigned int flags,
		 enum format fmt);

#endif /* HMSCTL_H */
