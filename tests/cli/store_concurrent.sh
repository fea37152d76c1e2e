# Two or more revperf processes at once on one state directory: a new database is created
# by one of them while the others wait (the application_id check and the schema creation
# were not one transaction: 1 run in 6-10 failed with "a database of another program"),
# and a lock that another program holds past the busy timeout is reported with its pid
# and command, exit 2, instead of "database is locked", exit 3.
. "$SRCDIR/tests/cli/lib/common.bash"

# A comparison that always says equal: both commands print the same number.
quick() {
	"$REVPERF" compare -q --state-dir "$1" --cmd-a 'echo v 5' --cmd-b 'echo v 5' \
		--metric 'v=/v ([0-9]+)/' --metrics v --primary v --runs 2..2 --warmup 0
}

procs=4
for round in $(seq 1 20); do
	rm -rf state
	pids=
	for k in $(seq 1 $procs); do
		quick state >"out.$k" 2>"err.$k" &
		pids="$pids $!"
	done
	k=0
	for pid in $pids; do
		k=$((k + 1))
		status=0
		wait "$pid" || status=$?
		if [ "$status" != 0 ] || [ -s "err.$k" ]; then
			cat "err.$k"
			fail "round $round: compare $k of $procs on a new database exited $status"
		fi
		expect_grep 'command v: equal' "out.$k"
	done
	# One schema, and every comparison stored.
	n=$(python3 -c "import sqlite3; print(sqlite3.connect('state/revperf.db').execute(\"select count(*) from comparisons where status = 'done'\").fetchone()[0])")
	[ "$n" = $procs ] || { python3 -c "import sqlite3; print(sqlite3.connect('state/revperf.db').execute('select id, status, pid, pid_start, boot_id, host from comparisons').fetchall())"; fail "round $round: $n of $procs comparisons stored"; }
done

# Another program holds the write lock for longer than the busy timeout (60 s by default;
# REVPERF_LOCK_TIMEOUT=10 here, so that the test does not wait a minute).
cat >hold.py <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(60)
PY
python3 hold.py state/revperf.db >hold.out &
holder=$!
trap 'kill $holder 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
for _ in $(seq 1 300); do # up to 30 s: python starts slowly on a busy machine
	grep -q locked hold.out && break
	sleep 0.1
done
grep -q locked hold.out || fail "the lock holder did not start"
REVPERF_LOCK_TIMEOUT=10 expect_exit 2 quick state
kill $holder
cat err.txt
grep -v '^revperf: warning: ' err.txt >errors.txt
expect_one_line errors.txt
expect_grep "database state/revperf.db: .*lock.* pid $holder \\(python3 hold.py state/revperf.db\\) for more than 10 s" errors.txt
expect_no_grep 'database is locked' err.txt
# While it waited, it said who it waits for.
expect_grep "warning: database state/revperf.db is locked by pid $holder" err.txt
echo ok
