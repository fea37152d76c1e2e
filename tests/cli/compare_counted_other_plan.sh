# A comparison whose metrics are all counted (ir) takes no timing run, so the timing runs
# that an earlier comparison of the same builds judged under another plan (runs, alpha)
# cost it nothing: no "judged under another plan ... measuring anew" warning, and its
# counted runs are reused. The jq trial (bench/RESULTS.md) met the warning in `history -c
# revperf-ir.ini` after `compare` with `runs = 5..20`: nothing was measured anew. A timed
# comparison under another plan still says it.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

make_spin_same repo

expect_exit 0 "$REVPERF" compare base same -m wall,ir --primary ir -q
runs=$(count runs) profiles=$(count profiles)

# ir alone, another run budget: no timing run, the counted runs reused, no warning.
expect_exit 0 "$REVPERF" compare base same -m ir --primary ir --runs 3..5
expect_no_grep 'another plan|measuring anew' err.txt
expect_grep 'counted under valgrind \(callgrind, 2 \+ 2 runs, 2 \+ 2 reused' out.txt
[ "$(count runs)" = "$runs" ] || fail "runs were added: $runs -> $(count runs)"
[ "$(count profiles)" = "$profiles" ] || fail "counted runs were added: $profiles -> $(count profiles)"

# Timed, another run budget: the stored timing runs are set aside, and it says so.
expect_exit 0 "$REVPERF" compare base same -m wall,ir --primary ir --runs 3..6 -q
expect_grep 'spin: the [0-9]+ \+ [0-9]+ stored runs of builds [0-9a-f]{12} and [0-9a-f]{12} were judged under another plan' err.txt
echo ok
