# compare with profile = io on the kvstore example (examples/make-history.sh): traced runs
# apart from the timing runs, and the I/O similarity report under the verdict
# (docs/io-analysis.md). more-writes writes and fsyncs the log per record instead of per
# batch of 256: the log's stack trace must rank first with SC 0 and the TotalImpact the
# paper's formula gives.
. "$SRCDIR/tests/cli/lib/common.bash"

"$SRCDIR/examples/make-history.sh" proj >/dev/null || fail "cannot make the example history"
cd proj
cat >>revperf.ini <<'INI'
profile = io
profile-runs = 3
INI
sed -i 's/^runs = .*/runs = 2..3/; s/--queries 2000000/--queries 20000/' revperf.ini
# The configuration is the working tree's (not committed): it applies to both revisions.
git tag io-base cpu-regression

# The timing verdict on wall time is the machine's business here (tmpfs makes fsync cheap):
# exit 0 or 1, nothing else. The I/O report does not depend on it.
compare() {
	local got=0
	"$REVPERF" compare -q --tolerance 20% "$@" >out.txt 2>err.txt || got=$?
	[ "$got" = 0 ] || [ "$got" = 1 ] || { cat out.txt err.txt; fail "compare exited $got"; }
}

compare -f json io-base more-writes
cp out.txt compare.json
io='d["benchmarks"][0]["io"]'
[ "$(json_get compare.json "$io['error']")" = None ] || fail "I/O error: $(json_get compare.json "$io['error']")"
[ "$(json_get compare.json "$io['runs']['baseline'], $io['runs']['target']")" = "3 3" ] ||
	fail "expected 3 + 3 traced runs"
row="$io['similarity']['rows'][0]"
# Each record is 116 bytes: one write of 256 records = 29696 bytes in the baseline, one per
# record now. Impact = 116 - 29696 (below the range), TotalImpact = 4096 calls x Impact.
[ "$(json_get compare.json "$row['stack'].split(';')[-2:]")" = "['log_flush', '__write']" ] ||
	fail "the log's stack trace is not first: $(json_get compare.json "$row['stack']")"
[ "$(json_get compare.json "$row['sc'], $row['range_low'], $row['range_high'], $row['bytes_per_call_mean']")" = "0.0 29696.0 29696.0 116.0" ] ||
	fail "log row: $(json_get compare.json "$row")"
[ "$(json_get compare.json "$row['impact'], $row['total_impact'], $row['calls_mean'], $row['calls_diff']")" = "-29580.0 -121159680.0 4096.0 4080.0" ] ||
	fail "log row impact: $(json_get compare.json "$row")"
[ "$(json_get compare.json "$io['bytes_per_run']['baseline']['min'] > 475000, $io['calls_per_run']['target']['mean'], $io['calls_per_run']['target']['max']")" = "True 4097.0 4097.0" ] ||
	fail "totals: $(json_get compare.json "$io['bytes_per_run'], $io['calls_per_run']")"
# The timing runs are not the traced ones: the verdict rests on its own runs.
[ "$(json_get compare.json "d['benchmarks'][0]['runs']['target']['ok'] <= 3")" = True ] ||
	fail "timing runs: $(json_get compare.json "d['benchmarks'][0]['runs']")"
ls "$(json_get compare.json "$io['profiles']")"/B-0.io.json >/dev/null || fail "no stored profile"

# Text and Markdown: the same report under the verdict; the traced runs are reused.
compare io-base more-writes
expect_grep '^  I/O \(traced runs: 3 \+ 3, 3 \+ 3 reused\):$' out.txt
# Every traced run made the same number of calls: each side's count once, not 17 (17..17).
expect_grep '^    written per run \(mean, min\.\.max\): .* bytes in 17 -> 4097 calls$' out.txt
expect_grep '^      TotalImpact: Impact x calls per run, in bytes per run$' out.txt
expect_grep '^    I/O similarity of more-writes \(3 runs\) against io-base \(3 runs\): 2 of 2 stack traces changed' out.txt
expect_grep '^ +0\.00 +-29580\.0 +-121159680 +29696\.0 +116\.0 +3/3 +\+4080\.0  \.\.\.;main;log_flush;__write$' out.txt
compare -f markdown io-base more-writes
expect_grep '^<details><summary>I/O: ingest-query</summary>$' out.txt
expect_grep '^\| 0\.00 \| -29580\.0 \| -121159680 \| 29696\.0 \| 116\.0 \| 3/3 \| \+4080\.0 \| `.*log_flush;__write` \|$' out.txt

# diff --bench --io: the stored runs of the two revisions.
expect_exit 1 "$REVPERF" diff --bench ingest-query --io io-base more-writes
expect_grep '^I/O similarity of more-writes \([0-9a-f]{12}\) \(3 runs\) against io-base \([0-9a-f]{12}\) \(3 runs\)' out.txt
expect_exit 2 "$REVPERF" diff --bench ingest-query --io baseline more-writes
expect_grep "no stored I/O profile of benchmark 'ingest-query' at baseline" err.txt
echo ok
