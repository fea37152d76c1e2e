#ifndef REVPERF_REPORT_CCT_REPORT_H
#define REVPERF_REPORT_CCT_REPORT_H

/*
 * The reports of a calling context tree diff (docs/cct-diff.md, "Output"): text, JSON
 * (docs/json-schema.md) and a differential flame graph in SVG. All read the diff and the two
 * trees it borrows; none changes them. Calls are shown only for a tree that has them (a
 * folded profile has none); "mean ± sd" where the tree is a merge of runs (cct.sd set).
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/cct_diff.h"

struct strbuf;
struct attribution;

struct cct_report_options {
	const char *old_label, *new_label; /* the profiles, e.g. their files; NULL: old, new */
	size_t max_topo;     /* text: at most this many differences per stage; 0 = all */
	size_t path_width;   /* text and SVG: paths longer than this many bytes are shortened in
				the middle; 0 = 100 */
	unsigned width_px;   /* SVG: image width in pixels; 0 = 1200 */
	double min_frame_px; /* SVG: narrower frames are not drawn; <= 0 means 0.3 */
	const char *title;   /* SVG: NULL = "Differential flame graph" */
	/* Text and JSON: the absolute change per function and call path beside the diff
	 * (analysis/profile_attribution.h), or NULL with absolute_note saying why not. */
	const struct attribution *absolute;
	const char *absolute_note;
	size_t absolute_top; /* rows per list of it; 0 = all kept */
};

/*
 * Writes the diff as text: both profiles, the absolute change when o->absolute is set,
 * the overlap, the topological differences grouped
 * by stage (largest first within a stage; stage 1 with the caller, stage 2 with the
 * modified functions nearest first), then the weight differences with both pweights and
 * calls. `o` may be NULL (defaults). Returns 0, or -1 on a write error.
 */
int cct_diff_report_text(FILE *f, const struct cct_diff *d, const struct cct_report_options *o);

/*
 * The diff as a JSON object (docs/json-schema.md, "revperf diff --format json"), full paths
 * as arrays of frame names, without the revperf_version and schema fields so that another
 * report can embed it. Returns a new reference: the caller json_decref()s it.
 */
json_t *cct_diff_to_json(const struct cct_diff *d, const struct cct_report_options *o);

/* Writes cct_diff_to_json() with revperf_version and schema. Returns 0, or -1 on a write error. */
int cct_diff_report_json(FILE *f, const struct cct_diff *d, const struct cct_report_options *o);

/*
 * Writes a differential flame graph of the diff as a standalone SVG document (template
 * src/report/assets/flamegraph.svg) as wide as the page: the new tree's layout, each frame
 * coloured by the change of its pweight against the matched old context (red more, blue
 * less, hatched red only in the new tree), a tooltip with both values, a search box, the 10
 * largest changes listed under the graph (their frames drawn however narrow; a row zooms on
 * its frame), the contexts only in the old tree in a table below, click to zoom. Every name
 * is XML-escaped. Returns 0, or -1 on a write error.
 */
int cct_diff_report_svg(FILE *f, const struct cct_diff *d, const struct cct_report_options *o);

/*
 * Appends the context of `node` as cct_path() writes it ("a;b;c"), shortened in the middle
 * when longer than `width` bytes (0 = never): the first frame, "...", and as many of the
 * last frames as fit (at least the last one; names are never cut).
 */
void cct_report_path(struct strbuf *sb, const struct cct *t, uint32_t node, size_t width);

/* Shared by the renderers. Whether any node of `t` has a call count (folded stacks: none). */
bool cct_report_has_calls(const struct cct *t);
/*
 * The standard deviation of `value`, a quantity proportional to `base` whose standard
 * deviation is `base_sd` (a merged tree's pweight from its weight: the variation of the
 * total is left out); NAN when base is not positive.
 */
double cct_report_scaled_sd(double value, double base, double base_sd);
/* Appends a count or weight: as an integer when it is one (one profile), else with two
 * decimals (a mean of runs). */
void cct_report_add_count(struct strbuf *sb, double v);

#endif
