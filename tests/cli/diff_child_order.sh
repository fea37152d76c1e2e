# revperf diff of several runs per side whose callees are in name order (sampled runs,
# sorted folded stacks): a call path both sides have is matched, whichever run first met
# which callee. The jq trial (bench/RESULTS.md) met it under `profile = sample`: one
# target run had no sample in main's first callee, so the merged tree listed main's
# callees in another order than the baseline's, and `main;process` (99.7% of the time) was
# reported in one tree only on both sides, the overlap of the common trees 0%.
. "$SRCDIR/tests/cli/lib/common.bash"

# Two runs per side. Run a1 has no sample in parse: merging appended parse after work.
sample() {
	local f=$1
	shift
	printf 'revperf-sample 1\ncommand ./prog\nexe %s/prog\nevent cpu-clock\nunit ns\n' "$PWD" >"$f"
	printf 'frequency 1000\nperiod 1000000\ncallgraph fp\nrun 300000000 300000000 0\n' >>"$f"
	printf 'samples 300\nlost 0\nthrottled 0\ntruncated 0\nspliced 0\ncomplete 300\n' >>"$f"
	printf 'thread 0 100 100 300 300000000 prog\n' >>"$f"
	for line in "$@"; do
		printf 's 0 %s\n' "$line" >>"$f"
	done
	printf 'end\n' >>"$f"
}
sample a1.sample '300 300000000 main;work'
sample a2.sample '100 100000000 main;parse' '200 200000000 main;work'
sample b1.sample '100 100000000 main;parse' '200 200000000 main;work'
sample b2.sample '100 100000000 main;parse' '200 200000000 main;work'
expect_exit 1 "$REVPERF" diff a1.sample a2.sample -- b1.sample b2.sample
expect_grep '^overlap [0-9.]+% of the common trees \(3 matched contexts\)' out.txt
expect_grep '^no context in one tree only$' out.txt

# Folded runs in name order (as stackcollapse tools write them), merged: as the sampled
# runs. (One folded file keeps the order of its lines: that of a calling context tree
# written as folded stacks, which the matching compares; docs/cct-diff.md.)
printf 'main;work 300\n' >a1.folded
printf 'main;parse 100\nmain;work 200\n' >a2.folded
cp a2.folded b1.folded
cp a2.folded b2.folded
expect_exit 1 "$REVPERF" diff a1.folded a2.folded -- b1.folded b2.folded
expect_grep '^overlap [0-9.]+% of the common trees \(3 matched contexts\)' out.txt
expect_grep '^no context in one tree only$' out.txt
echo ok
