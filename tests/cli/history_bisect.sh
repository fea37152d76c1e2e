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
# more-writes (which costs far more CPU still). The regression is the example's own, about
# 10% of CPU time against a 2% tolerance, so load can leave a step undecided; bisect then
# compares again with 2x and 4x the runs. Measured with both cores kept busy (load 15, 3
# bisects): cpu-regression found each time, its step against GOOD decided worse after 5-15
# runs (lower ends 1.03-1.06, ratios 1.10-1.17); neutral stayed undecided up to 32 + 32
# runs (ratio 0.99-1.01, never worse) and counted as good.
cd "$TEST_TMP"
"$SRCDIR/examples/make-history.sh" kv >/dev/null || fail "make-history.sh"
cd kv
expect_exit 0 "$REVPERF" bisect baseline more-writes --bench ingest-query --metric cpu \
	--runs 5..8 -w 0 -f json -q
[ "$(json_get out.txt "d['culprit']['sha']")" = "$(git rev-parse cpu-regression)" ] ||
	fail "example bisect: $(cat out.txt)"
