# A change point's relative change comes with its interval (a percentile bootstrap of the
# ratio of the two segments' medians, commits resampled within each segment;
# docs/change-points.md), in history's text, Markdown and JSON and in the report's site,
# at the verdicts' confidence (--alpha). The benchmark prints a value per commit (v, the
# same in every run, so nothing depends on the machine's load): six commits about 1000
# (997..1003), six about 1100 (1097..1104), a +10% step with 0.3% of scatter: the interval
# holds +10% and not 0, and lies within the widest the resampled medians allow (the lowest
# after over the highest before, and the other way round: +9.4% to +10.7%).
. "$SRCDIR/tests/cli/lib/common.bash"

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
v_ini v "sh ./v.sh" "runs = 2..2"
printf 'echo "v $(cat level)"\n' >v.sh
echo 1000 >level
git add . && git commit -qm base && git tag base
i=0
for level in 1000 1003 997 1001 999 1002 1100 1104 1097 1101 1099 1103; do
	i=$((i + 1))
	echo $level >level && echo $i >n && git add n && git commit -qam "c$i"
done

expect_exit 0 "$REVPERF" history base..HEAD -q -f json
python3 - out.txt "$SRCDIR/docs/schema/history.schema.json" <<'PY' || fail "the interval in JSON: $(cat out.txt)"
import json, sys
import jsonschema
d = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator(json.load(open(sys.argv[2]))).validate(d)
assert d["schema"] == "revperf-history/3", d["schema"]
c = {x["summary"]: x for x in d["commits"]}
s = [x for x in d["series"] if x["metric"] == "v"][0]
assert s["ci_level"] == 0.99, s
assert [(p["commits_before"], p["commits_after"]) for p in s["change_points"]] == [(6, 6)], s
cps = s["change_points"]
assert [p["sha"] for p in cps] == [c["c7"]["sha"]], cps
p = cps[0]
lo, hi = p["rel_change_ci"]
assert abs(p["rel_change"] - (1100.5 - 1000.5) / 1000.5) < 1e-9, p  # 10 digits
assert lo <= p["rel_change"] <= hi, p
assert 0 < lo < 0.10 < hi, p
assert 1097 / 1003 - 1 - 1e-9 <= lo and hi <= 1104 / 997 - 1 + 1e-9, p
open("expect.txt", "w").write("(%+.1f%%, 99.00%% CI %+.1f%% to %+.1f%%), p = "
                              % (100 * p["rel_change"], 100 * lo, 100 * hi))
PY
want=$(cat expect.txt)
expect_exit 0 "$REVPERF" history base..HEAD -q
grep -qF "  v v: at $(git rev-parse --short=12 HEAD~5) (c7): median 1000.5 -> 1100.5 $want" out.txt ||
	fail "the text's interval is not the JSON's ($want): $(cat out.txt)"
expect_no_grep 'includes 0' out.txt
expect_exit 0 "$REVPERF" history base..HEAD -q -f markdown
grep -qF "$want" out.txt || fail "Markdown without the interval: $(cat out.txt)"

# The site: the chart's tooltip and the table of change points. (The site's series also
# has the base commit, measured as c1's baseline: 7 commits before the step, +10.05%.)
expect_exit 0 "$REVPERF" report --out site -q
expect_grep '<title>change point at [0-9a-f]{12}: 1000 -&gt; 1100 \(\+10\.1%, 99\.00% CI \+9\.[0-9]% to \+10\.[0-9]%; p = ' site/index.html
expect_grep '<td class="num up">\+10\.1%, 99\.00% CI \+9\.[0-9]% to \+10\.[0-9]%</td>' site/index.html
expect_no_grep 'includes 0' site/index.html

# Another confidence: the verdicts' alpha sets the interval's too, narrower at 95%.
expect_exit 0 "$REVPERF" history base..HEAD -q -a 0.05 -f json
python3 - out.txt <<'PY' || fail "alpha 0.05: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for x in d["series"] if x["metric"] == "v"][0]
assert s["ci_level"] == 0.95, s
lo, hi = s["change_points"][0]["rel_change_ci"]
assert 0 < lo < 0.10 < hi, s
PY
expect_exit 0 "$REVPERF" history base..HEAD -q -a 0.05
expect_grep '^  v v: at [0-9a-f]{12} \(c7\): median 1000\.5 -> 1100\.5 \(\+10\.0%, 95\.00% CI \+[0-9.]+% to \+[0-9.]+%\), p = ' out.txt
echo ok
