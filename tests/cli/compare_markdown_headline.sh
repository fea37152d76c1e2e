# The headline of the Markdown report (compare -f markdown, revperf ci's summary) counts
# the verdicts of the primary metrics, as the text summary does: on SQLite's speedtest1
# with `metrics = wall, ir` and `primary = ir`, it said "0 regressions, 0 improvements,
# 1 unchanged, 1 undecided" where ir, which decided the exit status, was equal and only
# wall was undecided. The other metrics keep their verdicts in the table, and a change in
# one of them is said after the count ("other metrics: 1 regression"), never hidden.
. "$SRCDIR/tests/cli/lib/common.bash"

# v: the same in every run (primary, equal, exact); u: alternating 1000, 1100 in the
# opposite phase on each side (undecided by construction); w: 10 against 20 (worse).
make_tiny_repo repo
cd repo
cat >revperf.ini <<'INI'
[build]
command = true
[benchmark "v"]
command = sh ./v.sh
metric.v = /v ([0-9]+)/
metric.u = /u ([0-9]+)/
metric.w = /w ([0-9]+)/
metrics = v, u, w
primary = v
warmup = 0
runs = 3..4
INI
cat >v.sh <<'SH2'
c=$(cat .n 2>/dev/null || echo 0); echo $((c + 1)) >.n
echo "v 500"
if [ $(( (c + $(cat off)) % 2 )) = 0 ]; then echo "u 1000"; else echo "u 1100"; fi
echo "w $(cat w)"
SH2
echo 0 >off && echo 10 >w
git add . && git commit -qm v && git tag a
echo 1 >off && echo 20 >w
git commit -qam "the other phase, more w" && git tag b

expect_exit 0 "$REVPERF" compare a b -f markdown
expect_grep '^\| v \| v \(primary\) \| :white_circle: equal \|' out.txt
expect_grep '^\| v \| u \| :yellow_circle: undecided \|' out.txt
expect_grep '^\| v \| w \| :red_circle: \*\*worse\*\* \|' out.txt
head -1 out.txt >headline.txt
expect_grep '^## revperf: 0 regressions, 0 improvements, 1 unchanged; other metrics: 1 regression$' headline.txt

# The text summary says the same: v equal, and nothing of u and w.
expect_exit 0 "$REVPERF" show a b
sed -n '/^summary/,$p' out.txt >summary.txt
expect_grep '^  v v: equal' summary.txt
[ "$(wc -l <summary.txt)" -eq 2 ] || fail "summary of more than v: $(cat summary.txt)"

# A primary regression beside an undecided metric: 1 regression, the undecided one not
# counted.
sed -i 's/^primary = v$/primary = w/' revperf.ini
git commit -qam "w is primary" && git tag c
echo 0 >off && echo 10 >w && git commit -qam "less w again" && git tag d
expect_exit 1 "$REVPERF" compare d c -f markdown
head -1 out.txt >headline.txt
expect_grep '^## revperf: 1 regression, 0 improvements, 0 unchanged$' headline.txt
