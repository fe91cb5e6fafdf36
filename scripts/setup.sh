#!/usr/bin/env bash
# setup.sh - install the host packages the project needs (Debian bookworm,
# as root) and create $HMS_CACHE.
#
#   scripts/setup.sh          every package (`make deps`)
#   scripts/setup.sh --unit   only what the host unit tests need (`make
#                             unit`): make, gcc with ASan and UBSan, the C
#                             library's headers, binutils. It tries them
#                             (compiles and links a sanitized program), so
#                             it needs no root and no apt when they work,
#                             and creates no HMS_CACHE. When one is missing
#                             it installs its package with apt-get as root,
#                             and otherwise says which to install.
#
# Idempotent and quick when everything is there: apt-get runs only when a
# package is missing, and then runs `apt-get update` first. On a fresh
# machine the installation takes a few minutes; its log is
# $HMS_CACHE/setup.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

unit=0
case ${1:-} in
-h|--help) script_help; exit 0 ;;
--unit) unit=1 ;;
'') ;;
*) script_help >&2; exit 2 ;;
esac

# unit_missing: the packages of the unit tests' tools that do not work here
unit_missing() {
	local t m=()
	command -v make >/dev/null || m+=(make)
	{ command -v nm && command -v ar; } >/dev/null || m+=(binutils)
	command -v timeout >/dev/null || m+=(coreutils)
	t=$(mktemp -d)
	if ! command -v gcc >/dev/null; then
		m+=(gcc libc6-dev)
	elif ! printf '#include <stdio.h>\nint main(void) { return puts("") < 0; }\n' |
		gcc -x c -fsanitize=address,undefined -o "$t/probe" - >/dev/null 2>&1 ||
		! "$t/probe" >/dev/null 2>&1; then
		m+=(gcc libc6-dev)
	fi
	rm -rf "$t"
	echo "${m[*]}"
}

if [ "$unit" = 1 ]; then
	read -r -a missing <<< "$(unit_missing)"
	[ ${#missing[@]} -gt 0 ] || exit 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		die "the unit tests need: ${missing[*]} (apt-get install ${missing[*]})"
	fi
	log "installing what the unit tests need: ${missing[*]}"
	apt-get update >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2
	read -r -a missing <<< "$(unit_missing)"
	[ ${#missing[@]} = 0 ] || die "still not working after apt-get: ${missing[*]}"
	exit 0
fi

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
