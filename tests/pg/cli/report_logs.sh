#!/bin/bash
# Logs in the store (docs/store.md, "Logs"): each run's output and each build's log are kept
# compressed in the database with the run and the build, so that a report built from the
# shared store on another machine (where the state directory's log files are not) still
# shows them: written into the site and linked there. Where the files are, the report
# links them as before. Through tests/pg/run.sh (REVPERF_STORE: the shared database).
. "$SRCDIR/tests/cli/lib/common.bash"
: "${REVPERF_STORE:?run through tests/pg/run.sh}"
. "$PG_ENV"
q() { "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$REVPERF_STORE" -c "$1"; }

make_tiny_repo p && cd p
cat >revperf.ini <<'INI'
[build]
command = echo "build-marker-$(git rev-parse --short HEAD)"
[benchmark "hello"]
command = sh ./work.sh
runs = 3..3
warmup = 0
INI
printf 'echo "hello from run $$"\n' >work.sh
git add -A && git commit -qm hello && git tag h1
git commit -q --allow-empty -m next
expect_exit 0 "$REVPERF" compare -q -t 90% h1 HEAD
[ "$(q 'select count(*) from run_logs')" = 6 ] || fail "run logs stored: $(q 'select count(*) from run_logs')"
[ "$(q 'select count(*) from build_logs')" = 2 ] || fail "build logs stored: $(q 'select count(*) from build_logs')"
[ "$(q 'select min(length) from run_logs')" -gt 10 ] || fail "empty run logs"

# On the measuring machine: the links point at the files, nothing is copied.
expect_exit 0 "$REVPERF" report -q -o "$TEST_TMP/here"
page=$(ls "$TEST_TMP/here/commits/"*.html | head -n 1)
expect_grep 'href="file://[^"]*/logs/' "$page"
[ ! -d "$(dirname "$page")/$(basename "$page" .html)/logs" ] || fail "logs copied although the files are here"

# Elsewhere (the files gone): the logs come from the store, into the site.
rm -rf .revperf/logs
expect_exit 0 "$REVPERF" report -q --state-dir "$TEST_TMP/elsewhere" -o "$TEST_TMP/there"
page=$(grep -l 'run-[0-9]*\.log' "$TEST_TMP/there/commits/"*.html | head -n 1)
[ -n "$page" ] || fail "no page links a stored run log"
run_log=$(grep -o '[^"]*/logs/run-[0-9]*\.log' "$page" | head -n 1)
grep -q '^hello from run [0-9]*$' "$TEST_TMP/there/commits/$run_log" ||
	fail "the stored run log is not the run's output: $(cat "$TEST_TMP/there/commits/$run_log")"
expect_grep '[0-9.]+ (B|KiB|MiB), from the store' "$page"
build_log=$(grep -o '[^"]*/logs/build\.log' "$page" | head -n 1)
[ -n "$build_log" ] || fail "the build log is not linked from the store"
grep -q "^build-marker-" "$TEST_TMP/there/commits/$build_log" || fail "the stored build log"
echo "ok"
