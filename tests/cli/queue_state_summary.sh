# `revperf queue --state S` ends with the count of what it shows ("2 queued (--state
# queued)"). It ended with all four counts of the jobs shown, so that `--state queued`
# said "0 running" while a job ran.
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
trap 'queue_cleanup; rm -rf "$TEST_TMP"' EXIT

make_queue_repo p 2
cd p
expect_exit 0 "$REVPERF" submit compare base next
expect_exit 0 "$REVPERF" submit compare base next -- --bench nap
expect_exit 0 "$REVPERF" queue --state queued --no-color
expect_grep '^2 queued \(--state queued\)$' out.txt
expect_no_grep 'running' out.txt
expect_exit 0 "$REVPERF" queue --state done --no-color
[ "$(cat out.txt)" = "0 done (--state done)" ] || fail "queue --state done: $(cat out.txt)"
expect_exit 0 "$REVPERF" queue --no-color
expect_grep '^2 queued, 0 running, 0 done, 0 failed$' out.txt
echo ok
