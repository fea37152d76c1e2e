# Counts whose runs differ by a few instructions (SQLite's speedtest1 prints its own
# timings: 592,009,xxx Ir +- 85 from run to run) are exact within 0.01% of their mean.
# The summary line said "exact: every run of a side counted the same" while the table
# showed an sd of 85 instructions; it now says "the same within 0.01%" as the counted
# section does, and "the same" alone only for runs that agree to the instruction. JSON's
# "degenerate" (zero variance on both sides) was true for them too; it is now false.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

cat >jitter.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
int main(int argc, char **argv)
{
	unsigned char extra = 0;
	FILE *f = fopen("/dev/urandom", "rb");
	if (f && fread(&extra, 1, 1, f) != 1)
		extra = 0;
	if (f)
		fclose(f);
	unsigned long n = strtoul(argv[1], 0, 10) + (argc > 2 ? extra % 64 : 0);
	for (unsigned long i = 0; i < n; i++)
		sink += i;
	return 0;
}
C
cc -O1 -o jitter jitter.c || fail "cannot compile the workload"

# a few instructions more or less each run, far under 0.01% of a million-iteration loop
expect_exit 1 "$REVPERF" compare --cmd-a './jitter 1000000 j' --cmd-b './jitter 1010000 j' \
	--metrics ir --primary ir --runs 3..3 --no-color -f json
python3 - out.txt <<'PY' || fail "jitter: $(cat out.txt)"
import json, sys
ir = [m for m in json.load(open(sys.argv[1]))["benchmarks"][0]["metrics"] if m["name"] == "ir"][0]
assert ir["deterministic"] is True and ir["method"] == "exact", ir
assert max(ir["spread"]) > 0, ir   # the runs do differ (by chance they agree 1 time in 4096)
assert ir["degenerate"] is False, ir   # "zero variance on both sides": not these
PY
expect_exit 1 "$REVPERF" compare --cmd-a './jitter 1000000 j' --cmd-b './jitter 1010000 j' \
	--metrics ir --primary ir --runs 3..3 --no-color
expect_grep 'deterministic here \(every run of a side counted the same within 0\.01%\)' out.txt
expect_grep 'ir: worse, \+[0-9.]+% \(exact: every run of a side counted the same within 0\.01%, 2 \+ 2 runs\)' out.txt

# runs that agree to the instruction are "the same", without the 0.01%
expect_exit 1 "$REVPERF" compare --cmd-a './jitter 1000000' --cmd-b './jitter 1010000' \
	--metrics ir --primary ir --runs 3..3 --no-color
expect_grep 'ir: worse, \+[0-9.]+% \(exact: every run of a side counted the same, 2 \+ 2 runs\)' out.txt

# Markdown: the exact interval is given without the timed interval's confidence level
# (it read "1.005 (99.91%, exact)" on SQLite's speedtest1: the counts' min and max have
# no level).
expect_exit 1 "$REVPERF" compare --cmd-a './jitter 1000000' --cmd-b './jitter 1010000' \
	--metrics wall,ir --primary ir --runs 3..3 -f markdown
expect_grep '^\| command \| ir \(primary\) \| .*\| 1\.0[0-9]+ \| 1\.0[0-9]+ \(exact\) \|' out.txt
expect_grep '^\| command \| wall \| .*\(9[0-9.]+%, [a-z-]+\) \|' out.txt
