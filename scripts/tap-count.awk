# tap-count.awk - count one TAP file's results per suite, and tell expected
# skips from unexpected ones.
#
#   awk -f scripts/tap-count.awk -v topo=TOPOLOGY -v known=SKIPS_FILE \
#       -v want="SUITE..." [-v suite=DEFAULT] FILE.tap
#
# A line "# suite: NAME" starts a suite's TAP stream (tests/guest/run.sh and
# kselftest.sh print them); results before any such line belong to the
# suite DEFAULT (default "tap"). Each suite must have a plan ("1..N") and
# as many results; the missing ones count as failed. A skip ("ok N name #
# skip reason", any case) is expected when KNOWN lists it:
#   TOPOLOGY | SUITE | TEST | REASON
# TOPOLOGY and TEST are shell patterns (* and ?), SUITE a suite name; a
# kernel selftest that kselftest.known lists as failing on the pristine
# kernel too ("# SKIP known failure: ...") is expected as well. WANT names
# the suites that must have run ("kselftest" is any "kselftest/BINARY").
#
# Output, one line each, fields separated by tabs:
#   suite  TOPO  SUITE  PASSED  FAILED  EXPECTED-SKIPS  UNEXPECTED-SKIPS
#   fail   TOPO  SUITE  WHAT          (a failed or missing test)
#   uskip  TOPO  SUITE  WHAT          (a skip KNOWN does not list)
#   eskip  TOPO  SUITE  WHAT          (a listed skip, with the listed reason)
# Exit status: 0 when nothing failed and nothing skipped unexpectedly.

# glob2re PATTERN: the anchored regular expression of a shell pattern
function glob2re(p,    i, c, r) {
	r = "^"
	for (i = 1; i <= length(p); i++) {
		c = substr(p, i, 1)
		if (c == "*")
			r = r ".*"
		else if (c == "?")
			r = r "."
		else if (index("\\^$.[]|()+{}", c))
			r = r "\\" c
		else
			r = r c
	}
	return r "$"
}

function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

function start(name) {
	cur = name
	if (!(cur in seen)) {
		seen[cur] = 1
		order[++nsuites] = cur
		pass[cur] = fail[cur] = eskip[cur] = uskip[cur] = 0
		plan[cur] = -1
		ran[cur] = 0
	}
}

function out(kind, what) {
	printf "%s\t%s\t%s\t%s\n", kind, topo, cur, what
}

BEGIN {
	FS = "\n"
	if (suite == "")
		suite = "tap"
	n = 0
	if (known != "") {
		while ((getline l < known) > 0) {
			if (l ~ /^[ \t]*(#|$)/)
				continue
			if (split(l, f, "|") < 4) {
				printf "%s: not TOPOLOGY | SUITE | TEST | REASON: %s\n",
					known, l > "/dev/stderr"
				bad_known = 1
				continue
			}
			n++
			ktopo[n] = glob2re(trim(f[1]))
			ksuite[n] = trim(f[2])
			ktest[n] = glob2re(trim(f[3]))
			r = l
			sub(/^[^|]*\|[^|]*\|[^|]*\|/, "", r)
			kwhy[n] = trim(r)
		}
		close(known)
	}
	nknown = n
	cur = ""
}

{ sub(/\r$/, "") }

/^# suite: / {
	s = $0
	sub(/^# suite: /, "", s)
	start(trim(s))
	next
}

/^1\.\.[0-9]+/ {
	if (cur == "")
		start(suite)
	split(substr($0, 4), f, /[^0-9]/)
	plan[cur] = (plan[cur] < 0 ? 0 : plan[cur]) + f[1]
	next
}

/^(not )?ok [0-9]+/ {
	if (cur == "")
		start(suite)
	ran[cur]++
	line = $0
	name = line
	sub(/^(not )?ok [0-9]+( -)? ?/, "", name)
	directive = ""
	if (match(name, / # [Ss][Kk][Ii][Pp]/)) {
		directive = substr(name, RSTART + 3)
		name = substr(name, 1, RSTART - 1)
	}
	sub(/ in [0-9]+ ?ms$/, "", name)
	if (line ~ /^not ok/) {
		fail[cur]++
		out("fail", line)
		next
	}
	if (directive == "") {
		pass[cur]++
		next
	}
	why = directive
	sub(/^[Ss][Kk][Ii][Pp] ?/, "", why)
	if (why ~ /^known failure: /) {
		eskip[cur]++
		out("eskip", name " (" why ")")
		next
	}
	for (i = 1; i <= nknown; i++) {
		if (topo ~ ktopo[i] && cur == ksuite[i] && name ~ ktest[i]) {
			eskip[cur]++
			out("eskip", name " (" kwhy[i] ")")
			next
		}
	}
	uskip[cur]++
	out("uskip", name " (skipped: " why ")")
}

END {
	nw = split(want, w, " ")
	for (i = 1; i <= nw; i++) {
		found = 0
		for (s in seen)
			if (s == w[i] || index(s, w[i] "/") == 1)
				found = 1
		if (!found) {
			start(w[i])
			plan[cur] = 0
			fail[cur]++
			out("fail", "no results: the suite did not run")
		}
	}
	if (nsuites == 0) {
		start(suite)
		plan[cur] = 0
		fail[cur]++
		out("fail", "no TAP results at all")
	}
	bad = bad_known
	for (k = 1; k <= nsuites; k++) {
		cur = order[k]
		if (plan[cur] < 0) {
			fail[cur]++
			out("fail", "no TAP plan: the suite did not start")
		} else if (ran[cur] < plan[cur]) {
			fail[cur] += plan[cur] - ran[cur]
			out("fail", (plan[cur] - ran[cur]) " of " plan[cur] " planned tests gave no result")
		}
		printf "suite\t%s\t%s\t%d\t%d\t%d\t%d\n", topo, cur,
			pass[cur], fail[cur], eskip[cur], uskip[cur]
		if (fail[cur] || uskip[cur])
			bad = 1
	}
	exit bad
}
