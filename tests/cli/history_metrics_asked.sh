# history shows a reused comparison with the metrics asked now, as compare does: a
# comparison stored with more metrics (-m wchar,maxrss) reused by a history asking for
# fewer (the configuration's wchar) keeps only the asked ones' verdicts and series. Before,
# every stored verdict came along: the JSON rows had maxrss, and the change points listed
# `write maxrss: none: ...` for a metric never asked for (libdeflate trial: history -m ir
# after compare -m wall,cpu,maxrss,ir listed wall, cpu and maxrss). Decided on wchar,
# which a busy machine cannot change.
. "$SRCDIR/tests/cli/lib/common.bash"
make_wchar_repo repo

metrics() { json_get "$1" "[sorted(v['metric'] for v in c['verdicts']) for c in d['commits'] if c['status'] in ('compared', 'reused')]"; }
series() { json_get "$1" "sorted(s['metric'] for s in d['series'])"; }
statuses() { json_get "$1" "[c['status'] for c in d['commits'] if c['status'] != 'root']"; }

expect_exit 0 "$REVPERF" history -n 2 -m wchar,maxrss -q -f json
[ "$(metrics out.txt)" = "[['maxrss', 'wchar'], ['maxrss', 'wchar']]" ] || fail "first history: $(metrics out.txt)"

# The configuration's metrics (wchar): the stored comparison answers them and is reused,
# with wchar alone.
expect_exit 0 "$REVPERF" history -n 2 -q -f json
[ "$(statuses out.txt)" = "['reused', 'reused']" ] || fail "not reused: $(statuses out.txt)"
[ "$(metrics out.txt)" = "[['wchar'], ['wchar']]" ] || fail "verdicts not asked for: $(metrics out.txt)"
[ "$(series out.txt)" = "['wchar']" ] || fail "series not asked for: $(series out.txt)"
expect_exit 0 "$REVPERF" history -n 2
expect_grep 'write wchar' out.txt
expect_no_grep 'maxrss' out.txt
# asked again, the stored metric is there again
expect_exit 0 "$REVPERF" history -n 2 -m wchar,maxrss -q -f json
[ "$(metrics out.txt)" = "[['maxrss', 'wchar'], ['maxrss', 'wchar']]" ] || fail "asked again: $(metrics out.txt)"
echo ok
