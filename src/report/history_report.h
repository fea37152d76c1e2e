#ifndef REVPERF_REPORT_HISTORY_REPORT_H
#define REVPERF_REPORT_HISTORY_REPORT_H

/*
 * The report of `revperf history` (history/history.h): one line per commit with the primary
 * verdicts against its base, then the change points of every series; as text, JSON
 * (docs/json-schema.md) or Markdown.
 */
#include <stdio.h>

#include "history/bisect.h"
#include "history/history.h"
#include "report/report.h"

/* Writes res to f. Returns 0, or -1 on a write error. */
int history_report(FILE *f, const struct history_result *res, enum report_format format);

/*
 * The report of `revperf bisect` (history/bisect.h) for benchmark `bench`: every step, then
 * the culprit and its evidence, or why there is none; text or (json) JSON. Returns 0, or
 * -1 on a write error.
 */
int bisect_report(FILE *f, const struct bisect_result *r, const char *bench, bool json);
/*
 * The same text in two parts, so that each step is printed once, when it is decided:
 * bisect_text_step() is a bisect_request's on_step (the heading comes with the first step,
 * GOOD against BAD), bisect_text_outcome() prints the culprit and its evidence (naming
 * the steps above rather than printing them again), or why there is none; 0 or -1.
 */
void bisect_text_step(FILE *f, const struct bisect_result *r, const char *bench, const char *what,
		      const struct revision *rev, const struct bisect_step *s);
int bisect_text_outcome(FILE *f, const struct bisect_result *r, const char *bench);

#endif
