# tap-summary.awk - the end of `make check`: what failed, which skips were
# not expected, one line per suite and the totals, from the lines that
# scripts/tap-count.awk wrote for each TAP file.
#
#   awk -f scripts/tap-summary.awk COUNTS
#
# The last line is "N passed, N failed, N skipped": the skips are the
# expected ones (tests/guest/skips.known), and an unexpected skip counts as
# failed there. Exit status 0 only when something passed, nothing failed
# and nothing skipped unexpectedly.

BEGIN { FS = "\t" }

$1 == "fail"  { fails[++nf] = $2 " " $3 ": " $4 }
$1 == "uskip" { uskips[++nu] = $2 " " $3 ": " $4 }
$1 == "suite" {
	rows[++nr] = sprintf("  %-15s %-24s %4d passed, %d failed, %d expected skips, %d unexpected skips",
			     $2, $3, $4, $5, $6, $7)
	p += $4; f += $5; e += $6; u += $7
}

END {
	if (nf) {
		print "Failures:"
		for (i = 1; i <= nf; i++)
			print "  " fails[i]
	}
	if (nu) {
		print "Unexpected skips (only tests/guest/skips.known lists skips that may happen):"
		for (i = 1; i <= nu; i++)
			print "  " uskips[i]
	}
	print "Results by suite:"
	for (i = 1; i <= nr; i++)
		print rows[i]
	printf "  %-40s %4d passed, %d failed, %d expected skips, %d unexpected skips\n",
	       "total", p, f, e, u
	if (u)
		printf "%d unexpected skips count as failed:\n", u
	printf "%d passed, %d failed, %d skipped\n", p, f + u, e
	exit !(p > 0 && f == 0 && u == 0)
}
