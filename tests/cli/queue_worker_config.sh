# A worker whose configuration does not load (a key mistyped in its clone's revperf.ini)
# claims no job. It claimed every job of the queue in turn, each failing in a second with
# the same error line: one broken clone emptied the team's queue into `failed`. Now it
# refuses to start (exit 2, one line saying why); broken while it runs, it leaves the
# jobs queued until the file loads again, then takes them.
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
trap 'queue_cleanup; rm -rf "$TEST_TMP"' EXIT

SLEEP_S=0.02 make_queue_repo p 2
cd p
db=.revperf/revperf.db
state() { db_query "${REVPERF_STORE:-$db}" "SELECT group_concat(state, ',') FROM (SELECT state FROM jobs ORDER BY id) j"; }
[ -z "${REVPERF_STORE:-}" ] || state() { db_query "$REVPERF_STORE" "SELECT string_agg(state, ',' ORDER BY id) FROM jobs"; }
expect_exit 0 "$REVPERF" submit compare base next
expect_exit 0 "$REVPERF" submit compare base next
# The store named outside the file (as a team does: --store, REVPERF_STORE), so that
# opening it does not read the file first.
store=${REVPERF_STORE:-$PWD/$db}
good=$(cat revperf.ini)
printf '%s\ntolerence = 3%%\n' "$good" >revperf.ini

# Started with it: exit 2, the reason, no job claimed.
expect_exit 2 "$REVPERF" worker --machine m1 --once --store "$store"
expect_grep "revperf.ini:[0-9]+: unknown option 'tolerence'" err.txt
expect_grep 'the worker takes no job while its configuration does not load' err.txt
expect_exit 2 "$REVPERF" worker --machine m1 --idle 0.1 --store "$store"
[ "$(state)" = queued,queued ] || fail "jobs claimed by a worker that cannot load its configuration: $(state)"

# Broken while it runs: nothing claimed until it loads again, then the jobs are done.
printf '%s\n' "$good" >revperf.ini
cp revperf.ini other.ini
start_worker m1 . --config other.ini --store "$store"
wait_until 120 "the first two jobs done" eval '[ "$(state)" = done,done ]'
printf '[build]\ncommand = true\n' >other.ini
wait_until 30 "the worker's warning" grep -q 'claims no job until its configuration loads' "$TEST_TMP/m1.err"
expect_grep 'other.ini defines no benchmark' "$TEST_TMP/m1.err"
expect_exit 0 "$REVPERF" submit compare base next
expect_exit 0 "$REVPERF" submit compare base next
sleep 1
[ "$(state)" = done,done,queued,queued ] || fail "jobs claimed with a configuration that does not load: $(state); $(cat "$TEST_TMP/m1.err")"
cp revperf.ini other.ini
wait_until 120 "the jobs done once the configuration loads" eval '[ "$(state)" = done,done,done,done ]'
expect_grep 'the configuration loads again; the worker takes jobs' "$TEST_TMP/m1.err"
kill -TERM "$WORKER_PID"
wait_pid "$WORKER_PID" 60
echo ok
