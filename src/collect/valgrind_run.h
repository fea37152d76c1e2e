#ifndef REVPERF_COLLECT_VALGRIND_RUN_H
#define REVPERF_COLLECT_VALGRIND_RUN_H

/*
 * Counted runs (METHODS.md section 1, "Deterministic mode"; docs/counted.md): a benchmark
 * run under valgrind's callgrind, whose whole process tree (children followed through
 * fork and exec) writes one callgrind file per process into a directory. The instruction
 * counts, the simulated cache and branch events and the call graph all come from these
 * files (profile/callgrind.h reads them).
 *
 * The cache model is fixed, never detected from the host (valgrind detects a bogus last
 * level cache on some virtual machines), so that two machines count the same events:
 * VALGRIND_CACHE_MODEL below. Thread-safe; no global state.
 */
#include <stdbool.h>

#include "collect/proc.h"
#include "util/strbuf.h"

/* I1, D1 and LL as valgrind's --I1/--D1/--LL take them: size,associativity,line size. */
#define VALGRIND_I1 "32768,8,64"
#define VALGRIND_D1 "32768,8,64"
#define VALGRIND_LL "8388608,16,64"
#define VALGRIND_CACHE_MODEL "I1 " VALGRIND_I1 ", D1 " VALGRIND_D1 ", LL " VALGRIND_LL

/*
 * How much slower a program runs under callgrind, for timeouts: measured 20-60x without
 * the cache simulation and up to 100x with it (docs/counted.md); the timeout of a counted
 * run is this factor times the timing runs' timeout basis.
 */
#define VALGRIND_SLOWDOWN 100

/* True when `valgrind` is an executable file on PATH. */
bool valgrind_available(void);

/*
 * Appends to cmd the command line that runs `command` (a benchmark command: exec'd
 * directly when it can be, else through /bin/sh -c) under callgrind with children traced,
 * one output file per process `out_dir`/callgrind.out.PID, and with `cache_sim` the fixed
 * cache model and the branch simulation.
 */
void valgrind_command(struct strbuf *cmd, const char *command, const char *out_dir,
		      bool cache_sim);

/*
 * The command line callgrind records for the shell that valgrind_command() puts around a
 * command that needs one ("/bin/sh -c COMMAND"), into sb; false (sb untouched) when the
 * command is exec'd directly.
 */
bool valgrind_wrapper(struct strbuf *sb, const char *command);

#endif
