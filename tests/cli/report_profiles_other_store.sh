# A commit page shows the profiles (attribution, flame graph) of profiles/<comparison>/ in
# the state directory only when that comparison was measured there. Comparison numbers are
# a store's: a clone that compared on its own SQLite store and builds the report of a
# shared store (measured by workers in their own clones) found its own comparison #1's
# files under the shared store's comparison #1, and showed that attribution, of other
# commits, on the page of a commit it did not measure.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

make_tiny_repo proj
cd proj
printf 'metrics = wchar, ir\nprimary = ir\n' >>revperf.ini
git commit -qam "ir"
git tag v1
printf 'i=0; while [ $i -lt 4000 ]; do i=$((i+1)); done\n' >work.sh
git commit -qam "twice the loop" && git tag v2
printf 'i=0; while [ $i -lt 8000 ]; do i=$((i+1)); done\n' >work.sh
git commit -qam "four times the loop" && git tag v3
cd ..
git clone -q proj worker
cp proj/revperf.ini worker/
shared=$PWD/shared.db

# The worker's clone measures v1 -> v2 into the shared store: its comparison #1.
cd worker
expect_exit 1 "$REVPERF" compare v1 v2 --store "$shared" -q
cd ..
# The developer's clone compares v2 -> v3 on its own store: its own comparison #1.
cd proj
expect_exit 1 "$REVPERF" compare v2 v3 -q
[ -f .revperf/profiles/1/spin/counted/attribution.json ] || fail "no attribution of the local comparison"

# The shared store's report from the developer's clone: v2's page shows comparison #1 of
# the shared store (v1 -> v2), not the local attribution of v2 -> v3.
expect_exit 0 "$REVPERF" report --store "$shared" -o site
v2=$(git rev-parse v2)
page=site/commits/$v2.html
[ -f "$page" ] || fail "no page for v2"
expect_grep 'Comparison #1' "$page"
expect_no_grep 'Absolute change' "$page"
expect_grep 'stayed in the state directory that measured it' "$page"

# Built in the worker's clone, the same report shows the attribution.
cd ../worker
expect_exit 0 "$REVPERF" report --store "$shared" -o site
expect_grep 'Absolute change \(counted runs under valgrind\)' "site/commits/$v2.html"
expect_no_grep 'stayed in the state directory' "site/commits/$v2.html"
# ... also with the state directory spelled otherwise than when the runs were stored.
expect_exit 0 "$REVPERF" report --store "$shared" --state-dir ./.revperf -o site2
expect_grep 'Absolute change \(counted runs under valgrind\)' "site2/commits/$v2.html"
echo ok
