# Every command's JSON, produced by real runs, validated against docs/schema/ with a real
# validator (python3-jsonschema); a document with one value of the wrong type is rejected.
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
    "a value as a string": lambda d: d["benchmarks"][0]["metrics"][0]["values"]["baseline"].__setitem__(0, "0.5"),
    "schema as an integer": lambda d: d.__setitem__("schema", 3),
    "a run id missing": lambda d: d["benchmarks"][0]["run_list"]["baseline"][0].pop("run_id"),
    "an unknown key": lambda d: d["benchmarks"][0]["metrics"][0].__setitem__("mean", 0.0),
    "exit status as a string": lambda d: d["benchmarks"][0]["run_list"]["target"][0].__setitem__("exit_code", "3"),
    "median missing": lambda d: d["benchmarks"][0]["metrics"][0]["baseline"].pop("median"),
}
for what, f in cases.items():
    if validator("compare").is_valid(mutated(f)):
        print("not rejected: " + what); sys.exit(1)
PY
echo ok
