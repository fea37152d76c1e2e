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
command = sh -c '[ "$(cat version)" != 3 ] || kill -SEGV $$'
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

# --out that is a file; a bad --min-segment.
touch afile
expect_exit 2 "$REVPERF" report --out afile
expect_one_line err.txt
expect_grep 'afile is not a directory' err.txt
expect_exit 2 "$REVPERF" report --min-segment 1
expect_one_line err.txt

expect_exit 0 "$REVPERF" report --out site
expect_grep '^wrote site/index.html: 4 commits' out.txt
site=$PWD/site
[ -s site/index.html ] && [ -s site/site.css ] || fail "no index or stylesheet"
[ "$(ls site/commits/*.html | wc -l)" = 4 ] || fail "expected 4 commit pages: $(ls site/commits)"
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
# The failed build is a commit of its own, marked on the charts and on its page.
broken=$(git rev-parse HEAD)
expect_grep 'build failed</title><rect class="buildfail"' site/index.html
expect_grep '<span class="flag">failed</span>' "site/commits/$broken.html"
# The crashed runs of v3: flagged on the chart, red rows with their signal on the page.
expect_grep '&#10;3 crashed</title><path class="failmark crash"' site/index.html
[ "$(grep -c '<tr class="bad"><td>target</td><td class="num">[0-9]</td><td>crashed</td><td class="num">signal 11</td>' "$page")" = 3 ] ||
	fail "the 3 crashed runs are not on the page of v3"
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
[ -s "$shots/report-index.png" ] && [ -s "$shots/report-commit.png" ] || fail "no screenshots"
echo ok
