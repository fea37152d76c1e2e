#ifndef REVPERF_REPORT_BINDIFF_REPORT_H
#define REVPERF_REPORT_BINDIFF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "binary/bindiff.h"

/*
 * Writes a binary diff as text: both files, the count per class, then one row per
 * function that differs (every function when `all`), with instruction counts, the change
 * in % and file:line. Returns 0, or -1 on a write error.
 */
int report_bindiff_text(FILE *f, const struct bindiff *d, bool all);

/*
 * Writes a binary diff as JSON (docs/bindiff.md describes the schema): both files, the
 * counts, and one object per function that differs (every function when `all`).
 * Returns 0, or -1 on a write error.
 */
int report_bindiff_json(FILE *f, const struct bindiff *d, bool all);

#endif
