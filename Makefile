# HMS - Heterogeneous Memory System and hbind(): top-level commands.
#
#   make demo    set everything up, boot the demo topology, show HMS at work
#   make check   set everything up, run every test (host and guest)
#                (DEBUG=1: KASAN/lockdep/kmemleak kernel)
#   make bench   hbind MIGRATE/BIND vs move_pages/mbind/migrate_pages
#
# Big things (kernel tree and objects, rootfs, outputs) live in $(HMS_CACHE),
# outside the clone, and are rebuilt incrementally.
HMS_CACHE ?= /var/cache/hms
DEBUG ?= 0
export HMS_CACHE DEBUG

.PHONY: all deps kernel rootfs userspace demo check bench unit shell patches-check bisect clean-runs

all: kernel rootfs userspace

deps:
	scripts/setup.sh

kernel: deps
	scripts/build-kernel.sh $(if $(filter 1,$(DEBUG)),--debug)

rootfs: deps
	scripts/build-rootfs.sh

userspace: deps
	scripts/build-userspace.sh

demo:
	scripts/demo.sh

check:
	scripts/check.sh

bench:
	scripts/bench.sh

unit: deps
	$(MAKE) -C tests/unit check

shell: all
	scripts/vm.sh --topology $(or $(TOPOLOGY),two-socket-hbm) $(if $(filter 1,$(DEBUG)),--debug)

patches-check:
	scripts/kq.sh check

bisect:
	scripts/kq.sh bisect

clean-runs:
	rm -rf $(HMS_CACHE)/runs $(HMS_CACHE)/check
