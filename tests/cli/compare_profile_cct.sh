# compare with profile = cct: profiled runs of instrumented builds apart from the timing
# runs, and the attribution under the verdict (docs/cct-diff.md). The project is
# tests/workloads/cct_versions.c: version 2 makes slow_me slower, adds helper_new (called by
# caller_x) and has mod_fn call existing_fn.
# The verdict: version 2 does 3.7 times the work (slow_me x8) and its CPU time is stable
# under load (log sd 0.06-0.09 with both cores kept busy), but with 2..3 runs the 99%
# interval of 3 pairs (t = 9.9) reached down to 1.27, and a single slow run made it
# undecided: exit 0 where 1 was expected. With 5 runs (t = 4.6) the lower end was 3.2-3.65
# in 8 comparisons with both cores busy, far above the 20% tolerance. (Not on ir: the
# profiles need long runs, below, and 5000 rounds take minutes under callgrind.)
# The attribution: the weights of a CCT are times, and the clock runs on while the program
# waits for a core (tests/cli/cct_diff_versions.sh). With 1000 rounds (runs of 15 and
# 58 ms) slow_me was not the first weight difference in 2 of 10 runs of this test at load
# 9-12; with 5000 rounds (75 and 290 ms) it was first in 10 of 10 at load 14-22.
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/cli/lib/compare_profile.bash"

make_versions_repo cct_versions.c <<'INI'
[build]
command = cc -O2 -o prog prog.c
profile-command = cc -O2 -g -finstrument-functions -o prog prog.c
[benchmark "versions"]
command = ./prog 5000
primary = cpu
runs = 5..10
warmup = 0
profile = cct
profile-runs = 3
INI

# The function made slower comes first in the weight differences.
compare_attribution_json
[ "$(json_get compare.json "$a['binary_diff']")" = True ] || fail "no binary diff"
[ "$(json_get compare.json "$a['runs']['target']")" = 3 ] || fail "expected 3 profiled runs"
# Stage 1: helper_new appeared, attributed to its caller caller_x.
[ "$(json_get compare.json "[t['caller'][-1] for t in $a['topological'] if t['stage'] == 1 and t['in'] == 'new' and t['path'][-1] == 'helper_new']")" = "['caller_x']" ] ||
	fail "helper_new is not a stage 1 difference under caller_x"
# Stage 2: mod_fn calls existing_fn now, mod_fn first in the attribution list.
[ "$(json_get compare.json "[t['attribution'][0] for t in $a['topological'] if t['stage'] == 2 and t['path'][-2:] == ['mod_fn', 'existing_fn']]")" = "['mod_fn']" ] ||
	fail "mod_fn;existing_fn is not a stage 2 difference attributed to mod_fn"
# The absolute change beside PARCS's percentages (docs/attribution.md): time per run in ns
# with its clock, calls known, slow_me first among the functions and the call paths, with
# most of the change (its work grows by 140000 of the 150000 added per round; the waits of
# a loaded machine land on whichever function runs, mostly slow_me in version 2).
expect_absolute_json elapsed True <<'PY'
assert f["baseline_calls"] == 5000 and f["target_calls"] == 5000, f
assert f["class"] in ("finding", "noise") and f["change_interval"][0] < f["change"], f
assert a["paths"][0]["path"] == "main;slow_me", a["paths"]
new = [x for x in a["functions"] if x["function"] == "helper_new"]
assert new and new[0]["baseline"] == 0 and new[0]["baseline_calls"] == 0, a["functions"]
assert new[0]["target_calls"] == 5000, new
PY
svg=$(json_get compare.json "$a['flame_graph']")
[ -s "$svg" ] || fail "no flame graph at $svg"
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$svg" ||
	fail "the flame graph is not well-formed XML"

# The profiled runs became the predictor's dynamic data of both (normal) builds: calls and
# self time per function; helper_new only at v2.
q() { db_query .revperf/revperf.db "$1"; }
[ "$(q "select count(*) from dynamic_profiles where source = 'cct' and cost = 'self_ns'
	and build_id in (select b.id from builds b where b.variant = '')")" = 2 ] ||
	fail "no cct dynamic data for both builds: $(q 'select * from dynamic_profiles')"
[ "$(q "select count(*) from dynamic_functions f join dynamic_profiles p on p.id =
	f.profile_id where f.name = 'helper_new' and f.calls > 0")" = 1 ] ||
	fail "helper_new is not in the dynamic data of v2 alone"

# The timing runs used the plain build, the profiled runs the instrumented one.
for w in .revperf/worktrees/*/; do
	w=${w%/}
	case "$w" in
	*-cct) nm "$w/prog" | grep -q __cyg_profile_func_enter || fail "$w/prog is not instrumented" ;;
	*) ! nm "$w/prog" | grep -q __cyg_profile_func_enter || fail "$w/prog is instrumented" ;;
	esac
done
[ "$(ls -d .revperf/worktrees/*-cct | wc -l)" = 2 ] || fail "expected two instrumented worktrees"

# Text: the attribution section under the verdict.
expect_exit 1 "$REVPERF" compare -q --tolerance 20% v1 v2
expect_grep '^  attribution \(calling context trees, 3 \+ 3 profiled runs, 3 \+ 3 reused\)' out.txt
expect_grep '\+ added/deleted .*helper_new  \(called by caller_x\)' out.txt
expect_grep 'differential flame graph: ' out.txt
# The absolute change first: what the time is, runs, values in ms with their sd, slow_me
# first with its share and calls per run.
expect_absolute_text 'elapsed time in calls \(the CCT runtime.s clock: waiting included\), summed over threads' \
	'  \(calls 5000 -> 5000\)'

# Markdown: the absolute change as tables, the PARCS text in its fenced block.
expect_absolute_markdown 'elapsed time in calls .*' '\| calls per run \|'

# The site's page of v2: the absolute change the comparison left beside its flame graph,
# read back and escaped; slow_me the first function.
expect_site_absolute
ls "$(store_profiles .revperf)"/*/versions/attribution.json >/dev/null 2>&1 ||
	fail "no attribution.json beside the flame graph"

# The stored profiles, differenced again by revperf diff --bench (merged runs per side).
expect_diff_bench unit ns
[ "$(json_get out.txt "[t['stage'] for t in d['topological'] if t['path'][-1] == 'helper_new']")" = "[1]" ] ||
	fail "diff --bench: helper_new is not stage 1"
expect_exit 2 "$REVPERF" diff --bench nosuch v1 v2
expect_grep "no stored profile of benchmark 'nosuch'" err.txt

# Without profile-command, profile = cct is a configuration error naming what to add.
sed -i '/^profile-command/d' revperf.ini
git commit -qam "no profile build"
expect_exit 2 "$REVPERF" compare -q v1 HEAD
expect_grep "profile-command" err.txt
expect_one_line err.txt
