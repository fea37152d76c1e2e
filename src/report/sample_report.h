#ifndef REVPERF_REPORT_SAMPLE_REPORT_H
#define REVPERF_REPORT_SAMPLE_REPORT_H

/*
 * The report of one sampled run (`revperf profile --sample`, docs/sampling.md): how it
 * was sampled, the on-CPU time per thread and summed beside the kernel's account of the
 * run, what was lost or cut (sample_profile_notes()), how each module was unwound, then the
 * heaviest contexts.
 */
#include <jansson.h>
#include <stdio.h>

#include "profile/sample_file.h"
#include "report/cct_top.h"

struct sample_report_run {
	const char *status; /* "exit 0", or why not */
	const char *path;   /* where the profile was kept, NULL when it was not */
};

/* Text. Returns 0, or -1 when writing failed. */
int sample_report_text(FILE *f, const struct sample_profile *p, const struct cct *tree,
		       const struct cct_top_options *o, const struct sample_report_run *run);

/* JSON (docs/json-schema.md, "profile --sample"). Returns 0, or -1 when writing failed. */
int sample_report_json(FILE *f, const struct sample_profile *p, const struct cct *tree,
		       const struct cct_top_options *o, const struct sample_report_run *run);

#endif
