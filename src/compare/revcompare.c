#include "compare/revcompare.h"

#include <stdio.h>
#include <string.h>

#include "compare/compare_binary.h"
#include "collect/machine.h"
#include "compare/replay_config.h"
#include "compare/run_output.h"
#include "core/metric.h"
#include "predict/predict.h"
#include "store/store_show.h"
#include "util/common.h"

/* The first benchmark with profile = cct, whose runs need the instrumented builds. */
static const struct bench_config *profiled_bench(const struct config *cfg)
{
	for (size_t i = 0; i < cfg->nr_benches; i++)
		if (cfg->benches[i].profiles & PROFILE_CCT)
			return &cfg->benches[i];
	return NULL;
}

/* Before anything is built: profile = cct needs [build] profile-command. */
static int check_profiling(const struct config *cfg)
{
	const struct bench_config *needs = profiled_bench(cfg);
	if (!needs || cfg->profile_build_command)
		return 0;
	error("%s: benchmark '%s' has profile = cct, which needs a build compiled with "
	      "-finstrument-functions: add to [build] a line such as profile-command = "
	      "make CFLAGS='-O2 -g -finstrument-functions'",
	      cfg->path ? cfg->path : "revperf.ini", needs->name);
	return RP_EINPUT;
}

/* The instrumented builds of profiled runs, in worktrees of their own. */
static int build_profiling(const struct revcompare_ctx *ctx, struct revcompare *rc,
			   struct compare_request *req)
{
	int err;
	if (!profiled_bench(&rc->cfg))
		return 0;
	for (int i = 0; i < 2; i++)
		if ((err = build_ensure(ctx->st, ctx->repo, ctx->sd, &rc->revs[i],
					rc->cfg.profile_build_command, "cct",
					rc->cfg.build_timeout_ns, &rc->profile_builds[i])))
			return err;
	req->a.profile_build_id = rc->profile_builds[0].id;
	req->b.profile_build_id = rc->profile_builds[1].id;
	req->a.profile_cwd = rc->profile_builds[0].worktree;
	req->b.profile_cwd = rc->profile_builds[1].worktree;
	return 0;
}

/*
 * Test suites become their tests, as listed at the target; with ctx->select, only the
 * benchmarks the target needs are kept (docs/prediction.md).
 */
static int select_benchmarks(const struct revcompare_ctx *ctx, struct revcompare *rc)
{
	struct predict_ctx pctx;
	struct predict_result pred;
	const bool tests = ctx->select && !strcmp(ctx->select, "tests");
	int err;

	predict_ctx_init(&pctx, &rc->cfg, ctx->st, ctx->repo, ctx->sd);
	memset(&pred, 0, sizeof(pred));
	err = predict_expand_suites(&pctx, rc->builds[1].worktree, rc->revs[1].expr);
	rc->configured = rc->selected = rc->cfg.nr_benches;
	if (!err && ctx->select)
		err = predict_revision(&pctx, &rc->revs[1], &rc->builds[1],
				       tests ? PREDICT_TESTS : PREDICT_PERPHECY,
				       PREDICT_SCOPE_COMMON, &pred);
	if (!err && ctx->select) {
		if (pred.no_predictor && !tests && !ctx->quiet)
			warning("--select: no predictor was trained yet, every benchmark runs "
				"(revperf train)");
		if (pred.trivial && !ctx->quiet)
			warning("--select: the predictor was trained without any hit and selects "
				"nothing; train again once a commit changed performance");
		err = predict_select(&rc->cfg, &pred);
		rc->selected = rc->cfg.nr_benches;
		if (!err && !ctx->quiet)
			fprintf_printable(
			    stderr, "revperf: --select=%s: %s needs %zu of %zu benchmarks\n",
			    ctx->select, rc->revs[1].expr, rc->selected, rc->configured);
	}
	predict_result_release(&pred);
	predict_ctx_release(&pctx);
	return err;
}

/*
 * Which comparison show prints when it is given two revisions: the newest of the builds of
 * the configuration's build command, else the newest of any builds of the two commits (one
 * made before the build command changed). 0 and *id, or RP_EINPUT after saying how to make
 * one, or RP_EINTERNAL.
 */
static int stored_comparison_of(const struct revcompare_ctx *ctx, struct revcompare *rc,
				int64_t *id)
{
	struct store_build b[2];
	const char *cmd = rc->cfg.build_command ? rc->cfg.build_command : "";
	int found = 0;
	memset(b, 0, sizeof(b));
	for (int i = 0; i < 2 && !found; i++)
		found = store_build_of_commit(ctx->st, rc->revs[i].sha, cmd, NULL, &b[i]);
	if (!found)
		found = store_comparison_newest(ctx->st, b[0].id, b[1].id, id);
	store_build_release(&b[0]);
	store_build_release(&b[1]);
	if (found == 1)
		found = store_comparison_of_commits(ctx->st, rc->revs[0].sha, rc->revs[1].sha, id);
	if (found == 1)
		error("no stored comparison of %s and %s; make one with `revperf compare %s %s`",
		      rc->revs[0].expr, rc->revs[1].expr, rc->revs[0].expr, rc->revs[1].expr);
	return found == 1 ? RP_EINPUT : found < 0 ? RP_EINTERNAL : 0;
}

/*
 * stored_only: the stored comparison (ctx->comparison_id, else the newest of the two
 * revisions) into rc->stored, the builds it used into rc->builds (whichever command built
 * them), and its benchmarks into rc->cfg as it measured them (replay_config.h).
 * rc->worktrees_replaced: a worktree no longer holds its build (no binary diff).
 */
static int stored_builds(const struct revcompare_ctx *ctx, struct revcompare *rc)
{
	int64_t id = ctx->comparison_id, build_ids[2];
	int found;
	if (!id && (found = stored_comparison_of(ctx, rc, &id)))
		return found;
	if ((found = store_comparison_get(ctx->st, id, &rc->stored)))
		return RP_EINTERNAL; /* show_pick() or the look-up above found it */
	build_ids[0] = rc->stored.base_build;
	build_ids[1] = rc->stored.target_build;
	for (int i = 0; i < 2; i++) {
		if ((found = store_build_get(ctx->st, build_ids[i], &rc->builds[i])))
			return RP_EINTERNAL;
		rc->worktrees_replaced |= !build_worktree_holds(&rc->builds[i]);
	}
	return replay_config_restore(ctx->st, &rc->stored, &rc->cfg);
}

/*
 * Whether stored verdict v of benchmark b is final: decided, or undecided after the most
 * runs b plans on both sides (a counted metric's: max count runs, taken when a side's
 * counts disagree; a timed one's: max runs).
 */
static bool stored_final(const struct store_verdict *v, const struct bench_config *b)
{
	const struct metric_def *def = metric_find(v->metric);
	size_t max = def && (def->flags & METRIC_COUNTED) ? b->max_count_runs : b->max_runs;
	return strcmp(v->verdict, "undecided") || (v->n_a >= max && v->n_b >= max);
}

/*
 * Whether the stored verdicts v of benchmark b answer the metric called name, as cfg asks
 * for it now (primary: it decides): a verdict for it, with values when every run measures
 * it (runs reused from a comparison of other metrics have none), and as a primary metric
 * final (stored_final()).
 */
static bool stored_answers(const struct store_verdict *v, size_t n, const struct bench_config *b,
			   const char *name, bool primary)
{
	for (size_t k = 0; k < n; k++) {
		if (strcmp(v[k].bench, b->name) || strcmp(v[k].metric, name))
			continue;
		if (!strcmp(v[k].verdict, "unmeasured") && !v[k].n_a && !v[k].n_b &&
		    metric_in_every_run(metric_find(name)))
			return false;
		return !primary || stored_final(&v[k], b);
	}
	return false;
}

/* Whether the stored verdicts v of b answer every metric of list (metrics or primary). */
static bool stored_answers_list(const struct store_verdict *v, size_t n,
				const struct bench_config *b, const char *list, bool primary)
{
	const char *p = list ? list : "";
	bool ok = true;
	while (ok && *p) {
		size_t len;
		char *name;
		p += strspn(p, ", \t");
		len = strcspn(p, ", \t");
		if (!len)
			break;
		name = xstrndup(p, len);
		p += len;
		if (!strcmp(name, "all")) {
			/* as metric_parse_list() expands it: every metric but the counted ones */
			for (size_t i = 0; ok && i < metric_count(); i++) {
				const struct metric_def *def = metric_at(i);
				if (strcmp(def->name, "iteration") && !(def->flags & METRIC_COUNTED))
					ok = stored_answers(v, n, b, def->name, primary);
			}
		} else {
			ok = stored_answers(v, n, b, name, primary);
		}
		free(name);
	}
	return ok;
}

/* Whether the verdicts of b in v were judged on the command b runs now (its identity in
 * the store): a comparison of the command b had before measured another program. */
static bool stored_same_command(const struct store_verdict *v, size_t n,
				const struct bench_config *b)
{
	struct strbuf ident = STRBUF_INIT;
	bool same = true;
	if (!b->command)
		return true; /* a test suite: its tests carry the commands */
	run_output_identity(&ident, b);
	for (size_t k = 0; same && k < n; k++)
		if (!strcmp(v[k].bench, b->name))
			same = v[k].command && !strcmp(v[k].command, ident.buf);
	strbuf_release(&ident);
	return same;
}

bool revcompare_stored_answers(const struct store_verdict *v, size_t n,
			       const struct bench_config *b)
{
	return stored_same_command(v, n, b) && stored_answers_list(v, n, b, b->metrics, false) &&
	       stored_answers_list(v, n, b, b->primary, true);
}

/*
 * Whether stored comparison id is finished for cfg: planned as cfg plans (runs, alpha), a
 * verdict for every benchmark and for every metric cfg asks of it (a comparison of other
 * metrics is not), and every primary one, stored as primary or primary in cfg, final
 * (stored_final()). A counted metric (ir, sim-cycles) is judged again from the stored
 * counted runs (compare_counted()): its phase is finished once it has a verdict (left
 * unmeasured, its runs failed: not). Profiled benchmarks, suites and Google Benchmark
 * binaries are measured beyond what a replay shows: never finished here.
 */
static int stored_finished(struct store *st, const struct config *cfg, int64_t id)
{
	struct store_verdict *v = NULL;
	size_t n = 0, i, k;
	int ret;
	if ((ret = store_comparison_verdicts(st, id, &v, &n)))
		return ret;
	ret = n > 0;
	for (i = 0; ret && i < cfg->nr_benches; i++) {
		const struct bench_config *b = &cfg->benches[i];
		bool found = false;
		if (b->profiles || b->tests || b->format == BENCH_GBENCH)
			ret = 0;
		for (k = 0; ret && k < n; k++) {
			const struct metric_def *def = metric_find(v[k].metric);
			if (strcmp(v[k].bench, b->name))
				continue;
			found = true;
			if (def && (def->flags & METRIC_COUNTED) &&
			    !strcmp(v[k].verdict, "unmeasured"))
				ret = 0;
			if (v[k].primary && !stored_final(&v[k], b))
				ret = 0;
			/* its time budget ended before the first look: compare again goes on */
			if (v[k].primary && !strcmp(v[k].verdict, "unmeasured") &&
			    (v[k].n_a || v[k].n_b) &&
			    (v[k].n_a < b->min_runs || v[k].n_b < b->min_runs))
				ret = 0;
		}
		if (!found || !revcompare_stored_answers(v, n, b))
			ret = 0;
		/* judged under another plan (runs, alpha): what cfg asks was never measured */
		if (ret > 0) {
			int differs = store_comparison_plan_differs(st, id, b->name, b->min_runs,
								    b->max_runs, cfg->alpha);
			if (differs)
				ret = differs < 0 ? differs : 0;
		}
	}
	store_verdicts_free(v, n);
	return ret;
}

/* Which stored comparison to show instead of running: 0 and rc->stored, 1 none, <0. */
static int stored_comparison(const struct revcompare_ctx *ctx, struct revcompare *rc)
{
	struct machine_info m;
	int64_t id, machine_id;
	int found;
	if (ctx->stored_only)
		return 0; /* stored_builds() read it */
	if (ctx->fresh || ctx->more || ctx->select)
		return 1;
	/* this machine's: another's verdict is no answer here (a shared store) */
	machine_info_read(&m);
	if (store_machine(ctx->st, &m, &machine_id))
		return RP_EINTERNAL;
	found = store_comparison_latest(ctx->st, rc->builds[0].id, rc->builds[1].id, "done",
					machine_id, &id);
	if (found)
		return found;
	if ((found = stored_finished(ctx->st, &rc->cfg, id)) <= 0)
		return found < 0 ? found : 1;
	found = store_comparison_get(ctx->st, id, &rc->stored);
	return found == 1 ? RP_EINTERNAL : found;
}

int revcompare_run(const struct revcompare_ctx *ctx, const char *base, const char *target,
		   struct revcompare *rc)
{
	struct compare_request req;
	const char *exprs[2] = {base, target};
	int err;

	memset(rc, 0, sizeof(*rc));
	rc->failed_build = -1;
	config_init(&rc->cfg);
	memset(&req, 0, sizeof(req));
	if ((err = ctx->load_config(&rc->cfg, ctx->config_arg)))
		return err;
	for (int i = 0; i < 2; i++)
		if ((err = repo_resolve(ctx->repo, exprs[i], &rc->revs[i])))
			return err;
	if (ctx->stored_only && (err = stored_builds(ctx, rc)))
		return err;
	if (!ctx->stored_only && (err = check_profiling(&rc->cfg)))
		return err;
	for (int i = 0; i < 2 && !ctx->stored_only; i++) {
		if ((err = build_ensure(ctx->st, ctx->repo, ctx->sd, &rc->revs[i],
					rc->cfg.build_command, NULL, rc->cfg.build_timeout_ns,
					&rc->builds[i]))) {
			if (err == RP_EBUILD)
				rc->failed_build = i;
			return err;
		}
	}
	req.a.label = rc->revs[0].expr;
	req.b.label = rc->revs[1].expr;
	req.a.sha = rc->revs[0].sha;
	req.b.sha = rc->revs[1].sha;
	/* No binary diff of builds whose worktrees no longer hold them. */
	req.a.cwd = rc->worktrees_replaced ? NULL : rc->builds[0].worktree;
	req.b.cwd = rc->worktrees_replaced ? NULL : rc->builds[1].worktree;
	req.a.build_id = rc->builds[0].id;
	req.b.build_id = rc->builds[1].id;
	req.same_build = rc->builds[0].id == rc->builds[1].id;
	if ((err = stored_comparison(ctx, rc)) < 0)
		return err;
	rc->replayed = err == 0;
	rc->configured = rc->selected = rc->cfg.nr_benches;
	if (rc->replayed) {
		req.replay = &rc->stored;
		req.replay_as_judged = ctx->stored_only;
		/* show by id: the names the comparison was made with; else the ones given now */
		if (ctx->comparison_id && rc->stored.base_label && rc->stored.target_label) {
			req.a.label = rc->stored.base_label;
			req.b.label = rc->stored.target_label;
		}
	} else if ((err = select_benchmarks(ctx, rc)) || (err = build_profiling(ctx, rc, &req)))
		return err;
	if (!rc->cfg.nr_benches)
		return 0; /* --select chose nothing: no comparison is stored */
	req.cfg = &rc->cfg;
	req.st = ctx->st;
	req.sd = ctx->sd;
	req.progress = ctx->progress;
	req.progress_arg = ctx->progress_arg;
	req.fresh = ctx->fresh;
	req.more = ctx->more;
	rc->executed = true;
	err = compare_execute(&req, &rc->res);
	for (size_t i = 0; !err && rc->worktrees_replaced && i < rc->res.nr_benches; i++) {
		const struct bench_config *b = config_bench(&rc->cfg, rc->res.benches[i].name);
		rc->bindiff_not_redone |= b && compare_has_program(b);
	}
	if (!err && ctx->executed && !rc->replayed)
		ctx->executed(&rc->res, ctx->executed_arg);
	return err;
}

void revcompare_release(struct revcompare *rc)
{
	if (!rc)
		return;
	compare_result_release(&rc->res);
	for (int i = 0; i < 2; i++) {
		store_build_release(&rc->builds[i]);
		store_build_release(&rc->profile_builds[i]);
		revision_release(&rc->revs[i]);
	}
	store_comparison_info_release(&rc->stored);
	config_release(&rc->cfg);
}
