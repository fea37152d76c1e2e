#ifndef REVPERF_UTIL_PARSE_H
#define REVPERF_UTIL_PARSE_H

/*
 * Value parsers shared by the configuration (core/config.c) and the command line: each
 * takes a NUL-terminated string, returns 0 and stores the value, or returns -1 without a
 * message (the caller names the file, line or option). Thread-safe; nothing allocated.
 */
#include <stddef.h>
#include <stdint.h>

#include "util/common.h"

int parse_percent(const char *s, double *out);    /* "2%", "0.02" */
int parse_duration(const char *s, ns_t *out);     /* "60s", "500ms", "2m", "1.5" (s) */
int parse_run_range(const char *s, size_t *min, size_t *max); /* "5..30", "10" */
int parse_u64(const char *s, uint64_t *out);
/* Bytes: "16MiB", "512KiB", "1GiB", "4096B" (K, M, G also binary); a bare number is MiB.
 * At most 1 TiB. */
int parse_size(const char *s, uint64_t *out);
int parse_double(const char *s, double lo, double hi, double *out); /* finite, in [lo, hi] */
/*
 * An http:// or https:// URL with a host and no space or control character: the only links
 * revperf writes from configuration (javascript:, data:, file: ... are refused).
 */
int parse_http_url(const char *s);

#endif
