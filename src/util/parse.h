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

/*
 * "2%", or a fraction "0.02" (at most 1): a bare number above 1 is refused, since "2"
 * would be 200% where 2% was meant; parse_percent_hint() then says so.
 */
int parse_percent(const char *s, double *out);
/*
 * After parse_percent() refused s: when s is a bare number above 1, appends to hint what
 * to write instead ("a bare number is a fraction (2 = 200%); write 2% for 2 percent") and
 * returns 1; else returns 0 and appends nothing.
 */
int parse_percent_hint(const char *s, struct strbuf *hint);
int parse_duration(const char *s, ns_t *out);     /* "60s", "500ms", "2m", "12h", "30d", "1.5" (s) */
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
