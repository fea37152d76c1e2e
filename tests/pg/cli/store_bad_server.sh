#!/bin/bash
# A store that cannot be used: an unreachable server, a connection string that does not
# parse, another program's database, a schema newer than this revperf, wrong credentials
# (tests/pg/cli/store_select.sh). Each is one line naming the store (never its password)
# and what to do, exit 2, and nothing stored is lost or changed. Through tests/pg/run.sh.
. "$SRCDIR/tests/cli/lib/common.bash"
: "${REVPERF_STORE:?run through tests/pg/run.sh}"
. "$PG_ENV"
url=$REVPERF_STORE
unset REVPERF_STORE
make_tiny_repo p && cd p
git commit -q --allow-empty -m next
q() { "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }

# Nobody listens on this port: refused at once (connect_timeout guards a silent host).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start=$(date +%s)
expect_exit 2 "$REVPERF" compare --store "postgresql://me:secret-pw@127.0.0.1:$port/x" base HEAD
expect_one_line err.txt
expect_grep "^revperf: error: cannot connect to the store postgresql://me@127.0.0.1:$port/x: .*(refused|not accept)" err.txt
expect_no_grep secret-pw err.txt
[ $(($(date +%s) - start)) -lt 30 ] || fail "an unreachable server took more than 30 s"
# A host that does not answer at all: connect_timeout (here 2 s) ends the wait.
start=$(date +%s)
expect_exit 2 "$REVPERF" history --store "host=192.0.2.1 port=5432 dbname=x connect_timeout=2"
expect_one_line err.txt
[ $(($(date +%s) - start)) -lt 30 ] || fail "a silent host took more than 30 s"

# A connection string libpq cannot parse: said so, without quoting it (it may hold a
# password).
expect_exit 2 "$REVPERF" compare --store "host=x password=hunter2 port" base HEAD
expect_one_line err.txt
expect_grep "connection string does not parse" err.txt
expect_no_grep hunter2 err.txt

# Another program's database: refused, its tables untouched, nothing created.
q "$url" "create table accounts(id integer, owner text); insert into accounts values(1, 'x')"
expect_exit 2 "$REVPERF" compare --store "$url" base HEAD
expect_one_line err.txt
expect_grep "is a PostgreSQL database of another program \(1 table, no schema_version table\); give revperf a database of its own" err.txt
[ "$(q "$url" "select count(*) from pg_tables where schemaname = 'public'")" = 1 ] ||
	fail "revperf created tables in another program's database"
[ "$(q "$url" 'select owner from accounts')" = x ] || fail "their table changed"
# ... and a schema of its own in that database works (options=-csearch_path=...).
q "$url" "create schema perf"
expect_exit 0 "$REVPERF" compare -q --store "$url options=-csearch_path=perf" -r 3..3 -w 0 \
	-t 90% base HEAD
[ "$(q "$url" 'select count(*) from perf.runs')" = 6 ] || fail "no runs in the schema perf"

# A schema newer than this revperf: refused by every command, nothing lost.
store="$url options=-csearch_path=perf"
q "$url" "update perf.schema_version set version = version + 1"
for cmd in "compare base HEAD" "history" "report" "predict HEAD"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$REVPERF" $cmd --store "$store"
	expect_one_line err.txt
	expect_grep "has schema version [0-9]+, newer than this revperf understands \([0-9]+\); upgrade revperf" err.txt
done
[ "$(q "$url" 'select count(*) from perf.runs')" = 6 ] || fail "runs lost"

# Read-only commands on an empty database: they say how to fill it, and create nothing.
q "$url" "create schema empty"
expect_exit 2 "$REVPERF" report --store "$url options=-csearch_path=empty"
expect_one_line err.txt
expect_grep "no results in .* yet; run \`revperf compare BASE TARGET\`" err.txt
[ "$(q "$url" "select count(*) from pg_tables where schemaname = 'empty'")" = 0 ] ||
	fail "report created tables"
# A [store] section with a key it does not take: the file and line, exit 2.
printf '[store]\nuri = %s\n' "$url" >>revperf.ini
expect_exit 2 "$REVPERF" history
expect_one_line err.txt
expect_grep "revperf.ini:[0-9]+: unknown option 'uri' \(did you mean 'url'\?\) in \[store\]; it takes 'url'" err.txt
git checkout -q revperf.ini
echo "ok"
