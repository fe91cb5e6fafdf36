#!/usr/bin/env bash
# build-userspace.sh - what the guest needs from this repo, into $HMS_OUT
# (shared read-only at /mnt/hms): libhms and hmsctl built static with musl,
# the test helpers, the example programs, and the bats suites.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$HMS_OUT/bin" "$HMS_OUT/tests"
# libhms + hmsctl (musl, static) for the guest
if [ -f "$HMS_TOP/libc-wrapper/Makefile" ]; then
	make -s -C "$HMS_TOP/libc-wrapper" musl BUILDDIR="$HMS_OUT/libhms-musl" >&2
	make -s -C "$HMS_TOP/libc-wrapper" musl-install BUILDDIR="$HMS_OUT/libhms-musl" \
		MUSL_PREFIX="$HMS_OUT" >&2
fi
# test helpers (static, musl)
make -s -C "$HMS_TOP/tests/guest/helpers" BUILDDIR="$HMS_OUT/bin" \
	HMS_PREFIX="$HMS_OUT" >&2
# suites
rm -rf "$HMS_OUT/tests/guest.new"
cp -a "$HMS_TOP/tests/guest" "$HMS_OUT/tests/guest.new"
rm -rf "$HMS_OUT/tests/guest"
mv "$HMS_OUT/tests/guest.new" "$HMS_OUT/tests/guest"
rm -rf "$HMS_OUT/tests/guest/helpers"
cp -a "$HMS_TOP/tests/topologies" "$HMS_OUT/tests/"
rm -rf "$HMS_OUT/scripts"
mkdir -p "$HMS_OUT/scripts"
cp -a "$HMS_TOP/scripts/guest" "$HMS_OUT/scripts/"
echo "$HMS_OUT"
