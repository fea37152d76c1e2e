# A change point names its commit's own comparison (with the commit it was compared with),
# its verdict, ratio and interval, and says when the two intervals are disjoint: history's
# medians pool every run of a commit's build, those of comparisons made later (under other
# load) too, where the comparison's own runs were interleaved pairs. Before, a change point
# on a commit whose own comparison said `equal` was shown alone (the zlib trial: later runs
# on a loaded machine moved two commits' medians from 20 to 33 ms).
# Here the benchmark prints its level plus an offset read from outside the repository:
# history measures every commit at level 1000 (no change anywhere), then comparisons made
# with the offset at 100 add 5 runs of 1100 to each of c7..c12, which moves their medians.
. "$SRCDIR/tests/cli/lib/common.bash"

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
echo 0 >"$PWD/../offset"
v_ini v "sh ./v.sh $PWD/../offset" "runs = 2..2"
printf 'echo "v $(( $(cat level) + $(cat "$1") ))"\n' >v.sh
echo 1000 >level
git add . && git commit -qm base && git tag base
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	echo $i >n && git add n && git commit -qm "c$i"
done

expect_exit 0 "$REVPERF" history base..HEAD -q
expect_grep '^  v v: none \(best candidate p = 1\)' out.txt
# Later, other comparisons of c7..c12 (in pairs) under an offset.
echo 100 >../offset
for k in 5 3 1; do
	expect_exit 0 "$REVPERF" compare HEAD~$k HEAD~$((k - 1)) -q -r 5..5 --fresh
done
expect_exit 0 "$REVPERF" history base..HEAD -q -f json
python3 - out.txt "$SRCDIR/docs/schema/history.schema.json" <<'PY' || fail "JSON: $(cat out.txt)"
import json, sys
import jsonschema
d = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
assert d["schema"] == "revperf-history/3", d["schema"]
c = {x["summary"]: x for x in d["commits"]}
s = [x for x in d["series"] if x["metric"] == "v"][0]
cps = s["change_points"]
assert [p["sha"] for p in cps] == [c["c7"]["sha"]], cps
p = cps[0]
assert 0.09 < p["rel_change_ci"][0], p
own = p["own_verdict"]
assert own == {"against": c["c6"]["sha"], "verdict": "equal", "ratio": 1.0, "ci": [1.0, 1.0],
               "disjoint": True}, own
PY
expect_exit 0 "$REVPERF" history base..HEAD -q
expect_grep "^  v v: at [0-9a-f]{12} \(c7\): median 1000 -> 1100 \(.*\), p = [0-9.e-]+; its own comparison with $(git rev-parse --short=12 HEAD~6): equal 1.000 \[1.000, 1.000\], disjoint from the change point's interval: a change spread over several commits, or medians moved by runs made at other times" out.txt
expect_exit 0 "$REVPERF" history base..HEAD -q -f markdown
expect_grep 'its own comparison with [0-9a-f]{12}: equal 1\.000 \[1\.000, 1\.000\], disjoint' out.txt
# The site's table of change points: the commit's own comparison in a column of its own.
expect_exit 0 "$REVPERF" report --out site -q
expect_grep '<th>its own comparison</th>' site/index.html
expect_grep '<td>equal 1\.000 \[1\.000, 1\.000\] against <a [^>]*><code>[0-9a-f]{12}</code></a> c6<br><span class="note">disjoint from the change point' site/index.html
# An A/A comparison of c7 made later is the comparison c7's page shows: the table does not
# take it for c7's own comparison with c6 (before, "equal 1.000 [1.000, 1.000] against c7",
# flagged as disjoint).
expect_exit 0 "$REVPERF" compare HEAD~6 HEAD~6 -q -r 2..2
expect_exit 0 "$REVPERF" report --out site2 -q
expect_no_grep 'against <a [^>]*><code>[0-9a-f]{12}</code></a> c7' site2/index.html
expect_grep '<td class="num">[0-9.e-]+</td><td>none</td></tr>' site2/index.html
echo ok
