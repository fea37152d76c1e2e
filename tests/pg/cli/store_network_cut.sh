#!/bin/bash
# A network cut while a comparison runs (the server's host gone, no reset ever comes): the
# statement that stores the next run fails within about a minute (keepalives and a TCP
# user timeout of 60 s, unless the connection string says otherwise), revperf tries to
# connect again (REVPERF_RECONNECT_S, 5 s here) and ends with one error line, exit 2; what
# was stored stays. Before, the statement waited on a dead socket for the kernel's two
# hours of keepalive idle: with libpq's defaults passed explicitly below, revperf was still
# waiting 600 s after the cut (bench/RESULTS.md has the measurement). revperf runs in a
# network namespace joined to this one by a veth pair, reaching a server of its own over
# TCP; the cut is the pair's host side set down. Skipped where network namespaces cannot
# be made (not root, no ip netns).
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
. "$SRCDIR/tests/pg/lib/netns.bash"
[ "$(id -u)" = 0 ] || { echo "SKIP: network namespaces need root"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip command (Debian package iproute2)"; exit 77; }
tag=$$
net=$((tag % 200 + 20))
ns=rpnc$tag
cleanup() {
	queue_cleanup
	ip netns del "$ns" 2>/dev/null
	ip link del "rnc$tag" 2>/dev/null
	bash "$SRCDIR/tests/pg/pg_server.sh" stop "$TEST_TMP/pg" >/dev/null 2>&1
	rm -rf "$TEST_TMP"
}
trap cleanup EXIT
if ! netns_link "$ns" "rnc$tag" "rnc${tag}n" "10.215.$net.1" "10.215.$net.2" 2>"$TEST_TMP/netns.err"; then
	echo "SKIP: cannot make network namespaces here: $(head -n 1 "$TEST_TMP/netns.err")"
	exit 77
fi
netns_server "10.215.$net.1" "10.215.$net.0/30" network_cut

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
printf '[build]\ncommand = true\n[benchmark "nap"]\ncommand = sleep 2\nruns = 5..5\nwarmup = 0\n' >revperf.ini
git add . && git commit -qm a && git commit -q --allow-empty -m b
(PGPASSWORD=$PG_PASSWORD REVPERF_RECONNECT_S=5 exec ip netns exec "$ns" "$REVPERF" compare HEAD~1 HEAD -q \
	--store "host=10.215.$net.1 port=$PG_PORT user=revperf dbname=network_cut" \
	>"$TEST_TMP/out" 2>"$TEST_TMP/err") &
pid=$!
QUEUE_PIDS="$pid"
stored() { [ "$(q "select count(*) from runs")" -ge 1 ]; }
wait_until 120 "a run stored over TCP" stored
ip link set "rnc$tag" down
cut=$(date +%s)
wait_pid "$pid" 200
rc=$WAIT_RC
took=$(($(date +%s) - cut))
cat "$TEST_TMP/err"
[ "$rc" = 2 ] || fail "exit $rc after the cut, not 2"
[ "$took" -le 150 ] || fail "ended $took s after the cut"
grep -q 'the connection was lost' "$TEST_TMP/err" || fail "no line says the connection was lost"
[ "$(grep -c 'error:' "$TEST_TMP/err")" = 1 ] || fail "not one error line"
ip link set "rnc$tag" up
[ "$(q "select count(*) from runs")" -ge 1 ] || fail "the runs stored before the cut are gone"
echo "ok: ended $took s after the cut"
