#!/usr/bin/env bash
# demo.sh - what `make demo` runs once the kernel, rootfs and userspace are
# built (run by hand, it builds them first, through the Makefile): boot the
# demo topology (two-socket-hbm plus two simulated accelerators) and show
# HMS at work (scripts/guest/demo.sh). The Graphviz picture of the topology
# is rendered to $HMS_CACHE/demo/topology.png (the README's picture came
# from this).
#
#   scripts/demo.sh             (or: make demo)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case ${1:-} in
-h|--help) script_help; exit 0 ;;
'') ;;
*) script_help >&2; exit 2 ;;
esac

need kernel rootfs userspace
out=$HMS_CACHE/demo
rm -rf "$out"
mkdir -p "$out"
"$HMS_TOP/scripts/vm.sh" --topology two-socket-hbm --share "$out" --timeout 900 \
	-- /mnt/hms/scripts/guest/demo.sh
if [ -s "$out/topology.dot" ] && command -v dot >/dev/null; then
	dot -Tpng -o "$out/topology.png" "$out/topology.dot"
	log "topology picture: $out/topology.png"
fi
