# revperf show ID of a comparison made with --fresh prints what that comparison measured:
# its own runs only, not the runs of the same builds stored before it, which --fresh
# ignored. Before, whether a comparison was fresh was not stored, so its replay took the
# earlier runs too: here a first comparison stores v = 1000 on both sides (equal), then
# --fresh measures v = 1000 against 1100 (worse, 3 + 3 runs), and show printed the two
# comparisons' 6 + 6 runs together, with other means and verdict.
. "$SRCDIR/tests/cli/lib/common.bash"

# Each side prints the value the test puts in its file (values/A, values/B).
values=$PWD/values
make_valued_repo repo

echo 1000 >"$values/A"
echo 1000 >"$values/B"
expect_exit 0 "$REVPERF" compare a b -q -f json
[ "$(json_get out.txt "d['benchmarks'][0]['metrics'][0]['verdict']")" = equal ] ||
	fail "the first comparison is not equal: $(cat out.txt)"

echo 1100 >"$values/B"
expect_exit 1 "$REVPERF" compare a b -q -f json --fresh
cp out.txt fresh.json
id=$(json_get fresh.json "d['comparison_id']")
key() {
	json_get "$1" "(d['comparison_id'], d['benchmarks'][0]['runs'], d['benchmarks'][0]['ci_level'], [(m['name'], m['verdict'], m['ci'], m['ratio'], m['baseline'], m['target']) for m in d['benchmarks'][0]['metrics']])"
}
measured=$(key fresh.json)
case "$measured" in
*"'worse'"*) ;;
*) fail "--fresh did not find v worse: $measured" ;;
esac

expect_exit 0 "$REVPERF" show "$id" -f json
[ "$(key out.txt)" = "$measured" ] || fail "show $id -f json: $(key out.txt); measured: $measured"
# Shown again without an id (the newest finished comparison of a and b): the same.
expect_exit 0 "$REVPERF" show a b -f json
[ "$(key out.txt)" = "$measured" ] || fail "show a b -f json: $(key out.txt); measured: $measured"

# The text report too, but for how it was made (looks and seconds, or "shown from the
# store").
norm() { sed -E 's/, ([0-9]+ looks?, [0-9.]+ s|shown from the store);/;/' out.txt; }
expect_exit 1 "$REVPERF" compare a b --fresh
norm >fresh.txt
id=$(db_query "$PWD/.revperf/revperf.db" "SELECT max(id) FROM comparisons")
expect_exit 0 "$REVPERF" show "$id"
norm >shown.txt
expect_grep '^v: 3 \+ 3 runs; ' fresh.txt
diff fresh.txt shown.txt || fail "show $id printed other text than the --fresh compare"
echo ok
