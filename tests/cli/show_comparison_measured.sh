# revperf show ID prints what comparison ID measured: its runs and those it could reuse,
# not the runs of later comparisons of the same builds (--more, an interrupted one). Before,
# a replay took every stored run of the pair of builds: the first comparison of
# 3..6 runs, continued by --more to 12, was shown with 12 + 12 runs and --more's interval.
. "$SRCDIR/tests/cli/lib/common.bash"

make_alternating_repo repo # undecided

shown() { json_get "$1" "d['comparison_id'], d['benchmarks'][0]['runs'], d['benchmarks'][0]['ci_level'], [(m['verdict'], m['ci']) for m in d['benchmarks'][0]['metrics']]"; }
expect_exit 0 "$REVPERF" compare a b -q -f json
cp out.txt first.json
expect_exit 0 "$REVPERF" compare a b -q -f json --more
cp out.txt more.json
first=$(json_get first.json "d['comparison_id']")
more=$(json_get more.json "d['comparison_id']")
[ "$first" != "$more" ] || fail "--more made no comparison of its own"
# The runs' reuse counts of a replay say what came from before it; the rest is the same.
same() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    for side in d["benchmarks"][0]["runs"].values():
        side.pop("reused")
ka = (a["comparison_id"], a["benchmarks"][0]["runs"], a["benchmarks"][0]["ci_level"],
      [(m["verdict"], m["ci"]) for m in a["benchmarks"][0]["metrics"]])
kb = (b["comparison_id"], b["benchmarks"][0]["runs"], b["benchmarks"][0]["ci_level"],
      [(m["verdict"], m["ci"]) for m in b["benchmarks"][0]["metrics"]])
assert ka == kb, (ka, kb)
PY
}
expect_exit 0 "$REVPERF" show "$first" -f json
same first.json out.txt || fail "show $first: $(shown out.txt); measured: $(shown first.json)"
expect_exit 0 "$REVPERF" show "$more" -f json
same more.json out.txt || fail "show $more: $(shown out.txt); measured: $(shown more.json)"
expect_exit 0 "$REVPERF" show a b -f json
same more.json out.txt || fail "show a b: $(shown out.txt); measured: $(shown more.json)"
echo ok
