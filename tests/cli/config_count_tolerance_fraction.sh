# count-tolerance is a percentage, and a bare number is a fraction (as for tolerance):
# the template's "count-tolerance = 0.1%" written without its sign is 10%, and a counted
# change of 5% was judged equal without a word (tried on SQLite's speedtest1). A bare
# fraction of 1% or more draws one warning naming the line and the value to write; the
# value is kept (it is valid), and 0.1% or a small fraction (0.001) draws none.
. "$SRCDIR/tests/cli/lib/common.bash"

run() { "$REVPERF" compare --cmd-a true --cmd-b true --runs 2..2 --warmup 0 "$@" >out.txt 2>err.txt || true; }

printf '[defaults]\ncount-tolerance = 0.1\n[benchmark "x"]\ncommand = true\n' >frac.ini
run --config frac.ini
expect_grep "^revperf: warning: frac.ini:2: count-tolerance 0.1 is a fraction, 10%: counted changes under 10% are judged equal; write 0.1% for 0.1 percent$" err.txt
[ "$(grep -c 'count-tolerance' err.txt)" = 1 ] || { cat err.txt; fail "the warning is given once"; }

run --count-tolerance 0.05
expect_grep "^revperf: warning: --count-tolerance: count-tolerance 0.05 is a fraction, 5%" err.txt
[ "$(grep -c 'count-tolerance' err.txt)" = 1 ] || { cat err.txt; fail "the flag's warning is given once"; }

run --count-tolerance 0.1%
expect_no_grep 'count-tolerance' err.txt
run --count-tolerance 0.001
expect_no_grep 'count-tolerance' err.txt
printf '[defaults]\ncount-tolerance = 0.1%%\n[benchmark "x"]\ncommand = true\n' >pct.ini
run --config pct.ini
expect_no_grep 'count-tolerance' err.txt
