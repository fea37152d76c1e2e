# Honest reports after failures: a metric without a verdict says why (interrupted, no
# successful run of a side, never in the output), the JSON's exit_code is the process's,
# "run the same command again" only where runs are reused, a primary metric.NAME that never
# matches is an error naming it with a line of the output, history says a metric without
# values is unmeasured, and a comparison killed with -9 is marked abandoned later.
. "$SRCDIR/tests/cli/lib/common.bash"

db_query() { python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$@"; }

# Every run of the target fails.
expect_exit 1 "$REVPERF" compare -q --cmd-a true --cmd-b false --runs 2..2 --warmup 0
expect_grep '^  wall \*  +unmeasured no successful run of the target$' out.txt
expect_no_grep 'not supported on this machine' out.txt
expect_grep 'command: target broken' out.txt

# Interrupted: the process exits 130 and the JSON says so; in --cmd-a/--cmd-b mode
# nothing is reused, so nothing says to run it again.
for format in json text; do
	rm -rf .revperf
	"$REVPERF" compare -q --cmd-a 'sleep 0.3' --cmd-b 'sleep 0.3' --runs 5..5 --warmup 0 \
		-f $format >out.txt 2>err.txt &
	pid=$!
	sleep 1.2
	kill -INT $pid
	status=0
	wait $pid || status=$?
	[ $status = 130 ] || { cat out.txt err.txt; fail "SIGINT: exit $status"; }
done
expect_grep '^  wall \*  +unmeasured interrupted before a verdict$' out.txt
expect_grep '^interrupted: the runs that finished are stored$' out.txt
expect_no_grep 'again' out.txt
rm -rf .revperf
"$REVPERF" compare -q --cmd-a 'sleep 0.3' --cmd-b 'sleep 0.3' --runs 5..5 --warmup 0 -f json \
	>out.json 2>err.txt &
pid=$!
sleep 1.2
kill -TERM $pid
status=0
wait $pid || status=$?
[ $status = 143 ] || fail "SIGTERM: exit $status"
[ "$(json_get out.json "d['exit_code']")" = 143 ] || fail "the JSON says exit_code $(json_get out.json "d['exit_code']"), the process 143"
[ "$(json_get out.json "d['interrupted']")" = True ] || fail "not interrupted in the JSON"
[ "$(json_get out.json "d['benchmarks'][0]['metrics'][0]['unmeasured_reason']")" = "interrupted before a verdict" ] ||
	fail "no reason in the JSON"

# A primary metric the benchmark prints whose pattern never matches: an error naming it,
# with a line of the output, exit 2, after the first look (not the whole run budget).
rm -rf .revperf
expect_exit 2 "$REVPERF" compare -q --cmd-a 'echo speed 12 MBps' --cmd-b 'echo speed 12 MBps' \
	--metric 'speed=/speed: ([0-9]+)/ higher-is-better' --primary speed --runs 3..30 --warmup 0
expect_grep "error: primary metric 'speed' was in the output of none of the 3 successful runs of side A \\(A\\): /speed: \\(\\[0-9\\]\\+\\)/ never matched; the last line of its output: 'speed 12 MBps'" out.txt
expect_grep '^  speed \*  +unmeasured never in the output of a run$' out.txt
expect_grep '^command: 3 \+ 3 runs' out.txt

# kill -9: the comparison stays 'running' until the next open sees its process gone.
rm -rf .revperf
"$REVPERF" compare -q --cmd-a 'sleep 0.2' --cmd-b 'sleep 0.2' --runs 20..20 --warmup 0 \
	>/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do
	[ -e .revperf/revperf.db ] && [ "$(db_query .revperf/revperf.db 'select count(*) from runs' 2>/dev/null)" -ge 1 ] 2>/dev/null && break
	sleep 0.1
done
[ "$(db_query .revperf/revperf.db 'select status from comparisons where id = 1')" = running ] ||
	fail "the comparison is not running"
kill -KILL $pid
wait $pid 2>/dev/null || true
[ "$(db_query .revperf/revperf.db 'select status from comparisons where id = 1')" = running ] ||
	fail "nobody looked yet, but the status changed"
expect_exit 0 "$REVPERF" compare -q --cmd-a 'echo v 5' --cmd-b 'echo v 5' \
	--metric 'v=/v ([0-9]+)/' --metrics v --primary v --runs 2..2 --warmup 0
[ "$(db_query .revperf/revperf.db 'select status from comparisons where id = 1')" = abandoned ] ||
	fail "the comparison killed with -9 is still $(db_query .revperf/revperf.db 'select status from comparisons where id = 1')"
[ "$(db_query .revperf/revperf.db 'select status from comparisons where id = 2')" = done ] ||
	fail "the second comparison is not done"

# Git mode reuses runs: there, an interrupted comparison says to run it again.
make_tiny_repo repo
cd repo
printf '[benchmark "nap"]\ncommand = sleep 0.3\nruns = 5..5\nwarmup = 0\n' >revperf.ini
git commit -qam nap && git tag nap
"$REVPERF" compare -q base nap >out.txt 2>err.txt &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid || true
expect_grep '^interrupted: the runs that finished are stored; run the same command again to continue$' out.txt

# history: a metric that no run has a value of is unmeasured, not "too few".
cat >revperf.ini <<'INI'
[benchmark "nap"]
command = echo v 5
metrics = wall, never
metric.never = /no such line ([0-9]+)/
runs = 2..2
warmup = 0
INI
git commit -qam "never" && git tag never
echo x >x && git add x && git commit -qm one
echo y >y && git add y && git commit -qm two
expect_exit 0 "$REVPERF" history nap..HEAD -q
expect_grep '^  nap never: unmeasured: no commit has a value' out.txt
expect_no_grep 'never: none' out.txt
echo ok
