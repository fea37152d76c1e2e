#ifndef REVPERF_IMPORT_IMPORT_H
#define REVPERF_IMPORT_IMPORT_H

#include "analysis/verdict.h"
#include "core/metric.h"
#include "util/common.h"
#include "util/strmap.h"

/*
 * Results measured by other tools, read into samples that revperf judges with its own
 * statistics: hyperfine JSON exports (--export-json: per-run times) and Google Benchmark
 * JSON (--benchmark_format=json or --benchmark_out, with repetitions). Mapping to metrics,
 * directions and exclusions: docs/import.md.
 */
struct import_metric {
	struct metric_def *def; /* owned; free with metric_def_free() */
	double *values;         /* one sample per run or repetition, in base units; NAN where
				 * that sample lacks the metric (n == the bench's nr_samples) */
	size_t n, alloc;
};

/* A run or repetition left out of the samples (non-zero exit, error_occurred, skipped). */
struct import_excluded {
	int exit_code; /* hyperfine: the run's exit code, -1 when killed by a signal; gbench: 0 */
	char *detail;  /* owned: "results[0] run 3: exit code 1", "benchmarks[4]: error: ..." */
};

struct import_bench {
	char *name;    /* hyperfine: the command (or its --command-name); gbench: the case */
	struct import_metric *metrics; /* metrics[0] is the primary one: wall or real_time */
	size_t nr_metrics, alloc_metrics;
	size_t nr_samples; /* samples kept (every metric has this many values) */
	struct import_excluded *excluded;
	size_t nr_excluded, alloc_excluded;
};

struct import_set {
	char *source; /* "hyperfine" or "gbench" */
	char *origin; /* the file (or origin) it was read from, for labels and messages */
	struct import_bench *benches;
	size_t nr_benches, alloc_benches;
	struct strmap by_name; /* private: bench name -> index (import_set_find()) */
};

/* Frees everything s owns and leaves it empty; accepts an empty or NULL set. */
void import_set_release(struct import_set *s);

/*
 * Parses one JSON document (text of len bytes; origin names it in errors, e.g. a path).
 * import_parse() detects the format by shape: an object with a "results" array is
 * hyperfine, one with a "benchmarks" array is Google Benchmark. Each returns 0, or
 * RP_EINPUT after one error line naming origin and what is wrong, with the JSON path of a
 * bad value ("a.json: results[2].times[5] is not a number"): malformed or truncated JSON,
 * a missing field, a value of the wrong type, no benchmark at all, neither format, a size
 * cap exceeded. Excluded runs are warned about (one warning line each, at most a few per
 * file) and listed in the bench. On error *out is left empty. Text need not be
 * NUL-terminated. Thread-safe; *out is the caller's to release with import_set_release().
 */
int import_parse(const char *text, size_t len, const char *origin, struct import_set *out);
int import_parse_hyperfine(const char *text, size_t len, const char *origin,
			   struct import_set *out);
int import_parse_gbench(const char *text, size_t len, const char *origin, struct import_set *out);

/* Reads path (at most 256 MiB) and parses it. RP_EINPUT on a missing or unreadable file. */
int import_read_file(const char *path, struct import_set *out);

/* The bench called name in s, or NULL. Constant expected time for a parsed set. */
const struct import_bench *import_set_find(const struct import_set *s, const char *name);

/* The metric called name in b, or NULL. */
const struct import_metric *import_bench_metric(const struct import_bench *b, const char *name);

/* "hyperfine export" or "Google Benchmark JSON", for messages. */
const char *import_format_title(const char *source);

#endif
