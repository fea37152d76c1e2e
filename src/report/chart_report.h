#ifndef REVPERF_REPORT_CHART_REPORT_H
#define REVPERF_REPORT_CHART_REPORT_H

/*
 * Reports of the control charts (analysis/control_chart.h, docs/counters.md): the
 * out-of-control counters ordered by violation ratio minus threshold, every counter's
 * limits, the per-run scores, as text, JSON and Markdown, and one SVG control chart per
 * counter (the baseline band between LCL and UCL, the CL, the target samples, violations
 * marked).
 */
#include <jansson.h>
#include <stdio.h>

#include "analysis/control_chart.h"

struct strbuf;

struct chart_labels {
	const char *baseline, *target; /* what each side is: "3 runs of main", files... */
	const char *load;	       /* the load counter, NULL when none */
};

/* The out-of-control counters first, then a table of every counter. `indent` prefixes lines. */
void chart_report_text(FILE *f, const struct cchart_result *r, const struct chart_labels *l,
		       const char *indent);
/* The same with per-target-run scores (run names from `in`). */
void chart_report_runs_text(FILE *f, const struct cchart_input *in, const struct cchart_result *r,
			    const struct cchart_run_score *scores, const char *indent);
/* Every counter as JSON (a new reference); scores may be NULL. */
json_t *chart_report_json(const struct cchart_input *in, const struct cchart_result *r,
			  const struct chart_labels *l, const struct cchart_run_score *scores);
/*
 * Why no counter was judged (r->nr_judged == 0), appended to sb: "of 9 counters: 7 idle
 * throughout a side, 2 no headroom", each status with counters, in the order of enum
 * cchart_status, the counters without headroom after those charted.
 */
void chart_report_not_judged(struct strbuf *sb, const struct cchart_result *r);
/*
 * The counters that were not judged, per reason, as a JSON object (a new reference):
 * {"no_headroom", "only_in_baseline", "only_in_target", "no_samples", "idle"}.
 */
json_t *chart_report_not_judged_json(const struct cchart_result *r);
/* The out-of-control counters as a Markdown table. */
void chart_report_markdown(FILE *f, const struct cchart_result *r);

/*
 * Writes the control chart of counter r->counters[idx] as an SVG document to `f`. Every
 * name is escaped. Returns 0, -1 on a write error, or RP_EINPUT (after error()) when the
 * counter was not charted.
 */
int chart_report_svg(FILE *f, const struct cchart_input *in, const struct cchart_result *r,
		     size_t idx, const struct chart_labels *l);

/*
 * Writes one SVG per charted counter into `dir` (created if missing) as
 * "<counter>.svg" (unsafe characters replaced). Returns 0, or an error code after error().
 */
int chart_report_svg_dir(const char *dir, const struct cchart_input *in,
			 const struct cchart_result *r, const struct chart_labels *l);

#endif
