#!/bin/sh
# tests/fuzz/run_all.sh BUILD_FUZZ SECONDS: runs every fuzz target of BUILD_FUZZ (a build
# with -DREVPERF_FUZZ=ON) for SECONDS each, from its seeds; SECONDS 0 runs each seed once
# and fuzzes nothing (what `make test` does). Stops at the first target that finds a crash,
# a broken invariant or a sanitizer report.
set -eu
B=$(cd "$1" && pwd)/tests/fuzz
SECONDS_=$2
cd "$(dirname "$0")/../.."
./tests/fuzz/run.sh "$B/fuzz_elf" "$SECONDS_"
./tests/fuzz/run_import.sh "$B/fuzz_import" "$SECONDS_"
./tests/fuzz/run_cct_file.sh "$B/fuzz_cct_file" "$SECONDS_"
./tests/fuzz/run_reader.sh "$B/fuzz_callgrind" "$SECONDS_" \
	tests/data/callgrind/*.callgrind tests/data/callgrind/*.out
./tests/fuzz/run_reader.sh "$B/fuzz_folded" "$SECONDS_" tests/data/folded/*.folded
./tests/fuzz/run_reader.sh "$B/fuzz_perf_script" "$SECONDS_" tests/data/perf/*.perf
./tests/fuzz/run_reader.sh "$B/fuzz_io_profile" "$SECONDS_" tests/data/io/*.io.json
./tests/fuzz/run_reader.sh "$B/fuzz_sample_file" "$SECONDS_" tests/data/sample/*.sample
