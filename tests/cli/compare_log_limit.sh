# Run logs have a size cap per run (log-limit, --log-limit): a benchmark printing far more
# cannot fill the disk; the log keeps the beginning and the end of the output (where a
# reported metric usually is), marks the cut, and the run's note counts what was left out.
. "$SRCDIR/tests/cli/lib/common.bash"

# 12 MiB of output, then the result line.
cat >chatty.sh <<'SH'
echo "starting"
head -c 12582912 /dev/zero | tr '\0' 'x' | fold -w 1023
echo "result: 42 MB/s"
SH
total=$(sh chatty.sh | wc -c)

run() {
	"$REVPERF" compare -q --cmd-a 'sh chatty.sh' --cmd-b 'sh chatty.sh' --runs 2..2 \
		--warmup 0 --metric 'speed=/result: ([0-9]+) MB/ higher-is-better' --primary speed \
		-f json "$@"
}

expect_exit 0 run --log-limit 1MiB
[ "$(json_get out.txt "[m['verdict'] for m in d['benchmarks'][0]['metrics'] if m['name'] == 'speed'][0]")" = equal ] ||
	fail "the result line at the end of the output was not read"
for log in .revperf/logs/runs/1/command-A.log .revperf/logs/runs/1/command-B.log; do
	size=$(stat -c %s "$log")
	# two runs of at most 1 MiB each, with their headers and cut lines
	[ "$size" -le $((2 * 1048576 + 1024)) ] || fail "$log has $size bytes"
	[ "$(grep -c '^\[revperf: output beyond the log limit was not kept; its end follows\]$' "$log")" = 2 ] ||
		fail "no cut line in $log"
	[ "$(grep -c 'result: 42 MB/s$' "$log")" = 2 ] || fail "the end of the output is not in $log"
	[ "$(grep -c '^starting$' "$log")" = 2 ] || fail "the beginning of the output is not in $log"
done
notes=$(json_get out.txt "' | '.join(r['detail'] for r in d['benchmarks'][0]['run_issues'])")
echo "$notes"
[ "$(json_get out.txt "len(d['benchmarks'][0]['run_issues'])")" = 4 ] || fail "not every run has a note"
case $notes in
*"($total bytes): 11 MiB beyond the log limit not kept"*) ;;
*) fail "the note does not count the output ($total bytes)" ;;
esac

# The same limit from the configuration ([defaults] log-limit), and no limit at all.
rm -rf .revperf
printf '[defaults]\nlog-limit = 2MiB\n' >limit.ini
expect_exit 0 run -c limit.ini
size=$(stat -c %s .revperf/logs/runs/1/command-A.log)
[ "$size" -gt 3000000 ] && [ "$size" -le $((2 * 2097152 + 1024)) ] || fail "log-limit = 2MiB: $size bytes"
rm -rf .revperf
expect_exit 0 run --log-limit none
size=$(stat -c %s .revperf/logs/runs/1/command-A.log)
[ "$size" -ge $((2 * total)) ] || fail "log-limit = none: $size bytes of $((2 * total))"

# Bad values are one clear line, exit 2.
expect_exit 2 run --log-limit 1KiB
expect_one_line err.txt
expect_grep "log-limit.*'1KiB'.*a size from 4KiB" err.txt
expect_exit 2 run --log-limit lots
expect_grep "'lots'" err.txt
echo ok
