# Call paths under a counted verdict read "(below main)" once: valgrind names every
# function below main so, and in a statically linked program (as in SQLite's speedtest1
# built here) both __libc_start_main and glibc's __libc_start_call_main were frames of
# their own: "(below main);(below main);main;...". One called by the other is one frame
# now (docs/callgrind.md, "Functions below main"); real functions keep theirs, and a
# function that recurses still shows twice (callgrind's --separate-recs=2).
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

cat >rec.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static unsigned long rec(unsigned long d)
{
	return d ? rec(d - 1) + 1 : 0;
}
__attribute__((noinline)) static void kv_hash(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
	sink += rec(n / 100000);
}
int main(int argc, char **argv)
{
	kv_hash(strtoul(argv[1], 0, 10));
	printf("%lu\n", sink);
	return 0;
}
C
if ! cc -O1 -g -static -o rec rec.c 2>cc.err; then
	echo "SKIP: no static C library to link with (libc6-dev's libc.a): $(head -1 cc.err)"
	exit 77
fi

expect_exit 1 "$REVPERF" compare --cmd-a './rec 1000000' --cmd-b './rec 1300000' \
	--metrics ir --primary ir --runs 2..2 -f json
python3 - out.txt <<'PY' || fail "paths: $(cat out.txt)"
import json, sys
c = json.load(open(sys.argv[1]))["benchmarks"][0]["counted"]
paths = [p["path"] for p in c["paths"]]
assert paths, c
assert not [p for p in paths if "(below main);(below main)" in p], paths
assert "(below main);main;kv_hash" in paths, paths
assert "(below main);main;kv_hash;rec;rec" in paths, paths   # the recursion stays
PY
expect_exit 1 "$REVPERF" compare --cmd-a './rec 1000000' --cmd-b './rec 1300000' \
	--metrics ir --primary ir --runs 2..2
expect_grep 'finding +\(below main\);main;kv_hash ' out.txt
expect_no_grep '\(below main\);\(below main\)' out.txt
