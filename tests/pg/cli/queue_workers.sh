#!/bin/bash
# Several workers at once (docs/team.md): separate processes with separate machine names
# and clones (each its own build cache), claiming with FOR UPDATE SKIP LOCKED. Every job
# runs once, each comparison on one machine; then four workers race for one job: one runs
# it, the others find the queue empty.
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
trap 'queue_cleanup; rm -rf "$TEST_TMP"' EXIT

SLEEP_S=0.05 make_queue_repo p 3
# Six distinct comparisons: next, then c1 ... c6 after it, each against its parent.
(cd p && for i in 1 2 3 4 5 6; do git commit -q --allow-empty -m "c$i" && git tag "c$i"; done)
git clone -q p w1 && git clone -q p w2
cd p
for i in 1 2 3 4 5 6; do
	expect_exit 0 "$REVPERF" submit compare "c$i~1" "c$i" -q
done
[ "$(q "select count(*) from jobs where state = 'queued'")" = 6 ] || fail "6 jobs not queued"
start_worker m1 "$TEST_TMP/w1"
p1=$WORKER_PID
start_worker m2 "$TEST_TMP/w2"
p2=$WORKER_PID
all_done() { [ "$(q "select count(*) from jobs where state = 'done'")" = 6 ]; }
wait_until 300 "6 jobs done" all_done
kill -TERM "$p1" "$p2"
wait_pid "$p1" 60
[ "$WAIT_RC" = 143 ] || fail "worker m1 exited $WAIT_RC on SIGTERM"
wait_pid "$p2" 60
[ "$WAIT_RC" = 143 ] || fail "worker m2 exited $WAIT_RC on SIGTERM"
cat "$TEST_TMP/m1.err" "$TEST_TMP/m2.err"
# Once each: one claim, one comparison per job (6), each comparison's runs on one machine
# and that machine the job's.
[ "$(q "select count(*) from jobs where attempts = 1")" = 6 ] || fail "a job was claimed twice: $(q 'select id, attempts, machine from jobs')"
[ "$(q "select count(*) from comparisons")" = 6 ] || fail "$(q 'select count(*) from comparisons') comparisons for 6 jobs"
[ "$(q "select count(*) from (select comparison_id from runs group by comparison_id having count(distinct machine_id) > 1) x")" = 0 ] ||
	fail "a comparison mixes machines"
n1=$(q "select count(*) from jobs where machine = 'm1'")
n2=$(q "select count(*) from jobs where machine = 'm2'")
[ $((n1 + n2)) = 6 ] || fail "jobs by m1 $n1, by m2 $n2"
# Each machine measured as many comparisons as it ran jobs.
by_runs=$(q "select m.hostname || ' ' || count(distinct r.comparison_id) from runs r join machines m on m.id = r.machine_id group by m.hostname order by 1")
by_jobs=$(q "select machine || ' ' || count(*) from jobs group by machine order by 1")
[ "$by_runs" = "$by_jobs" ] || fail "comparisons per machine: $by_runs; jobs per machine: $by_jobs"
# Each worker built in its own clone's state directory.
[ "$n1" = 0 ] || [ -d "$TEST_TMP/w1/.revperf/worktrees" ] || fail "m1 built elsewhere"
[ "$n2" = 0 ] || [ -d "$TEST_TMP/w2/.revperf/worktrees" ] || fail "m2 built elsewhere"
echo "m1 ran $n1 jobs, m2 $n2"
# The report draws each machine apart, or the one chosen.
expect_exit 0 "$REVPERF" report --each-machine --out site
for m in m1 m2; do
	[ "$(q "select count(*) from jobs where machine = '$m'")" = 0 ] && continue
	expect_grep "^wrote site/$m/index.html: " out.txt
	grep -q "$m" "site/$m/index.html" || fail "the site of $m does not name it"
done
expect_exit 0 "$REVPERF" report --machine "$(q "select machine from jobs where id = 1")" --out one -f json
[ "$(json_get out.txt "d['directory']")" = one ] || fail "report --machine"
expect_exit 2 "$REVPERF" report --machine nosuch --out none
expect_one_line err.txt
expect_grep "no runs measured on machine 'nosuch' in .*; machines with runs: m[12]" err.txt

# The race: four workers started together for one job.
expect_exit 0 "$REVPERF" submit compare base c6 -q
job=$(q "select max(id) from jobs")
pids=""
for w in r1 r2 r3 r4; do
	start_worker "$w" . --once
	pids="$pids $WORKER_PID"
done
for pid in $pids; do
	wait_pid "$pid" 180
	[ "$WAIT_RC" = 0 ] || fail "a racing worker exited $WAIT_RC"
done
[ "$(q "select state || ' ' || attempts from jobs where id = $job")" = "done 1" ] ||
	fail "the raced job: $(q "select state, attempts from jobs where id = $job")"
[ "$(cat "$TEST_TMP"/r?.out | grep -c '1 job done')" = 1 ] || { cat "$TEST_TMP"/r?.out; fail "not exactly one worker ran the job"; }
[ "$(cat "$TEST_TMP"/r?.out | grep -c '0 jobs done, 0 failed')" = 3 ] || fail "the others did not find the queue empty"
[ "$(q "select count(*) from comparisons")" = 7 ] || fail "the raced job ran $(( $(q 'select count(*) from comparisons') - 6 )) times"

# A commit made after the clones: a worker without --fetch fails the job (its clone lacks
# the commit), one with --fetch fetches it first.
git commit -q --allow-empty -m c7 && git tag c7
expect_exit 0 "$REVPERF" submit compare c6 c7 -q
start_worker m1 "$TEST_TMP/w1" --once
wait_pid "$WORKER_PID" 120
job=$(q "select max(id) from jobs")
[ "$(q "select state from jobs where id = $job")" = failed ] || fail "a job for a commit the clone lacks: $(q "select state, error from jobs where id = $job")"
expect_exit 0 "$REVPERF" submit compare c6 c7 -q
start_worker m1 "$TEST_TMP/w1" --once --fetch
wait_pid "$WORKER_PID" 120
[ "$(q "select state from jobs where id = $((job + 1))")" = done ] || fail "--fetch: $(q "select state, error from jobs where id = $((job + 1))")"
expect_grep "== git fetch --quiet --tags ==" "$TEST_TMP/w1/.revperf/worker/job-$((job + 1)).log"
echo ok
