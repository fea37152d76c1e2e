# librevperf_cct.so on real processes: call structure and call sites, threads, fork, exec,
# exit(), a fatal signal, longjmp, deep recursion and a C++ exception, with the workloads
# of tests/workloads/ built by gcc and clang at -O0 and -O2 (docs/cct-format.md); and the
# same scenarios calls-only (REVPERF_CCT_CLOCK=none: exact calls, no times).
. "$SRCDIR/tests/cli/lib/common.bash"
RT="$BUILDDIR/runtime/librevperf_cct.so"
CHECK="$SRCDIR/tests/workloads/cct_check.py"
[ -f "$RT" ] || fail "no runtime at $RT"

# run SCENARIO EXE WANT_EXIT ARGS...: runs EXE with the runtime (and the environment
# assignments in RUN_ENV) into a fresh directory, then checks every profile written.
run() {
	local scenario=$1 exe=$2 want=$3; shift 3
	rm -rf out && mkdir out
	local got=0
	env ${RUN_ENV:-} REVPERF_CCT_OUT="$TEST_TMP/out" LD_PRELOAD="$RT" "$exe" "$@" >stdout.txt 2>stderr.txt || got=$?
	[ "$got" = "$want" ] || { cat stderr.txt; fail "$exe $*: exit $got, expected $want"; }
	ls out/*.cct >/dev/null 2>&1 || fail "$exe $*: no profile written"
	! ls out/*.tmp >/dev/null 2>&1 || fail "$exe $*: temporary file left"
	python3 "$CHECK" "$scenario" "$exe" out/*.cct || fail "$scenario with $exe"
}

compilers="gcc"
command -v clang >/dev/null && compilers="gcc clang" || echo "clang not found: gcc only"
for cc in $compilers; do
	for opt in -O0 -O2; do
		exe="$TEST_TMP/calls-$cc$opt"
		$cc $opt -g -finstrument-functions -pthread "$SRCDIR/tests/workloads/cct_calls.c" -o "$exe" ||
			fail "cannot build the workload with $cc $opt"
		run calls "$exe" 0 calls 1000
		run threads "$exe" 0 threads
		run fork "$exe" 0 fork
		run longjmp "$exe" 0 longjmp
		run recurse "$exe" 0 recurse 100000
		run exit "$exe" 0 exit
		run exec "$exe" 0 exec
		run segv "$exe" 139 segv
	done
done

# Calls only: the same call counts and structure, clock none, every time 0.
for opt in -O0 -O2; do
	exe="$TEST_TMP/calls-gcc$opt"
	for s in "calls calls 1000" "threads threads" "fork fork" "longjmp longjmp" "exec exec"; do
		set -- $s
		RUN_ENV=REVPERF_CCT_CLOCK=none run "none:$1" "$exe" 0 "${@:2}"
	done
	RUN_ENV=REVPERF_CCT_CLOCK=none run none:segv "$exe" 139 segv
done

cxx=""
command -v g++ >/dev/null && cxx="g++"
command -v clang++ >/dev/null && cxx="$cxx clang++"
[ -n "$cxx" ] || echo "no C++ compiler: the exception case is skipped"
for cc in $cxx; do
	for opt in -O0 -O2; do
		exe="$TEST_TMP/throw-$cc$opt"
		$cc $opt -g -finstrument-functions "$SRCDIR/tests/workloads/cct_throw.cpp" -o "$exe" ||
			fail "cannot build the C++ workload with $cc $opt"
		run throw "$exe" 0
	done
done

# The no-op runtime exports the hooks and writes nothing.
rm -rf out && mkdir out
REVPERF_CCT_OUT="$TEST_TMP/out" LD_PRELOAD="$BUILDDIR/runtime/librevperf_cct_noop.so" \
	"$TEST_TMP/calls-gcc-O2" calls 10 || fail "workload fails under the no-op runtime"
[ -z "$(ls out)" ] || fail "the no-op runtime wrote a file"

# Pool exhaustion: profiling stops, the program is unchanged, the profile says truncated.
rm -rf out && mkdir out
REVPERF_CCT_NODES=16 REVPERF_CCT_OUT="$TEST_TMP/out" LD_PRELOAD="$RT" \
	"$TEST_TMP/calls-gcc-O2" recurse 100 || fail "workload fails when the pool is full"
grep -q '^thread [0-9]* 16 1 ' out/*.cct || { cat out/*.cct; fail "full pool not marked truncated"; }

# A file prefix instead of a directory.
REVPERF_CCT_OUT="$TEST_TMP/pre" LD_PRELOAD="$RT" "$TEST_TMP/calls-gcc-O0" calls 3 ||
	fail "workload fails with a prefix"
ls "$TEST_TMP"/pre.*.cct >/dev/null 2>&1 || fail "no file with the prefix"
# Only the hooks and the interposed exec functions are exported.
exported=$(nm -D --defined-only "$RT" | awk '{print $3}' | sort | tr '\n' ' ')
[ "$exported" = "__cyg_profile_func_enter __cyg_profile_func_exit execv execve execvp execvpe " ] ||
	fail "unexpected exports: $exported"
