# revperf show of a comparison decided on a counted metric (ir): show judges only the
# timed metrics again, and says for ir where its verdict is (compare, from the stored
# counted runs), not "compare --more", which would count more runs. compare then prints
# the exact verdict again without running anything under valgrind.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -o spin spin.c
[benchmark "spin"]
command = ./spin
metrics = ir
primary = ir
runs = 2..2
warmup = 0
INI
spin() {
	cat >spin.c <<C
static volatile unsigned long sink;
int main(void)
{
	for (unsigned long i = 0; i < $1; i++)
		sink += i;
	return 0;
}
C
}
spin 100000
git add . && git commit -qm base && git tag base
spin 110000 && git commit -qam slower && git tag slow

expect_exit 1 "$REVPERF" compare base slow -q
count() { db_query .revperf/revperf.db "SELECT count(*) FROM $1"; }
profiles=$(count profiles)
expect_exit 0 "$REVPERF" show base slow
expect_grep 'ir \*.*unmeasured.*counted runs are not judged again here \(revperf compare BASE TARGET does, from the stored runs\)' out.txt
expect_no_grep 'compare --more' out.txt
expect_exit 1 "$REVPERF" compare base slow
expect_grep 'ir \*  *worse  *1\.0[0-9]+ ' out.txt
[ "$(count profiles)" = "$profiles" ] || fail "compare counted again: $(count profiles) profiles, $profiles before"
