#!/bin/sh
# tests/fuzz/run_cct_file.sh FUZZ_CCT_FILE [SECONDS]: fuzzes the CCT profile reader for
# SECONDS (default 60), starting from the profiles of tests/data/cct-file/ and a few made
# here, with a dictionary of the format's tags. Exits non-zero on any crash, broken
# invariant or sanitizer report, leaving the reproducer (crash-*) in the corpus directory.
set -eu
FUZZER=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SECONDS_=${2:-60}
# 0 seconds: run each seed (and the corpus so far) once and stop, no fuzzing (`make test`).
LIMIT=-max_total_time=$SECONDS_
[ "$SECONDS_" != 0 ] || LIMIT=-runs=0
SRC=$(cd "$(dirname "$0")/../.." && pwd)
DIR=$(dirname "$FUZZER")/fuzz-cct-file-corpus
mkdir -p "$DIR/seeds" "$DIR/cct"
cp "$SRC"/tests/data/cct-file/*.cct "$DIR/seeds/"
cd "$DIR/seeds"
printf 'revperf-cct 1\npid 5\nppid 1\nclock tsc\nreason exit\nthread 5 3 0 0 2\nn 0 0 0x0 0x0 0 10 0\nn 1 0 0x401000 0x7f00 1 10 4\nn 2 1 0x401100 0x401010 3 6 6\nend\n' >tiny.cct
printf 'revperf-cct 1\npid 7\nppid 5\nexe /bin/true\nclock monotonic\nreason signal 11\nmap 400000-402000 r-xp 00001000 fe:00 3 /bin/true (deleted)\nmap 7f0000-7f1000 rw-p 00000000 00:00 0 \nthread 7 1 1 99 4194304\nn 0 0 0x0 0x0 0 0 0\nend\n' >signal.cct
cat >"$DIR/cct.dict" <<'DICT'
"revperf-cct 1\x0a"
"pid "
"ppid "
"exe "
"clock tsc\x0a"
"clock monotonic\x0a"
"reason exit\x0a"
"reason exec\x0a"
"reason signal "
"map "
" r-xp "
" (deleted)"
"thread "
"\x0an "
" 0x"
"end\x0a"
"18446744073709551615"
"0xffffffffffffffff"
DICT
cd "$DIR"
echo "fuzz: $FUZZER ($LIMIT, corpus $DIR/cct, seeds $DIR/seeds)"
# -close_fd_mask=2: the reader's one-line errors and warnings are expected.
"$FUZZER" "$LIMIT" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	-close_fd_mask=2 -print_final_stats=1 -dict="$DIR/cct.dict" "$DIR/cct" "$DIR/seeds"
