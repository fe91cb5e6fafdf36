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
 *          A user pointer in an atom takes two dwords, low word first;
 *          a 32-bit caller (a 32-bit kernel, or a 32-bit program on a
 *          64-bit kernel) must leave the high word 0 (EINVAL).
 *
 * The whole call is validated before any command takes effect.
 *
 * ABI promise: command numbers, flag bits and the meaning of existing extra
 * dwords never change; new commands and new flag bits may be added. Unknown
 * commands, wrong dword counts and unknown flag bits fail with EINVAL. The
 * dword count of a command follows from its number and flags alone.
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
	/* [0] flags (in), [1] pages moved (out), [2] sources (in, FROM only) */
	HBIND_CMD_MIGRATE = 3,
	HBIND_CMD_QUERY = 4,	/* [0] flags (in), [1] ptr low, [2] ptr high (in) */
	/*
	 * [0] flags (in), [1] initiator uid (in),
	 * [2] weights ptr low, [3] weights ptr high (in)
	 */
	HBIND_CMD_INTERLEAVE = 5,
	HBIND_CMD_TASK_DEFAULT = 6, /* no extra dword */
	HBIND_CMD_PROCESS = 7,	/* [0] flags (in), [1] pidfd (in) */
};

#define HBIND_DEFAULT_NDWORDS	0
#define HBIND_BIND_NDWORDS	1
#define HBIND_MIGRATE_NDWORDS	2
#define HBIND_MIGRATE_FROM_NDWORDS	3
#define HBIND_QUERY_NDWORDS	3
#define HBIND_INTERLEAVE_NDWORDS	4
#define HBIND_TASK_DEFAULT_NDWORDS	0
#define HBIND_PROCESS_NDWORDS	2

/*
 * HBIND_CMD_BIND flags.
 * HBIND_BIND_STRICT: like MPOL_BIND, memory comes only from the listed
 *   targets; when they are all full the kernel reclaims and, failing that,
 *   the OOM killer runs, constrained to those nodes. Without it the policy
 *   is like MPOL_PREFERRED_MANY: when every listed target is full, the
 *   allocation falls back to the default (local) policy.
 */
#define HBIND_BIND_STRICT	(1U << 0)
/*
 * HBIND_BIND_TASK: set the policy of the calling thread instead of the
 *   range's, as set_mempolicy() does: inherited across fork(), kept across
 *   execve(). Every target must be system memory.
 */
#define HBIND_BIND_TASK		(1U << 1)

/*
 * HBIND_CMD_MIGRATE flags.
 * HBIND_MIGRATE_ALL: also move pages mapped by other processes; needs
 *   CAP_SYS_NICE, like MPOL_MF_MOVE_ALL.
 */
#define HBIND_MIGRATE_ALL	(1U << 0)
/*
 * HBIND_MIGRATE_FROM: only the pages on the first n targets move, n in
 *   dword [2] (the atom then has HBIND_MIGRATE_FROM_NDWORDS dwords): these
 *   are the sources; the targets after them are the ordered list the pages
 *   move to. There must be at least one of each, and no other command of
 *   the call may use the targets (EINVAL). Pages on other targets stay where
 *   they are, as migrate_pages(2) leaves the pages outside its old nodes;
 *   a page on a source moves to the first destination with room. Only the
 *   destinations must be in the cpuset and allowed by their device; a
 *   source needs neither, as MIGRATE brings pages back from any device.
 */
#define HBIND_MIGRATE_FROM	(1U << 1)
/*
 * HBIND_MIGRATE_WHOLE: the range is every mapping of the address space (the
 *   caller's, or the process's of HBIND_CMD_PROCESS), as migrate_pages(2)
 *   takes it: start and len must be 0, and the MIGRATE is the only command
 *   of the call besides PROCESS (EINVAL). Holes are skipped, as are the
 *   mappings whose pages cannot migrate (VM_IO, VM_PFNMAP); a mapping made
 *   while the call runs may be missed.
 */
#define HBIND_MIGRATE_WHOLE	(1U << 2)

/*
 * HBIND_CMD_QUERY: the user buffer holds len / page size __s32 entries;
 * entry i receives the uid of the target holding page i of the range, or a
 * negative errno: -ENOENT (not populated), -EFAULT (zero page or no memory
 * behind it). No flag is defined yet: flags must be 0.
 */

/*
 * HBIND_CMD_INTERLEAVE: a weighted interleave (MPOL_WEIGHTED_INTERLEAVE)
 * over the listed targets, all system memory, whose weights belong to this
 * policy rather than to the global table of
 * /sys/kernel/mm/mempolicy/weighted_interleave. Pages go to the nodes of the
 * targets in node order, weight pages at a time.
 * Without HBIND_IL_AUTO, dwords [2] and [3] point to the weights: ntargets
 *   __u32, in target order, each 1 to HBIND_IL_WEIGHT_MAX (EINVAL), read
 *   before any command runs (EFAULT); the initiator dword must be 0.
 * HBIND_IL_AUTO: the weights pointer must be 0; the weight of each target is
 *   the read bandwidth of the best path from the initiator to it, scaled so
 *   that the largest is HBIND_IL_AUTO_SCALE, rounded to the nearest integer
 *   (at least 1), then all divided by their greatest common divisor.
 * HBIND_IL_INITIATOR (with HBIND_IL_AUTO): dword [1] is the uid of that
 *   initiator; without it, the mean bandwidth from the CPU initiators of
 *   the CPUs the calling thread may run on (its affinity) is used and
 *   dword [1] must be 0.
 * HBIND_IL_MOVE: also move the pages of the range, that the caller alone
 *   maps, to the node the weights give each one (MPOL_MF_MOVE).
 * HBIND_IL_TASK: set the policy of the calling thread instead of the
 *   range's (see HBIND_BIND_TASK); not with HBIND_IL_MOVE.
 */
#define HBIND_IL_AUTO		(1U << 0)
#define HBIND_IL_INITIATOR	(1U << 1)
#define HBIND_IL_MOVE		(1U << 2)
#define HBIND_IL_TASK		(1U << 3)
#define HBIND_IL_WEIGHT_MAX	255
#define HBIND_IL_AUTO_SCALE	16

/*
 * HBIND_CMD_TASK_DEFAULT: drop the policy of the calling thread, like
 *   set_mempolicy(MPOL_DEFAULT). Takes no target.
 *
 * Task commands (HBIND_BIND_TASK, HBIND_IL_TASK, HBIND_CMD_TASK_DEFAULT) do
 * not use the range; they run even when len is 0, and a call made of task
 * commands alone does not check the range beyond its alignment. A call has
 * at most one task command and at most one INTERLEAVE.
 */

/*
 * HBIND_CMD_PROCESS: the commands of the call work on the address space of
 *   the process that the pidfd in dword [1] names (pidfd_open(2)) instead
 *   of the caller's; it must be the first command, and the others can only
 *   be QUERY and MIGRATE (EINVAL). The permissions are move_pages(2)'s: the
 *   caller needs PTRACE_MODE_READ_REALCREDS over the process (EPERM),
 *   MIGRATE's system targets must be in the process's cpuset (EACCES) and
 *   a device target must allow both the caller and the process (EACCES);
 *   HBIND_MIGRATE_ALL still needs CAP_SYS_NICE. EBADF: dword [1] is not a
 *   pidfd; ESRCH: the process has exited, or has no address space; EINVAL:
 *   the pidfd of a thread (PIDFD_THREAD). A process that execs or exits
 *   while the call runs leaves it working on the address space the process
 *   had. No flag is defined yet: flags must be 0.
 */

#endif /* _UAPI_LINUX_HBIND_H */
