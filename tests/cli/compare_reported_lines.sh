# Reported metrics show what they read: compare prints, once per benchmark, the line each
# metric.NAME matched in the first run with the number marked (text and JSON). And the
# documented lz4 example reads the number its name says, not the last one on the line.
. "$SRCDIR/tests/cli/lib/common.bash"

# lz4 -b's last line: compression speed, then decompression speed, on one line.
cat >lz4b.sh <<'SH'
printf 'Benchmarking levels from 1 to 1\n'
printf ' 1#sample.bin   :  10000000 ->   2278442 (4.389),  %s MB/s , 2821.3 MB/s\n' "${1:-12.4}"
SH

# The pattern of the old example: it reads the last speed on the line, and the report
# says so (last of 2 matches, the decompression speed marked).
expect_exit 0 "$REVPERF" compare --cmd-a 'sh lz4b.sh' --cmd-b 'sh lz4b.sh 29.8' --runs 3..3 -q \
	--metrics wall --primary wchar --metric 'speed=/([0-9.]+) MB\/s/ higher-is-better unit=MB/s'
expect_grep '^  speed read in the first baseline run \(#[0-9]+\), last of 2 matches:$' out.txt
grep -A2 '^  speed read in' out.txt | tail -2 >shown.txt
python3 - shown.txt <<'PY' || { cat shown.txt; fail "the marked number"; }
import sys
line, marks = open(sys.argv[1]).read().split("\n")[:2]
col = marks.index("^")
assert line.startswith("    ") and marks.strip() == "^" * len("2821.3"), (line, marks)
assert line[col:col + len("2821.3")] == "2821.3", (line[col:], marks)
PY
# once per benchmark, not per run
[ "$(grep -c 'read in the first' out.txt)" = 1 ] || fail "shown more than once"

# JSON: the line, the number and where it is.
expect_exit 0 "$REVPERF" compare --cmd-a 'sh lz4b.sh' --cmd-b 'sh lz4b.sh 29.8' --runs 3..3 -q \
	--metrics wall --primary wchar -f json --fresh --metric 'speed=/([0-9.]+) MB\/s/ higher-is-better' \
	--metric 'gone=/nothing: ([0-9]+)/'
python3 - out.txt <<'PY' || fail "reported_lines: $(cat out.txt)"
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
r = {x["metric"]: x for x in b["reported_lines"]}
s = r["speed"]
assert s["number"] == "2821.3" and s["matches"] == 2 and s["match"] == "last", s
assert s["line"][s["number_at"]:].startswith("2821.3"), s
assert s["side"] == "baseline" and s["run_id"] > 0, s
g = r["gone"]
assert g["line"] is None and g["number"] is None and g["matches"] == 0, g
PY
expect_exit 0 "$REVPERF" compare --cmd-a 'sh lz4b.sh' --cmd-b 'sh lz4b.sh' --runs 3..3 -q \
	--metrics wall --primary wchar --metric 'gone=/nothing: ([0-9]+)/'
expect_grep '^  gone: no match in the first baseline run \(#[0-9]+\)$' out.txt

# Untrusted output stays inert in the shown line.
printf 'printf "\\033[31mspeed: 5 MB/s\\n"\n' >esc.sh
expect_exit 0 "$REVPERF" compare --cmd-a 'sh esc.sh' --cmd-b 'sh esc.sh' --runs 3..3 -q \
	--metrics wall --primary wchar --metric 'speed=/speed: ([0-9]+)/'
expect_grep '^    \\x1b\[31mspeed: 5 MB/s$' out.txt
expect_grep "^ {19}\\^\$" out.txt # under the 5: 4 + 8 (\x1b[31m) + 7 (speed: )

# Progress lines redrawn with a carriage return (lz4 -b): the line shown is the last one
# drawn, as the terminal showed it.
printf 'printf "speed: 1 MB/s\\rspeed: 7 MB/s\\n"\n' >cr.sh
expect_exit 0 "$REVPERF" compare --cmd-a 'sh cr.sh' --cmd-b 'sh cr.sh' --runs 3..3 -q \
	--metrics wall --primary wchar --metric 'speed=/speed: ([0-9]+)/'
expect_grep '^  speed read in the first baseline run \(#[0-9]+\), last of 2 matches:$' out.txt
expect_grep '^    speed: 7 MB/s$' out.txt

# The documented example (docs/configuration.md) reads compression speed as cspeed and
# decompression speed as dspeed: run the patterns the document gives.
doc="$SRCDIR/docs/configuration.md"
cspeed=$(sed -n 's/^    metric\.cspeed = \(\/.*\/\) .*/\1/p' "$doc")
dspeed=$(sed -n 's/^    metric\.dspeed = \(\/.*\/\) .*/\1/p' "$doc")
[ -n "$cspeed" ] && [ -n "$dspeed" ] || fail "docs/configuration.md has no metric.cspeed and metric.dspeed example"
# (lz4 1.9.4 prints the second form; the issue quoted the third)
for form in '(4.389),  12.4 MB/s , 2821.3 MB/s' '(4.389),  12.4 MB/s ,2821.3 MB/s' \
	'(4.389), 12.4 MB/s, 2821.3 MB/s'; do
	printf "printf ' 1#sample.bin : 10000000 -> 2278442 %s\\\\n'\n" "$form" >lz4form.sh
	expect_exit 0 "$REVPERF" compare --cmd-a 'sh lz4form.sh' --cmd-b 'sh lz4form.sh' \
		--runs 3..3 -q --metrics wall --primary wchar -f json \
		--metric "cspeed=$cspeed higher-is-better" --metric "dspeed=$dspeed higher-is-better"
	python3 - out.txt "$form" <<'PY' || fail "the documented patterns on '$form': $(cat out.txt)"
import json, sys
r = {x["metric"]: x for x in json.load(open(sys.argv[1]))["benchmarks"][0]["reported_lines"]}
assert r["cspeed"]["number"] == "12.4", r["cspeed"]
assert r["dspeed"]["number"] == "2821.3", r["dspeed"]
PY
done
# The example in compare -h anchors its pattern too.
expect_exit 0 "$REVPERF" compare -h
expect_no_grep "'speed=/\(\[0-9" out.txt
echo ok
