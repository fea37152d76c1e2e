# callgrind records calls between two functions, not whole paths: a function's cost is
# split over its calling contexts in proportion to what each call edge carried, so a path
# changes when its function's split does, with the function's own instructions the same.
# On SQLite's speedtest1 (CVE-2025-6965 fix) sqlite3VdbeExec was listed as two findings,
# -26.3 Ir under speedtest1_exec and +26.3 Ir under speedtest1_run, "± 0", while the
# function executed the same instructions on both sides. Such a path is now "moved", with
# a line in the legend, and "moved": true in JSON; a path whose function did change stays
# a finding.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

cat >moved.c <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf_fn(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
__attribute__((noinline)) static void shared_stage(unsigned long extra, unsigned long n)
{
	for (unsigned long i = 0; i < extra; i++)
		sink ^= i;
	leaf_fn(n);
}
__attribute__((noinline)) static void a_caller(unsigned long extra) { shared_stage(extra, 100000); }
__attribute__((noinline)) static void b_caller(void) { shared_stage(0, 100000); }
int main(int argc, char **argv)
{
	(void)argc;
	a_caller(strtoul(argv[1], 0, 10));
	b_caller();
	return 0;
}
C
cc -O1 -o moved moved.c || fail "cannot compile the workload"

# shared_stage works more when called from a_caller; leaf_fn does exactly the same
expect_exit 1 "$REVPERF" compare --cmd-a './moved 100000' --cmd-b './moved 200000' \
	--metrics ir --primary ir --runs 3..3 -f json
python3 - out.txt <<'PY' || fail "moved paths: $(cat out.txt)"
import json, sys
c = json.load(open(sys.argv[1]))["benchmarks"][0]["counted"]
funcs = {f["function"]: f for f in c["functions"]}
assert "leaf_fn" not in funcs and "shared_stage" in funcs, funcs.keys()
paths = {p["path"].split(";main;")[-1]: p for p in c["paths"]}
for k in ("a_caller;shared_stage;leaf_fn", "b_caller;shared_stage;leaf_fn"):
    assert k in paths, (k, paths.keys())
    assert paths[k]["moved"] is True and paths[k]["class"] == "finding", paths[k]
own = paths["a_caller;shared_stage"]
assert own["moved"] is False and own["class"] == "finding", own
# a moved path is not a finding of its own: counted apart
a = c["attribution"]
moved = [p for p in c["paths"] if p["moved"]]
assert a["moved_paths"] == len(moved) >= 2, (a["moved_paths"], len(moved))
assert a["finding_paths"] == len([p for p in c["paths"] if p["class"] == "finding"]) - len(moved), a
PY
expect_exit 1 "$REVPERF" compare --cmd-a './moved 100000' --cmd-b './moved 200000' \
	--metrics ir --primary ir --runs 3..3 --no-color
expect_grep ' moved +\.\.\.;.*main;a_caller;shared_stage;leaf_fn  \(calls' out.txt
expect_grep ' finding +\.\.\.;.*main;a_caller;shared_stage  \(calls' out.txt
expect_grep "moved: the path's function executed the same instructions on both sides" out.txt
