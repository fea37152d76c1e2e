# Every command's JSON, produced by real runs, validated against docs/schema/ with a real
# validator (python3-jsonschema); a document with one value of the wrong type is rejected.
# Also submit, worker and queue, bisect, chart, profile (--counters, --sample, --io, --cct), compare's attribution,
# counted, io and counters sections, attribution.json, train and predict (on the dynamic
# data that compare with profile = cct stores). --sample is left out where perf_event_open
# is refused, counted without valgrind, --cct and what follows from it without the CCT
# runtime.
. "$SRCDIR/tests/cli/lib/common.bash"
python3 -c 'import jsonschema' 2>/dev/null ||
	fail "python3-jsonschema is not installed (scripts/install-deps.sh installs it)"
SCHEMAS="$SRCDIR/docs/schema"
mkdir docs

# keep NAME: the last command's stdout is a document of NAME's schema.
keep() { cp out.txt "docs/$1.json"; }
# verdict_exit CMD...: wall time decides these: worse (1) or not (0), both fine here.
verdict_exit() {
	local got=0
	"$@" >out.txt 2>err.txt || got=$?
	[ "$got" = 0 ] || [ "$got" = 1 ] || { cat err.txt; fail "exit $got: $*"; }
}

# --cmd-a/--cmd-b: deterministic commands, a failing run on the target side.
expect_exit 1 "$REVPERF" compare --cmd-a 'true' --cmd-b 'sh -c "exit 3"' --runs 3..3 \
	--metrics wall,wchar -f json -q
keep compare
expect_exit 0 "$REVPERF" compare --cmd-a 'echo a' --cmd-b 'echo b' --runs 3..3 \
	--metrics wchar,maxrss -f json -q
keep compare-cmd
# The error document.
expect_exit 2 "$REVPERF" compare --cmd-a true --cmd-b true --runs 3..3 --tolerance 2 -f json
keep error

# A tiny git repo: compare, history, ci, run, report.
make_tiny_repo repo
cd repo
printf 'echo more\n' >>work.sh && git commit -qam second
verdict_exit "$REVPERF" compare base HEAD --runs 3..3 --metrics wchar,wall -f json -q
cp out.txt ../docs/compare-git.json
verdict_exit "$REVPERF" history base..HEAD --runs 3..3 -f json -q
cp out.txt ../docs/history.json
# The queue: a job submitted, run by a worker, shown (docs/team.md).
expect_exit 0 "$REVPERF" submit compare base HEAD -f json -- --runs 3..3
cp out.txt ../docs/submit.json
expect_exit 0 "$REVPERF" worker --once --machine schema -f json -q
cp out.txt ../docs/worker.json
expect_exit 0 "$REVPERF" queue -f json
cp out.txt ../docs/queue.json
verdict_exit "$REVPERF" ci --base base --summary s.md --junit j.xml --runs 3..3 -f json -q
cp out.txt ../docs/ci.json
expect_exit 0 "$REVPERF" run -f json -q
cp out.txt ../docs/run.json
expect_exit 0 "$REVPERF" report -o site -f json -q
cp out.txt ../docs/report.json
mkdir -p .revperf/worktrees/0123456789abcdef0123456789abcdef01234567
expect_exit 0 "$REVPERF" gc --dry-run -f json
cp out.txt ../docs/gc-dry.json
expect_exit 0 "$REVPERF" gc --older-than 0s -f json
cp out.txt ../docs/gc.json
cd ..

# diff of two folded profiles, bindiff of two programs.
printf 'main;parse 10\nmain;compute 20\n' >old.folded
printf 'main;parse 10\nmain;compute 60\nmain;fast 5\n' >new.folded
expect_exit 1 "$REVPERF" diff -f json old.folded new.folded
keep diff
printf 'int f(int x) { return x + 1; }\nint main(void) { return f(0) - 1; }\n' >a.c
printf 'int f(int x) { return x * 3 + 1; }\nint main(void) { return f(0) - 1; }\n' >b.c
cc -O0 -g -o a a.c && cc -O0 -g -o b b.c || fail "cannot compile"
expect_exit 1 "$REVPERF" bindiff -f json a b
keep bindiff

# import: a hyperfine export written by hand (deterministic values).
cat >hf.json <<'JSON'
{"results": [{"command": "prog", "mean": 0.1, "stddev": 0.01, "median": 0.1, "user": 0.05,
  "system": 0.01, "min": 0.09, "max": 0.11, "times": [0.09, 0.1, 0.11],
  "exit_codes": [0, 0, 0]}]}
JSON
cd repo
expect_exit 0 "$REVPERF" import --rev base -f json ../hf.json
cp out.txt ../docs/import.json
cd ..

# bisect over the tiny repo from the second commit (it writes: wchar, the bytes written,
# decides exactly): a neutral commit, then one that writes more, the culprit.
cd repo
printf '# neutral\n' >>work.sh && git commit -qam third
printf 'echo again\n' >>work.sh && git commit -qam fourth
expect_exit 0 "$REVPERF" bisect HEAD~2 HEAD --bench spin --metric wchar \
	--runs 3..3 -f json -q
cp out.txt ../docs/bisect.json
cd ..

# profile --counters twice, and chart of the two series.
cat >spin.c <<'EOF'
#include <stdlib.h>
/* spin N: N units of a million iterations, each in a call of unit() */
__attribute__((noinline)) unsigned long unit(unsigned long x)
{
	for (volatile unsigned long i = 0; i < 1000000UL; i++)
		x += i;
	return x;
}
int main(int argc, char **argv)
{
	unsigned long x = 0;
	for (long n = argc > 1 ? atol(argv[1]) : 0; n > 0; n--)
		x = unit(x);
	return (int)(x & 0);
}
EOF
cc -O1 -g -o spin spin.c || fail "cannot compile"
expect_exit 0 "$REVPERF" profile --counters --interval 10ms -d ca -f json -- ./spin 200
keep profile-counters
expect_exit 0 "$REVPERF" profile --counters --interval 10ms -d cb -- ./spin 200
got=0
"$REVPERF" chart -f json --runs --baseline ca/run-1.csv --target cb/run-1.csv >out.txt 2>err.txt ||
	got=$?
[ "$got" = 0 ] || [ "$got" = 1 ] || { cat err.txt; fail "chart: exit $got"; }
keep chart

# profile --sample (where perf_event_open is allowed).
if "$REVPERF" profile --sample -f json -- ./spin 50 >out.txt 2>err.txt; then
	keep profile-sample
else
	grep -q "cannot sample here" err.txt || { cat err.txt; fail "profile --sample"; }
	echo "profile --sample skipped: perf_event_open refused on this machine"
fi

# profile --io of writes and reads (traced with ptrace), and diff of two I/O profiles.
expect_exit 0 "$REVPERF" profile --io --reads -d io1 -f json -- sh -c 'echo hi >f; cat f'
keep profile-io
expect_exit 0 "$REVPERF" profile --io -d io2 -- sh -c 'echo hello >f; echo x >f'
expect_exit 1 "$REVPERF" diff -f json io1/run-1.io.json io2/run-1.io.json
keep diff-io

# compare's profile sections from --cmd-a/--cmd-b runs of spin: io, sample (where allowed),
# ir counted under callgrind (counted), and apart from them counters (runs long enough to
# be sampled every 100 ms: spin 150 took 40 ms on an idle machine, and no sample was taken).
kinds=io metrics=wall
[ -s docs/profile-sample.json ] && kinds=io,sample
command -v valgrind >/dev/null && metrics=wall,ir
verdict_exit "$REVPERF" compare --cmd-a './spin 5' --cmd-b './spin 8' --runs 3..3 --metrics "$metrics" \
	--profile "$kinds" --profile-runs 2 -f json -q
keep compare-profiles
# An attribution that failed says why on stderr, which the schema check below cannot show
# (CI once saw "the profiles of side A cannot be read (see the error above)" under ASan).
attr_err=$(json_get out.txt "(d['benchmarks'][0].get('attribution') or {}).get('error')")
[ "$attr_err" = None ] || { cat err.txt; ls -la .revperf/profiles/*/* 2>&1 | head -20; fail "compare's attribution: $attr_err"; }
verdict_exit "$REVPERF" compare --cmd-a './spin 1500' --cmd-b './spin 1500' --runs 3..3 --metrics wall \
	--profile counters -f json -q
keep compare-counters

# profile --cct (with the CCT runtime).
if [ -e "$BUILDDIR/runtime/librevperf_cct.so" ]; then
	cc -O1 -g -finstrument-functions -o spin-cct spin.c || fail "cannot compile"
	expect_exit 0 "$REVPERF" profile --cct -f json -- ./spin-cct 20
	keep profile-cct
	# compare with profile = cct: attribution.json beside the flame graph, and the profiled
	# runs become the dynamic data of both builds (train, predict).
	mkdir proj && cd proj
	git init -q . && git config user.email t@example.com && git config user.name test
	cp "$SRCDIR/tests/workloads/cct_versions.c" prog.c
	cat >revperf.ini <<'INI'
[build]
command = cc -O2 -o prog prog.c
profile-command = cc -O2 -g -finstrument-functions -o prog prog.c
[benchmark "versions"]
command = ./prog 300
metrics = wchar
primary = wchar
runs = 2..2
warmup = 0
profile = cct
profile-runs = 2
INI
	git add . && git commit -qm v1 && git tag v1
	sed -i 's/^#define VERSION 1$/#define VERSION 2/' prog.c
	git commit -qam v2 && git tag v2
	verdict_exit "$REVPERF" compare -q -f json v1 v2
	cp out.txt ../docs/compare-cct.json
	cp "$(ls .revperf/profiles/*/versions/attribution.json | head -n 1)" ../docs/attribution.json ||
		fail "no attribution.json"
	expect_exit 0 "$REVPERF" train -f json
	cp out.txt ../docs/train.json
	expect_exit 0 "$REVPERF" train -f json --dry-run --dismiss-goal 85% --templates auto
	cp out.txt ../docs/train-goal.json
	expect_exit 0 "$REVPERF" predict v2 -f json
	cp out.txt ../docs/predict.json
	cd ..
else
	echo "profile --cct, compare with profile = cct, train, predict skipped: no CCT runtime"
fi

python3 - "$SCHEMAS" docs <<'PY' || fail "a document does not match its schema"
import json, os, sys, copy
import warnings
warnings.simplefilter("ignore", DeprecationWarning)
import jsonschema
sdir, ddir = sys.argv[1], sys.argv[2]
store = {}
for f in os.listdir(sdir):
    s = json.load(open(os.path.join(sdir, f)))
    jsonschema.Draft202012Validator.check_schema(s)
    store[s["$id"]] = s

def validator(name):
    s = store["https://revperf.dev/schema/%s.schema.json" % name]
    res = jsonschema.RefResolver(s["$id"], s, store=store)
    return jsonschema.Draft202012Validator(s, resolver=res)

bad = 0
for f in sorted(os.listdir(ddir)):
    d = json.load(open(os.path.join(ddir, f)))
    name = d["schema"].split("/")[0][len("revperf-"):]
    errs = list(validator(name).iter_errors(d))
    for e in errs[:5]:
        print("%s: %s at %s" % (f, e.message[:200], "/".join(map(str, e.absolute_path))))
    bad += bool(errs)
    print("%s: %s" % (f, "INVALID" if errs else "valid"))
if bad:
    sys.exit(1)

# Strict enough to catch a regression: each mutation must be rejected.
c = json.load(open(os.path.join(ddir, "compare.json")))
m = c["benchmarks"][0]["metrics"][0]
assert c["benchmarks"][0]["commands"] == {"baseline": "true", "target": 'sh -c "exit 3"'}, c
ends = c["benchmarks"][0]["run_list"]["target"]
assert ends and all(e["status"] == "failed" and e["exit_code"] == 3 for e in ends), ends
assert all(e["exit_code"] == 0 for e in c["benchmarks"][0]["run_list"]["baseline"])
assert len(m["values"]["baseline"]) == len(m["run_ids"]["baseline"]) == m["baseline"]["n"], m
assert m["verdict"] == "unmeasured" and m["target"]["mean"] is None, m   # null, never 0.0
def mutated(f):
    d = copy.deepcopy(c); f(d); return d
cases = {
    # (the baseline may have no run but its warm-up: the target broke first)
    "a value as a string": lambda d: d["benchmarks"][0]["metrics"][0]["values"].__setitem__("baseline", ["0.5"]),
    "schema as an integer": lambda d: d.__setitem__("schema", 3),
    "a run id missing": lambda d: d["benchmarks"][0]["run_list"]["target"][0].pop("run_id"),
    "an unknown key": lambda d: d["benchmarks"][0]["metrics"][0].__setitem__("mean", 0.0),
    "exit status as a string": lambda d: d["benchmarks"][0]["run_list"]["target"][0].__setitem__("exit_code", "3"),
    "median missing": lambda d: d["benchmarks"][0]["metrics"][0]["baseline"].pop("median"),
}
for what, f in cases.items():
    if validator("compare").is_valid(mutated(f)):
        print("not rejected: " + what); sys.exit(1)

# The same for the other documents, where this machine produced them.
def load(f):
    p = os.path.join(ddir, f + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
def setk(path, value):
    def f(d):
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value
    return f
def popk(path):
    def f(d):
        for k in path[:-1]:
            d = d[k]
        d.pop(path[-1])
    return f
def pop_charted_lcl(path):
    """The limits of the first counter that was charted (which one is depends on the runs:
    on a busy machine the first may have too few samples to be charted)."""
    def f(d):
        for k in path:
            d = d[k]
        charted = [c for c in d if c.get("lcl") is not None]
        if not charted:                       # none had enough samples: not produced here
            raise TypeError("no charted counter")
        charted[0].pop("lcl")
    return f
A = ["attribution"]
more = {
    "attribution": {
        "a class of no kind": setk(A + ["functions", 0, "class"], "bogus"),
        "calls missing in a function": popk(A + ["functions", 0, "target_calls"]),
        "calls in the total": setk(A + ["total", "baseline_calls"], 1.0),
        "three runs": setk(A + ["runs"], [3, 3, 3]),
        "a clock of no kind": setk(A + ["clock"], "cpu"),
    },
    "compare-cct": {
        "a change as a string (through $ref)": setk(["benchmarks", 0, "attribution", "absolute", "functions", 0, "change"], "1"),
        "a sampled attribution without its notes": setk(["benchmarks", 0, "attribution", "kind"], "sample"),
        "a tree without its contexts": popk(["benchmarks", 0, "attribution", "old", "contexts"]),
        "an unknown key in the attribution": setk(["benchmarks", 0, "attribution", "weights"], []),
    },
    "compare-profiles": {
        "io bytes without a mean": popk(["benchmarks", 0, "io", "bytes_per_run", "baseline", "mean"]),
        "io similarity grouping of no kind": setk(["benchmarks", 0, "io", "similarity", "grouping"], "file"),
        "counted runs of one side": setk(["benchmarks", 0, "counted", "runs"], [2]),
    },
    "compare-counters": {
        "filter on as a number": setk(["benchmarks", 0, "counters", "filter", "on"], 1),
        "a charted counter without its limits": pop_charted_lcl(["benchmarks", 0, "counters", "counters"]),
        "sampled runs missing": popk(["benchmarks", 0, "counters", "sampled_runs"]),
    },
    "bisect": {
        "found without the culprit": popk(["culprit"]),
        "three counts in a step": setk(["good_against_bad", "n"], [1, 2, 3]),
        "an outcome of no kind": setk(["outcome"], "maybe"),
    },
    "predict": {
        "a value as a string": setk(["benchmarks", 0, "values", "del_func"], "0"),
        "a tests-mode key in perphecy mode": setk(["benchmarks", 0, "trace"], "none"),
    },
    "train": {
        "left_out without undecided": popk(["left_out", "undecided"]),
        "indicators as an object": setk(["predictors", "common", "indicators"], {}),
    },
    "chart": {
        "a charted counter without its limits": pop_charted_lcl(["counters"]),
        "an unknown key": setk(["cpu"], 1),
    },
    "profile-counters": {"a count of samples not whole": setk(["counters", 0, "samples"], 1.5)},
    "profile-cct": {"a path as a string": setk(["by_inclusive", 0, "path"], "main")},
    "profile-sample": {"a tree without its contexts": popk(["tree", "contexts"])},
    "profile-io": {
        "a frame without its module": popk(["writes", "top_by_bytes", 0, "frames", 0, "module"]),
        "a direction of no kind": setk(["reads", "direction"], "both"),
    },
    "diff-io": {"a row's sc as a string": setk(["similarity", "rows", 0, "sc"], "0")},
}
# The sections the mutations reach are there, not errors (each possible on this machine).
b = load("compare-profiles")["benchmarks"][0]
assert b["io"] and b["io"]["error"] is None and b["io"]["similarity"], b["io"]
assert b["counted"] is None or b["counted"]["error"] is None, b["counted"]
assert b["attribution"] is None or b["attribution"]["error"] is None, b["attribution"]
b = load("compare-counters")["benchmarks"][0]
assert b["counters"] and b["counters"]["error"] is None and b["counters"]["charted"], b["counters"]
if load("compare-cct"):
    a = load("compare-cct")["benchmarks"][0]["attribution"]
    assert a["error"] is None and a["absolute"]["functions"], a
for doc, muts in more.items():
    d0 = load(doc)
    if d0 is None:
        print("%s: not produced here" % doc)
        continue
    v = validator(d0["schema"].split("/")[0][len("revperf-"):])
    for what, f in muts.items():
        d = copy.deepcopy(d0)
        try:
            f(d)
        except TypeError:                     # a section null here (no valgrind: counted)
            print("%s: %s: not produced here" % (doc, what))
            continue
        except (KeyError, IndexError) as e:
            print("%s: cannot mutate (%s: %r)" % (doc, what, e)); sys.exit(1)
        if v.is_valid(d):
            print("%s: not rejected: %s" % (doc, what)); sys.exit(1)
PY
echo ok
