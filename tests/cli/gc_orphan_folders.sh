# revperf gc and the folders of profiles/ and dynamic/ (docs/store.md): one whose owner (a
# comparison, a row of dynamic data) is not in the store goes, unless a stored row points
# into it or something in it changed in the last 10 minutes; one whose owner is stored
# stays, --older-than or not; other names, report/ and ci/ are left alone.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo
expect_exit 1 "$REVPERF" compare base slow -q --seed 1
db=.revperf/revperf.db
state=$PWD/.revperf
prof=$(store_profiles "$state") # profiles/, or profiles/store-<id>/ on PostgreSQL
rprof=${prof#"$state"/}
id=$(db_query $db "SELECT max(id) FROM comparisons")
sha=$(git rev-parse slow | cut -c1-12)
expect_exit 0 "$REVPERF" report -q

# profiles/: the stored comparison's (kept); one of a comparison the store lacks (goes:
# 4000 B, 2 files, 2 directories); one the store lacks whose profile a stored row points to
# (a profile a later comparison reused: kept); one written just now (a running
# comparison's: kept, counted); a name that is no comparison's (left alone).
mkdir -p "$prof/$id/write" "$prof/9001/write" "$prof/9002/write" \
	"$prof/9003" "$prof/notes"
head -c 300 /dev/zero >"$prof/$id/write/flame.svg"
head -c 3000 /dev/zero >"$prof/9001/write/run-1.cct"
head -c 1000 /dev/zero >"$prof/9001/attribution.json"
printf x >"$prof/9002/write/run-1.cct"
printf x >"$prof/9003/x"
printf x >"$prof/notes/readme"
db_query $db "INSERT INTO profiles(build_id, benchmark_id, machine_id, comparison_id, kind,
	status, path, started_at) SELECT build_id, benchmark_id, machine_id, comparison_id, 'cct',
	'ok', '$prof/9002/write/run-1.cct', started_at FROM runs
	WHERE comparison_id = $id ORDER BY id LIMIT 1" >/dev/null
# dynamic/: a benchmark's data with its row (kept); one of the same commit without a row
# (goes: 100 B); a commit's folder none of whose data has a row (goes: 2500 B, 2 files,
# then the folder it emptied).
mkdir -p "$state/dynamic/$sha/write" "$state/dynamic/$sha/other" "$state/dynamic/0123456789ab/write"
printf x >"$state/dynamic/$sha/write/callgrind.out.1"
head -c 100 /dev/zero >"$state/dynamic/$sha/other/run.log"
head -c 2000 /dev/zero >"$state/dynamic/0123456789ab/write/run.log"
head -c 500 /dev/zero >"$state/dynamic/0123456789ab/write/callgrind.out.7"
db_query $db "INSERT INTO dynamic_profiles(build_id, benchmark_id, source, cost, path,
	created_at) SELECT build_id, benchmark_id, 'callgrind', 'instructions',
	'$state/dynamic/$sha/write/', started_at FROM runs WHERE comparison_id = $id
	ORDER BY id LIMIT 1" >/dev/null
mkdir -p "$state/ci" && head -c 50 /dev/zero >"$state/ci/junit.xml"
# Everything planted is an hour old but profiles/9003, a running comparison's.
find "$prof" "$state/dynamic" "$state/ci" "$state/report" -depth ! -path "$prof/9003*" \
	-exec touch -h -d '1 hour ago' {} +
snapshot() { (cd .revperf && find . -path ./revperf.db\* -prune -o -print | sort) >"$1"; }
snapshot before.txt

# --dry-run: exactly the four, with their sizes; nothing removed.
expect_exit 0 "$REVPERF" gc --dry-run -f json
cp out.txt dry.json
python3 - dry.json "$state" "$sha" "$rprof" <<'PY' || fail "dry run: $(cat dry.json)"
import json, os, sys
d, state, sha = json.load(open(sys.argv[1])), os.path.realpath(sys.argv[2]), sys.argv[3]
prof = sys.argv[4]
got = sorted((r["kind"], os.path.relpath(os.path.realpath(r["path"]), state), r["reason"],
              r["bytes"], r["files"], r["directories"]) for r in d["removed"])
want = sorted([("profiles", f"{prof}/9001", "unused", 4000, 2, 2),
               ("dynamic", "dynamic/0123456789ab/write", "unused", 2500, 2, 1),
               ("dynamic_directory", "dynamic/0123456789ab", "unused", 0, 0, 1),
               ("dynamic", f"dynamic/{sha}/other", "unused", 100, 1, 1)])
assert got == want, got
assert (d["schema"], d["dry_run"], d["bytes"], d["files"], d["directories"]) == \
    ("revperf-gc/2", True, 6600, 5, 5), d
assert (d["recent"], d["recent_directories"], d["in_use"], d["failed"]) == (0, 1, 0, 0), d
PY
expect_grep 'kept 1 folder of profiles/ or dynamic/ no stored result needs' err.txt
snapshot after.txt
cmp -s before.txt after.txt || fail "dry run removed something: $(diff before.txt after.txt)"

# The text: what, why and how much.
expect_exit 0 "$REVPERF" gc --dry-run
expect_grep '^would remove profiles .*/profiles/(store-[0-9a-f]+/)?9001 \(no stored result needs it\): 3.91 KiB, 2 files, 2 directories$' out.txt
expect_grep '^would remove dynamic data .*/dynamic/0123456789ab/write \(no stored result needs it\): 2.44 KiB, 2 files, 1 directory$' out.txt
expect_grep '^would remove dynamic data directory .*/dynamic/0123456789ab \(emptied\)$' out.txt
expect_grep "^would remove dynamic data .*/dynamic/$sha/other \\(no stored result needs it\\): 100 B, 1 file, 1 directory\$" out.txt
expect_grep '^would free 6.45 KiB, 5 files, 5 directories \(dry run: nothing removed\)$' out.txt

# gc: removes exactly them.
expect_exit 0 "$REVPERF" gc
snapshot after.txt
diff before.txt after.txt | grep '^[<>]' >removed.txt || true
sed 's/^< //' removed.txt | sort >got.txt
printf '%s\n' ./dynamic/0123456789ab ./dynamic/0123456789ab/write \
	./dynamic/0123456789ab/write/callgrind.out.7 ./dynamic/0123456789ab/write/run.log \
	"./dynamic/$sha/other" "./dynamic/$sha/other/run.log" "./$rprof/9001" \
	"./$rprof/9001/attribution.json" "./$rprof/9001/write" "./$rprof/9001/write/run-1.cct" |
	sort >want.txt
cmp -s got.txt want.txt || fail "not exactly the orphans removed: $(diff want.txt got.txt)"
[ -f "$prof/$id/write/flame.svg" ] && [ -f "$prof/9002/write/run-1.cct" ] &&
	[ -f "$prof/9003/x" ] && [ -f "$prof/notes/readme" ] &&
	[ -f "$state/dynamic/$sha/write/callgrind.out.1" ] && [ -f "$state/ci/junit.xml" ] &&
	[ -f "$state/report/index.html" ] || fail "gc removed what it must keep"

# --older-than 0s: the worktrees go, the folders whose owner is stored stay.
expect_exit 0 "$REVPERF" gc --older-than 0s
expect_grep '^removed worktree ' out.txt
expect_no_grep '^removed (profiles|dynamic)' out.txt
[ -f "$prof/$id/write/flame.svg" ] && [ -f "$state/dynamic/$sha/write/callgrind.out.1" ] ||
	fail "--older-than removed a folder whose owner is stored"

# profiles/ or dynamic/ as a link out of the state directory: refused, not followed.
mkdir ../elsewhere && head -c 10 /dev/zero >../elsewhere/keep
mv "$state/dynamic" ../dynamic.moved
ln -s "$PWD/../elsewhere" "$state/dynamic"
expect_exit 3 "$REVPERF" gc
expect_grep "dynamic is not a directory \(a symbolic link\?\)" err.txt
[ -f ../elsewhere/keep ] || fail "gc followed a link"
