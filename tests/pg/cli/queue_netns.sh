#!/bin/bash
# Two workers as two hosts (docs/team.md): each in a network namespace of its own, joined
# to this one by a veth pair, reaching the server only over TCP with a password (not the
# loopback, not the socket), with its own machine name and clone. Every job runs once,
# and the server sees both workers' addresses. A server of its own, listening on the
# namespaces' links. Skipped where network namespaces cannot be made (not root, no
# ip netns).
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
. "$SRCDIR/tests/pg/lib/netns.bash"
[ "$(id -u)" = 0 ] || { echo "SKIP: network namespaces need root"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: no ip command (Debian package iproute2)"; exit 77; }
tag=$$
net=$((tag % 200 + 20))
nsa=rpqa$tag nsb=rpqb$tag
cleanup() {
	queue_cleanup
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
	ip link del "rqa$tag" 2>/dev/null
	ip link del "rqb$tag" 2>/dev/null
	bash "$SRCDIR/tests/pg/pg_server.sh" stop "$TEST_TMP/pg" >/dev/null 2>&1
	rm -rf "$TEST_TMP"
}
trap cleanup EXIT
if ! netns_link "$nsa" "rqa$tag" "rqa${tag}n" "10.213.$net.1" "10.213.$net.2" 2>"$TEST_TMP/netns.err" ||
	! netns_link "$nsb" "rqb$tag" "rqb${tag}n" "10.213.$net.5" "10.213.$net.6" 2>>"$TEST_TMP/netns.err"; then
	echo "SKIP: cannot make network namespaces here: $(head -n 1 "$TEST_TMP/netns.err")"
	exit 77
fi
netns_server "10.213.$net.1,10.213.$net.5" "10.213.$net.0/24" queue_netns

SLEEP_S=0.1 make_queue_repo p 3
(cd p && for i in 1 2 3 4; do git commit -q --allow-empty -m "c$i" && git tag "c$i"; done)
git clone -q p wa && git clone -q p wb
cd p
for i in 1 2 3 4; do expect_exit 0 "$REVPERF" submit compare "c$i~1" "c$i" -q; done

# Inside a namespace, the server's loopback address is not this host's.
! ip netns exec "$nsa" "$PG_BIN/psql" -X -q -d "host=127.0.0.1 port=$PG_PORT user=revperf dbname=queue_netns connect_timeout=3" \
	-c 'select 1' >/dev/null 2>&1 || fail "namespace $nsa reaches the host's loopback"
# ns_worker NS NAME DIR HOSTIP: a worker in the namespace, over TCP to HOSTIP.
ns_worker() {
	(cd "$3" && PGPASSWORD=$PG_PASSWORD exec ip netns exec "$1" "$REVPERF" worker \
		--machine "$2" --idle 0.2 --store "host=$4 port=$PG_PORT user=revperf dbname=queue_netns" \
		>"$TEST_TMP/$2.out" 2>"$TEST_TMP/$2.err") &
	QUEUE_PIDS="$QUEUE_PIDS $!"
}
ns_worker "$nsa" hostA "$TEST_TMP/wa" "10.213.$net.1"
pa=$!
ns_worker "$nsb" hostB "$TEST_TMP/wb" "10.213.$net.5"
pb=$!
both() { [ "$(q "select count(distinct client_addr) from pg_stat_activity where client_addr in ('10.213.$net.2', '10.213.$net.6')")" = 2 ]; }
wait_until 60 "both workers connected over TCP from their namespaces" both
all_done() { [ "$(q "select count(*) from jobs where state = 'done'")" = 4 ]; }
wait_until 300 "4 jobs done" all_done
kill -TERM "$pa" "$pb"
wait_pid "$pa" 60
wait_pid "$pb" 60
cat "$TEST_TMP/hostA.err" "$TEST_TMP/hostB.err"
[ "$(q "select count(*) from jobs where attempts = 1 and machine in ('hostA', 'hostB')")" = 4 ] ||
	fail "jobs: $(q 'select id, attempts, machine from jobs')"
[ "$(q "select count(*) from comparisons")" = 4 ] || fail "$(q 'select count(*) from comparisons') comparisons for 4 jobs"
[ "$(q "select count(*) from (select comparison_id from runs group by comparison_id having count(distinct machine_id) > 1) x")" = 0 ] ||
	fail "a comparison mixes machines"
echo "ok: hostA ran $(q "select count(*) from jobs where machine = 'hostA'"), hostB $(q "select count(*) from jobs where machine = 'hostB'")"
