# bench/predict_drop_window.py STORE_COPY COMMITS_FILE
# Deletes from a COPY of a revperf SQLite store (sqlite3 STORE ".backup COPY") the
# comparisons whose target is one of the commits listed in COMMITS_FILE (one sha a line,
# e.g. `git rev-list --first-parent A..B`), with their verdicts, comparison plans,
# counted-run profiles and runs (the values, counters and logs of those runs go with them);
# builds and dynamic data stay. `revperf train` on the copy then trains on the other
# window(s) alone (bench/RESULTS.md, "A longer Lua history"). Never run it on a store
# that is still in use.
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA foreign_keys=ON")
shas = [l.strip() for l in open(sys.argv[2]) if l.strip()]
db.execute("CREATE TEMP TABLE drop_sha(sha TEXT PRIMARY KEY)")
db.executemany("INSERT INTO drop_sha VALUES (?)", [(s,) for s in shas])
ids = [r[0] for r in db.execute("""
  SELECT c.id FROM comparisons c JOIN builds b ON b.id = c.target_build
  JOIN revisions r ON r.id = b.revision_id WHERE r.sha IN (SELECT sha FROM drop_sha)""")]
print(sys.argv[1], "dropping", len(ids), "comparisons of", len(shas), "commits")
q = ",".join(map(str, ids)) or "NULL"
for t in ("verdicts", "comparison_plans"):
    print("  ", t, db.execute(f"DELETE FROM {t} WHERE comparison_id IN ({q})").rowcount)
print("   profiles", db.execute(f"DELETE FROM profiles WHERE comparison_id IN ({q})").rowcount)
print("   runs", db.execute(f"DELETE FROM runs WHERE comparison_id IN ({q})").rowcount)
print("   comparisons", db.execute(f"DELETE FROM comparisons WHERE id IN ({q})").rowcount)
db.commit()
db.execute("VACUUM")
