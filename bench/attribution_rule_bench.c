/*
 * The noise rule of the absolute attribution (docs/attribution.md), simulated: for n runs
 * per side of normal per-run values (sd 1) and a true change of 0, 1, 2, 4 or 8 sd, how
 * often an entry is called a finding by the rule revperf applies (attribution_classify():
 * the Welch interval of the change at alpha excludes 0) and by the rejected rule (the
 * change larger than the larger within-side range, max - min). A statistical property,
 * not a timing: the output depends only on the seed.
 *
 * Usage: attribution_rule_bench [DRAWS [ALPHA [SEED]]]   (defaults 20000 0.01 1)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/profile_attribution.h"
#include "util/common.h"
#include "util/rng.h"

static double uniform(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(struct rng *r)
{
	return sqrt(-2 * log(uniform(r))) * cos(2 * M_PI * uniform(r));
}

/* mean, sd, min, max of n draws of N(shift, 1) into st. */
static void draw(struct rng *r, size_t n, double shift, struct attribution_stat *st)
{
	double mean = 0, m2 = 0;
	st->min = INFINITY;
	st->max = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		double x = gauss(r) + shift, d = x - mean;
		mean += d / (double)(i + 1);
		m2 += d * (x - mean);
		st->min = x < st->min ? x : st->min;
		st->max = x > st->max ? x : st->max;
	}
	st->mean = mean;
	st->sd = sqrt(m2 / (double)(n - 1));
	st->calls = NAN;
}

int main(int argc, char **argv)
{
	static const size_t runs[] = {2, 3, 5, 10, 30};
	static const double effects[] = {0, 1, 2, 4, 8};
	long draws = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	double alpha = argc > 2 ? strtod(argv[2], NULL) : 0.01;
	struct rng r;

	rng_seed(&r, argc > 3 ? strtoull(argv[3], NULL, 10) : 1);
	if (draws < 1 || !(alpha > 0 && alpha < 1)) {
		fprintf(stderr, "usage: attribution_rule_bench [DRAWS [ALPHA [SEED]]]\n");
		return 2;
	}
	printf("runs  change/sd  findings: range rule  Welch %g%% (revperf)\n", 100 * (1 - alpha));
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++)
		for (size_t j = 0; j < ARRAY_SIZE(effects); j++) {
			size_t n[2] = {runs[i], runs[i]};
			long by_range = 0, by_welch = 0;
			for (long k = 0; k < draws; k++) {
				struct attribution_entry e = {0};
				double spread;
				draw(&r, runs[i], 0, &e.side[0]);
				draw(&r, runs[i], effects[j], &e.side[1]);
				e.delta = e.side[1].mean - e.side[0].mean;
				spread = fmax(e.side[0].max - e.side[0].min,
					      e.side[1].max - e.side[1].min);
				by_range += fabs(e.delta) > spread;
				attribution_classify(&e, n, alpha);
				by_welch += e.class == ATTRIBUTION_FINDING;
			}
			printf("%4zu  %9g  %20.1f%%  %10.1f%%\n", runs[i], effects[j],
			       100.0 * (double)by_range / (double)draws,
			       100.0 * (double)by_welch / (double)draws);
		}
	return 0;
}
