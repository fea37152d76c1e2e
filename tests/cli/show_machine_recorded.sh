# A comparison records the machine it was made on (schema 13). One whose every run was
# reused ran nothing of its own; `show` took its machine from the newest run of its builds,
# which on a store shared by two machines could be the other machine's, and then showed that
# machine's runs under it. Two machines (REVPERF_MACHINE) share one store here.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo

runs_of() { json_get out.txt "d['benchmarks'][0]['runs']['baseline']['ok']"; }

REVPERF_MACHINE=first expect_exit 1 "$REVPERF" compare base slow -q --seed 1 -f json
first_runs=$(runs_of)
# the second machine measures the same builds (its own runs: runs are reused per machine),
# and more of them, so that the two machines' run counts tell them apart
REVPERF_MACHINE=second expect_exit 1 "$REVPERF" compare base slow -q --seed 2 --runs 5..6 -f json
second_runs=$(runs_of)
[ "$first_runs" != "$second_runs" ] || fail "both machines ran $first_runs runs: the test cannot tell them apart"
# back on the first machine: a new comparison (another tolerance: the stored one does not
# answer it) that reuses every run of the first machine and runs nothing (wchar is exact)
REVPERF_MACHINE=first expect_exit 1 "$REVPERF" compare base slow --tolerance 5% --seed 3 -f json
id=$(json_get out.txt "d['comparison_id']")
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused']")" = "$first_runs" ] ||
	fail "the third comparison did not reuse the first machine's runs: $(json_get out.txt "d['benchmarks'][0]['runs']")"
own=$(db_query .revperf/revperf.db "SELECT count(*) FROM runs WHERE comparison_id = $id")
[ "$own" = 0 ] || fail "the third comparison ran $own runs of its own: the test needs none"

REVPERF_MACHINE=first expect_exit 0 "$REVPERF" show "$id" -f json
[ "$(json_get out.txt "d['machine']['hostname']")" = first ] ||
	fail "comparison $id was made on machine first, show says $(json_get out.txt "d['machine']['hostname']")"
[ "$(runs_of)" = "$first_runs" ] || fail "show $id judged $(runs_of) runs, the first machine has $first_runs"
[ "$(db_query .revperf/revperf.db "SELECT m.hostname FROM comparisons c JOIN machines m ON m.id = c.machine_id WHERE c.id = $id")" = first ] ||
	fail "the comparison's machine is not recorded"

# The report of each machine shows that machine's comparison on the commit's page: the
# second machine's (newer) comparison used to stand on the first machine's pages too.
first_id=$(db_query .revperf/revperf.db "SELECT min(c.id) FROM comparisons c JOIN machines m ON m.id = c.machine_id WHERE m.hostname = 'first'")
second_id=$(db_query .revperf/revperf.db "SELECT max(c.id) FROM comparisons c JOIN machines m ON m.id = c.machine_id WHERE m.hostname = 'second'")
slow=$(git rev-parse slow)
for m in first second; do
	expect_exit 0 "$REVPERF" report -o "site-$m" --machine "$m"
	page=site-$m/commits/$slow.html
	[ -f "$page" ] || fail "no page for slow in site-$m: $(ls site-$m site-$m/commits 2>&1 | head)"
	grep -o 'Comparison #[0-9]*' "$page" >"cmp-$m.txt" || fail "no comparison on $page"
done
# the first machine's newest of its comparisons of slow is the third (tolerance 5%)
grep -qx "Comparison #$id" cmp-first.txt || fail "the first machine's page shows $(cat cmp-first.txt), not #$id"
grep -qx "Comparison #$second_id" cmp-second.txt || fail "the second machine's page shows $(cat cmp-second.txt), not #$second_id"
[ "$first_id" != "$second_id" ] || fail "one comparison for both machines"
echo ok
