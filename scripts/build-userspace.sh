#!/usr/bin/env bash
# build-userspace.sh - what the guest needs from this repo, into $HMS_OUT
# (shared read-only at /mnt/hms): libhms and hmsctl built static with musl,
# the test helpers, the example programs, the bats suites and the README's
# hmsctl topology output (docs/hmsctl-topology.txt). Quick (under
# a minute), and prints the output directory.
#
#   scripts/build-userspace.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case ${1:-} in
-h|--help) script_help; exit 0 ;;
'') ;;
*) script_help >&2; exit 2 ;;
esac

mkdir -p "$HMS_OUT/bin" "$HMS_OUT/tests"
# libhms + hmsctl (musl, static) for the guest
if [ -f "$HMS_TOP/libc-wrapper/Makefile" ]; then
	make -s -C "$HMS_TOP/libc-wrapper" musl BUILDDIR="$HMS_OUT/libhms-musl" >&2
	make -s -C "$HMS_TOP/libc-wrapper" musl-install BUILDDIR="$HMS_OUT/libhms-musl" \
		MUSL_PREFIX="$HMS_OUT" >&2
fi
# Programs built the way an application would: against the *installed*
# library, found with pkg-config; glibc (dynamic, the guest's libc) and musl
# (static). The guest suite libhms.bats runs both.
if [ -f "$HMS_TOP/libc-wrapper/Makefile" ]; then
	sysroot=$HMS_OUT/sysroot
	rm -rf "$sysroot"
	make -s -C "$HMS_TOP/libc-wrapper" BUILDDIR="$HMS_OUT/libhms-glibc" >&2
	make -s -C "$HMS_TOP/libc-wrapper" install BUILDDIR="$HMS_OUT/libhms-glibc" \
		PREFIX=/usr DESTDIR="$sysroot" >&2
	pc() { PKG_CONFIG_SYSROOT_DIR=$sysroot PKG_CONFIG_LIBDIR=$sysroot/usr/lib/pkgconfig pkg-config "$@" hms; }
	# shellcheck disable=SC2046
	gcc -O2 -Wall -o "$HMS_OUT/bin/hms-demo-glibc" "$HMS_TOP/libc-wrapper/examples/hms-demo.c" \
		$(pc --cflags) $(pc --libs) -Wl,-rpath,/mnt/hms/sysroot/usr/lib
	# the musl static library, installed the same way into its own sysroot
	msysroot=$HMS_OUT/sysroot-musl
	rm -rf "$msysroot"
	mkdir -p "$msysroot/usr/lib/pkgconfig" "$msysroot/usr/include"
	cp "$HMS_OUT/libhms-musl/libhms.a" "$msysroot/usr/lib/"
	cp "$sysroot/usr/include/hms.h" "$msysroot/usr/include/"
	cp "$sysroot/usr/lib/pkgconfig/hms.pc" "$msysroot/usr/lib/pkgconfig/"
	# shellcheck disable=SC2046
	musl-gcc -static -O2 -Wall -o "$HMS_OUT/bin/hms-demo-musl" "$HMS_TOP/libc-wrapper/examples/hms-demo.c" \
		$(PKG_CONFIG_SYSROOT_DIR=$msysroot PKG_CONFIG_LIBDIR=$msysroot/usr/lib/pkgconfig pkg-config --cflags --static --libs hms)
	# the hwloc plugin (glibc: libhwloc dlopen()s it), against the installed
	# libhms; the guest loads it from /mnt/hms/hwloc/plugins
	make -s -C "$HMS_TOP/libc-wrapper/hwloc" BUILDDIR="$HMS_OUT/hwloc" \
		HMS_CFLAGS="$(pc --cflags)" HMS_LIBS="$(pc --libs)" \
		LDFLAGS=-Wl,-rpath,/mnt/hms/sysroot/usr/lib >&2
fi
# test helpers (static, musl), with the test drivers' uapi headers from this
# cache's kernel tree (scripts/kq.sh sync)
make -s -C "$HMS_TOP/tests/guest/helpers" BUILDDIR="$HMS_OUT/bin" \
	HMS_PREFIX="$HMS_OUT" KSRC="$HMS_CACHE/linux-build" >&2
# the kernel's selftests that tests/guest/kselftest.sh runs
"$HMS_TOP/scripts/build-kselftests.sh" >/dev/null
# suites
rm -rf "$HMS_OUT/tests/guest.new"
cp -a "$HMS_TOP/tests/guest" "$HMS_OUT/tests/guest.new"
rm -rf "$HMS_OUT/tests/guest"
mv "$HMS_OUT/tests/guest.new" "$HMS_OUT/tests/guest"
rm -rf "$HMS_OUT/tests/guest/helpers"
cp -a "$HMS_TOP/tests/topologies" "$HMS_OUT/tests/"
# the README's `hmsctl topology` output (scripts/readme-topology.sh), which
# libhms.bats compares with the live one on two-socket-hbm
mkdir -p "$HMS_OUT/docs"
cp "$HMS_TOP/docs/hmsctl-topology.txt" "$HMS_OUT/docs/"
rm -rf "$HMS_OUT/scripts"
mkdir -p "$HMS_OUT/scripts"
cp -a "$HMS_TOP/scripts/guest" "$HMS_OUT/scripts/"
echo "$HMS_OUT"
