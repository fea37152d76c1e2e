import json, sys
# pairs: (stage index of measurement, stage index of show) 1-based
f = sys.argv[1]; pairs = [tuple(map(int, p.split(':'))) for p in sys.argv[2:]]
rows = [json.loads(l) for l in open(f)]
for a, b in pairs:
    bad = [(i, r[a-1], r[b-1]) for i, r in enumerate(rows)
           if any(r[a-1].get(k) != r[b-1].get(k) for k in ("v", "ci", "lvl", "n"))]
    print(f"{f} measured stage {a} vs show stage {b}: {len(bad)} of {len(rows)} differ")
    for x in bad[:3]: print("  ", x)
