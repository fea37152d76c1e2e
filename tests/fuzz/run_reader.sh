#!/bin/sh
# tests/fuzz/run_reader.sh FUZZER SECONDS SEED_FILE...: fuzzes a profile reader for SECONDS,
# starting from the seed files. Exits non-zero on any crash, broken invariant or sanitizer
# report, leaving the reproducer (crash-*) in the corpus directory next to the fuzzer.
set -eu
FUZZER=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SECONDS_=$2
# 0 seconds: run each seed (and the corpus so far) once and stop, no fuzzing (`make test`).
LIMIT=-max_total_time=$SECONDS_
[ "$SECONDS_" != 0 ] || LIMIT=-runs=0
shift 2
DIR=$(dirname "$FUZZER")/$(basename "$FUZZER")-corpus
mkdir -p "$DIR/seeds" "$DIR/corpus"
cp "$@" "$DIR/seeds/"
cd "$DIR"
echo "fuzz: $FUZZER ($LIMIT, corpus $DIR/corpus)"
# -close_fd_mask=2: the readers' one-line errors are expected.
"$FUZZER" "$LIMIT" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	-close_fd_mask=2 -print_final_stats=1 "$DIR/corpus" "$DIR/seeds"
