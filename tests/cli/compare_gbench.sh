# format = gbench: a Google Benchmark program (Debian's libbenchmark-dev) built by the test;
# each case is its own benchmark; a slowed case is worse, the others are not.
# The slowed case does 8 times the work, judged on the CPU time the program reports.
# real_time, the default primary metric, is timed over 20 ms windows that other processes
# cut into: with both cores kept busy, twice the work gave real_time ratios of 1.93-2.44
# with 99% lower ends of 1.03-1.71 (6 comparisons; the tolerance is 2%; a clean-clone
# `make test` once saw it undecided, exit 0), and 8 times the work still left one of 5
# comparisons undecided at 12 + 12 runs (interval 0.37-135), its ratios 5.5-8.3. cpu_time
# gave 7.4-8.0, every time worse.
. "$SRCDIR/tests/cli/lib/common.bash"
[ -f /usr/include/benchmark/benchmark.h ] || fail "libbenchmark-dev is not installed (scripts/install-deps.sh installs it)"

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
cat >bench.cc <<'CC'
#include <benchmark/benchmark.h>
#ifndef SLOW_N
#define SLOW_N 20000
#endif
static volatile unsigned sink;
static void work(unsigned n)
{
	unsigned x = 1;
	for (unsigned i = 0; i < n; i++)
		x = x * 1664525u + 1013904223u;
	sink = x;
}
static void BM_fast(benchmark::State &s) { for (auto _ : s) work(20000); }
static void BM_slow(benchmark::State &s)
{
	for (auto _ : s) work(SLOW_N);
	s.SetItemsProcessed(s.iterations());
}
static void BM_other(benchmark::State &s) { for (auto _ : s) work(30000); }
BENCHMARK(BM_fast);
BENCHMARK(BM_slow);
BENCHMARK(BM_other);
BENCHMARK_MAIN();
CC
cat >revperf.ini <<'INI'
[build]
command = g++ -O2 $(cat flags) -o bench bench.cc -lbenchmark -lpthread
[benchmark "micro"]
command = ./bench --benchmark_min_time=0.02
format = gbench
runs = 5..12
INI
: >flags
git add . && git commit -qm "micro benchmarks" && git tag before
echo "-DSLOW_N=160000" >flags
git commit -qam "BM_slow does eight times the work" && git tag after

expect_exit 1 "$REVPERF" compare before after -q -f json --primary cpu_time
python3 - out.txt <<'PY' || fail "gbench verdicts"
import json, sys
d = json.load(open(sys.argv[1]))
b = {b["name"]: b for b in d["benchmarks"]}
assert set(b) == {"micro/BM_fast", "micro/BM_slow", "micro/BM_other"}, list(b)
def metric(bench, name):
    return [m for m in b[bench]["metrics"] if m["name"] == name][0]
slow = metric("micro/BM_slow", "cpu_time")
assert slow["primary"] and slow["verdict"] == "worse", slow
assert 6 < slow["ratio"] < 10, slow
assert metric("micro/BM_slow", "real_time")["ratio"] > 2
ips = metric("micro/BM_slow", "items_per_second")
assert ips["direction"] == "higher-is-better" and ips["verdict"] == "worse", ips
assert 1 / 10 < ips["ratio"] < 1 / 6, ips
for other in ("micro/BM_fast", "micro/BM_other"):
    m = metric(other, "cpu_time")
    assert m["verdict"] in ("equal", "undecided"), (other, m)
    assert metric(other, "real_time")["verdict"] != "worse", other
PY
# The per-case values are the mean of each run's repetitions; runs are fresh processes.
expect_exit 0 "$REVPERF" compare before before -q --bench micro --runs 3..3
expect_grep '^micro/BM_fast: 3 \+ 3 runs' out.txt
# Without --primary, real_time decides.
expect_grep '^  real_time \* ' out.txt

# A binary that is not a Google Benchmark program: a clear error, exit 2.
printf '[benchmark "fake"]\ncommand = echo hello\nformat = gbench\n' >fake.ini
expect_exit 2 "$REVPERF" compare before after --config fake.ini -q
expect_grep "benchmark 'fake' \(format = gbench\)" err.txt
printf '[benchmark "x"]\ncommand = true\nformat = junit\n' >badfmt.ini
expect_exit 2 "$REVPERF" compare before after --config badfmt.ini
expect_grep "badfmt.ini:3: invalid value 'junit' for format" err.txt
echo ok
