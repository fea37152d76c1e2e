# output = log | discard: a benchmark's stdout goes into the run log (default) or to
# /dev/null (its stderr is still logged, and read for reported metrics); in compare's
# timing runs, in `revperf run`, and named in the README's example.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
# A "compressor": 1 MiB of binary result on stdout, its speed on stderr.
cat >compress.sh <<'SH'
head -c 1048576 /dev/zero
echo "speed: 42.5 MB/s" >&2
SH
cat >revperf.ini <<'INI'
[benchmark "logged"]
command = sh ./compress.sh
runs = 3..3
warmup = 0
metric.speed = /speed: ([0-9.]+) MB\/s/ higher-is-better

[benchmark "discarded"]
command = sh ./compress.sh
output = discard
runs = 3..3
warmup = 0
metric.speed = /speed: ([0-9.]+) MB\/s/ higher-is-better
INI
git add . && git commit -qm "a compressor benchmark"

expect_exit 0 "$REVPERF" compare HEAD HEAD -q -f json
logs=.revperf/logs/runs/$(json_get out.txt "d['comparison_id']")
size() { stat -c %s "$1"; }
# 3 runs of 1 MiB each logged; the discarded ones only their stderr lines
[ "$(size "$logs/logged-A.log")" -ge $((3 * 1048576)) ] || fail "logged: $(size "$logs/logged-A.log") bytes"
[ "$(size "$logs/discarded-A.log")" -lt 4096 ] || fail "discarded: $(size "$logs/discarded-A.log") bytes"
grep -q 'speed: 42.5 MB/s' "$logs/discarded-A.log" || fail "stderr not logged with discard"
# (logged: the metric is found past the NUL bytes of the binary output too)
python3 - out.txt <<'PY' || fail "reported metric from stderr: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    m = [m for m in b["metrics"] if m["name"] == "speed"][0]
    assert m["baseline"]["n"] == 3 and m["baseline"]["mean"] == 42.5, (b["name"], m)
PY

# The same command with and without discard are two benchmarks in the database: runs
# measured writing the log are not reused for discard (and back). (--more: the finished
# comparison would otherwise be shown from the store, nothing run.)
expect_exit 0 "$REVPERF" compare HEAD HEAD -q -f json --more
[ "$(json_get out.txt "d['benchmarks'][1]['runs']['baseline']['reused']")" = 3 ] ||
	fail "discarded runs not reused by the same benchmark"
sqlite3 .revperf/revperf.db "SELECT count(*) FROM benchmarks WHERE name IN ('logged', 'discarded')" |
	grep -qx 2 || fail "benchmarks: $(sqlite3 .revperf/revperf.db 'SELECT * FROM benchmarks')"

# revperf run: the same key.
expect_exit 0 "$REVPERF" run -q --bench discarded
[ "$(size .revperf/logs/run-discarded.log)" -lt 4096 ] || fail "run: stdout logged"
expect_exit 0 "$REVPERF" run -q --bench logged -f json
[ "$(json_get out.txt "d['benchmarks'][0]['status']")" = ok ] || fail "run -f json: $(cat out.txt)"
[ "$(size .revperf/logs/run-logged.log)" -ge 1048576 ] || fail "run: stdout not logged"

# A bad value names the file and line.
printf '[benchmark "x"]\ncommand = true\noutput = /dev/null\n' >bad.ini
expect_exit 2 "$REVPERF" compare HEAD HEAD --config bad.ini
expect_grep "^revperf: error: bad.ini:3: invalid value '/dev/null' for output: expected log .* or discard" err.txt
expect_one_line err.txt

# The README's example says so.
grep -q '^    output = discard' "$SRCDIR/README.md" || fail "README's example lacks output = discard"
grep -qi 'stdout goes into the run log' "$SRCDIR/README.md" || fail "README does not say where stdout goes"
echo ok
