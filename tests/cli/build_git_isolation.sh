# A build sees the commit it builds, never the user's repository: inside the worktree,
# git reports that commit (rev-parse, describe with the user's tags, a clean status), and
# what the build writes through git (a tag, config, notes) lands in revperf's private
# repository of the worktree. Also with GIT_DIR exported by the caller (revperf run from a
# git hook), with the state outside the project, for a worktree of an older revperf (no
# .git), which is checked out again, and after the user's repository moved.
. "$SRCDIR/tests/cli/lib/common.bash"
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=test \
	GIT_COMMITTER_EMAIL=t@example.com

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
cat >revperf.ini <<'INI'
[build]
command = sh build.sh
[benchmark "spin"]
command = sh ./work.sh
runs = 3..3
warmup = 0
INI
cat >build.sh <<'SH'
set -e
git rev-parse HEAD >version.txt
git describe --always --dirty >describe.txt
git status --porcelain --untracked-files=no >status.txt
git tag -f "built-$(git rev-parse --short HEAD)"
git config revperf.built yes
git notes add -f -m "built here" HEAD
SH
printf 'i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done\n' >work.sh
git add . && git commit -qm base && git tag -a -m "version 1" v1
echo '# a comment' >>work.sh && git commit -qam second && git tag second
echo '# the user works on' >>work.sh && git commit -qam third
base=$(git rev-parse v1^{commit})
second=$(git rev-parse second)

# What the user's repository holds before: refs (tags, notes), local config, status.
user_state() {
	git for-each-ref --format='%(refname) %(objectname)'
	git config --local --list
	git status --porcelain --untracked-files=no
	git rev-parse HEAD
}
user_state >before.txt

# check_build WORKTREE SHA: the build saw SHA and wrote into the worktree's repository.
check_build() {
	[ "$(cat "$1/version.txt")" = "$2" ] ||
		fail "the build of $2 saw HEAD = $(cat "$1/version.txt")"
	[ "$(cat "$1/describe.txt")" = "$(git describe --always "$2")" ] ||
		fail "git describe in the build of $2: $(cat "$1/describe.txt"), not $(git describe --always "$2")"
	[ -d "$1/.git" ] || fail "$1 has no private repository"
	[ ! -s "$1/status.txt" ] || { cat "$1/status.txt"; fail "the worktree of $2 looks modified to git"; }
	# Afterwards (revperf's stamp written), only what the build wrote is new to git.
	[ "$(git -C "$1" status --porcelain | tr '\n' ' ')" = \
		'?? describe.txt ?? status.txt ?? version.txt ' ] ||
		{ git -C "$1" status --porcelain; fail "git status in $1"; }
	git -C "$1" tag -l 'built-*' | grep -q . || fail "the build's tag is not in $1's repository"
	[ "$(git -C "$1" config revperf.built)" = yes ] || fail "the build's config is not in $1"
	git -C "$1" notes show "$2" | grep -q 'built here' || fail "the build's note is not in $1"
}

# compare_ok ARGS...: a comparison that ran (exit 0, or 1 for a chance verdict).
compare_ok() {
	local rc=0
	"$REVPERF" compare "$@" -q >out.txt 2>err.txt || rc=$?
	[ $rc -le 1 ] || { cat err.txt; fail "compare $* exited $rc"; }
}

compare_ok v1 second
check_build ".revperf/worktrees/$base" "$base"
check_build ".revperf/worktrees/$second" "$second"
user_state >after.txt
diff before.txt after.txt || fail "the builds changed the user's repository"
# The user's objects are shared (alternates), not copied.
grep -q "$PWD/.git/objects" ".revperf/worktrees/$base/.git/objects/info/alternates" ||
	fail "the private repository does not borrow the user's objects"

# A worktree of an older revperf (an export without .git): checked out again and rebuilt.
rm -rf ".revperf/worktrees/$second/.git"
compare_ok v1 second
expect_grep "building ${second:0:12}" err.txt
check_build ".revperf/worktrees/$second" "$second"

# GIT_DIR exported by the caller (a git hook) and the state outside the project.
GIT_DIR=$PWD/.git GIT_WORK_TREE=$PWD compare_ok v1 second --state-dir "$TEST_TMP/state"
check_build "$TEST_TMP/state/worktrees/$second" "$second"
user_state >after.txt
diff before.txt after.txt || fail "the builds changed the user's repository (GIT_DIR set)"

# The user's repository moved (with its .revperf): the private repositories follow it.
cd .. && mv repo moved && cd moved
compare_ok v1 second --build-command 'sh build.sh && true'
check_build ".revperf/worktrees/$second" "$second"
grep -q "$PWD/.git/objects" ".revperf/worktrees/$second/.git/objects/info/alternates" ||
	fail "the private repository still borrows from the old place"
echo ok
