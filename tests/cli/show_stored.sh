# revperf show prints a stored comparison in every format without building or running:
# by id, by BASE TARGET (the newest of the pair), or the newest of all. wchar decides
# (base writes 1000 bytes, slow 3000), which a busy machine cannot change.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo

# Nothing stored yet: one line saying how to make one, exit 2, no database created.
expect_exit 2 "$REVPERF" show base slow
expect_one_line err.txt
expect_grep 'revperf compare' err.txt
[ ! -e .revperf ] || fail "show created the state directory"

expect_exit 1 "$REVPERF" compare base slow -q --seed 1 -f json
id=$(json_get out.txt "d['comparison_id']")
verdict() { json_get out.txt "[m for m in d['benchmarks'][0]['metrics'] if m['name']=='wchar'][0]['verdict']"; }
runs=$(count runs) comps=$(count comparisons)
# A worktree removed after the comparison: show does not build it again.
rm -rf .revperf/worktrees/$(git rev-parse slow)

for args in "$id" "base slow" ""; do
	expect_exit 0 "$REVPERF" show $args -f json
	[ "$(json_get out.txt "d['comparison_id']")" = "$id" ] || fail "show $args: wrong comparison"
	[ "$(verdict)" = worse ] || fail "show $args: not worse"
	[ "$(json_get out.txt "d['exit_code']")" = 1 ] || fail "show $args: exit_code"
	[ "$(json_get out.txt "d['benchmarks'][0]['runs']['target']['ok']")" = 3 ] || fail "runs"
done
expect_exit 0 "$REVPERF" show "$id"
expect_grep 'write' out.txt
expect_grep 'worse' out.txt
expect_exit 0 "$REVPERF" show base slow -f markdown --no-color
expect_grep '^\|' out.txt
[ "$(count runs)" = "$runs" ] || fail "show ran something"
[ "$(count comparisons)" = "$comps" ] || fail "show recorded a comparison"
[ ! -e .revperf/worktrees/$(git rev-parse slow) ] || fail "show checked out or built"
expect_no_grep 'building' err.txt

# Bad input: one line, exit 2.
expect_exit 2 "$REVPERF" show 999
expect_one_line err.txt
expect_grep 'no comparison 999' err.txt
expect_exit 2 "$REVPERF" show abc
expect_one_line err.txt
expect_exit 2 "$REVPERF" show slow base
expect_one_line err.txt
expect_grep 'no stored comparison of slow and base.*revperf compare slow base' err.txt
expect_exit 2 "$REVPERF" show base slow -f yaml
expect_exit 2 "$REVPERF" show slow base -f json
json_get out.txt "d['error']['exit_code']" >/dev/null || fail "no JSON error document"

# Outside a git repository: a comparison of revisions cannot be shown there (it needs the
# repository's revisions and revperf.ini), nor BASE TARGET named; one of two commands can
# (tests/cli/show_commands.sh).
repo_dir=$PWD
mkdir "$TEST_TMP/nogit" && cd "$TEST_TMP/nogit"
expect_exit 2 "$REVPERF" show "$id" --state-dir "$repo_dir/.revperf"
expect_one_line err.txt
expect_grep "comparison $id compared two revisions.*run it in that repository" err.txt
expect_exit 2 "$REVPERF" show base slow
expect_one_line err.txt
expect_grep 'show BASE TARGET names revisions: run it in their git repository' err.txt
expect_exit 0 "$REVPERF" compare -q --cmd-a true --cmd-b true --runs 2..2 --warmup 0 --metrics wall \
	-f json
id2=$(json_get out.txt "d['comparison_id']")
expect_exit 0 "$REVPERF" show "$id2"
expect_grep '^command: 2 \+ 2 runs, shown from the store' out.txt
echo ok
