# show of a counted comparison made with --fresh judges the counted runs compare took: its
# own. Before, show checked every counted run stored up to it for exactness, so the
# disagreeing runs of an earlier comparison of the same builds made it take the newest
# MAX runs of each side (the earlier ones among them), where compare had judged its own
# 2 + 2. Here both sides count 2, 1, 1, 1, 1, 1 (A) or 1, 2, 2, 2, 2, 2 (B) units of work
# in the first comparison (the first look disagrees: MAX runs), then 1, 1 and 2, 2 in the
# fresh one (the pattern's last two digits): exact, ratio 2. Each comparison starts with
# a warm-up of A without valgrind (no timeout is known: it sets the counted runs'), which
# takes A's next digit: A's pattern has a 1 for it before each comparison's counted runs.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

make_pattern_repo repo 1211111111 12222222

ir() { json_get "$1" "[(m['verdict'], m['deterministic'], m['baseline']['n'], m['target']['n'], round(m['ratio'], 6)) for m in d['benchmarks'][0]['metrics'] if m['name'] == 'ir'][0]"; }
cid() { json_get "$1" "d['comparison_id']"; }
expect_exit 0 "$REVPERF" compare a b -q -f json
case "$(ir out.txt)" in
*", False, 6, 6, "*) ;;
*) fail "the first comparison: $(ir out.txt)" ;;
esac
expect_exit 1 "$REVPERF" compare a b --fresh -q -f json
cp out.txt fresh.json
case "$(ir fresh.json)" in
"('worse', True, 2, 2, "*) ;;
*) fail "the fresh comparison: $(ir fresh.json)" ;;
esac
expect_exit 0 "$REVPERF" show "$(cid fresh.json)" -q -f json
[ "$(ir out.txt)" = "$(ir fresh.json)" ] || fail "show: $(ir out.txt), compare --fresh: $(ir fresh.json)"
echo ok
