#!/bin/bash
# bench/network_cut.sh REVPERF [EXTRA_CONNINFO]
# How long revperf takes to end after the network to its PostgreSQL store is cut while a
# comparison runs (no reset ever comes): revperf compare in a network namespace, joined to
# this one by a veth pair, over TCP to a server of its own (tests/pg/pg_server.sh); once it
# runs its benchmarks (`sleep 3`, 3 runs per side), the pair's host side is set down. Prints
# the seconds from the cut to revperf's exit (at most 600: then it is killed) and its last
# lines. EXTRA_CONNINFO is appended to the connection string: libpq's own defaults
# ("keepalives_idle=7200 keepalives_interval=75 keepalives_count=9 tcp_user_timeout=0")
# measure what revperf did before it set its own. Needs root (ip netns) and PostgreSQL.
set -u
[ $# -ge 1 ] || { echo "usage: bench/network_cut.sh REVPERF [EXTRA_CONNINFO]" >&2; exit 2; }
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
EXTRA=${2:-}
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/revperf-netcut.XXXXXX)
tag=$$ net=$(($$ % 200 + 20)) ns=rpcut$$
cleanup() {
	[ -n "${pid:-}" ] && kill -9 "$pid" 2>/dev/null
	ip link set "rcut$tag" up 2>/dev/null
	bash "$SRC/tests/pg/pg_server.sh" stop "$T/pg" >/dev/null 2>&1
	ip netns del "$ns" 2>/dev/null
	ip link del "rcut$tag" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
ip netns add "$ns" && ip link add "rcut$tag" type veth peer name "rcut${tag}n" &&
	ip link set "rcut${tag}n" netns "$ns" && ip addr add "10.216.$net.1/30" dev "rcut$tag" &&
	ip link set "rcut$tag" up && ip netns exec "$ns" ip addr add "10.216.$net.2/30" dev "rcut${tag}n" &&
	ip netns exec "$ns" ip link set "rcut${tag}n" up && ip netns exec "$ns" ip link set lo up ||
	{ echo "network_cut.sh: cannot make a network namespace (root, iproute2)" >&2; exit 2; }
PG_LISTEN="10.216.$net.1" PG_HBA_NET="10.216.$net.0/30" \
	bash "$SRC/tests/pg/pg_server.sh" start "$T/pg" >/dev/null || { echo "no server" >&2; exit 2; }
bash "$SRC/tests/pg/pg_server.sh" createdb "$T/pg" netcut >/dev/null
. "$T/pg/pg.env"
mkdir "$T/repo" && cd "$T/repo" && git init -q . && git config user.email a@b && git config user.name t
printf '[build]\ncommand = true\n[benchmark "s"]\ncommand = sleep 3\nruns = 3..3\nwarmup = 0\n' >revperf.ini
git add . && git commit -qm a && git commit -q --allow-empty -m b
(PGPASSWORD=$PG_PASSWORD exec ip netns exec "$ns" "$REVPERF" compare HEAD~1 HEAD -q \
	--store "host=10.216.$net.1 port=$PG_PORT user=revperf dbname=netcut $EXTRA" \
	>"$T/out" 2>"$T/err") &
pid=$!
sleep 8
ip link set "rcut$tag" down
t0=$(date +%s)
while kill -0 "$pid" 2>/dev/null && [ $(($(date +%s) - t0)) -lt 600 ]; do sleep 1; done
echo "ended $(($(date +%s) - t0)) s after the cut$(kill -0 "$pid" 2>/dev/null && echo ' (still running: killed)')"
tail -n 3 "$T/err"
