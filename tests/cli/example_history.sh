# End to end on the example project's history (what `make demo` shows): a commit that
# writes far more is worse; the CPU regression and the neutral commit are never judged in
# the wrong direction (on a noisy machine either may stay undecided; that is honest).
. "$SRCDIR/tests/cli/lib/common.bash"

"$SRCDIR/examples/make-history.sh" "$TEST_TMP/kv" >/dev/null || fail "make-history.sh"
cd "$TEST_TMP/kv"
[ "$(git tag | sort | tr '\n' ' ')" = "baseline cpu-regression more-writes neutral " ] ||
	fail "unexpected tags: $(git tag)"

# (cpu is primary too: fsync-bound wall time is noisy on a loaded machine, CPU time is not)
expect_exit 1 "$REVPERF" compare baseline more-writes --runs 3..8 --primary wall,cpu -q -f json
python3 - out.txt <<'PY' || fail "more-writes"
import json, sys
d = json.load(open(sys.argv[1]))
m = {m["name"]: m for m in d["benchmarks"][0]["metrics"]}
assert m["cpu"]["verdict"] == "worse", m["cpu"]      # one write + fsync per record
assert m["wall"]["verdict"] in ("worse", "undecided"), m["wall"]
assert m["wchar"]["verdict"] == "equal", m["wchar"]  # same bytes, many more calls
PY

status=0
"$REVPERF" compare baseline cpu-regression --runs 5..12 -q -f json >out.txt 2>err.txt || status=$?
[ $status -le 1 ] || { cat err.txt; fail "cpu-regression: exit $status"; }
python3 - out.txt <<'PY' || fail "cpu-regression judged in the wrong direction"
import json, sys
d = json.load(open(sys.argv[1]))
m = {m["name"]: m for m in d["benchmarks"][0]["metrics"]}
for name in ("wall", "cpu"):
    assert m[name]["verdict"] in ("worse", "undecided"), m[name]
    assert m[name]["ci"][1] > 1.0, m[name]       # the interval must admit a slowdown
PY

status=0
"$REVPERF" compare baseline neutral --runs 5..12 -q -f json >out.txt 2>err.txt || status=$?
[ $status -eq 0 ] || { cat out.txt err.txt; fail "neutral commit judged a regression"; }
python3 - out.txt <<'PY' || fail "neutral"
import json, sys
d = json.load(open(sys.argv[1]))
m = {m["name"]: m for m in d["benchmarks"][0]["metrics"]}
assert m["wall"]["verdict"] in ("equal", "undecided"), m["wall"]
PY
echo ok
