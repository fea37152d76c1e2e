#ifndef REVPERF_COLLECT_PERF_SAMPLE_H
#define REVPERF_COLLECT_PERF_SAMPLE_H

/*
 * Sampling profiles of a benchmark's process tree with perf_event_open (docs/sampling.md):
 * the recorder. One sampling event per CPU on the benchmark's first process, inherited by
 * every thread and child it starts, enabled by its exec, user space only (what
 * perf_event_paranoid 2 allows without privileges); the kernel's ring buffers are copied
 * into a raw file while the benchmark runs. Everything else (unwinding, names, the tree)
 * happens after the run, in src/profile/ (profile/sample_build.h), so that the run pays
 * for the samples and nothing more.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect/proc.h"

enum perf_sample_event {
	PERF_SAMPLE_EVENT_CPU_CLOCK = 0, /* software timer on the task's CPU time: ns */
	PERF_SAMPLE_EVENT_CYCLES,	 /* the PMU's cycles, where there is one */
};

enum perf_sample_callgraph {
	PERF_SAMPLE_CALLGRAPH_AUTO = 0, /* decided from the program (perf_sample_choose()) */
	PERF_SAMPLE_CALLGRAPH_FP,	/* the kernel follows frame pointers (the innermost
					   frames unwound from a 512-byte stack copy) */
	PERF_SAMPLE_CALLGRAPH_DWARF,	/* user registers and a copy of the user stack, unwound
					   with the modules' call frame information afterwards */
};

#define PERF_SAMPLE_DEFAULT_HZ 1000
#define PERF_SAMPLE_MAX_HZ 100000
#define PERF_SAMPLE_DEFAULT_STACK 8192 /* bytes of user stack per sample, as perf's */
#define PERF_SAMPLE_MAX_STACK 65528    /* the kernel's limit (a u16, 8-byte aligned) */
#define PERF_SAMPLE_FP_STACK 512       /* fp: the innermost frames, for frameless leaves */

struct perf_sample_options {
	unsigned frequency_hz;		      /* samples per second of CPU time, per thread */
	enum perf_sample_event event;	      /* asked for; the recorder may fall back */
	enum perf_sample_callgraph callgraph; /* AUTO must be resolved before the run */
	uint32_t stack_bytes;		      /* DWARF: user stack copied per sample */
};

/* 1 kHz, cpu-clock, call graph AUTO, 8 KiB of stack. */
void perf_sample_options_init(struct perf_sample_options *o);
const char *perf_sample_event_name(enum perf_sample_event e);
const char *perf_sample_callgraph_name(enum perf_sample_callgraph c);

/*
 * The raw file: this header, then the kernel's records (struct perf_event_header and what
 * follows, linux/perf_event.h) in the order the ring buffers held them, buffer after
 * buffer: sorted by time only within one buffer.
 */
#define PERF_SAMPLE_RAW_MAGIC "revperf-rawsmp1"
struct perf_sample_raw_header {
	char magic[16];	      /* PERF_SAMPLE_RAW_MAGIC, NUL-padded */
	uint32_t header_size; /* sizeof(struct perf_sample_raw_header) */
	uint32_t event;	      /* enum perf_sample_event: the one used */
	uint64_t sample_type; /* PERF_SAMPLE_* bits of every sample record */
	uint64_t regs_mask;   /* sample_regs_user (DWARF: 17 registers, fp: 3), 0 without */
	uint32_t stack_bytes; /* stack asked per sample (DWARF, fp's 512), 0 without */
	uint32_t frequency_hz;
	uint32_t callgraph;    /* enum perf_sample_callgraph: FP or DWARF */
	uint32_t nr_buffers;   /* one per CPU */
	uint64_t buffer_bytes; /* data bytes of each ring buffer */
	uint64_t period_ns;    /* cpu-clock: the sampling period; 0 for cycles */
	uint64_t reserved[3];
};

/* The recorder's account of a run, for the report. */
struct perf_sample_stats {
	enum perf_sample_event event; /* the event used */
	bool event_fell_back;	      /* cycles were asked but the machine has no PMU for them */
	uint64_t bytes;		      /* of records written to the raw file */
	uint64_t wakeups;	      /* drains of the ring buffers during the run */
	unsigned nr_buffers;
	uint64_t buffer_bytes; /* per buffer, after fitting perf_event_mlock_kb */
	bool write_failed;     /* the raw file could not take everything (error printed) */
};

/*
 * Whether this process may sample: opens the event once on itself (the benchmark will
 * have the same credentials and seccomp filters). cycles falls back to cpu-clock when the
 * machine has no PMU for it (o->event is then set to cpu-clock and *fell_back to true).
 * Returns 0, or RP_EINPUT after one error() naming the cause (perf_event_paranoid, a
 * seccomp filter, a kernel without perf events) and the fallback (profile = cct or the ir
 * metric's attribution). The answer is not cached: a test may install a filter.
 */
int perf_sample_probe(struct perf_sample_options *o, bool *fell_back);

/*
 * The call graph AUTO chooses for `command` (a benchmark command line: its program, or
 * /bin/sh for one that needs the shell; a script's interpreter) run in `cwd` (NULL: the
 * current directory): FP when most functions of the program keep a frame pointer, DWARF
 * otherwise (also when the program cannot be found or read). `why` gets one phrase for
 * the report ("92% of the 40 functions of /path/prog keep frame pointers"). Never fails.
 */
struct strbuf;
enum perf_sample_callgraph perf_sample_choose(const char *command, const char *cwd,
					      struct strbuf *why);

struct perf_recorder;

/*
 * A recorder writing into a new file `raw_path` (created, never through a link). Returns
 * NULL after error() when the file cannot be created. o->callgraph must be FP or DWARF.
 * Free with perf_recorder_free().
 */
struct perf_recorder *perf_recorder_new(const struct perf_sample_options *o, const char *raw_path);

/*
 * Opens the events on `pid` (a child stopped before its exec; the events start at the
 * exec) and maps their ring buffers, as large as perf_event_mlock_kb allows an
 * unprivileged user (halved while the kernel refuses). Returns 0, or -1 after error().
 */
int perf_recorder_attach(struct perf_recorder *r, pid_t pid);

/* A descriptor that polls readable when a ring buffer is worth draining; -1 unattached. */
int perf_recorder_fd(const struct perf_recorder *r);

/* Copies what the ring buffers hold into the raw file. */
void perf_recorder_drain(struct perf_recorder *r);

/*
 * After the process tree exited: the last drain, the events closed, the file closed, and
 * the account in *st. Returns 0, or -1 after error() when the raw file is incomplete.
 */
int perf_recorder_finish(struct perf_recorder *r, struct perf_sample_stats *st);

/* Closes everything; accepts NULL. The raw file stays. */
void perf_recorder_free(struct perf_recorder *r);

/*
 * One run of spec->command as proc_run() does, sampled into `raw_path`. o->callgraph AUTO
 * is resolved with perf_sample_choose() first. Returns as proc_run(), or RP_EINPUT when
 * sampling is refused (perf_sample_probe()) or the raw file cannot be created.
 */
int perf_sample_run(const struct proc_spec *spec, struct perf_sample_options *o,
		    const char *raw_path, struct proc_result *res, struct perf_sample_stats *st);

#endif
