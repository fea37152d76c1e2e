#ifndef REVPERF_CORE_CONFIG_H
#define REVPERF_CORE_CONFIG_H

#include <regex.h>

#include "collect/cpu_quiet.h"
#include "core/metric.h"
#include "util/common.h"

/*
 * revperf.ini, parsed with libinih (DESIGN.md "Configuration"). Sections:
 *   [build]              command
 *   [defaults]           any benchmark option, for every benchmark
 *   [benchmark "NAME"]   command and benchmark options
 *   [report]             commit-url (the diff of a commit in `revperf report`)
 * Benchmark options: metrics, primary, tolerance, runs (MIN..MAX), warmup, timeout,
 * time-budget, format (plain or gbench), output (log or discard), profile (cct, io,
 * counters), profile-runs, log-limit, metric.NAME, tests and
 * test-command (a test suite), binary, select-paths. Command-line flags are applied through config_set() with the flag as
 * origin, so that they are validated by the same code and override every section.
 */

/*
 * A metric the benchmark reports itself, read from its output (stdout and stderr as
 * captured in the run's log): `metric.NAME = /ERE/ [higher-is-better|lower-is-better]
 * [unit=LABEL] [match=last|mean]`. The first capture group of each match is the number.
 */
struct reported_metric {
	struct metric_def *def; /* owned */
	char *pattern;          /* the ERE as written between the slashes, unescaped */
	regex_t re;
	bool mean;              /* mean of all matches; default: the last match */
	char origin[64];
};

/* Profiles taken in extra runs, apart from the timing runs (`profile = cct`). */
enum bench_profile {
	PROFILE_CCT = 1u << 0, /* calling context tree: runtime/ preloaded, instrumented build */
	PROFILE_IO = 1u << 1,  /* write system calls per stack trace: traced runs, plain build */
	PROFILE_COUNTERS = 1u << 2, /* counters sampled during the timing runs: control charts */
	PROFILE_SAMPLE = 1u << 3,   /* calling context tree sampled with perf_event_open: extra
				       runs of the timing build itself (docs/sampling.md) */
};

enum bench_format {
	BENCH_PLAIN = 0, /* any program: revperf measures it (and reads metric.NAME) */
	BENCH_GBENCH,    /* a Google Benchmark binary: one revperf benchmark per case */
};

/* count-tolerance when none is set: counted metrics (docs/counted.md) */
#define CONFIG_DEFAULT_COUNT_TOLERANCE 0.001
/* tolerance when none is set: every other metric */
#define CONFIG_DEFAULT_TOLERANCE 0.02

struct bench_config {
	char *name;
	char *command;
	char *metrics;      /* comma-separated metric names, or "all" */
	char *primary;      /* comma-separated primary metrics (decide exit code + stopping) */
	double tolerance;   /* 0.02 = 2% */
	size_t min_runs, max_runs;
	size_t warmup;
	ns_t timeout_ns;     /* 0 = automatic: 10 x baseline median, at least 60 s */
	ns_t time_budget_ns; /* 0 = none; else sampling stops after this long, and an
			    * undecided benchmark continues past max_runs until then */
	char origin[64];     /* "revperf.ini:12" of its section header, for messages */
	char metrics_origin[64], primary_origin[64]; /* where those lists were set */
	struct reported_metric *reported;
	size_t nr_reported, alloc_reported;
	enum bench_format format;
	/* `output = discard`: the benchmark's stdout goes to /dev/null, not into the run log
	 * (its stderr still does); default `log` */
	bool discard_stdout;
	unsigned profiles;   /* PROFILE_* bits: extra profiled runs after the timing runs */
	size_t profile_runs; /* profiled runs per side (default 3) */
	/* Counted metrics (ir, sim-cycles; docs/counted.md): runs per side under valgrind,
	 * MIN when every side's counts agree, up to MAX when they do not (default 2..6), and
	 * the tolerance of counts (default 0.1%). */
	size_t min_count_runs, max_count_runs;
	double count_tolerance;
	/* Noise controls of the timing runs (docs/measurement.md): the CPU set of every run
	 * (`pin`, default off), and before each pair a wait of at most quiet_wait_ns until at
	 * most quiet_busy of the machine's CPU time is busy (`quiet = 25%, 30s`; default off). */
	struct cpu_pin pin;
	double quiet_busy;
	ns_t quiet_wait_ns;
	ns_t sample_interval_ns; /* profile = counters: sampling period (default 100 ms) */
	unsigned sample_frequency_hz; /* profile = sample: samples per CPU second (1000) */
	unsigned sample_call_graph;   /* profile = sample: enum perf_sample_callgraph (auto) */
	uint64_t log_limit_bytes; /* `log-limit`: output kept per run (16 MiB); 0 = all */
	/* A test suite (PeASS): `tests` lists the test names (one per line, run in the
	 * worktree), `test-command` runs one with {test} replaced; config_expand_suite()
	 * turns it into one benchmark per test, "NAME/TEST". Both NULL: a plain benchmark. */
	char *tests, *test_command;
	char *binary; /* `binary`: the program the predictor diffs (NULL: the command's first
			 word) */
	/* `select-paths`: globs relative to the repository root; a commit that touches a
	 * matching path always selects the benchmark (docs/prediction.md) */
	char **select_paths;
	size_t nr_select_paths;
	/* a case of a gbench benchmark (set by compare, not by the file): its metrics */
	const struct metric_def **case_defs;
	size_t nr_case_defs;
};

/* [build] timeout's default: a build still running after 2 hours is taken for hung. */
#define BUILD_TIMEOUT_DEFAULT_NS (2 * 3600LL * 1000000000LL)

struct config {
	char *path;          /* file it was read from, or NULL */
	char *build_command; /* NULL = nothing to build */
	/* The build of profiled runs (profile = cct): NULL = none configured. Built in its own
	 * worktree so that the timing runs keep the normal build. */
	char *profile_build_command;
	char profile_build_origin[64];
	/* [build] timeout: a build still running after this is killed and failed (0: none) */
	ns_t build_timeout_ns;
	/* [report] commit-url: the URL of a commit's diff, "{sha}" replaced (docs/report.md);
	 * NULL = none */
	char *report_commit_url;
	/* [store] url: where results are stored, a PostgreSQL connection string or an SQLite
	 * file (docs/store.md); NULL = the state directory's revperf.db. store_origin: its
	 * file:line. */
	char *store_url;
	char store_origin[64];
	double alpha;
	uint64_t seed;       /* 0 = pick one from the clock */
	bool seed_set;
	/* config_finish() keeps its warnings (regex habits) to itself: set by a caller that
	 * loads the same configuration again for each of its comparisons */
	bool no_warnings;
	struct bench_config defaults;
	struct bench_config *benches;
	size_t nr_benches, alloc_benches;
	/* overrides from flags, applied to every benchmark after the file */
	struct bench_override {
		char *key, *value, *origin;
	} *overrides;
	size_t nr_overrides, alloc_overrides;
};

/* Initialises cfg with the built-in defaults. Release with config_release(). */
void config_init(struct config *cfg);
void config_release(struct config *cfg);

/*
 * Reads path into cfg (core/config_file.c): a regular file of at most 1 MiB (util/input.h).
 * Returns 0, or RP_EINPUT after one error line naming path (and line): a missing file, a
 * directory, FIFO or device, a file over the cap, an unknown section or key, a value that
 * does not parse, a section given twice, a key set twice in a section, a NUL byte.
 */
int config_read(struct config *cfg, const char *path);

/*
 * Who set a setting, for a message that says what is asked now: the option when its
 * origin is a command-line flag ("--primary"), else "the configuration".
 */
const char *config_said_by(const char *origin);

/*
 * Sets one option as if it were in section (NULL = "defaults", "build", "core" or
 * "benchmark \"NAME\""), origin names where it came from ("--tolerance"). A benchmark
 * option given for the defaults is also recorded as an override that config_finish()
 * applies to every benchmark. Returns 0 or RP_EINPUT with an error printed.
 */
int config_set(struct config *cfg, const char *section, const char *key, const char *value,
	       const char *origin);

/*
 * Applies overrides and checks the result (every benchmark has a command, runs are
 * consistent). Returns 0 or RP_EINPUT.
 */
int config_finish(struct config *cfg);

/*
 * Keeps only the benchmarks named in the comma-separated list names ("" keeps none), in
 * that order. Returns 0, or RP_EINPUT after an error naming an unknown benchmark.
 */
int config_select(struct config *cfg, const char *names);

/*
 * The run-time metric definitions of b (its metric.NAME ones, then a gbench case's), in an
 * array the caller frees (the definitions stay b's); *n is their number.
 */
const struct metric_def **bench_runtime_defs(const struct bench_config *b, size_t *n);

/*
 * Replaces the test suite called `suite` (a benchmark with `tests`) by one benchmark per
 * test, in its place and in the order given: named "SUITE/TEST", its command the suite's
 * test-command with every {test} replaced by the name, every other option the suite's.
 * Names must be valid benchmark names (letters, digits, -_.:/+). n = 0 removes the suite.
 * Returns 0, or RP_EINPUT after an error naming the suite and the bad or duplicate test.
 * Pointers into cfg->benches are invalidated.
 */
int config_expand_suite(struct config *cfg, const char *suite, const char *const *tests,
			size_t n);

/*
 * Whether `path` (relative to the repository root) is one of b's select-paths: it, or one
 * of its leading directories, matches a glob (fnmatch(3) without FNM_PATHNAME: '*' also
 * matches '/'). Returns the glob that matched, or NULL.
 */
const char *bench_select_path_match(const struct bench_config *b, const char *path);

/* The benchmark called name, or NULL. */
struct bench_config *config_bench(struct config *cfg, const char *name);

/* Writes the commented template of `revperf init` to path; refuses to overwrite. */
int config_write_template(const char *path);

#endif
