# A compare killed between the two runs of a pair, then run again: the header counts every
# successful run (reused ones too), the verdict is paired and uses only the complete
# interleaved pairs. The summary says "N pairs" then, not "N + N runs" that the header
# contradicts. The values are printed by the benchmark (1000 against 1100), never timed.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo proj
cd proj
v_ini v "sh ./v.sh" "runs = 3..3"
# The fourth run of the test (the second of the second pair, whichever side it is) kills
# the compare (SIGKILL: nothing of that run is stored): one run of a pair stays unpaired.
{ signal_at_run 3 KILL "$TEST_TMP/compare.pid" "sleep 1; exit 1"; echo 'echo "v $(cat value)"'; } >v.sh
echo 1000 >value
git add . && git commit -qm "v 1000" && git tag a
echo 1100 >value
git commit -qam "v 1100" && git tag b

expect_exit 137 sh -c 'echo $$ >"$1/compare.pid"; shift; exec "$@"' sh "$TEST_TMP" \
	"$REVPERF" compare -q a b
[ "$(db_query .revperf/revperf.db "select count(*) from runs where status = 'ok'")" = 3 ] ||
	fail "expected 3 runs stored before the kill"

expect_exit 1 "$REVPERF" compare a b
# 3 + 3 successful runs, 3 of them reused; 2 complete pairs (one of the killed compare, one
# of this one) and a run of each compare whose partner never ran.
expect_grep '^v: 3 \+ 3 runs \([12] \+ [12] reused\)' out.txt
expect_grep '^  v v: worse, \+10\.0% \(99\.25% CI \+10\.0% to \+10\.0%, 2 pairs\)$' out.txt
expect_no_grep '2 \+ 2 runs' out.txt
expect_exit 1 "$REVPERF" compare -f json a b
[ "$(json_get out.txt "d['benchmarks'][0]['metrics'][0]['pairs']")" = 2 ] ||
	fail "the JSON does not count 2 pairs"
# The Markdown table counts the same.
expect_exit 1 "$REVPERF" compare -f markdown a b
expect_grep '\| v \| v \(primary\) \| .* \| 2 pairs \| ' out.txt
