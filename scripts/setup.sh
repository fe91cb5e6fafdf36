#!/usr/bin/env bash
# setup.sh - install the host packages the project needs (Debian bookworm,
# as root) and create $HMS_CACHE.
#
#   scripts/setup.sh
#
# Idempotent and quick when everything is there: apt-get runs only when a
# package is missing, and then runs `apt-get update` first. On a fresh
# machine the installation takes a few minutes; its log is
# $HMS_CACHE/setup.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case ${1:-} in
-h|--help) script_help; exit 0 ;;
'') ;;
*) script_help >&2; exit 2 ;;
esac

PKGS=(
	linux-source-6.12 build-essential gcc make flex bison bc libelf-dev libssl-dev
	cpio rsync kmod dwarves ccache git perl python3 python3-ply python3-git xz-utils
	qemu-system-x86 qemu-utils debootstrap
	musl-tools libnuma-dev numactl hwloc-nox libhwloc-dev pkg-config graphviz
	gcc-i686-linux-gnu libc6-dev-i386-cross
	bats bats-assert bats-support
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
mkdir -p "$HMS_CACHE"
[ ${#missing[@]} -gt 0 ] || exit 0
[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"

apt_install() {
	apt-get update &&
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}
# packages set up so far (dependencies included), from apt's log
installed() { echo "$(grep -c '^Setting up ' "$HMS_CACHE/setup.log") packages set up"; }
long_step "installing ${#missing[@]} packages: ${missing[*]}" "a few minutes on a fresh machine" \
	"$HMS_CACHE/setup.log" installed apt_install || die "apt-get failed"
