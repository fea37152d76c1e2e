# Dynamic data from the CCT runtime, the fallback when valgrind is not installed: `run
# --dynamic` runs each benchmark once in the [build] profile-command build (compiled with
# -finstrument-functions) and stores calls and self time per function (source cct, cost
# self_ns) under the commit's normal build, where predict finds it. valgrind is hidden by
# a PATH of its own; `--dynamic=cct` asks for the runtime with valgrind there. Errors when
# neither valgrind nor a profile-command is there.
. "$SRCDIR/tests/cli/lib/common.bash"

# A PATH with everything of /usr/bin but valgrind.
mkdir nobin
for f in /usr/bin/*; do
	case ${f##*/} in valgrind*) ;; *) ln -s "$f" "nobin/${f##*/}" ;; esac
done
NOVG="$TEST_TMP/nobin"
[ ! -e "$NOVG/valgrind" ] || fail "valgrind not hidden"

mkdir proj && cd proj
git init -q . && git config user.email t@example.com && git config user.name test
cat >revperf.ini <<'INI'
[build]
command = mkdir -p build && cc -O1 -g -fno-inline -o build/prog prog.c
profile-command = mkdir -p build && cc -O1 -g -fno-inline -finstrument-functions -o build/prog prog.c
[benchmark "calls"]
command = ./build/prog 20000
INI
cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long add(long a, long b) { return a + b; }
__attribute__((noinline)) long mul(long a, long b) { return a * b; }
__attribute__((noinline)) long unused(long a) { return a - 1; }
int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10, s = 0, p = 1;
	for (long i = 0; i < n; i++)
		s = add(s, i);
	for (long i = 0; i < 300; i++)
		p = mul(p, i | 1);
	printf("%ld %ld\n", s, p);
	return 0;
}
C
git add . && git commit -qm base && git tag base
db=.revperf/revperf.db

# Without valgrind, a bare --dynamic falls back to the CCT runtime.
expect_exit 0 env PATH="$NOVG" "$REVPERF" run --dynamic base
expect_grep '^calls +[0-9]+ functions reached, [0-9]+ calls, [0-9.]+ ms self time, [0-9.]+ s with the CCT runtime; ' out.txt
expect_grep 'dynamic data of calls at [0-9a-f]{12} \(base\) with the CCT runtime' err.txt
[ "$(sqlite3 $db "select source || ' ' || cost from dynamic_profiles")" = "cct self_ns" ] ||
	fail "not stored as cct: $(sqlite3 $db 'select * from dynamic_profiles')"
# Exact call counts, self time > 0 for the hot function, nothing for what never ran.
q() { sqlite3 $db "select $1 from dynamic_functions where name = '$2'"; }
[ "$(q calls add)" = 20000 ] || fail "add calls: $(q calls add)"
[ "$(q calls mul)" = 300 ] || fail "mul calls: $(q calls mul)"
[ "$(q calls main)" = 1 ] || fail "main calls: $(q calls main)"
[ -z "$(q calls unused)" ] || fail "unused was stored"
python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 0)" "$(q cost add)" ||
	fail "add has no self time: $(q cost add)"
# Only instrumented functions: no libc, no dynamic loader.
[ "$(sqlite3 $db "select count(*) from dynamic_functions")" = 3 ] ||
	fail "functions: $(sqlite3 $db 'select name from dynamic_functions')"
# Keyed by the normal build (variant ''), which predict looks up.
[ "$(sqlite3 $db "select b.variant from dynamic_profiles d join builds b on b.id = d.build_id")" = "" ] ||
	fail "stored under the instrumented build"
[ "$(sqlite3 $db "select count(*) from builds where variant = 'cct' and status = 'ok'")" = 1 ] ||
	fail "no instrumented build"

# predict uses it: mul changes; the PeASS rule names it, the values rank by self time.
sed -i 's/return a \* b;/return a * b + (a \& 1);/' prog.c
git commit -qam 'mul: odd' && git tag mul
expect_exit 0 env PATH="$NOVG" "$REVPERF" predict --tests mul -f json
[ "$(json_get out.txt "[(b['reason'], b['function']) for b in d['benchmarks']]")" = \
	"[('reached-changed', 'mul')]" ] || fail "tests: $(cat out.txt)"
expect_exit 0 "$REVPERF" predict mul -f json
[ "$(json_get out.txt "d['benchmarks'][0]['ancestor']['depth']")" = 1 ] || fail "ancestor"
[ "$(json_get out.txt "d['benchmarks'][0]['values']['top_chg_by_call']")" != None ] ||
	fail "no rank by calls: $(cat out.txt)"
[ "$(json_get out.txt "d['benchmarks'][0]['values']['top_chg_by_instr']")" != None ] ||
	fail "no rank by self time: $(cat out.txt)"

# --dynamic=cct with valgrind there; callgrind data replaces it, and cct again.
expect_exit 0 "$REVPERF" run --dynamic=callgrind -q mul
[ "$(sqlite3 $db "select group_concat(source, ' ') from (select source from dynamic_profiles order by id)")" = "cct callgrind" ] ||
	fail "callgrind at mul: $(sqlite3 $db 'select * from dynamic_profiles')"
# Without a configured timeout, one run without valgrind set the timeout of the one under it
# (before, it had none: a benchmark that hangs held run --dynamic forever).
probe=$(sqlite3 $db "select path from dynamic_profiles where source = 'callgrind'")/probe.log
[ -f "$probe" ] || fail "no run set the timeout of the run under callgrind: no $probe"
expect_exit 0 "$REVPERF" run --dynamic=cct -q mul
[ "$(sqlite3 $db "select group_concat(source, ' ') from (select source from dynamic_profiles order by id)")" = "cct cct" ] ||
	fail "cct at mul: $(sqlite3 $db 'select * from dynamic_profiles')"
# A commit that changes no code, with the runtime's data there too: PeASS's trace rule
# compares the two (the same calls: not run); against callgrind's, they do not compare.
echo notes >README && git add README && git commit -qm readme && git tag readme
expect_exit 0 "$REVPERF" run --dynamic=cct -q readme
expect_exit 0 "$REVPERF" predict --tests readme -f json
[ "$(json_get out.txt "[(b['reason'], b['trace']) for b in d['benchmarks']]")" = \
	"[('not-reached', 'same')]" ] || fail "cct traces: $(cat out.txt)"
expect_exit 0 "$REVPERF" run --dynamic=callgrind -q readme
expect_exit 0 "$REVPERF" predict --tests readme -f json
[ "$(json_get out.txt "[(b['reason'], b['trace']) for b in d['benchmarks']]")" = \
	"[('not-reached', 'other-source')]" ] || fail "mixed sources: $(cat out.txt)"

# Errors: callgrind asked without valgrind; cct asked, or needed, without profile-command.
expect_exit 2 env PATH="$NOVG" "$REVPERF" run --dynamic=callgrind base
expect_grep 'dynamic=callgrind needs valgrind' err.txt
expect_one_line err.txt
expect_exit 2 "$REVPERF" run --dynamic=bogus base
expect_grep "unknown --dynamic source 'bogus'" err.txt
sed -i '/^profile-command/d' revperf.ini
expect_exit 2 "$REVPERF" run --dynamic=cct base
expect_grep 'dynamic=cct .* has no \[build\] profile-command' err.txt
expect_one_line err.txt
expect_exit 2 env PATH="$NOVG" "$REVPERF" run --dynamic base
expect_grep 'needs valgrind .* or a build for the CCT runtime' err.txt
expect_one_line err.txt

# A profile-command build without -finstrument-functions: no function ran, said so.
sed -i 's|^command = mkdir.*|&\nprofile-command = mkdir -p build \&\& cc -O1 -g -o build/prog prog.c|' revperf.ini
expect_exit 2 "$REVPERF" run --dynamic=cct base
expect_grep "benchmark 'calls' at [0-9a-f]{12}: .*-finstrument-functions" err.txt
echo ok
