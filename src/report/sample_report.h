#ifndef REVPERF_REPORT_SAMPLE_REPORT_H
#define REVPERF_REPORT_SAMPLE_REPORT_H

/*
 * The report of one sampled run (`revperf profile --sample`, docs/sampling.md): how it
 * was sampled, the on-CPU time per thread and summed beside the kernel's account of the
 * run, what was lost or cut, how each module was unwound, then the heaviest contexts.
 */
#include <jansson.h>
#include <stdio.h>

#include "profile/sample_file.h"
#include "report/cct_top.h"

struct sample_report_run {
	const char *status; /* "exit 0", or why not */
	const char *path;   /* where the profile was kept, NULL when it was not */
};

/*
 * Appends what a reader must know before trusting the profile, one sentence per line,
 * each ending in '\n': few samples (with the uncertainty that follows), samples lost,
 * throttling, stacks cut at the end of the stack copy, and stacks that do not reach an
 * entry point. Appends nothing for a profile without such a problem.
 */
struct strbuf;
void sample_report_notes(const struct sample_profile *p, struct strbuf *sb);

/* Text. Returns 0, or -1 when writing failed. */
int sample_report_text(FILE *f, const struct sample_profile *p, const struct cct *tree,
		       const struct cct_top_options *o, const struct sample_report_run *run);

/* JSON (docs/json-schema.md, "profile --sample"). Returns 0, or -1 when writing failed. */
int sample_report_json(FILE *f, const struct sample_profile *p, const struct cct *tree,
		       const struct cct_top_options *o, const struct sample_report_run *run);

#endif
