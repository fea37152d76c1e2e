# revperf history with a counted metric (ir) as the only metric: the series and the change
# points of ir come from the counted runs (profiles of kind vg-ir), not only from the
# timing runs' metrics. Before the fix, history reported "0 commits with values" for ir.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -o spin spin.c
[benchmark "spin"]
command = ./spin
metrics = ir
primary = ir
runs = 2..2
warmup = 0
INI
spin() {
	cat >spin.c <<C
static volatile unsigned long sink;
int main(void)
{
	for (unsigned long i = 0; i < $1; i++)
		sink += i;
	return 0;
}
C
}
spin 100000
git add . && git commit -qm base && git tag base
commit() { echo "$1" >>notes.txt && git add -A && git commit -qm "$1"; }
commit n1 && commit n2 && commit n3 && commit n4
spin 200000 && commit slow
commit n5 && commit n6 && commit n7 && commit n8

expect_exit 0 "$REVPERF" history base..HEAD -f json -q
python3 - out.txt <<'PY' || fail "history with ir: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["summary"]: x for x in d["commits"]}
ir = lambda s: [v for v in c[s]["verdicts"] if v["metric"] == "ir"][0]
assert ir("slow")["verdict"] == "worse", ir("slow")
assert all(ir(s)["verdict"] == "equal" for s in "n1 n2 n3 n4 n5 n6 n7 n8".split()), c
series = {(x["benchmark"], x["metric"]): x for x in d["series"]}
s = series[("spin", "ir")]
pts = s["points"]
assert len(pts) == 9, s
cps = s["change_points"]
assert [p["sha"] for p in cps] == [c["slow"]["sha"]], s
assert 0.8 < cps[0]["rel_change"] < 1.2, cps
PY
