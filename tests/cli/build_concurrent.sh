# Two revperf processes that need the same commits at once: the checkout and the build of a
# commit happen once (a lock per commit: the second process waits, then reuses them), both
# comparisons succeed. The directories of interrupted checkouts (<sha>.tmp-PID, PID dead)
# are removed; one whose process lives is left alone.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
# The build appends its commit to a file outside the worktree, and takes a while, so that
# the two processes overlap.
cat >build.sh <<SH
basename "\$PWD" >>"$TEST_TMP/builds.txt"
sleep 1
echo built >built.txt
SH
sed -i 's/^command = echo built > built.txt$/command = sh build.sh/' revperf.ini
git add . && git commit -qm "a slow build" && git tag one
echo '# two' >>work.sh && git commit -qam two && git tag two
one=$(git rev-parse one)
two=$(git rev-parse two)

# The database exists before the race (its creation by two processes at once is another
# matter): a comparison of commands builds nothing.
expect_exit 0 "$REVPERF" compare --cmd-a true --cmd-b true --runs 2..2 -q --primary wchar
[ ! -s "$TEST_TMP/builds.txt" ] || fail "a comparison of commands built something"

# Leftovers of interrupted checkouts: two of dead processes, one of a living one.
dead=$(sh -c 'echo $$')
alive=$$
mkdir -p ".revperf/worktrees/$one.tmp-$dead/src" ".revperf/worktrees/$(printf '%040d' 7).tmp-$dead" \
	".revperf/worktrees/$two.tmp-$alive"

rc=(0 0)
"$REVPERF" compare one two -q --runs 3..3 >p0.out 2>p0.err & p0=$!
"$REVPERF" compare one two -q --runs 3..3 >p1.out 2>p1.err & p1=$!
wait $p0 || rc[0]=$?
wait $p1 || rc[1]=$?
for i in 0 1; do
	[ "${rc[$i]}" -le 1 ] || { cat p$i.err; fail "process $i exited ${rc[$i]}"; }
done
sort "$TEST_TMP/builds.txt" >builds.txt
printf '%s\n%s\n' "$one" "$two" | sort >expected.txt
diff expected.txt builds.txt || fail "each commit should be built once (above: expected, built)"
[ "$(grep -c "^revperf: building" p0.err p1.err | awk -F: '{ n += $2 } END { print n }')" = 2 ] ||
	{ cat p0.err p1.err; fail "expected two 'building' lines in all"; }

[ ! -e ".revperf/worktrees/$one.tmp-$dead" ] || fail "stale checkout of $one left"
[ ! -e ".revperf/worktrees/$(printf '%040d' 7).tmp-$dead" ] || fail "stale checkout left"
[ -d ".revperf/worktrees/$two.tmp-$alive" ] || fail "removed the checkout of a living process"
echo ok
