#!/usr/bin/env python3
"""A/A harness: repeat a sequence of revperf compare stages on a repo whose benchmark
prints a random value from the same distribution on both sides; count worse/better.
usage: aa.py NAME REPS 'stage args' ['stage args' ...]   (stage 'show' = revperf show)"""
import json, os, shutil, subprocess, sys, shlex
R = os.environ.get("REVPERF", "/work/wt-trust/build/revperf")
REPO = os.environ.get("REPO", "/tmp/trust-review/repo")
name, reps, stages = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
base = f"/tmp/trust-review/state-{name}"
log = open(f"/tmp/trust-review/{name}.jsonl", "w")
ever = [0] * len(stages); any_false = 0; final_false = 0
for rep in range(reps):
    sd = f"{base}"
    shutil.rmtree(sd, ignore_errors=True)
    row = []
    for i, st in enumerate(stages):
        args = shlex.split(st)
        if args and args[0].startswith("show"):
            which = ["a", "b"] if args[0] == "show" else [str(row[int(args[0][4:]) - 1]["id"])]
            cmd = [R, "show"] + which + ["-f", "json", "--state-dir", sd] + args[1:]
        else:
            cmd = [R, "compare", "a", "b", "-q", "-f", "json", "--state-dir", sd] + args
        p = subprocess.run(["nice"] + cmd, cwd=REPO, capture_output=True, text=True)
        try:
            d = json.loads(p.stdout); b = d["benchmarks"][0]
            m = [m for m in b["metrics"] if m["name"] == os.environ.get("METRIC", "v")][0]
            r = dict(id=d.get("comparison_id"), rc=p.returncode, v=m["verdict"], ci=m["ci"], lvl=b["ci_level"],
                     n=(b["runs"]["baseline"]["ok"], b["runs"]["target"]["ok"]),
                     looks=b["looks"], ext=b["extended_looks"], decided=b.get("decided"))
        except Exception as e:
            r = dict(rc=p.returncode, err=p.stderr[-300:])
        row.append(r)
    log.write(json.dumps(row) + "\n"); log.flush()
    fl = [r.get("v") in ("worse", "better") for r in row]
    for i, f in enumerate(fl):
        ever[i] += f
    any_false += any(fl); final_false += fl[-1]
print(f"{name}: reps {reps}; false per stage {ever}; any stage {any_false}; last stage {final_false}")
