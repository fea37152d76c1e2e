# The text report of an interrupted comparison: the benchmark that was interrupted says
# so, not "undecided after the run budget: raise `runs`" (its budget was not spent), and
# its time is the time it ran, not 0.0 s (zlib trial: "36 + 36 runs, 6 looks, 0.0 s" and
# the advice to raise `runs` = 10..300 after Ctrl-C).
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
# Undecided by construction (values alternate around the same mean on both sides); the
# twelfth run interrupts revperf, after the first look (3 + 3) and far from 40 + 40.
v_ini alt "sh ./alt.sh" "runs = 3..40"
{
	echo "sleep 0.05"
	signal_at_run 11 INT "$TEST_TMP/pid"
	cat <<'SH'
c=$(cat .n 2>/dev/null || echo 0); echo $((c + 1)) >.n
if [ $(( (c + $(cat off)) % 2 )) = 0 ]; then echo "v 1000"; else echo "v 1100"; fi
SH
} >alt.sh
echo 0 >off
git add . && git commit -qm alt && git tag a
echo 1 >off
git commit -qam "the other phase" && git tag b

"$REVPERF" compare a b --seed 3 >out.txt 2>err.txt &
echo $! >"$TEST_TMP/pid"
got=0
wait $! || got=$?
[ "$got" = 130 ] || { cat out.txt err.txt; fail "interrupted: exit $got"; }
expect_grep '^alt: [0-9]+ \+ [0-9]+ runs, [1-9][0-9]* looks?, ' out.txt
expect_no_grep 'after the run budget' out.txt
expect_grep '^  undecided: interrupted before its run budget was spent$' out.txt
expect_no_grep '^alt: .*, 0\.0 s;' out.txt
expect_grep '^interrupted: the runs that finished are stored' out.txt
echo ok
