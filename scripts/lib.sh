# shellcheck shell=bash
# Common settings for the HMS scripts. Source it; do not run it.
#
# HMS_CACHE holds everything that is big and rebuilt incrementally: the
# pristine kernel tree (a git repository), the series worktree, the kernel
# object directory, the rootfs and the userspace build outputs. It lives
# outside the clone so that a fresh clone on the same machine reuses it.

HMS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HMS_CACHE=${HMS_CACHE:-/var/cache/hms}
KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
KPRISTINE=$HMS_CACHE/linux-pristine	# git repo, first commit = pristine tree
KTREE=$HMS_CACHE/linux			# worktree with the series applied
KOBJ=$HMS_CACHE/kbuild			# kernel object directory (O=)
KOBJ_DEBUG=$HMS_CACHE/kbuild-debug	# object directory for DEBUG=1
ROOTFS=$HMS_CACHE/rootfs
HMS_OUT=$HMS_CACHE/out			# userspace build outputs shared with the guest
JOBS=${JOBS:-$(nproc)}

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }
