# A repository that lacks an object of a revision (a partial clone, `git clone
# --filter=blob:none`, whose blobs libgit2 cannot fetch; or a damaged one) cannot be
# checked out: one line that names the commit, the missing object and the path it is
# at, and what to do. Before, it named the private repository's temporary directory and
# libgit2's "object not found - no match for id (...)" alone (seen on google/brotli, a
# mirror without three blobs). The exit status is 2, bad input (before, 3: the checkout's
# error was an internal failure); history records the commit as failed and goes on.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
echo data >input.txt
git add input.txt && git commit -qm "an input" && git tag with-input
blob=$(git rev-parse with-input:input.txt)
rm -f ".git/objects/${blob:0:2}/${blob:2}"
git cat-file -e "$blob" 2>/dev/null && fail "the blob is still there"

expect_exit 2 "$REVPERF" compare base with-input
grep 'error' err.txt >error.txt
expect_one_line error.txt
expect_grep "cannot check out $(git rev-parse --short=12 with-input)" err.txt
expect_grep "lacks object $blob \(input.txt\)" err.txt
expect_grep 'git fsck' err.txt
expect_no_grep '\.tmp-' err.txt
sha=$(git rev-parse with-input)
[ ! -e ".revperf/worktrees/$sha" ] || fail "the worktree of with-input was left behind"
! ls .revperf/worktrees | grep -q '\.tmp-' || fail "a temporary checkout was left behind"

# history: that commit failed, not its build; the history goes on to the next one.
echo more >>input.txt && git add input.txt && git commit -qm "more input" && git tag later
expect_exit 0 "$REVPERF" history base..later -f json
python3 - out.txt <<'PY' || fail "history: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
st = {c["summary"]: c["status"] for c in d["commits"]}
assert st["an input"] == "failed", st
PY
echo ok
