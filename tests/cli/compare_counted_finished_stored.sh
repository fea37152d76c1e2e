# A finished comparison whose primary is counted (ir), asked for again, is shown from the
# store as one of timed metrics is: no warm-up, no run, no counted run, the same comparison
# (id and seed) and the same verdicts. Before, stored_finished() took every comparison with
# a counted metric for unfinished: `compare A B -m wall,ir --primary ir` again made a new
# comparison with a new seed, ran a warm-up per side and reused the rest, each time.
# A comparison that asks for more (another counted metric) is a new one, but the stored
# timed runs answer its timed phase: no warm-up runs for nothing then either.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

make_spin_same repo
norm() { python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
for b in d['benchmarks']:
    b.pop('elapsed_s', None); b['counted'].pop('elapsed_s', None)
print(json.dumps(d, sort_keys=True))" "$1"; }
ir() { json_get "$1" "[(m['verdict'], m['method']) for m in d['benchmarks'][0]['metrics'] if m['name'] == 'ir'][0]"; }

expect_exit 0 "$REVPERF" compare base same -m wall,ir --primary ir -q -f json
[ "$(ir out.txt)" = "('equal', 'exact')" ] || fail "first: ir $(ir out.txt)"
norm out.txt >first.json
id=$(json_get out.txt "d['comparison_id']") seed=$(json_get out.txt "d['seed']")
runs=$(count runs) profiles=$(count profiles) comps=$(count comparisons)

# Again: shown from the store, nothing runs or is recorded, the same report.
expect_exit 0 "$REVPERF" compare base same -m wall,ir --primary ir -f json
expect_grep "comparison $id is finished; shown from the store, nothing ran" err.txt
[ "$(count runs)" = "$runs" ] || fail "runs were added (warm-ups?): $runs -> $(count runs)"
[ "$(count profiles)" = "$profiles" ] || fail "counted runs were added"
[ "$(count comparisons)" = "$comps" ] || fail "a comparison was added"
[ "$(json_get out.txt "d['comparison_id']")" = "$id" ] || fail "comparison $id not reused"
[ "$(json_get out.txt "d['seed']")" = "$seed" ] || fail "seed changed: $seed -> $(json_get out.txt "d['seed']")"
norm out.txt >second.json
diff first.json second.json >/dev/null || { diff first.json second.json | head; fail "report differs"; }
expect_exit 0 "$REVPERF" compare base same -m wall,ir --primary ir -q
expect_grep 'ir \*  *equal  *1\.000' out.txt
[ "$(count runs)" = "$runs" ] || fail "text: runs were added: $runs -> $(count runs)"

# sim-cycles too: a new comparison with new counted runs, but no timed run or warm-up.
expect_exit 0 "$REVPERF" compare base same -m wall,ir,sim-cycles --primary ir -q -f json
[ "$(count comparisons)" = $((comps + 1)) ] || fail "sim-cycles: no new comparison"
[ "$(count runs)" = "$runs" ] || fail "sim-cycles: timed runs or warm-ups ran: $runs -> $(count runs)"
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused']")" = 3 ] ||
	fail "sim-cycles: the stored timed runs were not reused"
echo ok
