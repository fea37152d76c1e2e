# A counted verdict's attribution lists the 10 largest changes; the rest is said with its
# share of the change ("4 more functions changed, together 2.9% of the change"), so that a
# long tail (339,752 call paths of TinyCC compiling) is known to be small or not. Text and
# Markdown say the same, and the listed shares plus the rest's make 100%.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

# 14 functions, f1 .. f14, each looping i * n times: all change with n.
{
	echo '#include <stdlib.h>'
	echo 'static volatile unsigned long sink;'
	for i in $(seq 1 14); do
		echo "__attribute__((noinline)) static void f$i(unsigned long n) { for (unsigned long k = 0; k < $i * n; k++) sink += k; }"
	done
	echo 'int main(int argc, char **argv) { unsigned long n = strtoul(argv[1], 0, 10); (void)argc;'
	for i in $(seq 1 14); do echo "f$i(n);"; done
	echo 'return 0; }'
} >tail.c
cc -O1 -g -o tail tail.c || fail "cannot compile the workload"

expect_exit 1 "$REVPERF" compare --cmd-a './tail 2000' --cmd-b './tail 2200' \
	--metrics ir --primary ir --runs 2..2 --no-color
expect_grep '^ *\.\.\. 4 more functions changed, together [0-9.]+% of the change \([0-9]+ findings? among all\)' out.txt
python3 - out.txt <<'PY' || fail "the listed shares and the rest's do not make 100%: $(cat out.txt)"
import re, sys
text = open(sys.argv[1]).read()
block = text.split("function (self)", 1)[1].split("call path (self)", 1)[0]
shares = [float(m) for m in re.findall(r"([-0-9.]+)%\s+finding\s+f\d+", block)]
rest = float(re.search(r"more functions changed, together ([-0-9.]+)% of the change", block).group(1))
assert len(shares) == 10, shares
assert abs(sum(shares) + rest - 100) < 0.1 * 11 + 0.5, (shares, rest)
# the four left out are f1 .. f4, the smallest: 1+2+3+4 of 105 parts, a little more with main
assert 8 < rest < 12, rest
PY
expect_exit 1 "$REVPERF" compare --cmd-a './tail 2000' --cmd-b './tail 2200' \
	--metrics ir --primary ir --runs 2..2 -f markdown
expect_grep '^4 more functions changed, together [0-9.]+% of the change \(' out.txt
