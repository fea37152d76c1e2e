# A build that never ends is killed after `[build] timeout` (default 2h) with its process
# group and fails like any failed build: exit 2, one error line naming the revision, the
# timeout, the log and the setting; the build recorded as failed; no process of it left.
# Before, a build had no time limit: a build that waits forever (a prompt, a deadlocked
# test, a network fetch) held compare, history, bisect or a worker's job forever.
. "$SRCDIR/tests/cli/lib/common.bash"

# A uniquely named sleeper, so that no other test's sleep can be taken for a survivor.
nap="$TEST_TMP/nap$RANDOM"
cp /bin/sleep "$nap"
make_tiny_repo repo
cd repo
printf '#!/bin/sh\n"%s" 300 &\necho $! >"%s/nap.pid"\nwait\n' "$nap" "$TEST_TMP" >build.sh
sed -i "s|^command = echo built > built.txt|command = sh ./build.sh\ntimeout = 2s|" revperf.ini
git add -A && git commit -qm "a build that hangs" && git tag hangs
echo 1 >n && git add n && git commit -qm "another"

start=$(date +%s)
expect_exit 2 "$REVPERF" compare hangs HEAD -q
elapsed=$(($(date +%s) - start))
[ "$elapsed" -lt 60 ] || fail "the build was not stopped by its timeout: ${elapsed} s"
expect_grep "^revperf: error: build of [0-9a-f]{12} \(hangs\) failed: timed out after 2\.000 s.*; see [^ ]*/\.revperf/logs/build-[0-9a-f]{12}-[0-9]+\.log \(a build that takes this long: raise \[build\] timeout in revperf\.ini\)$" err.txt
[ "$(grep -c 'error:' err.txt)" = 1 ] || fail "more than one error line: $(cat err.txt)"
[ "$(db_query .revperf/revperf.db "SELECT status FROM builds")" = failed ] ||
	fail "builds: $(db_query .revperf/revperf.db "SELECT id, status FROM builds")"
pid=$(cat "$TEST_TMP/nap.pid")
if kill -0 "$pid" 2>/dev/null && ! ps -o stat= -p "$pid" | grep -q '^Z'; then
	kill "$pid"
	fail "the build's sleeper outlived the timeout"
fi

# Bad values: one line naming the file, line and what to write; exit 2.
sed -i "s|^timeout = 2s|timeout = 0|" revperf.ini
expect_exit 2 "$REVPERF" compare hangs HEAD -q
expect_grep "revperf\.ini:3: invalid value '0' for timeout: expected a duration such as 2h or 90m, or 'none'$" err.txt
# The template shows the setting.
mkdir ../fresh && cd ../fresh
expect_exit 0 "$REVPERF" init
expect_grep '^; timeout = 2h$' revperf.ini
echo ok
