# Counts that did not change at all (every run of both sides the same instructions) are
# said to be unchanged, not noise: before, an exact A/A comparison on ir read "change +0 ± 0
# Ir (noise)" and "the total change is itself within the noise: shares are shares of noise"
# over an empty list (zlib, a commit that touched only contrib/: 443.905 M Ir on every run
# of both sides).
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

cat >spin.c <<'C'
static volatile unsigned long sink;
int main(void)
{
	for (unsigned long i = 0; i < 100000; i++)
		sink += i;
	return 0;
}
C
cc -O1 -o spin spin.c || fail "cannot compile the workload"

for fmt in text markdown; do
	expect_exit 0 "$REVPERF" compare --cmd-a ./spin --cmd-b ./spin --metrics ir --primary ir \
		--runs 2..2 --warmup 0 -f $fmt
	expect_grep '^ *ir \* +equal +1\.000|\| ir \(primary\) \| :white_circle: equal \|' out.txt
	expect_grep 'change \+0 ± 0 Ir \(unchanged\)' out.txt
	expect_no_grep 'noise\)|shares of noise' out.txt
done
expect_exit 0 "$REVPERF" compare --cmd-a ./spin --cmd-b ./spin --metrics ir --primary ir \
	--runs 2..2 --warmup 0 -f json
python3 - out.txt <<'PY' || fail "json: $(cat out.txt)"
import json, sys
t = json.load(open(sys.argv[1]))["benchmarks"][0]["counted"]["attribution"]["total"]
assert t["change"] == 0 and t["change_interval"] == [0, 0], t
PY
echo ok
