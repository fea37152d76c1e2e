# A counted metric is exact only when every run of a side agrees (METHODS.md 2, step 7;
# docs/counted.md): a comparison measured again (counted metrics are never shown from the
# store) checks every counted run stored for a side, not only the newest MIN. Before, the first
# look took the newest 2 of a side's stored runs: when those agreed on each side, the
# metric was called exact and judged by the tolerance alone, although the earlier
# comparison had found the side's runs disagreeing and judged them statistically.
# Here both sides count 1, 2, 1, 2 then 1, 1 (A) or 2, 2 (B) units of work: undecided
# from all six runs, and the newest two make ratio 2 exactly.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

make_pattern_repo repo 121211 121222

ir() { json_get "$1" "[(m['verdict'], m['deterministic'], m['baseline']['n'], m['target']['n']) for m in d['benchmarks'][0]['metrics'] if m['name'] == 'ir'][0]"; }
expect_exit 0 "$REVPERF" compare a b -q -f json
cp out.txt first.json
case "$(ir first.json)" in
"('undecided', False, 6, 6)") ;;
*) fail "the first comparison: $(ir first.json)" ;;
esac
# Measured again: no counted run more, the same six runs a side, the same verdict.
expect_exit 0 "$REVPERF" compare a b -q -f json
[ "$(ir out.txt)" = "$(ir first.json)" ] || fail "measured again: $(ir out.txt), first: $(ir first.json)"
echo ok
