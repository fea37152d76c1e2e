# revperf gc removes from .revperf/ the worktrees (builds) and logs no stored result needs,
# or with --older-than those only old results need; --dry-run lists and keeps them. wchar
# decides (base writes 1000 bytes, slow 3000), which a busy machine cannot change.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo
printf 'head -c 3000 /dev/zero > out.bin\n# same\n' >work.sh
git commit -qam "still 3000 bytes" && git tag same

# Nothing stored: one line saying so, exit 2, nothing created.
expect_exit 2 "$REVPERF" gc
expect_one_line err.txt
[ ! -e .revperf ] || fail "gc created the state directory"

expect_exit 1 "$REVPERF" compare base slow -q --seed 1
expect_exit 0 "$REVPERF" compare slow same -q --seed 1
id=$(db_query .revperf/revperf.db "SELECT max(id) FROM comparisons")
logs_of_runs=$(db_query .revperf/revperf.db "SELECT count(DISTINCT log_path) FROM runs")
[ "$logs_of_runs" -ge 2 ] || fail "the comparisons wrote no run logs"

# Plant what nothing stored needs: a build directory of a commit never compared, and a
# log no run points to (old enough to be nobody's running comparison), and a link out of
# the state directory that gc must neither follow nor remove.
orphan=.revperf/worktrees/0123456789abcdef0123456789abcdef01234567
mkdir -p $orphan/sub
head -c 5000 /dev/zero >$orphan/sub/a.o
head -c 1000 /dev/zero >$orphan/b.o
head -c 2000 /dev/zero >.revperf/logs/orphan.log
touch -d '1 hour ago' .revperf/logs/orphan.log
mkdir ../outside
head -c 7 /dev/zero >../outside/keep.log
ln -s "$PWD/../outside" .revperf/worktrees/link
ln -s "$PWD/../outside/keep.log" .revperf/logs/link.log
# A log no run points to, written just now: a running comparison's, kept.
head -c 10 /dev/zero >.revperf/logs/fresh.log
snapshot() { (cd .revperf && find . -path ./revperf.db\* -prune -o -print | sort) >"$1"; }
snapshot before.txt

# --dry-run: lists exactly the two, with their sizes (8000 B = 7.81 KiB), removes nothing.
expect_exit 0 "$REVPERF" gc --dry-run
cp out.txt dry.txt
[ "$(grep -c '^would remove' dry.txt)" = 2 ] || fail "dry run: not exactly two items"
expect_grep "^would remove worktree .*$orphan \(no stored result needs it\): 5.86 KiB, 2 files, 2 directories" dry.txt
expect_grep '^would remove log .*logs/orphan.log \(no stored result needs it\): 1.95 KiB$' dry.txt
expect_grep '^would free 7.81 KiB, 3 files, 2 directories \(dry run: nothing removed\)$' dry.txt
expect_grep 'kept 1 log file no run points to' err.txt
snapshot after.txt
cmp -s before.txt after.txt || fail "dry run removed something: $(diff before.txt after.txt)"

# gc: removes exactly them and says how much it freed.
expect_exit 0 "$REVPERF" gc -f json
[ "$(json_get out.txt "d['schema']")" = revperf-gc/2 ] || fail "schema"
[ "$(json_get out.txt "d['bytes']")" = 8000 ] || fail "bytes: $(cat out.txt)"
[ "$(json_get out.txt "d['files']")" = 3 ] || fail "files"
[ "$(json_get out.txt "d['directories']")" = 2 ] || fail "directories"
[ "$(json_get out.txt "len(d['removed'])")" = 2 ] || fail "removed"
snapshot after.txt
diff before.txt after.txt | grep '^[<>]' >removed.txt || true
[ "$(grep -c '^<' removed.txt)" = 5 ] || fail "not exactly the planted files removed: $(cat removed.txt)"
# Only the lock file gc took before it removed the worktree (kept, as worktree_lock() keeps them).
[ "$(grep '^>' removed.txt)" = "> ./worktrees/${orphan##*/}.lock" ] || fail "gc added: $(cat removed.txt)"
[ ! -e $orphan ] && [ ! -e .revperf/logs/orphan.log ] || fail "the orphans are still there"
[ -f ../outside/keep.log ] && [ -L .revperf/worktrees/link ] && [ -L .revperf/logs/link.log ] ||
	fail "gc followed or removed a link"
[ -n "${REVPERF_STORE:-}" ] || [ -f .revperf/revperf.db ] || fail "gc removed the database"

# Again: nothing left to free.
expect_exit 0 "$REVPERF" gc
expect_grep '^freed 0 B, 0 files, 0 directories$' out.txt
expect_no_grep '^removed' out.txt

# The stored results still show and report, and a compare reuses the builds.
expect_exit 0 "$REVPERF" show "$id"
expect_grep 'write' out.txt
expect_no_grep 'removed' err.txt
expect_exit 0 "$REVPERF" report -q --out site
[ -f site/index.html ] || fail "no report"
expect_grep 'href="file://[^"]*/logs/build-' site/commits/$(git rev-parse same).html
expect_exit 0 "$REVPERF" compare slow same -q --seed 1
expect_no_grep 'building' err.txt

# --older-than 0s: every worktree and log goes; the results stay and show says the logs
# are gone instead of failing.
runs=$(db_query .revperf/revperf.db "SELECT count(*) FROM runs")
expect_exit 0 "$REVPERF" gc --older-than 0s
expect_grep '^removed worktree .* \(its results are older than --older-than\)' out.txt
expect_grep '^removed log .*logs/build-' out.txt
expect_grep '^freed [1-9]' out.txt
[ -z "$(cd .revperf/worktrees && find . -mindepth 1 -maxdepth 1 -type d)" ] ||
	fail "worktrees left: $(ls .revperf/worktrees)"
[ "$(ls .revperf/logs)" = "$(printf 'fresh.log\nlink.log')" ] || fail "logs left: $(ls .revperf/logs)"
[ "$(db_query .revperf/revperf.db "SELECT count(*) FROM runs")" = "$runs" ] || fail "runs deleted"
for args in "$id" "base slow"; do
	expect_exit 0 "$REVPERF" show $args
	expect_grep 'write' out.txt
	expect_grep 'worse' out.txt
	expect_grep 'logs of comparison [0-9]+ were removed by revperf gc' err.txt
	expect_exit 0 "$REVPERF" show $args -f json
	[ "$(json_get out.txt "d['comparison_id']")" -ge 1 ] || fail "show -f json"
done
expect_exit 0 "$REVPERF" report -q --out site2
[ -f site2/index.html ] || fail "no report after the logs were removed"
# The commit pages link the copies the store keeps of the removed logs (docs/store.md,
# "Logs") rather than the missing files.
expect_grep 'build log</a> <span class="note">[0-9.]+ (B|KiB|MiB), from the store' \
	"$(ls site2/commits/$(git rev-parse slow).html)"
! grep -q 'href="file://[^"]*\.log"' site2/commits/*.html || fail "a link to a removed log"

# A worktree another revperf holds the lock of (checking out or building there) is kept.
busy=.revperf/worktrees/fedcba9876543210fedcba9876543210fedcba98
mkdir -p $busy && head -c 100 /dev/zero >$busy/x.o
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "w"); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(60)' $busy.lock &
holder=$!
for _ in $(seq 100); do flock -n $busy.lock true || break; sleep 0.1; done
expect_exit 0 "$REVPERF" gc
kill $holder; wait $holder 2>/dev/null || true
[ -f $busy/x.o ] || fail "gc removed a locked worktree"
expect_grep 'kept 1 worktree another revperf is building in' err.txt
expect_grep '^freed 0 B' out.txt
expect_exit 0 "$REVPERF" gc -q
expect_grep "^removed worktree .*${busy##*/}" out.txt
[ ! -e $busy ] || fail "the unlocked worktree is still there"

# Bad input: one line naming the value, exit 2.
expect_exit 2 "$REVPERF" gc --older-than banana
expect_one_line err.txt
expect_grep "'banana'" err.txt
expect_exit 2 "$REVPERF" gc --older-than -5d
expect_one_line err.txt
expect_exit 2 "$REVPERF" gc extra
expect_one_line err.txt
expect_exit 2 "$REVPERF" gc -f xml
expect_exit 2 "$REVPERF" gc --older-than banana -f json
[ "$(json_get out.txt "d['schema']")" = revperf-error/1 ] || fail "json error document"
