#!/bin/bash
# pg_server.sh start|stop|restart|status|createdb|dropdb STATE_DIR [NAME]: a real PostgreSQL
# server for the tests, from Debian's packages (found under /usr/lib/postgresql/*/bin, the
# newest, not through PATH).
#
#   start     initdb into a new temporary directory (owned by the postgres user when run as
#             root: the server refuses to run as root), then pg_ctl on a free loopback port
#             and on a socket in that directory. Writes STATE_DIR/pg.env, which the tests
#             source: PG_BIN, PG_DIR, PG_SOCK, PG_PORT, PG_ADMIN (a libpq connection string
#             of the superuser `revperf` through the socket, trust), PG_PASSWORD (that
#             user's password over TCP, scram-sha-256). Without a server binary it writes
#             STATE_DIR/skip with the reason and exits 0: the tests then skip, saying why.
#             PG_LISTEN (more addresses to listen on) and PG_HBA_NET (a CIDR allowed over
#             TCP with the password) from the environment: workers in network namespaces.
#   stop      pg_ctl stop (fast), and the temporary directory removed.
#   restart   pg_ctl restart (fast): every client's connection is dropped.
#   bounce    SECONDS: stopped (fast), down for SECONDS, started again.
#   stop-keep, start-again: stopped (fast), its files kept; started again.
#   createdb  a new empty database NAME; prints its connection string (socket, trust).
#   dropdb    drops the database NAME (connections to it ended first).
# Exit codes: 0 ok, 2 usage error, 3 the server would not start or stop (its log printed).
set -u
usage="usage: $0 start|stop|restart|bounce|stop-keep|start-again|status|createdb|dropdb STATE_DIR [NAME|SECONDS]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
cmd=$1 state=$2 name=${3:-}
env_file=$state/pg.env

# as_server CMD...: runs CMD as the user that owns the server's files.
as_server() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# A TCP port nobody listens on now (the server binds it a moment later; start retries).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The server of pg.env stopped (fast: clients dropped) and started, its files kept.
server_stop() {
	as_server "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
		{ tail -n 20 "$PG_DIR/server.log" >&2; return 3; }
}
server_start() {
	as_server "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 start \
		-o "$(server_options "$PG_PORT" "$PG_DIR")" >/dev/null 2>&1 ||
		{ tail -n 20 "$PG_DIR/server.log" >&2; return 3; }
}
# The server's options: TCP on 127.0.0.1:PORT (and the addresses of PG_LISTEN, a comma-
# separated list: the queue's test of workers in network namespaces), the socket in
# DIR/sock; fsync off (the tests need no durability against a power cut).
server_options() {
	echo "-c listen_addresses=127.0.0.1${PG_LISTEN:+,$PG_LISTEN} -c port=$1 -c unix_socket_directories=$2/sock -c fsync=off -c max_connections=200 -c shared_buffers=16MB"
}

psql_admin() { # SQL...: as the superuser, through the socket, quiet, stop on error
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$PG_ADMIN" "$@"
}

case $cmd in
start)
	mkdir -p "$state"
	# a server left by an interrupted run of the tests
	[ -f "$env_file" ] && "$0" stop "$state" >/dev/null 2>&1
	rm -f "$state/skip" "$env_file"
	bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
		echo "no PostgreSQL server under /usr/lib/postgresql/*/bin (Debian package postgresql; make deps installs it)" >"$state/skip"
		exit 0
	fi
	if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
		echo "running as root without a postgres user to run the server as" >"$state/skip"
		exit 0
	fi
	dir=$(mktemp -d /tmp/revperf-pg.XXXXXX)
	mkdir -p "$dir/sock"
	password=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
	printf '%s\n' "$password" >"$dir/pwfile"
	[ "$(id -u)" -eq 0 ] && chown -R postgres: "$dir"
	# Trust through the socket (the tests' own connections), passwords over TCP (the
	# tests of credentials).
	if ! as_server "$bin/initdb" -D "$dir/data" -U revperf --pwfile="$dir/pwfile" -E UTF8 \
		--locale=C --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2
		rm -rf "$dir"
		exit 3
	fi
	# PG_HBA_NET (a CIDR): passwords over TCP from there too.
	[ -n "${PG_HBA_NET:-}" ] &&
		echo "host all all $PG_HBA_NET scram-sha-256" >>"$dir/data/pg_hba.conf"
	for try in 1 2 3 4 5; do
		port=$(free_port)
		if as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
			-o "$(server_options "$port" "$dir")" >/dev/null 2>&1; then
			break
		fi
		port=""
	done
	if [ -z "$port" ]; then
		echo "pg_server.sh: the server did not start; its log:" >&2
		tail -n 20 "$dir/server.log" >&2
		rm -rf "$dir"
		exit 3
	fi
	cat >"$env_file" <<EOF
PG_BIN=$bin
PG_DIR=$dir
PG_SOCK=$dir/sock
PG_PORT=$port
PG_ADMIN='host=$dir/sock port=$port user=revperf dbname=postgres'
PG_PASSWORD=$password
PG_LISTEN=${PG_LISTEN:-}
EOF
	;;
stop | restart | bounce | stop-keep | start-again | status | createdb | dropdb)
	if [ -f "$state/skip" ]; then
		[ "$cmd" = stop ] && rm -f "$state/skip"
		exit 0
	fi
	[ -f "$env_file" ] || { echo "pg_server.sh: no server started in $state" >&2; exit 2; }
	# shellcheck disable=SC1090
	. "$env_file"
	case $cmd in
	stop)
		server_stop || exit 3
		rm -rf "$PG_DIR" "$env_file"
		;;
	restart)
		server_stop && server_start
		;;
	bounce)
		server_stop && sleep "${name:-1}" && server_start
		;;
	stop-keep)
		server_stop
		;;
	start-again)
		server_start
		;;
	status)
		as_server "$PG_BIN/pg_ctl" -D "$PG_DIR/data" status >/dev/null 2>&1
		;;
	createdb)
		[ -n "$name" ] || { echo "pg_server.sh createdb: a database name" >&2; exit 2; }
		psql_admin -c "CREATE DATABASE \"$name\"" >/dev/null || exit 3
		echo "host=$PG_SOCK port=$PG_PORT user=revperf dbname=$name"
		;;
	dropdb)
		[ -n "$name" ] || { echo "pg_server.sh dropdb: a database name" >&2; exit 2; }
		psql_admin -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null || exit 3
		;;
	esac
	;;
*)
	echo "$usage" >&2
	exit 2
	;;
esac
