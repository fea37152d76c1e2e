/*
 * A comparison report built from two imported result files (compare_import.h): no runner,
 * no store, the same verdicts and renderers as a measured comparison.
 */
#include "compare/compare_import.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/stats.h"
#include "util/common.h"

/* The finite values of m (NAN marks a sample without the metric) in a new array. */
static double *finite_values(const struct import_metric *m, size_t *n, bool *negative)
{
	double *v = xmallocarray(m->n ? m->n : 1, sizeof(*v));
	size_t i;
	*n = 0;
	for (i = 0; i < m->n; i++) {
		if (!isfinite(m->values[i]))
			continue;
		if (m->values[i] < 0)
			*negative = true;
		v[(*n)++] = m->values[i];
	}
	return v;
}

/* A copy of def, owned by res. */
static const struct metric_def *own_def(struct compare_result *res, const struct metric_def *def)
{
	struct metric_def *copy =
		metric_def_new(def->name, def->unit, def->unit_label, def->direction, def->help);
	compare_result_own_def(res, copy);
	return copy;
}

/*
 * Decides one metric of a bench from its imported samples on each side (ma or mb NULL:
 * the metric is missing on that side, which leaves it unmeasured).
 */
static void judge_metric(struct compare_result *res, const struct import_set *sa,
			 const struct import_set *sb, const char *bench, struct metric_outcome *mo,
			 const struct import_metric *ma, const struct import_metric *mb,
			 bool bench_in_both, bool primary, double tolerance)
{
	const struct import_metric *any = ma ? ma : mb;
	double *va = NULL, *vb = NULL;
	size_t na = 0, nb = 0;
	bool negative = false;

	mo->def = own_def(res, any->def);
	mo->primary = primary;
	memset(&mo->r, 0, sizeof(mo->r));
	mo->r.ratio = mo->r.ci_lo = mo->r.ci_hi = NAN;
	mo->r.p = mo->r.p_welch = mo->r.p_mw = mo->r.p_tost = NAN;
	mo->r.mean_a = mo->r.mean_b = mo->r.sd_a = mo->r.sd_b = NAN;
	mo->q_bh = NAN;
	if (ma)
		va = finite_values(ma, &na, &negative);
	if (mb)
		vb = finite_values(mb, &nb, &negative);
	mo->r.n_a = na;
	mo->r.n_b = nb;
	if (!ma || !mb) {
		/* (a benchmark on one side only was warned about as a whole) */
		if (bench_in_both)
			warning("benchmark '%s': metric %s is only in %s; not compared", bench,
				any->def->name, ma ? sa->origin : sb->origin);
	} else if (negative) {
		warning("benchmark '%s': metric %s has negative values; revperf judges ratios of "
			"values >= 0, so it is not compared",
			bench, any->def->name);
	} else if (na < 2 || nb < 2) {
		const char *hint = strcmp(sa->source, "gbench")
					   ? ""
					   : " (run with --benchmark_repetitions=N)";
		if (primary)
			warning("benchmark '%s': metric %s has %zu and %zu samples; at least 2 "
				"per side are needed%s",
				bench, any->def->name, na, nb, hint);
	} else {
		struct verdict_opts opts = { res->alpha, tolerance, any->def->direction };
		mo->measured = verdict_decide(va, na, vb, nb, &opts, &mo->r) == 0;
	}
	free(va);
	free(vb);
}

/* The excluded runs of one side as run issues of the report. */
static void add_issues(struct bench_outcome *bo, const struct import_bench *ib, char side)
{
	size_t i;
	if (!ib)
		return;
	for (i = 0; i < ib->nr_excluded; i++) {
		struct store_run_issue *r = &bo->issues[bo->nr_issues++];
		memset(r, 0, sizeof(*r));
		r->side = side;
		r->status = ib->excluded[i].exit_code < 0 ? RUN_CRASHED : RUN_FAILED;
		r->exit_code = ib->excluded[i].exit_code;
		r->detail = xstrdup(ib->excluded[i].detail);
	}
}

/* One benchmark: ba or bb may be NULL (present on one side only). */
static void judge_bench(struct compare_result *res, const struct import_set *sa,
			const struct import_set *sb, const struct import_bench *ba,
			const struct import_bench *bb, double tolerance)
{
	const struct import_bench *any = ba ? ba : bb;
	struct bench_outcome *bo = &res->benches[res->nr_benches++];
	size_t i, alloc;
	bool decided = true, measured_primary = false;

	if (ba && bb && strcmp(ba->name, bb->name)) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s vs %s", ba->name, bb->name);
		bo->name = strbuf_detach(&sb);
	} else {
		bo->name = xstrdup(any->name);
	}
	bo->tolerance = tolerance;
	bo->count_tolerance = tolerance; /* one tolerance judges every imported metric */
	bo->ci_alpha = res->alpha;
	bo->ok_a = ba ? ba->nr_samples : 0;
	bo->ok_b = bb ? bb->nr_samples : 0;
	bo->failed_a = ba ? ba->nr_excluded : 0;
	bo->failed_b = bb ? bb->nr_excluded : 0;
	bo->issues = xcalloc(bo->failed_a + bo->failed_b + 1, sizeof(*bo->issues));
	add_issues(bo, ba, 'A');
	add_issues(bo, bb, 'B');
	if (!ba || !bb)
		warning("benchmark '%s' is only in %s; nothing to compare it with", any->name,
			ba ? sa->origin : sb->origin);

	/* The metrics of a, then those only b has. */
	alloc = (ba ? ba->nr_metrics : 0) + (bb ? bb->nr_metrics : 0);
	bo->metrics = xcalloc(alloc ? alloc : 1, sizeof(*bo->metrics));
	for (i = 0; ba && i < ba->nr_metrics; i++) {
		const struct import_metric *ma = &ba->metrics[i];
		const struct import_metric *mb = bb ? import_bench_metric(bb, ma->def->name) : NULL;
		judge_metric(res, sa, sb, bo->name, &bo->metrics[bo->nr_metrics++], ma, mb,
			     bb != NULL, i == 0, tolerance);
	}
	for (i = 0; bb && i < bb->nr_metrics; i++) {
		const struct import_metric *mb = &bb->metrics[i];
		if (ba && import_bench_metric(ba, mb->def->name))
			continue;
		judge_metric(res, sa, sb, bo->name, &bo->metrics[bo->nr_metrics++], NULL, mb,
			     ba != NULL, !ba && i == 0, tolerance);
	}
	for (i = 0; i < bo->nr_metrics; i++) {
		const struct metric_outcome *m = &bo->metrics[i];
		if (!m->primary)
			continue;
		measured_primary |= m->measured;
		if (!m->measured || m->r.verdict == VERDICT_UNDECIDED)
			decided = false;
	}
	bo->looks = measured_primary ? 1 : 0;
	bo->decided = decided && measured_primary;
}

/* Benjamini-Hochberg over the p-values behind every measured verdict of res. */
static void adjust_q(struct compare_result *res)
{
	size_t n = 0, k = 0, i, j;
	double *p, *q;
	for (i = 0; i < res->nr_benches; i++)
		for (j = 0; j < res->benches[i].nr_metrics; j++)
			n += res->benches[i].metrics[j].measured &&
			     isfinite(res->benches[i].metrics[j].r.p);
	if (!n)
		return;
	p = xmallocarray(n, sizeof(*p));
	q = xmallocarray(n, sizeof(*q));
	for (i = 0; i < res->nr_benches; i++)
		for (j = 0; j < res->benches[i].nr_metrics; j++)
			if (res->benches[i].metrics[j].measured &&
			    isfinite(res->benches[i].metrics[j].r.p))
				p[k++] = res->benches[i].metrics[j].r.p;
	stats_benjamini_hochberg(p, n, q);
	k = 0;
	for (i = 0; i < res->nr_benches; i++)
		for (j = 0; j < res->benches[i].nr_metrics; j++)
			if (res->benches[i].metrics[j].measured &&
			    isfinite(res->benches[i].metrics[j].r.p))
				res->benches[i].metrics[j].q_bh = q[k++];
	free(p);
	free(q);
}

int compare_imported(const struct import_set *a, const struct import_set *b, double alpha,
		     double tolerance, struct compare_result *out)
{
	size_t i, common = 0;
	int ret = RP_EINPUT;

	memset(out, 0, sizeof(*out));
	out->base_label = xstrdup(a->origin ? a->origin : "A");
	out->target_label = xstrdup(b->origin ? b->origin : "B");
	out->alpha = alpha;
	/* The machine that measured them is not known here (docs/import.md). */
	out->imported = true;
	snprintf(out->machine.hostname, sizeof(out->machine.hostname), "unknown (imported)");
	snprintf(out->machine.cpu_model, sizeof(out->machine.cpu_model), "unknown");
	snprintf(out->machine.kernel, sizeof(out->machine.kernel), "unknown");
	snprintf(out->machine.governor, sizeof(out->machine.governor), "unknown");
	if (!a->source || !b->source || strcmp(a->source, b->source)) {
		error("%s is %s but %s is %s; compare two files of one format", out->base_label,
		      import_format_title(a->source), out->target_label,
		      import_format_title(b->source));
		goto out;
	}
	for (i = 0; i < a->nr_benches; i++)
		common += import_set_find(b, a->benches[i].name) != NULL;
	if (!common && a->nr_benches != b->nr_benches) {
		error("%s and %s have no benchmark in common (hyperfine: the same command or "
		      "--command-name; Google Benchmark: the same case names)",
		      out->base_label, out->target_label);
		goto out;
	}
	out->benches = xcalloc(a->nr_benches + b->nr_benches, sizeof(*out->benches));
	if (!common) {
		/*
		 * Commands often differ only by the path of the build they ran (./old/prog vs
		 * ./new/prog): with no name in common, the i-th of a is the i-th of b.
		 */
		warning("%s and %s have no benchmark name in common; pairing their %zu "
			"benchmark%s in order (name them alike with hyperfine --command-name)",
			out->base_label, out->target_label, a->nr_benches,
			a->nr_benches == 1 ? "" : "s");
		for (i = 0; i < a->nr_benches; i++)
			judge_bench(out, a, b, &a->benches[i], &b->benches[i], tolerance);
	} else {
		for (i = 0; i < a->nr_benches; i++)
			judge_bench(out, a, b, &a->benches[i],
				    import_set_find(b, a->benches[i].name), tolerance);
		for (i = 0; i < b->nr_benches; i++)
			if (!import_set_find(a, b->benches[i].name))
				judge_bench(out, a, b, NULL, &b->benches[i], tolerance);
	}
	adjust_q(out);
	ret = 0;
out:
	return ret;
}
