#ifndef REVPERF_REPORT_GC_REPORT_H
#define REVPERF_REPORT_GC_REPORT_H

/*
 * What `revperf gc` removed (or, with --dry-run, would remove): one line per worktree or
 * log file, then the total freed in IEC units, files and directories.
 */
#include <stdbool.h>
#include <stdio.h>

#include "core/gc.h"

/* Text. Returns 0, or -1 when writing failed. */
int gc_report_text(FILE *f, const struct gc_result *res, const struct gc_options *opt);
/* JSON (docs/json-schema.md, "gc"). Returns 0, or -1 when writing failed. */
int gc_report_json(FILE *f, const struct gc_result *res, const struct gc_options *opt);

#endif
