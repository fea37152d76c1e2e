# revperf history and bisect on a generated history: a benchmark that sleeps 50 ms, a commit
# that doubles it, a commit that does not build and its fix among neutral commits.
# history: statuses, verdicts, the change point, reuse, resume after SIGINT, bad input.
# bisect: the culprit and its evidence (skipping the commit that does not build), and on
# the example project's history the CPU regression among its four commits.
#
# The benchmark reports its work (`work 50`, a metric it prints, like an instruction count)
# and that metric is primary: every run of a commit gives the same value, so the verdicts
# (worse at `slow`, equal elsewhere) do not depend on the machine's load. Wall time, primary
# before, is still measured; on a busy machine a 50 ms nap took 50-150 ms and the neutral
# commits ended undecided at the most runs, so that no comparison was decided and none was
# reused (a clean-clone `make test` failed on the missing `reused` row).
. "$SRCDIR/tests/cli/lib/common.bash"

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
cat >revperf.ini <<'INI'
[build]
command = sh build.sh
[benchmark "nap"]
command = sh work.sh
metrics = wall, cpu
metric.work = /^work ([0-9]+)$/ unit=ms
primary = work
runs = 3..6
tolerance = 10%
warmup = 0
INI
printf 'test ! -e broken\n' >build.sh
printf 'sleep 0.05\necho work 50\n' >work.sh
git add . && git commit -qm base && git tag base
commit() { echo "$1" >>notes.txt && git add -A && git commit -qm "$1" && git tag "$1"; }
commit n1 && commit n2 && commit n3
printf 'sleep 0.10\necho work 100\n' >work.sh && commit slow
touch broken && commit broken
rm broken && commit fix
commit n4 && commit n5 && commit n6

expect_exit 0 "$REVPERF" history base..HEAD -f json -q
python3 - out.txt <<'PY' || fail "history: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["summary"]: x for x in d["commits"]}
assert [x["summary"] for x in d["commits"]] == \
    "n1 n2 n3 slow broken fix n4 n5 n6".split(), d["commits"]
assert all(x["status"] == "compared" for s, x in c.items() if s != "broken"), c
assert c["broken"]["status"] == "build-failed", c["broken"]
assert c["fix"]["against"] == c["slow"]["sha"], "fix must be compared with slow"
work = lambda s: [v for v in c[s]["verdicts"] if v["metric"] == "work"][0]
assert work("slow")["verdict"] == "worse" and work("slow")["ratio"] == 2, work("slow")
for s in "n1 n2 n3 fix n4 n5 n6".split():
    assert work(s)["verdict"] == "equal" and work(s)["ratio"] == 1, (s, work(s))
series = {(x["benchmark"], x["metric"]): x for x in d["series"]}
assert ("nap", "wall") in series and ("nap", "cpu") in series, list(series)
cps = series[("nap", "work")]["change_points"]
assert [p["sha"] for p in cps] == [c["slow"]["sha"]], cps
assert cps[0]["rel_change"] == 1, cps
PY

# Run again: every comparison is reused, nothing is measured.
runs=$(db_query .revperf/revperf.db 'select count(*) from runs')
expect_exit 0 "$REVPERF" history base..HEAD
expect_grep '^[0-9a-f]{12}  reused .*slow$' out.txt
expect_grep '^[0-9a-f]{12}  build-failed .*broken$' out.txt
expect_grep 'nap work: at [0-9a-f]{12} \(slow\): median' out.txt
[ "$(db_query .revperf/revperf.db 'select count(*) from runs')" = "$runs" ] ||
	fail "a second history ran benchmarks again"

# Interrupted, then resumed: the commits done before the interruption are reused.
store_wipe .revperf
"$REVPERF" history -n 4 -f json >out.txt 2>err.txt &
pid=$!
for _ in $(seq 300); do grep -q '\[1/4\]' err.txt 2>/dev/null && break; sleep 0.1; done
kill -INT $pid
status=0
wait $pid || status=$?
[ $status = 130 ] || { cat err.txt; fail "interrupted history: exit $status"; }
[ "$(json_get out.txt "d['interrupted']")" = True ] || fail "not marked interrupted"
[ "$(json_get out.txt "d['commits'][3]['status']")" = pending ] || fail "$(cat out.txt)"
# fix (the first of the four) was measured before the interruption: as a target, it
# gets no new run when the history resumes (its comparison is reused, or, when it
# ended undecided at the most runs, evaluated again from the stored runs).
fix_runs() {
	db_query .revperf/revperf.db "select count(*) from runs r join builds b on
		b.id = r.build_id join revisions v on v.id = b.revision_id where r.side = 'B'
		and v.sha = '$(git rev-parse fix)'"
}
before=$(fix_runs)
[ "$before" -ge 3 ] || fail "fix was not measured before the interruption"
expect_exit 0 "$REVPERF" history -n 4 -f json -q
[ "$(fix_runs)" = "$before" ] || fail "fix measured again after the interruption"
[ "$(json_get out.txt "d['commits'][0]['against']")" = "$(git rev-parse slow)" ] ||
	fail "fix must be compared with slow, its parent does not build: $(cat out.txt)"
[ "$(json_get out.txt "[c['status'] for c in d['commits']].count('pending')")" = 0 ] ||
	fail "resume: $(cat out.txt)"

# Markdown: every comparison was decided, all four are reused.
expect_exit 0 "$REVPERF" history -n 4 -f markdown -q
[ "$(grep -cE '^\| `[0-9a-f]{12}` \| reused \|' out.txt)" = 4 ] || { cat out.txt; fail "markdown: not 4 reused rows"; }

# Bad input: an empty range, an unknown revision, a bad -n.
expect_exit 2 "$REVPERF" history HEAD..HEAD
expect_grep "range 'HEAD..HEAD' has no commits" err.txt
expect_one_line err.txt
expect_exit 2 "$REVPERF" history nosuch..HEAD
expect_grep "unknown revision 'nosuch'" err.txt
expect_exit 2 "$REVPERF" history -n 0
expect_grep 'n expects a whole number' err.txt

# bisect: base is good, n6 is bad; `broken` lies on the bad side and is skipped.
expect_exit 0 "$REVPERF" bisect base n6 --bench nap -f json -q
python3 - out.txt "$(git rev-parse slow)" "$(git rev-parse n3)" <<'PY' || fail "bisect: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == "found", d
assert d["culprit"]["sha"] == sys.argv[2], d["culprit"]
assert d["good_against_bad"]["verdict"] == "worse", d
assert d["culprit_against_parent"]["verdict"] == "worse", d
assert d["culprit_against_parent"]["ratio"] == 2, d
assert all(s["verdict"] in ("worse", "equal", "build-failed") for s in d["steps"]), d["steps"]
assert any(s["sha"] == sys.argv[3] and s["verdict"] == "equal"
           for s in d["steps"]) or d["path_length"] < 3, d["steps"]
PY
expect_exit 0 "$REVPERF" bisect base n6 --bench nap
expect_grep '^culprit: [0-9a-f]{40} slow$' out.txt
expect_grep 'culprit against parent +[0-9a-f]{12}  worse' out.txt
# Each step is printed once, as it is decided (on stdout, the report; nothing repeats it
# on stderr), and the evidence names the steps above instead of printing them again.
cat out.txt err.txt >both.txt
steps=$(grep -oE '^  GOOD against( BAD)? +[0-9a-f]{12}' out.txt | awk '{print $NF}')
[ -n "$steps" ] || fail "no step in: $(cat out.txt)"
for c in $steps; do
	[ "$(grep -c "GOOD against.*$c" both.txt)" = 1 ] || fail "step $c printed more than once: $(cat both.txt)"
done
expect_grep "^evidence: against GOOD worse, its parent $(git rev-parse --short=12 n3) against GOOD equal \(steps above\); against its parent:$" out.txt
expect_no_grep 'culprit against GOOD|parent against GOOD' out.txt
# With -f json the steps are the progress on stderr, once each; stdout is the document.
expect_exit 0 "$REVPERF" bisect base n6 --bench nap -f json
for c in $steps; do
	[ "$(grep -c "GOOD against.*$c" err.txt)" = 1 ] || fail "-f json: step $c not once on stderr: $(cat err.txt)"
done
json_get out.txt "d['outcome']" >/dev/null || fail "-f json: stdout is not the document"
# Nothing to bisect: n6 is not worse than slow.
expect_exit 1 "$REVPERF" bisect slow n6 --bench nap
expect_grep 'BAD is not worse than GOOD' out.txt
# Bad input.
expect_exit 2 "$REVPERF" bisect n6 base --bench nap
expect_grep 'is not an ancestor of base along first parents' err.txt
expect_exit 2 "$REVPERF" bisect base n6
expect_grep 'expected --bench NAME' err.txt
expect_exit 2 "$REVPERF" bisect base n6 --bench nosuch
expect_grep "nosuch" err.txt

# The example project: the CPU regression among baseline, neutral, cpu-regression and
# more-writes (which costs far more CPU still), decided on instructions (ir, counted under
# callgrind), so that each step's verdict is exact whatever the machine's load: a lighter
# run of the example (26 M instructions) in the working tree's revperf.ini; kv_hash's extra
# multiply costs it 1.5% more instructions, neutral none. On CPU time (the example's
# ingest-query, a 10% regression against a 2% tolerance) a step could stay undecided under
# load and bisect compared again with 2x and 4x the runs; with both cores kept busy (load
# 15) neutral stayed undecided up to 32 + 32 runs.
cd "$TEST_TMP"
"$SRCDIR/examples/make-history.sh" kv >/dev/null || fail "make-history.sh"
cd kv
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"
cat >>revperf.ini <<'INI'
[benchmark "light"]
command = ./build/kvstore --records 1024 --queries 50000 --log data/kv.log
metrics = cpu, ir
runs = 2..2
warmup = 0
INI
expect_exit 0 "$REVPERF" bisect baseline more-writes --bench light --metric ir -f json -q
python3 - out.txt "$(git rev-parse cpu-regression)" "$(git rev-parse neutral)" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == "found" and d["culprit"]["sha"] == sys.argv[2], d
e = d["culprit_against_parent"]
assert e["verdict"] == "worse" and e["ci"][0] == e["ci"][1] == e["ratio"] > 1.001, e
assert all(s["verdict"] in ("worse", "equal") for s in d["steps"]), d["steps"]
assert [s["verdict"] for s in d["steps"] if s["sha"] == sys.argv[3]] in ([], ["equal"]), d
PY
	fail "example bisect: $(cat out.txt)"
