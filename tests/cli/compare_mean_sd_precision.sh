# The mean and sd of a report row are written in one unit and with as many digits after
# the point (text and Markdown): on SQLite's speedtest1 with `metrics = wall, ir` the ir
# row said "592M ± 1.23k" (now "592.1235 M Ir ± 0.0012 M Ir") and wall "1.25 ms ± 39.1 us", each number at its own precision;
# a reported metric said "1033 ± 57.74". An sd of exactly 0 (exact counts) still reads 0.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

# check_rows FILE: every "MEAN ± SD" of a row of the verdict table has one unit and one number of decimals,
# except an sd of exactly "0"; prints the pairs it checked.
check_rows() {
	python3 - "$1" <<'PY' || fail "mean and sd at different precisions: $(cat "$1")"
import re, sys
num = r"(<?)(-?[0-9]+(?:\.([0-9]+))?)((?: (?:s|ms|us|B|KiB|MiB|GiB|TiB|(?:[kMG] )?(?:Ir|cycles|insns))(?![A-Za-z]))|[kMG])?"
pair = re.compile(num + r" ± " + num + r"(?![0-9A-Za-z.])")
rows = 0
verdict = r"(worse|better|equal|undecided)"
verdict_row = re.compile(r"^(  \S+( \*)? +%s |\| [^|]+ \| [^|]+ \| (:\w+: )?(\*\*)?%s)" % (verdict, verdict))
for line in open(sys.argv[1]):
    pairs = pair.findall(line) if verdict_row.match(line) else []
    if not pairs:
        continue
    rows += 1
    shapes = set()
    for lt, mean, mdec, munit, st, sd, sdec, sunit in pairs:
        assert not lt, line
        shapes.add((len(mdec), munit))
        if sd == "0" and not sunit and not st:
            continue          # exactly 0
        assert float(sd) > 0 or st, line   # a nonzero sd never reads 0
        shapes.add((len(sdec), sunit))
    assert len(shapes) == 1, (shapes, line)
    print(line.rstrip())
assert rows, "no row with a mean and an sd"
PY
}

# A reported metric that alternates 1000, 1100: 1033 ± 58, not 1033 ± 57.74.
make_alternating_repo alt "runs = 3..3"
expect_exit 0 "$REVPERF" compare a b
check_rows out.txt >rows.txt
expect_grep '^  v \* .* 1033 ± 58 +1067 ± 58 ' rows.txt
expect_exit 0 "$REVPERF" show a b -f markdown
check_rows out.txt >rows.txt
expect_grep '\| 1033 ± 58 \| 1067 ± 58 \|' rows.txt
cd ..

cat >spin.c <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
int main(int argc, char **argv)
{
	for (unsigned long i = 0; i < strtoul(argv[1], 0, 10); i++)
		sink += i;
	return 0;
}
C
cc -O1 -o spin spin.c || fail "cannot compile the workload"
# Exact counts: ir's sd is 0 and reads 0; wall, maxrss and minflt vary.
expect_exit 1 "$REVPERF" compare --cmd-a './spin 1000000' --cmd-b './spin 1010000' \
	--metrics wall,ir,maxrss,minflt --primary ir --runs 3..3
check_rows out.txt >rows.txt
# ir in its unit, as the attribution writes it ("1.01 M Ir"; was "1.01M")
expect_grep '^  ir \* .* [0-9.]+ M Ir ± 0 +[0-9.]+ M Ir ± 0 ' rows.txt
expect_grep '^  wall ' rows.txt
expect_exit 1 "$REVPERF" compare --cmd-a './spin 1000000' --cmd-b './spin 1010000' \
	--metrics wall,ir --primary ir --runs 3..3 -f markdown
check_rows out.txt >rows.txt
expect_grep '^\| command \| ir \(primary\) \|.* [0-9.]+ M Ir ± 0 \| [0-9.]+ M Ir ± 0 \|' rows.txt

# Counts that differ every run: ir's sd in ir's unit, to as many digits as its mean.
cat >vary.sh <<'SH2'
n=$(( $(od -An -N2 -tu2 /dev/urandom) % 500 + 100 ))
i=0; while [ $i -lt $n ]; do i=$((i+1)); done
SH2
expect_exit 0 "$REVPERF" compare --cmd-a 'sh vary.sh' --cmd-b 'sh vary.sh' --metrics ir \
	--primary ir --runs 3..3
check_rows out.txt >rows.txt
expect_grep '^  ir \* ' rows.txt
# The columns after the means stay put: a cell wider than the usual ("12.345 M Ir ± 0.012 M
# Ir", a count that varies a little) widens its column, heading included, so that p, q BH
# and p MW end where their headings do.
cat >vary2.sh <<'SH2'
n=$(( $(od -An -N2 -tu2 /dev/urandom) % 10 + 1000 ))
i=0; while [ $i -lt $n ]; do i=$((i+1)); done
SH2
expect_exit 0 "$REVPERF" compare --cmd-a 'sh vary2.sh' --cmd-b 'sh vary2.sh' --metrics ir \
	--primary ir --runs 3..3
check_rows out.txt >rows.txt
python3 - out.txt <<'PY' || fail "the verdict table's columns shift: $(cat out.txt)"
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
head = [l for l in lines if l.startswith("  metric ")]
rows = [re.sub(r"  (slower|faster|higher|lower)$", "", l) for l in lines
        if re.match(r"^  \S+( \*)? +(worse|better|equal|undecided) ", l)]
assert head and rows, lines
assert all(len(r) == len(head[0]) for r in rows), [head[0]] + rows
PY
echo ok
