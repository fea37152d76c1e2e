# Signals during a build: revperf exits 128 + the signal (INT 130, TERM 143, HUP 129), and
# no process of the build outlives it, neither one in its process group nor one that left it
# (setsid): not when revperf is killed with SIGKILL (the spawner kills what is left below
# it), not when the build step itself is killed.
. "$SRCDIR/tests/cli/lib/common.bash"

# A uniquely named sleeper, so that no other test's sleep can be taken for a survivor.
nap="$TEST_TMP/nap$RANDOM"
cp /bin/sleep "$nap"
make_tiny_repo repo
cd repo
# The build: a shell (its pid in step.pid) that starts a process that leaves its group
# (escaped.pid) and a grandchild (grandchild.pid), and waits.
cat >"$TEST_TMP/build.sh" <<SH
echo \$\$ >"$TEST_TMP/step.pid"
setsid "$nap" 300 &
echo \$! >"$TEST_TMP/escaped.pid"
"$nap" 300 &
echo \$! >"$TEST_TMP/grandchild.pid"
wait
SH
sed -i "s|^command = echo built > built.txt|command = sh '$TEST_TMP/build.sh'|" revperf.ini
git add -A && git commit -qm "slow build" && git tag slow

# alive PID: the process exists and is not a zombie.
alive() { kill -0 "$1" 2>/dev/null && ! ps -o stat= -p "$1" | grep -q '^Z'; }

# start: a compare in the background ($pid) whose build has started its grandchild ($gc)
# and the process that left its group ($esc, once that one has called setsid()).
start() {
	rm -rf .revperf "$TEST_TMP"/*.pid
	"$REVPERF" compare base slow -q >out.txt 2>err.txt &
	pid=$!
	for _ in $(seq 200); do
		[ -s "$TEST_TMP/grandchild.pid" ] && break
		sleep 0.05
	done
	gc=$(cat "$TEST_TMP/grandchild.pid") || fail "the build did not start"
	step=$(cat "$TEST_TMP/step.pid")
	esc=$(cat "$TEST_TMP/escaped.pid")
	for _ in $(seq 200); do
		[ "$(ps -o sid= -p "$esc" | tr -d ' ')" = "$esc" ] && break
		sleep 0.01
	done
}

# gone PID WHAT: PID is not alive within 3 s.
gone() {
	for _ in $(seq 60); do
		alive "$1" || return 0
		sleep 0.05
	done
	ps -o pid,ppid,pgid,stat,cmd -p "$1"
	kill -9 "$1"
	fail "$2"
}

for sig in INT TERM HUP; do
	start
	kill -s $sig $pid
	status=0
	wait $pid || status=$?
	want=$((128 + $(kill -l $sig)))
	[ $status = $want ] || { cat err.txt; fail "SIG$sig during the build: exit $status, expected $want"; }
	gone "$gc" "SIG$sig during the build: its grandchild $gc is still running"
	gone "$esc" "SIG$sig during the build: the process $esc that left its group is still running"
	expect_grep 'warning: build of [0-9a-f]{12} \(base\): (.*; )?1 process escaped the process group and was killed' err.txt
done

# revperf killed with SIGKILL: its spawner kills the build's processes, the grandchild and
# the one that left the group too. The spawner is stopped first and continued after
# revperf's death, so that it cannot see the end of its socket before its parent-death
# signal arrives (as on a busy machine): the signal alone must do.
start
spawner=$(ps -o pid= --ppid $pid | tr -d ' ')
[ -n "$spawner" ] || fail "no spawner below revperf $pid"
kill -STOP $spawner
kill -9 $pid
wait $pid || true
kill -CONT $spawner
gone "$gc" "revperf killed with SIGKILL during the build: its grandchild $gc is still running"
gone "$step" "revperf killed with SIGKILL during the build: the build step $step is still running"
gone "$esc" "revperf killed with SIGKILL during the build: the process $esc that left its group is still running"
gone "$spawner" "revperf killed with SIGKILL during the build: the spawner $spawner is still running"

# The build step itself killed: the build fails (exit 2, the log named), nothing is left.
start
kill -9 $step
status=0
wait $pid || status=$?
[ $status = 2 ] || { cat err.txt; fail "build step killed: exit $status, expected 2"; }
expect_grep 'build of [0-9a-f]{12} \(base\) failed: killed by SIGKILL' err.txt
gone "$gc" "build step killed: its grandchild $gc is still running"
gone "$esc" "build step killed: the process $esc that left its group is still running"
echo ok
