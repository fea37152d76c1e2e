#!/bin/sh
# make bench: every benchmark of revperf itself, in the order of bench/RESULTS.md.
set -eu
here=$(dirname "$0")
echo "== overhead";             "$here/overhead.sh" "$1" 1000 3
echo "== sensitivity";          "$here/sensitivity.sh" "$1" 10
echo "== A/A false verdicts";   "$here/aa_false_verdicts.sh" "$1" 100
echo "== bindiff";               "$here/bindiff.sh" "$1" 20000 10
echo "== cct runtime";          "$here/cct_runtime.sh" "$1"
echo "== cct diff";             "$here/cct_diff.sh" "$1" 1000000 3
echo "== cct diff alone";       "$(dirname "$1")/bench/cct_diff_bench" 1000000 5 20
echo "== queue";                "$here/queue.sh" "$1" 48
echo "== sampling";             "$here/sample.sh" "$1" 3 10
echo "== perf script import";   "$here/perf_script.sh" "$1" 100000 5
