/*
 * The three-way verdict of METHODS.md section 2, its sequential look schedule, and the
 * PeASS steady-state rule for in-process iterations. See verdict.h and
 * docs/statistics.md.
 */
#include "analysis/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "analysis/stats.h"
#include "util/common.h"

static const struct verdict_opts default_opts = {
    .alpha = 0.01,
    .tolerance = 0.02,
    .direction = LOWER_IS_BETTER,
};

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_EQUAL: return "equal";
	case VERDICT_WORSE: return "worse";
	case VERDICT_BETTER: return "better";
	case VERDICT_UNDECIDED: break;
	}
	return "undecided";
}

/*
 * The bootstrap's seed (docs/statistics.md, "Zeros"): fixed, so that the same values give
 * the same interval in every report and on every re-analysis of stored runs.
 */
#define BOOTSTRAP_SEED 0x5EED0F5A3B1E2C47ULL

const char *verdict_method_name(enum verdict_method m)
{
	switch (m) {
	case VERDICT_METHOD_WELCH: return "welch";
	case VERDICT_METHOD_PAIRED_T: return "paired-t";
	case VERDICT_METHOD_EXACT: return "exact";
	case VERDICT_METHOD_BOOTSTRAP: return "bootstrap";
	case VERDICT_METHOD_PAIRED_BOOTSTRAP: return "paired-bootstrap";
	case VERDICT_METHOD_NONE: break;
	}
	return "none";
}

/* What check_side() found out about a side's values. */
struct side_info {
	bool has_zero, all_zero, constant;
};

static int check_side(const double *x, size_t n, const char *side, struct side_info *info)
{
	size_t i;

	if (n < 2)
		return error("verdict: the %s has %zu value(s); at least 2 per side are needed",
			     side, n);
	info->has_zero = false;
	info->all_zero = true;
	info->constant = true;
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]) || x[i] < 0)
			return error("verdict: %s value %zu is %g; values must be finite and >= 0",
				     side, i, x[i]);
		if (x[i] == 0)
			info->has_zero = true;
		else
			info->all_zero = false;
		if (x[i] != x[0])
			info->constant = false;
	}
	return 0;
}

/* ln x into a new array the caller frees (no value is 0 here). */
static double *log_values(const double *x, size_t n)
{
	double *l = xmallocarray(n, sizeof(*l));
	size_t i;

	for (i = 0; i < n; i++)
		l[i] = log(x[i]);
	return l;
}

/*
 * Maps an interval [lo, hi] of the ratio B/A to a verdict. "Up" is a higher ratio: worse
 * for a lower-is-better metric. inclusive is used for the degenerate case (lo == hi), so
 * that a ratio exactly on the tolerance (or exactly 1 with zero tolerance) counts as equal.
 */
static enum verdict classify(double lo, double hi, double tolerance, enum direction dir,
			     bool inclusive)
{
	double up = 1 + tolerance, down = 1 / (1 + tolerance);
	bool inside = inclusive ? down <= lo && hi <= up : down < lo && hi < up;
	bool above = lo > up, below = hi < down;

	if (inside)
		return VERDICT_EQUAL;
	if (above)
		return dir == HIGHER_IS_BETTER ? VERDICT_BETTER : VERDICT_WORSE;
	if (below)
		return dir == HIGHER_IS_BETTER ? VERDICT_WORSE : VERDICT_BETTER;
	return VERDICT_UNDECIDED;
}

/* The ratio is known exactly (no variance, or both sides all 0): [r, r], inclusive. */
static void decide_exact(double ratio, const struct verdict_opts *opts, struct verdict_result *out)
{
	out->method = VERDICT_METHOD_EXACT;
	out->degenerate = true;
	out->ratio = out->ci_lo = out->ci_hi = ratio;
	out->verdict = classify(ratio, ratio, opts->tolerance, opts->direction, true);
	out->p_tost = out->verdict == VERDICT_EQUAL ? 0 : 1;
}

/* METHODS.md 2.6: values with zeros; the ratio of arithmetic means, bootstrap interval. */
static int decide_bootstrap(const double *a, size_t n_a, const double *b, size_t n_b,
			    bool paired, const struct verdict_opts *opts,
			    struct verdict_result *out)
{
	struct bootstrap_opts bo = {.alpha = opts->alpha,
				    .margin = 1 + opts->tolerance,
				    .paired = paired,
				    .seed = BOOTSTRAP_SEED};
	struct bootstrap_ratio bs;

	if (bootstrap_ratio_means(a, n_a, b, n_b, &bo, &bs) < 0)
		return -1;
	out->method = paired ? VERDICT_METHOD_PAIRED_BOOTSTRAP : VERDICT_METHOD_BOOTSTRAP;
	out->ratio = bs.ratio;
	out->ci_lo = bs.ci_lo;
	out->ci_hi = bs.ci_hi;
	out->p = bs.p;
	out->p_tost = bs.p_tost;
	out->resamples = bs.resamples;
	/* every resample gave the same ratio (b = c a in every pair): exact, inclusive */
	out->verdict = classify(out->ci_lo, out->ci_hi, opts->tolerance, opts->direction,
				out->ci_lo == out->ci_hi);
	return 0;
}

/* Welch on log values (reported always), and the interval of the method that decides. */
static int decide_logs(const double *a, size_t n_a, const double *b, size_t n_b, bool paired,
		       const struct verdict_opts *opts, struct verdict_result *out)
{
	struct stats_welch_result w = {0}, t = {0};
	double *la = log_values(a, n_a), *lb = log_values(b, n_b), *d = NULL;
	double margin = log1p(opts->tolerance);
	size_t i;
	int ret = -1;

	if (stats_welch(la, n_a, lb, n_b, opts->alpha, &w) < 0)
		goto out;
	out->p_welch = w.p;
	if (paired) {
		d = xmallocarray(n_a, sizeof(*d));
		for (i = 0; i < n_a; i++)
			d[i] = lb[i] - la[i];
		if (stats_t_one_sample(d, n_a, opts->alpha, &t) < 0)
			goto out;
		w = t;
	}
	out->method = paired ? VERDICT_METHOD_PAIRED_T : VERDICT_METHOD_WELCH;
	out->ratio = exp(w.diff);
	out->ci_lo = exp(w.ci_lo);
	out->ci_hi = exp(w.ci_hi);
	out->p = w.p;
	if (margin > 0) {
		if ((paired ? stats_tost_one_sample(d, n_a, -margin, margin, &out->p_tost)
			    : stats_tost(la, n_a, lb, n_b, -margin, margin, &out->p_tost)) < 0)
			goto out;
	} else {
		out->p_tost = 1; /* nothing is equivalent within a zero margin */
	}
	/* Identical paired differences: the ratio is known exactly; decide inclusively. */
	out->verdict =
	    classify(out->ci_lo, out->ci_hi, opts->tolerance, opts->direction, paired && w.se == 0);
	ret = 0;
out:
	free(d);
	free(lb);
	free(la);
	return ret;
}

static int decide(const double *a, size_t n_a, const double *b, size_t n_b, bool paired,
		  const struct verdict_opts *opts, struct verdict_result *out)
{
	struct stats_mw_result mw = {0};
	struct side_info ia = {0}, ib = {0};

	if (!opts)
		opts = &default_opts;
	if (!(opts->alpha > 0 && opts->alpha < 1))
		return error("verdict: alpha %g is outside (0, 1)", opts->alpha);
	if (!(opts->tolerance >= 0) || !isfinite(opts->tolerance))
		return error("verdict: tolerance %g must be finite and >= 0", opts->tolerance);
	if (check_side(a, n_a, "baseline", &ia) < 0 || check_side(b, n_b, "target", &ib) < 0)
		return -1;

	memset(out, 0, sizeof(*out));
	out->verdict = VERDICT_UNDECIDED;
	out->n_a = n_a;
	out->n_b = n_b;
	out->paired = paired;
	out->mean_a = stats_mean(a, n_a);
	out->mean_b = stats_mean(b, n_b);
	out->sd_a = stats_sd(a, n_a);
	out->sd_b = stats_sd(b, n_b);
	out->zeros = ia.has_zero || ib.has_zero;
	out->p = out->p_welch = NAN;
	/* ranks do not change under the log, so Mann-Whitney runs on the raw values */
	if (stats_mann_whitney(a, n_a, b, n_b, false, &mw) < 0)
		return -1;
	out->p_mw = mw.p_asymptotic;

	if (ia.all_zero && ib.all_zero) {
		decide_exact(1, opts, out); /* nothing on either side: no change */
		return 0;
	}
	if (ia.all_zero || ib.all_zero) {
		/* METHODS.md 2.6: a ratio to or of nothing but zeros has no interval */
		out->method = VERDICT_METHOD_NONE;
		out->ratio = out->mean_b / out->mean_a;
		out->ci_lo = 0;
		out->ci_hi = INFINITY;
		out->p_tost = 1;
		out->reason = ia.all_zero
				  ? "every baseline value is 0: the ratio B/A is infinite and has no interval"
				  : "every target value is 0: the ratio B/A is 0 and has no interval";
		return 0;
	}
	if (ia.constant && ib.constant) {
		decide_exact(b[0] / a[0], opts, out); /* no variance anywhere */
		return 0;
	}
	if (out->zeros)
		return decide_bootstrap(a, n_a, b, n_b, paired, opts, out);
	return decide_logs(a, n_a, b, n_b, paired, opts, out);
}

int verdict_decide(const double *a, size_t n_a, const double *b, size_t n_b,
		   const struct verdict_opts *opts, struct verdict_result *out)
{
	return decide(a, n_a, b, n_b, false, opts, out);
}

int verdict_decide_paired(const double *a, const double *b, size_t n,
			  const struct verdict_opts *opts, struct verdict_result *out)
{
	return decide(a, n, b, n, true, opts, out);
}

int sequential_plan_init(struct sequential_plan *plan, size_t min_runs, size_t max_runs,
			 double alpha)
{
	size_t n;

	if (min_runs < 2)
		return error("sequential plan: at least 2 runs per side are needed, got %zu",
			     min_runs);
	if (max_runs < min_runs)
		return error("sequential plan: max runs %zu is below min runs %zu", max_runs,
			     min_runs);
	if (!(alpha > 0 && alpha < 1))
		return error("sequential plan: alpha %g is outside (0, 1)", alpha);
	memset(plan, 0, sizeof(*plan));
	plan->min_runs = min_runs;
	plan->max_runs = max_runs;
	n = min_runs;
	plan->looks[plan->n_looks++] = n;
	while (n < max_runs) {
		/* grow by at least 25%: n + ceil(n / 4), written to avoid overflow */
		size_t grow = n / 4 + (n % 4 != 0);

		n = grow > max_runs - n ? max_runs : n + grow;
		if (plan->n_looks == ARRAY_SIZE(plan->looks))
			return error("sequential plan: %zu..%zu runs needs more than %zu looks",
				     min_runs, max_runs, ARRAY_SIZE(plan->looks));
		plan->looks[plan->n_looks++] = n;
	}
	/* Bonferroni over the looks: P(any false worse/better) <= sum of per-look alphas */
	plan->alpha_per_look = alpha / (double)plan->n_looks;
	return 0;
}

size_t sequential_next_look(const struct sequential_plan *plan, size_t n)
{
	size_t i;

	for (i = 0; i < plan->n_looks; i++)
		if (plan->looks[i] >= n)
			return plan->looks[i];
	return plan->max_runs;
}

/* Coefficient of variation of k values with sample sd; 0 for a window of identical values. */
static double window_cv(const double *x, size_t k)
{
	double mean = stats_mean(x, k), sd = stats_sd(x, k);

	if (sd == 0)
		return 0;
	return sd / fabs(mean);
}

bool steady_state(const double *iters, size_t n, size_t k, double cv_max, size_t *first_steady,
		  double *value)
{
	size_t s, tail = n < k ? n : k;

	/* a window needs two values for a sample sd */
	if (k >= 2) {
		for (s = 0; s + k <= n; s++) {
			if (window_cv(iters + s, k) < cv_max) {
				if (first_steady)
					*first_steady = s;
				if (value)
					*value = stats_mean(iters + s, n - s);
				return true;
			}
		}
	}
	if (first_steady)
		*first_steady = n - tail;
	if (value)
		*value = tail ? stats_mean(iters + n - tail, tail) : NAN;
	return false;
}

enum verdict verdict_classify(double lo, double hi, const struct verdict_opts *opts,
			      bool inclusive)
{
	return classify(lo, hi, opts->tolerance, opts->direction, inclusive);
}
