# revperf profile runs a program once, as from the shell: the program reads revperf's
# standard input (`revperf profile --sample -- ./minigzip -d < in.gz` profiled a program
# that read /dev/null and said "no sample"), with --cct, --sample and --counters as with
# --io; --cct shows the program's output on stderr (it was discarded).
. "$SRCDIR/tests/cli/lib/common.bash"

cat >upper.c <<'C'
#include <ctype.h>
#include <stdio.h>
int main(void)
{
	int c;
	while ((c = getchar()) != EOF)
		putchar(toupper(c));
	return 0;
}
C
cc -O1 -finstrument-functions -o upper upper.c || fail "cannot build upper.c"

printf 'hello\n' | "$REVPERF" profile --cct -q -d cct -- ./upper >out.txt 2>err.txt ||
	{ cat err.txt; fail "profile --cct failed"; }
expect_grep '^HELLO$' err.txt
printf 'hello\n' | "$REVPERF" profile --counters -q -d counters -- ./upper >out.txt 2>err.txt ||
	{ cat err.txt; fail "profile --counters failed"; }
expect_grep '^HELLO$' counters/run-1.log
printf 'hello\n' | "$REVPERF" profile --io -q -d io -- ./upper >out.txt 2>err.txt ||
	{ cat err.txt; fail "profile --io failed"; }
expect_grep '^HELLO$' io/run-1.log

# Sampling must work here at all: a container may refuse perf_event_open to everyone.
if ! "$REVPERF" profile --sample -- true >probe.txt 2>&1; then
	grep -q "cannot sample here" probe.txt && { echo "skip: perf_event_open refused"; echo ok; exit 0; }
	cat probe.txt
	fail "profile --sample -- true failed"
fi
printf 'hello\n' | "$REVPERF" profile --sample -q -d sample -- ./upper >out.txt 2>err.txt ||
	{ cat err.txt; fail "profile --sample failed"; }
expect_grep '^HELLO$' sample/run-1.log

echo ok
