#!/bin/bash
# bench/report_ab.sh SESSIONS RUNS SQLITE_STATE PG_STATE PG_URL NAME=REVPERF...
# `revperf report` of builds side by side, interleaved: in each session, RUNS rounds, each
# round one run of every build on SQLite (--state-dir SQLITE_STATE) then on PostgreSQL
# (--state-dir PG_STATE with REVPERF_STORE=PG_URL). The states come from
# bench/report_bench (the PostgreSQL one with REVPERF_STORE set). Each run writes into an
# output directory removed before it (untimed): a site written over an older one costs
# more, and differently from one run to the next. With CHRT=N the runs are
# `chrt -f N` (give the PostgreSQL server's postmaster the same before: its backends
# inherit it). Prints every run (wall, user, sys, max RSS), then per session and build the
# median and range of the wall time, and the load average at each session's start and end.
set -eu
[ $# -ge 6 ] || { echo "usage: $0 SESSIONS RUNS SQLITE_STATE PG_STATE PG_URL NAME=REVPERF..." >&2; exit 2; }
sessions=$1 runs=$2 sq=$3 pg=$4 url=$5
shift 5
work=$(mktemp -d "${TMPDIR:-/tmp}/revperf-report-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
rt=()
[ -n "${CHRT:-}" ] && rt=(chrt -f "$CHRT")
for s in $(seq 1 "$sessions"); do
	echo "session $s start: $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
	for r in $(seq 1 "$runs"); do
		for b in "$@"; do
			name=${b%%=*} bin=${b#*=}
			for engine in sqlite pg; do
				rm -rf "$work/site"
				if [ $engine = pg ]; then
					REVPERF_STORE=$url "${rt[@]}" /usr/bin/time -f "%e %U %S %M" -o "$work/t" \
						"$bin" report --state-dir "$pg" --out "$work/site" -q
				else
					env -u REVPERF_STORE "${rt[@]}" /usr/bin/time -f "%e %U %S %M" -o "$work/t" \
						"$bin" report --state-dir "$sq" --out "$work/site" -q
				fi
				read -r e u sy kb <"$work/t"
				echo "session $s run $r $name $engine: $e s wall, $u user, $sy sys, $((kb / 1024)) MiB"
				echo "$e" >>"$work/$s-$name-$engine"
			done
		done
	done
	echo "session $s end: $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
	for b in "$@"; do
		name=${b%%=*}
		for engine in sqlite pg; do
			sort -n "$work/$s-$name-$engine" | awk -v t="session $s $name $engine" '{ v[NR] = $1 } END {
				printf "%s: median %.2f s, range %.2f-%.2f (%d runs)\n", t,
					(NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR], NR }'
		done
	done
done
