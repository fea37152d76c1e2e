# The alpha of a comparison is spent once, whatever continues it (METHODS.md section 2,
# steps 4 and 8; docs/statistics.md, "Past the planned maximum"):
# 1. the planned looks leave the extension share even without a time budget, since --more
#    (or a time budget given later) may continue past max runs: before, a comparison
#    without one spent all of alpha on its planned looks, and --more spent up to a quarter
#    of alpha more on its extensions;
# 2. every extension look takes the alpha of the extension whose sample size it reaches
#    (the chain max, max + 25%, ...), so that a comparison that continues stored runs
#    (--more, resumed) finds the last alpha spent from their number: before, --more looked
#    at 25% past the stored runs and at its budget's end, which the next --more mapped to
#    an earlier extension and spent its alpha again (ext 7 twice: at 24 and at 30 runs);
# 3. a replay shows the alpha the looks had: before, a comparison continued by --more
#    within max runs was shown at alpha / looks, measured at 0.75 alpha / looks.
. "$SRCDIR/tests/cli/lib/common.bash"

# v alternates around a ratio of 1: undecided at these run counts (make_alternating_repo).
make_alternating_repo repo

field() { json_get "$1" "d['benchmarks'][0]$2"; }

expect_exit 0 "$REVPERF" compare a b -q -f json -a 0.2
cp out.txt c0.json
[ "$(field c0.json "['metrics'][0]['verdict']")" = undecided ] || fail "alt: not undecided"
python3 - c0.json <<'PY' || fail "the planned looks spent the extension share: $(field c0.json "['ci_level']")"
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
# runs 3..6: looks at 3, 4, 5, 6; at most (1 - 0.25) x 0.2 / 4 each
assert 1 - b["ci_level"] <= 0.75 * 0.2 / 4 + 1e-12, b["ci_level"]
PY

prev=0
for i in 1 2 3 4 5; do
	expect_exit 0 "$REVPERF" compare a b -q -f json -a 0.2 --more
	cp out.txt m$i.json
	ext=$(field m$i.json "['extended_looks']")
	[ "$ext" -gt "$prev" ] ||
		fail "--more $i: extension $ext after $prev (an alpha spent twice): $(field m$i.json "['runs']")"
	prev=$ext
	# Shown again: the alpha of the last look.
	expect_exit 0 "$REVPERF" show a b -f json
	[ "$(field out.txt "['ci_level']")" = "$(field m$i.json "['ci_level']")" ] ||
		fail "--more $i: shown at $(field out.txt "['ci_level']"), measured at $(field m$i.json "['ci_level']")"
done

# A decided benchmark continued by --more within max runs is shown at the alpha it had.
cd ..
make_tiny_repo const
cd const
v_ini c "sh ./c.sh" "runs = 3..4"
echo 'echo "v $(cat v)"' >c.sh
echo 1000 >v
git add . && git commit -qm c && git tag c0
echo 1100 >v
git commit -qam slower && git tag c1
expect_exit 1 "$REVPERF" compare c0 c1 -q -f json
expect_exit 1 "$REVPERF" compare c0 c1 -q -f json --more
cp out.txt more.json
[ "$(field more.json "['runs']['baseline']['ok']")" = 4 ] || fail "--more: $(field more.json "['runs']")"
expect_exit 0 "$REVPERF" show c0 c1 -f json
[ "$(field out.txt "['ci_level']")" = "$(field more.json "['ci_level']")" ] ||
	fail "shown at $(field out.txt "['ci_level']"), measured at $(field more.json "['ci_level']")"
echo ok
