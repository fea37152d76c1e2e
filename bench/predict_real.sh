#!/bin/sh
# bench/predict_real.sh REVPERF LZ4_CLONE [RANGE]
# The predictor's cross-validated hit and dismiss rates on a real project's history, with
# exact `ir` verdicts as labels (issue 17 item 6; bench/RESULTS.md, "Perphecy on a real
# history").
#
# LZ4_CLONE is a clone of github.com/lz4/lz4 with its full history (its working tree is
# not touched: revperf builds each commit in its own worktree under LZ4_CLONE/.revperf/).
# RANGE (default 88c505d4..18e055e1: 65 first-parent commits, February to July 2024) is
# measured commit by commit against its first parent with `revperf history`, 4 benchmarks
# of the lz4 CLI on 150 kB of text (compress at levels 1, 2 and 9, decompress), counted
# under callgrind (`ir`, 2 runs per side, exact), then `revperf train --evaluate`, with the
# verdicts of the default count tolerance (0.1%) and again at 1% (below).
#
# Inputs, written to LZ4_CLONE/.predict-real-data/ (PREDICT_REAL_DATA overrides):
#   in150.txt  the first 150,000 bytes of lib/lz4.c, lib/lz4hc.c and lib/lz4frame.c of
#              commit d9c01a3d (the same bytes whatever the range);
#   in150.lz4  in150.txt compressed by the `lz4` on PATH at level 9 (Debian's lz4 1.9.4).
# The build: -O2 -g, without the CLI's worker threads (HAVE_MULTITHREAD=0: with them the
# decompression's asynchronous reads make its instruction counts differ by about 0.02%
# from run to run), through ccache when it is installed (CCACHE_NOHASHDIR=1: a commit that
# changes no C file costs a link).
# The outputs: LZ4_CLONE/.predict-real-data/{history,train,train-1pct}.{txt,json} (history.err),
# or in PREDICT_REAL_OUT: to add another window of history to the same store, keep the data
# directory (the benchmark and build commands name it, and training takes only verdicts of
# the configured commands) and give the second window its own outputs.
set -eu
[ $# -ge 2 ] || { echo "usage: bench/predict_real.sh REVPERF LZ4_CLONE [RANGE]" >&2; exit 2; }
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
P=$(cd "$2" && pwd)
RANGE=${3:-88c505d4..18e055e1}
D=${PREDICT_REAL_DATA:-$P/.predict-real-data}
command -v valgrind >/dev/null || { echo "predict_real.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
command -v lz4 >/dev/null || { echo "predict_real.sh: needs lz4 on PATH for the decompression input (apt-get install lz4)" >&2; exit 2; }
git -C "$P" cat-file -e d9c01a3d:lib/lz4.c 2>/dev/null ||
	{ echo "predict_real.sh: $P is not a clone of lz4 with commit d9c01a3d" >&2; exit 2; }
mkdir -p "$D"
for f in lz4.c lz4hc.c lz4frame.c; do git -C "$P" show "d9c01a3d:lib/$f"; done | head -c 150000 >"$D/in150.txt"
lz4 -9 -f -q "$D/in150.txt" "$D/in150.lz4"

. "$(cd "$(dirname "$0")" && pwd)/predict_real_lib.sh"
ccache_wrap "$D" cc
{
	counted_ini_head "make -j2 lz4 ${CC_ARG}CFLAGS='-O2 -g' HAVE_MULTITHREAD=0"
	cat <<EOF

[benchmark "compress-1"]
command = ./programs/lz4 -1 -f -q $D/in150.txt /dev/null

[benchmark "compress-2"]
command = ./programs/lz4 -2 -f -q $D/in150.txt /dev/null

[benchmark "compress-9"]
command = ./programs/lz4 -9 -f -q $D/in150.txt /dev/null

[benchmark "decompress"]
command = ./programs/lz4 -d -f -q $D/in150.lz4 /dev/null
EOF
} >"$P/revperf.ini"

O=${PREDICT_REAL_OUT:-$D}
mkdir -p "$O"
O=$(cd "$O" && pwd)
cd "$P"
history_and_train "$REVPERF" "$RANGE" "$O"
