# The output the store keeps of each run (docs/store.md, "Logs"): a run that printed keeps
# its output, compressed, with the run; a successful run that printed nothing keeps no copy
# (its length of 0 is what a report shows: "no output"); a failed run keeps its copy even
# when it is empty. A report built where the log files are gone shows the same as where
# they are: the stored output, or "no output". Runs on both engines (tests/pg/run.sh).
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo p && cd p
cat >revperf.ini <<'INI'
[benchmark "quiet"]
command = true
runs = 3..3
warmup = 0
[benchmark "hello"]
command = sh ./work.sh
runs = 3..3
warmup = 0
INI
printf 'echo "hello from run $$"\n' >work.sh
git add -A && git commit -qm hello && git tag h1
git commit -q --allow-empty -m next
expect_exit 0 "$REVPERF" compare -q -t 90% h1 HEAD
db=.revperf/revperf.db
logs_of() {
	db_query $db "SELECT count(*) || ' ' || coalesce(min(l.length), -1) || ' ' ||
		coalesce(min(r.log_length), -1) FROM run_logs l JOIN runs r ON r.id = l.run_id
		JOIN benchmarks b ON b.id = r.benchmark_id WHERE b.name = '$1'"
}
runs_of() {
	db_query $db "SELECT count(*) FROM runs r JOIN benchmarks b ON b.id = r.benchmark_id
		WHERE b.name = '$1' AND r.log_length = 0"
}
# hello: its 6 runs' lines stored, as long as each run's part of its log; quiet: 6 runs
# without output, no copy.
read -r n len log_len <<<"$(logs_of hello)"
[ "$n" = 6 ] && [ "$len" -gt 10 ] && [ "$len" = "$log_len" ] ||
	fail "hello: $n stored logs, shortest $len bytes (log_length $log_len)"
[ "$(logs_of quiet)" = "0 -1 -1" ] || fail "quiet: stored logs $(logs_of quiet)"
[ "$(runs_of quiet)" = 6 ] || fail "quiet: $(runs_of quiet) runs of length 0"

# Where the files are gone: hello's runs link the stored copy, quiet's say "no output".
rm -rf .revperf/logs
expect_exit 0 "$REVPERF" report -q -o "$TEST_TMP/there"
page="$TEST_TMP/there/commits/$(git rev-parse HEAD).html"
[ "$(grep -Eo 'log</a> <span class="note">[0-9]+ B, from the store</span>' "$page" | wc -l)" = 6 ] ||
	fail "hello's 6 runs do not all link their stored output"
[ "$(grep -o '<td><span class="note">no output</span></td>' "$page" | wc -l)" = 6 ] ||
	fail "quiet's 6 runs do not all say 'no output'"
run_log=$(grep -o '[^"]*/logs/run-[0-9]*\.log' "$page" | head -n 1)
grep -q '^hello from run [0-9]*$' "$TEST_TMP/there/commits/$run_log" ||
	fail "the stored log is not the run's output: $(cat "$TEST_TMP/there/commits/$run_log")"

# A failure keeps its copy, empty or not: the baseline's 3 failed runs without output
# (the last comparison; on PostgreSQL the same database as above).
expect_exit 2 "$REVPERF" compare --cmd-a false --cmd-b true --runs 3..3 -q \
	--state-dir "$TEST_TMP/fail"
fdb="$TEST_TMP/fail/revperf.db"
last="r.comparison_id = (SELECT max(id) FROM comparisons)"
kept() {
	db_query "$fdb" "SELECT count(*) || ' ' || coalesce(max(l.length), -1) FROM run_logs l
		JOIN runs r ON r.id = l.run_id WHERE $last AND r.status = '$1'"
}
[ "$(kept failed)" = "3 0" ] || fail "failed runs' logs: $(kept failed)"
[ "$(kept ok)" = "0 -1" ] || fail "a successful run without output kept a copy: $(kept ok)"
