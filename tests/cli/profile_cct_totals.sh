# revperf profile --cct prints totals a user can check against the run: the wall and CPU
# time of the run, what the clock measures (elapsed, waiting included), each thread's time
# in instrumented functions and their sum, labelled as a sum over threads. Two threads
# sleep 300 ms each inside an instrumented function: their time holds the sleep (waiting
# is included, and said so), the sum passes the wall time, and none of it is CPU time.
. "$SRCDIR/tests/cli/lib/common.bash"

cat >threads.c <<'EOF'
#include <pthread.h>
#include <time.h>
#include <stddef.h>

__attribute__((noinline)) void wait_a_bit(void)
{
	struct timespec ts = {0, 300 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void *worker(void *arg)
{
	wait_a_bit();
	return arg;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
EOF
cc -O1 -g -finstrument-functions -pthread -o threads threads.c || fail "cannot compile"

expect_exit 0 "$REVPERF" profile --cct -- ./threads
expect_grep '^\./threads: exit 0, [0-9.]+ s wall, [0-9.]+ s CPU \(user \+ system, every process and thread\), 1 process profile' out.txt
expect_grep '^clock (tsc|monotonic): elapsed time from a call.s entry to its exit, waiting included' out.txt
expect_grep '^time in instrumented functions per thread \(elapsed, waiting included\):$' out.txt
expect_grep '^ +[0-9.]+ m?s  pid [0-9]+, thread [0-9]+ \(main thread\)$' out.txt
[ "$(grep -cE '^ +[0-9.]+ m?s  pid [0-9]+, thread [0-9]+$' out.txt)" = 2 ] ||
	fail "expected two worker threads: $(cat out.txt)"
expect_grep '^ +[0-9.]+ m?s  summed over 3 threads: threads overlap in time, so the sum can pass the wall time$' out.txt
expect_grep '^total [0-9.]+ m?s, summed over 3 threads, in [0-9]+ contexts$' out.txt
# Each worker slept 300 ms inside wait_a_bit: elapsed time holds it; the three threads sum
# to at least 900 ms (main waits for both), more than the wall time, and far more than the
# CPU time the run used.
python3 - out.txt <<'PY' || fail "totals: $(cat out.txt)"
import re, sys
text = open(sys.argv[1]).read()
def secs(v, u):
    return float(v) / (1000 if u == "ms" else 1)
wall, cpu = map(float, re.search(r"exit 0, ([0-9.]+) s wall, ([0-9.]+) s CPU", text).groups())
workers = [secs(v, u) for v, u in re.findall(r"^ +([0-9.]+) (m?s)  pid \d+, thread \d+$", text, re.M)]
total = secs(*re.search(r"^total ([0-9.]+) (m?s), summed", text, re.M).groups())
summed = secs(*re.search(r"^ +([0-9.]+) (m?s)  summed over 3 threads", text, re.M).groups())
assert all(w >= 0.299 for w in workers), workers
assert abs(total - summed) <= 0.001 * total, (total, summed)
assert total >= 0.899 and total > wall and total > cpu + 0.5, (total, wall, cpu)
PY
# JSON: the clock and each thread.
expect_exit 0 "$REVPERF" profile --cct -f json -- ./threads
[ "$(json_get out.txt "d['clock'] in ('tsc', 'monotonic'), len(d['threads']), all(t['total'] >= 3e8 for t in d['threads'] if t['tid'] != t['pid'])")" = \
	"True 3 True" ] || fail "JSON threads: $(cat out.txt)"
echo ok
