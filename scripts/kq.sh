#!/usr/bin/env bash
# kq.sh - the kernel patch queue.
#
#   scripts/kq.sh init     extract linux-source-6.12 into $HMS_CACHE once, as a
#                          git repository whose first commit is the pristine tree
#   scripts/kq.sh sync     apply kernel-patches/ (in `series` order) with git am
#                          and check the result out in the build worktree;
#                          only files that differ are rewritten, so the kernel
#                          build stays incremental. Prints the build tree path.
#   scripts/kq.sh edit     give a developer a worktree ($HMS_CACHE/linux-dev,
#                          branch "dev") with the series applied, to edit and
#                          commit in (refuses to clobber unexported work)
#   scripts/kq.sh export   write the commits of the dev branch back into
#                          kernel-patches/ with git format-patch, and `series`
#   scripts/kq.sh adopt REF  make the dev branch REF (e.g. a branch a
#                          developer stacked in another worktree) and export it
#   scripts/kq.sh build-each  build the kernel after each patch of the series
#                          (CONFIG_HMS=y), boot each prefix whose last patch
#                          adds selftests to run them (hbind-tests), and
#                          build the whole series with CONFIG_HMS=n, which it
#                          then boots to run tests/guest/nohms.bats
#                          (`make build-each`); slow: docs/benchmarks.md
#                          says how slow
#   scripts/kq.sh build-each --from N  the same from the N-th patch on:
#                          the first N-1 are applied but not built
#                          (those that a run before has built)
#   scripts/kq.sh build-prefix N  build the kernel with the first N patches
#                          (CONFIG_HMS=y) in build-each's tree and object
#                          directory, and print its bzImage (for
#                          scripts/bench.sh --kernel, to compare prefixes)
#   scripts/kq.sh check    check-cover, then checkpatch.pl --strict on every
#                          patch (needs the pristine tree: init)
#   scripts/kq.sh check-cover [DIR]  the cover letter matches `series`: its
#                          "[PATCH 00/N]" counts the patches, and its list
#                          of subjects is theirs, in series order (each
#                          patch numbered i/N). Reads only DIR (default
#                          kernel-patches/): no kernel tree needed
#   scripts/kq.sh cross    build the series for arm64 (with its 32-bit compat
#                          table) and i386 with Debian's cross compilers
#                          (tinyconfig + config/cross-ARCH.config) and check
#                          that each kernel has hbind() at its number.
#                          Object dirs $HMS_CACHE/kbuild-cross-ARCH; each
#                          arch logs its build time (docs/benchmarks.md)
#   scripts/kq.sh --help   this text
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KAM=$KPRISTINE				# main worktree: scratch for git am
KBUILD_TREE=$HMS_CACHE/linux-build	# what the kernel is built from
KDEV=${KDEV:-$HMS_CACHE/linux-dev}
PATCHDIR=$HMS_TOP/kernel-patches
GIT_ID=(-c user.name="HMS build" -c user.email="hms-build@localhost" -c advice.detachedHead=false)

git_k() { git "${GIT_ID[@]}" -C "$@"; }

series_files() {
	[ -f "$PATCHDIR/series" ] || return 0
	{ grep -v '^[[:space:]]*\(#\|$\)' "$PATCHDIR/series" || true; } | while read -r p; do
		[ -f "$PATCHDIR/$p" ] || die "series names $p, which is not in kernel-patches/"
		echo "$PATCHDIR/$p"
	done
}

cmd_init() {
	if [ -d "$KPRISTINE/.git" ] && git_k "$KPRISTINE" rev-parse -q --verify pristine >/dev/null; then
		return 0
	fi
	[ -r "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing: apt-get install linux-source-6.12"
	rm -rf "$KPRISTINE.tmp"
	mkdir -p "$KPRISTINE.tmp"
	long_step "extracting $KSRC_TARBALL into $KPRISTINE as a git repository (once)" \
		"about 2 min on a cold machine" "$HMS_CACHE/extract.log" extracted \
		pristine_tree "$KPRISTINE.tmp" || die "cannot extract $KSRC_TARBALL"
	rm -rf "$KPRISTINE"
	mv "$KPRISTINE.tmp" "$KPRISTINE"
	# keep a branch literally called "pristine" as the series base
	git_k "$KPRISTINE" rev-parse -q --verify pristine >/dev/null
	log "pristine tree at $KPRISTINE ($(git_k "$KPRISTINE" rev-parse --short pristine))"
}

# extracted: progress of pristine_tree, from tar's file list
extracted() {
	local f=$HMS_CACHE/extract.log
	echo "$(grep -c -v '^\[' "$f") files extracted$(grep -q '^\[recording' "$f" && echo ', recording them in git')"
}

# pristine_tree DIR: extract the kernel source into DIR and make DIR a git
# repository whose first commit holds it
pristine_tree() {
	tar -C "$1" --strip-components=1 -xJvf "$KSRC_TARBALL" &&
	echo "[recording the tree in git]" &&
	git_k "$1" init -q -b pristine &&
	git_k "$1" config core.autocrlf false &&
	git_k "$1" config gc.auto 0 &&
	git_k "$1" add -A -f . &&
	git_k "$1" commit -q -m "Debian linux-source-6.12 ($(basename "$KSRC_TARBALL"), pristine)" &&
	git_k "$1" tag pristine-base
}

# Apply the series on a detached pristine HEAD in the scratch tree; print the commit.
apply_series() {
	local p
	git_k "$KAM" am --abort >/dev/null 2>&1 || true
	git_k "$KAM" checkout -q -f --detach pristine
	git_k "$KAM" clean -q -fdx
	while read -r p; do
		[ -n "$p" ] || continue
		if ! git_k "$KAM" am -q --keep-cr "$p" >&2; then
			git_k "$KAM" am --abort >/dev/null 2>&1 || true
			die "git am failed on ${p##*/}"
		fi
	done < <(series_files)
	git_k "$KAM" rev-parse HEAD
}

# uapi_check TREE: uapi/linux/hbind.h, which userspace builds with, is the
# header the series in TREE installs
uapi_check() {
	cmp -s "$1/include/uapi/linux/hbind.h" "$HMS_TOP/uapi/linux/hbind.h" ||
		die "uapi/linux/hbind.h differs from include/uapi/linux/hbind.h of the series ($1): copy the series' one"
}

cmd_sync() {
	cmd_init
	local stamp head
	stamp=$( (cat "$PATCHDIR/series" 2>/dev/null; series_files | xargs -r cat) | sha256sum | cut -c1-16)
	if [ -d "$KBUILD_TREE" ] && [ "$(cat "$KBUILD_TREE/.hms-series" 2>/dev/null)" = "$stamp" ]; then
		uapi_check "$KBUILD_TREE"
		echo "$KBUILD_TREE"
		return 0
	fi
	log "applying kernel-patches/ ($(series_files | wc -l) patches)"
	head=$(apply_series)
	if [ ! -d "$KBUILD_TREE" ]; then
		git_k "$KAM" worktree add -q --detach "$KBUILD_TREE" "$head" >&2
	else
		# only files that differ are rewritten: the O= build stays incremental
		git_k "$KBUILD_TREE" checkout -q -f --detach "$head"
	fi
	echo "$stamp" > "$KBUILD_TREE/.hms-series"
	uapi_check "$KBUILD_TREE"
	echo "$KBUILD_TREE"
}

cmd_edit() {
	cmd_init
	local head
	if [ -d "$KDEV" ]; then
		if [ -n "$(git_k "$KDEV" status --porcelain --untracked-files=no)" ]; then
			die "$KDEV has uncommitted changes; commit them and run '$0 export' first"
		fi
		if [ "${1:-}" != "--force" ] && [ -f "$KDEV/.hms-exported" ] &&
		   [ "$(git_k "$KDEV" rev-parse HEAD)" != "$(cat "$KDEV/.hms-exported")" ]; then
			die "$KDEV has commits not exported; run '$0 export' (or '$0 edit --force' to drop them)"
		fi
	fi
	head=$(apply_series)
	if [ ! -d "$KDEV" ]; then
		git_k "$KAM" worktree add -q -B dev "$KDEV" "$head" >&2
	else
		git_k "$KDEV" checkout -q -B dev "$head"
	fi
	git_k "$KDEV" rev-parse HEAD > "$KDEV/.hms-exported"
	git_k "$KDEV" config user.name >/dev/null 2>&1 || git_k "$KDEV" config user.name "HMS developer"
	git_k "$KDEV" config user.email >/dev/null 2>&1 || git_k "$KDEV" config user.email "hms@localhost"
	log "edit the series in $KDEV (branch dev, base 'pristine'); then: $0 export"
	echo "$KDEV"
}

cmd_export() {
	[ -d "$KDEV" ] || die "no dev worktree; run '$0 edit' first"
	if [ -n "$(git_k "$KDEV" status --porcelain --untracked-files=no)" ]; then
		die "$KDEV has uncommitted changes; commit them first"
	fi
	local tmp n
	tmp=$(mktemp -d)
	git_k "$KDEV" format-patch -q --no-signature --zero-commit --base=pristine-base \
		--cover-letter -o "$tmp" pristine..dev >/dev/null
	n=$(find "$tmp" -name '0*.patch' ! -name '0000-*' | wc -l)
	# keep our hand-written cover letter, but refresh the patch count of
	# its subject, and its shortlog and diffstat (from the "Author (N):"
	# line on) from the generated one
	local cover=$PATCHDIR/0000-cover-letter.patch gen=$tmp/0000-cover-letter.patch
	if [ -f "$cover" ] && [ -f "$gen" ]; then
		local tail_re='^[^ ].* \([0-9]+\):$'
		{
			sed -E "/$tail_re/,\$d; 1,/^\$/ s|^(Subject: \[PATCH 0+/)[0-9]+\]|\1$n]|" "$cover"
			sed -n -E "/$tail_re/,\$p" "$gen" |
				sed '/^base-commit:/,$d; /^-- *$/,$d'
			grep '^base-commit:' "$cover" || true
		} > "$tmp/cover.new"
		mv "$tmp/cover.new" "$cover"
	fi
	rm -f "$gen"
	# An empty context line is " " in git's output and "" in GNU diff's
	# --suppress-blank-empty output; git am takes both. Write the second:
	# checkpatch.pl reads a patch that git tracks (ours, from this
	# repository) as a source file, where " " is trailing whitespace.
	[ "$n" -eq 0 ] || sed -i '/^diff --git /,$ s/^ $//' "$tmp"/0*.patch
	find "$PATCHDIR" -maxdepth 1 -name '0*.patch' ! -name '0000-*' -delete
	mkdir -p "$PATCHDIR"
	cp "$tmp"/*.patch "$PATCHDIR"/ 2>/dev/null || true
	{
		echo "# the patches in git am order; written by scripts/kq.sh export"
		find "$PATCHDIR" -maxdepth 1 -name '0*.patch' ! -name '0000-*' -printf '%f\n' |
			LC_ALL=C sort
	} > "$PATCHDIR/series"
	rm -rf "$tmp"
	git_k "$KDEV" rev-parse HEAD > "$KDEV/.hms-exported"
	log "exported $n patches into kernel-patches/"
}

cmd_adopt() {
	cmd_init
	local ref=${1:?usage: kq.sh adopt REF}
	git_k "$KAM" rev-parse -q --verify "$ref^{commit}" >/dev/null || die "no such ref: $ref"
	git_k "$KAM" merge-base --is-ancestor pristine "$ref" || die "$ref is not based on pristine"
	if [ ! -d "$KDEV" ]; then
		git_k "$KAM" worktree add -q -B dev "$KDEV" "$ref" >&2
	else
		[ -z "$(git_k "$KDEV" status --porcelain --untracked-files=no)" ] ||
			die "$KDEV has uncommitted changes"
		git_k "$KDEV" checkout -q -B dev "$ref"
	fi
	cmd_export
}

# patch_subject FILE: the Subject header of a patch mail, unfolded
patch_subject() {
	awk '/^$/ { exit }
		s != "" && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
		s != "" { exit }
		/^Subject: / { s = substr($0, 10) }
		END { print s }' "$1"
}

# cover_subjects FILE: the cover letter's list of patch subjects (git
# shortlog: after the "Author (N):" line, one per line, indented two
# spaces, wrapped lines indented four), unwrapped, one per line
cover_subjects() {
	awk '/^[^ ].* \([0-9]+\):$/ { on = 1; next }
		!on { next }
		/^$/ { exit }
		/^    / { sub(/^ +/, " "); s = s $0; next }
		/^  [^ ]/ { if (s != "") print s; s = substr($0, 3); next }
		{ exit }
		END { if (s != "") print s }' "$1"
}

# check_cover [DIR]: the cover letter of DIR (default kernel-patches/)
# matches its series file; says what differs and returns 1 if not
check_cover() {
	local PATCHDIR=${1:-$PATCHDIR}
	local cover=$PATCHDIR/0000-cover-letter.patch name=0000-cover-letter.patch
	local n i=0 p subj want rc=0 got
	local -a files
	[ -f "$cover" ] || { echo "$name: missing in $PATCHDIR" >&2; return 1; }
	mapfile -t files < <(series_files)
	n=${#files[@]}
	got=$(patch_subject "$cover")
	if [[ $got =~ ^\[PATCH\ 0+/([0-9]+)\]\  ]]; then
		if [ "$((10#${BASH_REMATCH[1]}))" != "$n" ]; then
			echo "$name: the subject says [PATCH 00/${BASH_REMATCH[1]}], series lists $n patches" >&2
			rc=1
		fi
	else
		echo "$name: the subject is not \"[PATCH 00/N] ...\": $got" >&2
		rc=1
	fi
	got=$(grep -m1 -E '^[^ ].* \([0-9]+\):$' "$cover" | sed -E 's/.*\(([0-9]+)\):$/\1/')
	if [ "$got" != "$n" ]; then
		echo "$name: the patch list counts ${got:-no} patches (\"Author (N):\"), series $n" >&2
		rc=1
	fi
	want=$(mktemp)
	for p in "${files[@]}"; do
		i=$((i + 1))
		subj=$(patch_subject "$p")
		if [[ $subj =~ ^\[PATCH\ 0*([0-9]+)/0*([0-9]+)\]\ (.*)$ ]]; then
			if [ "${BASH_REMATCH[1]}" != "$i" ] || [ "${BASH_REMATCH[2]}" != "$n" ]; then
				echo "${p##*/}: numbered [PATCH ${BASH_REMATCH[1]}/${BASH_REMATCH[2]}], is $i/$n in series" >&2
				rc=1
			fi
			subj=${BASH_REMATCH[3]}
		else
			echo "${p##*/}: the subject is not \"[PATCH i/N] ...\": $subj" >&2
			rc=1
		fi
		echo "$subj"
	done > "$want"
	if ! got=$(cover_subjects "$cover" | diff -u --label "subjects of the patches in series" \
			--label "the cover letter's list" "$want" -); then
		echo "$name: the list of patches differs from the subjects of the series:" >&2
		echo "$got" >&2
		rc=1
	fi
	rm -f "$want"
	[ "$rc" = 0 ] && echo "$name: matches series ($n patches)"
	return "$rc"
}

cmd_check() {
	local p rc=0 out
	check_cover || rc=1
	cmd_init
	while read -r p; do
		# as a reviewer runs it on the mail, and as one runs it from the
		# top of this repository (where git tracks the patch)
		out=$( (cd "$KPRISTINE" && perl scripts/checkpatch.pl --strict --terse --show-types "$p" 2>&1
			cd "$HMS_TOP" && perl "$KPRISTINE/scripts/checkpatch.pl" --no-tree --strict --terse \
				--show-types "${p#"$HMS_TOP"/}" 2>&1) ) || true
		if echo "$out" | grep -q -E 'ERROR|WARNING|CHECK'; then
			echo "$out"; rc=1
		else
			echo "${p##*/}: clean"
		fi
	done < <(series_files)
	return $rc
}

# build_each_dirs: move a cache's linux-bisect worktree and kbuild-bisect*
# object directories to the names build-each uses (linux-each, kbuild-each*)
build_each_dirs() {
	local old
	if [ ! -d "$HMS_CACHE/linux-each" ] && [ -d "$HMS_CACHE/linux-bisect" ]; then
		git_k "$KAM" worktree move "$HMS_CACHE/linux-bisect" "$HMS_CACHE/linux-each"
	fi
	for old in "$HMS_CACHE"/kbuild-bisect "$HMS_CACHE"/kbuild-bisect-nohms; do
		[ -d "$old" ] && [ ! -d "${old/bisect/each}" ] && mv "$old" "${old/bisect/each}"
	done
	return 0
}

# The selftests the series adds, and build-each's copy of each prefix's
PREFIX_TEST=tools/testing/selftests/mm/hbind-tests.c

# prefix_selftests TREE OBJ LABEL: build TREE's hbind-tests against OBJ's
# headers, boot OBJ's kernel and run them (tests/guest/kselftest.sh: a
# failure not in kselftest.known fails the prefix).
prefix_selftests() {
	local tree=$1 obj=$2 label=$3 ks=$HMS_CACHE/each-kselftest
	need rootfs userspace
	log "build-each: $label adds selftests: booting it to run hbind-tests"
	mkdir -p "$ks/mm"
	"$HMS_TOP/scripts/build-kselftests.sh" --tree "$tree" --obj "$obj" \
		--out "$ks/mm" >/dev/null || die "selftests do not build at $label"
	"$HMS_TOP/scripts/vm.sh" --topology two-socket-hbm --timeout 900 \
		--kernel "$obj/arch/x86/boot/bzImage" --share "$ks" \
		-- env KS=/mnt/share/mm sh /mnt/hms/tests/guest/kselftest.sh hbind-tests ||
		die "the selftests fail at $label"
	log "build-each: $label passes its selftests"
}

cmd_build_each() {
	local from=1
	if [ "${1:-}" = --from ]; then
		from=${2:-}
		[[ $from =~ ^[1-9][0-9]*$ ]] || die "build-each --from needs a patch number, not '$from'"
	elif [ $# -gt 0 ]; then
		die "build-each: unknown argument '$1' (scripts/kq.sh --help)"
	fi
	cmd_init
	local n i p bdir=$HMS_CACHE/kbuild-each tree=$HMS_CACHE/linux-each
	build_each_dirs
	n=$(series_files | wc -l)
	[ "$from" -le "$n" ] || die "build-each --from $from: the series has $n patches"
	[ -d "$tree" ] || git_k "$KAM" worktree add -q --detach "$tree" pristine >&2
	git_k "$tree" checkout -q -f --detach pristine
	mapfile -t patches < <(series_files)
	for ((i = 0; i < n; i++)); do
		p=${patches[$i]}
		git_k "$tree" am -q --keep-cr "$p" || die "git am failed on ${p##*/}"
		[ "$((i + 1))" -ge "$from" ] || continue
		log "build-each: building with $((i + 1))/$n: ${p##*/}"
		"$HMS_TOP/scripts/build-kernel.sh" --tree "$tree" --obj "$bdir" >/dev/null ||
			die "build failed after ${p##*/}"
		# a patch that adds selftests: this prefix passes the ones it has
		if git_k "$tree" show --stat --format= HEAD | grep -q "$PREFIX_TEST"; then
			prefix_selftests "$tree" "$bdir" "$((i + 1))/$n"
		fi
	done
	log "build-each: whole series with CONFIG_HMS=n"
	"$HMS_TOP/scripts/build-kernel.sh" --tree "$tree" --obj "$bdir-nohms" --no-hms >/dev/null ||
		die "build failed with CONFIG_HMS=n"
	log "build-each: every prefix builds"
	# and the CONFIG_HMS=n kernel boots and behaves as one without the series
	need rootfs userspace
	log "build-each: booting the CONFIG_HMS=n kernel (tests/guest/nohms.bats)"
	"$HMS_TOP/scripts/vm.sh" --topology two-socket-hbm --timeout 900 \
		--kernel "$bdir-nohms/arch/x86/boot/bzImage" \
		-- /mnt/hms/tests/guest/run.sh nohms ||
		die "the CONFIG_HMS=n kernel failed its tests"
	log "build-each: the CONFIG_HMS=n kernel passes tests/guest/nohms.bats"
}

cmd_build_prefix() {
	cmd_init
	local n=${1:-} total i bdir=$HMS_CACHE/kbuild-each tree=$HMS_CACHE/linux-each
	build_each_dirs
	total=$(series_files | wc -l)
	case $n in ''|*[!0-9]*) die "build-prefix wants a number of patches, 0 to $total" ;; esac
	[ "$n" -le "$total" ] || die "the series has $total patches, not $n"
	[ -d "$tree" ] || git_k "$KAM" worktree add -q --detach "$tree" pristine >&2
	git_k "$tree" checkout -q -f --detach pristine
	mapfile -t patches < <(series_files)
	for ((i = 0; i < n; i++)); do
		git_k "$tree" am -q --keep-cr "${patches[$i]}" ||
			die "git am failed on ${patches[$i]##*/}"
	done
	log "build-prefix: building with the first $n of $total patches"
	"$HMS_TOP/scripts/build-kernel.sh" --tree "$tree" --obj "$bdir" >/dev/null ||
		die "build failed with the first $n patches"
	echo "$bdir/arch/x86/boot/bzImage"
}

# cross_build ARCH CROSS_COMPILE: build the synced tree for ARCH in its own
# object directory and check that hbind is in its syscall tables.
cross_build() {
	local arch=$1 cross=$2 tree=$3 obj=$HMS_CACHE/kbuild-cross-$1 t0 line opt val got
	local frag=$PATCHDIR/config/cross-$arch.config cc=${2}gcc
	command -v "$cc" >/dev/null || die "$cc missing: apt-get install gcc-${cross%-}"
	command -v ccache >/dev/null && cc="ccache $cc"
	mkdir -p "$obj"
	t0=$(date +%s)
	log "cross: $arch in $obj"
	local km=(make -s -C "$tree" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" CC="$cc" -j"$JOBS" LOCALVERSION=)
	"${km[@]}" tinyconfig >/dev/null
	(cd "$obj" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" >/dev/null)
	"${km[@]}" olddefconfig >/dev/null
	while IFS= read -r line; do
		opt=${line%%=*} val=${line#*=}
		got=$(grep -E "^$opt=" "$obj/.config" | cut -d= -f2- || true)
		[ "$got" = "$val" ] || die "$arch: $opt=$val requested, got '${got:-unset}'"
	done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag")
	local targets=(vmlinux)
	! grep -q '^CONFIG_MODULES=y' "$obj/.config" || targets+=(modules)
	"${km[@]}" "${targets[@]}" >&2 || die "$arch: build failed"
	grep -q 'sys_hbind' "$obj/System.map" || die "$arch: no sys_hbind in System.map"
	log "cross: $arch built in $(( $(date +%s) - t0 ))s"
}

cmd_cross() {
	local tree
	tree=$(cmd_sync)
	export CCACHE_DIR=${CCACHE_DIR:-$HMS_CACHE/ccache} CCACHE_BASEDIR=$HMS_CACHE CCACHE_NOHASHDIR=1
	cross_build i386 i686-linux-gnu- "$tree"
	grep -q -E '^#define __NR_hbind[[:space:]]+500$' \
		"$HMS_CACHE/kbuild-cross-i386/arch/x86/include/generated/uapi/asm/unistd_32.h" ||
		die "i386: no __NR_hbind 500"
	cross_build arm64 aarch64-linux-gnu- "$tree"
	# the compat table (syscall_32.tbl) gives hbind its arm number
	grep -q -E '^#define __NR_compat32_hbind[[:space:]]+500$' \
		"$HMS_CACHE/kbuild-cross-arm64/arch/arm64/include/generated/asm/unistd_compat_32.h" ||
		die "arm64: no __NR_compat32_hbind 500"
	log "cross: arm64 (with compat) and i386 build with hbind() at 500"
}

case "${1:-}" in
init) cmd_init ;;
sync) cmd_sync ;;
edit) shift; cmd_edit "$@" ;;
export) cmd_export ;;
adopt) shift; cmd_adopt "$@" ;;
check) cmd_check ;;
check-cover) shift; check_cover "$@" ;;
build-each) shift; cmd_build_each "$@" ;;
build-prefix) shift; cmd_build_prefix "$@" ;;
cross) cmd_cross ;;
-h|--help|help) script_help ;;
*) script_help >&2; exit 2 ;;
esac
