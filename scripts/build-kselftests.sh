#!/usr/bin/env bash
# build-kselftests.sh - the kernel's own selftests that `make check` runs in
# the guest (tests/guest/kselftest.sh): mm/hbind-tests (added by the series),
# mm/hmm-tests and mm/migration, built the kernel's way from the series tree
# (scripts/kq.sh sync): `make headers` into the kernel object directory, then
# tools/testing/selftests/mm's Makefile for these three binaries only (all of
# mm's selftests need liburing and libcap, which the guest does not have).
# Output: $HMS_OUT/kselftest/mm (the guest's /mnt/hms/kselftest/mm).
#
#   scripts/build-kselftests.sh [--tree DIR --obj DIR --out DIR]
#
# --tree, --obj, --out: another kernel tree, its object directory and where
# the binaries go (scripts/kq.sh build-each builds each prefix's own).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree='' obj='' out=''
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) script_help; exit 0 ;;
	--tree|--obj|--out)
		[ $# -ge 2 ] || { script_help >&2; exit 2; }
		declare "${1#--}=$2"; shift ;;
	*) script_help >&2; exit 2 ;;
	esac
	shift
done

if [ -z "$tree" ]; then
	tree=$("$HMS_TOP/scripts/kq.sh" sync)
fi
if [ -z "$obj" ]; then
	obj=$KOBJ
	[ "${DEBUG:-0}" = 0 ] || obj=$KOBJ_DEBUG
fi
out=${out:-$HMS_OUT/kselftest/mm}
mkdir -p "$obj" "$out"
log "kselftests: headers in $obj/usr/include, binaries in $out"
make -s -C "$tree" O="$obj" headers >&2
# The selftests' Makefile does not know the installed headers: a binary
# older than one of them (a changed uapi, a new system call number) is
# built again
for b in hbind-tests hmm-tests migration; do
	if [ -e "$out/$b" ] &&
	   [ -n "$(find "$obj/usr/include" -type f -newer "$out/$b" -print -quit)" ]; then
		rm -f "$out/$b"
	fi
done
make -s -C "$tree/tools/testing/selftests/mm" OUTPUT="$out" \
	KHDR_INCLUDES="-isystem $obj/usr/include" \
	"$out/hbind-tests" "$out/hmm-tests" "$out/migration" >&2
echo "$out"
