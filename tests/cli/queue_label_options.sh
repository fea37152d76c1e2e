# `revperf queue` shows the options a job's command gets (after `--` of submit): two
# jobs of the same revisions, one for every benchmark and one for a single benchmark,
# read the same ("compare base next") before, so that a job running for ten minutes on
# one hanging benchmark could not be told from the full comparison.
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
trap 'queue_cleanup; rm -rf "$TEST_TMP"' EXIT

make_queue_repo p 2
cd p
expect_exit 0 "$REVPERF" submit compare base next
expect_grep '^queued job 1: compare base next$' out.txt
expect_exit 0 "$REVPERF" submit compare base next -- --bench nap -r 3..3
expect_grep '^queued job 2: compare base next -- --bench nap -r 3..3$' out.txt
expect_exit 0 "$REVPERF" submit history next -n 1 -- --tolerance 5% --build-command 'make -j2'
expect_grep "^queued job 3: history [0-9a-f]{12} next -- --tolerance 5% --build-command 'make -j2'\$" out.txt
expect_exit 0 "$REVPERF" submit bisect base next -- --bench "it's"
expect_grep "^queued job 4: bisect base next -- --bench 'it'\\\\''s'\$" out.txt
expect_exit 0 "$REVPERF" queue --no-color
expect_grep '^ +1  queued +compare +compare base next$' out.txt
expect_grep '^ +2  queued +compare +compare base next -- --bench nap -r 3..3$' out.txt
expect_exit 0 "$REVPERF" queue -f json
[ "$(json_get out.txt "d['jobs'][1]['label']")" = "compare base next -- --bench nap -r 3..3" ] ||
	fail "JSON label: $(json_get out.txt "d['jobs'][1]")"
echo ok
