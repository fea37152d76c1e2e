# With timeout = auto, a baseline warm-up that succeeded sets the target's timeout (10 x its
# wall time, at least 60 s), and the baseline's warm-up goes first while no baseline run
# has. A target that hangs took the provisional 600 s for its warm-up, and as much for its
# first timed run: twenty minutes of a fleet's worker before the comparison gave up, four
# now. The test stops revperf once the target's warm-up timed out (about 60 s).
. "$SRCDIR/tests/cli/lib/common.bash"

hang=hang$RANDOM$$
cp /bin/sleep "$TEST_TMP/$hang"
trap 'kill -9 $pid 2>/dev/null; pkill_hang; rm -rf "$TEST_TMP"' EXIT
# the test's own sleeper, by its unique name, killed if revperf left it
pkill_hang() { for p in $(ps -C "$hang" -o pid= 2>/dev/null); do kill -9 "$p" 2>/dev/null; done; }

"$REVPERF" compare --cmd-a 'sh -c "exit 0"' --cmd-b "$TEST_TMP/$hang 1000" -m wall --runs 3..3 \
	--seed 3 -q >out.txt 2>err.txt &
pid=$!
db=.revperf/revperf.db
timed_out() { [ "$(db_query $db "SELECT count(*) FROM runs WHERE side = 'B' AND warmup = 1 AND status = 'timeout'" 2>/dev/null)" = 1 ]; }
for i in $(seq 1 450); do
	timed_out && break
	kill -0 $pid 2>/dev/null || fail "revperf ended: $(cat err.txt)"
	sleep 0.2
done
timed_out || fail "the target's warm-up did not time out within 90 s: $(db_query $db "SELECT side, warmup, status, detail FROM runs")"
[ "$(db_query $db "SELECT side FROM runs WHERE warmup = 1 ORDER BY id LIMIT 1")" = A ] ||
	fail "the baseline's warm-up did not go first: $(db_query $db "SELECT side, warmup, status FROM runs ORDER BY id")"
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || fail "revperf interrupted: exit $rc, $(cat err.txt)"
echo ok
