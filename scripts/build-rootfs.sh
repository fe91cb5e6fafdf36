#!/usr/bin/env bash
# build-rootfs.sh - the guest root filesystem (a directory, shared by virtio-9p).
#
# debootstrap bookworm --variant=minbase with rootfs/packages.txt, from the
# Debian mirror this machine's apt is configured with. Rebuilt only when the
# package list (or this script) changes; the overlay (rootfs/overlay/) is
# copied in on every call, which is cheap.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

list=$HMS_TOP/rootfs/packages.txt
stamp=$( (grep -v '^#' "$list"; cat "$0") | sha256sum | cut -c1-16)

# The mirror: the one apt uses for bookworm's main component on this machine.
debian_mirror() {
	apt-cache policy 2>/dev/null | awk '
		$2 ~ /^(https?|file):/ && $3 == "bookworm/main" { print $2; exit }'
}

if [ "$(cat "$ROOTFS/.hms-rootfs" 2>/dev/null)" != "$stamp" ]; then
	mirror=${HMS_DEBIAN_MIRROR:-$(debian_mirror)}
	[ -n "$mirror" ] || die "no bookworm mirror in this machine's apt configuration (run apt-get update?)"
	pkgs=$(grep -v '^[[:space:]]*\(#\|$\)' "$list" | paste -sd, -)
	log "debootstrap bookworm minbase into $ROOTFS (packages: $pkgs)"
	rm -rf "$ROOTFS.tmp"
	debootstrap --variant=minbase --include="$pkgs" bookworm "$ROOTFS.tmp" "$mirror" \
		> "$HMS_CACHE/debootstrap.log" 2>&1 || { tail -20 "$HMS_CACHE/debootstrap.log"; die "debootstrap failed"; }
	rm -rf "$ROOTFS.tmp/var/cache/apt/archives/"*.deb
	mkdir -p "$ROOTFS.tmp"/mnt/{ctl,hms,share,tmp} "$ROOTFS.tmp/lib/modules" "$ROOTFS.tmp/sys/kernel/debug"
	echo hms > "$ROOTFS.tmp/etc/hostname"
	rm -rf "$ROOTFS"
	mv "$ROOTFS.tmp" "$ROOTFS"
	echo "$stamp" > "$ROOTFS/.hms-rootfs"
fi
cp -a "$HMS_TOP/rootfs/overlay/." "$ROOTFS/"
echo "$ROOTFS"
