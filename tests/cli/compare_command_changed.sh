# A benchmark whose command changed after a finished comparison measures the new command:
# the stored comparison judged another program (the store keys a benchmark by name and
# command), so it is not shown again as finished. Before, compare printed "shown from the
# store, nothing ran" with 0 + 0 runs, every metric unmeasured, and exit 0, also when the
# new command failed on both sides. Decided on wchar (exact on a busy machine).
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo

wchar_verdict() { json_get out.txt "[m for m in d['benchmarks'][0]['metrics'] if m['name']=='wchar'][0]['verdict']"; }

expect_exit 1 "$REVPERF" compare base slow -q --seed 1 -f json
[ "$(wchar_verdict)" = worse ] || fail "wchar not worse"
expect_exit 1 "$REVPERF" compare base slow --seed 1 -f json
expect_grep 'shown from the store, nothing ran' err.txt

# The same name, another command: both sides write 5000 bytes now.
sed -i 's|^command = sh ./work.sh$|command = sh -c "head -c 5000 /dev/zero > out.bin"|' revperf.ini
grep -q 'head -c 5000' revperf.ini || fail "revperf.ini not edited"
runs=$(count runs)
expect_exit 0 "$REVPERF" compare base slow --seed 1 -f json
expect_no_grep 'shown from the store' err.txt
[ "$(count runs)" -gt "$runs" ] || fail "the new command was not run"
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['ok']")" -ge 3 ] ||
	fail "fewer than 3 baseline runs of the new command"
[ "$(wchar_verdict)" = equal ] || fail "wchar of the new command not equal: $(wchar_verdict)"

# A new command that fails on both sides is an error, not a stored "unmeasured" and exit 0.
sed -i 's|^command = sh -c "head.*$|command = sh -c "exit 3"|' revperf.ini
expect_exit 2 "$REVPERF" compare base slow --seed 1
expect_no_grep 'shown from the store' err.txt
expect_grep 'runs failed' out.txt
echo ok
