# revperf show ID shows a comparison as it was measured after revperf.ini changed: the runs
# of the builds it used (its stored build ids), its benchmarks as they were defined then
# (their stored commands, one no longer configured included), and the binary diff of those
# builds, or none, with a note, once their worktrees hold another build; one warning line
# says what the configuration changed. Before, show looked up the builds of today's
# [build] command and the benchmarks of today's commands: "write: 0 + 0 runs ... unmeasured
# no successful run on either side", "copy" left out, and the binary diff of the new
# builds. show BASE TARGET finds a comparison of builds of another build command too.
# Verdicts are on wchar, exact on a busy machine.
. "$SRCDIR/tests/cli/lib/common.bash"

command -v cc >/dev/null || { echo "skipped: no C compiler (cc) to build the benchmark"; exit 77; }
make_tiny_repo repo
cd repo
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -o writer writer.c
[defaults]
metrics = wchar
primary = wchar
runs = 3..4
warmup = 0
[benchmark "write"]
command = ./writer 1000
[benchmark "copy"]
command = sh ./copy.sh
INI
writer() {
	cat >writer.c <<C
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) * $1 : 0;
	FILE *f = fopen("/dev/null", "w");
	for (long i = 0; f && i < n; i++)
		fputc('x', f);
	return f ? fclose(f) : 1;
}
C
}
writer 1
printf 'head -c 1000 /dev/zero > out.bin\n' >copy.sh
git add . && git commit -qm "write 1000 bytes" && git tag -f base >/dev/null
writer 3
git commit -qam "write 3000 bytes" && git tag slow

expect_exit 1 "$REVPERF" compare base slow -q -f json
cp out.txt compared.json
key() { json_get "$1" "[(b['name'], b['runs']['baseline']['ok'], b['runs']['target']['ok'], [m['verdict'] for m in b['metrics']]) for b in d['benchmarks']]"; }
[ "$(key compared.json)" = "[('write', 3, 3, ['worse']), ('copy', 3, 3, ['equal'])]" ] ||
	fail "compare: $(key compared.json)"
[ "$(json_get compared.json "d['benchmarks'][0]['same_code']['program']")" = ./writer ] ||
	fail "compare diffed no program: $(json_get compared.json "d['benchmarks'][0]['same_code']")"
runs=$(db_query .revperf/revperf.db "SELECT count(*) FROM runs")

# show's JSON equals compare's but for the time spent (and, with bindiff=no, the diff).
same_as_compared() { # FILE [bindiff=no]
	python3 - compared.json "$1" "${2:-}" <<'PY' || fail "show differs from compare: $(cat "$1")"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    for x in d["benchmarks"]:
        x.pop("elapsed_s")
        if sys.argv[3]:
            assert d is a or x["same_code"] is None, x["same_code"]
            x.pop("same_code")
assert a == b, (a, b)
PY
}

# Today's configuration: another build command (stripped), the write benchmark's command
# quoted otherwise, copy no longer configured.
sed -i "s/^command = cc -O1 -o writer writer.c$/command = cc -O1 -s -o writer writer.c/;
	s/^command = .\/writer 1000$/command = '.\/writer' 1000/;
	/^\[benchmark \"copy\"\]$/,\$d" revperf.ini
git commit -qam "strip, quote, no copy"
grep -q "'./writer' 1000" revperf.ini && ! grep -q copy revperf.ini || fail "revperf.ini: $(cat revperf.ini)"

for args in "1" "base slow"; do
	# shellcheck disable=SC2086
	expect_exit 0 "$REVPERF" show $args -f json
	same_as_compared out.txt
	expect_one_line err.txt
	expect_grep 'comparison 1 was measured with another configuration \(the build command `cc -O1 -o writer writer.c`, the command of write, copy no longer configured\): shown as it was measured, from its stored runs' err.txt
done
expect_exit 0 "$REVPERF" show 1
expect_grep '^write: 3 \+ 3 runs, shown from the store' out.txt
expect_grep '^copy: 3 \+ 3 runs, shown from the store' out.txt
expect_grep '^\./writer:|writer: [0-9]+ of [0-9]+ functions differ' out.txt
expect_no_grep 'unmeasured' out.txt
expect_exit 0 "$REVPERF" show 1 -q
[ ! -s err.txt ] || fail "a warning under -q: $(cat err.txt)"
[ "$(db_query .revperf/revperf.db "SELECT count(*) FROM runs")" = "$runs" ] || fail "show ran"

# Compared with today's configuration (the report's case): both worktrees now hold the
# stripped builds, which are not comparison 1's. Its binary diff cannot be redone: none is
# shown, and a note says why; its runs and verdicts stay.
expect_exit 1 "$REVPERF" compare base slow -q -f json
[ "$(key out.txt)" = "[('write', 3, 3, ['worse'])]" ] || fail "compare now: $(key out.txt)"
expect_exit 0 "$REVPERF" show 1 -f json
same_as_compared out.txt bindiff=no
expect_grep 'comparison 1 was measured with another configuration' err.txt
expect_grep "note: the worktrees of comparison 1's builds no longer hold them \\(built with another command since, built again into other programs, or removed\\): its binary diff is not shown" err.txt
expect_exit 0 "$REVPERF" show 1
expect_no_grep 'functions differ|same code' out.txt
# show BASE TARGET: the newest comparison of the two revisions, made with today's builds.
expect_exit 0 "$REVPERF" show base slow -f json
[ "$(json_get out.txt "d['comparison_id']")" = 2 ] || fail "not the newest: $(cat out.txt)"
expect_no_grep 'another configuration|another build' err.txt # (the diff of stripped builds fails)
echo ok
