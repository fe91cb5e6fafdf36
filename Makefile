# HMS - Heterogeneous Memory System and hbind(): top-level commands.
# `make help` lists the targets. The build pipeline is deps -> kernel,
# rootfs, userspace; check, demo, bench, shell and build-each have the
# steps they need as prerequisites, and every step is quick when its
# inputs did not change. Big things (kernel tree and objects, rootfs,
# outputs) live in $(HMS_CACHE), outside the clone.
HMS_CACHE ?= /var/cache/hms
DEBUG ?= 0
# when make started: check.sh counts the builds in its "in all" time
HMS_T0 := $(shell date +%s)
export HMS_CACHE DEBUG HMS_T0

KERNEL_ARGS = $(if $(filter 1,$(DEBUG)),--debug)

# plain `make` lists the targets; `make all` builds
.DEFAULT_GOAL := help

.PHONY: all deps kernel rootfs userspace check demo bench bench-fault bench-boot unit shell \
	patches-check build-each clean-runs help

all: kernel rootfs userspace ## build everything the guest needs (= kernel rootfs userspace)

deps: ## install the host packages (apt-get, as root) and create HMS_CACHE
	@scripts/setup.sh

kernel: deps ## apply kernel-patches/ and build the guest kernel (DEBUG=1: the debug kernel)
	@scripts/build-kernel.sh $(KERNEL_ARGS) >/dev/null

rootfs: deps ## debootstrap the guest's Debian root filesystem (rootfs/packages.txt)
	@scripts/build-rootfs.sh >/dev/null

userspace: deps ## build libhms, hmsctl, the examples and the test helpers for the guest
	@scripts/build-userspace.sh >/dev/null

# The scripts behind these targets leave the building to the prerequisites.
check demo bench bench-fault bench-boot build-each: export HMS_FROM_MAKE := 1
# the demo and the benchmarks boot the kernel built without DEBUG
demo bench bench-fault bench-boot: override DEBUG := 0

check: kernel rootfs userspace ## run every test (host unit tests, guest suites); TOPOLOGIES=, SUITES=, DEBUG=1
	@scripts/check.sh

demo: kernel rootfs userspace ## boot the demo topology and show HMS at work
	@scripts/demo.sh

bench: kernel rootfs userspace ## the benchmark: hbind vs memcpy, move_pages/mbind/migrate_pages (docs/benchmarks.md); PROFILE=1: where migration time goes
	@scripts/bench.sh $(if $(filter 1,$(PROFILE)),--profile)

bench-fault: kernel rootfs userspace ## page faults: CONFIG_HMS=y unused vs =n (builds it), hbind BIND vs mbind
	@scripts/bench-fault.sh
bench-boot: kernel rootfs userspace ## HMS=y vs =n: boot to init and CPU offline/online on numa64, two-socket-hbm
	@scripts/bench-boot.sh

unit: ## only the host unit tests (libhms, hmsctl, scripts); needs gcc, make, binutils, not root
	@scripts/setup.sh --unit
	$(MAKE) -C tests/unit check

shell: kernel rootfs userspace ## an interactive guest shell (TOPOLOGY=, default two-socket-hbm; DEBUG=1)
	scripts/vm.sh --topology $(or $(TOPOLOGY),two-socket-hbm) $(KERNEL_ARGS)

patches-check: deps ## checkpatch.pl --strict on every kernel patch
	@scripts/kq.sh check

build-each: rootfs userspace ## build the kernel after each patch, run the selftests of each prefix that adds some, boot the CONFIG_HMS=n build (nohms suite)
	@scripts/kq.sh build-each

clean-runs: ## delete the kept guest runs and check results from HMS_CACHE
	rm -rf $(HMS_CACHE)/runs $(HMS_CACHE)/check

help: ## list the targets
	@awk -F':.*## ' '/^[a-z-]+:.*## / { printf "  make %-14s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
