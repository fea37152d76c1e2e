# Bad input to compare --import and import --rev: one error line naming the file (and the
# JSON path of a bad value), exit 2, nothing stored.
. "$SRCDIR/tests/cli/lib/common.bash"
D="$SRCDIR/tests/data/import"

printf '{"results": [{"command": "x", "times": [0.1, 0.2, 0.3]}]}' >good.json
bad() { # EXPECTED-REGEX FILE: compare --import of FILE against a good file fails that way
	expect_exit 2 "$REVPERF" compare --import good.json "$2"
	expect_grep "^revperf: error: $1" err.txt
	expect_one_line err.txt
	[ ! -s out.txt ] || fail "a report was printed for bad input $2"
}
bad "cannot read result file 'missing.json': No such file or directory" missing.json
: >empty.json
bad 'empty.json: empty file' empty.json
printf '{"results": [{"command": "x", "times": [0.1, 0.2' >truncated.json
bad 'truncated.json:1:[0-9]+: invalid JSON' truncated.json
head -c 300 "$D/gbench_base.json" >truncated2.json
bad 'truncated2.json:[0-9]+:[0-9]+: invalid JSON' truncated2.json
printf '{"results": [{"command": "x", "times": [0.1, 0.2,]}]}' >malformed.json
bad 'malformed.json:1:[0-9]+: invalid JSON' malformed.json
printf '{"name": "something else"}' >neither.json
bad 'neither.json: neither a hyperfine export' neither.json
printf '[1, 2, 3]' >array.json
bad 'array.json: the document is an array' array.json
printf '{"results": [{"command": "x", "times": [0.1, "slow", 0.3]}]}' >nan.json
bad 'nan.json: results\[0\]\.times\[1\] is not a number \(a string\)' nan.json
printf '{"results": [{"command": "x", "times": [0.1, -1]}]}' >negative.json
bad 'negative.json: results\[0\]\.times\[1\] is -1' negative.json
printf '{"results": []}' >noresults.json
bad 'noresults.json: results is empty' noresults.json
printf '\x00\xff\xfe garbage' >binary.json
bad 'binary.json:1:[0-9]+: invalid JSON' binary.json
sed 's/"real_time": 52000.0/"real_time": "fast"/' "$D/gbench_base.json" >gbad.json
expect_exit 2 "$REVPERF" compare --import gbad.json "$D/gbench_base.json"
expect_grep '^revperf: error: gbad.json: benchmarks\[0\]\.real_time is not a number \(a string\)$' err.txt
expect_one_line err.txt

# Two files of different formats.
expect_exit 2 "$REVPERF" compare --import good.json "$D/gbench_base.json"
expect_grep 'good.json is a hyperfine export but .*gbench_base.json is Google Benchmark JSON' err.txt
expect_one_line err.txt

# Usage: two files, and only the options that apply.
expect_exit 2 "$REVPERF" compare --import good.json
expect_grep 'expects two result files' err.txt
expect_one_line err.txt
expect_exit 2 "$REVPERF" compare --import good.json good.json --runs 5..10
expect_grep '--runs does not apply to --import' err.txt
expect_exit 2 "$REVPERF" compare --import good.json good.json --cmd-a true
expect_grep 'do not apply' err.txt
expect_exit 2 "$REVPERF" compare --import good.json good.json --tolerance lots
expect_grep "^revperf: error: --tolerance: invalid value 'lots'" err.txt

# import --rev: bad input stores nothing (not even a database).
make_tiny_repo repo
cd repo
expect_exit 2 "$REVPERF" import --rev base ../nan.json
expect_grep 'nan.json: results\[0\]\.times\[1\] is not a number' err.txt
expect_one_line err.txt
[ ! -e .revperf/revperf.db ] || fail "bad input created a database"
expect_exit 2 "$REVPERF" import --rev base ../good.json ../truncated.json
expect_one_line err.txt
[ ! -e .revperf/revperf.db ] || fail "a bad second file let the first be stored"
expect_exit 2 "$REVPERF" import ../good.json
expect_grep '--rev REV is required' err.txt
expect_exit 2 "$REVPERF" import --rev base
expect_grep 'expected a result FILE' err.txt
expect_exit 2 "$REVPERF" import --rev no-such-rev ../good.json
expect_grep "unknown revision 'no-such-rev'" err.txt
expect_one_line err.txt
cd ..
mkdir plain && cd plain
expect_exit 2 "$REVPERF" import --rev HEAD ../good.json
expect_grep 'not inside a git repository' err.txt
echo ok
