#ifndef REVPERF_REPORT_QUEUE_REPORT_H
#define REVPERF_REPORT_QUEUE_REPORT_H

/*
 * What `revperf queue` shows: the jobs of the queue (store_jobs.h), one line each with
 * its state, kind and label; a running job with its worker, progress and how long its
 * lease still holds; a failed job with its error. Times are the database's clock.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "store/store_jobs.h"

/* Text; colour (failed red, done green, running yellow) when color. state: the one state
 * the jobs were chosen by (queue --state), NULL for all; the last line counts what is
 * shown ("2 failed (--state failed)"), not zero for the states left out. 0, or -1 when
 * writing failed. */
int queue_report_text(FILE *f, const struct store_job *jobs, size_t n, const char *state,
		      bool color);
/* JSON (docs/json-schema.md, "queue"): schema revperf-queue/1. 0, or -1. */
int queue_report_json(FILE *f, const struct store_job *jobs, size_t n);

#endif
