# What the runner does per run (docs/measurement.md, "The spawner"), seen in the system
# calls of revperf and its spawner (strace), not in timings: a run costs what it must.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v strace >/dev/null || { echo "skipped: strace is not installed"; exit 77; }

# No perf_event counter is opened when no measured metric needs one: an inherited counter
# makes every fork, exit and context switch of the benchmark dearer.
strace -f -qq -e trace=perf_event_open -o trace.txt \
	"$REVPERF" compare --cmd-a true --cmd-b true --runs 3..3 --warmup 0 --metrics wall,cpu \
	>out.txt 2>err.txt || fail "compare under strace: $(cat err.txt)"
expect_no_grep 'perf_event_open' trace.txt

# Asked for, task-clock is counted (where the kernel allows it) and judged.
strace -f -qq -e trace=perf_event_open -o trace.txt \
	"$REVPERF" compare --cmd-a true --cmd-b true --runs 3..3 --warmup 0 \
	--metrics wall,task-clock -f json >out.txt 2>err.txt || fail "task-clock: $(cat err.txt)"
expect_grep 'perf_event_open' trace.txt
if grep -q 'perf_event_open(.*PERF_COUNT_SW_TASK_CLOCK.*= [0-9]' trace.txt; then
	[ "$(json_get out.txt "[m['baseline']['n'] for m in d['benchmarks'][0]['metrics']
		if m['name'] == 'task-clock'][0]")" = 3 ] || fail "task-clock not measured: $(cat out.txt)"
fi
