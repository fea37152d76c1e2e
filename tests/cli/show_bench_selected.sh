# revperf show of a comparison made with --bench shows the benchmarks that comparison
# measured, and nothing else: before, it added every other benchmark of revperf.ini, judged
# from the runs of earlier comparisons, which changed the Benjamini-Hochberg q-values of
# the one it measured and added lines to its summary (zlib: compare 60a5ecc~1 60a5ecc
# --bench decompress printed q 0.0170 for decompress wall, show printed 0.0340 and
# "compress" beside it). wchar decides (base writes 1000 bytes, slow 3000).
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo
cat >>revperf.ini <<'INI'
[benchmark "also"]
command = sh ./work.sh also
runs = 3..4
metrics = wchar, wall
primary = wchar
INI

# Both benchmarks measured once, then "write" alone in a comparison of its own (its
# primary list changed, so it measures anew).
expect_exit 1 "$REVPERF" compare base slow -q --seed 1
expect_exit 1 "$REVPERF" compare base slow -q --seed 2 --bench write --primary wchar,wall \
	--metrics wchar,wall -f json
cp out.txt compared.json
id=$(json_get compared.json "d['comparison_id']")
[ "$(json_get compared.json "[b['name'] for b in d['benchmarks']]")" = "['write']" ] ||
	fail "compare --bench: $(json_get compared.json "[b['name'] for b in d['benchmarks']]")"

expect_exit 0 "$REVPERF" show "$id" -f json
cp out.txt shown.json
names=$(json_get shown.json "[b['name'] for b in d['benchmarks']]")
[ "$names" = "['write']" ] || fail "show $id shows $names, compare measured ['write']"
q() { json_get "$1" "[(m['name'], m['q_bh']) for m in d['benchmarks'][0]['metrics']]"; }
[ "$(q shown.json)" = "$(q compared.json)" ] ||
	fail "q-values: compare $(q compared.json), show $(q shown.json)"
expect_exit 0 "$REVPERF" show "$id"
expect_no_grep '^also' out.txt
expect_no_grep '^  also ' out.txt

# The first comparison, of both, still shows both.
expect_exit 0 "$REVPERF" show 1 -f json
[ "$(json_get out.txt "sorted(b['name'] for b in d['benchmarks'])")" = "['also', 'write']" ] ||
	fail "show 1: $(json_get out.txt "[b['name'] for b in d['benchmarks']]")"
echo ok
