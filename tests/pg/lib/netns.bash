# Shared by the tests that put revperf on another "host" (tests/pg/cli/queue_netns.sh,
# store_network_cut.sh): network namespaces joined to this one by veth pairs, and a
# PostgreSQL server of the test's own listening on their links. After
# tests/cli/lib/common.bash; the caller checks root and `ip` first.

# netns_link NS HOSTIF NSIF HOSTIP NSIP: a namespace joined to this one by a veth pair.
netns_link() {
	ip netns add "$1" && ip link add "$2" type veth peer name "$3" &&
		ip link set "$3" netns "$1" && ip addr add "$4/30" dev "$2" && ip link set "$2" up &&
		ip netns exec "$1" ip addr add "$5/30" dev "$3" &&
		ip netns exec "$1" ip link set "$3" up && ip netns exec "$1" ip link set lo up
}

# netns_server LISTEN HBA_NET DBNAME: a server of the test's own in $TEST_TMP/pg, listening
# also on LISTEN (comma-separated addresses), accepting HBA_NET with a password, with a
# database DBNAME: exports REVPERF_STORE and PG_ENV and sources PG_ENV. Exits 77 (a skip)
# when the server cannot be made here.
netns_server() {
	local state=$TEST_TMP/pg
	PG_LISTEN="$1" PG_HBA_NET="$2" bash "$SRCDIR/tests/pg/pg_server.sh" start "$state" ||
		fail "no server of its own"
	if [ -f "$state/skip" ]; then
		echo "SKIP: $(cat "$state/skip")"
		exit 77
	fi
	PG_ENV=$state/pg.env
	REVPERF_STORE=$(bash "$SRCDIR/tests/pg/pg_server.sh" createdb "$state" "$3") || fail "createdb"
	export REVPERF_STORE PG_ENV
	# shellcheck disable=SC1090
	. "$PG_ENV"
}
