# A benchmark whose child leaves the run's process group (setsid(), setpgid()) does not
# outlive the run: the spawner finds it below itself when the benchmark exits, kills it
# (SIGTERM, then SIGKILL), and the run keeps a note, shown in the text and JSON reports
# (docs/measurement.md, "The process guard").
. "$SRCDIR/tests/cli/lib/common.bash"

# A uniquely named sleeper, so that no other test's sleep can be taken for a survivor.
nap="$TEST_TMP/nap$RANDOM"
cp /bin/sleep "$nap"
mkdir pids
# escape.sh HOW: starts a process that leaves the group, waits until it has (its pid is in
# pids/run.*/a; a child of it, for `tree`, in .../b), then exits 0, leaving it running. The
# pid files are written by one write() of a builtin, or renamed into place: no helper
# process of the escaped one may still be alive when the benchmark exits.
cat >escape.sh <<'SH'
d=$(mktemp -d pids/run.XXXXXX)
case $1 in
setsid) setsid sh -c 'echo $$ >"$1/a"; exec "$2" 300' sh "$d" "$2" & ;;
setpgid) python3 -c 'import os, sys, time
os.setpgid(0, 0)
open(sys.argv[1] + "/a.tmp", "w").write("%d\n" % os.getpid())
os.rename(sys.argv[1] + "/a.tmp", sys.argv[1] + "/a")
os.execv(sys.argv[2], [sys.argv[2], "300"])' "$d" "$2" & ;;
tree) setsid sh -c '"$2" 300 & echo $! >"$1/b"; echo $$ >"$1/a"; wait' sh "$d" "$2" & ;;
esac
while [ ! -s "$d/a" ]; do sleep 0.01; done
SH

# alive PID: the process exists and is not a zombie.
alive() { kill -0 "$1" 2>/dev/null && ! ps -o stat= -p "$1" | grep -q '^Z'; }

# check HOW N NOTE: 3 + 3 runs, N escaped processes each; none survives, every run is ok
# and carries NOTE in the JSON and text reports.
check() {
	local how=$1 per_run=$2 note=$3
	rm -rf pids .revperf && mkdir pids
	expect_exit 0 "$REVPERF" compare --cmd-a "sh escape.sh $how $nap" --cmd-b "sh escape.sh $how $nap" \
		--runs 3..3 --warmup 0 --tolerance 500% -q -f json
	cp out.txt report.json
	local n=0 pid
	for pid in $(cat pids/run.*/[ab]); do
		n=$((n + 1))
		! alive "$pid" || { ps -o pid,ppid,pgid,sid,stat,cmd -p "$pid"; kill -9 "$pid"; fail "$how: escaped process $pid survived the run"; }
	done
	[ "$n" = $((6 * per_run)) ] || fail "$how: $n escaped processes started, expected $((6 * per_run))"
	python3 - report.json "$note" <<'PY' || fail "$how: the runs do not carry the note"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
assert b["runs"]["baseline"]["ok"] == 3 and b["runs"]["target"]["ok"] == 3, b["runs"]
issues = b["run_issues"]
assert len(issues) == 6, issues
for r in issues:
    assert r["status"] == "ok" and r["detail"] == sys.argv[2], r
PY
	# The same comparison again, as text: the stored notes are shown.
	expect_exit 0 "$REVPERF" compare --cmd-a "sh escape.sh $how $nap" --cmd-b "sh escape.sh $how $nap" \
		--runs 3..3 --warmup 0 --tolerance 500% -q
	expect_grep "warning: baseline run ok \($note\)" out.txt
	expect_grep "warning: target run ok \($note\)" out.txt
	for pid in $(cat pids/run.*/[ab]); do
		! alive "$pid" || { kill -9 "$pid"; fail "$how: escaped process $pid survived the text run"; }
	done
}

check setsid 1 '1 process escaped the process group and was killed'
check setpgid 1 '1 process escaped the process group and was killed'
check tree 2 '2 processes escaped the process group and were killed'
! ps -C "$(basename "$nap")" -o pid=,stat= | grep -v ' Z' || fail "a sleeper survived"
echo ok
