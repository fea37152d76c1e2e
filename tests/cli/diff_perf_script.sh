# revperf diff on `perf script` output: the committed samples of tests/data/perf (perf
# record -g and --call-graph dwarf of tests/workloads/perf_versions.c, kernel frames),
# several runs per side, thread names, standard input, bad input and usage errors; then
# real recordings made here of the two versions, whose slowed function must lead the weight
# differences. perf_versions' hot() does 4x the work in the new version: its share of the
# on-CPU samples goes from about 1/3 to about 2/3, an effect that load cannot hide (the
# cpu-clock:u event counts the program's own CPU time).
. "$SRCDIR/tests/cli/lib/common.bash"

DATA=$SRCDIR/tests/data/perf

# The committed samples, recognised from their content.
expect_exit 1 "$REVPERF" diff "$DATA/fp_old.perf" "$DATA/fp_new.perf"
# cpu-clock's periods are nanoseconds on a CPU: the total and the absolute change in time
expect_grep '^old: .*fp_old\.perf \(6 contexts, total weight 70\.14 ms\)$' out.txt
expect_grep '^absolute change, on-CPU time, summed over threads:$' out.txt
expect_grep '^weight differences' out.txt
expect_grep '^ +[0-9.]+% -> +[0-9.]+% +\+[0-9.]+  __libc_start_call_main;main;hot$' out.txt
# Few samples: said, with the uncertainty of a share.
expect_grep 'fp_old\.perf: only 35 samples: a share of the profile is uncertain by up to \+/-8 points' err.txt

# --call-graph dwarf: whole stacks, the inlined frame `both` of its own; the slowed
# function first among the weight differences.
expect_exit 1 "$REVPERF" diff -f json "$DATA/dwarf_old.perf" "$DATA/dwarf_new.perf"
[ "$(json_get out.txt "d['weight_differences'][0]['path'][-3:], d['weight_differences'][0]['new']['pweight'] > d['weight_differences'][0]['old']['pweight']")" = \
	"['compute', 'both', 'hot'] True" ] || fail "dwarf: hot is not the first difference: $(cat out.txt)"

# Each thread name apart: the program's own thread and "worker".
expect_exit 1 "$REVPERF" diff --threads -f json "$DATA/dwarf_old.perf" "$DATA/dwarf_new.perf"
[ "$(json_get out.txt "d['weight_differences'][0]['path'][0], d['weight_differences'][0]['path'][-1]")" = \
	"[thread perf_versions] hot" ] || fail "--threads: $(cat out.txt)"

# Kernel frames are kept and marked (the flame graph names every frame it draws).
expect_exit 0 "$REVPERF" diff -f svg "$DATA/kernel.perf" "$DATA/kernel.perf"
expect_grep '<title>do_syscall_64 \[k\]' out.txt
expect_grep '^__libc_start_call_main;__GI___libc_write;entry_SYSCALL_64_after_hwframe \[k\];do_syscall_64 \[k\]' out.txt

# Several runs per side (the chart convention): merged, mean and sd, labelled.
expect_exit 1 "$REVPERF" diff --baseline "$DATA/fp_old.perf" "$DATA/fp_old.perf" \
	--target "$DATA/fp_new.perf" "$DATA/fp_new.perf" -f json
[ "$(json_get out.txt "d['old']['runs'], d['new']['runs'], d['new']['merged'], d['old']['label'].endswith('(2 runs)')")" = \
	"2 2 True True" ] || fail "--baseline/--target: $(cat out.txt)"
# The same profile on both sides, one or two runs: no difference.
expect_exit 0 "$REVPERF" diff --baseline "$DATA/fp_old.perf" --target "$DATA/fp_old.perf"
expect_exit 0 "$REVPERF" diff --baseline "$DATA/fp_old.perf" "$DATA/fp_old.perf" \
	--target="$DATA/fp_old.perf" --target="$DATA/fp_old.perf"

# Standard input, as perf script would pipe it.
expect_exit 1 "$REVPERF" diff "$DATA/fp_old.perf" - <"$DATA/fp_new.perf"
expect_grep '^new: - \(6 contexts' out.txt

# --event: the file's other event; one it lacks.
expect_exit 0 "$REVPERF" diff --event task-clock "$DATA/two_events.perf" "$DATA/two_events.perf"
expect_grep 'two_events\.perf: [0-9]+ samples of other events left out: the profile weighs task-clock:u' err.txt
expect_exit 2 "$REVPERF" diff --event cycles "$DATA/two_events.perf" "$DATA/fp_old.perf"
expect_grep "^revperf: error: .*two_events\.perf: no sample of the event 'cycles'" err.txt
expect_one_line err.txt

# Malformed text: one line naming the file and line, exit 2, no report written.
{ head -n 3 "$DATA/fp_old.perf"; printf '\tnot a frame at all\n'; } >bad.perf
expect_exit 2 "$REVPERF" diff -f svg -o bad.svg bad.perf "$DATA/fp_old.perf"
expect_grep "^revperf: error: bad\.perf:4: expected a frame 'address symbol \(module\)', found '.not a frame at all'" err.txt
expect_one_line err.txt
[ ! -e bad.svg ] || fail "bad.svg written despite bad input"
{ head -n 4 "$DATA/fp_old.perf"; printf 'a line that is no header\n'; } >bad2.perf
expect_exit 2 "$REVPERF" diff --input-format perf bad2.perf "$DATA/fp_old.perf"
expect_grep "^revperf: error: bad2\.perf:5: expected a sample header" err.txt
expect_one_line err.txt
# A side mixing kinds of profiles.
printf 'main;hot 3\n' >one.folded
expect_exit 2 "$REVPERF" diff --baseline "$DATA/fp_old.perf" one.folded --target "$DATA/fp_new.perf"
expect_grep "^revperf: error: one\.folded is a folded profile and .*fp_old\.perf a perf profile" err.txt
[ "$(grep -c '^revperf: error' err.txt)" = 1 ] || fail "more than one error: $(cat err.txt)"
# Calls: perf samples have none.
expect_exit 2 "$REVPERF" diff --weight calls "$DATA/fp_old.perf" "$DATA/fp_new.perf"
expect_grep 'no call counts \(folded stacks and perf script have none\)' err.txt

# Usage errors.
expect_exit 2 "$REVPERF" diff --baseline "$DATA/fp_old.perf"
expect_grep 'expected --baseline PROFILE\.\.\. and --target PROFILE\.\.\.' err.txt
expect_exit 2 "$REVPERF" diff x y --baseline "$DATA/fp_old.perf" --target "$DATA/fp_new.perf"
expect_grep 'without OLD NEW or --bench' err.txt
expect_exit 2 "$REVPERF" diff --baseline - --target -
expect_grep "standard input \('-'\) can be read only once" err.txt
expect_exit 2 "$REVPERF" diff -i perff "$DATA/fp_old.perf" "$DATA/fp_new.perf"
expect_grep "unknown input format 'perff': use auto, cct, callgrind, folded, sample or perf" err.txt

# Real recordings, made here: perf record -g (frame pointers) and --call-graph dwarf
# (a build without frame pointers), user space only (-e cpu-clock:u works at
# perf_event_paranoid 2), two runs per side.
command -v perf >/dev/null || { echo "SKIP: no perf (linux-perf) to record with"; exit 77; }
CC=${CC:-cc}
if ! perf record -q -e cpu-clock:u -g -o probe.data true >probe.log 2>&1 ||
	! perf script -i probe.data >/dev/null 2>&1; then
	echo "SKIP: perf cannot record here (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)): $(head -n 1 probe.log)"
	exit 77
fi
for v in old new; do
	slow=1
	[ $v = new ] && slow=4
	mkdir -p fp-$v dwarf-$v
	$CC -O2 -g -fno-omit-frame-pointer -pthread -DSLOW=$slow \
		"$SRCDIR/tests/workloads/perf_versions.c" -o fp-$v/perf_versions
	$CC -O2 -g -fomit-frame-pointer -pthread -DSLOW=$slow \
		"$SRCDIR/tests/workloads/perf_versions.c" -o dwarf-$v/perf_versions
	for run in 1 2; do
		perf record -q -e cpu-clock:u -F 999 -g -o fp.data ./fp-$v/perf_versions ||
			fail "perf record -g failed"
		perf script -i fp.data >fp_${v}_$run.perf 2>/dev/null || fail "perf script failed"
		perf record -q -e cpu-clock:u -F 999 --call-graph dwarf -o dwarf.data \
			./dwarf-$v/perf_versions || fail "perf record --call-graph dwarf failed"
		perf script -i dwarf.data >dwarf_${v}_$run.perf 2>/dev/null ||
			fail "perf script failed"
	done
done
for mode in fp dwarf; do
	expect_exit 1 "$REVPERF" diff -f json --baseline ${mode}_old_1.perf ${mode}_old_2.perf \
		--target ${mode}_new_1.perf ${mode}_new_2.perf
	[ "$(json_get out.txt "d['weight_differences'][0]['path'][-1], d['weight_differences'][0]['new']['pweight'] > d['weight_differences'][0]['old']['pweight'], d['new']['runs']")" = \
		"hot True 2" ] || fail "$mode: hot is not the first weight difference: $(cat out.txt)"
done
# The DWARF stacks reach main through the inlined frame.
expect_exit 0 "$REVPERF" diff -f svg dwarf_old_1.perf dwarf_old_1.perf
expect_grep '^_start;.*;main;compute;both;hot$' out.txt
echo ok
