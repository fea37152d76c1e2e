# An interrupted compare keeps every finished run (SIGINT, SIGTERM, kill -9), and running
# the same compare again reuses them and continues.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
# A uniquely named sleeper, so that the check for survivors cannot see other tests' sleeps.
nap=nap$RANDOM
cp /bin/sleep "$TEST_TMP/$nap"
printf '[build]\ncommand = true\n[benchmark "nap"]\ncommand = %s 0.2\nruns = 8..8\nwarmup = 0\n' "$TEST_TMP/$nap" >revperf.ini
git commit -qam "slow benchmark" && git tag nap

count_runs() { python3 -c "import sqlite3; print(sqlite3.connect('.revperf/revperf.db').execute(\"select count(*) from runs where status='ok' and warmup=0\").fetchone()[0])"; }
# wait_runs N: until N runs are stored (at most a minute). The signal then comes during the
# runs, however long the setup before them took: the fixed 2.2 s this test waited before
# can end before the third run on a busy machine (with both cores kept busy, the third run
# was stored 1.2-2.7 s after the start, the sixteenth after 3.9-4.4 s; 5 tries). The
# database is opened read-only, so that polling never creates it.
wait_runs() {
	for _ in $(seq 600); do
		[ "$(python3 -c "import sqlite3
try:
    db = sqlite3.connect('file:.revperf/revperf.db?mode=ro', uri=True)
    print(db.execute(\"select count(*) from runs where status='ok' and warmup=0\").fetchone()[0])
except sqlite3.Error:
    print(0)")" -ge "$1" ] && return
		sleep 0.1
	done
	fail "fewer than $1 runs stored after a minute"
}

for sig in INT TERM KILL; do
	rm -rf .revperf
	"$REVPERF" compare nap nap -q >out.txt 2>err.txt &
	pid=$!
	wait_runs 3
	kill -s $sig $pid
	status=0
	wait $pid || status=$?
	case $sig in
	INT) [ $status = 130 ] || fail "SIGINT exit $status" ;;
	TERM) [ $status = 143 ] || fail "SIGTERM exit $status" ;;
	KILL) [ $status = 137 ] || fail "kill -9 exit $status" ;;
	esac
	n=$(count_runs)
	[ "$n" -ge 3 ] && [ "$n" -lt 16 ] || fail "after SIG$sig: $n finished runs stored"
	# No stray benchmark left running.
	# (after kill -9 the child dies of PDEATHSIG, asynchronously: give it a moment;
	# zombies waiting for init to reap them are dead)
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		ps -C "$nap" -o stat= | grep -qv '^Z' || break
		sleep 0.1
	done
	! ps -C "$nap" -o stat= | grep -qv '^Z' || fail "a benchmark process survived SIG$sig"
	# The database is intact and the same compare continues from the stored runs
	# (git mode, distinct commits, so that runs are reusable).
	python3 -c "import sqlite3; assert sqlite3.connect('.revperf/revperf.db').execute('pragma integrity_check').fetchone()[0]=='ok'" ||
		fail "database damaged by SIG$sig"
done
[ "$sig" = KILL ]
echo "interrupted text report:"; cat out.txt

# Resume across distinct revisions: interrupt, then finish with reuse.
rm -rf .revperf
"$REVPERF" compare base nap -q --config revperf.ini >/dev/null 2>&1 &
pid=$!
wait_runs 3
kill -INT $pid; wait $pid || true
before=$(count_runs)
expect_exit 0 "$REVPERF" compare base nap -q -f json --metrics wall --tolerance 50%
reused=$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused'] + d['benchmarks'][0]['runs']['target']['reused']")
[ "$reused" -ge 2 ] && [ "$reused" -le "$before" ] || fail "reused $reused of $before stored runs"
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['target']['ok']")" = 8 ] || fail "did not continue to 8 runs"
echo ok
