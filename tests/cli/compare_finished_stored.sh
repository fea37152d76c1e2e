# A finished comparison asked for again is printed from the store: no run, no warm-up, no
# new comparison, the same report. --more continues it with a new budget of runs, --fresh
# starts a new comparison. The verdict rests on wchar (bytes written), which a busy
# machine cannot change: base writes 1000 bytes, slow writes 3000.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo

norm() { python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
for b in d['benchmarks']: b.pop('elapsed_s', None)
print(json.dumps(d, sort_keys=True))" "$1"; }

expect_exit 1 "$REVPERF" compare base slow -q --seed 1 -f json
[ "$(json_get out.txt "[m for m in d['benchmarks'][0]['metrics'] if m['name']=='wchar'][0]['verdict']")" = worse ] ||
	fail "wchar not worse"
norm out.txt >first.json
runs=$(count runs) comps=$(count comparisons)

# Again: nothing runs, nothing is recorded, the same report (text and JSON alike).
expect_exit 1 "$REVPERF" compare base slow -f json
expect_grep 'shown from the store, nothing ran' err.txt
norm out.txt >second.json
diff first.json second.json >/dev/null || { diff first.json second.json | head; fail "report differs"; }
[ "$(count runs)" = "$runs" ] || fail "runs were added: $runs -> $(count runs)"
[ "$(count comparisons)" = "$comps" ] || fail "a comparison was added"
expect_exit 1 "$REVPERF" compare base slow -q -f markdown
expect_grep 'write' out.txt
[ "$(count runs)" = "$runs" ] || fail "markdown run added runs"

# --more: more runs on both sides (within a new budget), in a new comparison row.
expect_exit 1 "$REVPERF" compare base slow -q --more -f json
[ "$(count runs)" -gt "$runs" ] || fail "--more ran nothing"
ok_a=$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['ok']")
[ "$ok_a" -gt 3 ] || fail "--more: $ok_a runs per side"
runs=$(count runs)

# --fresh: a new comparison measured anew.
comps=$(count comparisons)
expect_exit 1 "$REVPERF" compare base slow -q --fresh -f json
[ "$(count comparisons)" = $((comps + 1)) ] || fail "--fresh made no new comparison"
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused']")" = 0 ] || fail "--fresh reused"

# --more and --fresh contradict each other.
expect_exit 2 "$REVPERF" compare base slow -q --more --fresh
expect_one_line err.txt
echo ok
