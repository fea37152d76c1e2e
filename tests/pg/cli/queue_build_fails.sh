#!/bin/bash
# A job whose build fails is marked failed with the build's error, and the worker goes on
# to the next job. Then the bad inputs of submit, worker and queue: one line each, exit
# 2, nothing queued or lost; a worker whose revperf is older than the database's schema
# refuses to claim.
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
trap 'queue_cleanup; rm -rf "$TEST_TMP"' EXIT

SLEEP_S=0.01 make_queue_repo p 3
cd p
sed -i 's/^command = true$/command = test ! -f broken/' revperf.ini
git commit -qam "build refuses a file named broken" && git tag good
touch broken && git add broken && git commit -qm "breaks the build" && git tag bad
git commit -q --allow-empty -m after && git tag after
expect_exit 0 "$REVPERF" submit compare good bad
expect_exit 0 "$REVPERF" submit compare next good -q
start_worker m1 .
done_jobs() { [ "$(q "select count(*) from jobs where state in ('done', 'failed')")" = 2 ]; }
wait_until 120 "two jobs ended" done_jobs
kill -TERM "$WORKER_PID"
wait_pid "$WORKER_PID" 60
[ "$(q "select state from jobs where id = 1")" = failed ] || fail "job 1: $(q 'select state, error from jobs where id = 1')"
q "select error from jobs where id = 1" >err1.txt
expect_grep "^exit 2: build of [0-9a-f]{12} \([0-9a-f]{40}\) failed: exited with status 1; see .*/build-" err1.txt
[ "$(q "select state || ' ' || exit_code from jobs where id = 2")" = "done 0" ] ||
	fail "job 2 after the failed one: $(q 'select state, error from jobs where id = 2')"
expect_grep "job 1 failed: exit 2: build of" "$TEST_TMP/m1.err"
expect_exit 0 "$REVPERF" queue --state failed --no-color
expect_grep "^ +1  failed +compare +compare good bad  on m1, [0-9]+ s: exit 2: build of" out.txt
expect_exit 0 "$REVPERF" queue -f json
[ "$(json_get out.txt "[j['state'] for j in d['jobs']]")" = "['failed', 'done']" ] || fail "json states"
[ "$(json_get out.txt "d['schema']")" = revperf-queue/1 ] || fail "json schema"

# Bad input: one line, exit 2, nothing queued.
expect_exit 2 "$REVPERF" submit compare good nosuchrev
expect_one_line err.txt
expect_grep "nosuchrev" err.txt
expect_exit 2 "$REVPERF" submit frobnicate a b
expect_grep "unknown kind of job 'frobnicate'" err.txt
expect_exit 2 "$REVPERF" submit bisect good bad
expect_grep "bisect needs the benchmark" err.txt
expect_exit 2 "$REVPERF" submit history after..after
expect_grep "holds no commit" err.txt
expect_exit 2 "$REVPERF" queue --state sleeping
expect_grep "unknown --state 'sleeping'" err.txt
expect_exit 2 "$REVPERF" worker --lease 1
expect_grep "--lease expects seconds from 2" err.txt
expect_exit 2 "$REVPERF" submit compare good after -f yaml
[ "$(q "select count(*) from jobs")" = 2 ] || fail "a bad submit queued a job"

# A database of a newer schema: the worker refuses to claim, one line, exit 2; the queued
# job stays queued.
expect_exit 0 "$REVPERF" submit compare good after -q
q "update schema_version set version = version + 1"
expect_exit 2 "$REVPERF" worker --once
expect_one_line err.txt
expect_grep "has schema version [0-9]+, newer than this revperf understands" err.txt
q "update schema_version set version = version - 1"
[ "$(q "select state from jobs where id = 3")" = queued ] || fail "job 3 not queued any more"
echo ok
