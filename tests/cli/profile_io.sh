# revperf profile --io: the test execution report of one traced run (docs/io-analysis.md),
# on the tracer's workload tests/workloads/io_modes.c built at -O0, -O2 and -O2 -static
# with -g, on python3 and on a shell pipeline; the profiles it keeps; bad input; and
# revperf diff on I/O profiles.
. "$SRCDIR/tests/cli/lib/common.bash"

src=$SRCDIR/tests/workloads/io_modes.c
cc -O0 -g -o io_O0 "$src" -ldl -lpthread || fail "cannot build io_modes at -O0"
cc -O2 -g -o io_O2 "$src" -ldl -lpthread || fail "cannot build io_modes at -O2"
cc -O2 -g -static -o io_static "$src" -ldl -lpthread 2>/dev/null || fail "cannot build io_modes -static"

# report JSON EXPR: EXPR on the write report of the last JSON run (`w` = d["writes"]).
report() { python3 -c "import json,sys; w=json.load(open('out.txt'))['writes']; print($1)"; }

# stdio: fprintf + fflush reach write() inside libc; the row names the caller of fflush.
for b in O0 O2 static; do
	rm -f stdio.out
	expect_exit 0 "$REVPERF" profile --io -f json -- ./io_$b stdio stdio.out 200
	[ "$(report "w['status'], w['calls'], w['bytes']")" = "ok 200 2400" ] ||
		fail "$b stdio: $(report "w['status'], w['calls'], w['bytes']")"
	[ "$(report "w['top_by_bytes'][0]['file']")" = ./stdio.out ] || fail "$b: file not relative"
	where=$(report "w['top_by_bytes'][0]['where']")
	case "$where" in "stdio_writer (io_modes.c:"*) ;; *) fail "$b: stdio attributed to '$where'" ;; esac
	# The stack: main, stdio_writer, then the C library's stdio down to write.
	report "w['top_by_bytes'][0]['stack']" | grep -Eq ';main;stdio_writer;(_IO_)?fflush;.*write$' ||
		fail "$b: stack $(report "w['top_by_bytes'][0]['stack']")"
done

# Direct writes of a static binary: named from its own symbols.
expect_exit 0 "$REVPERF" profile --io -f json -- ./io_static direct direct.out 30 100
[ "$(report "w['top_by_bytes'][0]['where'].split()[0], w['top_by_bytes'][0]['calls'], w['top_by_bytes'][0]['bytes']")" = "direct_writer 30 3000" ] ||
	fail "static direct: $(report "w['top_by_bytes'][0]")"

# Two threads writing through different stacks: two rows.
expect_exit 0 "$REVPERF" profile --io -f json -- ./io_O2 threads threads.out 40
[ "$(report "sorted((r['where'].split()[0], r['bytes']) for r in w['top_by_bytes'] if r['file'] == './threads.out')")" = \
	"[('thread_a_writer', 120), ('thread_b_writer', 200)]" ] || fail "threads: $(report "w['top_by_bytes']")"

# A forked child: its writes are its own row; both processes are counted.
expect_exit 0 "$REVPERF" profile --io -f json -- ./io_O0 fork fork.out 20
[ "$(report "sorted((r['where'].split()[0], r['calls'], r['bytes']) for r in w['top_by_bytes'] if r['file'] == './fork.out')")" = \
	"[('child_writer', 20, 260), ('parent_writer', 20, 220)]" ] || fail "fork: $(report "w['top_by_bytes']")"
[ "$(report "w['processes']")" = 2 ] || fail "fork: expected 2 processes"

# One call site writing two files: two rows, one per file.
expect_exit 0 "$REVPERF" profile --io -f json -- ./io_O2 two a.out b.out 10
[ "$(report "sorted((r['file'], r['bytes']) for r in w['top_by_bytes'])")" = "[('./a.out', 70), ('./b.out', 70)]" ] ||
	fail "two files: $(report "w['top_by_bytes']")"
[ "$(report "len(set(r['stack'] for r in w['top_by_bytes']))")" = 1 ] || fail "two files: not one stack"

# Python: the write is traced down to the interpreter's native frames.
expect_exit 0 "$REVPERF" profile --io -f json -- python3 -c 'open("py.out", "w").write("x" * 100)'
[ "$(report "[r['bytes'] for r in w['top_by_bytes'] if r['file'] == './py.out']")" = "[100]" ] ||
	fail "python: $(report "w['top_by_bytes']")"
report "[r['stack'] for r in w['top_by_bytes'] if r['file'] == './py.out'][0]" | grep -q '_Py_write' ||
	fail "python: no native interpreter frame in the stack"

# A shell pipeline: echo writes the pipe, cat the file; pipes lose their inode numbers.
expect_exit 0 "$REVPERF" profile --io -f json -- sh -c 'echo hello | cat > pipe.out'
[ "$(report "sorted((r['file'], r['bytes']) for r in w['top_by_bytes'])")" = "[('./pipe.out', 6), ('[pipe]', 6)]" ] ||
	fail "pipeline: $(report "w['top_by_bytes']")"

# Text, and the profiles kept with --dir: run-1, then run-2; the output goes to the log.
expect_exit 0 "$REVPERF" profile --io -d prof -- ./io_O2 stdio text.out 5
expect_grep '^\./io_O2 stdio text.out 5: exit 0, [0-9.]+ s wall, 1 process$' out.txt
expect_grep '^writes: 5 calls, 60 B \(12.0 B/call\), 1 stack trace, 1 file; 0 failed, 0 unfinished$' out.txt
expect_grep '^Top stack traces by bytes written$' out.txt
expect_grep '^ +60 B +5 +12.0  \./text\.out +stdio_writer \(io_modes.c:[0-9]+\)$' out.txt
expect_grep '^Files by bytes written$' out.txt
expect_grep '^log: prof/run-1.log$' out.txt
[ -s prof/run-1.io.json ] || fail "no prof/run-1.io.json"
# The stack around the program's own frames: start-up code and the C library's stdio
# internals are "...", the frame where the program enters the library stays.
expect_grep '^      \.\.\.;main;stdio_writer;(_IO_)?fflush;\.\.\.$' out.txt
expect_no_grep 'libc\.so|__libc_start_main|_IO_file_write' out.txt
expect_exit 0 "$REVPERF" profile --io -- ./io_static stdio static.out 5
expect_grep '^      \.\.\.;main;stdio_writer;(_IO_)?fflush;\.\.\.$' out.txt
# Byte sizes in one unit system (IEC, as log-limit and every other report): 4096 bytes
# are 4 KiB, never "4.10 kB".
expect_exit 0 "$REVPERF" profile --io -- ./io_O2 direct kib.out 4 1024
expect_grep '^writes: 4 calls, 4 KiB \(1024.0 B/call\)' out.txt
expect_grep '^ +4 KiB +4 +1024.0  \./kib\.out ' out.txt
# Counts take their noun in the singular when they are 1.
expect_exit 0 "$REVPERF" profile --io -- ./io_O2 direct one.out 1 10
expect_grep '^writes: 1 call, 10 B \(10.0 B/call\), 1 stack trace, 1 file;' out.txt
expect_grep '^ +10 B +1 call  +\./one\.out$' out.txt
expect_exit 0 "$REVPERF" profile --io -d prof -- sh -c 'echo to-the-log'
expect_grep '^to-the-log$' prof/run-2.log
[ -s prof/run-2.io.json ] || fail "the second run did not get run-2"

# Reads on request: a second report.
printf 'abcdefgh' >in.txt
expect_exit 0 "$REVPERF" profile --io --reads -f json -- dd if=in.txt of=/dev/null bs=4 status=none
python3 -c "import json; r=json.load(open('out.txt'))['reads']; assert [x['bytes'] for x in r['files'] if x['file'] == './in.txt'] == [8], r['files']" ||
	fail "reads: in.txt not read for 8 bytes"

# Bad input, each recorded and never a hang.
expect_exit 2 "$REVPERF" profile --io -d bad -- ./no-such-program
expect_one_line err.txt
expect_grep "cannot execute '\./no-such-program': No such file or directory" err.txt
[ "$(json_get bad/run-1.io.json "d['status']")" = not-started ] || fail "the failed start is not recorded"
expect_exit 0 "$REVPERF" profile --io -f json -- ./io_O2 closed-stdout
[ "$(report "w['failed_calls'], w['top_by_bytes'][0]['file']")" = "1 fd 1 (not open)" ] ||
	fail "closed stdout: $(report "w")"
expect_exit 1 "$REVPERF" profile --io -f json -- ./io_O2 blocked-alarm
[ "$(report "w['status'], w['signal'], w['unfinished_calls']")" = "crashed 14 1" ] ||
	fail "killed in a write: $(report "w['status'], w['signal'], w['unfinished_calls']")"
start=$(date +%s)
expect_exit 1 "$REVPERF" profile --io --timeout 1s -f json -- ./io_O2 ignore-term
[ "$(report "w['status']")" = timeout ] || fail "ignore-term: $(report "w['status']")"
[ $(($(date +%s) - start)) -lt 30 ] || fail "the timeout took too long"
expect_exit 2 "$REVPERF" profile --io --depth 0 -- true
expect_exit 2 "$REVPERF" profile --io --plain -- true
expect_exit 2 "$REVPERF" profile --cct --io -- true
expect_exit 2 "$REVPERF" profile --io -f folded -- true

# diff: runs of two versions of a direct writer (100 B per call, then 120 B).
for i in 1 2 3; do
	expect_exit 0 "$REVPERF" profile --io -d old -- ./io_O2 direct d.out 10 100
	expect_exit 0 "$REVPERF" profile --io -d new -- ./io_O2 direct d.out 10 120
done
expect_exit 1 "$REVPERF" diff old new
expect_grep '^I/O similarity of new \(3 runs\) against old \(3 runs\): 1 of 1 stack trace changed, 0 stopped writing$' out.txt
expect_grep '^ +0\.00 +20\.0 +200 +100\.0 +120\.0 +3/3 +\+0\.0  .*direct_writer;__write$' out.txt
# A legend under the table, one line per column a reader cannot guess.
expect_grep '^  SC: similarity to the baseline, sqrt\(runs inside its range of bytes per call / runs\): 1 all inside, 0 none$' out.txt
expect_grep '^  Impact: distance of bytes per call from that range, mean over the runs outside' out.txt
expect_grep '^  TotalImpact: Impact x calls per run, in bytes per run$' out.txt
# A stack trace that stopped writing: its baseline range is a point, printed once.
for i in 1 2; do
	expect_exit 0 "$REVPERF" profile --io -d st -- ./io_O2 stdio st.out 10
done
expect_exit 1 "$REVPERF" diff st old
expect_grep '^  stopped \(no call in any old run\):$' out.txt
expect_grep '^    120 B/run in 10.0 calls/run, B/call 12.0  .*stdio_writer;' out.txt
expect_exit 1 "$REVPERF" diff -f json old new
[ "$(json_get out.txt "d['similarity']['rows'][0]['sc'], d['similarity']['rows'][0]['total_impact']")" = "0.0 200.0" ] ||
	fail "diff JSON: $(cat out.txt)"
expect_exit 1 "$REVPERF" diff -f markdown old new
expect_grep '^\| 0\.00 \| 20\.0 \| 200 \| 100\.0 \| 120\.0 \| 3/3 \| \+0\.0 \| `.*direct_writer;__write` \|$' out.txt
expect_grep '^- SC: similarity to the baseline' out.txt
expect_grep '^- TotalImpact: Impact x calls per run, in bytes per run$' out.txt
expect_exit 0 "$REVPERF" diff old old
expect_grep 'wrote within the baseline range in every run \(SC 1\)$' out.txt
expect_exit 0 "$REVPERF" diff old/run-1.io.json old/run-2.io.json

# Corrupt profiles: one line naming the file and what is wrong, exit 2.
head -c 200 old/run-1.io.json >trunc.io.json
expect_exit 2 "$REVPERF" diff trunc.io.json old
expect_one_line err.txt
expect_grep '^revperf: error: trunc\.io\.json:[0-9]+:[0-9]+: not a valid I/O profile \(JSON\)' err.txt
sed 's/"version": 1/"version": 99/' old/run-1.io.json >v99.io.json
expect_exit 2 "$REVPERF" diff v99.io.json old
expect_grep 'v99\.io\.json: I/O profile version 99 is newer than this revperf reads' err.txt
python3 -c "
import json; d=json.load(open('old/run-1.io.json')); d['entries'][0]['calls']=-1
json.dump(d, open('neg.io.json', 'w'))"
expect_exit 2 "$REVPERF" diff --io neg.io.json old
expect_grep "neg\.io\.json: entries\[0\]\.calls: expected a non-negative integer" err.txt
mkdir empty
expect_exit 2 "$REVPERF" diff --io empty old
expect_grep 'empty: no I/O profile \(\*\.io\.json\) in this directory' err.txt
expect_exit 2 "$REVPERF" diff --threshold 5 old new
echo ok
