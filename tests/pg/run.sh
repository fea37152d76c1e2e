#!/bin/bash
# run.sh STATE_DIR unit PROGRAM [ARGS...] | cli SCRIPT: runs a test against the PostgreSQL
# server that tests/pg/pg_server.sh started (ctest's fixture `pg`).
#   unit  the program with REVPERF_TEST_PG set to the superuser's connection string: the
#         store's unit tests make a database of their own per test (tests/unit/tmp_db.h).
#   cli   the script with REVPERF_STORE set to a new database made for it (dropped after),
#         so that every revperf command it runs stores in PostgreSQL; PG_ENV names the
#         server's pg.env for scripts that look into the database or restart the server.
# Exits with the test's status; 77 (skipped, with the reason) without a server.
set -u
[ $# -ge 3 ] || { echo "usage: $0 STATE_DIR unit PROGRAM | cli SCRIPT" >&2; exit 2; }
state=$1 kind=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$state/skip" ]; then
	echo "SKIP: $(cat "$state/skip")"
	exit 77
fi
[ -f "$state/pg.env" ] || { echo "no server: pg/server_start did not run (ctest fixture pg)" >&2; exit 2; }
# shellcheck disable=SC1091
. "$state/pg.env"
case $kind in
unit)
	REVPERF_TEST_PG=$PG_ADMIN exec "$@"
	;;
cli)
	db=revperf_$(basename "$1" .sh)_$$
	url=$(bash "$here/pg_server.sh" createdb "$state" "$db") || exit 3
	rc=0
	REVPERF_STORE=$url PG_ENV=$state/pg.env bash "$@" || rc=$?
	bash "$here/pg_server.sh" dropdb "$state" "$db" || true
	exit $rc
	;;
*)
	echo "usage: $0 STATE_DIR unit PROGRAM | cli SCRIPT" >&2
	exit 2
	;;
esac
