# import --rev: hyperfine and Google Benchmark results stored as a revision's results in
# .revperf/revperf.db (build, benchmark, one run per sample, values), replaced on re-import.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v hyperfine >/dev/null || fail "hyperfine is not installed (scripts/install-deps.sh installs it)"
D="$SRCDIR/tests/data/import"

make_tiny_repo repo
cd repo
echo change >>work.sh && git commit -qam second && git tag second
hyperfine -N --runs 10 --style none --export-json ../a.json 'sleep 0.01' >/dev/null 2>&1 ||
	fail "hyperfine failed"

expect_exit 0 "$REVPERF" import --rev base ../a.json
expect_grep '^imported \.\./a\.json \(hyperfine\): 1 benchmark, 10 runs as results of [0-9a-f]{12} \(base\)$' out.txt
expect_one_line out.txt
expect_exit 0 "$REVPERF" import --rev second "$D/gbench_slow.json"
expect_grep '4 benchmarks, 18 runs as results of .* \(second\); 1 run excluded$' out.txt

check() { # python3 assertions on the database, with `db`, `base` and `second` (shas)
	python3 - .revperf/revperf.db "$(git rev-parse base)" "$(git rev-parse second)" ../a.json "$1" <<'PY' ||
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
base, second, a_json = sys.argv[2], sys.argv[3], sys.argv[4]
q = lambda sql, *args: db.execute(sql, args).fetchall()
exec(sys.argv[5])
PY
		fail "database check failed: $1"
}
check '
[(bid, status)] = q("SELECT b.id, b.status FROM builds b JOIN revisions r ON r.id = b.revision_id WHERE r.sha = ? AND b.command = ?", base, "import:hyperfine:a.json")
assert status == "ok"
[(bench,)] = q("SELECT id FROM benchmarks WHERE name = ? AND command = ?", "sleep 0.01", "import:hyperfine")
runs = q("SELECT id, status, side, warmup, comparison_id, machine_id FROM runs WHERE build_id = ? AND benchmark_id = ?", bid, bench)
assert len(runs) == 10, runs
assert all(r[1:5] == ("ok", "A", 0, None) for r in runs), runs
assert q("SELECT count(*) FROM machines WHERE id = ?", runs[0][5]) == [(1,)]
values = [v for (v,) in q("SELECT v.value FROM metric_values v JOIN runs r ON r.id = v.run_id WHERE r.build_id = ? AND v.metric = ? ORDER BY r.id", bid, "wall")]
assert values == json.load(open(a_json))["results"][0]["times"], values
'
check '
[(bid,)] = q("SELECT b.id FROM builds b JOIN revisions r ON r.id = b.revision_id WHERE r.sha = ? AND b.command = ?", second, "import:gbench:gbench_slow.json")
names = sorted(n for (n,) in q("SELECT DISTINCT k.name FROM runs r JOIN benchmarks k ON k.id = r.benchmark_id WHERE r.build_id = ?", bid))
assert names == ["BM_Copy/64", "BM_Hash", "BM_New", "BM_Sort/1024"], names
n = q("SELECT count(*) FROM runs r JOIN benchmarks k ON k.id = r.benchmark_id WHERE r.build_id = ? AND k.name = ?", bid, "BM_Sort/1024")
assert n == [(5,)], n
rt = q("SELECT v.value FROM metric_values v JOIN runs r ON r.id = v.run_id JOIN benchmarks k ON k.id = r.benchmark_id WHERE r.build_id = ? AND k.name = ? AND v.metric = ? ORDER BY r.id", bid, "BM_Sort/1024", "real_time")
assert abs(rt[0][0] - 62400e-9) < 1e-12, rt          # ns converted to seconds
ctr = q("SELECT count(*) FROM metric_values v JOIN runs r ON r.id = v.run_id WHERE r.build_id = ? AND v.metric = ?", bid, "bytes_per_second")
assert ctr == [(5,)], ctr
assert q("SELECT count(*) FROM runs WHERE build_id = ? AND status <> ?", bid, "ok") == [(0,)]
'

# Importing the same file again replaces the earlier import (no doubled samples).
expect_exit 0 "$REVPERF" import --rev base ../a.json
expect_grep 'replaces the earlier import of this file' out.txt
check '
assert q("SELECT count(*) FROM runs r JOIN builds b ON b.id = r.build_id WHERE b.command = ?", "import:hyperfine:a.json") == [(10,)]
assert q("SELECT count(*) FROM builds WHERE command LIKE ?", "import:%") == [(2,)]
'
# Several files at once, and --state-dir.
expect_exit 0 "$REVPERF" import --rev HEAD ../a.json "$D/gbench_base.json" --state-dir ../st -q
[ ! -s out.txt ] || fail "-q printed a summary"
python3 -c "
import sqlite3; db = sqlite3.connect('../st/revperf.db')
assert db.execute('SELECT count(*) FROM builds').fetchone() == (2,)
assert db.execute('SELECT count(*) FROM runs').fetchone() == (10 + 15,)
" || fail "--state-dir import"
echo ok
