# revperf show prints a comparison of two commands (compare --cmd-a/--cmd-b) again, outside
# git, judged as compare judged it: with the runs, tolerance and metrics given on compare's
# command line (recorded with its plan), which show is not given. Before, show refused it
# ("is printed by compare only"). The JSON of show equals compare's but for the time spent;
# wall is undecided on 3 + 3 runs of `true`, and its interval depends on the looks planned,
# so an interval judged with the default runs (5..30) would differ.
. "$SRCDIR/tests/cli/lib/common.bash"

# Nothing stored: one line, exit 2, nothing created.
expect_exit 2 "$REVPERF" show
expect_one_line err.txt
expect_grep 'run `revperf compare --cmd-a CMD --cmd-b CMD` first' err.txt
[ ! -e .revperf ] || fail "show created the state directory"

expect_exit 0 "$REVPERF" compare -q -f json --cmd-a "sh -c true" --cmd-b true --runs 3..3 \
	--warmup 0 --metrics wall,cpu --tolerance 5%
cp out.txt compared.json
id=$(json_get compared.json "d['comparison_id']")
runs=$(db_query .revperf/revperf.db "SELECT count(*) FROM runs")
for args in "$id" ""; do
	expect_exit 0 "$REVPERF" show $args -f json
	python3 - compared.json out.txt <<'PY' || fail "show $args differs from compare"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    for x in d["benchmarks"]:
        x.pop("elapsed_s")
assert a == b, (a, b)
assert [m["name"] for m in b["benchmarks"][0]["metrics"]] == ["wall", "cpu"]
assert b["benchmarks"][0]["tolerance"] == 0.05
PY
	[ ! -s err.txt ] || fail "show $args warned: $(cat err.txt)"
done
expect_exit 0 "$REVPERF" show
expect_grep '^baseline A  vs  target B' out.txt
expect_grep '^command: 3 \+ 3 runs, shown from the store' out.txt
expect_exit 0 "$REVPERF" show -f markdown
expect_grep '^\|' out.txt
[ "$(db_query .revperf/revperf.db "SELECT count(*) FROM runs")" = "$runs" ] || fail "show ran"

# Another comparison of commands: show without arguments shows the newest.
expect_exit 0 "$REVPERF" compare -q -f json --cmd-a true --cmd-b true --runs 2..2 --warmup 0 \
	--metrics wall
id2=$(json_get out.txt "d['comparison_id']")
expect_exit 0 "$REVPERF" show -f json
[ "$(json_get out.txt "d['comparison_id']")" = "$id2" ] || fail "not the newest"
expect_exit 2 "$REVPERF" show 99
expect_grep 'no comparison 99' err.txt
echo ok
