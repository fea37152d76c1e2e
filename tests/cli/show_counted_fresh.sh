# show of a counted comparison made with --fresh judges the counted runs compare took: its
# own. Before, show checked every counted run stored up to it for exactness, so the
# disagreeing runs of an earlier comparison of the same builds made it take the newest
# MAX runs of each side (the earlier ones among them), where compare had judged its own
# 2 + 2. Here both sides count 2, 1, 1, 1, 1, 1 (A) or 1, 2, 2, 2, 2, 2 (B) units of work
# in the first comparison (the first look disagrees: MAX runs), then 1, 1 and 2, 2 in the
# fresh one: exact, ratio 2.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

make_tiny_repo repo
cd repo
cat >work.c <<'C'
/* Units of work by run: the run counter in .n (each comparison's 2 timing runs too). */
#include <stdio.h>
static volatile unsigned long sink;
int main(void)
{
	unsigned long n = 0, units;
	char pattern[32] = "";
	FILE *f = fopen(".n", "r");
	if (f) {
		if (fscanf(f, "%lu", &n) != 1)
			n = 0;
		fclose(f);
	}
	if (!(f = fopen(".n", "w")))
		return 1;
	fprintf(f, "%lu\n", n + 1);
	fclose(f);
	if (!(f = fopen("pattern", "r")) || fscanf(f, "%31s", pattern) != 1)
		return 1;
	fclose(f);
	units = n < 2 || pattern[(n - 2) % 6] == '1' ? 1 : 2;
	for (unsigned long i = 0; i < units * 300000; i++)
		sink += i;
	return 0;
}
C
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -o work work.c
[benchmark "w"]
command = ./work
metrics = ir
primary = ir
runs = 2..2
warmup = 0
INI
echo 211111 >pattern
git add . && git commit -qm work && git tag a
echo 122222 >pattern
git commit -qam "the same program, other inputs" && git tag b

ir() { json_get "$1" "[(m['verdict'], m['deterministic'], m['baseline']['n'], m['target']['n'], round(m['ratio'], 6)) for m in d['benchmarks'][0]['metrics'] if m['name'] == 'ir'][0]"; }
cid() { json_get "$1" "d['comparison_id']"; }
expect_exit 0 "$REVPERF" compare a b -q -f json
case "$(ir out.txt)" in
*", False, 6, 6, "*) ;;
*) fail "the first comparison: $(ir out.txt)" ;;
esac
expect_exit 1 "$REVPERF" compare a b --fresh -q -f json
cp out.txt fresh.json
case "$(ir fresh.json)" in
"('worse', True, 2, 2, "*) ;;
*) fail "the fresh comparison: $(ir fresh.json)" ;;
esac
expect_exit 0 "$REVPERF" show "$(cid fresh.json)" -q -f json
[ "$(ir out.txt)" = "$(ir fresh.json)" ] || fail "show: $(ir out.txt), compare --fresh: $(ir fresh.json)"
echo ok
