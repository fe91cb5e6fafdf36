#!/usr/bin/env bash
# build-rootfs.sh - the guest root filesystem (a directory, shared by virtio-9p).
#
# debootstrap bookworm --variant=minbase with rootfs/packages.txt, from the
# Debian mirror this machine's apt is configured with. Rebuilt only when the
# package list (or how the rootfs is made, make_rootfs below) changes; the overlay (rootfs/overlay/) is
# copied in on every call, which is cheap. Prints the rootfs path.
#
#   scripts/build-rootfs.sh
#
# The debootstrap log is $HMS_CACHE/debootstrap.log; it shows its progress
# (packages retrieved, unpacked, configured) every 30 s.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case ${1:-} in
-h|--help) script_help; exit 0 ;;
'') ;;
*) script_help >&2; exit 2 ;;
esac

list=$HMS_TOP/rootfs/packages.txt

# The mirror: the one apt uses for bookworm's main component on this machine.
debian_mirror() {
	apt-cache policy 2>/dev/null | awk '
		$2 ~ /^(https?|file):/ && $3 == "bookworm/main" { print $2; exit }'
}

# debootstrap_progress: packages retrieved, unpacked and configured so far
debootstrap_progress() {
	local f=$HMS_CACHE/debootstrap.log
	printf '%d packages retrieved, %d unpacked, %d configured' \
		"$(grep -c '^I: Retrieving [^ ]* ' "$f")" "$(grep -c '^I: Unpacking [^ ]*\.\.\.' "$f")" \
		"$(grep -c '^I: Configuring [^ ]*\.\.\.' "$f")"
}

# make_rootfs MIRROR PACKAGES: the rootfs, in $ROOTFS.tmp
make_rootfs() {
	debootstrap --variant=minbase --include="$2" bookworm "$ROOTFS.tmp" "$1" &&
	rm -rf "$ROOTFS.tmp/var/cache/apt/archives/"*.deb &&
	mkdir -p "$ROOTFS.tmp"/mnt/{ctl,hms,share,tmp} "$ROOTFS.tmp/lib/modules" "$ROOTFS.tmp/sys/kernel/debug" &&
	echo hms > "$ROOTFS.tmp/etc/hostname"
}

# rebuilt when the package list or make_rootfs changes, not for a comment
stamp=$( (grep -v '^#' "$list"; declare -f make_rootfs) | sha256sum | cut -c1-16)
if [ "$(cat "$ROOTFS/.hms-rootfs" 2>/dev/null)" != "$stamp" ]; then
	mirror=${HMS_DEBIAN_MIRROR:-$(debian_mirror)}
	[ -n "$mirror" ] || die "no bookworm mirror in this machine's apt configuration (run apt-get update?)"
	pkgs=$(grep -v '^[[:space:]]*\(#\|$\)' "$list" | paste -sd, -)
	log "guest packages: $pkgs"
	rm -rf "$ROOTFS.tmp"
	long_step "debootstrap bookworm minbase into $ROOTFS" "about 8 min on a cold machine, depending on the mirror" \
		"$HMS_CACHE/debootstrap.log" debootstrap_progress make_rootfs "$mirror" "$pkgs" ||
		die "debootstrap failed"
	rm -rf "$ROOTFS"
	mv "$ROOTFS.tmp" "$ROOTFS"
	echo "$stamp" > "$ROOTFS/.hms-rootfs"
fi
cp -a "$HMS_TOP/rootfs/overlay/." "$ROOTFS/"
echo "$ROOTFS"
