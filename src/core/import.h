#ifndef REVPERF_CORE_IMPORT_H
#define REVPERF_CORE_IMPORT_H

#include "analysis/verdict.h"
#include "core/metric.h"
#include "util/common.h"

/*
 * Results measured by other tools, read into samples that revperf judges with its own
 * statistics: hyperfine JSON exports (--export-json: per-run times) and Google Benchmark
 * JSON (--benchmark_format=json or --benchmark_out, with repetitions).
 */
struct import_metric {
	struct metric_def *def; /* owned; free with metric_def_free() */
	double *values;         /* one sample per run or repetition, in base units */
	size_t n, alloc;
};

struct import_bench {
	char *name;    /* hyperfine: the command (or its --command-name); gbench: the case */
	struct import_metric *metrics;
	size_t nr_metrics, alloc_metrics;
};

struct import_set {
	char *source; /* "hyperfine" or "gbench" */
	struct import_bench *benches;
	size_t nr_benches, alloc_benches;
};

void import_set_release(struct import_set *s);

/*
 * Parses one JSON document (text of len bytes; origin names it in errors, e.g. a path).
 * import_parse() detects the format. Each returns 0, or RP_EINPUT after one error line
 * naming origin and what is wrong (malformed or truncated JSON, a missing field, a value
 * that is not a number, neither format). On error *out is left empty.
 */
int import_parse(const char *text, size_t len, const char *origin, struct import_set *out);
int import_parse_hyperfine(const char *text, size_t len, const char *origin, struct import_set *out);
int import_parse_gbench(const char *text, size_t len, const char *origin, struct import_set *out);

/* Reads path (at most 256 MiB) and parses it. RP_EINPUT on a missing or unreadable file. */
int import_read_file(const char *path, struct import_set *out);

#endif
