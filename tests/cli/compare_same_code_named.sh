# The binary diff under a verdict names the functions that differ, not only how many: in
# text the five largest changes in instructions (class, name, instructions old -> new) and
# how many more; in JSON and Markdown every one. Judged on wchar (exact), which a busy
# machine cannot change.
. "$SRCDIR/tests/cli/lib/common.bash"

git init -q proj && cd proj && git config user.email t@example.com && git config user.name test
# f1..f6 are kept alive by main; keep_me never changes.
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) unsigned long keep_me(unsigned long x) { return x * 7 + 3; }
__attribute__((noinline)) unsigned long f1(unsigned long x) { return x + 1; }
__attribute__((noinline)) unsigned long f2(unsigned long x) { return x + 2; }
__attribute__((noinline)) unsigned long f3(unsigned long x) { return x + 3; }
__attribute__((noinline)) unsigned long f4(unsigned long x) { return x + 4; }
__attribute__((noinline)) unsigned long gone(unsigned long x) { return x * 11 - 4; }
__attribute__((noinline)) double ratio(double x) { return x * 1.5; }
int main(int argc, char **argv)
{
	unsigned long x = argc > 1 ? strtoul(argv[1], 0, 10) : 1;
	/* one digit: both builds write as many bytes */
	printf("%d\n", (int)((keep_me(x) + f1(x) + f2(x) + f3(x) + f4(x) + gone(x) + (unsigned long)ratio((double)x)) & 1));
	return 0;
}
C
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -g -o prog prog.c
[benchmark "prog"]
command = ./prog 5 > /dev/null
metrics = wchar
primary = wchar
runs = 2..2
INI
git add -A && git commit -qm base && git tag base
# f1..f4 modified (f4 the most), gone deleted, fresh added (large), ratio renamed proportion;
# main, which calls them, modified too: 8 functions.
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) unsigned long keep_me(unsigned long x) { return x * 7 + 3; }
__attribute__((noinline)) unsigned long f1(unsigned long x) { return (x + 1) ^ (x >> 1); }
__attribute__((noinline)) unsigned long f2(unsigned long x) { return (x + 2) ^ (x >> 2); }
__attribute__((noinline)) unsigned long f3(unsigned long x) { return (x + 3) ^ (x >> 3); }
__attribute__((noinline)) unsigned long f4(unsigned long x)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < x; i++)
		s += (i * i) ^ (s >> 3) ^ (x << 2);
	return s / (x + 1) + x % 7;
}
__attribute__((noinline)) unsigned long fresh(unsigned long x)
{
	unsigned long s = x;
	for (unsigned long i = 0; i < x; i++)
		s = s * 31 + (i ^ (s >> 5)) + x / (i + 1) + (s % 13) * (i & 7);
	return s ^ (s >> 17) ^ (s << 3) ^ (x * 977);
}
__attribute__((noinline)) double proportion(double x) { return x * 1.5; }
int main(int argc, char **argv)
{
	unsigned long x = argc > 1 ? strtoul(argv[1], 0, 10) : 1;
	printf("%d\n", (int)((keep_me(x) + f1(x) + f2(x) + f3(x) + f4(x) + fresh(x) + (unsigned long)proportion((double)x)) & 1));
	return 0;
}
C
git commit -qam "changes"

expect_exit 0 "$REVPERF" compare base HEAD -q
expect_grep '^  \./prog: 8 of [0-9]+ functions differ between the builds \(revperf bindiff\), the largest changes in instructions first:$' out.txt
# the five largest: fresh (added) and f4 first, then the others; the last three counted
sed -n '/functions differ/,/and 3 more/p' out.txt >named.txt
[ "$(wc -l <named.txt)" = 7 ] || fail "not five functions and a count: $(cat out.txt)"
expect_grep '^    added     fresh +- -> [0-9]+ insns \(\+[0-9]+\)$' named.txt
expect_grep '^    modified  f4 +[0-9]+ -> [0-9]+ insns \(\+[0-9]+\)$' named.txt
sed -n 2,3p named.txt | grep -q fresh && sed -n 2,3p named.txt | grep -q 'f4 ' ||
	fail "fresh and f4 are not the largest: $(cat named.txt)"
expect_grep '^    \.\.\. and 3 more \(-f json or -f markdown lists them all\)$' named.txt
expect_no_grep 'keep_me|main ' named.txt

expect_exit 0 "$REVPERF" compare base HEAD -q -f json
python3 - out.txt <<'PY' || fail "json: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "revperf-compare/6", d["schema"]
sc = d["benchmarks"][0]["same_code"]
fns = {f["name"]: f for f in sc["changed_functions"]}
assert sc["changed"] == 8 == len(sc["changed_functions"]), sc
assert sorted(fns) == ["f1", "f2", "f3", "f4", "fresh", "gone", "main", "proportion"], sorted(fns)
assert [fns[n]["class"] for n in ("f1", "fresh", "gone", "proportion")] == \
    ["modified", "added", "deleted", "renamed"], fns
assert fns["proportion"]["old_name"] == "ratio" and fns["f1"]["old_name"] is None, fns
assert fns["fresh"]["insns"]["baseline"] is None and fns["fresh"]["insns"]["target"] > 10, fns["fresh"]
assert fns["gone"]["insns"]["target"] is None and fns["gone"]["insns"]["baseline"] > 0, fns["gone"]
m = fns["f4"]["insns"]
assert m["target"] > m["baseline"] > 0, m
assert all(f["only"] is None for f in fns.values()), fns
PY
python3 - "$SRCDIR/docs/schema" out.txt <<'PY' || fail "the list does not match docs/schema/compare.schema.json"
import json, os, sys, warnings
warnings.simplefilter("ignore", DeprecationWarning)
import jsonschema
store = {}
for f in os.listdir(sys.argv[1]):
    s = json.load(open(os.path.join(sys.argv[1], f)))
    store[s["$id"]] = s
s = store["https://revperf.dev/schema/compare.schema.json"]
v = jsonschema.Draft202012Validator(s, resolver=jsonschema.RefResolver(s["$id"], s, store=store))
d = json.load(open(sys.argv[2]))
errs = list(v.iter_errors(d))
assert not errs, [e.message[:200] for e in errs[:3]]
d["benchmarks"][0]["same_code"]["changed_functions"][0]["class"] = "unchanged"
assert list(v.iter_errors(d)), "an unknown class is accepted"
PY

expect_exit 0 "$REVPERF" compare base HEAD -q -f markdown
expect_grep '^<details><summary>Binary diff: prog \(\./prog: 8 of [0-9]+ functions differ between the builds\)</summary>$' out.txt
[ "$(grep -cE '^\| (modified|added|deleted|renamed) \| ' out.txt)" = 8 ] ||
	fail "markdown does not list all 8: $(cat out.txt)"
expect_grep '^\| renamed \| ratio -&gt; proportion \| [0-9]+ -> [0-9]+ insns \(\+0\) \|  \|$' out.txt
expect_grep '^\| deleted \| gone \| [0-9]+ -> - insns \(-[0-9]+\) \|  \|$' out.txt

# shown again from the store: the same list
expect_exit 0 "$REVPERF" show base HEAD
expect_grep '^    \.\.\. and 3 more' out.txt
echo ok
