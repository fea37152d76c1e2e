# --cmd-a/--cmd-b: two commands compared without git, in all three formats.
. "$SRCDIR/tests/cli/lib/common.bash"

# A 10x slower target is worse (exit 1) on wall time, decided within the budget. Load
# cannot shorten a sleep, but it delays the wake-up: at load 21 on the 2 cores, `sleep
# 0.01` took 54-139 ms on average over 10 runs and `sleep 0.05` 132-158 ms, and 6 of 6
# runs of this test ended undecided (exit 0). 0.5 s of sleep is beyond those delays.
expect_exit 1 "$REVPERF" compare --cmd-a 'sleep 0.05' --cmd-b 'sleep 0.5' --runs 3..10 \
	--seed 7 -f json
json_get out.txt "d['benchmarks'][0]['metrics'][0]['name']" | grep -qx wall || fail "wall first"
[ "$(json_get out.txt "d['benchmarks'][0]['metrics'][0]['verdict']")" = worse ] ||
	fail "slower target not worse"
[ "$(json_get out.txt "d['exit_code']")" = 1 ] || fail "json exit_code"
[ "$(json_get out.txt "d['seed']")" = 7 ] || fail "seed not recorded"
python3 - out.txt <<'PY' || fail "json invariants"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["benchmarks"][0]["metrics"][0]
lo, hi = m["ci"]
assert lo <= m["ratio"] <= hi, m
assert lo > 1.02, m                      # worse means the whole CI is beyond the tolerance
assert m["baseline"]["n"] >= 3 and m["target"]["n"] >= 3
assert 0 <= m["p_welch"] <= 1 and 0 <= m["q_bh"] <= 1 and 0 <= m["p"] <= 1
assert m["method"] == "paired-t" and m["pairs"] >= 3, m   # interleaved pairs analysed as pairs
assert d["machine"]["cores"] >= 1
PY

# The same command on both sides, timed; text output shows the table. A timed A/A may be
# decided worse or better at rate alpha by design (METHODS.md section 2, step 4), so at the
# default 0.01 this check would fail one run in a hundred by chance (in CI, another test's
# timed A/A of 3 + 3 runs was once decided worse on wall, +41%). At 0.001 it still fails
# on a bias between the sides that 8 pairs can show. The other A/A comparisons of the
# suite decide on a deterministic metric (wchar, ir, a reported number).
expect_exit 0 "$REVPERF" compare --cmd-a 'sleep 0.02' --cmd-b 'sleep 0.02' --runs 3..8 -q --alpha 0.001
expect_grep '^  wall \* ' out.txt
expect_no_grep '^  [a-z-]+( \*)? +(worse|better) ' out.txt

# Markdown for a pull-request comment (decided on wchar, 0 bytes on both sides: the same
# command's wall time, 3 + 3 runs of 1-10 ms, is an A/A that a loaded machine can tip).
expect_exit 0 "$REVPERF" compare --cmd-a 'true' --cmd-b 'true' --runs 3..3 -f markdown \
	--metrics wall,maxrss,wchar --primary wchar
expect_grep '^\| benchmark \| metric \| verdict' out.txt
expect_grep '^\| command \| maxrss \|' out.txt

# A bad format is a usage error.
expect_exit 2 "$REVPERF" compare --cmd-a true --cmd-b true -f xml
expect_one_line err.txt
# Runs are stored in .revperf/ of the current directory.
[ -f .revperf/revperf.db ] || fail "no database"
echo ok
