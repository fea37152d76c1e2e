# A store URL that names PostgreSQL but is not one ("postgresql:/host/db", one slash) is one
# error line, exit 2, and no database made. Before, it was taken for a file path: "postgres:
# localhost" made an SQLite store of that name in the working directory and the comparison
# went on there (a fleet's worker then wrote to a store of its own), and
# "postgresql:/localhost/x" said "cannot open database ...; check that .revperf/ is
# writable".
. "$SRCDIR/tests/cli/lib/common.bash"
git init -q .
for url in "postgresql:/localhost/x" "postgres:localhost" "PostgreSQL:/x"; do
	expect_exit 2 "$REVPERF" compare --cmd-a true --cmd-b true -q --store "$url"
	expect_grep "^revperf: error: the store '$url' is not a PostgreSQL URL: write postgresql://USER@HOST:PORT/DBNAME \(two slashes\)" err.txt
	[ "$(wc -l <err.txt)" = 1 ] || fail "more than one line: $(cat err.txt)"
done
[ ! -e postgresql: ] && [ ! -e postgres:localhost ] && [ ! -e PostgreSQL: ] || fail "a store was made: $(ls -a)"
# Its password is not printed.
expect_exit 2 "$REVPERF" compare --cmd-a true --cmd-b true -q -m wchar --store 'postgresql:/u:s3cret@h/db'
expect_grep "^revperf: error: the store 'postgresql:\.\.\.@h/db' is not a PostgreSQL URL" err.txt
expect_no_grep 's3cret' err.txt
# A file path that begins otherwise is still a file path.
expect_exit 0 "$REVPERF" compare --cmd-a true --cmd-b true -q -m wchar --store ./postgres-store.db
[ -f postgres-store.db ] || fail "the SQLite store at ./postgres-store.db was not made"
echo ok
