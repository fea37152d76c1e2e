#!/usr/bin/env python3
"""Reads profiles of librevperf_cct.so (docs/cct-format.md) and checks what the runtime
tests expect of each workload scenario. Usage: cct_check.py [none:]SCENARIO EXE FILE...
With "none:" the profiles must also be calls-only (clock none, every time 0: the run used
REVPERF_CCT_CLOCK=none). Exits non-zero with a message naming the file and what was
wrong."""
import subprocess
import sys


def fail(msg):
    sys.exit("cct_check: " + msg)


def load(path):
    prof = {"path": path, "maps": [], "threads": [], "reason": None, "clock": None}
    lines = open(path).read().split("\n")
    if lines[0] != "revperf-cct 1":
        fail(f"{path}:1: bad magic/version {lines[0]!r}")
    if lines[-1] != "" or lines[-2] != "end":
        fail(f"{path}: no end line")
    th = None
    for no, line in enumerate(lines[1:-2], 2):
        tag, _, rest = line.partition(" ")
        f = rest.split(" ")
        if tag == "pid":
            prof["pid"] = int(f[0])
        elif tag == "clock":
            if rest not in ("tsc", "monotonic", "none"):
                fail(f"{path}:{no}: unknown clock {rest!r}")
            prof["clock"] = rest
        elif tag == "reason":
            prof["reason"] = rest
        elif tag == "map":
            prof["maps"].append(rest)
        elif tag == "thread":
            th = {"tid": int(f[0]), "n": int(f[1]), "truncated": int(f[2]),
                  "lost": int(f[3]), "depth": int(f[4]), "nodes": []}
            prof["threads"].append(th)
        elif tag == "n":
            i, parent, calls, incl, excl = int(f[0]), int(f[1]), int(f[4]), int(f[5]), int(f[6])
            if i != len(th["nodes"]) or (i and parent >= i):
                fail(f"{path}:{no}: node ids out of order")
            if incl < excl:
                fail(f"{path}:{no}: inclusive < exclusive")
            th["nodes"].append({"id": i, "parent": parent, "fn": int(f[2], 16),
                                "site": int(f[3], 16), "calls": calls, "incl": incl,
                                "excl": excl})
        elif tag not in ("ppid", "exe"):
            fail(f"{path}:{no}: unknown record {tag!r}")
    for t in prof["threads"]:
        if t["n"] != len(t["nodes"]):
            fail(f"{path}: thread {t['tid']} announces {t['n']} nodes, has {len(t['nodes'])}")
        kids = {}
        for n in t["nodes"][1:]:
            kids[n["parent"]] = kids.get(n["parent"], 0) + n["incl"]
        for p, s in kids.items():
            if s > t["nodes"][p]["incl"]:
                fail(f"{path}: children of node {p} have more inclusive time than it")
    return prof


def symbolizer(exe, prof):
    out = subprocess.run(["nm", "--defined-only", exe], capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "tTwW":
            syms[int(p[0], 16)] = p[2]
    base = None
    for m in prof["maps"]:
        p = m.split()
        if len(p) >= 6 and p[5].endswith(exe.split("/")[-1]) and int(p[2], 16) == 0:
            base = int(p[0].split("-")[0], 16)
            break
    if base is None:
        fail(f"{prof['path']}: no map line for {exe}")
    pie = subprocess.run(["readelf", "-h", exe], capture_output=True, text=True).stdout
    if "EXEC (" in pie:
        base = 0
    return lambda a: syms.get(a - base, hex(a))


def tree(prof, exe, thread):
    """Returns [(path of names, node)] of one thread."""
    name = symbolizer(exe, prof)
    nodes = thread["nodes"]
    paths = {0: ()}
    out = []
    for n in nodes[1:]:
        paths[n["id"]] = paths[n["parent"]] + (name(n["fn"]),)
        out.append((paths[n["id"]], n))
    return out


def by_path(t):
    d = {}
    for p, n in t:
        d.setdefault(p, []).append(n)
    return d


def expect(cond, msg):
    if not cond:
        fail(msg)


def main():
    scenario, exe, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    profs = [load(f) for f in files]
    if scenario.startswith("none:"):
        scenario = scenario[len("none:"):]
        for p in profs:
            expect(p["clock"] == "none", f"{p['path']}: clock {p['clock']}, expected none")
            expect(all(n["incl"] == 0 and n["excl"] == 0 for t in p["threads"]
                       for n in t["nodes"]), f"{p['path']}: calls only, yet times")
    else:
        for p in profs:
            expect(p["clock"] in ("tsc", "monotonic"), f"{p['path']}: clock {p['clock']}")
    if scenario == "calls":
        n = 1000
        (p,) = profs
        expect(len(p["threads"]) == 1, "one thread expected")
        t = tree(p, exe, p["threads"][0])
        d = by_path(t)
        expect(len(t) == 5, f"5 nodes expected, got {[x[0] for x in t]}")
        expect([x["calls"] for x in d[("main",)]] == [1], "main called once")
        expect([x["calls"] for x in d[("main", "a")]] == [1], "a called once")
        bs = d[("main", "a", "b")]
        expect(sorted(x["calls"] for x in bs) == [1, n], f"b: two call sites, {n} and 1 calls")
        expect(bs[0]["site"] != bs[1]["site"], "b's two nodes have distinct call sites")
        expect([x["calls"] for x in d[("main", "c")]] == [1], "c called once under main")
        expect(p["reason"] == "exit", "reason exit")
    elif scenario == "threads":
        (p,) = profs
        expect(len(p["threads"]) == 3, f"3 threads expected, got {len(p['threads'])}")
        tops = sorted(tuple(sorted(x[0][0] for x in tree(p, exe, th) if len(x[0]) == 1))
                      for th in p["threads"])
        expect(tops == [("main",), ("worker_one",), ("worker_two",)], f"thread roots {tops}")
        for th in p["threads"]:
            d = by_path(tree(p, exe, th))
            if ("worker_one",) in d:
                expect(sum(x["calls"] for x in d[("worker_one", "a", "b")]) == 11, "b 11 calls")
    elif scenario == "fork":
        expect(len(profs) == 2, f"two files expected, got {len(profs)}")
        expect(profs[0]["pid"] != profs[1]["pid"], "distinct pids")
        names = []
        for p in profs:
            expect(len(p["threads"]) == 1, "one thread per process")
            names.append({x[0][-1] for x in tree(p, exe, p["threads"][0])})
        child = [s for s in names if "child_work" in s]
        parent = [s for s in names if "parent_work" in s]
        expect(len(child) == 1 and len(parent) == 1, f"one child and one parent: {names}")
        expect("parent_work" not in child[0] and "child_work" not in parent[0],
               "the child's tree holds only what the child did")
    elif scenario == "longjmp":
        (p,) = profs
        d = by_path(tree(p, exe, p["threads"][0]))
        expect(("main", "jumper", "after_jump", "leaf") in d, f"after_jump under jumper: {list(d)}")
        expect(("main", "c") in d, "c under main after the longjmp")
        expect(("main", "jumper", "deep") + ("deep",) * 20 in d, "the abandoned deep chain")
        expect(all(len(k) <= 23 for k in d), "nothing attached below the abandoned frames")
    elif scenario == "throw":
        (p,) = profs
        d = by_path(tree(p, exe, p["threads"][0]))
        outer = [k for k in d if "thrower_outer" in k[-1]]
        after = [k for k in d if "after_catch" in k[-1]]
        expect(len(after) == 1 and len(after[0]) == 2 and after[0][0] == "main",
               f"after_catch directly under main: {after}")
        # An unrolled loop gives one call site (one node) per iteration.
        expect(all(len(k) == 2 for k in outer) and
               sum(n["calls"] for k in outer for n in d[k]) == 3, "thrower_outer 3 calls")
        inner = [k for k in d if "thrower_inner" in k[-1]]
        expect(max(len(k) for k in inner) == 13, "thrower_inner 11 deep")
    elif scenario == "recurse":
        (p,) = profs
        th = p["threads"][0]
        expect(th["truncated"] == 1 and th["lost"] > 0, "deep recursion marks truncated")
        d = by_path(tree(p, exe, th))
        expect(("main", "c") in d, "c under main after the recursion")
        expect(len(th["nodes"]) < 20000, "no nodes beyond the shadow stack bound")
    elif scenario == "segv":
        (p,) = profs
        expect(p["reason"] == "signal 11", f"reason {p['reason']}")
        d = by_path(tree(p, exe, p["threads"][0]))
        expect(("main", "crash") in d, "crash recorded")
    elif scenario == "exit":
        (p,) = profs
        d = by_path(tree(p, exe, p["threads"][0]))
        expect(("main",) + ("quit_deep",) * 6 in d, "frames open at exit() recorded")
    elif scenario == "exec":
        expect(len(profs) == 2 and profs[0]["pid"] == profs[1]["pid"], "two files, one pid")
        reasons = sorted(p["reason"] for p in profs)
        expect(reasons == ["exec", "exit"], f"reasons {reasons}")
        for p in profs:
            names = {x[0][-1] for x in tree(p, exe, p["threads"][0])}
            if p["reason"] == "exec":
                expect("before_exec" in names and "a" not in names, f"before exec: {names}")
            else:
                expect("a" in names and "before_exec" not in names, f"after exec: {names}")
    else:
        fail("unknown scenario " + scenario)


main()
