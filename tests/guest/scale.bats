#!/usr/bin/env bats
# HMS on a large machine (the numa64 profile: 64 nodes, 8 with a CPU, the
# full HMAT matrix): the bus describes every node and every initiator x
# target pair, every relation resolves, and taking CPUs offline and back
# removes and restores exactly the relations of their initiators. Written
# for large profiles: one find or ls per check, not one process per file.

setup() {
	load common
	have_hms || fail "no /sys/bus/hms/devices: the kernel has no HMS"
	NODES=$(expand_list "$(cat /sys/devices/system/node/has_memory)")
	CPU_NODES=$(expand_list "$(cat /sys/devices/system/node/has_cpu)")
	[ "$(echo "$NODES" | wc -w)" -ge 16 ] ||
		skip "a profile with 16 memory nodes or more (numa64) is needed"
}

teardown() {
	local c
	for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$c")" = 1 ] || echo 1 > "$c" || true
	done
}

# count TYPE: the number of live objects of TYPE
count() {
	find "$HMS_BUS"/ -maxdepth 1 -name "v1-*-$1" | wc -l
}

# The objects' directories (the bus lists symlinks to them)
OBJ_DIR=/sys/devices/hms
GROUPS_RE='\./v1-[^/]*/\(links\|initiators\|targets\|bridges\)/'

# relations: every relation symlink, as "object/group/other", sorted
relations() {
	(cd "$OBJ_DIR" && find . -mindepth 3 -maxdepth 3 -type l |
		grep "^$GROUPS_RE" | sed 's|^\./||' | sort)
}

# dangling: the relation symlinks that do not resolve, one a line
dangling() {
	local r
	for r in $(relations); do
		[ -e "$OBJ_DIR/$r" ] || echo "$r"
	done
}

# links_of_alone NODE: the links whose only initiator is NODE's
links_of_alone() {
	local ini l n=0
	for ini in $(hms_find initiator nid="$1"); do
		for l in "$HMS_BUS/$ini"/links/*; do
			[ "$(ls "$l/initiators" | wc -l)" -eq 1 ] && n=$((n + 1))
		done
	done
	echo "$n"
}

# pairs_of_links: the number of (initiator, target) pairs the links hold
pairs_of_links() {
	relations | awk -F/ '$1 ~ /-link$/ && $2 == "initiators" { i[$1]++ }
		$1 ~ /-link$/ && $2 == "targets" { t[$1]++ }
		END { for (l in i) n += i[l] * t[l]; print n + 0 }'
}

@test "every node with memory is a target, every node with CPUs an initiator" {
	[ "$(count target)" -eq "$(echo "$NODES" | wc -w)" ]
	[ "$(count initiator)" -eq "$(echo "$CPU_NODES" | wc -w)" ]
}

@test "the links hold every initiator x target pair of the HMAT matrix once" {
	local want
	want=$(( $(echo "$NODES" | wc -w) * $(echo "$CPU_NODES" | wc -w) ))
	[ "$(pairs_of_links)" -eq "$want" ]
}

@test "every relation symlink resolves, and each has its reverse" {
	local r o g other back
	# two symlinks for each pair a link holds, at least
	[ "$(relations | wc -l)" -ge $((2 * $(pairs_of_links))) ]
	[ "$(pairs_of_links)" -gt 0 ]
	[ -z "$(dangling)" ]
	# a link lists its initiator, the initiator lists the link
	while read -r r; do
		o=${r%%/*}
		g=${r#*/}; g=${g%%/*}
		other=${r##*/}
		case $g in
		links) back=$HMS_BUS/$other/${o##*-}s/$o ;;
		initiators|targets) back=$HMS_BUS/$other/links/$o ;;
		*) continue ;;
		esac
		[ -e "$back" ] || { echo "$r has no reverse $back"; return 1; }
	done < <(relations | grep -- '-link/\(initiators\|targets\)/\|-\(initiator\|target\)/links/')
}

@test "CPUs offline and back: their initiators' relations go and come back, nothing else changes" {
	local before after off cpu node initiators links gone=0
	before=$(relations)
	[ -n "$before" ]
	initiators=$(count initiator)
	links=$(count link)
	# the highest CPU of the last two CPU nodes, each alone on its node
	off=''
	for node in $(echo "$CPU_NODES" | tr ' ' '\n' | tail -2); do
		cpu=$(expand_list "$(cat /sys/devices/system/node/node$node/cpulist)")
		[ "$(echo "$cpu" | wc -w)" -eq 1 ] || skip "node $node has more than one CPU"
		[ -w /sys/devices/system/cpu/cpu$cpu/online ] || skip "cpu$cpu cannot go offline"
		off="$off $cpu"
		gone=$((gone + $(links_of_alone "$node")))
	done
	[ "$gone" -gt 0 ]
	for cpu in $off; do
		echo 0 > /sys/devices/system/cpu/cpu$cpu/online
	done
	[ "$(count initiator)" -eq $((initiators - 2)) ]
	# the links that held only those initiators are gone
	[ "$(count link)" -eq $((links - gone)) ]
	[ -z "$(dangling)" ]
	for cpu in $off; do
		echo 1 > /sys/devices/system/cpu/cpu$cpu/online
	done
	[ "$(count initiator)" -eq "$initiators" ]
	[ "$(count link)" -eq "$links" ]
	[ -z "$(dangling)" ]
	# the same relations, up to the uids of the new objects: compare shapes
	after=$(relations)
	[ "$(echo "$after" | wc -l)" -eq "$(echo "$before" | wc -l)" ]
	[ "$(echo "$after" | sed 's/v1-[0-9]*-/v1-N-/g' | sort | uniq -c)" = \
	  "$(echo "$before" | sed 's/v1-[0-9]*-/v1-N-/g' | sort | uniq -c)" ]
}
