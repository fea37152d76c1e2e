# compare with profile = counters: the timing runs are sampled, their series stored, and the
# control charts of the target's runs against the baseline's go under the verdict
# (docs/counters.md). Version 2 of a loopback server looks keys up by a linear search.
. "$SRCDIR/tests/cli/lib/common.bash"

mkdir proj && cd proj
git init -q . && git config user.email t@example.com && git config user.name test
cp "$SRCDIR/tests/workloads/cc_server.c" .
echo none >fault.txt
cat >revperf.ini <<'INI'
[build]
command = cc -O2 -o cc_server cc_server.c
[benchmark "serve"]
command = ./cc_server 1.5 4 $(cat fault.txt)
metrics = wall, cpu
primary = cpu
runs = 3..3
warmup = 0
profile = counters
sample-interval = 100ms
INI
git add . && git commit -qm v1 && git tag v1
echo linear >fault.txt
git commit -qam v2 && git tag v2

code=0
"$REVPERF" compare -q --tolerance 50% -f json v1 v2 >compare.json 2>err.txt || code=$?
[ "$code" = 0 ] || [ "$code" = 1 ] || { cat err.txt; fail "compare exited $code"; }
c='d["benchmarks"][0]["counters"]'
[ "$(json_get compare.json "$c['error']")" = None ] || fail "counters: $(json_get compare.json "$c['error']")"
[ "$(json_get compare.json "$c['sampled_runs']['baseline'], $c['sampled_runs']['target']")" = "3 3" ] ||
	fail "sampled runs: $(json_get compare.json "$c['sampled_runs']")"
# A linear search burns user CPU per request. Under load this used to fail: cpu_user, in
# steps of one clock tick per 100 ms, is mostly 0 and 0.1, and the bimodal filter of each
# counter dropped its lower mode, leaving the baseline runs without overlap (threshold
# 100%). The filter now decides on the CPU utilisation and drops the same periods from every
# counter (METHODS.md section 4): cpu_user keeps its samples, and its chance is stated.
[ "$(json_get compare.json "'cpu_user' in [x['counter'] for x in $c['counters'] if x['out_of_control']]")" = True ] ||
	fail "cpu_user is not out of control: $(json_get compare.json "[(x['counter'], x.get('violation_ratio'), x.get('threshold'), x.get('no_headroom'), x.get('dropped_baseline')) for x in $c['counters']], $c['filter']")"
[ "$(json_get compare.json "$c['filter']['on'], $c['filter']['cpu'], $c['scale_baseline']")" = \
	"True cpu_user + cpu_system True" ] || fail "counters: not the defaults: $(json_get compare.json "$c['filter']")"
# Three baseline runs: a good target would exceed each threshold with probability 1 in 4.
[ "$(json_get compare.json "[x['chance'] for x in $c['counters'] if x['counter'] == 'cpu_user']")" = "[0.25]" ] ||
	fail "cpu_user's chance: $(json_get compare.json "[x.get('chance') for x in $c['counters'] if x['counter'] == 'cpu_user']")"
# The filter drops the same periods from every counter the sampler takes at its ticks.
[ "$(json_get compare.json "len({x['dropped_baseline'] for x in $c['counters'] if x['counter'] in ('cpu_user', 'cpu_system', 'ctx_switches_per_s')})")" = 1 ] ||
	fail "the filter dropped different periods: $(json_get compare.json "[(x['counter'], x.get('dropped_baseline')) for x in $c['counters']]")"
[ "$(json_get compare.json "'requests_per_s' in [x['counter'] for x in $c['counters']]")" = True ] ||
	fail "the benchmark's revperf-counter lines were not stored"
charts=$(json_get compare.json "$c['charts']")
[ -s "$charts/cpu_user.svg" ] || fail "no chart $charts/cpu_user.svg"
# The series are in the store: chart reads them back by revision.
code=0
"$REVPERF" chart --bench serve --baseline v1 --target v2 >out.txt 2>err.txt || code=$?
[ "$code" = 1 ] || { cat out.txt err.txt; fail "chart of stored runs exited $code"; }
expect_grep '^  cpu_user ' out.txt
expect_grep 'control charts: v2 \([0-9a-f]{12}, 3 runs\) \(3 runs\) against v1' out.txt
expect_grep '^  cpu_user .* 1 in 4 ' out.txt
# Text and Markdown sections.
code=0
"$REVPERF" compare -q --tolerance 50% v1 v2 >out.txt 2>err.txt || code=$?
expect_grep '^  counters \(sampled runs: 3 \+ 3\):$' out.txt
"$REVPERF" compare -q --tolerance 50% -f markdown v1 v2 >out.txt 2>err.txt || code=$?
expect_grep '^<details><summary>Counters: serve</summary>$' out.txt
expect_exit 2 "$REVPERF" chart --bench serve --baseline v1 --target HEAD~5
# The HTML report shows the charts on v2's page, copied next to it.
expect_exit 0 "$REVPERF" report --out site -q
page=site/commits/$(git rev-parse v2).html
expect_grep 'Control charts of the sampled counters' "$page"
chart=$(grep -o '[^"]*cpu_user\.svg' "$page" | head -1)
[ -n "$chart" ] && [ -s "site/commits/$chart" ] || fail "cpu_user chart not copied: '$chart'"
echo ok
