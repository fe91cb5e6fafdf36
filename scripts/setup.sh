#!/usr/bin/env bash
# setup.sh - install the host packages the project needs (Debian, as root).
# Idempotent and quick when everything is there: apt-get runs only when a
# package is missing (and then `apt-get update` first).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(
	linux-source-6.12 build-essential gcc make flex bison bc libelf-dev libssl-dev
	cpio rsync kmod dwarves ccache git perl python3 python3-ply xz-utils
	qemu-system-x86 qemu-utils debootstrap
	musl-tools libnuma-dev numactl hwloc-nox pkg-config graphviz
	gcc-i686-linux-gnu
	bats bats-assert bats-support
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
	log "installing: ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
mkdir -p "$HMS_CACHE"
