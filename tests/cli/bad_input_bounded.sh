# No hang, no unbounded read on any input (issue 16, item 5). Every revperf call runs under
# `timeout 60`, so that a read that blocks or never ends fails the test instead of hanging
# it. A FIFO, a device or a directory where a file is expected, an oversized input, an
# empty or half-truncated profile, and what would silently drop a configuration value are
# each refused with one line naming the file (and line) and what to do, exit 2. Standard
# input is '-'. Inputs with many names are read in linear time. Prints one table line per
# scenario: scenario | expected | observed.
. "$SRCDIR/tests/cli/lib/common.bash"

GUARD=60 # a hang is caught all the same; 20 s was passed by a 0.7 s command under ASan at load 40
nr=0
# run SCENARIO EXPECTED-EXIT CMD...: CMD under the guard, stdout in out.txt, stderr in
# err.txt; fails on a hang or another exit code.
run() {
	local scenario=$1 want=$2; shift 2
	local got=0
	timeout -k 5 "$GUARD" "$@" >out.txt 2>err.txt || got=$?
	nr=$((nr + 1))
	printf '%-44s | exit %-3s | exit %s\n' "$scenario" "$want" "$got"
	if [ "$got" = 124 ] || [ "$got" = 137 ]; then
		cat err.txt
		fail "$scenario: still running after ${GUARD} s (a hang or an unbounded read): $*"
	fi
	if [ "$got" != "$want" ]; then
		echo "--- stdout"; head -c 2000 out.txt; echo "--- stderr"; head -c 2000 err.txt
		fail "$scenario: expected exit $want, got $got: $*"
	fi
}
# refused SCENARIO PATTERN CMD...: exit 2 and exactly one error line matching PATTERN.
refused() {
	local scenario=$1 pattern=$2; shift 2
	run "$scenario" 2 "$@"
	expect_one_line err.txt
	expect_grep "^revperf: error: $pattern" err.txt
	[ ! -s out.txt ] || fail "$scenario: a report was printed for bad input"
}

cp "$SRCDIR/tests/data/folded/small.folded" ok.folded
cp "$SRCDIR/tests/data/callgrind/tree.callgrind" ok.callgrind
printf '{"results": [{"command": "x", "times": [0.1, 0.2, 0.3]}]}' >good.json
printf 'timestamp,counter,value\n0,cpu,1\n0.1,cpu,2\n0.2,cpu,1\n0.3,cpu,2\n' >ok.csv
mkfifo fifo
mkdir adir
FIFO="is a named pipe \(FIFO\), not a regular file; save it to a file first"
DEV="is a character device, not a regular file; save it to a file first"

# -- FIFOs and devices given by name: refused at once, never read.
refused "diff: a FIFO" "profile 'fifo' $FIFO, or give '-'" "$REVPERF" diff ok.folded fifo
refused "diff: /dev/zero" "profile '/dev/zero' $DEV" "$REVPERF" diff ok.folded /dev/zero
refused "diff: /dev/null" "profile '/dev/null' $DEV" "$REVPERF" diff /dev/null ok.folded
refused "diff --io: a FIFO" "I/O profile 'fifo' $FIFO" "$REVPERF" diff --io fifo fifo
refused "bindiff: a FIFO" "binary 'fifo' $FIFO\$" "$REVPERF" bindiff fifo "$REVPERF"
refused "bindiff: /dev/zero" "binary '/dev/zero' $DEV\$" "$REVPERF" bindiff /dev/zero "$REVPERF"
refused "bindiff: a directory" "binary 'adir' is a directory, not a file" \
	"$REVPERF" bindiff adir "$REVPERF"
refused "bindiff: standard input" "a binary cannot come from standard input \('-'\): name a file" \
	"$REVPERF" bindiff - "$REVPERF"
refused "compare --import: a FIFO" "result file 'fifo' $FIFO" \
	"$REVPERF" compare --import good.json fifo
refused "compare --import: /dev/zero" "result file '/dev/zero' $DEV" \
	"$REVPERF" compare --import /dev/zero good.json
refused "chart: a FIFO" "counter CSV 'fifo' $FIFO" "$REVPERF" chart --baseline ok.csv --target fifo
refused "chart: /dev/zero" "counter CSV '/dev/zero' $DEV" \
	"$REVPERF" chart --baseline /dev/zero --target ok.csv

# -- The configuration: a FIFO, a device, a directory, too large. (Before: `compare -c
# /dev/zero` read without end with its interrupt handler installed, ignoring SIGINT and
# SIGTERM; the guard's SIGKILL was the only way out.)
make_tiny_repo repo
cd repo
refused "compare -c /dev/zero (git mode)" "configuration '/dev/zero' $DEV\$" \
	"$REVPERF" compare -c /dev/zero base base
refused "compare -c /dev/zero (--cmd-a)" "configuration '/dev/zero' $DEV\$" \
	"$REVPERF" compare -c /dev/zero --cmd-a true --cmd-b true
refused "compare -c FIFO" "configuration '../fifo' $FIFO\$" "$REVPERF" compare -c ../fifo base base
refused "compare -c DIR" "configuration '../adir' is a directory, not a file; run .revperf init." \
	"$REVPERF" compare -c ../adir base base
refused "run -c /dev/zero" "configuration '/dev/zero' $DEV\$" "$REVPERF" run -c /dev/zero base
python3 -c "print('[benchmark \"x\"]\ncommand = true\n' + ';' * (1 << 20))" >big.ini
refused "compare -c: over 1 MiB" "configuration 'big.ini' is larger than 1 MiB, the limit for a configuration" \
	"$REVPERF" compare -c big.ini base base

# -- What would silently drop or cut a configuration value: errors naming the line.
printf '[benchmark "x"]\ncommand = true\n[build]\ncommand = make\n[benchmark "x"]\ncommand = false\n' >dup.ini
refused "revperf.ini: a section twice" 'dup.ini:5: section \[benchmark "x"\] appears a second time \(first at line 1\)' \
	"$REVPERF" compare -c dup.ini --cmd-a true --cmd-b true
printf '[benchmark "x"]\ncommand = true\ncommand = false\n' >dupkey.ini
refused "revperf.ini: a key twice" "dupkey.ini:3: 'command' is set a second time in \[benchmark \"x\"\] \(first at line 2\); keep one" \
	"$REVPERF" compare -c dupkey.ini base base
printf '[benchmark "x"]\ncommand = tr\0ue\n' >nul.ini
refused "revperf.ini: a NUL byte" "nul.ini:2: a NUL byte" "$REVPERF" compare -c nul.ini base base
cp dupkey.ini revperf.ini
refused "revperf.ini found in the project" ".*/repo/revperf.ini:3: 'command' is set a second time" \
	"$REVPERF" compare base base
cd ..

# -- Empty and half-truncated profiles: errors, not "0 contexts" (exit 1).
: >empty.folded
refused "diff: an empty file" "empty.folded: empty: no 'frame;frame count' line" \
	"$REVPERF" diff ok.folded empty.folded
printf '\n\n' >blank.folded
refused "diff: only blank lines" "blank.folded: empty" "$REVPERF" diff blank.folded ok.folded
# Cut short on the way in (a pipe that broke): standard input is checked as a file is.
cp "$SRCDIR/tests/data/callgrind/real-small.callgrind.out" real.callgrind
refused "diff: half a callgrind file on stdin" "-:[0-9]+: the file ends without the totals: line .*\(truncated file\?\)" \
	sh -c 'head -n 300 real.callgrind | "$0" diff real.callgrind -' "$REVPERF"
refused "diff: half a CCT file on stdin" "-:[0-9]+: truncated profile" \
	sh -c '"$0" diff - ok.folded <"$1"' "$REVPERF" "$SRCDIR/tests/data/cct-file/truncated.cct"
refused "diff -i cct: nothing on stdin" "-:1: empty file" \
	sh -c '"$0" diff -i cct - ok.folded </dev/null' "$REVPERF"

# -- A CCT profile that names a FIFO as its program: no hang, no binary diff from it.
sed "s#/nonexistent/revperf-test/prog#$PWD/fifo#" "$SRCDIR/tests/data/cct-file/two-threads.cct" >fifo-exe.cct
run "diff: a CCT file naming a FIFO" 0 "$REVPERF" diff fifo-exe.cct fifo-exe.cct
expect_grep "cannot symbolize: binary '$PWD/fifo' $FIFO" err.txt
expect_grep "no binary diff of $PWD/fifo" err.txt

# -- Standard input as '-', read with the same cap.
run "diff - NEW (folded on stdin)" 0 sh -c '"$0" diff - ok.folded <ok.folded' "$REVPERF"
expect_grep '^old: - ' out.txt
run "diff OLD - (callgrind on stdin)" 0 sh -c '"$0" diff ok.callgrind - <ok.callgrind' "$REVPERF"
run "diff - NEW (a pipe)" 0 sh -c 'cat ok.folded | "$0" diff - ok.folded' "$REVPERF"
run "diff - -" 2 "$REVPERF" diff - -
expect_one_line err.txt
expect_grep "^revperf diff: standard input \('-'\) can be read only once" err.txt
run "chart: '-' on both sides" 2 "$REVPERF" chart --baseline - --target -
expect_grep "^revperf chart: standard input \('-'\) can be read only once" err.txt
cd repo
run "import --rev base - -" 2 "$REVPERF" import --rev base - - <../good.json
expect_grep "^revperf import: standard input \('-'\) can be read only once" err.txt
cd ..
run "compare --import - FILE" 0 sh -c '"$0" compare --import - good.json <good.json' "$REVPERF"
run "chart --baseline - (CSV on stdin)" 0 sh -c '"$0" chart --baseline - --target ok.csv <ok.csv' "$REVPERF"
refused "compare --import: 257 MiB on stdin" "result file '-' \(standard input\) is larger than 256 MiB, the limit for a result file" \
	sh -c 'head -c 269484032 /dev/zero | "$0" compare --import - good.json' "$REVPERF"
# A writer that never finishes: SIGINT and SIGTERM still end the read (128 + signal).
for sig in INT TERM; do
	sleep 60 >fifo &
	writer=$!
	run "diff - (a silent writer), SIG$sig" "$((128 + $(kill -l "$sig")))" \
		timeout --preserve-status -s "$sig" 1 sh -c 'exec "$0" diff - ok.folded <fifo' \
		"$REVPERF"
	kill "$writer" 2>/dev/null
	wait "$writer" 2>/dev/null
done

# -- Many names: linear reads (before: minutes of strcmp for each).
python3 - <<'PY'
with open("counters.csv", "w") as f:
    f.write("timestamp,counter,value\n")
    for i in range(50000):
        f.write(f"0.1,c{i},{i % 7 + 1}\n0.2,c{i},{i % 5 + 1}\n")
import json
json.dump({"results": [{"command": "x", "times": [0.1, 0.11, 0.12]} for _ in range(20000)]},
          open("same-command.json", "w"))
PY
run "chart: 50,000 counters" 0 "$REVPERF" chart --baseline counters.csv --target counters.csv
expect_grep '0 of 50000 judged counters out of control' out.txt
run "compare --import: 20,000 results of one command" 0 \
	"$REVPERF" compare --import same-command.json same-command.json -f json
[ "$(json_get out.txt "len(d['benchmarks'])")" = 20000 ] || fail "not 20000 benchmarks"
echo "$nr scenarios, each answered within ${GUARD} s"
echo ok
