#!/usr/bin/env bash
# demo.sh - `make demo`: set everything up, boot the demo topology
# (two-socket-hbm plus two simulated accelerators) and show HMS at work.
# The Graphviz picture of the topology is rendered to
# $HMS_CACHE/demo/topology.png (the README's picture came from this).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$HMS_TOP/scripts/setup.sh"
"$HMS_TOP/scripts/build-kernel.sh" >/dev/null
"$HMS_TOP/scripts/build-rootfs.sh" >/dev/null
"$HMS_TOP/scripts/build-userspace.sh" >/dev/null
out=$HMS_CACHE/demo
rm -rf "$out"
mkdir -p "$out"
"$HMS_TOP/scripts/vm.sh" --topology two-socket-hbm --share "$out" --timeout 900 \
	-- /mnt/hms/scripts/guest/demo.sh
if [ -s "$out/topology.dot" ] && command -v dot >/dev/null; then
	dot -Tpng -o "$out/topology.png" "$out/topology.dot"
	log "topology picture: $out/topology.png"
fi
