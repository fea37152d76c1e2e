# With -f json, every failure answers on stdout too: a build that fails, a revision that
# does not exist, a configuration error, a usage error found after the options parsed;
# for compare, history, bisect and ci (and the other commands that take -f json). The
# text mode keeps stdout empty and says it on stderr, as before.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
printf '[build]\ncommand = echo compiling; exit 3\n[benchmark "spin"]\ncommand = sh ./work.sh\nruns = 3..3\n' >revperf.ini
git commit -qam "the build breaks"
git commit -q --allow-empty -m "still broken"

# check_error FILE CODE PATTERN: FILE is one JSON error document with that exit code
# and a message matching PATTERN (a Python regex), the first of its messages.
check_error() {
	python3 - "$@" <<'PY' || { cat "$1"; fail "not the JSON error document: $*"; }
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "revperf-error/1" and d["revperf_version"], d
e = d["error"]
assert e["exit_code"] == int(sys.argv[2]), e
assert re.search(sys.argv[3], e["message"]), e["message"]
assert e["messages"][0] == e["message"] and all(isinstance(m, str) for m in e["messages"])
assert set(d) == {"revperf_version", "schema", "command", "error"}, d.keys()
PY
}

# A failed build: text on stderr only; JSON on stdout too, the same message.
expect_exit 2 "$REVPERF" compare base HEAD
[ ! -s out.txt ] || fail "text mode printed on stdout: $(cat out.txt)"
expect_grep 'error: build of [0-9a-f]{12} \(base\) failed: exited with status 3' err.txt
expect_exit 2 "$REVPERF" compare base HEAD -f json
check_error out.txt 2 '^build of [0-9a-f]{12} \(base\) failed: exited with status 3; see .*\.log$'
[ "$(json_get out.txt "d['command']")" = compare ] || fail "command"
expect_grep 'error: build of' err.txt # stderr says it as well

# (history shows a commit that does not build as such, in its report: no failure)
expect_exit 0 "$REVPERF" history -n 2 -f json -q
[ "$(json_get out.txt "d['commits'][1]['status']")" = no-base ] || fail "history: $(cat out.txt)"

expect_exit 2 "$REVPERF" bisect --bench spin -f json -q base HEAD
check_error out.txt 2 'build of [0-9a-f]{12} .* failed'

expect_exit 2 "$REVPERF" ci -f json -q --base base --summary s.md --junit j.xml
check_error out.txt 2 'build of [0-9a-f]{12} .* failed'
[ "$(json_get out.txt "d['command']")" = ci ] || fail "command"

# Other failures: a revision that does not exist, a bad configuration value, a usage
# error after the options parsed.
expect_exit 2 "$REVPERF" compare base no-such-rev -f json
check_error out.txt 2 "unknown revision 'no-such-rev'"
expect_exit 2 "$REVPERF" compare base HEAD -f json --tolerance 2
check_error out.txt 2 "invalid value '2' for tolerance"
expect_exit 2 "$REVPERF" compare base -f json
check_error out.txt 2 'expected BASE and TARGET revisions'
expect_exit 2 "$REVPERF" history no-such-rev -f json -q
check_error out.txt 2 "unknown revision 'no-such-rev'"
[ "$(json_get out.txt "d['command']")" = history ] || fail "command"
expect_exit 2 "$REVPERF" bisect -f json base HEAD
check_error out.txt 2 'expected --bench NAME'
expect_exit 2 "$REVPERF" ci -f json --base no-such-branch
check_error out.txt 2 "unknown revision 'no-such-branch'"
# and the commands beyond the comparing ones
expect_exit 2 "$REVPERF" bindiff -f json /nonexistent /nonexistent
check_error out.txt 2 '/nonexistent'
expect_exit 2 "$REVPERF" run -f json HEAD
check_error out.txt 2 'build of [0-9a-f]{12} .* failed'

# A failure after the report exists (a benchmark that cannot be started): the report,
# with the error in it.
expect_exit 2 "$REVPERF" compare --cmd-a /nonexistent/prog --cmd-b true -f json --runs 3..3 -q
python3 - out.txt <<'PY' || fail "the error in the report: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "revperf-compare/6" and d["exit_code"] == 2, d
assert "cannot execute '/nonexistent/prog'" in d["error"]["message"], d["error"]
assert d["error"]["exit_code"] == 2, d["error"]
PY

# A report that was printed is not followed by an error document: one JSON value.
git checkout -q base -- revperf.ini
expect_exit 0 "$REVPERF" compare base base -f json --runs 3..3 --primary wchar
python3 -c "import json,sys; d=json.load(open('out.txt')); assert 'error' not in d and d['schema'] == 'revperf-compare/6'" ||
	fail "report and error mixed: $(cat out.txt)"
echo ok
