# One set of conventions across the commands: -f/-q/--no-color on every command that
# prints a report, NO_COLOR, -V/--version, "did you mean" for commands, options and
# formats, a bare percentage above 1 refused with a hint (flag and revperf.ini:line), Perl
# habits in metric regexes named with their POSIX form, and every --profile kind in -h.
. "$SRCDIR/tests/cli/lib/common.bash"

# Every command but help, version and init prints a report: its -h lists the three
# options, from the one shared table (commands.h: CLI_OUTPUT_OPTIONS).
expect_exit 0 "$REVPERF" help
commands=$(sed -n 's/^    \([a-z]\+\)  .*/\1/p' out.txt)
[ "$(echo "$commands" | wc -w)" -ge 15 ] || fail "command list: $commands"
for c in $commands; do
	case $c in help | version | init) continue ;; esac
	expect_exit 0 "$REVPERF" "$c" -h
	for opt in '-f, --format FMT' '-q, --quiet' '--no-color'; do
		grep -qF -- "$opt" out.txt || { cat out.txt; fail "$c -h lacks $opt"; }
	done
done
# The two the issue found missing: parsed, not "unknown option".
make_tiny_repo repo
cd repo
expect_exit 0 "$REVPERF" history --no-color -q -n 1
expect_no_grep 'unknown option' err.txt
git commit -q --allow-empty -m "second"
expect_exit 0 "$REVPERF" ci -f json -q --base base --summary s.md --junit j.xml --runs 3..3
python3 - out.txt <<'PY' || fail "ci -f json: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "revperf-ci/2" and d["revperf_version"], d
assert d["summary"] == "s.md" and d["junit"] == "j.xml", d
c = d["comparison"]
assert c["benchmarks"][0]["name"] == "spin", c
assert c["baseline"]["sha"] == d["merge_base"], (c["baseline"], d["merge_base"])
PY
expect_exit 0 "$REVPERF" ci -f markdown -q --base base --summary s.md --junit j.xml --runs 3..3
expect_grep '^## revperf' out.txt
cd ..

# -V and --version: the version, as `revperf version`.
expect_exit 0 "$REVPERF" version
cp out.txt version.txt
for v in -V --version; do
	expect_exit 0 "$REVPERF" $v
	cmp -s out.txt version.txt || fail "revperf $v differs from revperf version"
done

# Did you mean: commands (also for help), options, formats; one line each.
expect_exit 2 "$REVPERF" comapre a b
expect_grep "'comapre' is not a revperf command \(did you mean 'compare'\?\)" err.txt
expect_one_line err.txt
expect_exit 2 "$REVPERF" help histroy
expect_grep "did you mean 'history'\?" err.txt
expect_exit 2 "$REVPERF" frobnicate
expect_no_grep 'did you mean' err.txt
expect_exit 2 "$REVPERF" compare --tolerence 2% a b
expect_grep "unknown option '--tolerence' \(did you mean '--tolerance'\?\)" err.txt
expect_one_line err.txt
expect_exit 2 "$REVPERF" history --no-colour
expect_grep "did you mean '--no-color'\?" err.txt
expect_exit 2 "$REVPERF" bindiff -f jsno a b
expect_grep "unknown format 'jsno' \(did you mean 'json'\?\): use text or json" err.txt
expect_exit 2 "$REVPERF" --versoin
expect_grep "did you mean '--version'\?" err.txt

# NO_COLOR (https://no-color.org): any non-empty value turns the colours off, as
# --no-color does; colours need a terminal, which script(1) gives.
if command -v script >/dev/null; then
	cmp_cmd="$REVPERF compare --cmd-a true --cmd-b true --runs 3..3 --warmup 0 -q"
	colour() { # ENV... : whether the report on a terminal has an escape sequence
		env "$@" TERM=xterm script -qec "$cmp_cmd $EXTRA" /dev/null </dev/null >tty.txt
		grep -q $'\x1b\[' tty.txt
	}
	EXTRA= colour || { cat tty.txt; fail "no colour on a terminal: the test cannot see it"; }
	EXTRA= colour NO_COLOR= || fail "an empty NO_COLOR turned the colour off"
	! EXTRA= colour NO_COLOR=1 || { cat -v tty.txt; fail "NO_COLOR=1 still coloured"; }
	! EXTRA= colour NO_COLOR=yes || fail "NO_COLOR=yes still coloured"
	! EXTRA=--no-color colour || fail "--no-color still coloured"
else
	echo "skipped the NO_COLOR check: script(1) (util-linux) is not installed"
fi

# A bare percentage above 1 would be 200%: refused, pointing to 2%.
expect_exit 2 "$REVPERF" compare --cmd-a true --cmd-b true --tolerance 2
expect_grep "^revperf: error: --tolerance: invalid value '2' for tolerance: .*200%.*write 2% " err.txt
expect_one_line err.txt
expect_exit 2 "$REVPERF" compare --cmd-a true --cmd-b true --count-tolerance 5
expect_grep "write 5% " err.txt
printf '[defaults]\ntolerance = 3\n[benchmark "x"]\ncommand = true\n' >pct.ini
expect_exit 2 "$REVPERF" compare --cmd-a true --cmd-b true --config pct.ini
expect_grep "^revperf: error: pct.ini:2: invalid value '3' for tolerance: .*write 3% " err.txt
printf '[benchmark "x"]\ncommand = true\nquiet = 25, 30s\n' >quiet.ini
expect_exit 2 "$REVPERF" compare --cmd-a true --cmd-b true --config quiet.ini
expect_grep "quiet.ini:3: .*write 25% " err.txt
# 1 is 100%, and fractions and percentages still work.
# (wchar decides: an A/A comparison of wall time in 3 pairs came out "worse" x4.9 once, under
# AddressSanitizer beside other tests)
expect_exit 0 "$REVPERF" compare --cmd-a true --cmd-b true --tolerance 0.5 --runs 3..3 -q \
	-m wall,wchar --primary wchar
expect_exit 0 "$REVPERF" compare --cmd-a true --cmd-b true --tolerance 50% --runs 3..3 -q \
	-m wall,wchar --primary wchar

# Perl habits in a POSIX regex: a warning naming the POSIX form, once per definition
# (the flag applies to each benchmark; history loads the file once per commit).
printf '[benchmark "one"]\ncommand = echo took 12 ms\n[benchmark "two"]\ncommand = echo took 13 ms\nmetric.took = /took\\s(\\d+) ms/\n' >habit.ini
expect_exit 0 "$REVPERF" compare --cmd-a 'echo took 12 ms' --cmd-b 'echo took 12 ms' --runs 3..3 -q \
	--metric 'took=/took (\d+) ms/' -m wall,wchar,took --primary wchar
expect_grep "^revperf: warning: --metric: metric.took: /took \(\\\\d\+\) ms/: \\\\d is Perl \(PCRE\) syntax that POSIX reads as the letter d; write \[0-9\]$" err.txt
expect_one_line err.txt
# ... and \d read as "d" finds no number: the first run's line shows it.
expect_grep '^  took: no match in the first baseline run' out.txt
cd repo
cp ../habit.ini revperf.ini
git commit -qam "benchmarks with a Perl habit"
expect_exit 0 "$REVPERF" history -n 2 -q --runs 3..3
expect_grep "^revperf: warning: .*revperf.ini:5: metric.took: .*write \[\[:space:\]\]; \\\\d is Perl" err.txt
expect_one_line err.txt
cd ..

# compare -h names every --profile kind that revperf.ini accepts (the error lists them).
expect_exit 2 "$REVPERF" compare --cmd-a true --cmd-b true --profile bogus
kinds=$(grep -o "'[a-z]\+' (" err.txt | tr -d "'( ")
[ "$(echo "$kinds" | wc -w)" -ge 3 ] || fail "kinds from the error: '$kinds'"
expect_exit 0 "$REVPERF" compare -h
sed -n '/--profile KINDS/,/\[config: profile\]/p' out.txt >profile-help.txt
for k in $kinds; do
	grep -qw "$k" profile-help.txt || { cat profile-help.txt; fail "compare -h: --profile lacks $k"; }
done
echo ok
