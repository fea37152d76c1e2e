# What the runner does per run (docs/measurement.md, "The spawner"), seen in the system
# calls of revperf and its spawner (strace), not in timings: a run costs what it must.
# The comparisons are of `true` against itself: they decide on wchar (0 bytes both sides),
# since a timed A/A is decided worse or better at rate alpha (CI saw one here under strace).
. "$SRCDIR/tests/cli/lib/common.bash"
command -v strace >/dev/null || { echo "skipped: strace is not installed"; exit 77; }
# LeakSanitizer cannot run under ptrace: the sanitizer build runs here without it.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

# No perf_event counter is opened when no measured metric needs one: an inherited counter
# makes every fork, exit and context switch of the benchmark dearer.
strace -f -qq -e trace=perf_event_open -o trace.txt \
	"$REVPERF" compare --cmd-a true --cmd-b true --runs 3..3 --warmup 0 --metrics wall,cpu \
	--primary wchar >out.txt 2>err.txt || fail "compare under strace: $(cat err.txt)"
expect_no_grep 'perf_event_open' trace.txt

# No /proc/<pid>/io either when no measured metric reads rchar or wchar: its open, in the
# child before the exec, was inside every run's wall time. Asked for (wchar), it is opened.
strace -f -qq -e trace=openat -o trace.txt \
	"$REVPERF" compare --cmd-a true --cmd-b true --runs 3..3 --warmup 0 --metrics wall,cpu \
	--primary cpu >out.txt 2>err.txt
expect_no_grep '/proc/self/io' trace.txt
strace -f -qq -e trace=openat -o trace.txt \
	"$REVPERF" compare --cmd-a true --cmd-b true --runs 3..3 --warmup 0 --metrics wall,wchar \
	--primary wchar -f json >out.txt 2>err.txt || fail "compare under strace: $(cat err.txt)"
[ "$(grep -c '/proc/self/io' trace.txt)" -ge 6 ] || fail "/proc/self/io opened $(grep -c '/proc/self/io' trace.txt) times for 6 runs"
[ "$(json_get out.txt "[m['baseline']['n'] for m in d['benchmarks'][0]['metrics']
	if m['name'] == 'wchar'][0]")" = 3 ] || fail "wchar not measured: $(cat out.txt)"

# Asked for, task-clock is counted (where the kernel allows it) and judged.
strace -f -qq -e trace=perf_event_open -o trace.txt \
	"$REVPERF" compare --cmd-a true --cmd-b true --runs 3..3 --warmup 0 \
	--metrics wall,task-clock --primary wchar -f json >out.txt 2>err.txt || fail "task-clock: $(cat err.txt)"
expect_grep 'perf_event_open' trace.txt
if grep -q 'perf_event_open(.*PERF_COUNT_SW_TASK_CLOCK.*= [0-9]' trace.txt; then
	[ "$(json_get out.txt "[m['baseline']['n'] for m in d['benchmarks'][0]['metrics']
		if m['name'] == 'task-clock'][0]")" = 3 ] || fail "task-clock not measured: $(cat out.txt)"
fi

# One request per run, and the spawner's reports of a run in two writes (the fork, then
# the end with what escaped): no round trip between revperf, the spawner and the child
# before the exec, whose scheduling delays were in the wall time.
strace -f -qq -e trace=sendmsg,sendto,recvfrom,read,execve -o trace.txt \
	"$REVPERF" compare --cmd-a true --cmd-b true --runs 10..10 --warmup 0 --metrics wall \
	--primary wchar >out.txt 2>err.txt || fail "compare under strace: $(cat err.txt)"
python3 - trace.txt <<'PY' || fail "protocol: $(grep -c . trace.txt) lines of trace"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
main = lines[0].split()[0]
spawner = next(l.split()[0] for l in lines if re.search(r'execve\("[^"]*revperf-spawn"', l))
def calls(pid, pattern):
    return sum(1 for l in lines if l.split()[0] == pid and re.search(pattern, l))
runs = 20
sent = calls(main, r'\b(sendmsg|sendto)\(')
assert sent == runs, f"revperf sent {sent} messages for {runs} runs"
# On the spawner's socket (descriptor 3): the hello, then per run SPAWNED (written by the
# child before its exec) and the end (by the spawner).
children = {l.split()[0] for l in lines if re.search(r'execve\("/(usr/)?bin/true"', l)}
assert len(children) == runs, f"{len(children)} children for {runs} runs"
replies = sum(calls(pid, r'\bsendto\(3,') for pid in children | {spawner})
assert replies == 2 * runs + 1, f"the spawner wrote {replies} times for {runs} runs"
# The next run is submitted before revperf reads anything of the current one (after the
# spawner's hello): the spawner starts it at the exit, while revperf stores the current one.
mine = [l for l in lines if l.split()[0] == main and re.search(r'\b(sendmsg|recvfrom)\(', l)]
first = [i for i, l in enumerate(mine) if 'sendmsg(' in l][:2]
assert len(first) == 2 and not any('recvfrom(' in l for l in mine[first[0]:first[1]]), \
    "the second run was not submitted before the first one's reports were read"
# A child waits for nothing before its exec (a wait for the spawner was a wake-up that a
# loaded machine made milliseconds long, inside the wall time): it passes its descriptors.
for pid in children:
    before = []
    for l in lines:
        if l.split()[0] != pid:
            continue
        if 'execve(' in l:
            break
        before.append(l)
    assert any('sendmsg(' in l for l in before), f"child {pid} passed no descriptors"
    assert not any(re.search(r'\b(read|recvfrom)\(', l) for l in before), \
        f"child {pid} waited before its exec: {before}"
PY

# Between one run's exit and the start of the run submitted behind it, the spawner only
# collects the run and reports it: it reads the next request without a return to its
# poll, what the child sent before its exec was read at the clone, and the ended run's
# /proc/<pid>/io is closed after the next clone. Runs of 50 ms leave revperf the time to
# submit the next one before the exit, even under strace.
strace -f -qq -e trace=ppoll,recvmsg,read,clone,close,execve -o trace.txt \
	"$REVPERF" compare --cmd-a 'sleep 0.05' --cmd-b 'sleep 0.05' --runs 3..3 --warmup 0 \
	--metrics wall --primary wchar >out.txt 2>err.txt || fail "compare under strace: $(cat err.txt)"
python3 - trace.txt <<'PY' || fail "at the exit: $(grep -c . trace.txt) lines of trace"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
spawner = next(l.split()[0] for l in lines if re.search(r'execve\("[^"]*revperf-spawn"', l))
mine = [l for l in lines if l.split()[0] == spawner]
early = 0
for i, l in enumerate(mine):
    if '--- SIGCHLD' not in l:
        continue
    io = next((re.search(r'read\((\d+), "rchar', m).group(1) for m in mine[i:]
               if re.search(r'read\(\d+, "rchar', m)), None)
    end = next((j for j in range(i + 1, len(mine)) if '--- SIGCHLD' in mine[j]), len(mine))
    clone = next((j for j in range(i + 1, end) if 'clone(' in mine[j]), None)
    if io is None or clone is None:
        continue
    between = mine[i + 1:clone]
    # Submitted after the exit (the first run after a look): the spawner waited for it.
    if any('ppoll(' in m for m in between):
        continue
    assert not any(re.search(r'recvmsg\((?!3,)\d+', m) for m in between), \
        f"the children's socket read between two runs: {between}"
    assert not any(re.search(r'close\(%s\b' % io, m) for m in between), \
        f"/proc/<pid>/io (descriptor {io}) closed between two runs: {between}"
    assert any(re.search(r'close\(%s\b' % io, m) for m in mine[clone:end]), \
        f"/proc/<pid>/io (descriptor {io}) not closed after the next clone"
    early += 1
# 6 runs: each of the 5 after the first starts at the exit of the one before it.
assert early >= 3, f"{early} runs started at the exit of the one before"
PY
