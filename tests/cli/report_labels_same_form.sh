# The report names the baseline and the target of a comparison the same way, short sha and
# subject (before: the baseline as the 40-character sha history labels it with, the target
# as "short sha + subject"); its ratios have the decimals of the text and Markdown reports
# (before: 4 always, 3.0000 where they say 3.000); and Markdown escapes the kernel version
# only where Markdown needs it (before: "kernel 6\.18.44").
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo
expect_exit 0 "$REVPERF" history -q base..slow
short() { git rev-parse --short=12 "$1"; }
base=$(git rev-parse base) slow=$(git rev-parse slow)
expect_exit 0 "$REVPERF" report -o site -q
index=site/index.html page=site/commits/$slow.html
[ -f "$page" ] || fail "no page of $slow"
# One line per paragraph, tags and all, as written.
want_index="<p>Comparison #1: baseline <a href=\"commits/$base.html\"><code>$(short base)</code></a> write 1000 bytes against target <a href=\"commits/$slow.html\"><code>$(short slow)</code></a> write 3000 bytes.</p>"
grep -qF "$want_index" "$index" || { grep -o '<p>Comparison #[^\n]*</p>' "$index"; fail "index: expected $want_index"; }
want_page="<p>Baseline <a href=\"$base.html\"><code>$(short base)</code></a> write 1000 bytes against target <a href=\"$slow.html\"><code>$(short slow)</code></a> write 3000 bytes, started "
grep -qF "$want_page" "$page" || { grep -o '<p>Baseline.*</p>' "$page"; fail "commit page: expected $want_page"; }
expect_no_grep "$base \\(|>$base<|$base against" "$index"

# The ratio as the text report prints it.
expect_exit 0 "$REVPERF" show 1
ratio=$(awk '$1 == "wchar" { print $4 }' out.txt)
[ -n "$ratio" ] || { cat out.txt; fail "no wchar ratio in the text"; }
grep -qF "<td class=\"num\">$ratio</td>" "$page" ||
	{ grep -o '<td class="num">[0-9.]*</td>' "$page" | head -3; fail "the page's ratio is not the text's $ratio"; }

# Markdown: the kernel as it is when it has nothing Markdown would read.
expect_exit 0 "$REVPERF" show 1 -f markdown
kernel=$(uname -r)
case $kernel in
*[!0-9A-Za-z.+-]*) echo "kernel '$kernel' has other characters: its escaping is the unit test's" ;;
*) expect_grep "kernel $(printf '%s' "$kernel" | sed 's/[.+]/\\&/g')\\. Alpha" out.txt ;;
esac
echo ok
