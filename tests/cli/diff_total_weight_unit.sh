# revperf diff says each profile's total weight in the profile's unit, scaled as the
# absolute change is: "27.124 M Ir" for callgrind's instructions, "20.12 ms" for the CCT
# runtime's elapsed time (it said "27124234" and "20117428", the nanoseconds raw); folded
# stacks, of no known unit, keep a small total as it is and scale a large one.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

cat >spin.c <<'C'
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) unsigned long kv_hash(unsigned long n)
{
	volatile unsigned long h = 0;
	for (unsigned long i = 0; i < n; i++)
		h = h * 31 + i;
	return h;
}
__attribute__((noinline)) void nap(long ms)
{
	struct timespec ts = {0, ms * 1000 * 1000};
	nanosleep(&ts, NULL);
}
int main(int argc, char **argv)
{
	(void)argc;
	nap(strtol(argv[2], 0, 10));
	return (int)(kv_hash(strtoul(argv[1], 0, 10)) & 1);
}
C
cc -O1 -g -o spin spin.c && cc -O1 -g -finstrument-functions -o spin-cct spin.c ||
	fail "cannot compile the workload"

# Instructions: counted, so the totals are exact to the digits shown.
valgrind -q --tool=callgrind --callgrind-out-file=a.cg ./spin 3000000 0 ||
	fail "valgrind failed"
valgrind -q --tool=callgrind --callgrind-out-file=b.cg ./spin 3300000 0 ||
	fail "valgrind failed"
expect_exit 1 "$REVPERF" diff a.cg b.cg
expect_grep '^old: a\.cg \([0-9]+ contexts, total weight 2[0-9]\.[0-9]{3} M Ir\)$' out.txt
expect_grep '^new: b\.cg \([0-9]+ contexts, total weight 2[0-9]\.[0-9]{3} M Ir\)$' out.txt

# Elapsed time of the CCT runtime, in ns in the profile: a 20 ms nap reads in ms.
expect_exit 0 "$REVPERF" profile --cct --dir cct -- ./spin-cct 1000 20
expect_exit 0 "$REVPERF" profile --cct --dir cct -- ./spin-cct 1000 30
set -- cct/*.cct
[ $# = 2 ] || fail "expected two CCT profiles: $*"
expect_exit 1 "$REVPERF" diff "$1" "$2"
expect_grep '^old: .*\([0-9]+ contexts, total weight [0-9]+\.[0-9]{2} ms\)$' out.txt
expect_grep '^new: .*\([0-9]+ contexts, total weight [0-9]+\.[0-9]{2} ms\)$' out.txt

# Folded stacks: no unit; 380 stays 380, 2500000 is 2.500 M.
printf 'main;a 300\nmain;b 80\n' >small.folded
printf 'main;a 2000000\nmain;b 500000\n' >large.folded
expect_exit 1 "$REVPERF" diff small.folded large.folded
expect_grep '^old: small\.folded \(3 contexts, total weight 380\)$' out.txt
expect_grep '^new: large\.folded \(3 contexts, total weight 2\.500 M\)$' out.txt
echo ok
