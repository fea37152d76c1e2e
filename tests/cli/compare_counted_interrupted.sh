# A comparison interrupted during its counted runs (ir under valgrind) has no counted
# attribution, and its text report says none: before, it printed an empty one under the
# unit of folded stacks, "0 + 0 runs; per run 0 ± 0 -> 0 ± 0" and "no spread: each side
# has a single run" (seen on zlib, Ctrl-C while callgrind ran), where the Markdown and JSON
# reports printed nothing. Nor did it say the run budget was not spent.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

# interrupted_at N: a comparison of one command with itself whose benchmark interrupts
# revperf at its start after N starts (exit 130), its report in out.txt.
interrupted_at() {
	rm -f count
	{ signal_at_run "$1" INT "$TEST_TMP/pid"; echo "echo v"; } >c.sh
	"$REVPERF" compare --cmd-a 'sh ./c.sh' --cmd-b 'sh ./c.sh' --metrics wall,ir \
		--primary ir --tolerance 0.01% --runs 3..3 --warmup 1 >out.txt 2>err.txt &
	echo $! >"$TEST_TMP/pid"
	local got=0
	wait $! || got=$?
	[ "$got" = 130 ] || { cat out.txt err.txt; fail "interrupted at start $1: exit $got"; }
}

# The timing runs are 2 x (1 warm-up + 3); the ninth start of the benchmark is the first
# counted run, which interrupts revperf.
interrupted_at 8
[ "$(cat count)" -ge 9 ] || { cat out.txt err.txt; fail "interrupted before the counted runs"; }
expect_grep '^  ir \* +unmeasured +interrupted before a verdict' out.txt
expect_grep '^  counted under valgrind' out.txt
expect_no_grep 'folded stacks|no spread|per run 0 ± 0|absolute change' out.txt
# The timing runs had spent their budget (3 + 3; wall is not primary: a verdict on it,
# which an A/A comparison gets now and then on a busy machine, would change nothing here):
# the interrupt came during the counted runs, and the report says so, although the timed
# metrics alone had nothing left to decide (before: "interrupted before its run budget was spent",
# libdeflate trial, Ctrl-C under callgrind after 30 + 30 timing runs of 30 at most).
expect_grep '^  undecided: interrupted during its counted runs under valgrind, after its timing runs$' out.txt
expect_no_grep 'before its run budget was spent' out.txt
expect_grep '^  counted under valgrind \(callgrind, 0 \+ 0 runs' out.txt

# Interrupted at the second counted run (B's first), after A's first was made and stored:
# the report counts it (it said "0 + 0" where the same command then reused 1 + 0).
interrupted_at 9
expect_grep '^  counted under valgrind \(callgrind, 1 \+ 0 runs' out.txt
expect_no_grep 'folded stacks|no spread|per run 0 ± 0|absolute change' out.txt
echo ok
