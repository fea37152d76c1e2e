# The queue on SQLite (docs/team.md): submit, workers on this machine (two at once, under
# SQLite's write lock), queue; every job once. The conventions: -f json, -q, --no-color.
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
trap 'queue_cleanup; rm -rf "$TEST_TMP"' EXIT
[ -z "${REVPERF_STORE:-}" ] || { echo "SKIP: the SQLite queue"; exit 77; }

SLEEP_S=0.02 make_queue_repo p 3
cd p
for i in 1 2 3 4; do git commit -q --allow-empty -m "c$i" && git tag "c$i"; done
db=.revperf/revperf.db
expect_exit 0 "$REVPERF" submit compare base next -f json
[ "$(json_get out.txt "d['schema']")" = revperf-submit/1 ] || fail "submit json"
[ "$(json_get out.txt "d['jobs'][0]['id']")" = 1 ] || fail "submit json id"
expect_exit 0 "$REVPERF" submit history next..c4
expect_grep "^queued job 5: history [0-9a-f]{12} c4$" out.txt
[ "$(db_query $db "select count(*) from jobs where kind = 'history-commit'")" = 4 ] || fail "4 history jobs"
expect_exit 0 "$REVPERF" submit compare base c4 -q -t fast
[ ! -s out.txt ] || fail "-q printed"
expect_exit 0 "$REVPERF" queue --no-color
expect_grep "^ +6  queued +compare +compare base c4  \[tag fast\]$" out.txt
expect_grep "^6 queued, 0 running, 0 done, 0 failed$" out.txt
NO_COLOR=1 expect_exit 0 "$REVPERF" queue
expect_no_grep $'\033' out.txt

# Two workers at once on this machine (one untagged, one for tag fast), same project.
start_worker s1 .
p1=$WORKER_PID
start_worker s2 . --machine-tag fast
p2=$WORKER_PID
all_done() { [ "$(db_query $db "select count(*) from jobs where state = 'done'")" = 6 ]; }
wait_until 300 "6 jobs done" all_done
kill -TERM "$p1" "$p2"
wait_pid "$p1" 60
wait_pid "$p2" 60
[ "$(db_query $db "select count(*) from jobs where attempts = 1")" = 6 ] || fail "a job ran twice"
# s1 takes untagged jobs only: the tagged one is s2's.
[ "$(db_query $db "select machine from jobs where id = 6")" = s2 ] || fail "the tagged job ran on $(db_query $db 'select machine from jobs where id = 6')"
[ "$(db_query $db "select count(*) from (select comparison_id from runs group by comparison_id having count(distinct machine_id) > 1)")" = 0 ] ||
	fail "a comparison mixes machines"
expect_exit 0 "$REVPERF" queue -f json
[ "$(json_get out.txt "sorted(set(j['state'] for j in d['jobs']))")" = "['done']" ] || fail "queue json"
[ "$(json_get out.txt "d['jobs'][5]['machine_tag']")" = fast ] || fail "queue json tag"
expect_exit 0 "$REVPERF" worker --once -f json
[ "$(json_get out.txt "d['done']")" = 0 ] || fail "worker --once on an empty queue"
echo ok
