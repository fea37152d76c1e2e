# A comparison records the machine it was made on (schema 13), and a finished comparison
# answers compare, history and the report only on its machine. On a store shared by two
# machines (REVPERF_MACHINE here), the second machine's `compare` was answered with the
# first machine's finished comparison ("shown from the store": it never measured), the
# report showed the newest comparison of a commit whatever its machine, and `show` of a
# comparison that ran nothing of its own took its machine from the newest run of its builds.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo

cmp_id() { json_get out.txt "d['comparison_id']"; }
host() { json_get out.txt "d['machine']['hostname']"; }

REVPERF_MACHINE=first expect_exit 1 "$REVPERF" compare base slow --seed 1 -f json
first=$(cmp_id)
# The same compare on the second machine measures there.
REVPERF_MACHINE=second expect_exit 1 "$REVPERF" compare base slow --seed 2 -f json
expect_no_grep 'shown from the store' err.txt
second=$(cmp_id)
[ "$second" != "$first" ] || fail "the second machine was shown the first machine's comparison $first"
[ "$(host)" = second ] || fail "comparison $second not on the second machine: $(host)"
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused']")" = 0 ] ||
	fail "the second machine reused runs: $(json_get out.txt "d['benchmarks'][0]['runs']")"
# Asked again on the first machine, the first machine's comparison answers (the newer one
# is the second machine's).
REVPERF_MACHINE=first expect_exit 1 "$REVPERF" compare base slow --seed 3 -f json
expect_grep 'shown from the store' err.txt
[ "$(cmp_id)" = "$first" ] || fail "the first machine was shown comparison $(cmp_id), not its own $first"
[ "$(host)" = first ] || fail "shown on machine $(host)"
# ... and so does history (the commit slow against its parent base).
REVPERF_MACHINE=first expect_exit 0 "$REVPERF" history slow -n 1 -f json
python3 - out.txt "$first" <<'PY' || fail "history on the first machine: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
ids = [c.get("comparison") for c in d["commits"] if c.get("comparison")]
assert ids == [int(sys.argv[2])], ids
PY

# The machine is recorded with the comparison; show says it.
for id in "$first" "$second"; do
	want=$([ "$id" = "$first" ] && echo first || echo second)
	[ "$(db_query .revperf/revperf.db "SELECT m.hostname FROM comparisons c JOIN machines m ON m.id = c.machine_id WHERE c.id = $id")" = "$want" ] ||
		fail "comparison $id: its machine is not recorded"
	expect_exit 0 "$REVPERF" show "$id" -f json
	[ "$(host)" = "$want" ] || fail "show $id says machine $(host), not $want"
done

# The report of each machine shows that machine's comparison on the commit's page.
slow=$(git rev-parse slow)
for m in first second; do
	expect_exit 0 "$REVPERF" report -o "site-$m" --machine "$m"
	page=site-$m/commits/$slow.html
	[ -f "$page" ] || fail "no page for slow in site-$m: $(ls site-$m site-$m/commits 2>&1 | head)"
	grep -o 'Comparison #[0-9]*' "$page" >"cmp-$m.txt" || fail "no comparison on $page"
done
grep -qx "Comparison #$first" cmp-first.txt || fail "the first machine's page shows $(cat cmp-first.txt), not #$first"
grep -qx "Comparison #$second" cmp-second.txt || fail "the second machine's page shows $(cat cmp-second.txt), not #$second"
echo ok
