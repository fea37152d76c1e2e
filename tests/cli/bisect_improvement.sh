# bisect --better finds the commit that made a benchmark better (a speed-up), as git
# bisect's old/new terms do: BAD must be better than GOOD; each step compares GOOD with a
# commit, `better` moves the upper end, equal (or worse, or undecided) the lower end. The
# benchmark is a real program built in each commit and decided on ir, valgrind's exact
# instruction count, which a busy machine cannot change: the improvement halves the loop.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
loop_from_file spin.c
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -o spin spin.c
[benchmark "spin"]
command = ./spin n.txt
metrics = ir
primary = ir
INI
echo 400000 >n.txt
git add -A && git commit -qm base && git tag base
commit() { echo "$1" >>notes.txt && git add -A && git commit -qm "$1"; }
commit n1 && commit n2 && commit n3
echo 200000 >n.txt && commit "half the loop" && git tag faster
commit n4 && commit n5

# Without --better: nothing to bisect, and the command that bisects the improvement.
base=$(git rev-parse --short=12 base) head=$(git rev-parse --short=12 HEAD)
expect_exit 1 "$REVPERF" bisect base HEAD -b spin -q
expect_grep '^BAD is not worse than GOOD on spin ir \(better\): nothing to bisect$' out.txt
expect_grep "'revperf bisect --better $base $head -b spin' finds the first" out.txt

# --better: the commit that halved the loop, with its evidence.
expect_exit 0 "$REVPERF" bisect --better base HEAD -b spin -q
expect_grep "^bisect spin ir from $base to $head: 6 commits on the first-parent path; looking for the first commit better than GOOD$" out.txt
expect_grep "^  GOOD against BAD +$head  better +x0\\.5[0-9]{2} " out.txt
expect_grep "^improvement: $(git rev-parse faster) half the loop$" out.txt
expect_grep '^evidence: against GOOD better, its parent [0-9a-f]{12} against GOOD equal \(steps above\); against its parent:$' out.txt
expect_grep "^  improvement vs parent +$(git rev-parse --short=12 faster)  better +x0\\.5[0-9]{2} .*half the loop$" out.txt
expect_no_grep 'culprit' out.txt

# JSON: what it looked for, the outcome, the commit found; stored runs are reused.
runs=$(db_query .revperf/revperf.db 'select count(*) from runs')
expect_exit 0 "$REVPERF" bisect --better base HEAD -b spin -f json -q
python3 - out.txt "$(git rev-parse faster)" <<'PY' || fail "json: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "revperf-bisect/2" and d["looking_for"] == "better", d
assert d["outcome"] == "found" and d["culprit"]["sha"] == sys.argv[2], d
assert d["good_against_bad"]["verdict"] == "better" and d["culprit_against_parent"]["verdict"] == "better", d
assert all(s["verdict"] in ("better", "equal") for s in d["steps"]), d["steps"]
PY
[ "$(db_query .revperf/revperf.db 'select count(*) from runs')" = "$runs" ] ||
	fail "a second bisect --better ran the benchmark again"

# --better on a regression: not better, and the command that bisects it.
git tag -d faster >/dev/null
echo 800000 >n.txt && commit "twice the loop"
expect_exit 1 "$REVPERF" bisect --better HEAD~1 HEAD -b spin -f json -q
[ "$(json_get out.txt "(d['outcome'], d['looking_for'], d['good_against_bad']['verdict'])")" = \
	"('not-better', 'better', 'worse')" ] || fail "not better: $(cat out.txt)"
expect_exit 1 "$REVPERF" bisect --better HEAD~1 HEAD -b spin -q
expect_grep '^BAD is not better than GOOD on spin ir \(worse\): nothing to bisect$' out.txt
expect_grep "^which commit made it worse: 'revperf bisect [0-9a-f]{12} [0-9a-f]{12} -b spin' \(without --better\)$" out.txt
echo ok
