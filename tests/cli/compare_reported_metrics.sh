# Metrics a benchmark prints itself (metric.NAME = /ERE/ ...): direction, missing values,
# and regexes that cannot work.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
# A "throughput benchmark": prints its speed, with a little noise, on stdout.
cat >speed.sh <<'SH'
n=$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')
echo "warming up"
echo "speed: $(( ${1:-1000} + n % 7 )).$n MB/s"
SH
cat >revperf.ini <<'INI'
[benchmark "tput"]
command = sh ./speed.sh
metric.speed = /speed: ([0-9.]+) MB\/s/ higher-is-better unit=MB/s
primary = speed
runs = 3..8
INI
git add . && git commit -qm "throughput benchmark" && git tag fast
sed -i 's/:-1000/:-800/' speed.sh
git commit -qam "20% lower throughput" && git tag slow

# Lower MB/s on a higher-is-better metric: worse (exit 1), and the table shows MB/s.
expect_exit 1 "$REVPERF" compare fast slow -q
expect_grep '^  speed \* +worse +0\.(7[5-9]|8[0-5])' out.txt
expect_grep 'MB/s' out.txt
# Declared lower-is-better instead (a latency, say), the same numbers are better: exit 0.
expect_exit 0 "$REVPERF" compare fast slow -q --fresh -f json \
	--metric 'speed=/speed: ([0-9.]+) MB\/s/ lower-is-better unit=MB/s'
[ "$(json_get out.txt "[m for m in d['benchmarks'][0]['metrics'] if m['name']=='speed'][0]['verdict']")" = better ] ||
	fail "lower-is-better not better"
[ "$(json_get out.txt "[m for m in d['benchmarks'][0]['metrics'] if m['name']=='speed'][0]['unit']")" = MB/s ] ||
	fail "unit label lost"

# match=mean: the mean of all matches; here two lines per run (10 and 30 -> 20).
printf 'echo "lat 10 ms"; echo "lat 30 ms"\n' >lat.sh
expect_exit 0 "$REVPERF" compare --cmd-a 'sh lat.sh' --cmd-b 'sh lat.sh' --runs 3..3 -q -f json --primary wchar \
	--metric 'lat=/lat ([0-9]+) ms/ match=mean unit=ms'
[ "$(json_get out.txt "[m for m in d['benchmarks'][0]['metrics'] if m['name']=='lat'][0]['baseline']['mean']")" = 20.0 ] ||
	fail "match=mean"

# A run whose output lacks the metric: recorded with a note, never a zero.
cat >flaky.sh <<'SH'
n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n >count
[ $n -eq 3 ] && { echo "crashed halfway, no speed"; exit 0; }
echo "speed: 5$n.0 MB/s"
SH
# (tolerance 500%: wall is primary, and an A/A of it in 4 pairs can come out "worse" beyond
# 50% on a loaded machine; the exit code is not what is tested)
expect_exit 0 "$REVPERF" compare --cmd-a 'sh flaky.sh' --cmd-b 'sh flaky.sh' --runs 4..4 --warmup 0 -q -f json \
	--metric 'speed=/speed: ([0-9.]+)/ higher-is-better' --tolerance 500%
python3 - out.txt <<'PY' || fail "missing metric"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
m = [m for m in b["metrics"] if m["name"] == "speed"][0]
assert b["runs"]["baseline"]["ok"] == 4 and b["runs"]["target"]["ok"] == 4, b["runs"]
assert m["pairs"] == 3, m          # the run without a value breaks its pair: 3 of 4 left
assert m["baseline"]["n"] == 3 and m["target"]["n"] == 3, m   # what the verdict used
assert min(m["baseline"]["mean"], m["target"]["mean"]) > 50, m  # no zero slipped in
notes = [r for r in b["run_issues"] if r["status"] == "ok"]
assert len(notes) == 1 and "metric speed: no match" in notes[0]["detail"], notes
PY

# Regexes that cannot work: errors name the config line, exit 2, before any build.
printf '[benchmark "x"]\ncommand = true\nmetric.speed = /[0-9.]+ MB\\/s/\n' >nogroup.ini
expect_exit 2 "$REVPERF" compare fast fast --config nogroup.ini
expect_grep 'nogroup.ini:3: metric.speed: the regex /\[0-9.\]\+ MB/s/ has no capture group' err.txt
expect_one_line err.txt
printf '[benchmark "x"]\ncommand = true\nmetric.speed = /([0-9/\n' >broken.ini
expect_exit 2 "$REVPERF" compare fast fast --config broken.ini
expect_grep 'broken.ini:3: metric.speed: ' err.txt
printf '[benchmark "x"]\ncommand = true\nmetric.speed = /(a)(/\n' >broken2.ini
expect_exit 2 "$REVPERF" compare fast fast --config broken2.ini
expect_grep 'broken2.ini:3: metric.speed: the regex /\(a\)\(/ does not compile' err.txt
printf '[benchmark "x"]\ncommand = true\nmetric.wall = /(1)/\n' >builtin.ini
expect_exit 2 "$REVPERF" compare fast fast --config builtin.ini
expect_grep 'builtin.ini:3: metric.wall: a reported metric needs a new name' err.txt
printf '[benchmark "x"]\ncommand = true\nmetric.speed = /(1)/ faster\n' >opt.ini
expect_exit 2 "$REVPERF" compare fast fast --config opt.ini
expect_grep "opt.ini:3: metric.speed: unknown option 'faster'" err.txt
# A non-number captured: a note on each run, no value.
expect_exit 0 "$REVPERF" compare --cmd-a 'echo speed: fast' --cmd-b 'echo speed: fast' --runs 3..3 -q --primary wchar \
	--metric 'speed=/speed: ([a-z]+)/'
expect_grep "metric speed: 'fast' is not a number" out.txt
echo ok
