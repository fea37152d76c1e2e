# Shared by the tests of compare with a profile (compare_profile_cct.sh,
# compare_profile_sample.sh): a project of two versions of one workload, where version 2
# makes slow_me slower, and the checks that the attribution under the verdict shows it in
# every format. Source after lib/common.bash.

# make_versions_repo WORKLOAD: a git project in proj/ (and cd into it) whose prog.c is
# tests/workloads/WORKLOAD, revperf.ini read from stdin; tag v1 at `#define VERSION 1`,
# tag v2 at `#define VERSION 2`.
make_versions_repo() {
	mkdir proj && cd proj || fail "cannot make proj"
	git init -q . && git config user.email t@example.com && git config user.name test
	cp "$SRCDIR/tests/workloads/$1" prog.c || fail "no workload $1"
	cat >revperf.ini
	git add . && git commit -qm v1 && git tag v1
	sed -i 's/^#define VERSION 1$/#define VERSION 2/' prog.c
	grep -q '^#define VERSION 2$' prog.c || fail "could not make version 2"
	git commit -qam v2 && git tag v2
}

# compare_attribution_json: compare v1 v2 in JSON (a regression: exit 1) into
# compare.json, its attribution without error and slow_me its first weight difference;
# sets $a, the Python expression of the attribution for json_get.
compare_attribution_json() {
	expect_exit 1 "$REVPERF" compare -q --tolerance 20% -f json v1 v2
	cp out.txt compare.json
	a='d["benchmarks"][0]["attribution"]'
	[ "$(json_get compare.json "$a['error']")" = None ] ||
		fail "attribution error: $(json_get compare.json "$a['error']")"
	[ "$(json_get compare.json "$a['weight_differences'][0]['path'][-1]")" = slow_me ] ||
		fail "slow_me is not the first weight difference: $(json_get compare.json "[w['path'][-1] for w in $a['weight_differences']]")"
}

# expect_absolute_json CLOCK CALLS_KNOWN: the absolute change of compare.json
# (docs/attribution.md) in ns per run of CLOCK, three runs a side with their spread,
# calls_known CALLS_KNOWN (True or False), slow_me the first function with most of the
# change; stdin: more Python assertions on `a` (the absolute change) and `f` (its first
# function).
expect_absolute_json() {
	{
		cat <<PY
import json
a = json.load(open("compare.json"))["benchmarks"][0]["attribution"]["absolute"]
assert a["unit"] == "ns" and a["clock"] == "$1", a
assert a["runs"] == [3, 3] and a["spread"] is True and a["calls_known"] is $2, a
f = a["functions"][0]
assert f["function"] == "slow_me", a["functions"]
assert f["change"] > 0 and 0.5 < f["share"] < 1.5, f
PY
		cat
	} | python3 - || fail "absolute change: $(json_get compare.json "$a['absolute']")"
}

# expect_absolute_text WHAT CALLS: in the text report (out.txt), the absolute change of
# WHAT (a regex) first, in ms per run with their sd, slow_me the first function followed
# by CALLS (a regex: its calls per run, or nothing); then PARCS.
expect_absolute_text() {
	expect_grep "^    absolute change, $1:\$" out.txt
	expect_grep '^      3 \+ 3 runs; per run [0-9.]+ ± [0-9.]+ m?s -> [0-9.]+ ± [0-9.]+ m?s, change \+[0-9.]+ ± [0-9.]+ m?s' out.txt
	sed -n '/function (self)$/{n;p;q}' out.txt >first.txt
	grep -Eq "^      [0-9.]+ ± [0-9.]+ [mu]?s +[0-9.]+ ± [0-9.]+ m?s +\\+[0-9.]+ ± [0-9.]+ m?s +[0-9.]+\\.[0-9]% +(finding|noise) +slow_me$2\$" first.txt ||
		fail "slow_me is not the first function of the absolute change: $(cat out.txt)"
	expect_grep '^    PARCS \(shares of each tree.s total, METHODS\.md section 5\):$' out.txt
}

# expect_absolute_markdown WHAT COLUMNS: compare v1 v2 in Markdown, the absolute change of
# WHAT (a regex) as tables whose function table ends in COLUMNS (a regex), slow_me its
# first row.
expect_absolute_markdown() {
	expect_exit 1 "$REVPERF" compare -q --tolerance 20% -f markdown v1 v2
	expect_grep "^Absolute change, $1: 3 \\+ 3 runs; per run " out.txt
	expect_grep "^\\| function \\(self\\) \\| baseline \\| target \\| change \\| share \\| $2\$" out.txt
	grep -A2 '^| function (self)' out.txt | sed -n 3p | grep -Eq '^\| slow\\_me \| [0-9.]+ ± [0-9.]+ m?s \| ' ||
		fail "markdown: slow_me is not the first row: $(cat out.txt)"
}

# expect_site_absolute: the site's page of v2 shows the absolute change the comparison
# left beside its flame graph, read back and escaped, slow_me the first function.
expect_site_absolute() {
	expect_exit 0 "$REVPERF" report --out site -q
	page="site/commits/$(git rev-parse v2).html"
	expect_grep '^<h4>Absolute change \(profiled runs\)</h4>$' "$page"
	grep -A1 '<table class="attribution">.*function (self)' "$page" | sed -n 2p |
		grep -Eq '^<tr class="(finding|noise)"><td class="num">[0-9.]+ ± [0-9.]+ [mu]?s</td>.*<td class="stack">slow_me</td></tr>$' ||
		fail "site: slow_me is not the first function: $(grep -A2 'class="attribution"' "$page")"
}

# expect_diff_bench KEY VALUE: the stored profiles of benchmark `versions`, differenced
# again by revperf diff --bench (merged runs per side, the JSON in out.txt): 3 runs a side,
# slow_me the first function of the absolute change, whose KEY is VALUE.
expect_diff_bench() {
	expect_exit 1 "$REVPERF" diff -f json --bench versions v1 v2
	[ "$(json_get out.txt "d['old']['runs'], d['new']['runs']")" = "3 3" ] ||
		fail "diff --bench: expected 3 runs per side: $(json_get out.txt "d['old'], d['new']")"
	[ "$(json_get out.txt "d['absolute']['runs'], d['absolute']['functions'][0]['function'], d['absolute']['$1']")" = \
		"[3, 3] slow_me $2" ] || fail "diff --bench: absolute change: $(json_get out.txt "d['absolute']")"
}
