# One worktree per commit serves every build command. A build with another command
# (revperf.ini tried with a second command, then put back) left its files there, and the
# store's record of the first command, found with the stamp of "a finished build", reused
# them: on SQLite, compare with the original build command then bindiffed (and would have
# run) the speedtest1 that the other command had built. The stamp now holds the command
# it finished, and another command's stamp means build again (the build keeps its id, so
# its stored runs are still reused). A build with another command also starts from a clean
# checkout: on the other's files, make took its targets for up to date (TinyCC's
# `make tcc CONFIG_strip=no` after `make tcc` kept the stripped program).
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo proj
cd proj
printf '# docs\n' >README && git add README && git commit -qm docs
sed 's/^command = echo built > built.txt$/command = echo other > built.txt/' revperf.ini >other.ini
grep -q 'echo other' other.ini || fail "other.ini: $(cat other.ini)"
wt() { cat ".revperf/worktrees/$(git rev-parse "$1")/built.txt"; }
ids() { db_query .revperf/revperf.db "SELECT id FROM builds WHERE command = 'echo built > built.txt' ORDER BY id" | tr '\n' ' '; }

"$REVPERF" compare base HEAD --runs 2..2 --warmup 0 >out.txt 2>err.txt || true
[ "$(grep -c '^revperf: building' err.txt)" = 2 ] || { cat err.txt; fail "first builds"; }
[ "$(wt base)" = built ] || fail "base built: $(wt base)"
before=$(ids)

# a file the first build left, which the other command does not make
touch ".revperf/worktrees/$(git rev-parse base)/left-by-first-build"
"$REVPERF" compare base HEAD --runs 2..2 --warmup 0 --config other.ini >out.txt 2>err.txt || true
[ "$(grep -c '^revperf: building' err.txt)" = 2 ] || { cat err.txt; fail "other builds"; }
[ "$(wt base)" = other ] || fail "base built by the other command: $(wt base)"
expect_grep '^revperf: building [0-9a-f]{12} \(base\): echo other > built.txt \(checked out clean: another build command built it last\)$' err.txt
[ ! -e ".revperf/worktrees/$(git rev-parse base)/left-by-first-build" ] ||
	fail "the other command built on the first one's files"

# back to the first command: built again, in place, under the same build records
"$REVPERF" compare base HEAD --runs 2..2 --warmup 0 >out.txt 2>err.txt || true
[ "$(grep -c '^revperf: building' err.txt)" = 2 ] || { cat err.txt; fail "the first command's files were taken for its build"; }
[ "$(wt base)" = built ] && [ "$(wt HEAD)" = built ] || fail "worktrees: $(wt base) $(wt HEAD)"
[ "$(ids)" = "$before" ] || fail "build ids changed: $before -> $(ids)"
expect_grep 'reused|shown from the store' out.txt   # its stored runs: nothing measured anew

# and a build of the same command is still cached
"$REVPERF" compare base HEAD --runs 2..2 --warmup 0 >out.txt 2>err.txt || true
expect_no_grep '^revperf: building' err.txt
