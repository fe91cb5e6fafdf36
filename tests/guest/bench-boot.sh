#!/bin/bash
# bench-boot.sh - in the guest: the figures of scripts/bench-boot.sh.
# Usage: /mnt/hms/tests/guest/bench-boot.sh [ROUNDS] [CPU]
# Prints "BENCH boot_ms=<ms>": the kernel's dmesg timestamp of the line that
# starts init ("Run /sbin/... as init process", else "Freeing unused kernel
# image"), i.e. the time from kernel start to init; with initcall_debug,
# "BENCH hms_initcalls_us=<us>", the time of HMS's initcalls; then ROUNDS (default 20)
# offline/online cycles of CPU (default: the highest online CPU, alone on
# its node in the profiles timed, so HMS drops and re-adds that node's
# initiator and all its links), each timed here, and prints
# "BENCH offline_us=<us> online_us=<us>" once a round. Times, no verdicts.
case ${1:-} in
-h|--help)
	awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
	exit 0 ;;
esac
rounds=${1:-20}
cpu=${2:-}
line=$(dmesg | grep -m1 -E 'Run /[^ ]* as init process')
[ -n "$line" ] || line=$(dmesg | grep -m1 'Freeing unused kernel image')
ts=$(printf '%s\n' "$line" | sed -n 's/^\[ *\([0-9]*\)\.\([0-9]\{6\}\)\].*/\1\2/p')
[ -n "$ts" ] || { echo "BENCH error: no init line in dmesg"; exit 1; }
echo "BENCH boot_ms=$((10#$ts / 1000)).$(printf '%03d' $((10#$ts % 1000)))"
# with initcall_debug: the time of HMS's initcalls (the bus, the NUMA objects)
hms_us=$(dmesg | sed -n 's/.*initcall hms_\(numa_\)\{0,1\}init+.* returned .* after \([0-9]*\) usecs.*/\2/p' |
	awk '{ s += $1; n++ } END { if (n) print s }')
[ -z "$hms_us" ] || echo "BENCH hms_initcalls_us=$hms_us"
if [ -z "$cpu" ]; then
	cpu=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)
fi
f=/sys/devices/system/cpu/cpu$cpu/online
[ -w "$f" ] || { echo "BENCH error: cpu$cpu cannot go offline"; exit 1; }
echo "BENCH cpu=$cpu node=$(basename /sys/devices/system/cpu/cpu$cpu/node* 2>/dev/null)" \
	"hms_objects=$(ls /sys/bus/hms/devices 2>/dev/null | wc -l)"
# microseconds from bash's $EPOCHREALTIME: no fork in the timed part
for ((r = 0; r < rounds; r++)); do
	t0=${EPOCHREALTIME/./}
	echo 0 > "$f" || { echo "BENCH error: offline failed"; exit 1; }
	t1=${EPOCHREALTIME/./}
	echo 1 > "$f" || { echo "BENCH error: online failed"; exit 1; }
	t2=${EPOCHREALTIME/./}
	echo "BENCH offline_us=$((t1 - t0)) online_us=$((t2 - t1))"
done
echo "BENCH after hms_objects=$(ls /sys/bus/hms/devices 2>/dev/null | wc -l)"
