#!/bin/sh
# bench/predict_real_lua.sh REVPERF LUA_CLONE [RANGE]
# The predictor's cross-validated hit and dismiss rates on the history of the Lua
# interpreter, with exact `ir` verdicts as labels (issue 17 item 6; bench/RESULTS.md,
# "Perphecy on a real history: Lua"). Modelled on bench/predict_real.sh (lz4).
#
# LUA_CLONE is a clone of github.com/lua/lua with its full history (its working tree is
# not touched: revperf builds each commit in its own worktree under LUA_CLONE/.revperf/;
# the script writes LUA_CLONE/revperf.ini). RANGE (default 0cecf1ab..53b41d0c: 99
# first-parent commits, 2025-06 to 2026-05) is measured commit by commit against its
# first parent with `revperf history`: 6 Lua scripts (bench/predict_real_lua/*.lua, copied
# into the data directory; 40-65 M instructions each), counted under callgrind (`ir`,
# 2 runs per side, exact), then `revperf train --evaluate`, with the verdicts of the
# default count tolerance (0.1%) and again at 1% (below).
#
# The build: the developers' makefile, with CFLAGS given whole on the command line so that
# every commit builds alike: -O2 -g as the makefile's own flags, without its -march=native
# (most of the range has it: valgrind 3.19 cannot run the AVX-512 code it emits here) and
# without its warning flags, and with the string hash seed fixed
# ('-Dluai_makeseed()=0u': lauxlib.c otherwise mixes the time and a stack address into
# the seed, so string hashing and table layouts would differ from run to run); through
# ccache (CCACHE_NOHASHDIR=1: a commit that changes no C file costs a link).
# The data directory is PREDICT_REAL_DATA, default LUA_CLONE/../predict-real-lua-data
# (outside the clone); its outputs: {history,train,train-1pct}.{txt,json} (history.err).
# PREDICT_REAL_OUT (default: the data directory) puts the outputs elsewhere: to add another
# window of history to the same store, keep the data directory (the benchmark and build
# commands name it, and training takes only verdicts of the configured commands) and give
# the second window its own outputs.
set -eu
[ $# -ge 2 ] || { echo "usage: bench/predict_real_lua.sh REVPERF LUA_CLONE [RANGE]" >&2; exit 2; }
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
P=$(cd "$2" && pwd)
RANGE=${3:-0cecf1ab..53b41d0c}
D=${PREDICT_REAL_DATA:-$(dirname "$P")/predict-real-lua-data}
SRC=$(cd "$(dirname "$0")" && pwd)/predict_real_lua
command -v valgrind >/dev/null || { echo "predict_real_lua.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
git -C "$P" cat-file -e 0cecf1ab:lvm.c 2>/dev/null ||
	{ echo "predict_real_lua.sh: $P is not a clone of lua with commit 0cecf1ab" >&2; exit 2; }
mkdir -p "$D"
D=$(cd "$D" && pwd)
cp "$SRC"/*.lua "$D/"

CFL="-Wall -O2 -std=c99 -DLUA_USE_LINUX -g -fno-stack-protector -fno-common '-Dluai_makeseed()=0u'"
. "$(cd "$(dirname "$0")" && pwd)/predict_real_lib.sh"
ccache_wrap "$D" gcc
{
	counted_ini_head "make -j2 lua ${CC_ARG}CFLAGS=\"$CFL\""
	for b in calls compile gc numeric strings tables; do
		printf '\n[benchmark "%s"]\ncommand = ./lua %s/%s.lua\n' "$b" "$D" "$b"
	done
} >"$P/revperf.ini"

O=${PREDICT_REAL_OUT:-$D}
mkdir -p "$O"
O=$(cd "$O" && pwd)
cd "$P"
history_and_train "$REVPERF" "$RANGE" "$O"
