# The counted runs a report says were reused ("counted under valgrind (N + M runs, R + S
# reused)", JSON counted.reused) are those taken from the store, made by earlier
# comparisons, also after the second look (a side's counts disagree: both are topped up to
# MAX runs). Before, the count was the first look's: the same builds measured again took
# the 6 + 6 counted runs stored by the first comparison and ran none, but said "2 + 2
# reused" (the newest MIN of the first look). And under --fresh the second look ignored
# the first look's own runs and ran MAX more: 8 + 8 counted runs for a verdict on 6 + 6;
# and the second look's runs took the first look's directories, deleting their files.
# The benchmark counts 1 or 2 units of work by run (pattern), so that the sides disagree.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

make_pattern_repo repo 121211 121222

counted() { json_get "$1" "(d['benchmarks'][0]['counted']['runs'], d['benchmarks'][0]['counted']['reused'], [m['verdict'] for m in d['benchmarks'][0]['metrics'] if m['name'] == 'ir'][0])"; }
profiles() { db_query "$PWD/.revperf/revperf.db" "SELECT count(*) FROM profiles WHERE comparison_id = $1"; }

# The first comparison: 2 + 2 counted runs disagree, topped up to 6 + 6, none reused.
expect_exit 0 "$REVPERF" compare a b -q -f json
[ "$(counted out.txt)" = "([6, 6], [0, 0], 'undecided')" ] || fail "first: $(counted out.txt)"
# Each run in a directory of its own: before, the second look numbered its runs from 0
# again and replaced the first look's callgrind files (12 runs in 8 directories).
dirs=$(db_query "$PWD/.revperf/revperf.db" "SELECT count(DISTINCT path) FROM profiles WHERE comparison_id = 1")
[ "$dirs" = 12 ] || fail "the first comparison's 12 counted runs are in $dirs directories"

# Asked for again, the finished comparison is shown from the store: a new one (--more)
# reuses the 6 + 6 stored runs and runs none; show gives its counts.
expect_exit 0 "$REVPERF" compare a b -q --more
expect_grep 'counted under valgrind \(callgrind, 6 \+ 6 runs, 6 \+ 6 reused, [0-9.]+ s\)' out.txt
expect_exit 0 "$REVPERF" show a b -f json
id=$(json_get out.txt "d['comparison_id']")
[ "$id" = 2 ] || fail "show a b: comparison $id, not --more's (2)"
[ "$(profiles "$id")" = 0 ] || fail "measured again: $(profiles "$id") counted runs made"
[ "$(counted out.txt)" = "([6, 6], [6, 6], 'undecided')" ] ||
	fail "measured again, JSON: $(counted out.txt)"

# --fresh: none reused, and the second look tops up the first look's own runs.
expect_exit 0 "$REVPERF" compare a b -q -f json --fresh
id=$(json_get out.txt "d['comparison_id']")
case "$(counted out.txt)" in
"([6, 6], [0, 0], "*) ;;
*) fail "--fresh: $(counted out.txt)" ;;
esac
[ "$(profiles "$id")" = 12 ] || fail "--fresh made $(profiles "$id") counted runs for 6 + 6"
echo ok
