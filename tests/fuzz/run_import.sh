#!/bin/sh
# tests/fuzz/run_import.sh FUZZ_IMPORT [SECONDS]: fuzzes the JSON importers for SECONDS
# (default 60), starting from the fixtures of tests/data/import/ and a hyperfine export made
# here (when hyperfine is installed), with a dictionary of the formats' keys. Exits non-zero
# on any crash, broken invariant or sanitizer report, leaving the reproducer (crash-*) in
# the corpus directory.
set -eu
FUZZER=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SECONDS_=${2:-60}
# 0 seconds: run each seed (and the corpus so far) once and stop, no fuzzing (`make test`).
LIMIT=-max_total_time=$SECONDS_
[ "$SECONDS_" != 0 ] || LIMIT=-runs=0
SRC=$(cd "$(dirname "$0")/../.." && pwd)
DIR=$(dirname "$FUZZER")/fuzz-import-corpus
mkdir -p "$DIR/seeds" "$DIR/json"
cp "$SRC"/tests/data/import/*.json "$DIR/seeds/"
cd "$DIR/seeds"
if [ ! -s hyperfine.json ] && command -v hyperfine >/dev/null; then
	hyperfine -N --runs 3 --style none --export-json hyperfine.json -i 'true' 'false' \
		>/dev/null 2>&1 || rm -f hyperfine.json
fi
printf '{"results": [{"command": "a", "times": [1, 2], "exit_codes": [0, null]}]}' >tiny-hf.json
printf '{"benchmarks": [{"name": "a", "time_unit": "us", "real_time": 1, "cpu_time": 1, "x_per_second": NaN}]}' >tiny-gb.json
cat >"$DIR/json.dict" <<'DICT'
"\"results\""
"\"command\""
"\"times\""
"\"exit_codes\""
"\"benchmarks\""
"\"context\""
"\"name\""
"\"run_name\""
"\"run_type\""
"\"iteration\""
"\"aggregate\""
"\"aggregate_name\""
"\"real_time\""
"\"cpu_time\""
"\"time_unit\""
"\"ns\""
"\"us\""
"\"ms\""
"\"error_occurred\""
"\"error_message\""
"\"skipped\""
"\"bytes_per_second\""
"\"_per_second\""
"NaN"
"-Infinity"
"null"
"true"
"1e308"
"\\u0000"
DICT
cd "$DIR"
echo "fuzz: $FUZZER ($LIMIT, corpus $DIR/json, seeds $DIR/seeds)"
# -close_fd_mask=2: the importers' one-line errors and warnings are expected.
"$FUZZER" "$LIMIT" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	-close_fd_mask=2 -print_final_stats=1 -dict="$DIR/json.dict" "$DIR/json" "$DIR/seeds"
