#ifndef REVPERF_PROFILE_PERF_SCRIPT_H
#define REVPERF_PROFILE_PERF_SCRIPT_H

/*
 * The text that `perf script` prints for a recording with call chains (`perf record -g`,
 * frame pointers, or `--call-graph dwarf`), read into a calling context tree
 * (docs/perf-script.md). A sample is a header line, its frames one per indented line from
 * the sampled function outwards, and a blank line:
 *
 *     prog 24157/24160 10939.479533:    1001001 cpu-clock:u:
 *     	            11e1 leaf+0x21 (/tmp/prog)
 *     	            121b mid+0xb (inlined)
 *     	            10b4 main+0x44 (/tmp/prog)
 *
 * The header is `comm [pid/]tid [[cpu]] [time:] [period] event:`; the comm may contain
 * spaces. A sample weighs its period (nanoseconds for cpu-clock and task-clock, events for
 * a hardware counter), or 1 when the header has none. Frames are named by their symbol
 * without the +0x offset; an inlined frame (dso "inlined", `perf script --inline` or DWARF
 * unwinding) is a frame of its own named by its function; a kernel frame gets the suffix
 * " [k]"; a frame without a symbol is "[unknown]", or "[unknown in DSO]" when its module
 * is known. srcline lines (`-F +srcline`) and comment lines (`--header`) are skipped.
 * The format has no call counts (they stay 0) and no call sites (rank 0).
 */
#include <stdbool.h>
#include <stddef.h>

#include "profile/cct.h"

/* Limits on what is inside (docs/limits.md); more is an input error naming the line. */
#define PERF_SCRIPT_MAX_FRAMES 65536	     /* frames in one sample */
#define PERF_SCRIPT_MAX_NAME ((size_t)65536) /* bytes of one symbol name */

struct perf_script_options {
	const char *event;     /* weigh by this event ("cycles" also matches "cycles:u");
				  NULL: the event of the first sample */
	bool separate_threads; /* each thread name (comm) under "[thread NAME]"; threads
				  that share a name share a subtree (thread ids differ from
				  run to run, names do not) */
};

/* What was read, for the report. */
struct perf_script_info {
	char event[128];	/* the event weighed, as perf names it ("cpu-clock:u") */
	bool has_period;	/* weights are periods; false: 1 per sample */
	size_t nr_samples;	/* samples of that event */
	size_t nr_other_events; /* samples of other events, left out */
	size_t nr_threads;	/* distinct thread ids among the samples weighed */
	size_t nr_comms;	/* distinct thread names */
	size_t nr_kernel, nr_unknown, nr_inlined; /* frames of each kind */
	size_t nr_no_callchain; /* samples with only the sampled address (no -g) */
};

/*
 * Parses `perf script` text from `text` (len bytes, need not be NUL-terminated) into `out`
 * (uninitialised or released), `origin` naming the input in errors ("file:12: ..."); `o`
 * may be NULL (defaults), `info` may be NULL. Returns 0, or RP_EINPUT after one error()
 * naming the line and what is wrong (a line that is neither a header, a frame, a srcline
 * nor blank; a frame before any header; a NUL byte; a name or a stack beyond the limits
 * above; a period missing where earlier samples had one) or the input (no sample at all,
 * no sample of the event asked for, every weight 0); `out` then holds only the root. The
 * caller releases `out` with cct_release().
 */
int perf_script_parse(const char *text, size_t len, const char *origin,
		      const struct perf_script_options *o, struct cct *out,
		      struct perf_script_info *info);

/*
 * True when `text` starts (after blank and '#' lines, within its first 64 KiB) with a
 * line that reads as a sample header followed by a frame line, or a header that carries
 * its sampled address (a recording without call chains).
 */
bool perf_script_sniff(const char *text, size_t len);

#endif
