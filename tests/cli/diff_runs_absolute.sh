# revperf diff with several folded profiles per side (OLD... -- NEW...): the absolute change
# per function and call path beside PARCS's percentages, each side's mean ± sd over its
# runs, the change ± its interval, the share of the total change, ranked by absolute
# change; a change within the run-to-run spread marked noise; one file per side says there
# is no spread; JSON; profiles of different weights; usage errors and bad input.
. "$SRCDIR/tests/cli/lib/common.bash"

# scale: 200 +- 2 samples per run, then 400 +- 2: a finding. parse: 100..120 per run on
# both sides (sd 10) and 5 more on average in NEW: its 99% interval is +-37.6, noise.
# main: unchanged.
printf 'main;parse 100\nmain;compute;scale 198\nmain 5\n' >a1.folded
printf 'main;parse 120\nmain;compute;scale 200\nmain 5\n' >a2.folded
printf 'main;parse 110\nmain;compute;scale 202\nmain 5\n' >a3.folded
printf 'main;parse 105\nmain;compute;scale 398\nmain 5\n' >b1.folded
printf 'main;parse 125\nmain;compute;scale 400\nmain 5\n' >b2.folded
printf 'main;parse 115\nmain;compute;scale 402\nmain 5\n' >b3.folded

expect_exit 1 "$REVPERF" diff a1.folded a2.folded a3.folded -- b1.folded b2.folded b3.folded
[ ! -s err.txt ] || fail "unexpected stderr: $(cat err.txt)"
expect_grep '^old: a1\.folded \+ 2 more \(3 runs\) \(4 contexts, total weight 315, mean of 3 runs\)$' out.txt
expect_grep '^absolute change, weight \(folded stacks: the file.s own unit, samples for perf\):$' out.txt
# the total: 315 +- 11.1 -> 520 +- 11.1 per run, +205
expect_grep "^  3 \\+ 3 runs; per run 315\\.0 ± 11\\.1 -> 520\\.0 ± 11\\.1, change \\+205\\.0 ± [0-9.]+ \\(finding\\)\$" out.txt
# ranked by absolute change: scale first, a finding, 200/205 of the change; parse is noise
sed -n '/function (self)$/,/call path (self)$/p' out.txt >funcs.txt
[ "$(sed -n 2p funcs.txt | awk '{print $NF}')" = scale ] || fail "scale is not first: $(cat funcs.txt)"
expect_grep '^  200 ± 2  +400 ± 2  +\+200\.0 ± [0-9.]+ +97\.6% +finding +scale$' funcs.txt
expect_grep '^  110 ± 10  +115 ± 10  +\+5\.0 ± [0-9.]+ +2\.4% +noise +parse$' funcs.txt
expect_no_grep 'main$' funcs.txt
expect_grep '^  200 ± 2 .* finding +main;compute;scale$' out.txt
expect_grep 'change ± the half-width of its 99% Welch interval; noise: that interval holds 0' out.txt
# PARCS's percentages are still there, unchanged by the absolute figures.
expect_grep '^overlap [0-9.]+% of the common trees \(4 matched contexts\)' out.txt
expect_grep '^ +[0-9.]+% ± [0-9.]+ -> +[0-9.]+% ± [0-9.]+ +\+[0-9.]+ +main;compute;scale$' out.txt

# JSON: the same numbers, calls absent (null), not 0: folded stacks have none.
expect_exit 1 "$REVPERF" diff -f json a1.folded a2.folded a3.folded -- b1.folded b2.folded b3.folded
[ "$(json_get out.txt "d['absolute']['runs'], d['absolute']['spread'], d['absolute']['unit'], d['absolute']['calls_known']")" = \
	"[3, 3] True None False" ] || fail "JSON header: $(cat out.txt)"
[ "$(json_get out.txt "[(f['function'], f['class'], round(f['baseline']), round(f['target']), f['baseline_range'], f['baseline_calls']) for f in d['absolute']['functions']]")" = \
	"[('scale', 'finding', 200, 400, [198.0, 202.0], None), ('parse', 'noise', 110, 115, [100.0, 120.0], None)]" ] ||
	fail "JSON functions: $(cat out.txt)"
json_get out.txt "abs(d['absolute']['functions'][0]['share'] - 200/205) < 1e-9 and d['absolute']['functions'][0]['change_interval'][0] > 0" |
	grep -qx True || fail "JSON share or interval: $(cat out.txt)"
[ "$(json_get out.txt "d['absolute']['paths'][0]['path'], d['absolute_note']")" = "main;compute;scale None" ] ||
	fail "JSON paths: $(cat out.txt)"

# One file per side: the values and the change, and no claim about noise.
expect_exit 1 "$REVPERF" diff a1.folded b1.folded
expect_grep '^  1 \+ 1 runs; per run 303 -> 508, change \+205$' out.txt
expect_grep '^  198  +398  +\+200  +97\.6%  +scale$' out.txt
expect_grep 'no spread: each side has a single run, so no change can be told from run-to-run noise' out.txt
expect_no_grep 'finding|noise ' out.txt
# Two runs of OLD, one of NEW: still no spread to judge by (the target has one run).
expect_exit 1 "$REVPERF" diff a1.folded a2.folded -- b1.folded
expect_grep 'no spread: the target has a single run' out.txt

# Different weights (instructions against samples): no absolute change, said once; the
# percentages as before.
printf 'events: Ir\nfn=main\n1 100\n' >one.callgrind
expect_exit 1 "$REVPERF" diff one.callgrind a1.folded
expect_grep '^no absolute change: OLD weighs event Ir, NEW unnamed weight: their values cannot be subtracted$' out.txt
expect_grep '^overlap ' out.txt

# Usage: nothing after '--', lists with --bench, lists of I/O profiles; bad input in a list.
expect_exit 2 "$REVPERF" diff a1.folded a2.folded --
expect_grep "no NEW profile after '--'" err.txt
expect_exit 2 "$REVPERF" diff a1.folded a2.folded b1.folded
expect_grep 'expected OLD and NEW profiles, got 3 arguments \(several runs per side: OLD\.\.\. -- NEW\.\.\.\)' err.txt
expect_exit 2 "$REVPERF" diff --bench x r1 -- r2 r3
expect_grep 'with --bench, OLD and NEW are two revisions' err.txt
printf 'main;parse 100\nmain;compute\n' >bad.folded
expect_exit 2 "$REVPERF" diff a1.folded a2.folded -- b1.folded bad.folded
expect_grep '^revperf: error: bad\.folded:2: ' err.txt
expect_one_line err.txt
# '--' before both profiles is still the end of the options.
expect_exit 1 "$REVPERF" diff -- a1.folded b1.folded
echo ok
