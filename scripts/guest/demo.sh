#!/bin/sh
# demo.sh - in the guest (run by scripts/demo.sh, `make demo`): show what
# HMS sees and does.
case ${1:-} in
-h|--help)
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit 0 ;;
esac
set -u
step() { printf '\n==== %s ====\n' "$*"; }

step "NUMA view (numactl -H)"
numactl -H

step "HMS objects (/sys/bus/hms/devices)"
ls /sys/bus/hms/devices 2>/dev/null || echo "no HMS bus in this kernel"

step "Loading the simulated accelerator (test_hms: 2 devices with a peer link, 64 MiB each)"
modprobe test_hms ndevices=2 mem_mb=64 2>&1 || echo "test_hms not available"

step "hmsctl topology"
hmsctl topology || echo "hmsctl failed"
if [ -d /mnt/share ]; then
	hmsctl topology --format dot > /mnt/share/topology.dot 2>/dev/null &&
		echo "(Graphviz description written for the host to render)"
fi

step "hmsctl best for the initiator of CPU 0"
for by in bandwidth latency capacity; do
	printf 'best by %-9s: ' "$by"
	hmsctl best cpu:0 --by "$by" || echo "hmsctl failed"
done

step "hmsctl path from accelerator 0 to the memory of accelerator 1 (peer link and bridge)"
hmsctl path hms_test0 hms_test1 || echo "hmsctl failed"

step "Example program: allocate, bind, migrate to HBM, to the device and back"
hms-demo || echo "hms-demo failed"

step "/proc/self/numa_maps of a bound buffer (the mempolicy stays truthful)"
hms-demo --numa-maps 2>/dev/null | tail -n 5 || true
