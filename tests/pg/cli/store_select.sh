#!/bin/bash
# Choosing the store (docs/store.md): --store, else REVPERF_STORE, else [store] url of
# revperf.ini, else .revperf/revperf.db; a PostgreSQL connection string as libpq takes it
# (a URL or key=value pairs, the password in a URL, PGPASSWORD or a password file), and no
# password in any message. Runs through tests/pg/run.sh, which gives REVPERF_STORE (a new
# database) and PG_ENV (the server: PG_SOCK, PG_PORT, PG_PASSWORD).
. "$SRCDIR/tests/cli/lib/common.bash"
: "${REVPERF_STORE:?run through tests/pg/run.sh}"
. "$PG_ENV"
url=$REVPERF_STORE
unset REVPERF_STORE
make_tiny_repo p && cd p
git commit -q --allow-empty -m next

runs_in() { # CONNINFO: the runs stored in that database
	"$PG_BIN/psql" -X -q -A -t -d "$1" -c 'select count(*) from runs'
}

# --store: the runs go to PostgreSQL, nothing to .revperf/revperf.db.
expect_exit 0 "$REVPERF" compare -q --store "$url" -r 3..3 -w 0 -t 90% base HEAD
[ ! -e .revperf/revperf.db ] || fail "--store: an SQLite database was created too"
[ "$(runs_in "$url")" = 6 ] || fail "--store: expected 6 runs in PostgreSQL, got $(runs_in "$url")"
[ -d .revperf/worktrees ] || fail "--store: worktrees still live in the state directory"

# REVPERF_STORE, and --store before it (an SQLite file).
REVPERF_STORE=$url expect_exit 0 "$REVPERF" compare -q -r 3..3 -w 0 -t 90% base HEAD
[ "$(runs_in "$url")" = 6 ] || fail "REVPERF_STORE: the 6 runs are reused, none added"
REVPERF_STORE=$url expect_exit 0 "$REVPERF" compare -q --store "$TEST_TMP/local.db" -r 3..3 \
	-w 0 -t 90% base HEAD
[ "$(sqlite3 "$TEST_TMP/local.db" 'select count(*) from runs')" = 6 ] ||
	fail "--store FILE under REVPERF_STORE: not stored in the file"
[ "$(runs_in "$url")" = 6 ] || fail "--store FILE under REVPERF_STORE: PostgreSQL got runs"

# A file whose path holds an '=' is a file, not a key=value connection string.
mkdir "$TEST_TMP/x=1"
expect_exit 0 "$REVPERF" compare -q --store "$TEST_TMP/x=1/local.db" -r 3..3 -w 0 -t 90% base HEAD
[ "$(sqlite3 "$TEST_TMP/x=1/local.db" 'select count(*) from runs')" = 6 ] ||
	fail "a path with '=': not stored in the file"

# [store] url in revperf.ini (key=value pairs here), below REVPERF_STORE; read-only
# commands (history's report, report) read it too.
printf '[store]\nurl = %s\n' "$url" >>revperf.ini
expect_exit 0 "$REVPERF" history -q -n 1 -r 3..3 -w 0 -t 90% -f json
[ "$(json_get out.txt 'd["commits"][0]["against"]')" = "$(git rev-parse base)" ] ||
	fail "[store] url: history: $(cat out.txt)"
[ "$(runs_in "$url")" = 6 ] || fail "[store] url: history did not reuse the stored runs"
expect_exit 0 "$REVPERF" report -q -o site
[ -f site/index.html ] || fail "[store] url: report wrote no site"
[ ! -e .revperf/revperf.db ] || fail "[store] url: an SQLite database was created"
REVPERF_STORE=$TEST_TMP/env.db expect_exit 0 "$REVPERF" compare -q -r 3..3 -w 0 -t 90% base HEAD
[ "$(sqlite3 "$TEST_TMP/env.db" 'select count(*) from runs')" = 6 ] ||
	fail "REVPERF_STORE did not win over [store] url"
git checkout -q revperf.ini

# The password: in the URL (TCP, scram-sha-256), from PGPASSWORD, from a password file;
# never in a message, also when it is wrong.
db=${url##*dbname=}
pw_url="postgresql://revperf:$PG_PASSWORD@127.0.0.1:$PG_PORT/$db"
expect_exit 0 "$REVPERF" compare --store "$pw_url" -r 3..3 -w 0 -t 90% base HEAD
expect_no_grep "$PG_PASSWORD" out.txt
expect_no_grep "$PG_PASSWORD" err.txt
PGPASSWORD=$PG_PASSWORD expect_exit 0 "$REVPERF" compare -q --store \
	"host=127.0.0.1 port=$PG_PORT user=revperf dbname=$db" -r 3..3 -w 0 -t 90% base HEAD
printf '127.0.0.1:%s:*:revperf:%s\n' "$PG_PORT" "$PG_PASSWORD" >"$TEST_TMP/pgpass"
chmod 600 "$TEST_TMP/pgpass"
PGPASSFILE=$TEST_TMP/pgpass expect_exit 0 "$REVPERF" compare -q --store \
	"postgresql://revperf@127.0.0.1:$PG_PORT/$db" -r 3..3 -w 0 -t 90% base HEAD
[ "$(runs_in "$url")" = 6 ] || fail "the same store by password: runs were added, not reused"

bad_url="postgresql://revperf:wrong-$PG_PASSWORD@127.0.0.1:$PG_PORT/$db"
expect_exit 2 "$REVPERF" compare --store "$bad_url" base HEAD
expect_one_line err.txt
expect_grep "^revperf: error: cannot connect to the store postgresql://revperf@127.0.0.1:$PG_PORT/$db: .*password authentication failed" err.txt
expect_no_grep "$PG_PASSWORD" err.txt
expect_exit 2 "$REVPERF" report --store "$bad_url"
expect_no_grep "$PG_PASSWORD" err.txt
PGPASSWORD=nope expect_exit 2 "$REVPERF" history --store \
	"host=127.0.0.1 port=$PG_PORT user=revperf dbname=$db"
expect_one_line err.txt
expect_no_grep nope err.txt

# A password in revperf.ini: used, with a warning to keep it elsewhere (never echoed).
printf '[store]\nurl = %s\n' "$pw_url" >>revperf.ini
expect_exit 0 "$REVPERF" compare -q -r 3..3 -w 0 -t 90% base HEAD
expect_grep "revperf.ini:[0-9]+: \[store\] url holds a password; .*PGPASSFILE" err.txt
expect_no_grep "$PG_PASSWORD" err.txt
git checkout -q revperf.ini

# An empty --store.
expect_exit 2 "$REVPERF" compare --store "" base HEAD
expect_one_line err.txt
echo "ok"
