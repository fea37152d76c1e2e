#!/bin/sh
# tests/fuzz/run.sh FUZZ_ELF [SECONDS]: fuzzes the ELF and symbol reader for SECONDS
# (default 60), starting from small real builds (compiled here: object file, PIE, non-PIE,
# shared library, stripped, aarch64 when clang can). Exits non-zero on any crash or
# sanitizer report, leaving the reproducer (crash-*) in the corpus directory.
set -eu
FUZZER=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SECONDS_=${2:-60}
# 0 seconds: run each seed (and the corpus so far) once and stop, no fuzzing (`make test`).
LIMIT=-max_total_time=$SECONDS_
[ "$SECONDS_" != 0 ] || LIMIT=-runs=0
DIR=$(dirname "$FUZZER")/fuzz-corpus
mkdir -p "$DIR/seeds" "$DIR/elf"
cd "$DIR/seeds"
if [ ! -s pie ]; then
	cat >seed.c <<'C'
#include <stdio.h>
static int counter;
int scale(int x) { return x * 3 + 1; }
int twice(int x) { counter++; return scale(x) * 2; }
int alias_of_twice(int x) __attribute__((alias("twice")));
static const char *name(int i) { static const char *const n[] = { "zero", "one" }; return n[i & 1]; }
int pick(int x) { switch (x) { case 0: return 5; case 1: return 9; case 2: return 14; case 3: return 20; default: return -1; } }
double ratio(double x) { return x * 1.5; }
int main(int argc, char **argv) { (void)argv; puts(name(argc)); return twice(argc) + pick(argc) + (int)ratio(argc); }
C
	cc -O2 -g -c seed.c -o obj.o
	cc -O0 -c seed.c -o obj0.o
	cc -O2 -g seed.c -o pie
	cc -O2 -fno-pie -no-pie seed.c -o exe
	cc -O2 -g -fPIC -shared seed.c -o lib.so
	cp lib.so stripped.so && strip stripped.so
	grep -v '#include' seed.c | sed 's/puts(name(argc));/(void)name(argc);/' >arm.c
	clang --target=aarch64-linux-gnu -O1 -g -c arm.c -o arm.o 2>/dev/null || true
	rm -f seed.c arm.c
fi
cd "$DIR"
echo "fuzz: $FUZZER ($LIMIT, corpus $DIR/elf, seeds $DIR/seeds)"
# -close_fd_mask=2: the reader's one-line errors are expected; crash reports still show.
"$FUZZER" "$LIMIT" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	-close_fd_mask=2 -print_final_stats=1 "$DIR/elf" "$DIR/seeds"
