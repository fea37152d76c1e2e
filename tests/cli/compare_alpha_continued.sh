# Runs already looked at never get a new alpha. A comparison that ends undecided past its
# runs maximum (a time budget, alpha spending: METHODS.md section 2, steps 4 and 8) is
# shown again at the alpha of its last look, and --more continues its spending from there:
# before, --more started a new plan whose first look re-judged every stored run at the
# planned alpha (a new chance of a false verdict each time), and so did running a
# comparison again when it had counted metrics or profiles. The benchmark reports 1000 and
# 1100 in turn, side B in the other phase: the paired log ratios alternate around 0, so it
# is undecided at any length reached here, and the same in every run of the test (a number
# drawn at random, as before, made the A/A comparison `better` at rate alpha: 1 in 5 runs
# of this test once). It sleeps 50 ms, so that 3 s leave the alpha spending short of its
# last extension. Each side counts its runs in its own worktree.
. "$SRCDIR/tests/cli/lib/common.bash"

ALT_SLEEP=0.05 make_alternating_repo repo "runs = 3..4" "time-budget = 3s"

level() { json_get "$1" "d['benchmarks'][0]['ci_level']"; }
ext() { json_get "$1" "d['benchmarks'][0]['extended_looks']"; }
verdict() { json_get "$1" "[m['verdict'] for m in d['benchmarks'][0]['metrics'] if m['name'] == 'v'][0]"; }
pairs() { json_get "$1" "d['benchmarks'][0]['runs']['baseline']['ok']"; }

expect_exit 0 "$REVPERF" compare a b -q -f json
cp out.txt first.json
[ "$(verdict first.json)" = undecided ] || fail "alt: $(verdict first.json)"
[ "$(ext first.json)" -ge 1 ] || fail "no look past the runs maximum: $(ext first.json)"

# Shown again: the same looks, the same alpha.
expect_exit 0 "$REVPERF" compare a b -q -f json
[ "$(level out.txt)" = "$(level first.json)" ] || fail "replay at $(level out.txt), measured at $(level first.json)"

# --more: more runs, and its looks spend less alpha than the last one taken.
expect_exit 0 "$REVPERF" compare a b -q -f json --more
cp out.txt more.json
[ "$(pairs more.json)" -gt "$(pairs first.json)" ] || fail "--more ran nothing"
python3 - first.json more.json <<'PY' || fail "--more took a new alpha: $(for f in first.json more.json; do json_get $f "d['benchmarks'][0]['runs'], d['benchmarks'][0]['looks'], d['benchmarks'][0]['extended_looks'], d['benchmarks'][0]['ci_level'], d['benchmarks'][0]['elapsed_s']"; done)"
import json, sys
first, more = (json.load(open(p))["benchmarks"][0] for p in sys.argv[1:])
assert more["extended_looks"] > first["extended_looks"] or first["extended_looks"] == 20, (first["extended_looks"], more["extended_looks"])
assert more["ci_level"] > first["ci_level"], (first["ci_level"], more["ci_level"])
PY
echo ok
