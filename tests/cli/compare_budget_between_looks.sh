# A time budget that ends between two planned looks takes a look there, at the next planned
# look's alpha. Measured again (the benchmark still undecided and short of max runs), the
# comparison judges those stored runs first at that alpha and goes on to the look after it:
# before, it went on to the pending look and took its alpha a second time, with one more
# look than the plan has (runs 3..12: looks at 3, 4, 5, 6 under the budget, then 7, 9, 12).
# The benchmark's paired log ratios make the look at 7 pairs the first decided one, and 9
# the next: the comparison measured again must stop at 9, not at 7.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
cat >revperf.ini <<'INI'
[defaults]
alpha = 0.2
[build]
command = true
[benchmark "d"]
command = sh ./d.sh
metric.v = /v ([0-9.]+)/
metrics = v
primary = v
runs = 3..12
warmup = 0
tolerance = 0.001%
INI
# Side A prints 1000; side B 1000 exp(d_i) for its i-th run. The 6th run of each side
# outlasts the time budget (both: the next run may wait in the spawner behind the one
# running). Each side counts its runs in its own worktree.
cat >d.sh <<'SH'
c=$(cat .n 2>/dev/null || echo 0); echo $((c + 1)) >.n
[ "$c" = 5 ] && sleep 1.2
if [ "$(cat side)" = A ]; then echo "v 1000"; exit 0; fi
awk -v i="$c" 'BEGIN { split("0.07 0 0 0.08 0.07 0.01 0.08 0.03 0.05 0.05 0.04 0.06", d, " ");
	printf "v %.9f\n", 1000 * exp(d[i + 1]) }'
SH
echo A >side
git add . && git commit -qm d && git tag a
echo B >side
git commit -qam b && git tag b

runs() { json_get "$1" "d['benchmarks'][0]['runs']['baseline']['ok'], d['benchmarks'][0]['runs']['target']['ok'], d['benchmarks'][0]['looks'], [m['verdict'] for m in d['benchmarks'][0]['metrics']]"; }
expect_exit 0 "$REVPERF" compare a b -q -f json --time-budget 1s
[ "$(runs out.txt)" = "6 6 4 ['undecided']" ] || fail "under the budget: $(runs out.txt)"
expect_exit 1 "$REVPERF" compare a b -q -f json
[ "$(runs out.txt)" = "9 9 2 ['worse']" ] ||
	fail "measured again: $(runs out.txt) (the look at 7 took the alpha the budget's look at 6 had)"
echo ok
