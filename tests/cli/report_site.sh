# revperf report: the static HTML site of a measured history (docs/report.md). A C++
# program in a git repository with four commits: v1, v2 (slower, writes in smaller
# chunks), v3 (smaller chunks again; a second benchmark crashes there), and a commit
# whose build fails. Each commit is
# compared with its parent (profile = io, cct), then the site is checked as files (every
# page, every link, nothing from the program unescaped) and in headless Chromium
# (tests/browser/report.mjs, playwright-core installed by scripts/install-deps.sh).
# The program's markup: the first commit's summary is "<script>alert(1)</script>" and
# its functions are template instances writer<script> and work<script>.
. "$SRCDIR/tests/cli/lib/common.bash"

mkdir proj && cd proj
git init -q . && git config user.email t@example.com && git config user.name test
cat >prog.cc <<'CC'
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>
#ifndef VERSION
#define VERSION 1
#endif
struct script {};
static volatile unsigned long sink;
template <class T> __attribute__((noinline)) void work(long n)
{
	for (long i = 0; i < n * (VERSION > 1 ? 3 : 1); i++)
		sink += (unsigned long)i;
}
template <class T> __attribute__((noinline)) void writer(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t chunk = VERSION == 1 ? 1024 : VERSION == 2 ? 512 : 256;
	for (size_t done = 0; fd >= 0 && done < 4096; done += chunk)
		if (write(fd, buf, chunk) < 0)
			break;
	if (fd >= 0)
		close(fd);
}
int main(int argc, char **argv)
{
	work<script>(argc > 1 ? atol(argv[1]) : 1000);
	writer<script>("out.bin");
	return 0;
}
CC
cat >revperf.ini <<'INI'
[build]
command = g++ -O1 -g -DVERSION=$(cat version) -o prog prog.cc
profile-command = g++ -O1 -g -finstrument-functions -DVERSION=$(cat version) -o prog prog.cc
[benchmark "spin"]
command = ./prog 200000
runs = 3..3
warmup = 0
profile = io, cct
profile-runs = 2
[benchmark "tail-crash"]
command = sh -c 'echo tail; [ "$(cat version)" != 3 ] || kill -SEGV $$'
runs = 3..3
warmup = 0
[report]
commit-url = https://example.org/proj/commit/{sha}
INI
echo 1 >version
git add . && git commit -qm '<script>alert(1)</script>'
echo 2 >version && git commit -qam 'v2: three times the work, chunks of 512'
echo 3 >version && git commit -qam 'v3: chunks of 256'
echo 'syntax error' >>prog.cc && git commit -qam 'broken build'

# No database yet: one line saying what to run first.
expect_exit 2 "$REVPERF" report
expect_one_line err.txt
expect_grep 'run `revperf compare BASE TARGET` or `revperf history` first' err.txt
[ ! -e .revperf/revperf.db ] || fail "report created a database"

compare() { # BASE TARGET: exit 0 or 1 (the verdict is the machine's business)
	local got=0
	"$REVPERF" compare -q --tolerance 20% "$@" >cmp.txt 2>cmp.err || got=$?
	[ "$got" = 0 ] || [ "$got" = 1 ] || { cat cmp.txt cmp.err; fail "compare $* exited $got"; }
}
compare HEAD~3 HEAD~2
compare HEAD~2 HEAD~1
expect_exit 2 "$REVPERF" compare -q HEAD~1 HEAD
expect_grep 'build' err.txt
# A side branch from v2, measured too: its commit is not on the first-parent history of
# the branch the charts follow.
trunk=$(git symbolic-ref --short HEAD)
git checkout -q -b side HEAD~2
echo 'int side_marker;' >>prog.cc && git commit -qam 'side: a commit of another branch'
side=$(git rev-parse HEAD)
compare HEAD~1 HEAD
git checkout -q "$trunk"

# --out that is a file; a bad --min-segment.
touch afile
expect_exit 2 "$REVPERF" report --out afile
expect_one_line err.txt
expect_grep 'afile is not a directory' err.txt
expect_exit 2 "$REVPERF" report --min-segment 1
expect_one_line err.txt

expect_exit 0 "$REVPERF" report --out site
expect_grep '^wrote site/index.html: 5 commits' out.txt
site=$PWD/site
[ -s site/index.html ] && [ -s site/site.css ] || fail "no index or stylesheet"
[ "$(ls site/commits/*.html | wc -l)" = 5 ] || fail "expected 5 commit pages: $(ls site/commits)"
# The default output directory is report/ in the state directory.
expect_exit 0 "$REVPERF" report -q
[ -s .revperf/report/index.html ] || fail "no .revperf/report/index.html"
[ ! -s out.txt ] || fail "-q printed something"

# Nothing from the program is markup; it is there escaped.
for f in site/index.html site/commits/*.html; do
	expect_no_grep '<script' "$f"
done
expect_grep '&lt;script&gt;alert\(1\)&lt;/script&gt;' site/index.html
v3=$(git rev-parse HEAD~1)
page=site/commits/$v3.html
expect_grep 'writer&lt;script&gt;' "$page"
# The commit page: diff link from the template, verdicts, runs with logs, attribution.
expect_grep "href=\"https://example.org/proj/commit/$v3\">diff<" "$page"
expect_grep '<table class="verdicts">' "$page"
expect_grep '<table class="runs">' "$page"
expect_grep 'href="file:///[^"]*\.log">log</a>' "$page"
expect_grep "<iframe class=\"flamegraph\"[^>]* src=\"$v3/0/flamegraph.svg\"" "$page"
[ -s "site/commits/$v3/0/flamegraph.svg" ] || fail "the flame graph was not copied"
expect_grep '<table class="io">' "$page"
# The I/O table: the stack around the program's frames (the whole one on hover), a legend.
expect_grep '<td class="stack" title="_start;[^"]*">\.\.\.;main;' "$page"
expect_grep '<li>SC: similarity to the baseline' "$page"
expect_grep '<li>TotalImpact: Impact x calls per run, in bytes per run</li>' "$page"
# The failed build is a commit of its own with its page, naming the command that failed.
# It is the newest commit, after the last measured one: it has no run, and the charts end
# at v3 (tests/cli/report_failed_build.sh: a failed build between two is marked).
broken=$(git rev-parse HEAD)
expect_no_grep 'class="buildfail"' site/index.html
expect_grep '<a href="#failed">1 failed build</a> with no measured run is on no chart' site/index.html
expect_grep "<li><a href=\"commits/$broken.html\"><code>${broken:0:12}</code></a> broken build</li>" site/index.html
expect_grep '<span class="flag">failed</span>: <code class="build-command">g\+\+ -O1 -g -DVERSION=\$\(cat version\) -o prog prog\.cc</code>' "site/commits/$broken.html"
# The crashed runs of v3: flagged on the chart, red rows with their signal on the page.
expect_grep '&#10;3 crashed</title><path class="failmark crash"' site/index.html
[ "$(grep -c '<tr class="bad"><td>target</td><td class="num">[0-9]</td><td>crashed</td><td class="num">signal 11</td>' "$page")" = 3 ] ||
	fail "the 3 crashed runs are not on the page of v3"
# The charts follow the trunk's first parents and say so; the side branch's commit has
# its page, is listed apart, and is in no chart.
expect_grep "The charts follow the first-parent history of <strong>$trunk</strong>: 3 measured commits" site/index.html
expect_grep "<span class=\"note follows\">along $trunk, first parents</span>" site/index.html
expect_grep '<a href="#others">1 measured commit of other branches</a> is on no chart' site/index.html
expect_grep "<li><a href=\"commits/$side.html\"><code>${side:0:12}</code></a> side: a commit of another branch</li>" site/index.html
python3 - site/index.html "$side" <<'PY' || fail "the side branch's commit is drawn in a chart"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
charts = re.findall(r"<svg class=\"chart.*?</svg>", text, re.S)
assert charts, "no chart"
bad = [c[:80] for c in charts if sys.argv[2] in c or sys.argv[2][:7] in c]
sys.exit(1 if bad else 0)
PY
expect_grep "not on the first-parent history of $trunk: on no chart" "site/commits/$side.html"
expect_grep "commit 3 of 3 along $trunk \(first parents\)" "site/commits/$(git rev-parse HEAD~1).html"
# Each chart twice, for a wide and a narrow window; short shas under the x axis.
[ "$(grep -c '<svg class="chart wide"' site/index.html)" = "$(grep -c '<svg class="chart narrow"' site/index.html)" ] ||
	fail "not every chart has its narrow drawing"
for c in $(git rev-list --first-parent HEAD~1); do
	expect_grep "<text class=\"xlabel\" [^>]*>${c:0:7}</text>" site/index.html
done
# Runs that printed nothing (spin) have no log link to 0 bytes; those that printed (tail-crash)
# link their part of the log with its size.
expect_grep '<td><span class="note">no output</span></td>' "site/commits/$(git rev-parse HEAD~1).html"
expect_no_grep ' 0 (B|bytes) from byte' "site/commits/$(git rev-parse HEAD~1).html"
expect_grep 'log</a> <span class="note">[0-9]+ B from byte [0-9]+</span>' "site/commits/$(git rev-parse HEAD~1).html"
# Bytes written by the traced runs: 4096 per run at every measured commit.
expect_grep 'bytes written \(I/O profiles\)' site/index.html
expect_grep 'bytes written 4 KiB \(mean of [0-9]+ traced runs\)' site/index.html

# Every local link of every page leads to a file.
python3 - "$site" <<'PY' || fail "broken links"
import os, re, sys
root = sys.argv[1]
bad = []
for dirpath, _, files in os.walk(root):
    for name in files:
        if not name.endswith(".html"):
            continue
        page = os.path.join(dirpath, name)
        text = open(page, encoding="utf-8").read()
        for link in re.findall(r'(?:href|src)="([^"#]+)', text):
            if re.match(r"^[a-z]+:", link):
                continue
            if not os.path.exists(os.path.normpath(os.path.join(dirpath, link))):
                bad.append(f"{page}: {link}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# The site in a browser. Chromium and playwright-core come with `make test`
# (scripts/install-deps.sh); missing, the test fails: it must not pass unseen.
BROWSER_DIR=$SRCDIR/tests/browser
[ -x /usr/bin/chromium ] || fail "no /usr/bin/chromium: run scripts/install-deps.sh"
command -v node >/dev/null || fail "no node: run scripts/install-deps.sh"
[ -d "$BROWSER_DIR/node_modules/playwright-core" ] ||
	fail "no playwright-core in $BROWSER_DIR/node_modules: run scripts/install-deps.sh"
shots=${BUILDDIR:-$TEST_TMP}
node "$BROWSER_DIR/report.mjs" "$site" "$shots" '<script>alert(1)</script>' ||
	fail "the browser test failed"
for f in report-index report-commit report-index-400 report-index-1400 report-commit-400 report-commit-1400; do
	[ -s "$shots/$f.png" ] || fail "no screenshot $shots/$f.png"
done
echo ok
