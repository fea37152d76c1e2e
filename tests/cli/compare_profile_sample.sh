# compare with profile = sample: sampled runs of the timing builds themselves after the
# timing runs, and the attribution of their on-CPU time under the verdict
# (docs/sampling.md). The project is tests/workloads/sample_work.c built at -O2 without
# frame pointers (DWARF unwinding); version 2 makes slow_me 30 times slower: 1.7 times the
# program's CPU time, a verdict on CPU time that load cannot hide (tolerance 20%), and
# slow_me's share of the samples goes from about 2% to 40%, far beyond the run-to-run
# spread of 3 runs of about 150 samples each. Up to 30 runs a side: on a loaded CI runner 10
# a side once left the CPU verdict undecided.
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/cli/lib/compare_profile.bash"

cc -O2 -o deny "$SRCDIR/tests/workloads/seccomp_deny_perf.c" || fail "cannot build the seccomp helper"
DENY=$PWD/deny
if ! "$REVPERF" profile --sample -- true >probe.txt 2>&1; then
	grep -q "cannot sample here" probe.txt && { cat probe.txt; echo "skip: perf_event_open refused on this machine"; exit 77; }
	cat probe.txt
	fail "profile --sample -- true failed"
fi

make_versions_repo sample_work.c <<'INI'
[build]
command = cc -O2 -g -pthread -o prog prog.c
[benchmark "versions"]
command = ./prog plain 25
primary = cpu
runs = 5..30
warmup = 0
profile = sample
profile-runs = 3
INI

# The function made slower comes first.
compare_attribution_json
[ "$(json_get compare.json "$a['kind']")" = sample ] || fail "not a sampled attribution"
[ "$(json_get compare.json "$a['runs']['baseline'], $a['runs']['target']")" = "3 3" ] ||
	fail "expected 3 sampled runs per side"
[ "$(json_get compare.json "$a['call_graph']['target']")" = dwarf ] || fail "expected the dwarf call graph"
[ "$(json_get compare.json "$a['weight_differences'][0]['path'][-3:]")" = "['main', 'run_light', 'slow_me']" ] ||
	fail "slow_me's callers are wrong: $(json_get compare.json "$a['weight_differences'][0]['path']")"
# Sampled trees count no calls: none is shown.
[ "$(json_get compare.json "$a['weight_differences'][0]['new']['calls']")" = None ] ||
	fail "a sampled tree shows call counts"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["benchmarks"][0]["attribution"]; o=d["on_cpu_ns_per_run"]; assert o["target"] > 1.3 * o["baseline"] > 0, o' compare.json ||
	fail "the on-CPU time per run does not show the change"
# The absolute change as for profile = cct (docs/attribution.md): on-CPU time per run in ns,
# three runs a side with their spread, no calls (null, not 0), slow_me first among the
# functions and the call paths with most of the change (its added work is nearly all of
# it; the other functions move by the runs' noise). A sampled
# per-run time is a whole number of sample periods, so both sides can be constant and the
# interval a point (seen under ASan: 3 ms and 112 ms in every run).
expect_absolute_json on-cpu False <<'PY'
assert f["baseline_calls"] is None and f["target_calls"] is None, f
assert f["class"] in ("finding", "noise") and f["change_interval"][0] <= f["change"], f
assert a["paths"][0]["path"].endswith(";main;run_light;slow_me"), a["paths"]
PY

# The sampled runs are runs of the timing builds (no other build exists), stored per run.
q() { sqlite3 .revperf/revperf.db "$1"; }
[ "$(q "select count(*) from profiles where kind = 'sample' and status = 'ok'")" = 6 ] ||
	fail "expected 6 stored sampled profiles: $(q 'select kind, status, path from profiles')"
[ "$(q "select count(distinct p.build_id) from profiles p join builds b on b.id = p.build_id
	where p.kind = 'sample' and b.variant = ''")" = 2 ] || fail "the sampled runs are not of the timing builds"
[ "$(q "select count(*) from builds")" = 2 ] || fail "a build other than the timing builds was made"
for f in $(q "select path from profiles where kind = 'sample'"); do
	head -1 "$f" | grep -qx 'revperf-sample 1' || fail "$f is not a sampled profile"
done
[ -z "$(find .revperf -name '*.raw')" ] || fail "raw sample files were left behind"

# Text: the section under the verdict, without call counts.
expect_exit 1 "$REVPERF" compare -q --tolerance 20% v1 v2
expect_grep '^  attribution \(sampled on-CPU time of the timing builds, 3 \+ 3 runs, 3 \+ 3 reused\)' out.txt
expect_grep 'on-CPU time in user space per run \(mean\): [0-9.]+ ms -> [0-9.]+ ms; call graph dwarf -> dwarf; no call counts' out.txt
expect_grep '^    +[0-9.]+% -> +[0-9.]+%  .*run_light;slow_me$' out.txt
# The absolute change first, in ms per run with their sd, slow_me first, no calls; then PARCS.
expect_absolute_text 'on-CPU time, summed over threads' ''

# Markdown: the absolute change as tables, without a calls column.
expect_absolute_markdown 'on-CPU time, summed over threads' '\|'

# The site's page of v2: the absolute change the comparison left beside its flame graph.
expect_site_absolute

# The stored profiles, differenced again by revperf diff --bench.
expect_diff_bench clock on-cpu

# Sampling refused (a seccomp filter): the attribution says why, the verdict stands.
expect_exit 1 "$DENY" "$REVPERF" compare -q --fresh --tolerance 20% v1 v2
expect_grep 'cannot sample here: a seccomp filter refuses perf_event_open' err.txt
expect_grep 'profile = cct' err.txt
expect_grep '^  cpu \* +worse' out.txt
expect_grep 'not available: sampling is refused here' out.txt

# Configuration errors: one line naming the key.
sed -i 's/^profile = sample$/profile = cct, sample/' revperf.ini
expect_exit 2 "$REVPERF" compare -q v1 v2
expect_one_line err.txt
expect_grep "either 'cct' or 'sample'" err.txt
sed -i 's/^profile = cct, sample$/profile = sample\nsample-frequency = 0/' revperf.ini
expect_exit 2 "$REVPERF" compare -q v1 v2
expect_one_line err.txt
expect_grep "sample-frequency" err.txt
