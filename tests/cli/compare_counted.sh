# Counted metrics (ir, sim-cycles; docs/counted.md): runs under callgrind after the timing
# runs, exact verdicts when the counts agree, the functions whose instructions changed,
# reuse, a benchmark whose counts differ every run, valgrind missing. Every verdict here
# is decided by counts, which the machine's load cannot change.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

cat >spin.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void kv_hash(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}
__attribute__((noinline)) static void steady(void)
{
	for (unsigned long i = 0; i < 200000; i++)
		sink ^= i;
}
int main(int argc, char **argv)
{
	kv_hash(strtoul(argv[1], 0, 10));
	steady();
	printf("%lu\n", sink);
	return 0;
}
C
cc -O1 -g -o spin spin.c || fail "cannot compile the workload"

# A 1% longer loop in kv_hash: worse on ir with 2 + 2 runs, exact, attributed to kv_hash.
expect_exit 1 "$REVPERF" compare --cmd-a './spin 1000000' --cmd-b './spin 1010000' \
	--metrics wall,ir --primary ir --runs 3..3 -f json
python3 - out.txt <<'PY' || fail "1% change: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
ir = [m for m in b["metrics"] if m["name"] == "ir"][0]
assert ir["verdict"] == "worse", ir
assert ir["deterministic"] is True and ir["counted"] is True, ir
assert ir["method"] == "exact" and ir["ci"][0] == ir["ci"][1] == ir["ratio"], ir
assert 1.002 < ir["ratio"] < 1.02, ir
assert ir["baseline"]["n"] == 2 and ir["target"]["n"] == 2, ir
c = b["counted"]
assert c["runs"] == [2, 2] and c["error"] is None, c
top = c["functions"][0]
assert top["function"] == "kv_hash", c["functions"]
assert abs(top["change"] - 10000 * 6) < 10000 * 3, top     # a few instructions per iteration
assert 0.95 <= top["share"] <= 1.05, top
assert c["paths"][0]["path"].endswith("main;kv_hash"), c["paths"]
PY

# A 0.2% change is decided too, with 2 runs per side.
expect_exit 1 "$REVPERF" compare --cmd-a './spin 1000000' --cmd-b './spin 1002500' \
	--metrics ir --primary ir --runs 3..3
expect_grep '^  ir \* +worse ' out.txt
expect_grep '100\.0% +finding +kv_hash' out.txt
expect_grep 'ir: worse, \+0\.[0-9]+% \(exact' out.txt

# A/A: equal, exactly, and nothing attributed; sim-cycles from the fixed cache model.
expect_exit 0 "$REVPERF" compare --cmd-a './spin 1000000' --cmd-b './spin 1000000' \
	--metrics ir,sim-cycles --primary ir,sim-cycles --runs 3..3
# exact: the interval is the ratio itself, printed once
expect_grep '^  ir \* +equal +1\.000 +[0-9]' out.txt
expect_grep '^  sim-cycles \* +equal ' out.txt
expect_grep 'cache model I1 32768,8,64, D1 32768,8,64, LL 8388608,16,64' out.txt
expect_grep "no function's instructions changed" out.txt

# A shell wrapper around the program is left out of the counts.
expect_exit 0 "$REVPERF" compare --cmd-a './spin 1000000 | cat' --cmd-b './spin 1000000 | cat' \
	--metrics ir --primary ir --runs 3..3 -f json
python3 - out.txt <<'PY' || fail "wrapper: $(cat out.txt)"
import json, sys
c = json.load(open(sys.argv[1]))["benchmarks"][0]["counted"]
assert c["wrappers_left_out"] == 1, c
PY

# Counts that differ every run: not deterministic, more runs, said so.
cat >vary.sh <<'SH'
n=$(( $(od -An -N2 -tu2 /dev/urandom) % 500 + 100 ))
i=0; while [ $i -lt $n ]; do i=$((i+1)); done
SH
expect_exit 0 "$REVPERF" compare --cmd-a 'sh vary.sh' --cmd-b 'sh vary.sh' --metrics ir \
	--primary ir --runs 3..3 -f json
python3 - out.txt <<'PY' || fail "varying counts: $(cat out.txt)"
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
ir = [m for m in b["metrics"] if m["name"] == "ir"][0]
assert ir["deterministic"] is False, ir
assert ir["method"] != "exact", ir
assert ir["baseline"]["n"] == 6 and ir["target"]["n"] == 6, ir   # topped up to MAX
assert max(ir["spread"]) > 1e-4, ir
PY

# In a git project the counted runs are reused by the next comparison of the same builds
# (asked for again, the finished one is shown from the store: --more makes the next), and
# serve the predictor as dynamic data.
make_tiny_repo proj
cd proj
cat >>revperf.ini <<'INI'
metrics = wall, ir
primary = ir
INI
git commit -qam "count instructions" && git tag -f base >/dev/null
printf 'i=0; while [ $i -lt 2100 ]; do i=$((i+1)); done\n' >work.sh
git commit -qam slower
expect_exit 1 "$REVPERF" compare base HEAD -f json
[ "$(json_get out.txt "d['benchmarks'][0]['counted']['reused']")" = "[0, 0]" ] || fail "reuse 1"
expect_exit 1 "$REVPERF" compare base HEAD -f json --more
[ "$(json_get out.txt "d['benchmarks'][0]['counted']['reused']")" = "[2, 2]" ] ||
	fail "counted runs not reused: $(cat out.txt)"
python3 - .revperf/revperf.db <<'PY' || fail "no dynamic data from the counted runs"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("SELECT COUNT(*) FROM dynamic_profiles WHERE source = 'callgrind'").fetchone()[0]
assert n == 2, n
PY
cd ..

# valgrind missing: one line naming the package, exit 2, before anything runs.
mkdir nobin && ln -s "$(command -v sh)" nobin/sh
PATH="$PWD/nobin" expect_exit 2 "$REVPERF" compare --cmd-a ./spin --cmd-b ./spin --metrics ir
expect_one_line err.txt
expect_grep "valgrind.*not installed.*apt-get install valgrind" err.txt

# A commit that does not change the program: the report says the code is the same, and
# the counts decide equal with their first runs; a real change names how many functions.
mkdir cproj && cd cproj
git init -q . && git config user.email t@example.com && git config user.name test
cp ../spin.c .
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -g -o spin spin.c
[benchmark "spin"]
command = ./spin 300000
metrics = ir
primary = ir
runs = 3..3
INI
git add -A && git commit -qm base && git tag base
echo "notes" >README && git add README && git commit -qm docs
expect_exit 0 "$REVPERF" compare base HEAD -f json
python3 - out.txt <<'PY' || fail "same code: $(cat out.txt)"
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
sc = b["same_code"]
assert sc["identical"] is True and sc["program"] == "./spin" and sc["changed"] == 0, sc
ir = [m for m in b["metrics"] if m["name"] == "ir"][0]
assert ir["verdict"] == "equal" and ir["ratio"] == 1.0 and ir["baseline"]["n"] == 2, ir
PY
# The same code given more work by its input: the counts change, and the report says that
# the change does not come from the program's code (text and Markdown).
mkdir ../inproj && cd ../inproj
git init -q . && git config user.email t@example.com && git config user.name test
loop_from_file load.c
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -o load load.c
[benchmark "load"]
command = ./load n.txt
metrics = ir
primary = ir
runs = 3..3
INI
echo 300000 >n.txt && git add -A && git commit -qm base && git tag base
echo 330000 >n.txt && git commit -qam "more input"
expect_exit 1 "$REVPERF" compare base HEAD
expect_grep '^  \./load: the same code in both builds' out.txt
expect_grep "^  note: ir changed although \./load's code is the same in both builds: the change comes from its inputs" out.txt
expect_exit 1 "$REVPERF" compare base HEAD -f markdown
expect_grep '^> note: load ir changed although the code of \./load is the same in both builds' out.txt
cd ../cproj
sed -i "s|i < n; i++)|i < n + n / 50; i++)|" spin.c && git commit -qam "more hashing"
expect_exit 1 "$REVPERF" compare base HEAD
expect_grep '^  \./spin: 1 of [0-9]+ functions differ between the builds' out.txt
expect_grep '^  ir \* +worse ' out.txt
# A function renamed (the binary diff pairs it: the same code under another name) whose
# instructions change (main calls it with 1% more): one entry, "old -> new", with the
# change, not the old name removed and the new one added.
git tag more
sed -i 's/kv_hash/kv_digest/g; s|kv_digest(strtoul(argv\[1\], 0, 10));|kv_digest(strtoul(argv[1], 0, 10) * 101 / 100);|' spin.c
grep -q 'kv_digest(strtoul(argv\[1\], 0, 10) \* 101 / 100);' spin.c || fail "could not rename kv_hash"
git commit -qam "kv_hash is kv_digest, called with 1% more"
expect_exit 1 "$REVPERF" compare more HEAD -f json
python3 - out.txt <<'PY' || fail "renamed: $(cat out.txt)"
import json, sys
c = json.load(open(sys.argv[1]))["benchmarks"][0]["counted"]
f = {x["function"]: x for x in c["functions"]}
assert "kv_hash" not in f and "kv_digest" not in f, f
top = c["functions"][0]
assert top["function"] == "kv_hash -> kv_digest", c["functions"]
assert 0 < top["change"] < 0.02 * top["baseline"] and top["share"] > 0.9, top
assert c["paths"][0]["path"].endswith("main;kv_hash -> kv_digest"), c["paths"]
PY
cd ..

# PLT entries that callgrind does not skip (.plt.sec, with -fcf-protection as Ubuntu
# builds; .plt.got) have no symbol, and callgrind names them by their address
# (0x0000000000109080): they are named as binutils names them, memcpy@plt.
cp "$SRCDIR/tests/workloads/plt_memcpy.c" plt.c
cc -O1 -g -fcf-protection -Wl,-z,ibtplt -o plt plt.c || fail "cannot build plt.c with a .plt.sec"
readelf -SW plt | grep -q '\.plt\.sec' || fail "plt has no .plt.sec"
# The target's code is longer, so that _init's and _fini's addresses move: the dynamic
# loader calls them, valgrind shows them by address, and they are named, not listed as
# one function gone and another new.
printf 'int unused_pad(int x) { return x * 7 + 3; }\n' | cat - plt.c >plt2.c
cc -O1 -g -fcf-protection -Wl,-z,ibtplt -o plt2 plt2.c || fail "cannot build plt2.c"
[ "$(nm plt | grep ' _fini$')" != "$(nm plt2 | grep ' _fini$')" ] || fail "_fini did not move"
expect_exit 1 "$REVPERF" compare --cmd-a './plt 1000' --cmd-b './plt2 3000' --metrics ir \
	--primary ir --runs 2..2 -f json
python3 - out.txt <<'PY' || fail "PLT: $(cat out.txt)"
import json, sys
c = json.load(open(sys.argv[1]))["benchmarks"][0]["counted"]
f = {x["function"]: x for x in c["functions"]}
assert "memcpy@plt" in f, list(f)
assert f["memcpy@plt"]["change"] == 2000 * 2, f["memcpy@plt"]   # endbr64 + jmp per call
assert not any(k.startswith("0x") for k in f), list(f)
assert any(p["path"].endswith("main;memcpy@plt") for p in c["paths"]), c["paths"]
PY

# A benchmark valgrind cannot run (here: one that refuses to run under it): the counted
# runs fail and say why, the counted metrics stay unmeasured, the timed ones are judged.
cat >novg.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
	const char *p = getenv("LD_PRELOAD");
	if (p && strstr(p, "vgpreload")) {
		fprintf(stderr, "novg: refusing to run under valgrind\n");
		abort();
	}
	return 0;
}
C
cc -O1 -o novg novg.c || fail "cannot compile novg"
expect_exit 0 "$REVPERF" compare --cmd-a ./novg --cmd-b ./novg --metrics wall,ir --primary wchar \
	--runs 3..3 -f json
python3 - out.txt <<'PY' || fail "valgrind cannot run it: $(cat out.txt)"
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
m = {m["name"]: m for m in b["metrics"]}
assert m["ir"]["verdict"] == "unmeasured", m["ir"]
assert m["wall"]["verdict"] != "unmeasured" and m["wall"]["baseline"]["n"] == 3, m["wall"]
err = b["counted"]["error"]
assert "0 + 0, 2 + 2 failed" in err and "crashed" in err, err
assert "refusing to run under valgrind" in err, err
PY
