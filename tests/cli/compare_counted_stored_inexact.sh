# A counted metric is exact only when every run of a side agrees (METHODS.md 2, step 7;
# docs/counted.md): a comparison measured again (counted metrics are never shown from the
# store) checks every counted run stored for a side, not only the newest MIN. Before, the first
# look took the newest 2 of a side's stored runs: when those agreed on each side, the
# metric was called exact and judged by the tolerance alone, although the earlier
# comparison had found the side's runs disagreeing and judged them statistically.
# Here both sides count 1, 2, 1, 2 then 1, 1 (A) or 2, 2 (B) units of work: undecided
# from all six runs, and the newest two make ratio 2 exactly.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

make_tiny_repo repo
cd repo
cat >work.c <<'C'
/* Units of work by run: the run counter in .n (the timing runs take the first two). */
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
echo 121211 >pattern
git add . && git commit -qm work && git tag a
echo 121222 >pattern
git commit -qam "the same program, other inputs" && git tag b

ir() { json_get "$1" "[(m['verdict'], m['deterministic'], m['baseline']['n'], m['target']['n']) for m in d['benchmarks'][0]['metrics'] if m['name'] == 'ir'][0]"; }
expect_exit 0 "$REVPERF" compare a b -q -f json
cp out.txt first.json
case "$(ir first.json)" in
"('undecided', False, 6, 6)") ;;
*) fail "the first comparison: $(ir first.json)" ;;
esac
# Measured again: no counted run more, the same six runs a side, the same verdict.
expect_exit 0 "$REVPERF" compare a b -q -f json
[ "$(ir out.txt)" = "$(ir first.json)" ] || fail "measured again: $(ir out.txt), first: $(ir first.json)"
echo ok
