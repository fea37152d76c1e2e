#ifndef REVPERF_COMPARE_COMPARE_COUNTERS_H
#define REVPERF_COMPARE_COMPARE_COUNTERS_H

/*
 * The control charts under a benchmark's verdict (`profile = counters`): the counters
 * sampled during the timing runs of both sides (stored per run), the baseline's runs as
 * the chart, the target's runs scored against it (METHODS.md section 4, docs/counters.md).
 */
#include "analysis/control_chart.h"
#include "compare/compare.h"
#include "core/revision.h"
#include "store/store.h"

struct counters_attribution {
	char *error;		  /* why there are no charts (NULL when there are) */
	size_t runs[2];		  /* sampled runs per side (A, B) */
	struct cchart_input in;	  /* the samples, kept for the SVG charts */
	struct cchart_result res; /* the analysis */
	char *chart_dir;	  /* where the SVG charts belong; NULL when there are none */
	char *svg_dir;		  /* one SVG per charted counter; NULL until the command writes
				     them there (report/compare_graphics.h) */
	const char *labels[2];	  /* the sides' labels (borrowed from the request) */
};

/*
 * Reads the series of the successful runs that filter[0] and filter[1] select, charts
 * them (default options: 5/95 limits, the bimodal filter, load scaling by the benchmark's
 * load counter when it has one) and names the directory of their SVG charts,
 * STATE/profiles/<comparison>/<benchmark>/charts/ (the command writes them). Fills a new *out (free it with
 * counters_attribution_free()); no sampled runs on a side, or input the analysis refuses,
 * is out->error, not a failure. Returns 0 or RP_EINTERNAL (store).
 */
int compare_counters(const struct compare_request *req, const struct bench_config *bench,
		     const struct store_run_filter filter[2], int64_t comparison_id,
		     struct counters_attribution **out);

void counters_attribution_free(struct counters_attribution *a);

/*
 * Adds the sampled runs `compare` stored for benchmark `bench` at revision `expr` to
 * `side` of `in` (runs named "EXPR run ID"), and describes them in `what` ("EXPR (sha, N
 * runs)"). Returns 0, or RP_EINPUT after error() (a revision that does not resolve, no
 * sampled run, a series the analysis refuses), RP_EINTERNAL.
 */
int compare_counters_of_revision(struct store *st, struct repo *repo, const char *expr,
				 const char *bench, struct cchart_input *in, enum cchart_side side,
				 struct strbuf *what);

#endif
