# Untrusted text stays inert (issue 16, item 9): commit subjects, benchmark output and
# configuration values cannot make links, HTML or images in the Markdown of `history` and
# `ci`, cannot become a javascript: link in the report site, and cannot drive the terminal
# (escape sequences are shown as \x1b, docs/report.md "Untrusted text").
. "$SRCDIR/tests/cli/lib/common.bash"

ESC=$(printf '\033')
# no_esc FILE...: no ESC, BEL or C1 CSI byte reached the file.
no_esc() {
	for f in "$@"; do
		if LC_ALL=C grep -q "[$ESC$(printf '\007\233')]" "$f"; then
			echo "--- $f"; cat -v "$f"; fail "a control character reached $f"
		fi
	done
}
expect_fixed() { # STRING FILE
	grep -qF -- "$1" "$2" || { echo "--- $2"; cat "$2"; fail "no '$1' in $2"; }
}

mkdir repo && cd repo
git init -q --initial-branch=main . && git config user.email t@example.com &&
	git config user.name test
cat >revperf.ini <<'INI'
[build]
command = true
[benchmark "spin"]
command = sh work.sh
runs = 3..3
warmup = 0
INI
printf 'true\n' >work.sh
git add . && git commit -qm base
echo 1 >f && git add f
EVIL='<script>alert(1)</script> [x](javascript:alert(1)) | a ![img](http://example.org/i.png)'
git commit -qm "$EVIL"
echo 2 >f && git commit -qam "$(printf 'title \033]0;pwned\007\033[2J change')"

# (b) history's Markdown: the subject is text, not HTML, a link, an image or a cell.
expect_exit 0 "$REVPERF" history -q -f markdown HEAD~2..HEAD
cp out.txt history.md
python3 - history.md <<'PY' || fail "history markdown: $(cat history.md)"
import sys
md = open(sys.argv[1]).read()
row = [l for l in md.splitlines() if "alert" in l]
assert len(row) == 1, row
row = row[0]
assert "<script>" not in row and "&lt;script&gt;" in row, row
assert "](javascript" not in row.replace("\\](", ""), row   # only an escaped bracket
assert "\\[x\\]" in row and "\\!\\[img\\]" in row, row
assert row.count(" | ") == 4 and "&#124; a" in row, row     # five cells, the pipe encoded
PY
if command -v cmark-gfm >/dev/null; then # the rendering, where a GFM renderer is installed
	cmark-gfm -e table -e autolink history.md >history.html
	expect_no_grep '<script|<a href="javascript|<img' history.html
	expect_grep '&lt;script&gt;alert' history.html
fi
no_esc history.md err.txt
expect_fixed 'title \\x1b\]0;pwned\\x07\\x1b\[2J change' history.md

# (c) the same history as text on a terminal: subjects shown, escapes visible.
expect_exit 0 "$REVPERF" history HEAD~2..HEAD
no_esc out.txt err.txt
expect_fixed 'title \x1b]0;pwned\x07\x1b[2J change' out.txt

# (a) a javascript: commit-url is refused where it is configured, never a link.
printf '[report]\ncommit-url = javascript:alert(document.cookie)//{sha}\n' >>revperf.ini
expect_exit 2 "$REVPERF" report -q
expect_grep "revperf.ini:8: invalid value 'javascript:alert\(document.cookie\)//\{sha\}' for commit-url: expected an http:// or https:// URL" err.txt
expect_one_line err.txt
[ ! -e .revperf/report/index.html ] || fail "a site was written with a javascript: link"
git checkout -q revperf.ini
for url in 'javascript:alert(1)' 'data:text/html,<b>x</b>' 'file:///etc/passwd' ' https://x/{sha}' \
	'https://' 'http://host/{sha} x'; do
	expect_exit 2 "$REVPERF" report -q --commit-url "$url"
	expect_grep "^revperf report: --commit-url '.*': expected an http:// or https:// URL" err.txt
	expect_one_line err.txt
done
expect_exit 0 "$REVPERF" report -q --commit-url 'HTTPS://example.org/c/{sha}'
expect_grep 'class="diff" href="HTTPS://example.org/c/[0-9a-f]{40}"' \
	.revperf/report/commits/$(git rev-parse HEAD).html
expect_no_grep 'href="javascript' .revperf/report/commits/$(git rev-parse HEAD~1).html

# (c) a failing build prints the tail of its log: escapes from the build are visible.
cat >revperf.ini <<'INI'
[build]
command = printf '\033]0;pwned\007\033[2J build broke\n'; exit 1
[benchmark "spin"]
command = true
INI
git commit -qam "a broken build"
expect_exit 2 "$REVPERF" run
no_esc out.txt err.txt
expect_fixed '    | \x1b]0;pwned\x07\x1b[2J build broke' err.txt
expect_grep "building [0-9a-f]{12} \(HEAD\): printf '.033\]0;pwned" err.txt

# (c) a benchmark that prints escapes and fails, and one whose reported metric matched
# escapes and markup: the text report, the ci summary and every message stay inert.
cat >revperf.ini <<'INI'
[build]
command = true
[benchmark "fails"]
command = printf '\033]0;pwned\007\033[2J'; printf '\033]0;pwned\007\033[2J' >&2; exit 3
runs = 3..3
warmup = 0
[benchmark "score"]
command = sh score.sh
runs = 3..3
warmup = 0
metric.score = /score: (.*)/
INI
printf '%s\n' "printf 'score: <img src=x onerror=alert(1)> \\033[2J [y](javascript:x)\\n'" >score.sh
git add . && git commit -qm "escapes from benchmarks"
expect_exit 2 "$REVPERF" ci --base main~1 --summary summary.md --junit junit.xml
no_esc out.txt err.txt summary.md
expect_fixed "metric score: '<img src=x onerror=alert(1)> \x1b[2J [y](javascript:x)' is not a number" out.txt
expect_grep 'fails: 0 \+ 0 runs' out.txt
expect_no_grep '<img|[^\\]\]\(javascript' summary.md
expect_grep '&lt;img src=x onerror=alert\(1\)&gt;' summary.md
if command -v cmark-gfm >/dev/null; then
	cmark-gfm -e table -e autolink summary.md >summary.html
	expect_no_grep '<img|<a href="javascript' summary.html
fi

# (c) compare --cmd-a/--cmd-b: the same failing command on a terminal.
expect_exit 2 "$REVPERF" compare -q --runs 3..3 --cmd-a \
	"printf '\\033]0;pwned\\007\\033[2J'; exit 3" --cmd-b true
no_esc out.txt err.txt
echo ok
