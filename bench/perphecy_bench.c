/*
 * bench/perphecy_bench [FUNCS] [BENCHES] [REPS] [REACHED%]
 *
 * Times the analysis part of `revperf predict` (docs/prediction.md) for one commit of a
 * program of FUNCS functions (default 20,000) with dynamic data for BENCHES benchmarks
 * (default 10), each of which reached REACHED% of the functions (default 100: the worst
 * case, every profile 20,000 entries). All in memory, nothing read from files:
 *
 *   static   perphecy_static_from_bindiff() on a binary diff built in memory: 1% of the
 *            functions modified (length change 0-60%), 50 deleted, 80 added, 10 renamed;
 *   profiles perphecy_profile_reserve() + perphecy_profile_add() for every function of
 *            every benchmark (what loading the dynamic data costs on top of reading it);
 *   predict  perphecy_compute() + perphecy_predict() for every benchmark, with a
 *            predictor of all eight templates (thresholds that fire for some benchmarks);
 *   train    perphecy_train() on 2,000 tuples (200 commits x 10 benchmarks, 5% hits);
 *   cv       perphecy_cross_validate() on them, k = 10, common predictor;
 *   budget   perphecy_train_budget() on them with a dismiss budget of 0 (the thresholds
 *            loosened as far as the tuples go: the most steps);
 *   cv-budget  the cross-validation with that budget.
 *
 * Call counts are heavy-tailed (1e9 / rank^1.2 over a random permutation), costs calls x
 * 5-500 instructions. Prints min / median / max wall time (CLOCK_MONOTONIC) over REPS
 * repetitions of each part, and a checksum of the results. Deterministic (fixed seed).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "analysis/perphecy.h"
#include "binary/bindiff.h"
#include "util/rng.h"
#include "util/common.h"

static uint32_t rand_below(struct rng *r, uint32_t n)
{
	return (uint32_t)((rng_next(r) >> 32) * n >> 32);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void report(const char *what, double *ms, size_t reps)
{
	qsort(ms, reps, sizeof(*ms), cmp_double);
	printf("%-9s min %8.3f ms  median %8.3f ms  max %8.3f ms\n", what, ms[0], ms[reps / 2],
	       ms[reps - 1]);
}

/* The in-memory diff: old functions 0..n-1, of which some change class. */
struct gen_diff {
	struct binfunc *old_fn, *new_fn;
	struct bindiff_entry *entries;
	char **names;
	struct bindiff d;
};

static void gen_diff(struct gen_diff *g, uint32_t n, struct rng *r)
{
	uint32_t nr_mod = n / 100, nr_del = 50, nr_add = 80, nr_ren = 10;
	size_t ne = 0, no = 0, nn = 0;

	memset(g, 0, sizeof(*g));
	g->names = xcalloc((size_t)n + nr_add + nr_ren, sizeof(*g->names));
	for (uint32_t i = 0; i < n + nr_add + nr_ren; i++) {
		char name[64];
		snprintf(name, sizeof(name), "mod%02u_func_%05u", i % 97, i);
		g->names[i] = xstrdup(name);
	}
	g->old_fn = xcalloc(n, sizeof(*g->old_fn));
	g->new_fn = xcalloc((size_t)n + nr_add, sizeof(*g->new_fn));
	g->entries = xcalloc((size_t)n + nr_add, sizeof(*g->entries));
	/* functions are shuffled by name index: i % 7 etc. pick a spread-out subset */
	for (uint32_t i = 0; i < n; i++) {
		struct bindiff_entry *e = &g->entries[ne++];
		struct binfunc *o = &g->old_fn[no++];
		o->name = g->names[i];
		o->nr_insns = 10 + rand_below(r, 400);
		e->old_fn = o;
		e->change_pct = 0;
		if (i % 50 == 7 && i / 50 < nr_del) {
			e->cls = BINDIFF_DELETED;
			continue;
		}
		struct binfunc *nf = &g->new_fn[nn++];
		*nf = *o;
		e->new_fn = nf;
		if (i % 100 == 3 && i / 100 < nr_mod) {
			e->cls = BINDIFF_MODIFIED;
			nf->nr_insns = o->nr_insns + rand_below(r, o->nr_insns * 6 / 10 + 1);
		} else if (i % 1000 == 11 && i / 1000 < nr_ren) {
			e->cls = BINDIFF_RENAMED;
			nf->name = g->names[n + nr_add + i / 1000];
		} else {
			e->cls = BINDIFF_UNCHANGED;
		}
	}
	for (uint32_t a = 0; a < nr_add; a++) {
		struct bindiff_entry *e = &g->entries[ne++];
		struct binfunc *nf = &g->new_fn[nn++];
		nf->name = g->names[n + a];
		nf->nr_insns = 10 + rand_below(r, 400);
		e->cls = BINDIFF_ADDED;
		e->new_fn = nf;
	}
	for (size_t i = 0; i < ne; i++)
		g->d.count[g->entries[i].cls]++;
	g->d.entries = g->entries;
	g->d.nr_entries = ne;
}

static void gen_diff_release(struct gen_diff *g, uint32_t n)
{
	for (uint32_t i = 0; i < n + 90; i++)
		free(g->names[i]);
	free(g->names);
	free(g->old_fn);
	free(g->new_fn);
	free(g->entries);
}

/* Per benchmark: which functions it reached, and their calls and cost. */
struct gen_dyn {
	uint32_t *func;
	uint64_t *calls, *cost;
	size_t nr;
};

static void gen_dyn(struct gen_dyn *g, uint32_t n, unsigned reached_pct, struct rng *r)
{
	uint32_t *perm = xmallocarray(n, sizeof(*perm));
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = rand_below(r, i + 1), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	g->nr = (size_t)n * reached_pct / 100;
	g->func = perm;
	g->calls = xmallocarray(g->nr ? g->nr : 1, sizeof(*g->calls));
	g->cost = xmallocarray(g->nr ? g->nr : 1, sizeof(*g->cost));
	for (size_t k = 0; k < g->nr; k++) {
		g->calls[k] = 1 + (uint64_t)(1e9 / pow((double)k + 1.0, 1.2));
		g->cost[k] = g->calls[k] * (5 + rand_below(r, 496));
	}
}

static void build_profile(struct perphecy_profile *p, const struct gen_dyn *g,
			  const struct gen_diff *d, unsigned b)
{
	char name[32];
	snprintf(name, sizeof(name), "bench%u", b);
	perphecy_profile_init(p, name, PERPHECY_COST_INSTRUCTIONS);
	perphecy_profile_reserve(p, g->nr);
	for (size_t k = 0; k < g->nr; k++)
		perphecy_profile_add(p, d->names[g->func[k]], g->calls[k], g->cost[k]);
}

static size_t gen_tuples(struct perphecy_tuple *t, struct rng *r)
{
	size_t n = 0;
	for (uint64_t c = 0; c < 200; c++) {
		for (uint32_t b = 0; b < 10; b++, n++) {
			struct perphecy_tuple *u = &t[n];
			u->commit = c;
			u->bench = b;
			u->hit = rand_below(r, 100) < 5;
			u->values.v[PERPHECY_DEL_FUNC] = rand_below(r, u->hit ? 12 : 6);
			u->values.v[PERPHECY_NEW_FUNC] = rand_below(r, u->hit ? 20 : 10);
			u->values.v[PERPHECY_REACHED_DEL_FUNC] = rand_below(r, 3);
			for (int k = PERPHECY_TOP_CHG_BY_CALL; k <= PERPHECY_TOP_CHG_BY_INSTR; k++)
				u->values.v[k] =
				    rand_below(r, 4) ? 0.5 + rand_below(r, 995) / 10.0 : NAN;
			u->values.v[PERPHECY_TOP_CHG_LEN] = rand_below(r, 300);
			u->values.v[PERPHECY_TOP_REACHED_CHG_LEN] = rand_below(r, 120);
		}
	}
	return n;
}

/*
 * Times training on the tuples (all templates, the paper's cover) and the 10-fold
 * cross-validation, with a dismiss budget (min_dismiss >= 0) or without; prints the
 * cross-validated rates once (first). Returns a checksum of the results.
 */
static uint64_t time_training(const struct perphecy_tuple *tuples, size_t nt, double min_dismiss,
			      bool first, double *ms_train, double *ms_cv)
{
	struct perphecy_predictor trained;
	struct perphecy_cv_opts opts;
	struct perphecy_cv_result cv;
	uint64_t sum;
	double t0 = now_ms();

	perphecy_train_budget(tuples, nt, PERPHECY_ALL_TEMPLATES, PERPHECY_COVER_PAPER,
			      min_dismiss, &trained);
	*ms_train = now_ms() - t0;
	sum = trained.nr + (uint64_t)trained.ind[0].threshold;
	perphecy_cv_opts_init(&opts);
	opts.min_dismiss = min_dismiss;
	t0 = now_ms();
	perphecy_cross_validate(tuples, nt, &opts, &cv);
	*ms_cv = now_ms() - t0;
	sum += cv.total.hits_predicted + cv.total.misses_dismissed;
	if (first)
		printf("cv%s: hit rate %.3f, dismiss rate %.3f (random tuples)\n",
		       min_dismiss >= 0 ? " with a dismiss budget" : "", cv.total.hit_rate,
		       cv.total.dismiss_rate);
	perphecy_cv_result_release(&cv);
	return sum;
}

static long arg(int argc, char **argv, int i, long def)
{
	char *end;
	long v;
	if (argc <= i)
		return def;
	v = strtol(argv[i], &end, 10);
	if (*end || v <= 0) {
		fprintf(stderr, "usage: perphecy_bench [FUNCS] [BENCHES] [REPS] [REACHED%%]\n");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	uint32_t n = (uint32_t)arg(argc, argv, 1, 20000);
	unsigned nb = (unsigned)arg(argc, argv, 2, 10);
	size_t reps = (size_t)arg(argc, argv, 3, 20);
	unsigned reached = (unsigned)arg(argc, argv, 4, 100);
	double *ms_static = xcalloc(reps, sizeof(double)), *ms_prof = xcalloc(reps, sizeof(double));
	double *ms_pred = xcalloc(reps, sizeof(double)), *ms_train = xcalloc(reps, sizeof(double));
	double *ms_cv = xcalloc(reps, sizeof(double)), *ms_budget = xcalloc(reps, sizeof(double));
	double *ms_cv_budget = xcalloc(reps, sizeof(double));
	struct gen_dyn *dyn = xcalloc(nb, sizeof(*dyn));
	struct perphecy_profile *prof = xcalloc(nb, sizeof(*prof));
	struct perphecy_tuple *tuples = xcalloc(2000, sizeof(*tuples));
	struct perphecy_predictor pred;
	struct gen_diff gd;
	struct rng r;
	uint64_t checksum = 0;
	size_t nt;

	if (n < 1000 || reached > 100) {
		fprintf(stderr, "perphecy_bench: FUNCS >= 1000 and REACHED%% <= 100\n");
		return 2;
	}
	rng_seed(&r, 42);
	gen_diff(&gd, n, &r);
	for (unsigned b = 0; b < nb; b++)
		gen_dyn(&dyn[b], n, reached, &r);
	nt = gen_tuples(tuples, &r);

	/* all eight templates, thresholds that fire for some benchmarks and not others */
	perphecy_predictor_init(&pred);
	perphecy_predictor_add(&pred, PERPHECY_DEL_FUNC, 100);
	perphecy_predictor_add(&pred, PERPHECY_NEW_FUNC, 100);
	perphecy_predictor_add(&pred, PERPHECY_REACHED_DEL_FUNC, 40);
	perphecy_predictor_add(&pred, PERPHECY_TOP_CHG_BY_CALL, 1);
	perphecy_predictor_add(&pred, PERPHECY_TOP_CALL_CHG_10, 1);
	perphecy_predictor_add(&pred, PERPHECY_TOP_CHG_BY_INSTR, 1);
	perphecy_predictor_add(&pred, PERPHECY_TOP_REACHED_CHG_LEN, 70);
	perphecy_predictor_add(&pred, PERPHECY_TOP_CHG_LEN, 70);

	for (size_t rep = 0; rep < reps; rep++) {
		struct perphecy_static s;
		double t0;

		t0 = now_ms();
		perphecy_static_from_bindiff(&gd.d, &s);
		ms_static[rep] = now_ms() - t0;

		t0 = now_ms();
		for (unsigned b = 0; b < nb; b++)
			build_profile(&prof[b], &dyn[b], &gd, b);
		ms_prof[rep] = now_ms() - t0;

		t0 = now_ms();
		for (unsigned b = 0; b < nb; b++) {
			struct perphecy_values v;
			size_t fired = 0;
			perphecy_compute(&s, &prof[b], &v);
			if (perphecy_predict(&pred, &v, &fired))
				checksum += 1 + fired;
			for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++)
				if (!isnan(v.v[k]))
					checksum += (uint64_t)(v.v[k] * 1000);
		}
		ms_pred[rep] = now_ms() - t0;

		checksum += time_training(tuples, nt, -1, !rep, &ms_train[rep], &ms_cv[rep]);
		checksum += time_training(tuples, nt, 0, !rep, &ms_budget[rep], &ms_cv_budget[rep]);

		for (unsigned b = 0; b < nb; b++)
			perphecy_profile_release(&prof[b]);
		perphecy_static_release(&s);
	}

	printf("perphecy_bench: %u functions, %u benchmarks reaching %u%% each, %zu reps\n", n, nb,
	       reached, reps);
	report("static", ms_static, reps);
	report("profiles", ms_prof, reps);
	report("predict", ms_pred, reps);
	report("train", ms_train, reps);
	report("cv", ms_cv, reps);
	report("budget", ms_budget, reps);
	report("cv-budget", ms_cv_budget, reps);
	printf("checksum %" PRIu64 "\n", checksum);

	for (unsigned b = 0; b < nb; b++) {
		free(dyn[b].func);
		free(dyn[b].calls);
		free(dyn[b].cost);
	}
	gen_diff_release(&gd, n);
	free(dyn);
	free(prof);
	free(tuples);
	free(ms_budget);
	free(ms_cv_budget);
	free(ms_static);
	free(ms_prof);
	free(ms_pred);
	free(ms_train);
	free(ms_cv);
	return 0;
}
