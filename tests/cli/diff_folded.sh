# revperf diff on two folded files: the text report, JSON, the SVG flame graph (a well-formed
# document with the hostile function name escaped), -o, identical profiles, bad input and
# usage errors.
. "$SRCDIR/tests/cli/lib/common.bash"

cat >old.folded <<'EOF'
main;compute;scale 100
main;compute;helper 100
main;parse;read_input 100
main;report;format_num 50
main;report;fmt_float 20
main 10
EOF
cat >new.folded <<'EOF'
main;compute;scale 300
main;compute;helper 50
main;parse;read_input 100
main;report;format_num 50
main;<script>alert(1)</script> 5
main;compute;std::vector<int>::push_back 40
main 10
EOF

# Text: both profiles, the differences in one tree only (stage 3 without a binary diff),
# the weight differences, slowest first; exit 1 because they differ.
expect_exit 1 "$REVPERF" diff old.folded new.folded
expect_grep '^old: old\.folded \(9 contexts, total weight 380\)$' out.txt
expect_grep '^new: new\.folded \(10 contexts, total weight 555\)$' out.txt
expect_grep '^overlap [0-9.]+% of the common trees \(8 matched contexts\)' out.txt
expect_grep '^stage 3, side effect or non-determinism:$' out.txt
expect_grep '^  \+   7\.21%  main;compute;std::vector<int>::push_back$' out.txt
expect_grep '^  -   5\.26%  main;report;fmt_float$' out.txt
expect_grep '^  \+   0\.90%  main;<script>alert\(1\)</script>$' out.txt
expect_no_grep 'stage [12]' out.txt
expect_grep '^weight differences' out.txt
# scale: 100/360 of the common old weight, 300/510 of the new.
expect_grep '^   27\.78% ->  58\.82%   \+31\.05  main;compute;scale$' out.txt
[ ! -s err.txt ] || fail "unexpected stderr: $(cat err.txt)"

# Identical profiles: exit 0.
expect_exit 0 "$REVPERF" diff old.folded old.folded
expect_grep '^overlap 100\.00% of the common trees \(9 matched contexts\)$' out.txt
expect_grep '^no context in one tree only$' out.txt

# JSON: everything, full paths as arrays.
expect_exit 1 "$REVPERF" diff --format json old.folded new.folded
[ "$(json_get out.txt "d['schema'], d['exit_code'], d['old']['label'], d['new']['contexts']")" = \
	"revperf-diff/2 1 old.folded 10" ] || fail "JSON header: $(cat out.txt)"
[ "$(json_get out.txt "len(d['topological']), sorted(e['in'] + ':' + '/'.join(e['path']) for e in d['topological'])")" = \
	"3 ['new:main/<script>alert(1)</script>', 'new:main/compute/std::vector<int>::push_back', 'old:main/report/fmt_float']" ] ||
	fail "JSON topological: $(cat out.txt)"
[ "$(json_get out.txt "d['weight_differences'][0]['path'], round(d['weight_differences'][0]['new']['pweight'], 2), d['weight_differences'][0]['old']['calls']")" = \
	"['main', 'compute', 'scale'] 58.82 None" ] || fail "JSON weights: $(cat out.txt)"
[ "$(json_get out.txt "d['topological'][0]['stage'], d['topological'][0]['stage_name']")" = "3 side effect" ] ||
	fail "JSON stage: $(cat out.txt)"

# SVG to a file: nothing on stdout, a well-formed document, names escaped.
expect_exit 1 "$REVPERF" diff --format svg -o f.svg old.folded new.folded
[ ! -s out.txt ] || fail "stdout should be empty with -o: $(cat out.txt)"
python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' f.svg ||
	fail "f.svg is not well-formed XML"
expect_grep '^<svg xmlns="http://www.w3.org/2000/svg"' f.svg
expect_grep '<title>&lt;script&gt;alert\(1\)&lt;/script&gt;' f.svg
expect_grep '<title>std::vector&lt;int&gt;::push_back' f.svg
expect_no_grep '<script>alert' f.svg
expect_grep 'fill="url\(#only-new\)"' f.svg
expect_grep 'main;report;fmt_float' f.svg
# The same on stdout, the format given as --format=svg.
expect_exit 1 "$REVPERF" diff --format=svg old.folded new.folded
cmp -s out.txt f.svg || fail "svg on stdout differs from -o"

# Bad input: one line naming file:line, exit 2, and no output file.
printf 'main;compute 12\nmain;parse\n' >bad.folded
expect_exit 2 "$REVPERF" diff --format svg -o bad.svg old.folded bad.folded
expect_grep '^revperf: error: bad\.folded:2: ' err.txt
expect_one_line err.txt
[ ! -e bad.svg ] || fail "bad.svg written despite bad input"
expect_exit 2 "$REVPERF" diff old.folded missing.folded
expect_grep 'missing\.folded' err.txt
expect_one_line err.txt

# Usage errors.
expect_exit 2 "$REVPERF" diff --format bogus old.folded new.folded
expect_grep "unknown format 'bogus': use text, json, svg or markdown" err.txt
expect_one_line err.txt
expect_exit 2 "$REVPERF" diff -o "" old.folded new.folded
expect_grep '--out needs a file name' err.txt
expect_exit 2 "$REVPERF" diff -o nodir/f.svg --format svg old.folded new.folded
expect_grep "^revperf: error: cannot create 'nodir/f\.svg': No such file or directory; check that its directory exists and is writable$" err.txt
expect_exit 0 "$REVPERF" diff -h
expect_grep '-f, --format FMT' out.txt
expect_grep '-o, --out FILE' out.txt
echo ok
