#ifndef REVPERF_COLLECT_SAMPLER_H
#define REVPERF_COLLECT_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/common.h"

/*
 * Counter series of one run (METHODS.md section 4, docs/counters.md): what the sampler
 * records while a benchmark runs, what the CSV importer reads and what the control charts
 * analyse. A series is one counter: its samples in time order.
 */
struct sample_series {
	char *name; /* owned */
	char *unit; /* owned; NULL when unknown (counters the benchmark printed) */
	double *t;  /* seconds since the run started (the release of the child) */
	double *v;  /* the values; t[i] and v[i] are finite, t is non-decreasing */
	size_t n, alloc;
};

struct run_samples {
	struct sample_series *series;
	size_t nr, alloc;
	double interval_s; /* the sampling interval; 0 when unknown (imported) */
	/*
	 * Private: a hash index of the series' names, kept by run_samples_add(). Add series
	 * only through it; do not remove, reorder or rename them (the samples of a series may
	 * be edited in place).
	 */
	size_t *index;
	size_t index_cap, index_nr;
};

void run_samples_init(struct run_samples *rs);
/* Frees every series and the arrays; leaves rs initialised (empty). Accepts NULL. */
void run_samples_release(struct run_samples *rs);

/*
 * Appends the sample (t, v) to the series called name, creating it (with a copy of name
 * and of unit, which may be NULL) when there is none; the unit of an existing series is
 * kept. Returns 0, or -1 without printing anything (the caller knows the file and line)
 * when t or v is not finite or t is before the series' last timestamp; nothing is added
 * then. Amortised O(1).
 */
int run_samples_add(struct run_samples *rs, const char *name, const char *unit, double t, double v);

/* The series called name, NULL when there is none. The pointer lives until the next add. */
struct sample_series *run_samples_find(const struct run_samples *rs, const char *name);

/*
 * The counters the sampler takes from /proc, named and with units as here (docs/counters.md):
 *   cpu_user, cpu_system  CPU utilisation in cores (1.0 = one core busy all the time)
 *   rss_bytes             resident memory, bytes
 *   read_bytes_per_s, write_bytes_per_s   bytes through read()/write()-like calls per second
 *                         (rchar/wchar of /proc/PID/io; left out when that is unreadable)
 *   faults_per_s          page faults (minor and major) per second
 *   ctx_switches_per_s    context switches (voluntary and involuntary) per second
 *   threads, processes    counts
 * True when name is one of them: a benchmark's revperf-counter line may not use it.
 */
bool sampler_counter_reserved(const char *name);

/*
 * Samples one process group from /proc: every tick it scans /proc/[0-9]*, keeps the
 * processes whose process group is pgid and appends one sample of each counter above to
 * out (gauges from the first tick, rates from the second). Heap object: group_sampler_new()
 * allocates, group_sampler_free() frees (NULL accepted). out stays the caller's and must
 * outlive the sampler. Not thread-safe; no process-global state.
 */
struct group_sampler;

/* start_ns: CLOCK_MONOTONIC time of the run's start (t = 0); interval_ns > 0. */
struct group_sampler *group_sampler_new(pid_t pgid, ns_t start_ns, ns_t interval_ns,
					struct run_samples *out);
void group_sampler_free(struct group_sampler *gs);

/* CLOCK_MONOTONIC time at which the next tick is due. */
ns_t group_sampler_next_ns(const struct group_sampler *gs);

/*
 * Takes one sample at now_ns (CLOCK_MONOTONIC, not before the previous sample) and
 * schedules the next tick on the interval grid after now_ns (late ticks are skipped, not
 * bunched). Never fails: a process that vanishes while it is read counts as vanished.
 */
void group_sampler_tick(struct group_sampler *gs, ns_t now_ns);

/*
 * The last sample of a run, when its child exited at now_ns: taken when at least half an
 * interval passed since the previous sample (or the start), else nothing.
 */
void group_sampler_last(struct group_sampler *gs, ns_t now_ns);

/* True when /proc/PID/io of a live process of the group could not be read (no I/O series). */
bool group_sampler_io_missing(const struct group_sampler *gs);

/*
 * The counters a benchmark prints itself: lines "revperf-counter NAME VALUE" on its stdout
 * or stderr, NAME of 1 to COUNTER_NAME_MAX characters from [A-Za-z0-9_.:-] (and not a
 * sampler counter), VALUE a finite number (strtod), separated by spaces or tabs; trailing
 * spaces, tabs and a carriage return are allowed. Lines longer than COUNTER_LINE_MAX bytes
 * are not parsed.
 */
#define COUNTER_LINE_PREFIX "revperf-counter "
#define COUNTER_NAME_MAX 64
#define COUNTER_LINE_MAX 4096

/*
 * Parses one line (without its newline; it need not be NUL-terminated). Returns 1 with
 * name (COUNTER_NAME_MAX + 1 bytes, NUL-terminated) and *value set for a counter line, 0
 * for a line that does not start with COUNTER_LINE_PREFIX, -1 for one that does but is
 * malformed.
 */
int counter_line_parse(const char *line, size_t len, char *name, double *value);

/*
 * Splits a byte stream into lines and stores its counter lines in a run_samples. The owner
 * calls counter_lines_init() and counter_lines_release().
 */
struct counter_lines {
	struct strbuf line; /* the incomplete line so far (at most COUNTER_LINE_MAX bytes) */
	bool overlong;	    /* the current line passed COUNTER_LINE_MAX bytes */
	size_t counters;    /* counter lines stored */
	size_t malformed;   /* lines that start with the prefix but were ignored */
};

void counter_lines_init(struct counter_lines *cl);
void counter_lines_release(struct counter_lines *cl);

/*
 * Feeds len bytes received at t (seconds since the run started): each complete line that
 * is a counter line becomes a sample (t, VALUE) of the series NAME (unit NULL) in out; a
 * malformed one, or one whose t would go back in time, is counted in cl->malformed.
 */
void counter_lines_feed(struct counter_lines *cl, const char *buf, size_t len, double t,
			struct run_samples *out);

/* At the end of the stream: a last line without a newline is parsed as a complete one. */
void counter_lines_finish(struct counter_lines *cl, double t, struct run_samples *out);

#endif
