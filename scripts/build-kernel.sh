#!/usr/bin/env bash
# build-kernel.sh - configure and build the guest kernel out of tree.
#
#   scripts/build-kernel.sh [--debug] [--no-hms] [--profile] [--tree DIR] [--obj DIR]
#
# Without --tree it syncs the build worktree with kernel-patches/ first
# (scripts/kq.sh sync). The configuration is `make tinyconfig` plus
# kernel-patches/config/hms.config (and debug.config with --debug,
# nohms.config with --no-hms, profile.config with --profile: ftrace, objects
# in $HMS_CACHE/kbuild-profile); it is regenerated only when a fragment
# changes. Builds bzImage and modules in the object directory (O=), so that
# editing one patch rebuilds only what it touches, and installs modules under
# $OBJ/modules-install. Prints the path of the bzImage. The build's log is
# $OBJ/build.log; a cold build shows its progress (objects compiled) every
# 30 s.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

debug=0 nohms=0 profile=0 tree='' obj=''
while [ $# -gt 0 ]; do
	case "$1" in
	--debug) debug=1 ;;
	--no-hms) nohms=1 ;;
	--profile) profile=1 ;;
	--tree) tree=$2; shift ;;
	--obj) obj=$2; shift ;;
	-h|--help) script_help; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
	shift
done

[ -n "$tree" ] || tree=$("$HMS_TOP/scripts/kq.sh" sync)
if [ -z "$obj" ]; then
	obj=$KOBJ
	[ $debug = 0 ] || obj=$KOBJ_DEBUG
	[ $profile = 0 ] || obj=$KOBJ_PROFILE
fi
mkdir -p "$obj"

# A cold build of the default configuration compiles about 1400 objects
# (1415 for the series of December 2026); about 90 a minute on 2 idle cores,
# far fewer when other builds share them.
COLD_KERNEL_BUILD="about 15 min on 2 idle cores"
COLD_KERNEL_OBJECTS=1400

frags=("$HMS_TOP/kernel-patches/config/hms.config")
[ $debug = 0 ] || frags+=("$HMS_TOP/kernel-patches/config/debug.config")
[ $nohms = 0 ] || frags+=("$HMS_TOP/kernel-patches/config/nohms.config")
[ $profile = 0 ] || frags+=("$HMS_TOP/kernel-patches/config/profile.config")
# the config depends on the fragments and on the Kconfig files of the tree
want=$( (cat "${frags[@]}"; cd "$tree" && git ls-files -s -- '*Kconfig*' 2>/dev/null | sha256sum) | sha256sum | cut -c1-16)

# ccache with a base directory: the same source compiled from another
# worktree of the cache (build-each, a developer's tree) hits the cache.
export CCACHE_DIR=${CCACHE_DIR:-$HMS_CACHE/ccache}
export CCACHE_BASEDIR=$HMS_CACHE
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export CCACHE_NOHASHDIR=1
CC_ARG=()
command -v ccache >/dev/null && CC_ARG=(CC="ccache gcc")
# LOCALVERSION= keeps setlocalversion from appending "+" for a git tree
kmake() { make -s -C "$tree" O="$obj" -j"$JOBS" "${CC_ARG[@]}" LOCALVERSION= "$@"; }

if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.hms-config" 2>/dev/null)" != "$want" ]; then
	log "configuring $obj (tinyconfig + ${frags[*]##*/})"
	cp "$obj/.config" "$obj/.config.prev" 2>/dev/null || true
	kmake tinyconfig >/dev/null
	(cd "$obj" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" >/dev/null)
	kmake olddefconfig >/dev/null
	# an unchanged .config keeps its timestamp: nothing is rebuilt for nothing
	if [ -f "$obj/.config.prev" ] && cmp -s "$obj/.config" "$obj/.config.prev"; then
		touch -r "$obj/.config.prev" "$obj/.config"
	fi
	# A fragment option that did not stick (a missing dependency) is an
	# error: a DEBUG=1 run without KASAN must not pass for one with it.
	# Later fragments override earlier ones, as in merge_config.sh; an
	# option the tree does not define yet (a prefix of the series, in
	# build-each) is only noted.
	declare -A req=()
	for f in "${frags[@]}"; do
		while IFS= read -r line; do
			req[${line%%=*}]=${line#*=}
		done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$f")
	done
	bad=0
	for opt in "${!req[@]}"; do
		val=${req[$opt]}
		got=$(grep -E "^$opt=" "$obj/.config" | head -1 | cut -d= -f2- || true)
		[ "$val" = n ] && { [ -z "$got" ] || [ "$got" = n ]; } && continue
		[ "$got" = "$val" ] && continue
		if ! git -C "$tree" grep -q -E "^(menu)?config ${opt#CONFIG_}\$" -- '*Kconfig*'; then
			log "note: $opt is not defined in this tree"
			continue
		fi
		log "error: $opt=$val requested, got '${got:-unset}' (a dependency is missing)"
		bad=1
	done
	if [ $bad = 1 ]; then
		rm -f "$obj/.hms-config"
		exit 1
	fi
	echo "$want" > "$obj/.hms-config"
fi

# The series stamp goes into the kernel release (a localversion file in the
# object directory), so a guest can prove it runs the kernel of this series.
if [ -f "$tree/.hms-series" ]; then
	echo "-$(cut -c1-8 "$tree/.hms-series")" > "$obj/localversion-series"
fi

# objects: progress of a build, from the object files it wrote so far (and
# their number in the last complete build of this directory, if any)
objects() {
	echo "$(find "$obj" -name '*.o' | wc -l)${nobj:+ of about $nobj} objects compiled"
}
build_all() {
	kmake bzImage modules &&
	rm -rf "$obj/modules-install.new" &&
	kmake INSTALL_MOD_PATH="$obj/modules-install.new" INSTALL_MOD_STRIP=1 modules_install &&
	rm -rf "$obj/modules-install" &&
	mv "$obj/modules-install.new" "$obj/modules-install"
}
nobj=$(cat "$obj/.hms-objects" 2>/dev/null || true)
if [ -f "$obj/vmlinux" ]; then
	expected="incremental: seconds, or minutes when a header many files include changed"
else
	expected="cold: $COLD_KERNEL_BUILD, much less when ccache has the objects"
	# the default configuration compiled this many objects
	nobj=${nobj:-$COLD_KERNEL_OBJECTS}
fi
long_step "building the kernel in $obj" "$expected" "$obj/build.log" objects build_all ||
	die "kernel build failed (log: $obj/build.log)"
find "$obj" -name '*.o' | wc -l > "$obj/.hms-objects"
kmake -s kernelrelease > "$obj/kernelrelease"
echo "$obj/arch/x86/boot/bzImage"
