# revperf report: a commit whose only build failed (a configuration tried once, on an
# older commit) has no measured run. It is not counted with the measured commits, it does
# not stretch the charts back to its time, and its page names the build command that
# failed and its log.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo proj
old=$(git rev-parse HEAD~2)
base=$(git rev-parse base)
slow=$(git rev-parse slow)
expect_exit 1 "$REVPERF" compare -q base slow

# Another configuration whose build command fails, on the oldest commit.
sed 's|^command = echo built > built.txt$|command = ./no-such-compiler -o prog|' revperf.ini \
	>"$TEST_TMP/broken.ini"
grep -q 'no-such-compiler' "$TEST_TMP/broken.ini" || fail "broken.ini: $(cat "$TEST_TMP/broken.ini")"
expect_exit 2 "$REVPERF" compare -q --config "$TEST_TMP/broken.ini" HEAD~2 base
expect_grep 'no-such-compiler' err.txt

expect_exit 0 "$REVPERF" report --out site
index=site/index.html
# Two measured commits, from base to slow: the failed build is neither counted nor the start.
expect_grep ': 2 measured commits from <a href="commits/'"$base"'\.html">' "$index"
expect_grep 'to <a href="commits/'"$slow"'\.html">' "$index"
expect_no_grep '3 measured commits' "$index"
expect_grep '<a href="#failed">1 failed build</a> with no measured run is on no chart' "$index"
expect_grep '<h2 id="failed">Failed builds not on the charts</h2>' "$index"
python3 - "$index" "$old" <<'PY' || fail "the failed build is drawn in a chart"
import re, sys
page, sha = open(sys.argv[1]).read(), sys.argv[2]
charts = re.findall(r"<svg.*?</svg>", page, re.S)
assert charts and not any(sha in c for c in charts)
PY

# Its page: the build failed, with the command and its log.
page=site/commits/$old.html
[ -s "$page" ] || fail "no page for the failed commit $old"
expect_grep '<span class="flag">failed</span>: <code class="build-command">\./no-such-compiler -o prog</code>' "$page"
expect_grep 'build log</a>' "$page"
expect_grep 'No run of this commit was measured' "$page"
# The measured commits' pages name no command: their builds did not fail.
expect_no_grep 'build-command' "site/commits/$base.html"

# A failed build between two measured commits stays on the charts, marked, and is counted
# apart from them.
git commit -q --allow-empty -m "fails to build" && mid=$(git rev-parse HEAD)
git commit -q --allow-empty -m "builds again" && last=$(git rev-parse HEAD)
expect_exit 2 "$REVPERF" compare -q --config "$TEST_TMP/broken.ini" "$mid" "$last"
expect_exit 0 "$REVPERF" compare -q slow "$last"
expect_exit 0 "$REVPERF" report --out site
expect_grep ': 3 measured commits from <a href="commits/'"$base"'\.html">' "$index"
expect_grep 'to <a href="commits/'"$last"'\.html"><code>[0-9a-f]{12}</code></a> builds again, with 1 failed build between them \(marked\)\.' "$index"
expect_grep 'build failed</title><rect class="buildfail"' "$index"
expect_grep '<a href="#failed">1 failed build</a> with no measured run is on no chart' "$index"
expect_grep '<code class="build-command">\./no-such-compiler -o prog</code>' "site/commits/$mid.html"
