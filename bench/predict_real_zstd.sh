#!/bin/sh
# bench/predict_real_zstd.sh REVPERF ZSTD_CLONE [RANGE]
# The predictor's cross-validated hit and dismiss rates on the history of zstd, with exact
# `ir` verdicts as labels: a held-out check of the dismiss budget chosen on Lua's history
# (bench/RESULTS.md, "A dismiss budget"; `--cover every-hit --min-dismiss 0.88`, evaluated
# afterwards with bench/predict_budget.sh). Modelled on bench/predict_real_lua.sh.
#
# ZSTD_CLONE is a clone of github.com/facebook/zstd with its full history (its working
# tree is not touched: revperf builds each commit in its own worktree under
# ZSTD_CLONE/.revperf/; the script writes ZSTD_CLONE/revperf.ini). RANGE (default
# 00c85b28e..71a025924: 60 first-parent commits of the dev branch, 2022-12-28 to
# 2023-02-02, 34 of which change lib/) is measured commit by commit against its first
# parent with `revperf history`: 4 benchmarks of the zstd CLI (./programs/zstd) on one
# fixed input, counted under callgrind (`ir`, 2 runs per side, exact), then
# `revperf train --evaluate`, with the verdicts of the default count tolerance (0.1%) and
# again at 1% (predict_real_lib.sh).
#
# Inputs, written to the data directory (made once; the same bytes whatever the range):
#   src.txt      lib/decompress/*.c, lib/common/*.c, lib/compress/zstd_lazy.c and
#                lib/compress/zstd_fast.c of commit 4f7183d88, concatenated in git's
#                order (466,335 bytes);
#   src.txt.zst  src.txt compressed at level 3 by the zstd of commit 4f7183d88, built as
#                below in DATA/base-build.
# Sized (before the history, on the builds of 4f7183d88 and 71a025924) so that every
# benchmark counts 5-62 M instructions; over the 61 builds of the default range: compress-1
# 10.64-10.67 M, compress-3 12.11-12.14 M, compress-9 61.62-61.65 M, decompress 5.05-5.06 M.
# The build: the developers' makefile with CFLAGS given whole (-O2 -g: no warning flags,
# no -march), single-threaded (HAVE_THREAD=0: no ZSTD_MULTITHREAD), without the legacy
# decoders (ZSTD_LEGACY_SUPPORT=0) and without the optional zlib/lzma/lz4 formats (their
# detection depends on the machine); through ccache when it is installed
# (CCACHE_NOHASHDIR=1: a commit that changes no C file costs a link).
# The data directory is PREDICT_REAL_DATA, default ZSTD_CLONE/../predict-real-zstd-data
# (outside the clone); its outputs: {history,train,train-1pct}.{txt,json} (history.err).
set -eu
[ $# -ge 2 ] || { echo "usage: bench/predict_real_zstd.sh REVPERF ZSTD_CLONE [RANGE]" >&2; exit 2; }
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
P=$(cd "$2" && pwd)
RANGE=${3:-00c85b28e..71a025924}
D=${PREDICT_REAL_DATA:-$(dirname "$P")/predict-real-zstd-data}
IN_COMMIT=4f7183d88
command -v valgrind >/dev/null || { echo "predict_real_zstd.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
git -C "$P" cat-file -e $IN_COMMIT:lib/compress/zstd_lazy.c 2>/dev/null ||
	{ echo "predict_real_zstd.sh: $P is not a clone of zstd with commit $IN_COMMIT" >&2; exit 2; }
mkdir -p "$D"
D=$(cd "$D" && pwd)

. "$(cd "$(dirname "$0")" && pwd)/predict_real_lib.sh"
ccache_wrap "$D" cc
BUILD="make -j2 -C programs zstd ${CC_ARG}CFLAGS='-O2 -g' HAVE_THREAD=0 ZSTD_LEGACY_SUPPORT=0 HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0"

if [ ! -s "$D/src.txt.zst" ]; then
	for f in $(git -C "$P" ls-tree --name-only $IN_COMMIT lib/decompress/ lib/common/ | grep '\.c$') \
		lib/compress/zstd_lazy.c lib/compress/zstd_fast.c; do
		git -C "$P" show "$IN_COMMIT:$f"
	done >"$D/src.txt"
	rm -rf "$D/base-build"
	mkdir -p "$D/base-build"
	git -C "$P" archive $IN_COMMIT | tar -x -C "$D/base-build"
	(cd "$D/base-build" && eval "${CC_WRAP}$BUILD" >build.log 2>&1)
	"$D/base-build/programs/zstd" -q -f -3 -T1 "$D/src.txt" -o "$D/src.txt.zst"
fi

{
	counted_ini_head "$BUILD"
	cat <<EOF2

[benchmark "compress-1"]
command = ./programs/zstd -q -f -T1 -1 $D/src.txt -o /dev/null

[benchmark "compress-3"]
command = ./programs/zstd -q -f -T1 -3 $D/src.txt -o /dev/null

[benchmark "compress-9"]
command = ./programs/zstd -q -f -T1 -9 $D/src.txt -o /dev/null

[benchmark "decompress"]
command = ./programs/zstd -q -f -T1 -d $D/src.txt.zst -o /dev/null
EOF2
} >"$P/revperf.ini"

cd "$P"
history_and_train "$REVPERF" "$RANGE" "$D"
