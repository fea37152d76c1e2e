# A control chart that judged no counter decided nothing (docs/counters.md): before, it
# printed "0 of 0 judged counters out of control" and exited 0, which is documented as
# "every counter in control" (seen in CI: chart_server.sh under load, three injected faults
# "in control"). Now the report says that nothing was decided and why, per status, and the
# command exits 2 with one line on stderr saying what to do. Also the input that led there
# in CI: a target run whose CPU utilisation lies below the bimodal filter's cut throughout
# (a slowed run on a loaded machine), which the filter dropped whole, every counter then
# "idle throughout a side" (exit 2 since the commit above); such a run is not idle time
# but a run that got or used less CPU, and is now scored whole.
. "$SRCDIR/tests/cli/lib/common.bash"

python3 - <<'PY'
import random
rnd = random.Random(7)
def write(name, rows):
    with open(name, "w") as f:
        f.write("timestamp,counter,value\n")
        for t, c, v in rows:
            f.write("%.1f,%s,%.6g\n" % (t, c, v))
# Baseline runs that never overlap: latency about 10, 20 and 30 ms.
for i, level in enumerate((10, 20, 30), 1):
    write("apart-%d.csv" % i, [(k / 10, "latency_ms", level + rnd.gauss(0, 0.5))
                               for k in range(50)])
write("apart-target.csv", [(k / 10, "latency_ms", 20 + rnd.gauss(0, 0.5)) for k in range(50)])
# Runs that overlap: the same counter charted and judged.
for i in (1, 2, 3):
    write("near-%d.csv" % i, [(k / 10, "latency_ms", 20 + rnd.gauss(0, 0.5))
                              for k in range(50)])
# Sides that share no counter.
write("only-a.csv", [(k / 10, "a", 1 + rnd.random()) for k in range(20)])
write("only-b.csv", [(k / 10, "b", 1 + rnd.random()) for k in range(20)])
# A server's baseline runs that idle between bursts of load (a third of the time, at the
# same places in every run: CPU 0.02 cores and no requests), and a target run whose CPU
# stays at a quarter of the busy level throughout: below the valley between the two modes.
def server(name, busy, idle_blocks):
    rows = []
    for k in range(300):
        t = k / 10
        idle = any(a <= k < b for a, b in idle_blocks)
        cpu = 0.02 + rnd.gauss(0, 0.003) if idle else busy + rnd.gauss(0, 0.04)
        rows.append((t, "cpu_user", abs(cpu)))
        rows.append((t, "cpu_system", abs(cpu) / 4))
        rows.append((t, "requests_per_s", 0 if idle else 40000 * cpu + rnd.gauss(0, 500)))
    return rows
for i in range(1, 6):
    write("server-%d.csv" % i, server("", 1.0, [(40, 80), (150, 190), (250, 270)]))
write("server-slow.csv", server("", 0.25, []))
PY

# No headroom: each of the 3 baseline runs lies outside the limits of the other two.
expect_exit 2 "$REVPERF" chart --baseline apart-[123].csv --target apart-target.csv
expect_one_line err.txt
expect_grep '^revperf: error: chart: no counter could be judged, nothing decided \(of 1 counter: 1 no headroom\): the baseline runs never overlap: record more or longer baseline runs$' err.txt
expect_grep '^  nothing decided: no counter could be judged \(of 1 counter: 1 no headroom\)$' out.txt
expect_grep '^  no headroom, not judged .*: latency_ms ' out.txt
expect_no_grep 'judged counters? out of control' out.txt
expect_exit 2 "$REVPERF" chart -f json --baseline apart-[123].csv --target apart-target.csv
expect_one_line err.txt
[ "$(json_get out.txt "d['schema'], d['decided'], d['judged'], d['no_headroom'], d['not_judged']")" = \
	"revperf-chart/2 False 0 1 {'no_headroom': 1, 'only_in_baseline': 0, 'only_in_target': 0, 'no_samples': 0, 'idle': 0}" ] ||
	fail "JSON: $(cat out.txt)"
expect_exit 2 "$REVPERF" chart -f markdown --baseline apart-[123].csv --target apart-target.csv
expect_grep '^\*\*Nothing decided\*\*: no counter could be judged \(of 1 counter: 1 no headroom; limits 5/95, 3 baseline runs, 1 target run' out.txt

# The same target against runs that overlap: judged, decided.
expect_exit 0 "$REVPERF" chart -f json --baseline near-[123].csv --target apart-target.csv
[ "$(json_get out.txt "d['decided'], d['judged']")" = "True 1" ] || fail "JSON: $(cat out.txt)"
[ -s err.txt ] && { cat err.txt; fail "stderr of a decided chart is not empty"; }

# No counter on both sides.
expect_exit 2 "$REVPERF" chart --baseline only-a.csv --target only-b.csv
expect_one_line err.txt
expect_grep 'nothing decided \(of 2 counters: 1 only in baseline, 1 only in target\): counters with samples on one side only' err.txt
expect_grep '^  not charted: a \(only in baseline\), b \(only in target\)$' out.txt

# The slowed target run: below the filter's cut throughout, scored whole, out of control.
expect_exit 1 "$REVPERF" chart --baseline server-[1-5].csv --target server-slow.csv
expect_grep '^  bimodal filter on CPU utilisation \(cpu_user \+ cpu_system\): idle below [0-9.]+, dropped from every counter: 500 of 1500 baseline and 0 of 300 target CPU samples' out.txt
expect_grep '^    server-slow\.csv lies below the cut throughout: not idle time but less CPU .*, kept whole$' out.txt
expect_grep '^  cpu_user +100\.0% ' out.txt
echo ok
