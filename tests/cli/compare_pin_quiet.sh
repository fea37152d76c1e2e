# Noise controls of the timing runs (docs/measurement.md): pin = auto | LIST puts every
# run of both sides on the same CPUs, quiet = BUSY, MAX waits before each pair.
# Each comparison runs the same command on both sides and must exit 0: the verdict is
# decided on the bytes the command writes (wchar: the same in every run, or 0), not on its
# wall time, an A/A that a loaded machine can turn `worse` (compare_gbench.sh saw +1087%
# in 3 + 3 runs of a 1.4 ms window); wall is still measured in the pinned timing runs.
. "$SRCDIR/tests/cli/lib/common.bash"
ncpu=$(nproc)

# Every run (warm-ups included) reports the CPUs it may use.
cmd='grep Cpus_allowed_list /proc/self/status >> aff.txt'
if [ "$ncpu" -ge 2 ]; then
	last=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
	expect_exit 0 "$REVPERF" compare --cmd-a "$cmd" --cmd-b "$cmd" --runs 3..3 --metrics wall,wchar --primary wchar \
		--pin auto -f json
	[ "$(json_get out.txt "d['benchmarks'][0]['pinned']")" = "$last" ] || fail "pinned field"
	[ "$(sort -u aff.txt | awk '{print $2}')" = "$last" ] ||
		fail "runs not pinned to CPU $last: $(sort -u aff.txt)"
	rm aff.txt
	# revperf itself (the parent of the spawner, the parent of the run's shell) steps
	# aside to the other CPUs: it stores a run while the next one runs.
	cmd2='awk "{print \$4}" /proc/$PPID/stat | xargs -I{} grep Cpus_allowed_list /proc/{}/status >> rp.txt'
	expect_exit 0 "$REVPERF" compare --cmd-a "$cmd2" --cmd-b "$cmd2" --runs 3..3 --metrics wall,wchar \
		--primary wchar --pin auto
	python3 - rp.txt "$last" <<'PY' || fail "revperf shares the runs' CPU: $(sort -u rp.txt)"
import sys
sets = set()
for line in open(sys.argv[1]):
    cpus = set()
    for part in line.split()[1].split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    sets.add(frozenset(cpus))
assert sets and all(int(sys.argv[2]) not in s and s for s in sets), sets
PY
	rm rp.txt
	expect_exit 0 "$REVPERF" compare --cmd-a "$cmd" --cmd-b "$cmd" --runs 3..3 --metrics wall,wchar --primary wchar \
		--pin 0
	expect_grep '^  pinned to CPU 0 \(both sides\)' out.txt
	[ "$(sort -u aff.txt | awk '{print $2}')" = 0 ] || fail "runs not on CPU 0"
	rm aff.txt
fi
# Off: nothing pinned, nothing said.
expect_exit 0 "$REVPERF" compare --cmd-a "$cmd" --cmd-b "$cmd" --runs 3..3 --metrics wall,wchar --primary wchar
expect_no_grep 'pinned' out.txt
[ "$(sort -u aff.txt | wc -l)" = 1 ] && [ "$(sort -u aff.txt | awk '{print $2}')" != "" ] ||
	fail "unpinned runs: $(sort -u aff.txt)"

# quiet: a busy loop on every CPU keeps the machine busy; each pair waits at most 0.4 s
# and the report says so.
for i in $(seq "$ncpu"); do (while :; do :; done) & done
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
expect_exit 0 "$REVPERF" compare --cmd-a true --cmd-b true --runs 3..3 --metrics wall,wchar --primary wchar \
	--wait-quiet '1%,0.4s' -f json
kill $(jobs -p) 2>/dev/null
python3 - out.txt <<'PY' || fail "quiet: $(cat out.txt)"
import json, sys
q = json.load(open(sys.argv[1]))["benchmarks"][0]["quiet"]
assert q["pairs_waited"] >= 3 and q["still_busy"] >= 3, q
assert 1.19 <= q["waited_s"] < 30, q
PY

# Bad values: one line, exit 2.
expect_exit 2 "$REVPERF" compare --cmd-a true --cmd-b true --pin 1-x
expect_one_line err.txt
expect_grep "invalid value '1-x' for pin" err.txt
expect_exit 2 "$REVPERF" compare --cmd-a true --cmd-b true --wait-quiet 25%
expect_one_line err.txt
expect_grep "BUSY, MAX-WAIT" err.txt
