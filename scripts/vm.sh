#!/usr/bin/env bash
# vm.sh - boot the HMS guest kernel in QEMU and run one command in it.
#
# Usage:
#   scripts/vm.sh [--topology NAME | --qemu-args FILE] [--kernel BZIMAGE]
#                 [--debug] [--share HOSTDIR] [--timeout SECONDS]
#                 [--prealloc] [--] [COMMAND [ARGS...]]
#
#   --topology NAME   a profile from tests/topologies/NAME.args (default: flat)
#   --qemu-args FILE  any file of QEMU arguments (same format as the profiles:
#                     shell words, '#' comments) describing CPUs, memory and
#                     NUMA/HMAT; replaces --topology
#   --kernel BZIMAGE  kernel to boot (default: the one built from the series,
#                     or the DEBUG one with --debug); its modules are used
#                     when a modules-install/ directory sits beside it in the
#                     object directory
#   --debug           boot the DEBUG=1 kernel (KASAN, lockdep, kmemleak)
#   --share HOSTDIR   mounted read-write at /mnt/share in the guest
#   --timeout SECONDS kill the guest after this long (default 600)
#   --prealloc        the host backs all guest memory at start (QEMU's
#                     prealloc=on), as hardware has its memory: else the
#                     guest's first touch of each host page costs a host
#                     page fault, and a benchmark's time depends on whether
#                     the guest pages it got were used before (benchmarks)
#   COMMAND           run as root in the guest, from /root, with the project's
#                     outputs at /mnt/hms (bin/ on PATH); no COMMAND gives an
#                     interactive shell on the serial console
#
# Prints COMMAND's output, keeps the serial (kernel) log in
# $HMS_CACHE/runs/<id>/serial.log (also linked from $HMS_CACHE/runs/last),
# powers the guest off and exits with COMMAND's exit status; it exits 124
# on timeout and 125 when the kernel crashed (oops, BUG, KASAN, lockdep,
# panic, WARNING) or no status came back, printing the end of the log.
# While the guest runs, a line on stderr every 30 s without output says how
# long it has run and how far the kernel log got.
# Environment: HMS_ACCEL=tcg|kvm|icount forces the accelerator (default: KVM
# only when a probe boot proves it works, else TCG; icount is TCG on one
# thread whose guest clock counts executed instructions, 1 ns each, so that
# timings in the guest do not depend on the host's load); HMS_CPU sets the
# CPU model under TCG (default max; e.g. max,-erms: see docs/benchmarks.md);
# HMS_KERNEL_ARGS adds words to the guest kernel command line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

topology=flat qargs='' kernel='' debug=0 share='' timeout=600 prealloc=0
while [ $# -gt 0 ]; do
	case "$1" in
	--topology) topology=$2; shift ;;
	--qemu-args) qargs=$2; shift ;;
	--kernel) kernel=$2; shift ;;
	--debug) debug=1 ;;
	--share) share=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--prealloc) prealloc=1 ;;
	-h|--help) script_help; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option: $1 (see --help)" ;;
	*) break ;;
	esac
	shift
done

if [ -z "$qargs" ]; then
	qargs=$HMS_TOP/tests/topologies/$topology.args
	[ -f "$qargs" ] || die "no topology '$topology' (have: $(find "$HMS_TOP/tests/topologies" -name '*.args' -printf '%f\n' | sed 's/\.args$//' | sort | xargs))"
fi
[ -r "$qargs" ] || die "cannot read $qargs"
if [ -z "$kernel" ]; then
	kernel=$KOBJ/arch/x86/boot/bzImage
	[ $debug = 0 ] || kernel=$KOBJ_DEBUG/arch/x86/boot/bzImage
fi
[ -f "$kernel" ] || die "no kernel at $kernel (build it: make kernel${debug:+ DEBUG=$debug})"
[ -d "$ROOTFS/sbin" ] || die "no rootfs at $ROOTFS (build it: make rootfs)"
[ -z "$share" ] || [ -d "$share" ] || die "--share $share: not a directory"
[[ "$timeout" =~ ^[0-9]+$ ]] || die "--timeout wants seconds"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (make deps)"

# Keep the overlay (init) current without rebuilding the rootfs.
cp -a "$HMS_TOP/rootfs/overlay/." "$ROOTFS/"

run=$HMS_CACHE/runs/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$run/ctl" "$HMS_OUT"
ln -sfn "$run" "$HMS_CACHE/runs/last"
# keep the 30 newest runs
find "$HMS_CACHE/runs" -mindepth 1 -maxdepth 1 -name '2*' -printf '%T@ %p\n' |
	sort -rn | tail -n +31 | cut -d' ' -f2- | xargs -r rm -rf

interactive=0
if [ $# -eq 0 ]; then
	interactive=1
	touch "$run/ctl/interactive"
else
	{
		printf '#!/bin/sh\n'
		printf '%q ' "$@"
		printf '\n'
	} > "$run/ctl/cmd"
fi
cp "$qargs" "$run/ctl/topology.args"
kobj=$(dirname "$(dirname "$(dirname "$(dirname "$kernel")")")")
# the version string inside the bzImage (boot protocol: header offset 0x20e)
voff=$(od -An -tu2 -j 526 -N2 "$kernel" | tr -d ' ')
banner=$(dd if="$kernel" bs=1 skip=$((voff + 512)) count=256 2>/dev/null | tr '\0' '\n' | head -n1)
{
	[ ! -f "$kobj/kernelrelease" ] || echo "export HMS_KERNEL_RELEASE='$(cat "$kobj/kernelrelease")'"
	echo "export HMS_KERNEL_BANNER='#${banner#*#}'"
	echo "export HMS_TOPOLOGY_FILE=/mnt/ctl/topology.args"
	echo "export HMS_TOPOLOGY_NAME=$(basename "$qargs" .args)"
	echo "export HMS_DEBUG_KERNEL=$debug"
} > "$run/ctl/env"

moddir=$kobj/modules-install/lib/modules
[ -d "$moddir" ] || moddir=$run/ctl

# Topology arguments: shell words, comments allowed.
mapfile -t topo < <(sed 's/#.*//' "$qargs" | xargs -n1 2>/dev/null)
if [ $prealloc = 1 ]; then
	backends=0
	for i in "${!topo[@]}"; do
		case ${topo[$i]} in
		memory-backend-ram,*) topo[$i]+=,prealloc=on; backends=1 ;;
		esac
	done
	[ $backends = 1 ] || topo+=(-mem-prealloc)
fi

accel() {
	if [ -n "${HMS_ACCEL:-}" ]; then echo "$HMS_ACCEL"; return; fi
	local probe=$HMS_CACHE/kvm-probe
	if [ ! -f "$probe" ]; then
		echo tcg > "$probe"
		if [ -w /dev/kvm ]; then
			# KVM counts only if a kernel really boots to its first panic with it
			if timeout 30 qemu-system-x86_64 -accel kvm -M q35 -m 256M -nodefaults \
				-nographic -no-reboot -serial file:"$HMS_CACHE/kvm-probe.log" \
				-kernel "$kernel" -append "console=ttyS0 panic=-1 root=/dev/nonexistent" \
				>/dev/null 2>&1 && grep -q 'Kernel panic' "$HMS_CACHE/kvm-probe.log"; then
				echo kvm > "$probe"
			fi
		fi
	fi
	cat "$probe"
}
acc=$(accel)
if [ "$acc" = kvm ]; then
	accargs=(-accel kvm -cpu host)
elif [ "$acc" = icount ]; then
	# no multi-threaded TCG with icount
	accargs=(-accel 'tcg,thread=single' -icount 'shift=0,sleep=off' -cpu "${HMS_CPU:-max}")
else
	accargs=(-accel 'tcg,thread=multi' -cpu "${HMS_CPU:-max}")
fi

cmdline="console=ttyS0 root=hmsroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose ro"
# loglevel=5: the console gets KERN_WARNING and above, so the "WARNING:"
# line of a WARN() reaches serial.log, where the crash check below sees it
cmdline+=" init=/sbin/hms-init panic=-1 oops=panic loglevel=5 printk.devkmsg=on"
cmdline+=" transparent_hugepage=madvise"
# No address-space randomisation: TCG caches translated code by virtual
# address, so with ASLR every exec retranslates ld.so and libc; without it
# an exec (bats forks thousands) costs half as much.
cmdline+=" norandmaps"
[ $debug = 0 ] || cmdline+=" kmemleak=on"
cmdline+=${HMS_KERNEL_ARGS:+ $HMS_KERNEL_ARGS}

fs() { # tag path [ro]
	local ro=
	[ "${3:-}" = ro ] && ro=,readonly=on
	echo "-fsdev local,id=$1,path=$2,security_model=none$ro -device virtio-9p-pci,fsdev=$1,mount_tag=$1"
}
# shellcheck disable=SC2207
q=(qemu-system-x86_64 "${accargs[@]}" -M q35 -nodefaults -no-reboot -nographic
   -kernel "$kernel" -append "$cmdline"
   $(fs hmsroot "$ROOTFS" ro) $(fs hmsctl "$run/ctl") $(fs hmsout "$HMS_OUT" ro)
   $(fs hmsmod "$moddir" ro)
   -device virtio-serial-pci -chardev "file,id=out,path=$run/output" -device 'virtconsole,chardev=out'
   "${topo[@]}")
# shellcheck disable=SC2207
[ -z "$share" ] || q+=($(fs hmsshare "$(cd "$share" && pwd)"))

if [ $interactive = 1 ]; then
	q+=(-serial mon:stdio)
	exec "${q[@]}"
fi
q+=(-serial file:"$run/serial.log" -monitor none)
printf '%q ' "${q[@]}" > "$run/qemu-cmdline"

: > "$run/output"
cmd_words="$*"
[ ${#cmd_words} -le 60 ] || cmd_words="${cmd_words:0:57}..."
log "booting $(basename "$qargs" .args) ($acc): the guest is up within a minute under TCG, then runs: $cmd_words; serial log: $run/serial.log"
set +e
timeout -k 10 "$timeout" "${q[@]}" > "$run/qemu.log" 2>&1 &
qpid=$!
# stream the command's output while the guest runs; tail exits once QEMU has
# and everything has been printed
tail -n +1 -f --pid="$qpid" "$run/output" &
tpid=$!
# a line every HMS_PROGRESS_EVERY (30) seconds without output from COMMAND
t0=$SECONDS size=0 quiet=$SECONDS
every=${HMS_PROGRESS_EVERY:-30}
while kill -0 "$qpid" 2>/dev/null; do
	sleep 1
	now=$(stat -c %s "$run/output")
	if [ "$now" != "$size" ]; then
		size=$now quiet=$SECONDS
	elif [ $((SECONDS - quiet)) -ge "$every" ]; then
		quiet=$SECONDS
		if [ "$size" = 0 ]; then
			what="booting, serial log at $(wc -l < "$run/serial.log") lines"
		else
			what="COMMAND running, no output for ${every}s"
		fi
		log "  ... guest: $(duration $((SECONDS - t0))): $what"
	fi
done
wait "$qpid"
qrc=$?
wait "$tpid"
set -e

crash_re='Kernel panic|BUG:|Oops|general protection fault|KASAN:|UBSAN:|WARNING:|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked|kernel BUG at|unreferenced object'
fail() {
	echo "vm.sh: $1 (serial log: $run/serial.log)" >&2
	echo "---- end of serial log ----" >&2
	tail -n 60 "$run/serial.log" >&2 || true
	exit "$2"
}
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	fail "timeout after ${timeout}s; guest killed" 124
fi
if grep -E -q "$crash_re" "$run/serial.log" 2>/dev/null; then
	grep -E -n -m5 "$crash_re" "$run/serial.log" >&2 || true
	fail "guest kernel crashed or warned" 125
fi
if [ ! -s "$run/ctl/status" ]; then
	cat "$run/qemu.log" >&2
	fail "no exit status from the guest (qemu exit $qrc)" 125
fi
exit "$(cat "$run/ctl/status")"
