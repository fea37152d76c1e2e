# Control charts end to end (docs/counters.md): a loopback key-value server driven by its
# load generator (tests/workloads/cc_server.c), sampled by `revperf profile --counters`:
# ten good runs, then six runs each with one injected inefficiency in the spirit of the
# paper's Table 3. Each scenario is charted against the ten good runs, each good run against
# the nine others, with the analysis' defaults (METHODS.md section 4: both sides scaled to
# the baseline's load, the bimodal filter on the CPU utilisation, no margin); the server
# names its load (`--load requests_per_s`, the requests it served per second).
#
# A good run exceeds a counter's leave-one-out threshold by chance: the report states that
# chance beside each threshold, 1 in (n + 1) with n baseline runs, 1 in 10 here. How many
# stray good runs are tolerated follows from it, per counter: counting the good runs in
# which a counter is out of control, a count of k has probability P(X >= k) for X the
# number of successes of the ten runs' stated chances (binomial with p = 1/10: P(X >= 6) =
# 1.5e-4, P(X >= 7) = 9.1e-6). The test fails when some counter's count has a probability
# below 0.001 / m, m the counters judged (the whole test then fails by chance less than once
# in a thousand runs): with 9 counters, 7 or more of the 10 good runs. Runs are not counted
# as a whole: with m counters a good run shows at least one out of control with probability
# up to 1 - (1 - 1/10)^m (61% for 9, the report's "chance_any"), so that even 10 stray runs of
# 10 would not be improbable (0.61^10 = 0.7%), and no tolerance would follow.
. "$SRCDIR/tests/cli/lib/common.bash"

cc -O2 -o cc_server "$SRCDIR/tests/workloads/cc_server.c" || fail "cannot build cc_server"
# Good and bad runs interleaved, so that the machine's drift (its speed changes by tens of
# percent within minutes) touches both alike, as a load-test lab would schedule them.
faults="fetch-all debug-log reopen linear leak reconnect"
set -- $faults
for i in 1 2 3 4 5 6 7 8 9 10; do
	expect_exit 0 "$REVPERF" profile --counters -d good -- ./cc_server 3 4
	if [ $# -gt 0 ]; then
		expect_exit 0 "$REVPERF" profile --counters -d "bad-$1" -- ./cc_server 3 4 "$1"
		shift
	fi
done
expect_grep '^  requests_per_s +[0-9]+ ' out.txt
expect_grep '^  cpu_system +cores +[0-9]+ ' out.txt
expect_grep '^served [0-9]+ requests' good/run-10.log

opts="--load requests_per_s"

# Each scenario against the good runs: out of control, and the counter that should move.
out=0
for f in $faults; do
	code=0
	# shellcheck disable=SC2086
	"$REVPERF" chart $opts --runs --baseline good/*.csv --target "bad-$f/run-1.csv" \
		--svg "svg-$f" >"chart-$f.txt" 2>err.txt || code=$?
	# 2: no counter judged, nothing decided (stderr and the report's head say why: the
	# counters per status); before, such a chart exited 0 and read "0 of 0 judged counters
	# out of control", a scenario quietly not found.
	[ "$code" = 0 ] || [ "$code" = 1 ] ||
		{ cat err.txt; sed -n 2,4p "chart-$f.txt"; fail "chart exited $code for $f"; }
	[ "$code" = 1 ] && out=$((out + 1))
	echo "$f: exit $code, $(grep -E '^  [0-9]+ of [0-9]+ judged' "chart-$f.txt")"
	grep -E '^  [a-z_]+ +[0-9.]+% ' "chart-$f.txt" || true
done
[ "$out" -ge 5 ] || fail "only $out of 6 scenarios out of control"
# The defaults: both sides scaled, the filter decided on the CPU, the chance stated.
expect_grep '^control charts: .*; load requests_per_s \(both sides scaled\)$' chart-linear.txt
expect_grep '^  bimodal filter on CPU utilisation \(cpu_user \+ cpu_system(, load-scaled)?\): ' chart-linear.txt
expect_grep '^  counter +ratio +threshold +chance ' chart-linear.txt
expect_grep ' 1 in 11 ' chart-linear.txt
# A linear search burns user CPU per request whatever else the machine does.
expect_grep '^  cpu_user ' chart-linear.txt
# The SVG chart of the first out-of-control counter: well-formed, and exactly the
# violations the report counts are marked.
top=$(sed -nE 's/^  ([a-z_]+) .*  ([0-9]+) of [0-9]+$/\1 \2/p' chart-linear.txt | head -1)
python3 -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); c = [e for e in d.getElementsByTagName("circle") if e.getAttribute("class") == "violation"]; assert len(c) == int(sys.argv[2]), len(c)' \
	"svg-linear/${top% *}.svg" "${top#* }" || fail "svg-linear/${top% *}.svg does not mark the ${top#* } violations"

# Each good run against the nine others.
strays=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	others=$(ls good/*.csv | grep -v "/run-$i\.csv$")
	code=0
	# shellcheck disable=SC2086
	"$REVPERF" chart $opts -f json --baseline $others --target "good/run-$i.csv" \
		>"good-$i.json" 2>err.txt || code=$?
	[ "$code" = 0 ] || [ "$code" = 1 ] || { cat err.txt; fail "chart exited $code for good run $i"; }
	[ "$code" = 1 ] && strays=$((strays + 1))
done
# shellcheck disable=SC2086
"$REVPERF" chart $opts --baseline $(ls good/*.csv | grep -v '/run-1\.csv$') --target good/run-1.csv \
	>good-1.txt 2>err.txt || true
expect_grep '\(chance 1 in 10\)' good-1.txt
expect_grep '^  by chance alone a good target .* with probability [0-9]+% ' good-1.txt
echo "$strays of 10 good runs had some counter out of control"
python3 - good-*.json <<'PY' || fail "a counter is out of control in more good runs than its stated chance allows"
import json, sys
level = 0.001
runs = [json.load(open(f)) for f in sys.argv[1:]]
judged = lambda c: c["status"] == "charted" and not c["no_headroom"]
for f, d in zip(sys.argv[1:], runs):
    n = sum(judged(c) for c in d["counters"])
    assert n >= 1, f + ": no counter judged"
names = sorted({c["counter"] for d in runs for c in d["counters"] if judged(c)})
m = len(names)
ok = True
for name in names:
    chances, k = [], 0
    for d in runs:
        for c in d["counters"]:
            if c["counter"] == name and judged(c):
                chances.append(c["chance"])
                k += c["out_of_control"]
    dist = [1.0]  # P(X = j), X = runs out of control by chance (Poisson binomial)
    for p in chances:
        dist = [(dist[j] if j < len(dist) else 0) * (1 - p) + (dist[j - 1] * p if j else 0)
                for j in range(len(dist) + 1)]
    limit = next(j for j in range(len(dist) + 1) if sum(dist[j:]) < level / m)
    print("%-20s out of control in %d of %d good runs (chance 1 in %.0f each); "
          "%d or more fail: P = %.1e < %.1e" % (name, k, len(chances), 1 / max(chances),
          limit, sum(dist[limit:]), level / m))
    ok &= k < limit
any_chance = [d["chance_any"] for d in runs]
print("runs: any counter out of control by chance with probability %.0f%% to %.0f%%"
      % (100 * min(any_chance), 100 * max(any_chance)))
sys.exit(0 if ok else 1)
PY

# All scenarios and good runs at once, scored per run, with precision and recall (the
# pooled target's own verdict depends on the mix: exit 0 or 1).
code=0
# shellcheck disable=SC2086
"$REVPERF" chart $opts --runs --label-bad bad- --baseline good/run-[1-5].csv \
	--target good/run-[6-9].csv good/run-10.csv bad-*/run-1.csv >out.txt 2>err.txt || code=$?
[ "$code" = 0 ] || [ "$code" = 1 ] || { cat err.txt; fail "pooled chart exited $code"; }
expect_grep '^precision [0-9.]+, recall [0-9.]+ \(tp [0-9]+, fp [0-9]+, fn [0-9]+, tn [0-9]+' out.txt
# shellcheck disable=SC2086
expect_exit 1 "$REVPERF" chart $opts -f json --baseline good/*.csv --target bad-linear/run-1.csv
[ "$(json_get out.txt "[c['counter'] for c in d['counters'] if c['out_of_control']][:1] != []")" = True ] ||
	fail "JSON: no counter out of control"
[ "$(json_get out.txt "d['scale_baseline'], d['margin'], d['filter']['on'], d['filter']['cpu']")" = \
	"True 0.0 True cpu_user + cpu_system" ] || fail "JSON: not the defaults: $(json_get out.txt "d['filter']")"
[ "$(json_get out.txt "[abs(c['chance'] - 1 / 11) < 1e-12 for c in d['counters'] if c['counter'] == 'cpu_user']")" = \
	"[True]" ] || fail "JSON: the chance of 10 baseline runs is not 1 in 11: $(json_get out.txt "[(c['counter'], c.get('chance')) for c in d['counters']]")"

# Bad input: a NaN in a CSV, timestamps out of order, an empty file, a counter on one side.
printf 'timestamp,counter,value\n0,cpu,1\n0.1,cpu,nan\n' >nan.csv
expect_exit 2 "$REVPERF" chart --baseline good/run-1.csv --target nan.csv
expect_one_line err.txt
expect_grep "nan\.csv:3: value 'nan' of counter 'cpu' is not a finite number" err.txt
printf 'timestamp,counter,value\n0.2,cpu_user,0.1\n0.1,cpu_user,0.2\n0.3,only_here,1\n' >order.csv
code=0
"$REVPERF" chart --baseline good/*.csv --target order.csv >out.txt 2>err.txt || code=$?
[ "$code" = 0 ] || [ "$code" = 1 ] || fail "out-of-order CSV: exit $code"
expect_grep 'order\.csv: samples out of timestamp order were sorted' err.txt
expect_grep 'only_here \(only in target\)' out.txt
: >empty.csv
expect_exit 2 "$REVPERF" chart --baseline good/run-1.csv --target empty.csv
expect_grep 'empty\.csv: empty file' err.txt
expect_exit 2 "$REVPERF" chart --cpu 'cpu_user,,cpu_system' --baseline good/run-1.csv --target good/run-2.csv
expect_one_line err.txt
expect_grep "CPU counters 'cpu_user,,cpu_system': an empty name in the list" err.txt
expect_exit 2 "$REVPERF" chart --baseline good/run-1.csv
expect_exit 2 "$REVPERF" chart --baseline good/run-1.csv --target no-such-rev
expect_grep "'no-such-rev' is not a file; to chart a revision's sampled runs, name the benchmark with --bench" err.txt
echo ok
