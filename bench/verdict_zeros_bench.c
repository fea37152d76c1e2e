/*
 * The verdict for values with zeros (METHODS.md 2.6, docs/statistics.md "Zeros"), measured
 * by simulation: for each interval (the verdict's hull of the percentile bootstrap and
 * Student's t, each of them alone, and the ln(1 + x) shift it replaced), the rate of false
 * worse/better verdicts in sequential A/A comparisons (runs 5..30, the planned looks,
 * alpha 5%, tolerance 0: the hardest case) and, for real changes (alpha 1%, tolerance 2%),
 * how often they are decided and how often they are called `equal`.
 *
 * Usage: verdict_zeros_bench [TRIALS]   (default 300 per cell; seeded, so reproducible)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "util/rng.h"
#include "util/common.h"

enum interval { HULL, PERCENTILE, STUDENT, SHIFTED_LOG, NR_INTERVALS };
static const char *const interval_names[] = {"hull (verdict)", "percentile only",
					      "Student t only", "ln(1 + x) (before)"};

struct population {
	const char *name;
	double p0;    /* share of zeros */
	double sd;    /* log-normal spread of the rest */
	bool counts;  /* small counts 0..3 instead */
	double scale; /* 0.001: milliseconds measured in seconds */
};

static const struct population populations[] = {
    {"CPU seconds, 20% zeros", 0.2, 0.1, false, 0.001},
    {"CPU seconds, 3% zeros", 0.03, 0.05, false, 0.001},
    {"CPU seconds, 50% zeros", 0.5, 0.3, false, 0.001},
    {"counts 0..3", 0, 0, true, 1},
};

static double uniform(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double gaussian(struct rng *r)
{
	return sqrt(-2 * log(uniform(r))) * cos(2 * M_PI * uniform(r));
}

static double draw(struct rng *r, const struct population *p, double change)
{
	if (p->counts)
		return change * (double)(rng_next(r) >> 62);
	return uniform(r) < p->p0 ? 0 : change * p->scale * exp(p->sd * gaussian(r));
}

static enum verdict classify(double lo, double hi, double tolerance)
{
	if (lo > 1 + tolerance)
		return VERDICT_WORSE;
	if (hi < 1 / (1 + tolerance))
		return VERDICT_BETTER;
	if (lo > 1 / (1 + tolerance) && hi < 1 + tolerance)
		return VERDICT_EQUAL;
	return VERDICT_UNDECIDED;
}

/* The ln(1 + x) shift of the former verdict: Welch (or paired t) on log1p values. */
static enum verdict shifted_log(const double *a, const double *b, size_t n, bool paired,
				double alpha, double tolerance)
{
	struct stats_welch_result w;
	double la[64], lb[64], d[64];
	size_t i;

	for (i = 0; i < n; i++) {
		la[i] = log1p(a[i]);
		lb[i] = log1p(b[i]);
		d[i] = lb[i] - la[i];
	}
	if ((paired ? stats_t_one_sample(d, n, alpha, &w) : stats_welch(la, n, lb, n, alpha, &w)) <
	    0)
		return VERDICT_UNDECIDED;
	return classify(exp(w.ci_lo), exp(w.ci_hi), tolerance);
}

static enum verdict judge(enum interval iv, const double *a, const double *b, size_t n,
			  bool paired, double alpha, double tolerance)
{
	struct bootstrap_opts o = {.alpha = alpha, .margin = 1 + tolerance, .paired = paired,
				   .seed = 0x5EED0F5A3B1E2C47ULL};
	struct bootstrap_ratio r;
	double sa = 0, sb = 0;
	size_t i;

	if (iv == SHIFTED_LOG)
		return shifted_log(a, b, n, paired, alpha, tolerance);
	for (i = 0; i < n; i++) {
		sa += a[i];
		sb += b[i];
	}
	if (sa == 0 || sb == 0) /* a side of zeros only: undecided (or equal), never decided */
		return sa == sb ? VERDICT_EQUAL : VERDICT_UNDECIDED;
	o.tails = iv == HULL ? BOOTSTRAP_HULL
		  : iv == PERCENTILE ? BOOTSTRAP_PERCENTILE_ONLY
				     : BOOTSTRAP_STUDENT_ONLY;
	if (bootstrap_ratio_means(a, n, b, n, &o, &r) < 0)
		exit(3);
	return classify(r.ci_lo, r.ci_hi, tolerance);
}

/*
 * trials sequential comparisons of one population against itself times change: counts of
 * the final verdicts (stopping at the first decided look, as compare does).
 */
static void simulate(enum interval iv, const struct population *p, bool paired, double change,
		     double alpha, double tolerance, size_t trials, uint64_t seed,
		     size_t counts[4])
{
	struct sequential_plan plan;
	struct rng r;
	size_t t, k, n;

	if (sequential_plan_init(&plan, 5, 30, alpha) < 0)
		exit(3);
	rng_seed(&r, seed);
	memset(counts, 0, 4 * sizeof(*counts));
	for (t = 0; t < trials; t++) {
		double a[64], b[64];
		enum verdict v = VERDICT_UNDECIDED;

		n = 0;
		for (k = 0; k < plan.n_looks; k++) {
			for (; n < plan.looks[k]; n++) {
				/* paired: a machine regime shared by both runs of a pair */
				double regime = paired && (rng_next(&r) >> 62) == 0 ? 1.45 : 1;
				a[n] = regime * draw(&r, p, 1);
				b[n] = regime * draw(&r, p, change);
			}
			v = judge(iv, a, b, n, paired, plan.alpha_per_look, tolerance);
			if (v != VERDICT_UNDECIDED && !(tolerance == 0 && v == VERDICT_EQUAL))
				break;
		}
		counts[v]++;
	}
}

int main(int argc, char **argv)
{
	size_t trials = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
	size_t i, paired, iv, c[4];

	if (!trials)
		trials = 300;
	printf("A/A, alpha 5%%, tolerance 0, runs 5..30, %zu trials: false worse/better rate\n",
	       trials);
	printf("  %-26s %-9s", "population", "analysis");
	for (iv = 0; iv < NR_INTERVALS; iv++)
		printf(" %20s", interval_names[iv]);
	printf("\n");
	for (i = 0; i < ARRAY_SIZE(populations); i++) {
		for (paired = 0; paired < 2; paired++) {
			printf("  %-26s %-9s", populations[i].name, paired ? "paired" : "unpaired");
			for (iv = 0; iv < NR_INTERVALS; iv++) {
				simulate(iv, &populations[i], paired, 1, 0.05, 0, trials, 100 + i,
					 c);
				printf(" %20.4f",
				       (double)(c[VERDICT_WORSE] + c[VERDICT_BETTER]) / (double)trials);
			}
			printf("\n");
		}
	}
	printf("\nA real change, paired, alpha 1%%, tolerance 2%%, %zu trials: worse (or better "
	       "for /2) / equal\n",
	       trials);
	for (i = 0; i < ARRAY_SIZE(populations); i++) {
		static const double changes[] = {10, 2, 0.5};
		size_t j;
		for (j = 0; j < ARRAY_SIZE(changes); j++) {
			printf("  %-26s x%-8g", populations[i].name, changes[j]);
			for (iv = 0; iv < NR_INTERVALS; iv++) {
				char cell[32];
				simulate(iv, &populations[i], true, changes[j], 0.01, 0.02, trials,
					 200 + i, c);
				snprintf(cell, sizeof(cell), "%.3f / %.3f",
					 (double)c[changes[j] > 1 ? VERDICT_WORSE : VERDICT_BETTER] /
					     (double)trials,
					 (double)c[VERDICT_EQUAL] / (double)trials);
				printf(" %20s", cell);
			}
			printf("\n");
		}
	}
	return 0;
}
