#!/bin/sh
# bench/predict_real_tinycc.sh REVPERF TINYCC_CLONE [RANGE]
# A third real history for the predictor (Perphecy), held out from every design decision:
# TinyCC's history measured commit by commit with exact `ir` verdicts as labels
# (bench/RESULTS.md, "A third history for Perphecy: TinyCC"). Modelled on
# bench/predict_real_lua.sh, but it only builds the history: it does not train, evaluate
# or relabel (the lead evaluates with a protocol fixed in advance).
#
# TINYCC_CLONE is a clone of github.com/TinyCC/tinycc (branch mob) with its full history
# (its working tree is not touched: revperf builds each commit in its own worktree under
# TINYCC_CLONE/.revperf/; the script writes TINYCC_CLONE/revperf.ini). RANGE (default
# 95e39517..0655fd96: 100 first-parent commits of mob, 2022-12-26 to 2023-11-27, 70 of
# which change tcc's C sources for x86-64/ELF or include/) is measured commit by commit
# against its first parent with `revperf history`: 5 benchmarks of the tcc each commit
# builds, counted under callgrind (`ir`, 2 runs per side, exact):
#   headers   tcc -c of headers.c: the C library's common headers (the preprocessor)
#   tccgen    tcc -c of tccgen.i, tccgen.c of IN_COMMIT preprocessed (the compiler proper)
#   tccelf-g  tcc -g -c of tccelf.i, likewise (the compiler with debug information)
#   gen-link  tcc of gen.c (gen.awk, 250 groups of functions) linked into an executable
#   run-cpu   tcc -run of cpu.c: compiled in memory and run (the generated code's quality)
# Every output goes to DATA/out/, never to /dev/null: tcc unlinks its output file before
# writing it, and as root that deletes /dev/null.
#
# Inputs, in the data directory (made once from IN_COMMIT; the same bytes whatever the
# range): tccgen.i and tccelf.i (`tcc -E -P` of IN_COMMIT's tccgen.c and tccelf.c by the
# tcc of IN_COMMIT, built as below in DATA/base-build), gen.c, and copies of headers.c and
# cpu.c (bench/predict_real_tinycc/). headers.c and the .i files hold the machine's glibc
# headers (Debian 12 here): another machine gives other counts.
# The build: the developers' configure and makefile, -O2 -g (configure's
# --extra-cflags replaces its default "-Wall -O2") and --debug (without it the makefile
# links tcc with -s: a stripped tcc has no .symtab, so no binary diff for the predictor's
# static data; --debug adds only -g), through ccache (CCACHE_NOHASHDIR=1).
# The data directory is PREDICT_REAL_DATA, default TINYCC_CLONE/../predict-real-tinycc-data;
# its outputs (PREDICT_REAL_OUT, default the data directory): history.txt, history.err.
set -eu
[ $# -ge 2 ] || { echo "usage: bench/predict_real_tinycc.sh REVPERF TINYCC_CLONE [RANGE]" >&2; exit 2; }
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
P=$(cd "$2" && pwd)
RANGE=${3:-95e39517..0655fd96}
D=${PREDICT_REAL_DATA:-$(dirname "$P")/predict-real-tinycc-data}
SRC=$(cd "$(dirname "$0")" && pwd)/predict_real_tinycc
IN_COMMIT=95e39517
command -v valgrind >/dev/null || { echo "predict_real_tinycc.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
git -C "$P" cat-file -e $IN_COMMIT:tccgen.c 2>/dev/null ||
	{ echo "predict_real_tinycc.sh: $P is not a clone of tinycc with commit $IN_COMMIT" >&2; exit 2; }
mkdir -p "$D/out"
D=$(cd "$D" && pwd)

. "$(cd "$(dirname "$0")" && pwd)/predict_real_lib.sh"
ccache_wrap "$D" gcc
BUILD="./configure --debug '--extra-cflags=-O2 -g' && ${CC_WRAP}make -j2 ${CC_ARG}"

if [ ! -s "$D/tccelf.i" ]; then
	rm -rf "$D/base-build"
	mkdir -p "$D/base-build"
	git -C "$P" archive $IN_COMMIT | tar -x -C "$D/base-build"
	(cd "$D/base-build" && eval "$BUILD" >build.log 2>&1)
	for f in tccgen tccelf; do
		"$D/base-build/tcc" -B"$D/base-build" -I"$D/base-build" -E -P \
			"$D/base-build/$f.c" -o "$D/$f.i"
	done
fi
cp "$SRC/headers.c" "$SRC/cpu.c" "$D/"
awk -v n=250 -f "$SRC/gen.awk" >"$D/gen.c"

{
	counted_ini_head "$BUILD"
	cat <<EOF2

[benchmark "headers"]
command = ./tcc -B. -c $D/headers.c -o $D/out/headers.o

[benchmark "tccgen"]
command = ./tcc -B. -c $D/tccgen.i -o $D/out/tccgen.o

[benchmark "tccelf-g"]
command = ./tcc -B. -g -c $D/tccelf.i -o $D/out/tccelf.o

[benchmark "gen-link"]
command = ./tcc -B. $D/gen.c -o $D/out/gen

[benchmark "run-cpu"]
command = ./tcc -B. -run $D/cpu.c
EOF2
} >"$P/revperf.ini"

O=${PREDICT_REAL_OUT:-$D}
mkdir -p "$O"
O=$(cd "$O" && pwd)
cd "$P"
start=$(date +%s)
"$REVPERF" history "$RANGE" >"$O/history.txt" 2>"$O/history.err" || {
	rc=$?
	tail -5 "$O/history.err" >&2
	exit $rc
}
echo "history: $(($(date +%s) - start)) s ($(git rev-list --first-parent --count "$RANGE") commits)"
