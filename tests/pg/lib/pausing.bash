# write_pausing_work FILE: a benchmark script (sh FILE) for the tests that restart the
# server mid-run (store_restart, queue_restart): each run counts itself in $COUNTER; the
# run numbered $PAUSE_AT waits for the test (it creates $FLAGS/paused, then waits up to
# 120 s for $FLAGS/resume), so that the server is down while a benchmark runs, not while a
# run is being stored. Then a short busy loop.
write_pausing_work() {
	cat >"$1" <<'SH'
n=$(($(cat "$COUNTER" 2>/dev/null || echo 0) + 1))
echo $n >"$COUNTER"
if [ "$n" = "$PAUSE_AT" ]; then
	touch "$FLAGS/paused"
	i=0
	while [ ! -e "$FLAGS/resume" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
fi
i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done
SH
}
