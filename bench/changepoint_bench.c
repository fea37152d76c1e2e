/*
 * bench/changepoint_bench [COMMITS] [SERIES] [REPS] [--kappa] [--alpha A] [--perm R]
 *                         [--min-size M] [--ci ALPHA]
 *
 * Times changepoint_detect() on SERIES generated series of COMMITS values each (default
 * 1,000 x 10, the report target of issue 8), REPS times (default 5), with the default
 * options unless told otherwise (--kappa: ecp's kappa search, CHANGEPOINT_SPLIT_KAPPA;
 * --ci: the alpha of the intervals of the relative changes, 0 for none, default 0.01).
 *
 * Each series is a benchmark's median per commit: level 1e6 (ns), Gaussian noise of 2%,
 * 0 to 4 steps of 5-20% up or down at random commits (at least 20 commits apart), half of
 * the series with a 10-commit excursion of +15% (a regression fixed later) and 1% of the
 * commits an outlier at +50%. Deterministic (fixed seed), so that the change points found
 * are the same from run to run.
 *
 * Prints per repetition the wall time (CLOCK_MONOTONIC) and CPU time of all series and
 * the wall time of the slowest series; then per series the true change points and the ones found,
 * and a checksum.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "analysis/changepoint.h"
#include "util/rng.h"
#include "util/common.h"

#define MAX_TRUE 16

struct series {
	double *x;
	size_t truth[MAX_TRUE];
	size_t nr_truth;
};

static double uniform(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(struct rng *r)
{
	double u = uniform(r), v = uniform(r);
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

static size_t below(struct rng *r, size_t n)
{
	return (size_t)(uniform(r) * (double)n);
}

static int cmp_size(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	return a < b ? -1 : a > b;
}

static void generate(struct series *s, size_t n, size_t k, struct rng *r)
{
	size_t steps = below(r, 5), nr = 0, pos[8];
	double level = 1e6;
	size_t next = 0;

	s->x = xmallocarray(n, sizeof(*s->x));
	/* step positions at least 20 apart and 20 from the ends */
	while (nr < steps && n > 60) {
		size_t p = 20 + below(r, n - 40);
		bool ok = true;
		for (size_t i = 0; i < nr; i++)
			ok = ok && (p > pos[i] ? p - pos[i] : pos[i] - p) >= 20;
		if (ok)
			pos[nr++] = p;
	}
	qsort(pos, nr, sizeof(pos[0]), cmp_size);
	s->nr_truth = 0;
	for (size_t i = 0; i < n; i++) {
		if (next < nr && pos[next] == i) {
			double mag = 0.05 + 0.15 * uniform(r);
			level *= uniform(r) < 0.5 ? 1.0 + mag : 1.0 / (1.0 + mag);
			s->truth[s->nr_truth++] = i;
			next++;
		}
		s->x[i] = level * (1.0 + 0.02 * normal(r));
		if (uniform(r) < 0.01)
			s->x[i] *= 1.5;
	}
	/* an excursion in odd series, away from the steps */
	if (k % 2 && n > 100) {
		size_t at = 30 + below(r, n - 60);
		bool ok = true;
		for (size_t i = 0; i < nr; i++)
			ok = ok && (at + 10 + 20 <= pos[i] || pos[i] + 20 <= at);
		if (ok) {
			for (size_t i = at; i < at + 10; i++)
				s->x[i] *= 1.15;
			if (s->nr_truth + 2 <= MAX_TRUE) {
				s->truth[s->nr_truth++] = at;
				s->truth[s->nr_truth++] = at + 10;
				qsort(s->truth, s->nr_truth, sizeof(s->truth[0]), cmp_size);
			}
		}
	}
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || *end)
		return -1;
	*out = (size_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	size_t commits = 1000, nseries = 10, reps = 5, pos = 0;
	struct changepoint_opts o;
	struct series *ser;
	struct rng r;
	uint64_t checksum = 0;

	changepoint_opts_init(&o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t v;
		if (!strcmp(a, "--kappa")) {
			o.split = CHANGEPOINT_SPLIT_KAPPA;
		} else if (!strcmp(a, "--alpha") && i + 1 < argc) {
			o.alpha = strtod(argv[++i], NULL);
		} else if (!strcmp(a, "--perm") && i + 1 < argc) {
			if (parse_size(argv[++i], &v))
				goto usage;
			o.permutations = (unsigned)v;
		} else if (!strcmp(a, "--ci") && i + 1 < argc) {
			o.ci_alpha = strtod(argv[++i], NULL);
		} else if (!strcmp(a, "--min-size") && i + 1 < argc) {
			if (parse_size(argv[++i], &o.min_size))
				goto usage;
		} else if (!parse_size(a, &v) && pos < 3) {
			size_t *slot[] = {&commits, &nseries, &reps};
			*slot[pos++] = v;
		} else {
			goto usage;
		}
	}

	rng_seed(&r, 20261122);
	ser = xcalloc(nseries, sizeof(*ser));
	for (size_t k = 0; k < nseries; k++)
		generate(&ser[k], commits, k, &r);
	printf("changepoint_bench: %zu series x %zu commits, %u permutations, min_size %zu, "
	       "alpha %g, split %s, intervals at alpha %g\n",
	       nseries, commits, o.permutations, o.min_size, o.alpha,
	       o.split == CHANGEPOINT_SPLIT_KAPPA ? "kappa" : "tail", o.ci_alpha);

	for (size_t rep = 0; rep < reps; rep++) {
		double t0 = now_s(), c0 = cpu_s(), slowest = 0.0;
		size_t found = 0, tests = 0;
		for (size_t k = 0; k < nseries; k++) {
			struct changepoint_result res;
			double t1 = now_s(), dt;
			if (changepoint_detect(ser[k].x, commits, &o, &res))
				return 3;
			dt = now_s() - t1;
			if (dt > slowest)
				slowest = dt;
			found += res.nr_points;
			tests += res.nr_tests;
			if (rep == reps - 1) {
				printf("  series %zu: truth", k);
				for (size_t i = 0; i < ser[k].nr_truth; i++)
					printf(" %zu", ser[k].truth[i]);
				printf("; found");
				for (size_t i = 0; i < res.nr_points; i++) {
					printf(" %zu", res.points[i].index);
					checksum = checksum * 31 + res.points[i].index;
				}
				printf("\n");
			}
			changepoint_result_release(&res);
		}
		printf("rep %zu: %.3f s wall, %.3f s CPU for %zu series (slowest %.3f s wall), %zu "
		       "change points, %zu tests\n",
		       rep + 1, now_s() - t0, cpu_s() - c0, nseries, slowest, found, tests);
	}
	printf("checksum %016" PRIx64 "\n", checksum);
	for (size_t k = 0; k < nseries; k++)
		free(ser[k].x);
	free(ser);
	return 0;

usage:
	fprintf(stderr, "usage: changepoint_bench [COMMITS] [SERIES] [REPS] [--kappa] "
			"[--alpha A] [--perm R] [--min-size M] [--ci ALPHA]\n");
	return 2;
}
