/*
 * bench/control_chart_bench [COUNTERS] [RUNS] [SAMPLES] [REPS] [--nonnormal] [--config=K]
 *                           [--threads=N]
 * bench/control_chart_bench --false-alarms
 *
 * Times cchart_analyze() alone on generated counters: COUNTERS counters (default 1000),
 * each sampled SAMPLES times (default 10000, every 0.1 s) in each of RUNS runs (default 10)
 * per side, so 100,000 samples per counter and side by default. The input is built in
 * memory through the cchart API before any timing.
 *
 * Counters: one load counter "load" (per second uniform in 80-120 requests/s); every other
 * counter is c = mu + a (l - 100) + noise, with mu, a and the noise's sd drawn per counter.
 * One counter in ten is bimodal (10% of its samples idle near 0), one in ten is quantized
 * (integers, which Shapiro-Wilk rejects). In the target, one counter in twenty is shifted up
 * by one sd (a regression), the rest is drawn as the baseline. The bimodal filter decides on
 * counter_0003 (bimodal) as the CPU utilisation and drops its idle periods, about 10% of
 * them, from every counter: the cost of the idle lookups in every pass. With --nonnormal
 * every counter is quantized (counter_0003 included: nothing is dropped).
 *
 * --threads=N sets cchart_opts.threads (default 0: one per CPU, 2 on the reference machine).
 * Configurations (all, or only number K), each timed REPS times (default 3): 5/95 limits without
 * filter or scaling (limits, leave-one-out thresholds, violation ratios, ranking); with the bimodal
 * filter; with the filter and load scaling; mean -/+ 3 sd with both. Prints per repetition the wall
 * time (CLOCK_MONOTONIC) and CPU time of the call, then the resident size of the input, the
 * peak RSS of the process, and per configuration a summary of the result (counters out of
 * control, split into the shifted counters found and the others, filtered, scaled) so
 * that a change of the output is visible. Deterministic.
 *
 * --false-alarms instead prints how often a good run, drawn like the baseline, has its
 * counter out of control, for 5, 10 and 20 baseline runs (docs/control-charts.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "analysis/control_chart.h"
#include "util/rng.h"
#include "util/common.h"

static double unif(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Box-Muller, both values used. */
struct gauss {
	struct rng rng;
	double spare;
	bool has_spare;
};

static double gauss(struct gauss *g)
{
	double u, v, m;

	if (g->has_spare) {
		g->has_spare = false;
		return g->spare;
	}
	u = unif(&g->rng) + 1e-300;
	v = unif(&g->rng);
	m = sqrt(-2 * log(u));
	g->spare = m * sin(2 * M_PI * v);
	g->has_spare = true;
	return m * cos(2 * M_PI * v);
}

static double now_s(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long rss_kb(const char *field)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			kb = strtol(line + strlen(field), NULL, 10);
	fclose(f);
	return kb;
}

struct shape {
	double mu, a, sd;
	int kind; /* 0 normal, 1 bimodal, 2 quantized */
};

static int build_side(struct cchart_input *in, enum cchart_side side, const struct shape *sh,
		      size_t counters, size_t runs, size_t samples, uint64_t seed)
{
	double *t = xmallocarray(samples, sizeof(*t));
	double *v = xmallocarray(samples, sizeof(*v));
	double *load = xmallocarray(samples, sizeof(*load));
	struct gauss g = {.has_spare = false};
	int ret = RP_OK;

	rng_seed(&g.rng, seed);
	for (size_t i = 0; i < samples; i++)
		t[i] = 0.1 * (double)i;
	for (size_t r = 0; r < runs && !ret; r++) {
		struct cchart_run *run = cchart_input_add_run(in, side, NULL);
		struct cchart_series *s;
		double l = 100;

		for (size_t i = 0; i < samples; i++) {
			if (i % 10 == 0)
				l = 80 + 40 * unif(&g.rng);
			load[i] = l;
		}
		ret = cchart_run_series(run, "load", &s);
		if (!ret)
			ret = cchart_series_add_many(s, t, load, samples);
		for (size_t c = 1; c < counters && !ret; c++) {
			char name[32];
			const struct shape *p = &sh[c];
			double shift = side == CCHART_TARGET && c % 20 == 7 ? p->sd : 0;

			snprintf(name, sizeof(name), "counter_%04zu", c);
			for (size_t i = 0; i < samples; i++) {
				double x =
				    p->mu + p->a * (load[i] - 100) + shift + p->sd * gauss(&g);
				if (p->kind == 1 && unif(&g.rng) < 0.1)
					x = fabs(0.5 + 0.2 * gauss(&g));
				else if (p->kind == 2)
					x = round(x);
				v[i] = x;
			}
			ret = cchart_run_series(run, name, &s);
			if (!ret)
				ret = cchart_series_add_many(s, t, v, samples);
		}
	}
	free(t);
	free(v);
	free(load);
	return ret;
}

/*
 * --false-alarms: how often a good run (drawn like the baseline) is out of control. One
 * normal counter, runs of 600 samples, 2000 trials per row, bimodal filter off.
 */
static int false_alarms(void)
{
	static const size_t nbs[] = {5, 10, 20};
	static const enum cchart_limits lims[] = {CCHART_P5_95, CCHART_MEAN_3SD};
	const int trials = 2000;

	printf("baseline runs | limits | good run out of control | 1/(N+1)\n");
	for (size_t k = 0; k < ARRAY_SIZE(nbs); k++) {
		for (size_t li = 0; li < ARRAY_SIZE(lims); li++) {
			struct gauss g = {.has_spare = false};
			int out = 0;
			rng_seed(&g.rng, 99 + k);
			for (int t = 0; t < trials; t++) {
				struct cchart_input in;
				struct cchart_result r;
				struct cchart_opts o;
				cchart_input_init(&in);
				for (int side = 0; side < 2; side++) {
					for (size_t i = 0; i < (side ? 1 : nbs[k]); i++) {
						struct cchart_run *run =
						    cchart_input_add_run(&in, side, NULL);
						for (int j = 0; j < 600; j++)
							if (cchart_run_add(run, "c", 0.1 * j,
									   gauss(&g)))
								return 3;
					}
				}
				cchart_opts_init(&o);
				o.limits = lims[li];
				o.bimodal_filter = false;
				o.threads = 1;
				if (cchart_analyze(&in, &o, &r))
					return 3;
				out += r.nr_out > 0;
				cchart_result_release(&r);
				cchart_input_release(&in);
			}
			printf("%zu | %s | %.1f%% | %.1f%%\n", nbs[k], cchart_limits_name(lims[li]),
			       100.0 * out / trials, 100.0 / (double)(nbs[k] + 1));
		}
	}
	return 0;
}

struct config {
	const char *name;
	enum cchart_limits limits;
	bool filter, scale, scale_baseline;
};

int main(int argc, char **argv)
{
	size_t counters = 1000, runs = 10, samples = 10000, reps = 3;
	bool nonnormal = false;
	size_t pos = 0, only = 0, threads = 0;
	static const struct config configs[] = {
	    {"5/95, no filter, no scaling", CCHART_P5_95, false, false, false},
	    {"5/95, bimodal filter", CCHART_P5_95, true, false, false},
	    {"5/95, filter + load scaling of the target only", CCHART_P5_95, true, true, false},
	    {"3sd, filter + load scaling of both sides", CCHART_MEAN_3SD, true, true, true},
	    {"5/95, filter + load scaling of both sides (default)", CCHART_P5_95, true, true, true},
	};
	struct cchart_input in;
	struct shape *sh;
	struct rng rg;
	double t0;
	long rss_input;

	for (int i = 1; i < argc; i++) {
		char *end;
		unsigned long long x;
		if (!strcmp(argv[i], "--false-alarms"))
			return false_alarms();
		if (!strcmp(argv[i], "--nonnormal")) {
			nonnormal = true;
			continue;
		}
		if (!strncmp(argv[i], "--threads=", 10)) {
			threads = strtoull(argv[i] + 10, &end, 10);
			if (*end)
				goto usage;
			continue;
		}
		if (!strncmp(argv[i], "--config=", 9)) {
			only = strtoull(argv[i] + 9, &end, 10);
			if (*end || !only || only > ARRAY_SIZE(configs))
				goto usage;
			continue;
		}
		x = strtoull(argv[i], &end, 10);
		if (*end || !x || pos >= 4) {
		usage:
			fprintf(stderr,
				"usage: %s [COUNTERS] [RUNS] [SAMPLES] [REPS] [--nonnormal] "
				"[--config=1..%zu] [--threads=N] | --false-alarms\n",
				argv[0], ARRAY_SIZE(configs));
			return 2;
		}
		if (pos == 0)
			counters = x;
		else if (pos == 1)
			runs = x;
		else if (pos == 2)
			samples = x;
		else
			reps = x;
		pos++;
	}

	rng_seed(&rg, 2024);
	sh = xcalloc(counters, sizeof(*sh));
	for (size_t c = 1; c < counters; c++) {
		sh[c].mu = 50 + 1000 * unif(&rg);
		sh[c].a = (c % 3 == 0) ? 0 : sh[c].mu * 0.005 * unif(&rg);
		sh[c].sd = sh[c].mu * (0.01 + 0.05 * unif(&rg));
		sh[c].kind = nonnormal ? 2 : c % 10 == 3 ? 1 : c % 10 == 4 ? 2 : 0;
	}
	t0 = now_s(CLOCK_MONOTONIC);
	cchart_input_init(&in);
	if (cchart_input_set_cpu(&in, "counter_0003"))
		return 3;
	if (build_side(&in, CCHART_BASELINE, sh, counters, runs, samples, 1) ||
	    build_side(&in, CCHART_TARGET, sh, counters, runs, samples, 2))
		return 3;
	rss_input = rss_kb("VmRSS:");
	printf("input: %zu counters x %zu runs x %zu samples per side%s, threads %zu, built in "
	       "%.1f s, RSS %.0f MB\n",
	       counters, runs, samples, nonnormal ? " (all quantized)" : "", threads,
	       now_s(CLOCK_MONOTONIC) - t0, (double)rss_input / 1024);

	for (size_t k = 0; k < ARRAY_SIZE(configs); k++) {
		const struct config *cf = &configs[k];
		struct cchart_opts o;
		struct cchart_result r;
		size_t scaled = 0, flat = 0, found = 0, alarms = 0, shifted = 0;

		if (only && k + 1 != only)
			continue;
		cchart_opts_init(&o);
		o.limits = cf->limits;
		o.bimodal_filter = cf->filter;
		o.scale_load = cf->scale;
		o.scale_baseline = cf->scale_baseline;
		o.threads = threads;
		if (cf->scale && cchart_input_set_load(&in, "load"))
			return 3;
		if (!cf->scale && cchart_input_set_load(&in, NULL))
			return 3;
		printf("%s:", cf->name);
		for (size_t rep = 0; rep < reps; rep++) {
			double w = now_s(CLOCK_MONOTONIC), c = now_s(CLOCK_PROCESS_CPUTIME_ID);
			if (cchart_analyze(&in, &o, &r))
				return 3;
			w = now_s(CLOCK_MONOTONIC) - w;
			c = now_s(CLOCK_PROCESS_CPUTIME_ID) - c;
			printf(" %.3f s (cpu %.3f)", w, c);
			fflush(stdout);
			if (rep + 1 < reps)
				cchart_result_release(&r);
		}
		for (size_t i = 0; i < r.nr_counters; i++) {
			const struct cchart_counter *cc = &r.counters[i];
			size_t c = strtoull(cc->name + strcspn(cc->name, "0123456789"), NULL, 10);
			scaled += cc->scaling == CCHART_SCALE_DONE;
			flat += cc->scaling == CCHART_SCALE_FLAT;
			if (cc->out_of_control && c % 20 == 7)
				found++;
			else if (cc->out_of_control)
				alarms++;
		}
		for (size_t c = 1; c < counters; c++)
			shifted += c % 20 == 7;
		printf("\n  %zu charted, %zu out of control: %zu of the %zu shifted counters, %zu "
		       "others; filter %s, %zu of %zu baseline periods idle; %zu scaled, %zu not "
		       "following the load\n",
		       r.nr_charted, r.nr_out, found, shifted, alarms,
		       r.filter.active ? "active" : "inactive", r.filter.nr_idle[0],
		       r.filter.nr_cpu[0], scaled, flat);
		cchart_result_release(&r);
	}
	printf("peak RSS %.0f MB (input %.0f MB)\n", (double)rss_kb("VmHWM:") / 1024,
	       (double)rss_input / 1024);
	cchart_input_release(&in);
	free(sh);
	return 0;
}
