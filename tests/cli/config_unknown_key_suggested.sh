# An unknown key in revperf.ini gets a "did you mean", as a mistyped command or option
# does, in the file:line form, one line, exit 2. Before, `tolerence = 2%` said only
# "unknown option 'tolerence' in [defaults]".
. "$SRCDIR/tests/cli/lib/common.bash"

check() { # INI_TEXT EXPECTED_LINE
	printf '%b' "$1" >bad.ini
	expect_exit 2 "$REVPERF" compare -c bad.ini --cmd-a true --cmd-b true
	expect_one_line err.txt
	grep -qxF "revperf: error: $2" err.txt || { cat err.txt; fail "expected: $2"; }
}
check '[defaults]\ntolerence = 2%%\n' \
	"bad.ini:2: unknown option 'tolerence' (did you mean 'tolerance'?) in [defaults]; see \`revperf init\` for the template"
check '[benchmark "x"]\ncommand = true\nwarmpu = 1\n' \
	"bad.ini:3: unknown option 'warmpu' (did you mean 'warmup'?) in [benchmark \"x\"]; see \`revperf init\` for the template"
check '[build]\ncomand = make\n' \
	"bad.ini:2: unknown option 'comand' (did you mean 'command'?) in [build]; it takes 'command', 'profile-command' and 'timeout'"
check '[report]\ncommit_url = https://example.org/{sha}\n' \
	"bad.ini:2: unknown option 'commit_url' (did you mean 'commit-url'?) in [report]; it takes 'commit-url'"
check '[store]\nurls = x.db\n' \
	"bad.ini:2: unknown option 'urls' (did you mean 'url'?) in [store]; it takes 'url'"
# A key of [defaults] alone (seed) is suggested there, and a key near none gets no
# suggestion.
check '[defaults]\nseeds = 1\n' \
	"bad.ini:2: unknown option 'seeds' (did you mean 'seed'?) in [defaults]; see \`revperf init\` for the template"
check '[defaults]\nzzzzzz = 1\n' \
	"bad.ini:2: unknown option 'zzzzzz' in [defaults]; see \`revperf init\` for the template"
# The keys suggested above are those the sections take.
printf '[defaults]\nalpha = 0.01\nseed = 1\n[benchmark "x"]\ncommand = true\nwarmup = 0\nruns = 2..2\nmetrics = wchar\nprimary = wchar\n[build]\ncommand =\n[report]\ncommit-url = https://example.org/{sha}\n[store]\nurl = s.db\n' >good.ini
expect_exit 0 "$REVPERF" compare -c good.ini --cmd-a true --cmd-b true -q
echo ok
