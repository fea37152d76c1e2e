#!/usr/bin/env python3
"""A/A with interrupts: stages as in aa.py; a stage 'INT <args>' starts compare and sends
SIGINT to that revperf PID (ours) after a random delay of 0.05-0.6 s."""
import json, os, random, shutil, signal, subprocess, sys, shlex, time
R = os.environ.get("REVPERF", "/work/wt-trust/build/revperf")
REPO = os.environ.get("REPO", "/tmp/trust-review/repo")
name, reps, stages = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
sd = f"/tmp/trust-review/state-{name}"
log = open(f"/tmp/trust-review/{name}.jsonl", "w")
ever = [0] * len(stages); any_false = 0; final_false = 0
def parse(out, rc, err):
    try:
        d = json.loads(out); b = d["benchmarks"][0]
        m = [m for m in b["metrics"] if m["name"] == "v"][0]
        return dict(id=d.get("comparison_id"), rc=rc, v=m["verdict"], ci=m["ci"], lvl=b["ci_level"],
                    n=(b["runs"]["baseline"]["ok"], b["runs"]["target"]["ok"]),
                    looks=b["looks"], ext=b["extended_looks"], decided=b.get("decided"),
                    interrupted=d.get("interrupted"))
    except Exception:
        return dict(rc=rc, err=err[-300:])
for rep in range(reps):
    shutil.rmtree(sd, ignore_errors=True)
    row = []
    for st in stages:
        args = shlex.split(st)
        intr = args and args[0] == "INT"
        if intr: args = args[1:]
        if args and args[0].startswith("show"):
            cmd = [R, "show", "a", "b", "-f", "json", "--state-dir", sd] + args[1:]
        else:
            cmd = [R, "compare", "a", "b", "-q", "-f", "json", "--state-dir", sd] + args
        p = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if intr:
            time.sleep(random.uniform(0.05, 0.6))
            try: os.kill(p.pid, signal.SIGINT)
            except ProcessLookupError: pass
        out, err = p.communicate()
        r = parse(out, p.returncode, err); r["int"] = bool(intr); row.append(r)
    log.write(json.dumps(row) + "\n"); log.flush()
    fl = [r.get("v") in ("worse", "better") and r.get("rc") != 130 for r in row]
    fl = [r.get("v") in ("worse", "better") for r in row]
    for i, f in enumerate(fl): ever[i] += f
    any_false += any(fl); final_false += fl[-1]
print(f"{name}: reps {reps}; false per stage {ever}; any stage {any_false}; last stage {final_false}")
