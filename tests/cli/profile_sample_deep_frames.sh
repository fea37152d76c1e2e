# A frame larger than the stack copied per sample (a 64 KiB local array, as zlib's
# minigzip keeps 16 KiB in gz_uncompress). DWARF mode: the callers above it are lost, and
# the notes say why (the copy, not "code without frame pointers") and what keeps them.
# fp mode, everything built with frame pointers: the kernel's chain continues above the
# 512-byte copy; it used to end there (libdwfl took the failed read for the outermost
# frame, so the chain was never spliced on), losing main and every caller.
. "$SRCDIR/tests/cli/lib/common.bash"

if ! "$REVPERF" profile --sample -- true >probe.txt 2>&1; then
	grep -q "cannot sample here" probe.txt && { echo "skip: perf_event_open refused"; exit 77; }
	cat probe.txt
	fail "profile --sample -- true failed"
fi

cat >deep.c <<'C'
#include <stdio.h>
#include <string.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf(const unsigned char *b, size_t n)
{
	for (size_t k = 0; k < 4000; k++)
		for (size_t i = 0; i < n; i++)
			sink += b[i] * k;
}
__attribute__((noinline)) static void big(void)
{
	unsigned char buf[65536];
	memset(buf, 1, sizeof(buf));
	leaf(buf, 4096);
	sink += buf[100];
}
__attribute__((noinline)) static void outer(void)
{
	for (int i = 0; i < 10; i++)
		big();
}
int main(void)
{
	outer();
	printf("%lu\n", sink);
	return 0;
}
C
cc -O2 -g -fno-omit-frame-pointer -o deep deep.c || fail "cannot build deep.c"

expect_exit 0 "$REVPERF" profile --sample --call-graph dwarf -- ./deep
expect_grep 'stacks were deeper than the stack copied per sample \(large local arrays fill it\): their outermost callers are missing; frame pointers keep them' out.txt
# (a sample that lands in libc's memset may end otherwise: "71 of the 72 as ...")
expect_grep 'callers are missing,( [0-9]+ of the [0-9]+)? as the stacks were deeper than the copy' out.txt
expect_no_grep 'code without frame pointers' out.txt

expect_exit 0 "$REVPERF" profile --sample --call-graph fp -d fp -- ./deep
expect_grep 'stacks reaching an entry point: (9[0-9]|100)\.[0-9]%' out.txt
expect_no_grep 'stacks were deeper' out.txt
grep -q '^s 0 [0-9]* [0-9]* .*main;outer;big;leaf[.a-z0-9]*$' fp/run-1.sample ||
	{ cat fp/run-1.sample; fail "fp: no main;outer;big;leaf stack"; }
echo ok
