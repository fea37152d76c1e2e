/*
 * The replay of a finished comparison (req->replay): its stored runs judged again at the
 * alpha of its last look; nothing is run or stored.
 */
#include <stdio.h>
#include <string.h>

#include "collect/machine.h"
#include "compare/compare.h"
#include "compare/compare_impl.h"
#include "compare/compare_result.h"
#include "compare/run_output.h"
#include "store/store.h"
#include "store/store_show.h"
#include "util/common.h"
#include "util/rng.h"

/* The replayed comparison's own runs are not reused: reused = from before it. */
int compare_replay_reused(const struct compare_request *req, struct bench_ctx *c)
{
	struct store_run_filter own[2] = { c->filter[0], c->filter[1] };
	size_t ok[2];
	size_t failed;
	own[0].comparison_id = own[1].comparison_id = req->replay->id;
	if (store_run_counts(req->st, &own[0], &ok[0], &failed) ||
	    store_run_counts(req->st, &own[1], &ok[1], &failed))
		return RP_EINTERNAL;
	c->out->reused_a -= ok[0];
	c->out->reused_b -= ok[1];
	return 0;
}

/* The runs' issues and how each run ended, for the report (measured or shown again). */
int compare_load_run_records(struct bench_ctx *c)
{
	struct store *st = c->req->st;
	struct bench_outcome *o = c->out;
	if (store_run_issues(st, c->comparison_id, o->benchmark_id, &o->issues, &o->nr_issues) ||
	    store_run_ends(st, &c->filter[0], &o->run_ends[0], &o->nr_run_ends[0]) ||
	    store_run_ends(st, &c->filter[1], &o->run_ends[1], &o->nr_run_ends[1]))
		return RP_EINTERNAL;
	return 0;
}

void compare_before_first_look(struct bench_ctx *c, bool interrupted)
{
	c->out->decided = false;
	for (size_t i = 0; i < c->out->nr_metrics; i++) {
		struct metric_outcome *m = &c->out->metrics[i];
		if (m->def->flags & METRIC_COUNTED)
			continue;
		m->measured = false;
		m->r.verdict = VERDICT_UNDECIDED;
		m->unmeasured = interrupted ? "interrupted before the first look (fewer than the "
					      "minimum runs on a side)"
					    : "the time budget ended before the first look, with "
					      "fewer than the minimum runs on a side (compare "
					      "again continues)";
	}
}

/* A stored comparison shown again: its verdicts at the alpha of its last look, no run. */
int compare_replay_bench(struct bench_ctx *c, const struct sequential_plan *plan, bool extensible)
{
	size_t n = c->out->ok_a < c->out->ok_b ? c->out->ok_a : c->out->ok_b;
	size_t look = c->bench->max_runs, extensions = 0;
	double look_alpha = plan->alpha_per_look;
	bool decided = false;
	int ret;
	/* Past max runs only by alpha spending (METHODS 2.8): the same looks again. */
	while (extensible && n > look && extensions < SEQUENTIAL_MAX_EXTENSIONS) {
		look_alpha = sequential_extension_alpha(plan, ++extensions);
		look = sequential_extension_look(look);
	}
	c->out->extended_looks = extensions;
	if ((ret = compare_evaluate_primaries(c, look_alpha, &decided)))
		return ret;
	c->out->ci_alpha = look_alpha;
	c->out->decided = decided && !c->out->error;
	for (size_t i = 0; i < c->out->nr_metrics; i++) {
		struct metric_outcome *m = &c->out->metrics[i];
		if (!(m->def->flags & METRIC_COUNTED)) {
			if (compare_evaluate_metric(c, m, look_alpha))
				return RP_EINTERNAL;
		} else {
			/* judged after the timed ones (compare_one), from the stored counted
			 * runs; this stays when it cannot be */
			m->unmeasured = "no counted runs of this comparison to judge again";
		}
	}
	/* Short of the first look (interrupted, or its time budget ended): no look, no
	 * verdict to show. */
	if (n < c->bench->min_runs &&
	    (strcmp(c->req->replay->status, "done") || c->bench->time_budget_ns)) {
		c->out->looks = 0;
		compare_before_first_look(c, strcmp(c->req->replay->status, "done") != 0);
	}
	return compare_load_run_records(c);
}

/*
 * Whether the replayed comparison planned bench: a comparison_plans row, written before its
 * first run, for the benchmark of bench's name and command: *planned. 0 or RP_EINTERNAL.
 */
static int replay_planned(const struct compare_request *req, const struct bench_config *bench,
			  bool *planned)
{
	struct strbuf ident = STRBUF_INIT;
	struct store_plan plan;
	int64_t id = 0;
	int ret;
	*planned = false;
	run_output_identity(&ident, bench);
	ret = store_benchmark_find(req->st, bench->name, ident.buf, &id);
	strbuf_release(&ident);
	if (ret)
		return ret < 0 ? RP_EINTERNAL : 0;
	ret = store_plan_read(req->st, req->replay->id, id, &plan);
	store_plan_release(&plan);
	if (ret < 0)
		return RP_EINTERNAL;
	*planned = ret == 0;
	return 0;
}

/* req->replay: the stored comparison's verdicts again; nothing is run or stored. */
int compare_replay(const struct compare_request *req, struct compare_result *out)
{
	const struct store_comparison_info *c = req->replay;
	struct rng rng;
	size_t alloc = 0, n = req->cfg->nr_benches;
	bool *planned = xcalloc(n ? n : 1, sizeof(*planned));
	bool any_planned = false;
	int ret = 0;
	out->base_label = xstrdup(req->a.label);
	out->target_label = xstrdup(req->b.label);
	snprintf(out->base_sha, sizeof(out->base_sha), "%s", c->base_sha);
	snprintf(out->target_sha, sizeof(out->target_sha), "%s", c->target_sha);
	out->seed = c->seed;
	out->alpha = c->alpha;
	out->same_build = req->same_build;
	out->resumable = true;
	out->replayed = true;
	out->comparison_id = c->id;
	rng_seed(&rng, out->seed);
	if (!c->machine_id || store_machine_get(req->st, c->machine_id, &out->machine))
		machine_info_read(&out->machine);
	/* Only the benchmarks the comparison measured (compare --bench measures some): the
	 * others' stored runs would add verdicts it never reached, and change its q-values.
	 * One added to revperf.ini since has no plan either, nor (in place, for compare) one
	 * whose command changed since: its runs are stored under the old command, which show
	 * defines again (replay_config.h). A
	 * comparison that recorded no plan (before schema 10) shows every one, as before; a
	 * test suite is planned per test, so it stays. */
	for (size_t i = 0; i < n && !ret; i++) {
		ret = replay_planned(req, &req->cfg->benches[i], &planned[i]);
		any_planned |= planned[i];
	}
	for (size_t i = 0; i < n && !ret; i++) {
		const struct bench_config *bench = &req->cfg->benches[i];
		if (bench->format == BENCH_GBENCH || (any_planned && !planned[i] && !bench->tests))
			continue;
		ret = compare_one(req, bench, out, &alloc, c->machine_id, &rng);
	}
	compare_adjust_p_values(out);
	free(planned);
	return ret;
}
