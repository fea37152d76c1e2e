/* The outcome of a comparison: adjusted p-values, stored verdicts, exit code (compare.h). */
#include "compare/compare.h"
#include "compare/compare_result.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "analysis/stats.h"
#include "compare/compare_counted.h"
#include "compare/compare_counters.h"
#include "compare/compare_io.h"
#include "compare/compare_profile.h"
#include "compare/run_output.h"
#include "util/common.h"

/* Benjamini-Hochberg over the p-values behind every measured (benchmark, metric) verdict. */
void compare_adjust_p_values(struct compare_result *res)
{
	size_t n = 0, k = 0, i, j;
	double *p, *q;
	for (i = 0; i < res->nr_benches; i++)
		for (j = 0; j < res->benches[i].nr_metrics; j++)
			n += isfinite(res->benches[i].metrics[j].r.p);
	if (!n)
		return;
	p = xcalloc(n, sizeof(*p));
	q = xcalloc(n, sizeof(*q));
	for (i = 0; i < res->nr_benches; i++)
		for (j = 0; j < res->benches[i].nr_metrics; j++)
			if (isfinite(res->benches[i].metrics[j].r.p))
				p[k++] = res->benches[i].metrics[j].r.p;
	stats_benjamini_hochberg(p, n, q);
	k = 0;
	for (i = 0; i < res->nr_benches; i++)
		for (j = 0; j < res->benches[i].nr_metrics; j++)
			if (isfinite(res->benches[i].metrics[j].r.p))
				res->benches[i].metrics[j].q_bh = q[k++];
	free(p);
	free(q);
}

int compare_save_verdicts(const struct compare_request *req, struct compare_result *res)
{
	size_t i, j;
	for (i = 0; i < res->nr_benches; i++) {
		struct bench_outcome *b = &res->benches[i];
		for (j = 0; j < b->nr_metrics; j++) {
			struct metric_outcome *m = &b->metrics[j];
			const char *v = m->measured ? verdict_name(m->r.verdict) : "unmeasured";
			if (store_verdict_save(req->st, res->comparison_id, b->benchmark_id,
					       m->def->name, m->primary, v, &m->r, m->n_pairs, m->q_bh))
				return RP_EINTERNAL;
		}
	}
	return 0;
}

void compare_explain_unmeasured(const struct bench_outcome *b, struct metric_outcome *m,
				bool reported, bool stored)
{
	size_t n_a = m->r.n_a, n_b = m->r.n_b;
	if (m->measured)
		m->unmeasured = NULL;
	else if (!b->ok_a && !b->ok_b)
		m->unmeasured = "no successful run on either side";
	else if (!b->ok_a)
		m->unmeasured = "no successful run of the baseline";
	else if (!b->ok_b)
		m->unmeasured = "no successful run of the target";
	else if (!n_a && !n_b)
		m->unmeasured = reported ? "never in the output of a run"
			       : stored	 ? "not in the stored runs (made with other metrics, or "
					   "unsupported here; compare --fresh measures anew)"
					 : "not supported on this machine";
	else if (!n_a)
		m->unmeasured = reported ? "never in the baseline's output"
					 : "no value on the baseline's side";
	else if (!n_b)
		m->unmeasured = reported ? "never in the target's output"
					 : "no value on the target's side";
	else
		m->unmeasured = "fewer than 2 values on a side";
}

void compare_result_own_def(struct compare_result *res, struct metric_def *def)
{
	ALLOC_GROW(res->owned_defs, res->nr_owned_defs + 1, res->alloc_owned_defs);
	res->owned_defs[res->nr_owned_defs++] = def;
}

void compare_result_release(struct compare_result *res)
{
	size_t i;
	if (!res)
		return;
	for (i = 0; i < res->nr_benches; i++) {
		free(res->benches[i].name);
		for (size_t j = 0; j < res->benches[i].nr_metrics; j++)
			metric_outcome_release_values(&res->benches[i].metrics[j]);
		free(res->benches[i].metrics);
		for (int side = 0; side < 2; side++) {
			free(res->benches[i].command[side]);
			free(res->benches[i].run_ends[side]);
		}
		free(res->benches[i].error);
		cct_attribution_free(res->benches[i].cct);
		io_attribution_free(res->benches[i].io);
		counters_attribution_free(res->benches[i].counters);
		counted_attribution_free(res->benches[i].counted);
		free(res->benches[i].program);
		for (size_t k = 0; k < res->benches[i].nr_renamed; k++) {
			free(res->benches[i].renamed[k].old_name);
			free(res->benches[i].renamed[k].new_name);
		}
		free(res->benches[i].renamed);
		for (size_t k = 0; k < res->benches[i].nr_changed; k++) {
			free(res->benches[i].changed[k].name);
			free(res->benches[i].changed[k].old_name);
		}
		free(res->benches[i].changed);
		store_run_issues_free(res->benches[i].issues, res->benches[i].nr_issues);
		reported_lines_free(res->benches[i].reported, res->benches[i].nr_reported);
	}
	free(res->benches);
	for (i = 0; i < res->nr_owned_defs; i++)
		metric_def_free(res->owned_defs[i]);
	free(res->owned_defs);
	free(res->base_label);
	free(res->target_label);
	memset(res, 0, sizeof(*res));
}

int compare_exit_code(const struct compare_result *res)
{
	size_t i, j;
	int code = EXIT_OK;
	if (res->interrupted)
		return 128 + (res->interrupt_signal > 0 ? res->interrupt_signal : SIGINT);
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		if (b->target_broken)
			return EXIT_REGRESSION;
		for (j = 0; j < b->nr_metrics; j++)
			if (b->metrics[j].primary && b->metrics[j].measured &&
			    b->metrics[j].r.verdict == VERDICT_WORSE)
				return EXIT_REGRESSION;
		/* A benchmark that could not be compared (its baseline fails) is an input
		 * problem, unless another one shows a regression. */
		if (b->error)
			code = EXIT_USAGE;
	}
	return code;
}

void metric_outcome_reset(struct metric_outcome *m, size_t na, size_t nb, size_t np)
{
	memset(&m->r, 0, sizeof(m->r));
	m->r.n_a = na;
	m->r.n_b = nb;
	m->r.ratio = m->r.ci_lo = m->r.ci_hi = NAN;
	m->r.p = m->r.p_welch = m->r.p_mw = m->r.p_tost = NAN;
	m->r.spread_a = m->r.spread_b = NAN;
	/* not measured: no mean rather than 0 (set from the values when there are some) */
	m->r.mean_a = m->r.mean_b = m->r.sd_a = m->r.sd_b = NAN;
	m->r.verdict = VERDICT_UNDECIDED;
	m->q_bh = NAN;
	m->n_pairs = np;
	m->measured = na >= 2 && nb >= 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void metric_outcome_set_values(struct metric_outcome *m, int side, int64_t *run_ids,
			       double *values, size_t n)
{
	double *sorted;
	free(m->values[side]);
	free(m->run_ids[side]);
	m->values[side] = values;
	m->run_ids[side] = run_ids;
	m->nr_values[side] = n;
	m->median[side] = NAN;
	if (!n)
		return;
	sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, values, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	m->median[side] = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
	if (!m->measured && (side ? m->r.n_b : m->r.n_a) == n) {
		/* the verdict left them out: one value has a mean, no sd */
		double mean = stats_mean(values, n);
		if (side)
			m->r.mean_b = mean;
		else
			m->r.mean_a = mean;
	}
}

void metric_outcome_release_values(struct metric_outcome *m)
{
	for (int side = 0; side < 2; side++) {
		free(m->values[side]);
		free(m->run_ids[side]);
		m->values[side] = NULL;
		m->run_ids[side] = NULL;
		m->nr_values[side] = 0;
	}
}
