#ifndef REVPERF_COMPARE_COMPARE_RESULT_H
#define REVPERF_COMPARE_COMPARE_RESULT_H

/* Private to compare/: finishing a comparison's result (compare_result.c). */
#include "compare/compare.h"

/* Benjamini-Hochberg over the p-values behind every measured (benchmark, metric) verdict. */
void compare_adjust_p_values(struct compare_result *res);

/* Stores every verdict of res (unmeasured ones too). Returns 0 or RP_EINTERNAL. */
int compare_save_verdicts(const struct compare_request *req, struct compare_result *res);

/*
 * Sets m->unmeasured, why metric m of benchmark b has no verdict (m->measured is false,
 * m->r.n_a and n_b are its values per side): no successful run on a side, a pattern that
 * never matched the output (reported: a metric the benchmark prints), a metric this
 * machine cannot measure or (stored: every run was made before, by a comparison of other
 * metrics, or is shown again) the stored runs lack, too few values. NULL when m is
 * measured.
 */
void compare_explain_unmeasured(const struct bench_outcome *b, struct metric_outcome *m,
				bool reported, bool stored);

/*
 * Empties m's verdict for na + nb values (np complete pairs): no ratio, no interval, no
 * p-values, undecided, measured when each side has at least 2 values.
 */
void metric_outcome_reset(struct metric_outcome *m, size_t na, size_t nb, size_t np);

/*
 * Gives m the values of one side (0 baseline, 1 target) in run order, with the run ids
 * (NULL when the runs are not stored one by one); m takes ownership of both arrays and
 * frees what it had. Sets the side's median, and its mean and sd when the metric is not
 * measured (NaN without values: a report prints null, never 0).
 */
void metric_outcome_set_values(struct metric_outcome *m, int side, int64_t *run_ids,
			       double *values, size_t n);

/* Frees what metric_outcome_set_values() gave m. */
void metric_outcome_release_values(struct metric_outcome *m);

#endif
