#ifndef REVPERF_REPORT_ATTRIBUTION_REPORT_H
#define REVPERF_REPORT_ATTRIBUTION_REPORT_H

/*
 * The absolute attribution (analysis/profile_attribution.h) as text, Markdown, JSON and
 * HTML: one renderer for every kind of profile (`revperf diff`, the attribution under a
 * verdict with profile = cct, the counted runs under valgrind, the site's commit pages).
 * Values carry their unit (time in s, ms, us or ns; counts with their event); each side is
 * "mean ± sd over the runs", the change "± the half-width of its interval"; noise is
 * marked as such; one run per side says there is no spread. Function and path names are
 * untrusted (they come from profiles): escaped for each output.
 */
#include <jansson.h>
#include <stdio.h>

#include "analysis/profile_attribution.h"

struct strbuf;

/*
 * What the values measure, one phrase: "elapsed time in calls (waiting included), summed
 * over threads", "on-CPU time", "instructions (Ir)", "calls", "folded-stack weight (the
 * file's own unit)".
 */
const char *attribution_weight_phrase(const struct attribution *a);
/*
 * One amount of a tree's weight w (event: CCT_WEIGHT_EVENT's name) in its unit, scaled as
 * the attribution's rows are: "27.124 M Ir", "1.25 s" (time is in ns), "380" (a weight of
 * no known unit: folded stacks), "1.235 M" (the same, large).
 */
void attribution_add_amount(struct strbuf *sb, enum cct_weight w, const char *event, double v);

/* "finding", "noise", "no spread". */
const char *attribution_class_name(enum attribution_class c);

/*
 * Text: a heading (what the values are, runs per side, the total per run and its change),
 * then the functions and the call paths, at most `top` rows each (0: all kept), and a
 * legend of the noise rule. `indent` prefixes every line.
 */
void attribution_text(FILE *f, const struct attribution *a, size_t top, const char *indent);

/* Markdown: the heading as a paragraph, then one table per list. */
void attribution_markdown(FILE *f, const struct attribution *a, size_t top);

/* HTML (escaped): the heading as a paragraph, one table per list (class "attribution"). */
void attribution_html(struct strbuf *sb, const struct attribution *a, size_t top);

/* attribution_json.c: */

/*
 * JSON (docs/json-schema.md, "attribution"): unit, clock, runs, alpha, the total and both
 * lists with means, sds, ranges, calls (null when unknown), change, interval, share and
 * class. A new reference.
 */
json_t *attribution_json(const struct attribution *a);

/*
 * The inverse of attribution_json(), for an attribution a comparison left on disk
 * (profiles/<comparison>/<bench>/attribution.json, read by the site): fills `out`
 * (release with attribution_release()). Untrusted: every field is checked (types, at most
 * ATTRIBUTION_JSON_MAX entries per list); `origin` names the file in the error. Returns 0,
 * or RP_EINPUT after error() (out is then empty).
 */
#define ATTRIBUTION_JSON_MAX 1000
int attribution_from_json(const json_t *o, const char *origin, struct attribution *out);

/*
 * Writes attribution_json() of `a` with revperf_version and schema to `path` (revperf's
 * own file, never through a symbolic link). Returns 0, or -1 after warning().
 */
int attribution_write_json(const char *path, const struct attribution *a);

/*
 * Reads what attribution_write_json() wrote. Returns 0, RP_EINPUT after error() (not
 * readable, not JSON, a field of the wrong type).
 */
int attribution_read_json(const char *path, struct attribution *out);

#endif
