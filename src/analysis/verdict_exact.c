/*
 * The verdict of deterministic counts (METHODS.md section 2, step 7; analysis/verdict.h):
 * when every run of each side agrees, the ratio is known, and so is the verdict.
 */
#include <math.h>
#include <string.h>

#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "util/common.h"

double verdict_spread(const double *v, size_t n)
{
	double lo = v[0], hi = v[0], sum = 0;
	for (size_t i = 0; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
		sum += v[i];
	}
	if (hi == 0)
		return 0;
	return (hi - lo) / (sum / (double)n);
}

static bool valid(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]) || v[i] < 0)
			return false;
	return n >= 1;
}

static void min_max(const double *v, size_t n, double *lo, double *hi)
{
	*lo = *hi = v[0];
	for (size_t i = 1; i < n; i++) {
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
}

int verdict_decide_exact(const double *a, size_t n_a, const double *b, size_t n_b,
			 const struct verdict_opts *opts, struct verdict_result *out)
{
	double lo_a, hi_a, lo_b, hi_b;

	if (!valid(a, n_a) || !valid(b, n_b)) {
		error("the exact verdict needs at least one finite value >= 0 per side");
		return -1;
	}
	out->spread_a = verdict_spread(a, n_a);
	out->spread_b = verdict_spread(b, n_b);
	if (out->spread_a > VERDICT_EXACT_SPREAD || out->spread_b > VERDICT_EXACT_SPREAD)
		return 0;
	min_max(a, n_a, &lo_a, &hi_a);
	min_max(b, n_b, &lo_b, &hi_b);
	out->n_a = n_a;
	out->n_b = n_b;
	out->mean_a = stats_mean(a, n_a);
	out->mean_b = stats_mean(b, n_b);
	out->sd_a = n_a >= 2 ? stats_sd(a, n_a) : 0;
	out->sd_b = n_b >= 2 ? stats_sd(b, n_b) : 0;
	out->p = out->p_welch = out->p_mw = NAN;
	out->exact = true;
	/* "zero variance on both sides" (JSON's degenerate): not runs within the spread */
	out->degenerate = out->spread_a == 0 && out->spread_b == 0;
	out->method = VERDICT_METHOD_EXACT;
	out->reason = NULL;
	out->resamples = 0;
	if (hi_a == 0 && hi_b == 0) { /* both all zero: nothing happened on either side */
		out->ratio = out->ci_lo = out->ci_hi = 1;
		out->verdict = VERDICT_EQUAL;
	} else if (hi_a == 0 || hi_b == 0) {
		/* zero on one side only: the ratio is 0 or infinite, no interval to judge */
		out->ratio = hi_a == 0 ? INFINITY : 0;
		out->ci_lo = out->ci_hi = out->ratio;
		out->verdict = verdict_classify(out->ratio, out->ratio, opts, true);
	} else {
		out->ratio = out->mean_b / out->mean_a;
		out->ci_lo = lo_b / hi_a;
		out->ci_hi = hi_b / lo_a;
		out->verdict = verdict_classify(out->ci_lo, out->ci_hi, opts, true);
	}
	out->p_tost = out->verdict == VERDICT_EQUAL ? 0 : 1;
	return 1;
}
