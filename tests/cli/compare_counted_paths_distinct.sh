# The call paths under a counted verdict are shortened to their innermost frames; two
# contexts of one function that differ only near the root must not read the same. On
# SQLite's speedtest1 (3.40.1 -> 3.46.1) insertCell was listed twice as
# "...;sqlite3_step;sqlite3VdbeExec;sqlite3BtreeInsert;insertCell" (-6.069 M and -4.956 M
# Ir): one under speedtest1_run, one under speedtest1_exec;sqlite3_exec. Each is now
# widened frame by frame until it reads differently from the other listed paths.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

cat >paths.c <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf_work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}
__attribute__((noinline)) static void shared_stage_number_three(unsigned long n) { leaf_work(n); sink++; }
__attribute__((noinline)) static void shared_stage_number_two(unsigned long n) { shared_stage_number_three(n); sink++; }
__attribute__((noinline)) static void shared_stage_number_one(unsigned long n) { shared_stage_number_two(n); sink++; }
__attribute__((noinline)) static void path_via_alpha(unsigned long n) { shared_stage_number_one(n); sink++; }
__attribute__((noinline)) static void path_via_beta(unsigned long n) { shared_stage_number_one(n); sink++; }
int main(int argc, char **argv)
{
	(void)argc;
	path_via_alpha(strtoul(argv[1], 0, 10));
	path_via_beta(strtoul(argv[1], 0, 10));
	return 0;
}
C
cc -O1 -g -o paths paths.c || fail "cannot compile the workload"

expect_exit 1 "$REVPERF" compare --cmd-a './paths 100000' --cmd-b './paths 110000' \
	--metrics ir --primary ir --runs 3..3 --no-color
expect_grep 'finding +leaf_work' out.txt
# the two contexts of leaf_work, each shown with the frame that tells them apart
expect_grep 'finding +\.\.\.;path_via_alpha;shared_stage_number_one;shared_stage_number_two;shared_stage_number_three;leaf_work ' out.txt
expect_grep 'finding +\.\.\.;path_via_beta;shared_stage_number_one;shared_stage_number_two;shared_stage_number_three;leaf_work ' out.txt
# no two listed call paths read the same
sed -n '/call path (self)/,/more call paths\|(mean per run/p' out.txt | grep -E 'finding|noise' |
	sed -E 's/.*(finding|noise) +//; s/  \(calls.*//' | sort | uniq -d >dups.txt
[ ! -s dups.txt ] || fail "call paths listed alike: $(cat dups.txt)"
