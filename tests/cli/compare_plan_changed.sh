# Runs looked at under one plan (runs MIN..MAX at an alpha) are not judged again under
# another: their looks spent alpha there, and each look of a new plan would be a new chance
# of a false verdict (the trust review's A/A trials, alpha 0.2: runs 3..6, then 3..12, then
# 3..24 raised the false verdicts from 37 to 44 of 300). A comparison whose runs or alpha
# differ from the plan that judged the stored runs measures anew and says why; one with the
# same plan (or --more) reuses them.
. "$SRCDIR/tests/cli/lib/common.bash"

make_alternating_repo repo # undecided at these run counts

runs() { json_get "$1" "d['benchmarks'][0]['runs']['baseline']['ok'], d['benchmarks'][0]['runs']['baseline']['reused'], d['benchmarks'][0]['metrics'][0]['verdict']"; }

expect_exit 0 "$REVPERF" compare a b -q -f json
[ "$(runs out.txt)" = "6 0 undecided" ] || fail "first: $(runs out.txt)"

# More runs asked for: a new plan, so the 6 + 6 runs judged at 3..6 are not reused.
expect_exit 0 "$REVPERF" compare a b -q -f json -r 3..12
[ "$(runs out.txt)" = "12 0 undecided" ] || fail "runs 3..12 reused runs of 3..6: $(runs out.txt)"
expect_grep 'judged under another plan' err.txt

# The same plan again (--more): its runs are reused.
expect_exit 0 "$REVPERF" compare a b -q -f json -r 3..12 --more
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused']")" = 12 ] ||
	fail "--more under the same plan: $(runs out.txt)"

# Another alpha: a new plan too.
expect_exit 0 "$REVPERF" compare a b -q -f json -r 3..12 -a 0.05
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused']")" = 0 ] ||
	fail "alpha 0.05 reused runs judged at 0.01: $(runs out.txt)"
expect_grep 'judged under another plan' err.txt
before=$(db_query .revperf/revperf.db "SELECT count(*) FROM runs")
# Asked again with that plan: shown from the store, nothing run.
expect_exit 0 "$REVPERF" compare a b -q -f json -r 3..12 -a 0.05
[ "$(db_query .revperf/revperf.db "SELECT count(*) FROM runs")" = "$before" ] ||
	fail "the same plan again ran more: $(runs out.txt)"
echo ok
