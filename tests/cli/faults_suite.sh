# The fault-and-bad-input suite (issue 16): one row per scenario, each run with a time
# limit so that a hang fails the row instead of the suite. Prints a table (scenario,
# expected, observed) and the counts; fails when any row does not behave as expected.
# The deeper tests of each item live in their own scripts; this one keeps them all in
# one place, as a user and an adversary would try them.
. "$SRCDIR/tests/cli/lib/common.bash"

rows=0 ok=0 bad_rows=""
table=$TEST_TMP/table.txt
: >"$table"

# row NAME EXPECTED_EXIT MESSAGE_REGEX CMD...: runs CMD (at most 60 s), checks its exit
# status and, when MESSAGE_REGEX is not empty, that stderr is one line matching it.
row() {
	local name=$1 want=$2 re=$3 got=0 observed
	shift 3
	rows=$((rows + 1))
	timeout -k 5 60 "$@" >row.out 2>row.err </dev/null || got=$?
	observed="exit $got"
	if [ "$got" = 124 ] || [ "$got" = 137 ]; then
		observed="hung (killed after 60 s)"
	elif [ -n "$re" ] && { [ "$(wc -l <row.err)" -ne 1 ] || ! grep -qE -- "$re" row.err; }; then
		observed="exit $got, stderr: $(head -c 200 row.err | tr '\n' ' ')"
	fi
	if [ "$observed" = "exit $want" ]; then
		ok=$((ok + 1))
	else
		bad_rows="$bad_rows\n  $name: expected exit $want${re:+ and /$re/}, observed $observed"
	fi
	printf '%-58s %-10s %s\n' "$name" "exit $want" "$observed" >>"$table"
}

# ---- fixtures ----
make_tiny_repo repo
mkfifo fifo
printf '[build]\ncommand = true\n[benchmark "a"]\ncommand = true\n[benchmark "a"]\ncommand = true\n' >dup.ini
printf '[report]\ncommit-url = javascript:alert(1)\n[benchmark "a"]\ncommand = true\n' >js.ini
printf 'not json' >bad.json
: >empty.cct
printf 'main;f 10\nmain;g\n' >bad.folded
printf 'main;f 10\nmain;g 5\n' >good.folded
cat >novg.sh <<'SH'
case "$LD_PRELOAD" in *vgpreload*) kill -ILL $$ ;; esac
SH

# ---- bad input: one clear line, exit 2 ----
row "compare: unknown option"                      2 'unknown option'  "$REVPERF" compare --nope
row "compare: bad --runs"                          2 'runs'            "$REVPERF" compare --cmd-a true --cmd-b true --runs 1..0
row "compare: bad --pin"                           2 'pin'             "$REVPERF" compare --cmd-a true --cmd-b true --pin x
row "compare: bad --wait-quiet"                    2 'BUSY, MAX-WAIT'  "$REVPERF" compare --cmd-a true --cmd-b true --wait-quiet 9
row "compare: unknown metric"                      2 "unknown metric"  "$REVPERF" compare --cmd-a true --cmd-b true -m nope
row "compare: duplicate benchmark section"         2 'dup.ini'         "$REVPERF" compare --cmd-a true --cmd-b true -c dup.ini
row "report: javascript: commit-url"               2 'commit-url'      sh -c "cd repo && $REVPERF report --commit-url 'javascript:alert(1)'"
row "import: not JSON"                             2 'bad.json'        sh -c "cd repo && $REVPERF import --rev HEAD $TEST_TMP/bad.json"
row "diff: folded line without a count"            2 'bad.folded'      "$REVPERF" diff bad.folded bad.folded
row "diff: empty profile"                          2 'empty.cct'       "$REVPERF" diff empty.cct empty.cct
row "compare: not a git repository"                2 'git repository'  "$REVPERF" compare HEAD~1 HEAD
row "compare: unknown revision"                    2 'nope'            sh -c "cd repo && $REVPERF compare base nope"
row "bisect: swapped GOOD and BAD"                 2 ''                sh -c "cd repo && $REVPERF bisect HEAD HEAD --bench spin"

# ---- inputs that could hang or read without bound: refused, no hang ----
row "diff: a FIFO"                                 2 'fifo'            "$REVPERF" diff fifo fifo
row "bindiff: a FIFO"                              2 'fifo'            "$REVPERF" bindiff fifo fifo
row "compare: a FIFO as configuration"             2 'fifo'            "$REVPERF" compare --cmd-a true --cmd-b true -c fifo
row "compare: /dev/zero as configuration"          2 '/dev/zero'       "$REVPERF" compare --cmd-a true --cmd-b true -c /dev/zero
row "diff: /dev/zero"                              2 '/dev/zero'       "$REVPERF" diff good.folded /dev/zero

# ---- faults while measuring: recorded, never a false verdict ----
row "compare: target crashes (target broken)"      1 ''                "$REVPERF" compare --cmd-a true --cmd-b 'kill -SEGV $$' --runs 3..3 -q
row "compare: both sides fail"                     2 ''                "$REVPERF" compare --cmd-a false --cmd-b false --runs 3..3 -q
row "compare: valgrind cannot run it (ir unmeasured)" 0 ''              "$REVPERF" compare --cmd-a 'sh novg.sh' --cmd-b 'sh novg.sh' --runs 3..3 -m wall,ir --primary wall -q

printf '%-58s %-10s %s\n' scenario expected observed
cat "$table"
echo "$ok passed, $((rows - ok)) failed"
[ "$ok" = "$rows" ] || { printf "rows that did not behave:$bad_rows\n"; fail "faults suite"; }
