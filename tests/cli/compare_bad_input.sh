# Bad input: each a one-line error that says what to do, exit 2, nothing half-stored.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo

expect_exit 2 "$REVPERF" compare base no-such-rev
expect_grep "unknown revision 'no-such-rev'" err.txt
expect_one_line err.txt

expect_exit 2 "$REVPERF" compare base
expect_grep 'expected BASE and TARGET' err.txt

# Not a git repository.
mkdir ../plain && (cd ../plain && expect_exit 2 "$REVPERF" compare a b && expect_grep 'not inside a git repository' err.txt)

# Missing and malformed configuration, with file:line.
expect_exit 2 "$REVPERF" compare base base --config missing.ini
expect_grep "cannot read configuration 'missing.ini': No such file or directory; run \`revperf init\`" err.txt
printf '[benchmark "x"]\ncommand = true\nruns = many\n' >bad.ini
expect_exit 2 "$REVPERF" compare base base --config bad.ini
expect_grep '^revperf: error: bad.ini:3: invalid value .many. for runs' err.txt
expect_one_line err.txt
printf '[build]\ncommand = true\n[benchmark "x"\n' >bad2.ini
expect_exit 2 "$REVPERF" compare base base --config bad2.ini
expect_grep 'bad2.ini:3: syntax error' err.txt
expect_exit 2 "$REVPERF" compare base base --tolerance lots
expect_grep "^revperf: error: --tolerance: invalid value 'lots'" err.txt
# (in a fresh state dir: had it built anything, "building" would be on stderr)
expect_exit 2 "$REVPERF" compare base base --metrics wall,speed --state-dir fresh-state
expect_grep "unknown metric 'speed'" err.txt
expect_no_grep 'building' err.txt   # caught before anything is built
[ ! -d fresh-state/worktrees ] || [ -z "$(ls fresh-state/worktrees)" ] || fail "checked out before the error"
printf '[benchmark "x"]\ncommand = true\nprimary = wal\n' >typo.ini
expect_exit 2 "$REVPERF" compare base base --config typo.ini
expect_grep "typo.ini:3: unknown metric 'wal'" err.txt
expect_exit 2 "$REVPERF" compare base base --bench nope
expect_grep "no benchmark 'nope'" err.txt
# A mistyped name: the nearest and the names there are, on the one line (before: "its
# [benchmark \"NAME\"] sections name the choices"; libdeflate trial, -b decompres).
printf '[benchmark "decompress"]\ncommand = true\n[benchmark "compress-6"]\ncommand = true\n' >two.ini
expect_exit 2 "$REVPERF" compare base base --config two.ini --bench compress-6,decompres
expect_grep "no benchmark 'decompres' in .*two.ini \(did you mean 'decompress'\?\); its benchmarks: compress-6, decompress$" err.txt
expect_one_line err.txt

# A benchmark command that does not exist.
printf '[benchmark "ghost"]\ncommand = ./no-such-program --flag\n' >ghost.ini
expect_exit 2 "$REVPERF" compare base base --config ghost.ini -q
expect_grep "benchmark 'ghost' cannot be started" err.txt
expect_grep 'ghost.ini:2' err.txt

# A failed build names its log.
printf '[build]\ncommand = echo compiling; exit 3\n[benchmark "x"]\ncommand = true\n' >fail.ini
expect_exit 2 "$REVPERF" compare base base --config fail.ini -q
expect_grep 'build of [0-9a-f]{12} \(base\) failed: .*see .*/\.revperf/logs/build-' err.txt
log=$(grep -o '/[^ ]*/\.revperf/logs/build-[^ ]*\.log' err.txt | head -1)
expect_grep '^compiling$' "$log"

# An unusable state directory.
expect_exit 2 "$REVPERF" compare base base --state-dir /proc/version/sub -q
expect_grep 'cannot create directory' err.txt
expect_one_line err.txt

# A corrupt or foreign database file: refused, and left as it was.
mkdir -p st1 && head -c 8192 /dev/urandom >st1/revperf.db && cp st1/revperf.db st1/orig
expect_exit 2 "$REVPERF" compare base base --state-dir st1 -q
expect_grep 'is not a revperf database' err.txt
cmp -s st1/revperf.db st1/orig || fail "corrupt database was modified"
mkdir -p st2 && python3 -c "import sqlite3; c=sqlite3.connect('st2/revperf.db'); c.execute('create table t(x)'); c.commit()"
expect_exit 2 "$REVPERF" compare base base --state-dir st2 -q
expect_grep 'database of another program' err.txt
echo ok
