/*
 * bench/report_bench DIR [COMMITS] [BENCHES] [RUNS]
 *
 * Generates the state directory DIR (DIR/revperf.db, which must not exist) of a measured
 * history for timing `revperf report --state-dir DIR` (bench/report.sh): COMMITS commits
 * (default 1,000), BENCHES benchmarks (default 10), RUNS runs per commit and benchmark
 * (default 10) with 3 metrics each (wall, cpu, maxrss), stored through the store API the
 * way `revperf history` stores them: commit i > 0 is compared with commit i - 1, RUNS / 2
 * runs on each side (so every commit has RUNS runs: half as target of its own
 * comparison, half as baseline of the next), with a verdict per benchmark and metric;
 * commit 0 has RUNS / 2 more runs of its own. One transaction per commit.
 *
 * The values: a level per benchmark, Gaussian noise of 2%, steps of +10% at commit 300 and
 * -8% at commit 700 in every other benchmark (so that change points exist), one crashed
 * run of one benchmark every 97 commits and a failed build every 250 commits (after the
 * first). Deterministic (fixed seed). Prints what it stored and how long it took.
 *
 * With REVPERF_STORE set (a PostgreSQL connection string, docs/store.md) the history goes
 * there instead of DIR/revperf.db (the database must hold no revperf schema yet), and
 * `revperf report --state-dir DIR` reads it from there through the same variable.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/fsutil.h"
#include "store/store.h"
#include "util/rng.h"
#include "util/common.h"

#define NR_METRICS 3

static double uniform(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(struct rng *r)
{
	return sqrt(-2.0 * log(uniform(r))) * cos(2.0 * M_PI * uniform(r));
}

static long parse_arg(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 1 || v > 1000000) {
		fprintf(stderr, "report_bench: %s '%s' is not a number from 1 to 1000000\n", what,
			s);
		exit(2);
	}
	return v;
}

struct gen {
	struct store *st;
	struct rng rng;
	size_t commits, benches, runs;
	int64_t machine, *bench_ids, *builds;
	size_t nr_runs, nr_failed;
};

/* The level of benchmark b at commit i (seconds): steps in every other benchmark. */
static double level(const struct gen *g, size_t b, size_t i)
{
	double v = 0.01 * (double)(b + 1);
	if (b % 2 == 0 && i >= g->commits * 3 / 10)
		v *= 1.10;
	if (b % 2 == 0 && i >= g->commits * 7 / 10)
		v *= 0.92;
	return v;
}

/* n runs of build `build` (commit i), side, comparison, benchmark b; one may crash. */
static int add_runs(struct gen *g, int64_t build, size_t i, size_t b, int64_t cmp, char side,
		    size_t n, bool crash)
{
	static const char *const names[NR_METRICS] = {"wall", "cpu", "maxrss"};
	double values[64 * NR_METRICS];
	struct store_run t;

	memset(&t, 0, sizeof(t));
	t.build_id = build;
	t.benchmark_id = g->bench_ids[b];
	t.machine_id = g->machine;
	t.comparison_id = cmp;
	t.side = side;
	t.status = RUN_OK;
	t.log_path =
	    side == 'A' ? "/tmp/revperf-bench/logs/run-a.log" : "/tmp/revperf-bench/logs/run-b.log";
	t.log_length = 100;
	t.started_at = 1700000000 + (int64_t)i * 60;
	for (size_t r = 0; r < n && r < 64; r++) {
		double wall = level(g, b, i) * (1 + 0.02 * normal(&g->rng));
		values[r * NR_METRICS] = wall;
		values[r * NR_METRICS + 1] = wall * 0.9;
		values[r * NR_METRICS + 2] = 4e6 * (1 + 0.01 * normal(&g->rng));
	}
	if (crash && n > 1) {
		struct store_run c = t;
		double none[NR_METRICS] = {NAN, NAN, NAN};
		c.status = RUN_CRASHED;
		c.signal = 11;
		c.detail = "killed by SIGSEGV";
		if (store_import_runs(g->st, &c, names, none, NR_METRICS, 1))
			return -1;
		g->nr_failed++;
		n--;
	}
	g->nr_runs += n;
	return store_import_runs(g->st, &t, names, values, NR_METRICS, n);
}

static int add_verdicts(struct gen *g, int64_t cmp, size_t b, size_t i)
{
	static const char *const names[NR_METRICS] = {"wall", "cpu", "maxrss"};
	struct verdict_result vr;
	for (int m = 0; m < NR_METRICS; m++) {
		double ratio = level(g, b, i) / level(g, b, i - 1);
		memset(&vr, 0, sizeof(vr));
		vr.ratio = m == 2 ? 1.0 : ratio;
		vr.ci_lo = vr.ratio * 0.98;
		vr.ci_hi = vr.ratio * 1.02;
		vr.p = ratio > 1.05 || ratio < 0.95 ? 0.001 : 0.5;
		vr.n_a = vr.n_b = g->runs / 2;
		if (store_verdict_save(g->st, cmp, g->bench_ids[b], names[m], m == 0,
				       vr.p < 0.01 ? (ratio > 1 ? "worse" : "better") : "equal",
				       &vr, g->runs / 2, vr.p))
			return -1;
	}
	return 0;
}

static int add_commit(struct gen *g, size_t i)
{
	char sha[41], summary[96];
	struct store_build b;
	int64_t rev;
	bool failed = i > 0 && i % 250 == 0;
	size_t half = g->runs / 2;

	/* 40 hex digits that look like a sha (pages are named by them) */
	snprintf(sha, sizeof(sha), "%016llx%016llx%08x",
		 (unsigned long long)((i + 1) * 0x9E3779B97F4A7C15ull),
		 (unsigned long long)((i + 7) * 0xC2B2AE3D27D4EB4Full),
		 (unsigned)(i & 0xffffffffu));
	snprintf(summary, sizeof(summary), "commit %zu: change <%zu> & more", i, i);
	if (store_revision(g->st, sha, summary, 1700000000 + (int64_t)i * 3600, &rev))
		return -1;
	memset(&b, 0, sizeof(b));
	b.revision_id = rev;
	b.command = (char *)"make";
	b.log_path = (char *)"/tmp/revperf-bench/logs/build.log";
	snprintf(b.status, sizeof(b.status), "%s", failed ? "failed" : "ok");
	if (store_build_save(g->st, &b))
		return -1;
	g->builds[i] = b.id;
	if (failed)
		return 0;
	if (i == 0) {
		for (size_t k = 0; k < g->benches; k++)
			if (add_runs(g, b.id, i, k, 0, 'A', g->runs - half, false))
				return -1;
		return 0;
	}
	{
		/* the parent, or the one before a failed build */
		size_t p = i - 1 - (i > 1 && (i - 1) % 250 == 0);
		struct store_comparison c;
		memset(&c, 0, sizeof(c));
		c.base_build = g->builds[p];
		c.target_build = b.id;
		c.base_label = "HEAD~1";
		c.target_label = "HEAD";
		c.seed = 1;
		c.alpha = 0.01;
		if (store_comparison_new(g->st, &c))
			return -1;
		for (size_t k = 0; k < g->benches; k++)
			if (add_runs(g, g->builds[p], p, k, c.id, 'A', half, false) ||
			    add_runs(g, b.id, i, k, c.id, 'B', g->runs - half,
				     i % 97 == 0 && k == i % g->benches) ||
			    add_verdicts(g, c.id, k, i))
				return -1;
		return store_comparison_finish(g->st, c.id, "done");
	}
}

int main(int argc, char **argv)
{
	struct machine_info m = {"bench-host", "Generated CPU", 2, "6.1", "performance"};
	struct gen g;
	struct strbuf db = STRBUF_INIT;
	struct timespec t0, t1;
	int ret = 1;

	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: report_bench DIR [COMMITS] [BENCHES] [RUNS]\n");
		return 2;
	}
	memset(&g, 0, sizeof(g));
	g.commits = argc > 2 ? (size_t)parse_arg(argv[2], "COMMITS") : 1000;
	g.benches = argc > 3 ? (size_t)parse_arg(argv[3], "BENCHES") : 10;
	g.runs = argc > 4 ? (size_t)parse_arg(argv[4], "RUNS") : 10;
	if (g.runs < 2 || g.runs > 64) {
		fprintf(stderr, "report_bench: RUNS must be from 2 to 64\n");
		return 2;
	}
	if (getenv("REVPERF_STORE") && *getenv("REVPERF_STORE"))
		strbuf_addstr(&db, getenv("REVPERF_STORE"));
	else
		strbuf_addf(&db, "%s/revperf.db", argv[1]);
	if (mkdir_p(argv[1]))
		return 2;
	if (!store_location_is_postgres(db.buf) && path_exists(db.buf)) {
		fprintf(stderr, "report_bench: %s exists; remove it first\n", db.buf);
		return 2;
	}
	rng_seed(&g.rng, 42);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (store_open(db.buf, 0, &g.st) || store_machine(g.st, &m, &g.machine))
		goto out;
	g.bench_ids = xcalloc(g.benches, sizeof(*g.bench_ids));
	g.builds = xcalloc(g.commits, sizeof(*g.builds));
	for (size_t k = 0; k < g.benches; k++) {
		char name[32], cmd[64];
		snprintf(name, sizeof(name), "bench-%02zu", k);
		snprintf(cmd, sizeof(cmd), "./bench %zu", k);
		if (store_benchmark(g.st, name, cmd, &g.bench_ids[k]))
			goto out;
	}
	for (size_t i = 0; i < g.commits; i++) {
		if (store_transaction_begin(g.st))
			goto out;
		if (add_commit(&g, i)) {
			store_transaction_rollback(g.st);
			goto out;
		}
		if (store_transaction_commit(g.st))
			goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%s: %zu commits, %zu benchmarks, %zu ok runs + %zu crashed, %d metrics, "
	       "generated in %.2f s\n",
	       store_name(g.st), g.commits, g.benches, g.nr_runs, g.nr_failed, NR_METRICS,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	ret = 0;
out:
	store_close(g.st);
	free(g.bench_ids);
	free(g.builds);
	strbuf_release(&db);
	return ret;
}
