/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * hbind() - bind, migrate and query a virtual address range by HMS target.
 *
 * See Documentation/mm/hms.rst and the hbind(2) man page.
 *
 *   long hbind(unsigned long start, unsigned long len,
 *              const __u32 *targets, unsigned int ntargets,
 *              __u32 *atoms, unsigned int natoms);
 *
 * targets: ordered list of HMS target uids (the "uid" file of a
 *          /sys/bus/hms/devices/v1-<uid>-target object), first = preferred.
 * atoms:   a stream of natoms dwords holding commands. Each command is a
 *          header dword, HBIND_ATOM(cmd, ndwords), followed by exactly
 *          ndwords extra dwords whose meaning depends on the command.
 *          Results are written back into the extra dwords marked (out).
 *
 * The whole call is validated before any command takes effect.
 *
 * ABI promise: command numbers, flag bits and the meaning of existing extra
 * dwords never change; new commands and new flag bits may be added. Unknown
 * commands, wrong dword counts and unknown flag bits fail with EINVAL.
 */
#ifndef _UAPI_LINUX_HBIND_H
#define _UAPI_LINUX_HBIND_H

#include <linux/types.h>

/*
 * Limits on the two arrays; a call over them fails with EINVAL. ntargets may
 * be 0 (and targets NULL) only when no command of the call uses targets
 * (DEFAULT, QUERY); natoms must be at least 1.
 */
#define HBIND_MAX_TARGETS	64
#define HBIND_MAX_ATOMS		256

/* Atom header: command in bits 0-15, number of extra dwords in bits 16-31. */
#define HBIND_ATOM(cmd, ndwords)	((((__u32)(ndwords)) << 16) | ((__u32)(cmd) & 0xffff))
#define HBIND_ATOM_CMD(hdr)		((__u32)(hdr) & 0xffff)
#define HBIND_ATOM_NDWORDS(hdr)		((__u32)(hdr) >> 16)

enum hbind_cmd {
	/* 0 is never a valid command: a zeroed buffer fails with EINVAL */
	HBIND_CMD_DEFAULT = 1,	/* no extra dword */
	HBIND_CMD_BIND = 2,	/* [0] flags (in) */
	HBIND_CMD_MIGRATE = 3,	/* [0] flags (in), [1] pages moved (out) */
	HBIND_CMD_QUERY = 4,	/* [0] flags (in), [1] ptr low, [2] ptr high (in) */
	HBIND_CMD_MAX,		/* always last member of enum */
};

#define HBIND_DEFAULT_NDWORDS	0
#define HBIND_BIND_NDWORDS	1
#define HBIND_MIGRATE_NDWORDS	2
#define HBIND_QUERY_NDWORDS	3

/*
 * HBIND_CMD_BIND flags.
 * HBIND_BIND_STRICT: like MPOL_BIND, memory comes only from the listed
 *   targets; when they are all full the kernel reclaims and, failing that,
 *   the OOM killer runs, constrained to those nodes. Without it the policy
 *   is like MPOL_PREFERRED_MANY: when every listed target is full, the
 *   allocation falls back to the default (local) policy.
 */
#define HBIND_BIND_STRICT	(1U << 0)
#define HBIND_BIND_VALID	(HBIND_BIND_STRICT)

/*
 * HBIND_CMD_MIGRATE flags.
 * HBIND_MIGRATE_ALL: also move pages mapped by other processes; needs
 *   CAP_SYS_NICE, like MPOL_MF_MOVE_ALL.
 */
#define HBIND_MIGRATE_ALL	(1U << 0)
#define HBIND_MIGRATE_VALID	(HBIND_MIGRATE_ALL)

/*
 * HBIND_CMD_QUERY: the user buffer holds len / page size __s32 entries;
 * entry i receives the uid of the target holding page i of the range, or a
 * negative errno: -ENOENT (not populated), -EFAULT (zero page or no memory
 * behind it). No flag is defined yet: flags must be 0. A 32-bit caller (a
 * 32-bit kernel or a compat task) must leave the high word 0 (EINVAL).
 */
#define HBIND_QUERY_VALID	0U

#endif /* _UAPI_LINUX_HBIND_H */
