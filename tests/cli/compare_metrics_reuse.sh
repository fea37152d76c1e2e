# Stored runs are reused only for the metrics they measured. A compare after one of other
# metrics (`-m wall,ir`, then the revperf.ini defaults) used to reuse runs that had no cpu,
# or show the earlier comparison as finished, and report cpu "unmeasured: not supported on
# this machine" (exit 0 with cpu primary). Now runs that lack a metric every run measures
# are not reused (a warning says so; later runs that have it are), a stored comparison
# lacking a metric asked for is not finished, and a metric the reused runs lack is said
# to be so.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo

metric() { json_get out.txt "[m for m in d['benchmarks'][0]['metrics'] if m['name']=='$1'][0]['$2']"; }

expect_exit 1 "$REVPERF" compare base slow -q --seed 1
# cpu, never measured by those runs: measured anew, not reused, not "unsupported".
expect_exit 1 "$REVPERF" compare base slow -m wchar,cpu --seed 2 -f json
expect_grep "stored runs of builds $(git rev-parse --short=12 base) and $(git rev-parse --short=12 slow) have no cpu" err.txt
expect_grep 'not reused, measuring anew' err.txt
[ "$(metric cpu verdict)" != unmeasured ] || fail "cpu unmeasured: $(metric cpu unmeasured_reason)"
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused']")" = 0 ] ||
	fail "runs without cpu were reused"
ok=$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['ok']")
# The runs that have cpu are reused by the next comparison asking for it, without a word.
expect_exit 1 "$REVPERF" compare base slow -m wchar,cpu --more --seed 7 -f json
expect_no_grep 'have no' err.txt
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused']")" = "$ok" ] ||
	fail "the runs with cpu were not reused: $(json_get out.txt "d['benchmarks'][0]['runs']")"

# A stored comparison without maxrss is not finished for -m wchar,maxrss: it runs (and the
# stored runs, which lack maxrss, are not reused).
expect_exit 1 "$REVPERF" compare base slow -m wchar,maxrss --seed 3 -f json
expect_no_grep 'shown from the store' err.txt
[ "$(metric maxrss verdict)" != unmeasured ] || fail "maxrss: $(metric maxrss unmeasured_reason)"

# nvcsw as the primary metric, in no stored comparison: measured, never "finished".
st=0
"$REVPERF" compare base slow -m wchar --primary nvcsw --seed 4 -f json >out.txt 2>err.txt || st=$?
[ "$st" = 0 ] || [ "$st" = 1 ] || { cat err.txt; fail "--primary nvcsw: exit $st"; }
expect_no_grep 'shown from the store' err.txt
[ "$(metric nvcsw verdict)" != unmeasured ] || fail "nvcsw: $(metric nvcsw unmeasured_reason)"
[ "$(metric nvcsw primary)" = True ] || fail "nvcsw not primary"

# rchar (not every run's: /proc/PID/io) the reused runs lack: said so, with the way out.
expect_exit 1 "$REVPERF" compare base slow -m wchar,rchar --primary wchar --seed 5 -f json
if [ "$(metric rchar verdict)" = unmeasured ]; then
	reason=$(metric rchar unmeasured_reason)
	case $reason in
	*"not in the stored runs"*--fresh*) ;;
	*) fail "rchar unmeasured for: $reason" ;;
	esac
fi

# A comparison shown again says so instead of a number of looks and seconds it never took.
expect_exit 1 "$REVPERF" compare base slow -m wchar --primary wchar --seed 6
expect_exit 1 "$REVPERF" compare base slow -m wchar --primary wchar
expect_grep 'shown from the store, nothing ran' err.txt
expect_grep 'runs.*, shown from the store; ratio B/A' out.txt
expect_no_grep 'look' out.txt
echo ok
