#!/usr/bin/env python3
# bench/predict_separation.py STORE PREDICT_DIR
# How well each indicator value separates a stored history's hits from its misses, each
# alone and in sample (bench/RESULTS.md, "Perphecy: an estimate of the changed cost"):
# the AUC, and the share of misses dismissed by the one threshold that keeps 90%, 95% and
# 100% of the hits. Reads the newest common predictor's tuples (revperf train stores them),
# the static data cache (PREDICT_DIR = STATE_DIR/predict, its `M delta name` lines) and the
# dynamic profiles (exclusive cost per function) of STORE, a SQLite store; computes the
# changed cost's estimate (Est Cost Chg, ppm) itself, so that it works on stores trained
# before the template existed. Read-only.
import glob, json, math, re, sqlite3, sys

if len(sys.argv) != 3:
    sys.exit("usage: bench/predict_separation.py STORE PREDICT_DIR")
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
row = db.execute("select tuples from predictors where scope = 'common' order by id desc").fetchone()
if not row:
    sys.exit("%s: no stored predictor: run revperf train first" % sys.argv[1])
tuples = json.loads(row[0])
static = {}
for f in glob.glob(sys.argv[2] + "/static-*.txt"):
    lines = open(f).read().split("\n")
    shas = re.findall(r"worktrees/([0-9a-f]{40})", lines[1]) if len(lines) > 1 else []
    if len(shas) != 2:
        continue
    mods = {}
    for l in lines:
        if l.startswith("M "):
            _, d, name = l.split(" ", 2)
            mods[name] = max(mods.get(name, 0.0), float(d))
    static[(shas[0], shas[1])] = mods
prof = {}
for pid, sha, bench in db.execute(
        "select p.id, r.sha, b.name from dynamic_profiles p join builds bu on bu.id = p.build_id "
        "join revisions r on r.id = bu.revision_id join benchmarks b on b.id = p.benchmark_id"):
    prof[(sha, bench)] = pid
rows, skipped = [], 0
for t in tuples:
    mods, pid = static.get((t["ancestor"], t["commit"])), prof.get((t["ancestor"], t["bench"]))
    if mods is None or pid is None:
        skipped += 1
        continue
    fn = dict(db.execute("select name, cost from dynamic_functions where profile_id = ?", (pid,)))
    total = sum(fn.values())
    reached = [n for n in mods if fn.get(n, 0) > 0]
    est = 1e4 * sum(fn[n] * mods[n] for n in reached) / total if reached and total else None
    rows.append((t["hit"], est, t["values"]))
print("%d tuples (%d hits), %d without static or dynamic data left out" %
      (len(rows), sum(r[0] for r in rows), skipped))
RANKS = ("top_chg_by_instr", "top_chg_by_call", "top_call_chg_10")
def key(r, k):  # larger = more likely a hit; no value = never fires
    v = r[1] if k == "est_cost_chg" else r[2].get(k)
    if v is None:
        return -math.inf
    return -v if k in RANKS else v
print("%-20s %6s %9s %9s %9s" % ("indicator", "AUC", "dis@0.90", "dis@0.95", "dis@1.00"))
for k in ("est_cost_chg",) + RANKS + ("top_reached_chg_len", "top_chg_len", "del_func", "new_func"):
    h = sorted(key(r, k) for r in rows if r[0])
    m = [key(r, k) for r in rows if not r[0]]
    if not h or not m:
        continue
    auc = sum((a > b) + 0.5 * (a == b) for a in h for b in m) / len(h) / len(m)
    dis = []
    for q in (0.90, 0.95, 1.0):
        thr = h[len(h) - math.ceil(q * len(h))]
        dis.append(sum(v < thr for v in m) / len(m) if thr > -math.inf else 0.0)
    print("%-20s %6.3f %9.3f %9.3f %9.3f" % (k, auc, *dis))
