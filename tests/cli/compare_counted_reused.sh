# The counted runs a report says were reused ("counted under valgrind (N + M runs, R + S
# reused)", JSON counted.reused) are those taken from the store, made by earlier
# comparisons, also after the second look (a side's counts disagree: both are topped up to
# MAX runs). Before, the count was the first look's: the same builds measured again took
# the 6 + 6 counted runs stored by the first comparison and ran none, but said "2 + 2
# reused" (the newest MIN of the first look). And under --fresh the second look ignored
# the first look's own runs and ran MAX more: 8 + 8 counted runs for a verdict on 6 + 6;
# and the second look's runs took the first look's directories, deleting their files.
# The benchmark counts 1 or 2 units of work by run (pattern), so that the sides disagree.
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

counted() { json_get "$1" "(d['benchmarks'][0]['counted']['runs'], d['benchmarks'][0]['counted']['reused'], [m['verdict'] for m in d['benchmarks'][0]['metrics'] if m['name'] == 'ir'][0])"; }
profiles() { db_query "$PWD/.revperf/revperf.db" "SELECT count(*) FROM profiles WHERE comparison_id = $1"; }

# The first comparison: 2 + 2 counted runs disagree, topped up to 6 + 6, none reused.
expect_exit 0 "$REVPERF" compare a b -q -f json
[ "$(counted out.txt)" = "([6, 6], [0, 0], 'undecided')" ] || fail "first: $(counted out.txt)"
# Each run in a directory of its own: before, the second look numbered its runs from 0
# again and replaced the first look's callgrind files (12 runs in 8 directories).
dirs=$(db_query "$PWD/.revperf/revperf.db" "SELECT count(DISTINCT path) FROM profiles WHERE comparison_id = 1")
[ "$dirs" = 12 ] || fail "the first comparison's 12 counted runs are in $dirs directories"

# Measured again: the 6 + 6 stored runs, all reused, none run.
expect_exit 0 "$REVPERF" compare a b -q -f json
id=$(json_get out.txt "d['comparison_id']")
[ "$(profiles "$id")" = 0 ] || fail "measured again: $(profiles "$id") counted runs made"
[ "$(counted out.txt)" = "([6, 6], [6, 6], 'undecided')" ] ||
	fail "measured again, JSON: $(counted out.txt)"
expect_exit 0 "$REVPERF" compare a b -q
expect_grep 'counted under valgrind \(callgrind, 6 \+ 6 runs, 6 \+ 6 reused\)' out.txt

# --fresh: none reused, and the second look tops up the first look's own runs.
expect_exit 0 "$REVPERF" compare a b -q -f json --fresh
id=$(json_get out.txt "d['comparison_id']")
case "$(counted out.txt)" in
"([6, 6], [0, 0], "*) ;;
*) fail "--fresh: $(counted out.txt)" ;;
esac
[ "$(profiles "$id")" = 12 ] || fail "--fresh made $(profiles "$id") counted runs for 6 + 6"
echo ok
