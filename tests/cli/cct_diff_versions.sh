# revperf profile --cct and revperf diff on two versions of a real program
# (tests/workloads/cct_versions.c), built at -O0 and -O2 with -finstrument-functions:
# the function made slower comes first in the weight diff, a new callee is stage 1 under its
# caller, a modified function calling something new is stage 2 and first in its attribution
# list, and the same binary twice shows no topological difference with >= 99% overlap of
# calls. Also the same through callgrind output, and folded stacks exported by profile.
#
# The weights are times of one run each, and the clock runs on while the program waits for
# a core: a wait lands on whichever function was running. With 1000 rounds (v1: 15 ms of
# CPU) and both cores kept busy, 3 of 16 diffs put `steady` first and 1 more left slow_me
# out; v1's slow_me share, 36% by its work, came out 14-60%. 10000 rounds spread the waits
# over ten times as many slices: slow_me first in 16 of 16 (its share in v1 15-42%), ahead
# of the next difference by 11.6-52 points.
. "$SRCDIR/tests/cli/lib/common.bash"
W="$SRCDIR/tests/workloads/cct_versions.c"
N=10000 # rounds of the timed runs

# check_diff JSON: the three facts every diff of version 1 -> 2 must show.
check_diff() {
	local j=$1
	[ "$(json_get "$j" "d['weight_differences'][0]['path'][-1]")" = slow_me ] ||
		fail "$j: slow_me is not the first weight difference"
	[ "$(json_get "$j" "[t['caller'] for t in d['topological'] if t['stage'] == 1 and t['in'] == 'new' and t['path'][-1] == 'helper_new']")" = "[['main', 'caller_x']]" ] ||
		fail "$j: helper_new is not a stage 1 difference under main;caller_x"
	[ "$(json_get "$j" "[t['attribution'][0] for t in d['topological'] if t['stage'] == 2 and t['path'][-2:] == ['mod_fn', 'existing_fn']]")" = "['mod_fn']" ] ||
		fail "$j: mod_fn;existing_fn is not a stage 2 difference attributed to mod_fn"
}

for opt in -O0 -O2; do
	for v in 1 2; do
		cc $opt -g -finstrument-functions -DVERSION=$v "$W" -o "v$v$opt" ||
			fail "cannot build version $v at $opt"
	done
	expect_exit 0 "$REVPERF" profile --cct -d "p1$opt" -- "./v1$opt" $N
	expect_grep '^total .* in 6 contexts \(one thread\)$' out.txt
	expect_grep " $N  main;slow_me\$" out.txt
	# Calls only (REVPERF_CCT_CLOCK=none): exact counts, the report weighs by calls.
	REVPERF_CCT_CLOCK=none expect_exit 0 "$REVPERF" profile --cct -- "./v1$opt" 1000
	expect_grep '^total 5001 calls in 6 contexts \(one thread\)$' out.txt
	expect_exit 0 "$REVPERF" profile --cct -d "p1b$opt" -- "./v1$opt" $N
	expect_exit 0 "$REVPERF" profile --cct -d "p2$opt" -f json -o "top2$opt.json" -- "./v2$opt" $N
	[ "$(json_get "top2$opt.json" "d['contexts']")" = 8 ] || fail "version 2 should have 8 contexts"

	# The binary diff of the programs the profiles name drives stages 1 and 2.
	expect_exit 1 "$REVPERF" diff -f json "p1$opt" "p2$opt"
	cp out.txt "diff$opt.json"
	check_diff "diff$opt.json"
	# Without it, every topological difference is stage 3.
	expect_exit 1 "$REVPERF" diff --no-bindiff -f json "p1$opt" "p2$opt"
	[ "$(json_get out.txt "sorted({t['stage'] for t in d['topological']})")" = "[3]" ] ||
		fail "--no-bindiff: expected only stage 3"

	# The same binary twice: no topological difference, calls overlap >= 99%.
	expect_exit 0 "$REVPERF" diff --weight calls -f json "p1$opt" "p1b$opt"
	[ "$(json_get out.txt "len(d['topological'])")" = 0 ] || fail "same binary: topological differences"
	json_get out.txt "d['overlap'] >= 99" | grep -qx True || fail "same binary: calls overlap < 99%"

	# Two runs per side (OLD... -- NEW...): the absolute change. Weighed by calls, the
	# counts are exact: existing_fn (called from mod_fn too) and helper_new gain $N calls
	# per run each, findings with nothing to doubt, half of the change each.
	expect_exit 0 "$REVPERF" profile --cct -d "p2b$opt" -- "./v2$opt" $N
	expect_exit 1 "$REVPERF" diff --weight calls -f json "p1$opt" "p1b$opt" -- "p2$opt" "p2b$opt"
	[ "$(json_get out.txt "d['absolute']['unit'], d['absolute']['runs'], sorted((f['function'], f['change'], f['class'], f['share'], f['change_interval']) for f in d['absolute']['functions'])")" = \
		"calls [2, 2] [('existing_fn', $N.0, 'finding', 0.5, [$N.0, $N.0]), ('helper_new', $N.0, 'finding', 0.5, [$N.0, $N.0])]" ] ||
		fail "calls, two runs per side: $(json_get out.txt "d['absolute']")"
	# Weighed by time, the function made slower comes first, in ms.
	expect_exit 1 "$REVPERF" diff "p1$opt" "p1b$opt" -- "p2$opt" "p2b$opt"
	sed -n '/function (self)$/{n;p;q}' out.txt | grep -Eq ' m?s .* slow_me  \(calls [0-9]+ -> [0-9]+\)$' ||
		fail "time, two runs per side: slow_me is not first: $(cat out.txt)"

	# Folded stacks exported by profile diff like the originals (stage 3: no programs).
	expect_exit 0 "$REVPERF" profile --cct -f folded -o "v1$opt.folded" -- "./v1$opt" $N
	expect_grep '^main;slow_me [0-9]+$' "v1$opt.folded"
	expect_exit 0 "$REVPERF" profile --cct -f folded -o "v2$opt.folded" -- "./v2$opt" $N
	expect_exit 1 "$REVPERF" diff -f json "v1$opt.folded" "v2$opt.folded"
	[ "$(json_get out.txt "d['weight_differences'][0]['path']")" = "['main', 'slow_me']" ] ||
		fail "folded: slow_me is not the first weight difference"
	# ... or with the binaries named explicitly: stages 1 and 2 again.
	expect_exit 1 "$REVPERF" diff -f json --old-binary "v1$opt" --new-binary "v2$opt" \
		"v1$opt.folded" "v2$opt.folded"
	check_diff out.txt
done

# callgrind output: instruction counts are exact, so the result is deterministic.
if command -v valgrind >/dev/null; then
	for v in 1 2; do
		cc -O1 -g -DVERSION=$v "$W" -o "cg$v"
		valgrind --tool=callgrind --callgrind-out-file="cg$v.out" "./cg$v" 50 >/dev/null 2>&1 ||
			fail "valgrind --tool=callgrind failed"
	done
	expect_exit 1 "$REVPERF" diff -f json --old-binary cg1 --new-binary cg2 cg1.out cg2.out
	cp out.txt cg.json
	# Without instrumentation spin() is a function of its own, under slow_me.
	[ "$(json_get cg.json "'slow_me' in d['weight_differences'][0]['path'][-2:]")" = True ] ||
		fail "callgrind: slow_me is not the first weight difference"
	[ "$(json_get cg.json "[t['stage'] for t in d['topological'] if t['path'][-1] == 'helper_new']")" = "[1]" ] ||
		fail "callgrind: helper_new is not stage 1"
	# PLT entries (.plt.sec here), which callgrind shows by address, are named as in
	# compare's counted attribution (docs/callgrind.md).
	cc -O1 -g -fcf-protection -Wl,-z,ibtplt -o plt "$SRCDIR/tests/workloads/plt_memcpy.c" ||
		fail "cannot build plt_memcpy.c"
	for n in 1000 3000; do
		valgrind --tool=callgrind --callgrind-out-file="plt$n.out" ./plt $n >/dev/null 2>&1 ||
			fail "valgrind --tool=callgrind ./plt failed"
	done
	grep -q '^fn=.*0x0000' plt1000.out || fail "callgrind named every function here: nothing to check"
	expect_exit 1 "$REVPERF" diff -f json plt1000.out plt3000.out
	python3 - out.txt <<'PY' || fail "diff of callgrind output: names"
import json, re, sys
d = json.load(open(sys.argv[1]))
w = d["weight_differences"]
assert any("memcpy@plt" in p["path"] for p in w), [p["path"] for p in w[:3]]
# below main, every function has its name (the dynamic loader's own entry, in an object
# without a symbol table, may keep its address)
below = [p["path"][p["path"].index("main") + 1:] for p in w if "main" in p["path"]]
assert below and not any(re.match(r"0x[0-9a-f]{16}$", f) for b in below for f in b), below
PY
else
	echo "valgrind not found: the callgrind part is skipped"
fi

# Bad input: a truncated CCT profile and a directory without profiles, named in one line.
f=$(ls p1-O2/*.cct | head -1)
head -c 200 "$f" >trunc.cct
expect_exit 2 "$REVPERF" diff trunc.cct "p1-O2"
expect_grep 'trunc.cct:[0-9]+: ' err.txt
expect_one_line err.txt
mkdir empty
expect_exit 2 "$REVPERF" diff empty "p1-O2"
expect_grep 'no complete CCT profile' err.txt
expect_exit 2 "$REVPERF" diff --weight calls v1-O2.folded v2-O2.folded
expect_grep 'no call counts' err.txt
expect_exit 2 "$REVPERF" diff --old-binary v1-O2 p1-O2 p2-O2
# A program that is not instrumented writes no profile: a clear error, exit 2.
cc -O2 -DVERSION=1 "$W" -o plain
expect_exit 2 "$REVPERF" profile --cct -- ./plain 10
expect_grep 'finstrument-functions' err.txt
