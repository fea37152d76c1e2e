/* The CCT profile file format written by librevperf_cct.so and read by src/profile/.
 * docs/cct-format.md is the full description; this header holds the constants both sides
 * share so that they cannot drift apart. Text, one record per line, fields separated by
 * one space, integers in decimal, addresses in lower-case hex with a 0x prefix. */
#ifndef REVPERF_CCT_FORMAT_H
#define REVPERF_CCT_FORMAT_H

#define CCT_FORMAT_MAGIC "revperf-cct" /* first token of the first line */
#define CCT_FORMAT_VERSION 1           /* second token; bumped on incompatible changes */

/* Record tags, the first token of every line after the first. */
#define CCT_TAG_PID "pid"       /* pid <pid> */
#define CCT_TAG_PPID "ppid"     /* ppid <ppid> */
#define CCT_TAG_EXE "exe"       /* exe <path of /proc/self/exe> (rest of line) */
#define CCT_TAG_CLOCK "clock"   /* clock <tsc|monotonic|none> */
#define CCT_TAG_REASON "reason" /* reason <exit|exec|signal N> (why the file was written) */
#define CCT_TAG_MAP "map"       /* map <one /proc/self/maps line, verbatim> */
#define CCT_TAG_THREAD "thread" /* thread <tid> <nodes> <truncated 0|1> <lost_calls> <max_depth> */
#define CCT_TAG_NODE "n"        /* n <id> <parent> <fn> <site> <calls> <incl_ns> <excl_ns> */
#define CCT_TAG_END "end"       /* end: the file is complete */

/* The values of the clock record. Times are in ns with tsc and monotonic; with none (the
 * runtime recorded calls only, REVPERF_CCT_CLOCK=none) every time is 0. Readers older than
 * the addition of none (same format version 1) reject a file that says none. */
#define CCT_CLOCK_NAME_TSC "tsc"
#define CCT_CLOCK_NAME_MONOTONIC "monotonic"
#define CCT_CLOCK_NAME_NONE "none"

#define CCT_ROOT_ID 0 /* node 0 of every thread: the thread root, fn = site = 0 */

#endif
