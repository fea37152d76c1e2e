#include "compare/compare.h"
#include "core/metric.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "collect/cct_run.h"
#include "collect/cpu_quiet.h"
#include "collect/machine.h"
#include "collect/valgrind_run.h"
#include "compare/compare_binary.h"
#include "compare/compare_counted.h"
#include "compare/compare_counters.h"
#include "compare/compare_impl.h"
#include "compare/compare_io.h"
#include "compare/compare_sample.h"
#include "compare/compare_profile.h"
#include "compare/compare_result.h"
#include "compare/compare_run.h"
#include "util/fsutil.h"
#include "compare/gbench.h"
#include "import/import.h"
#include "compare/run_output.h"
#include "util/rng.h"
#include "util/common.h"

/* Whether def is a metric the benchmark prints (metric.NAME, a gbench case's). */
static bool is_reported(const struct bench_ctx *c, const struct metric_def *def)
{
	for (size_t i = 0; i < c->bench->nr_reported; i++)
		if (c->bench->reported[i].def == def)
			return true;
	for (size_t i = 0; i < c->bench->nr_case_defs; i++)
		if (c->bench->case_defs[i] == def)
			return true;
	return false;
}

/*
 * Loads both sides' values of one metric and decides it at level alpha: from the
 * interleaved pairs when there are at least two complete ones (the design's noise
 * cancellation), else from the unpaired values (Welch).
 */
int compare_evaluate_metric(struct bench_ctx *c, struct metric_outcome *m, double alpha)
{
	double *a = NULL, *b = NULL, *pa = NULL, *pb = NULL;
	int64_t *ida = NULL, *idb = NULL;
	size_t na = 0, nb = 0, np = 0;
	struct verdict_opts opts;
	int ret = RP_EINTERNAL;
	if (store_run_values_ids(c->req->st, &c->filter[0], m->def->name, &ida, &a, &na) ||
	    store_run_values_ids(c->req->st, &c->filter[1], m->def->name, &idb, &b, &nb) ||
	    store_run_pairs(c->req->st, &c->filter[0], m->def->name, &pa, &pb, &np))
		goto out;
	metric_outcome_reset(m, na, nb, np);
	compare_explain_unmeasured(c->out, m, is_reported(c, m->def),
				   c->req->replay || (c->out->reused_a == c->out->ok_a &&
						      c->out->reused_b == c->out->ok_b));
	if (m->measured) {
		opts.alpha = alpha;
		opts.tolerance = c->bench->count_tolerance;
		opts.direction = m->def->direction;
		/* A count whose runs agree (perf instructions): exact (METHODS.md 2, step 7). */
		int exact = m->def->flags & METRIC_COUNT
				? verdict_decide_exact(a, na, b, nb, &opts, &m->r)
				: 0;
		if (exact < 0)
			goto out;
		opts.tolerance = c->bench->tolerance;
		if (!exact && (np >= 2 ? verdict_decide_paired(pa, pb, np, &opts, &m->r)
				       : verdict_decide(a, na, b, nb, &opts, &m->r)))
			goto out;
	}
	ret = 0;
out:
	if (!ret) { /* m keeps them, for the report */
		metric_outcome_set_values(m, 0, ida, a, na);
		metric_outcome_set_values(m, 1, idb, b, nb);
	} else {
		free(ida);
		free(idb);
		free(a);
		free(b);
	}
	free(pa);
	free(pb);
	return ret;
}

/*
 * A primary metric the benchmark prints that no successful run of a side printed: its
 * pattern is wrong (or the output changed). Sets the benchmark's error, naming the metric
 * and showing a line of that side's output; returns true then.
 */
static bool reported_never_matched(struct bench_ctx *c, const struct metric_outcome *m)
{
	const struct reported_metric *rm = NULL;
	struct strbuf sb = STRBUF_INIT, log = STRBUF_INIT, line = STRBUF_INIT;
	int side;
	for (size_t i = 0; i < c->bench->nr_reported; i++)
		if (c->bench->reported[i].def == m->def)
			rm = &c->bench->reported[i];
	if (!rm || !m->primary)
		return false;
	if (c->out->ok_a && !m->r.n_a)
		side = 0;
	else if (c->out->ok_b && !m->r.n_b)
		side = 1;
	else
		return false;
	strbuf_addf(&sb, "primary metric '%s' was in the output of none of the %zu successful "
		    "runs of side %c (%s): /%s/ never matched",
		    m->def->name, side ? c->out->ok_b : c->out->ok_a, side ? 'B' : 'A',
		    bench_side(c, side)->label, rm->pattern);
	strbuf_addf(&log, "%s%c.log", c->log_prefix, side ? 'B' : 'A');
	if (c->have_ok_output[side] &&
	    !run_output_last_line(log.buf, c->last_ok_offset[side], c->last_ok_length[side],
				  &line))
		strbuf_addf(&sb, "; the last line of its output: '%s'", line.buf);
	strbuf_addf(&sb, "; fix the pattern (%s)", rm->origin[0] ? rm->origin : "--metric");
	free(c->out->error);
	c->out->error = strbuf_detach(&sb);
	strbuf_release(&log);
	strbuf_release(&line);
	return true;
}

/* Evaluates the primary metrics; *all_decided tells whether sampling may stop. */
int compare_evaluate_primaries(struct bench_ctx *c, double alpha, bool *all_decided)
{
	size_t i;
	*all_decided = true;
	c->out->looks++;
	for (i = 0; i < c->out->nr_metrics; i++) {
		struct metric_outcome *m = &c->out->metrics[i];
		if (!m->primary || (m->def->flags & METRIC_COUNTED))
			continue; /* counted metrics are decided after the timing runs */
		if (compare_evaluate_metric(c, m, alpha))
			return RP_EINTERNAL;
		if (reported_never_matched(c, m))
			return 0;
		if (m->measured && m->r.verdict == VERDICT_UNDECIDED)
			*all_decided = false;
		if (!m->measured && m->r.n_a + m->r.n_b > 0)
			*all_decided = false;
	}
	return 0;
}

static bool budget_spent(const struct bench_ctx *c)
{
	return c->bench->time_budget_ns &&
	       bench_seconds_since(&c->started) * 1e9 >= (double)c->bench->time_budget_ns;
}

/* quiet = BUSY, MAX-WAIT: waits before a pair until the machine is quiet enough. */
static void wait_quiet(struct bench_ctx *c)
{
	bool quiet;
	ns_t waited;
	if (!c->bench->quiet_wait_ns)
		return;
	waited = cpu_wait_quiet(c->bench->quiet_busy, c->bench->quiet_wait_ns, &quiet);
	if (waited) {
		c->out->quiet_pairs++;
		c->out->quiet_wait_s += (double)waited / 1e9;
		if (!quiet)
			c->out->noisy_pairs++;
	}
}

/* Runs side(s) whose count is below `look`, in a random order when both are. */
static int run_round(struct bench_ctx *c, size_t look, bool *stop)
{
	int first = rng_coin(c->rng), ret;
	c->pair_seq++;
	if (c->bench->quiet_wait_ns) {
		/* The machine is judged with none of our runs on it. */
		if ((ret = bench_run_drain(c, stop)) || *stop)
			return ret;
		wait_quiet(c);
	}
	for (int k = 0; k < 2; k++) {
		int side = k ? !first : first;
		if (bench_planned_ok(c, side) >= look)
			continue;
		ret = bench_run_next(c, side, false, stop);
		if (ret || *stop)
			return ret;
	}
	return 0;
}

static int parse_bench_metrics(struct bench_ctx *c)
{
	const struct metric_def **primary = NULL;
	size_t nr_primary = 0, i, j;
	const char *origin = c->bench->origin[0] ? c->bench->origin : "--metrics";
	size_t nr_reported;
	const struct metric_def **reported = bench_runtime_defs(c->bench, &nr_reported);
	int ret = RP_EINPUT;
	if (metric_parse_list_with(c->bench->metrics, origin, reported, nr_reported, &c->defs,
				   &c->nr_defs) ||
	    metric_parse_list_with(c->bench->primary, origin, reported, nr_reported, &primary,
				   &nr_primary)) {
		free(reported);
		free(primary);
		return ret;
	}
	/* Metrics the benchmark reports are always measured, next to the listed ones. */
	for (i = 0; i < nr_reported; i++) {
		for (j = 0; j < c->nr_defs; j++)
			if (c->defs[j] == reported[i])
				break;
		if (j == c->nr_defs) {
			c->defs = xrealloc(c->defs, (c->nr_defs + 1) * sizeof(*c->defs));
			c->defs[c->nr_defs++] = reported[i];
		}
	}
	free(reported);
	/* A primary metric is always measured, even when the metrics list forgot it. */
	for (i = 0; i < nr_primary; i++) {
		for (j = 0; j < c->nr_defs; j++)
			if (c->defs[j] == primary[i])
				break;
		if (j == c->nr_defs) {
			c->defs = xrealloc(c->defs, (c->nr_defs + 1) * sizeof(*c->defs));
			c->defs[c->nr_defs++] = primary[i];
		}
	}
	for (i = 0; i < c->nr_defs; i++)
		if ((c->defs[i]->flags & METRIC_COUNTED) && !valgrind_available()) {
			error("%s: metric '%s' is counted under valgrind, which is not installed; "
			      "install the Debian package valgrind (apt-get install valgrind) or "
			      "remove '%s' from metrics and primary",
			      origin, c->defs[i]->name, c->defs[i]->name);
			free(primary);
			return RP_EINPUT;
		}
	c->out->metrics = xcalloc(c->nr_defs, sizeof(*c->out->metrics));
	c->out->nr_metrics = c->nr_defs;
	for (i = 0; i < c->nr_defs; i++) {
		c->out->metrics[i].def = c->defs[i];
		if (!strcmp(c->defs[i]->name, "iteration"))
			c->want_iterations = true;
		if (c->defs[i]->flags & METRIC_PERF)
			c->want_perf = true;
		if (!strcmp(c->defs[i]->name, "rchar") || !strcmp(c->defs[i]->name, "wchar"))
			c->want_io = true;
		for (j = 0; j < nr_primary; j++)
			if (primary[j] == c->defs[i])
				c->out->metrics[i].primary = true;
	}
	free(primary);
	return 0;
}

/*
 * Stored runs of an earlier comparison that measured other metrics would leave a metric of
 * every run (metric_in_every_run()) unmeasured, or judged on fewer runs: *since is the
 * comparison after the newest that made such a run (0: none did), *lacking the metric
 * (NULL: none). Returns 0 or RP_EINTERNAL.
 */
static int stored_runs_lacking(const struct compare_request *req, const struct bench_ctx *c,
			       int64_t *since, const char **lacking)
{
	*since = 0;
	*lacking = NULL;
	for (size_t i = 0; i < c->nr_defs; i++) {
		const struct metric_def *def = c->defs[i];
		if (!metric_in_every_run(def))
			continue;
		for (int side = 0; side < 2; side++) {
			int64_t id;
			if (store_run_lacking(req->st, &c->filter[side], def->name, &id))
				return RP_EINTERNAL;
			if (id && id + 1 > *since) {
				*since = id + 1;
				*lacking = def->name;
			}
		}
	}
	return 0;
}

static bool needs_timing_runs(const struct bench_ctx *c);

/*
 * Leaves out of c->filter the stored runs that lack a metric every run measures (made by a
 * comparison of other metrics): only the runs of comparisons after the newest that made
 * one are reused (a warning when none are). A replay leaves them in when its own runs are
 * among them (it shows what it measured). The runs judged under another plan, and those
 * before the newest comparison made with --fresh, are left out the same way. Returns 0 or
 * RP_EINTERNAL.
 */
static int stored_runs_complete(const struct compare_request *req, const struct bench_config *bench,
				struct bench_ctx *c)
{
	size_t ok[2], failed;
	int64_t since;
	const char *lacking;
	struct strbuf builds = STRBUF_INIT;
	int ret;
	int64_t other = 0, fresh = 0;
	bool timed = needs_timing_runs(c);
	if (req->fresh || (!c->out->ok_a && !c->out->ok_b))
		return 0;
	if ((ret = stored_runs_lacking(req, c, &since, &lacking)))
		return ret;
	/*
	 * Runs looked at under another plan (runs MIN..MAX, alpha) had their alpha spent
	 * there: judged again under this one, each of its looks would be a new chance of a
	 * false verdict (A/A trials at alpha 0.2, runs 3..6 then 3..12 then 3..24: 37 false
	 * verdicts in 300 became 44). Only the runs of comparisons after the newest that
	 * planned otherwise are reused. A replay shows what it measured, as it measured it.
	 */
	for (int i = 0; !req->replay && i < 2; i++) {
		int64_t id;
		if (store_run_other_plan(req->st, &c->filter[i], bench->min_runs, bench->max_runs,
					 c->alpha, &id))
			return RP_EINTERNAL;
		if (id + 1 > other && id)
			other = id + 1;
		/* --fresh set the runs before it aside: so do the comparisons that continue
		 * it (--more, one interrupted and resumed). */
		if (store_run_newest_fresh(req->st, &c->filter[i], &id))
			return RP_EINTERNAL;
		if (id > fresh)
			fresh = id;
	}
	if (other > since)
		since = other;
	if (fresh > since)
		since = fresh;
	if (!since || (req->replay && since > req->replay->id))
		return 0;
	for (int i = 0; i < 2; i++)
		c->filter[i].since_comparison = since;
	if (store_run_counts(req->st, &c->filter[0], &ok[0], &failed) ||
	    store_run_counts(req->st, &c->filter[1], &ok[1], &failed))
		return RP_EINTERNAL;
	/* Said when it costs runs (--fresh said it when it did); later ones reused are in the
	 * report's count. The builds are named: history says it of each pair of commits. A
	 * benchmark whose metrics are all counted takes no timing run: nothing is measured
	 * anew for it (its counted runs are reused on their own terms). */
	if (req->a.sha && req->b.sha)
		strbuf_addf(&builds, "builds %.12s and %.12s", req->a.sha, req->b.sha);
	else
		strbuf_addstr(&builds, "these builds");
	if (timed && !req->replay && !ok[0] && !ok[1] && since == other && since != fresh)
		warning("%s: the %zu + %zu stored runs of %s were judged under another plan (runs "
			"or alpha): their alpha is spent, so they are not reused; measuring anew "
			"(--more continues them with the runs and alpha they had)",
			bench->name, c->out->ok_a, c->out->ok_b, builds.buf);
	else if (timed && !req->replay && !ok[0] && !ok[1] && since != fresh)
		warning("%s: the %zu + %zu stored runs of %s have no %s (a comparison of other "
			"metrics made them): not reused, measuring anew",
			bench->name, c->out->ok_a, c->out->ok_b, builds.buf, lacking);
	strbuf_release(&builds);
	c->out->ok_a = ok[0];
	c->out->ok_b = ok[1];
	return 0;
}

/*
 * The benchmark's row and the runs stored for it (reused unless --fresh): sets the filters
 * and counts; *more: with --more, the runs per side already stored, which the new budget
 * comes on top of.
 */
static int bench_runs_stored(const struct compare_request *req, const struct bench_config *bench,
			     struct bench_ctx *c, size_t *more)
{
	struct strbuf ident = STRBUF_INIT;
	size_t failed;
	bool recorded = false;
	int ret;
	run_output_identity(&ident, bench);
	ret = req->replay ? store_benchmark_find(req->st, bench->name, ident.buf,
						 &c->out->benchmark_id)
			  : store_benchmark(req->st, bench->name, ident.buf, &c->out->benchmark_id);
	strbuf_release(&ident);
	if (ret < 0 || (ret && !req->replay))
		return RP_EINTERNAL;
	for (int i = 0; i < 2; i++) {
		c->filter[i].base_build = req->a.build_id;
		c->filter[i].target_build = req->b.build_id;
		c->filter[i].side = i ? 'B' : 'A';
		c->filter[i].benchmark_id = c->out->benchmark_id; /* 0 (none) when not stored */
		c->filter[i].machine_id = c->machine_id;
		if (req->fresh)
			c->filter[i].comparison_id = c->comparison_id;
		else if (req->replay) /* what it measured: not the runs of later comparisons */
			c->filter[i].comparison_id = -req->replay->id;
	}
	/*
	 * A replay takes the runs its comparison took, as recorded with its plan: under
	 * --fresh only its own, which the filter cannot tell from the earlier ones. A
	 * comparison stored before schema 11 recorded none: they are worked out again.
	 */
	if (req->replay && c->out->benchmark_id) {
		struct store_plan plan;
		ret = store_plan_read(req->st, req->replay->id, c->out->benchmark_id, &plan);
		store_plan_release(&plan);
		if (ret < 0)
			return RP_EINTERNAL;
		recorded = ret == 0 && plan.runs_since_known;
		c->filter[0].since_comparison = c->filter[1].since_comparison = plan.runs_since;
	}
	if (store_run_counts(req->st, &c->filter[0], &c->out->ok_a, &failed) ||
	    store_run_counts(req->st, &c->filter[1], &c->out->ok_b, &failed))
		return RP_EINTERNAL;
	if (!recorded && (ret = stored_runs_complete(req, bench, c)))
		return ret;
	/* The looks this comparison plans for the benchmark and the runs it takes, before
	 * its first run. */
	if (!req->replay) {
		struct store_plan plan = {
			.min_runs = bench->min_runs,
			.max_runs = bench->max_runs,
			.runs_since = req->fresh ? c->comparison_id : c->filter[0].since_comparison,
			.fresh = req->fresh,
			.tolerance = bench->tolerance,
			.count_tolerance = bench->count_tolerance,
			.metrics = bench->metrics,
			.primary = bench->primary,
		};
		if (store_plan_insert(req->st, c->comparison_id, c->out->benchmark_id, &plan))
			return RP_EINTERNAL;
	}
	c->out->reused_a = c->out->ok_a;
	c->out->reused_b = c->out->ok_b;
	if (req->replay && compare_replay_reused(req, c))
		return RP_EINTERNAL;
	if (req->more)
		*more = c->out->ok_a < c->out->ok_b ? c->out->ok_a : c->out->ok_b;
	return 0;
}

/*
 * The benchmark's warm-up runs, discarded, in a random order too (the baseline's first
 * while no baseline run set the timeout): taken before its first new run only, so that a
 * comparison whose stored runs already answer it runs none.
 */
static int run_warmups(struct bench_ctx *c, bool *stop)
{
	for (size_t w = 0; w < c->bench->warmup && !*stop; w++) {
		int first = rng_coin(c->rng);
		/* No baseline run yet: its warm-up first, to set the timeout of the target's
		 * (compare_run.c) instead of the provisional 600 s. */
		if (c->timeout_ns == FIRST_RUN_TIMEOUT_NS && !c->bench->timeout_ns)
			first = 0;
		for (int k = 0; k < 2 && !*stop; k++) {
			int ret = bench_run_next(c, k ? !first : first, true, stop);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * Whether the benchmark needs timing runs: a metric measured in them (every metric not
 * counted: asked for, primary, or one the benchmark prints) or profile = counters, which
 * samples them. Without, its metrics are all counted in the valgrind runs after.
 */
static bool needs_timing_runs(const struct bench_ctx *c)
{
	if ((c->bench->profiles & PROFILE_COUNTERS) || c->bench->nr_case_defs)
		return true;
	for (size_t i = 0; i < c->nr_defs; i++)
		if (!(c->defs[i]->flags & METRIC_COUNTED))
			return true;
	return false;
}

/*
 * Every metric counted: no warm-up and no timing run, whose values nobody would read (a
 * 10 s benchmark cost 2 minutes of them per comparison). Timing runs stored by earlier
 * comparisons of other metrics are not the verdict's: not counted in its runs.
 */
static void counted_only(struct bench_ctx *c)
{
	struct bench_outcome *b = c->out;
	b->counted_only = true;
	b->ok_a = b->ok_b = b->reused_a = b->reused_b = b->failed_a = b->failed_b = 0;
	b->looks = 0;
	b->decided = true; /* no timed primary to decide, as after a look with none */
	if (c->req->more && !c->req->replay)
		warning("%s: --more adds timing runs, and its metrics are all counted: their runs "
			"under valgrind (count-runs %zu..%zu) are taken again, none added; for "
			"more of them raise count-runs (a counted metric that differs between "
			"runs takes up to its maximum)",
			c->bench->name, c->bench->min_count_runs, c->bench->max_count_runs);
}

/*
 * Counted runs alone: a side whose counted runs all failed is the benchmark failing, as
 * its timing runs failing would be (the error; exit 2), and the target failing where the
 * baseline's runs succeeded is a broken target (a regression: exit 1). The counted
 * section says why, from the first failed run's log.
 */
static void counted_only_failed(const struct bench_ctx *c, struct bench_outcome *b)
{
	const struct counted_attribution *a = b->counted;
	struct strbuf sb = STRBUF_INIT;
	int side;
	if (!b->counted_only || !a || !a->error || b->error)
		return;
	if (a->failed[0] && a->runs[0] < 2)
		side = 0;
	else if (a->failed[1] && a->runs[1] < 2)
		side = 1;
	else
		return;
	strbuf_addf(&sb,
		    "%zu of %zu counted runs failed on side %c (%s); see the counted "
		    "section below and the logs under %s",
		    a->failed[side], a->failed[side] + a->runs[side], side ? 'B' : 'A',
		    bench_side(c, side)->label, a->dir);
	b->error = strbuf_detach(&sb);
	b->target_broken = side == 1 && !a->failed[0] && a->runs[0] >= 2;
}

/* c->log_prefix: logs/runs/<comparison>/<benchmark>-, its directory made. */
static int bench_log_prefix(struct bench_ctx *c)
{
	struct strbuf dir = STRBUF_INIT;
	strbuf_addf(&dir, "%s/%lld", c->req->sd->run_logs, (long long)c->comparison_id);
	if (mkdir_own(c->req->sd->root, dir.buf)) {
		strbuf_release(&dir);
		return RP_EINTERNAL;
	}
	strbuf_addch(&dir, '/');
	fsutil_add_safe_name(&dir, c->bench->name);
	strbuf_addch(&dir, '-');
	c->log_prefix = strbuf_detach(&dir);
	return 0;
}

/* The benchmark's error when the warm-up that sets its counted runs' timeout timed out. */
static void probe_error(struct bench_ctx *c, const char *detail, const char *log)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb,
		    "its warm-up run of side A without valgrind (%s), which sets the counted "
		    "runs' timeout, timed out (%s): no counted run was started; see its log %s, "
		    "or set `timeout` if it is this slow",
		    bench_side(c, 0)->label, detail, log ? log : "(none)");
	free(c->out->error);
	c->out->error = strbuf_detach(&sb);
}

/*
 * Every metric counted and no timeout known (no `timeout`, no timing runs stored): the
 * counted runs' timeout would start from the first timing run's 600 s, x 100 under
 * valgrind, so a benchmark that hangs held its 4 counted runs for 6,000 s each. One
 * warm-up of the baseline without valgrind (stored as a warm-up: no verdict reads it)
 * gives 10 x its time instead, at least 60 s; when it times out after 600 s no counted run
 * starts: the benchmark is failing, as when its first timing run times out.
 */
static int counted_timeout_probe(void *arg, bool *timed_out, ns_t *timeout_ns)
{
	struct bench_ctx *c = arg;
	bool stop = false;
	int ret;
	if (!c->log_prefix && (ret = bench_log_prefix(c)))
		return ret;
	c->timeout_probe = true;
	ret = bench_run_next(c, 0, true, &stop);
	c->timeout_probe = false;
	if (ret)
		return ret;
	*timed_out = c->probe_status == RUN_TIMEOUT;
	*timeout_ns = c->timeout_ns;
	if (*timed_out) {
		struct strbuf log = STRBUF_INIT;
		char detail[64];
		snprintf(detail, sizeof(detail), "after %.0f s", (double)FIRST_RUN_TIMEOUT_NS / 1e9);
		strbuf_addf(&log, "%sA.log", c->log_prefix);
		probe_error(c, detail, log.buf);
		strbuf_release(&log);
	} else {
		c->out->probe_timeout_s = (double)c->timeout_ns * (VALGRIND_SLOWDOWN / 10) / 1e9;
	}
	return 0;
}

/*
 * That warm-up timed out (measured now, or stored by the comparison shown again): the
 * benchmark's error, and no counted run started.
 */
static void probe_timed_out(struct bench_ctx *c)
{
	const struct store_run_issue *r = NULL;
	for (size_t i = 0; i < c->out->nr_issues && !r; i++)
		if (c->out->issues[i].warmup && c->out->issues[i].side == 'A' &&
		    c->out->issues[i].status == RUN_TIMEOUT)
			r = &c->out->issues[i];
	if (r && !c->out->error)
		probe_error(c, r->detail ? r->detail : "timed out", r->log_path);
}

static int compare_bench(const struct compare_request *req, const struct bench_config *bench,
			 struct bench_ctx *c)
{
	struct sequential_plan plan;
	size_t i, look, n, chain, slot = 0, extensions = 0, more = 0;
	bool stop = false, decided = false, extensible, continues, short_of_first = false;
	bool warmed = false;
	double look_alpha;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &c->started);
	ret = parse_bench_metrics(c);
	if (ret)
		return ret;
	if ((ret = bench_runs_stored(req, bench, c, &more)))
		return ret;
	if (sequential_plan_init(&plan, bench->min_runs, bench->max_runs, c->alpha)) {
		error("%s: invalid runs %zu..%zu", bench->origin, bench->min_runs, bench->max_runs);
		return RP_EINPUT;
	}
	/*
	 * A time budget lets an undecided benchmark continue past max_runs (METHODS 2.8), and so
	 * does --more, up to max_runs more: both by alpha spending, never with a new alpha for
	 * runs already looked at. A replay judges runs past max_runs the same way. The planned
	 * looks always leave the extensions their share: any comparison may be continued later
	 * (--more, a time budget given then), and its planned looks cannot be taken back.
	 */
	n = c->out->ok_a < c->out->ok_b ? c->out->ok_a : c->out->ok_b;
	continues = bench->time_budget_ns > 0 || more;
	extensible = continues || n > bench->max_runs;
	sequential_plan_extend(&plan, c->alpha, SEQUENTIAL_EXTENSION_SHARE);
	look_alpha = plan.alpha_per_look;
	c->planned_max = bench->max_runs + more;
	c->out->ci_alpha = plan.alpha_per_look;
	c->out->tolerance = bench->tolerance;
	c->out->count_tolerance = bench->count_tolerance;
	if (!needs_timing_runs(c)) {
		/* the counted runs' timeout: the timing runs' of earlier comparisons, if any */
		c->timeout_ns = bench_run_timeout(c);
		counted_only(c);
		/* the warm-up that sets it, if a counted run is made (compare_counted()) */
		c->want_probe =
		    !req->replay && c->timeout_ns == FIRST_RUN_TIMEOUT_NS && !bench->timeout_ns;
		if ((ret = compare_load_run_records(c)))
			return ret;
		probe_timed_out(c);
		return 0;
	}
	if (req->replay)
		return compare_replay_bench(c, &plan, extensible);
	if ((ret = bench_log_prefix(c)))
		return ret;
	c->timeout_ns = bench_run_timeout(c);
	if (bench->pin.mode != CPU_PIN_OFF) {
		/* The process that forks the benchmarks starts anew on them; revperf steps
		 * aside to the other CPUs, if any. */
		cpu_pin_save(&c->affinity);
		if ((ret = cpu_pin_apply(&bench->pin, c->out->pinned, sizeof(c->out->pinned))))
			return ret;
		cpu_pin_hand_to_runs(&c->affinity);
	}
	/* The next run waits in the spawner while one runs, where revperf need not watch it. */
	c->lookahead = bench->log_limit_bytes > 0 && !(bench->profiles & PROFILE_COUNTERS) &&
		       !bench->nr_case_defs;
	/* Runs stored before (an interrupted comparison, an earlier one of these builds, or the
	 * one --more continues): their looks are taken again at the alpha each had, and past
	 * max_runs the spending goes on from the extension they reached (as a replay does). */
	look = sequential_next_look(&plan, n > bench->min_runs ? n : bench->min_runs);
	while (extensible && n > look && extensions < SEQUENTIAL_MAX_EXTENSIONS) {
		look_alpha = sequential_extension_alpha(&plan, ++extensions);
		look = sequential_extension_look(look);
	}
	/*
	 * Extension k looks at the chain's k-th size (max_runs grown by 25%, k times) or before
	 * it (a budget's end), never at or before the (k - 1)-th: so the stored runs' number
	 * tells the last extension they may have had, as above.
	 */
	chain = look;
	/*
	 * New runs never take the alpha of a look the stored runs may have had already (the
	 * comparison that made them may have looked at that alpha with fewer runs): past
	 * max_runs the stored runs are judged first, at the alpha their number reached, as a
	 * replay judges them, and only an undecided one goes on, at the next extension. --more
	 * asks for runs beyond the stored ones: the next planned look after them, or past
	 * max_runs the next extension (none once the extensions are spent).
	 */
	if (more && n >= bench->max_runs) {
		if (extensions < SEQUENTIAL_MAX_EXTENSIONS) {
			size_t previous = chain;
			look_alpha = sequential_extension_alpha(&plan, ++extensions);
			look = chain = sequential_extension_look(chain);
			/* Stopped short of the chain at --more's budget, the look must still be
			 * past the previous extension's size, or the next --more would take this
			 * one's alpha again: then the budget stretches to the chain. */
			if (c->planned_max <= previous)
				c->planned_max = look;
		} else {
			look = n;
		}
	} else if (n > bench->max_runs) {
		look = n;
	} else if (more && look <= n) {
		look = sequential_next_look(&plan, n + 1);
	} else if (n > bench->min_runs && n < look) {
		/*
		 * Between two planned looks: a time budget may have ended there with a look at
		 * the next one's alpha. Without --more the stored runs are judged first at that
		 * alpha (as a replay judges them), and only an undecided benchmark goes on, to
		 * the look after it; --more goes there at once.
		 */
		slot = look;
		if (!more) {
			look = n;
		} else if (slot < bench->max_runs) {
			look = sequential_next_look(&plan, slot + 1);
		} else {
			look_alpha = sequential_extension_alpha(&plan, ++extensions);
			look = chain = sequential_extension_look(bench->max_runs);
		}
	}
	c->out->extended_looks = extensions;
	if (more && look > c->planned_max)
		look = c->planned_max;
	while (!stop) {
		while (!stop && (bench_planned_ok(c, 0) < look || bench_planned_ok(c, 1) < look)) {
			/* Before the first new run, not before stored runs that need none more. */
			if (!warmed && (ret = run_warmups(c, &stop)))
				return ret;
			warmed = true;
			if (stop || budget_spent(c))
				break;
			ret = run_round(c, look, &stop);
			if (ret)
				return ret;
		}
		/* A look reads the stored runs: the one in flight first. */
		if ((ret = bench_run_drain(c, &stop)))
			return ret;
		if (stop)
			break;
		/* It failed: more runs before the look. */
		if ((c->out->ok_a < look || c->out->ok_b < look) && !budget_spent(c))
			continue;
		/* The budget ended short of the first look: no look (a look before MIN runs
		 * would be one more than the plan has, and a resume would take its alpha again
		 * at MIN). */
		if (c->out->ok_a < bench->min_runs || c->out->ok_b < bench->min_runs) {
			short_of_first = true;
			break;
		}
		c->timeout_ns = bench_run_timeout(c);
		ret = compare_evaluate_primaries(c, look_alpha, &decided);
		if (ret)
			return ret;
		if (c->out->error)
			break;
		n = c->out->ok_a < c->out->ok_b ? c->out->ok_a : c->out->ok_b;
		if (decided || budget_spent(c))
			break;
		if (n >= bench->max_runs || slot >= bench->max_runs) {
			/* Past the plan only while the time budget or --more allows (alpha
			 * spending). */
			if (!continues || extensions == SEQUENTIAL_MAX_EXTENSIONS || n >= 10000 ||
			    (more && n >= c->planned_max))
				break;
			if (chain < bench->max_runs) /* the plan's last look */
				chain = bench->max_runs;
			look_alpha = sequential_extension_alpha(&plan, ++extensions);
			look = chain = sequential_extension_look(chain);
			if (more && look > c->planned_max)
				look = c->planned_max;
			c->out->extended_looks = extensions;
			continue;
		}
		look = sequential_next_look(&plan, (n > slot ? n : slot) + 1);
		slot = 0;
	}
	if ((ret = bench_run_drain(c, &stop)))
		return ret;
	c->out->ci_alpha = look_alpha;
	c->out->decided = decided && !c->out->error;
	for (i = 0; i < c->out->nr_metrics; i++)
		if (!(c->out->metrics[i].def->flags & METRIC_COUNTED) &&
		    compare_evaluate_metric(c, &c->out->metrics[i], look_alpha))
			return RP_EINTERNAL;
	/* Interrupted or out of time short of the first look: no verdict (a replay shows
	 * none either). */
	n = c->out->ok_a < c->out->ok_b ? c->out->ok_a : c->out->ok_b;
	if (((stop && interrupt_requested()) || short_of_first) && !c->out->looks &&
	    n < bench->min_runs)
		compare_before_first_look(c, !short_of_first);
	if (compare_load_run_records(c))
		return RP_EINTERNAL;
	c->out->elapsed_s = bench_seconds_since(&c->started);
	return 0;
}

/* One benchmark's sampling loop, recorded as the next outcome of out. */
static bool has_counted(const struct bench_outcome *b)
{
	for (size_t i = 0; i < b->nr_metrics; i++)
		if (b->metrics[i].def->flags & METRIC_COUNTED)
			return true;
	return false;
}

/* What a replay says of a setting the configuration changed since the comparison. */
static const char *replay_changed_tail(bool as_judged)
{
	return as_judged ? "shown as it was judged"
			 : "judged again with the configuration's, from the same runs";
}

/* A tolerance the comparison recorded (NaN: none) that differs from *tolerance: said, and
 * with as_judged taken. */
static void replay_tolerance(const char *bench, int64_t comparison_id, const char *key,
			     double stored, double *tolerance, bool as_judged, bool say)
{
	if (!isfinite(stored) || stored == *tolerance)
		return;
	if (say)
		warning("%s: comparison %lld judged it with %s %g%%; the configuration now says "
			"%g%%: %s",
			bench, (long long)comparison_id, key, 100 * stored, 100 * *tolerance,
			replay_changed_tail(as_judged));
	if (as_judged)
		*tolerance = stored;
}

/* The first name of the metrics list that neither revperf nor bench defines, or NULL. */
static char *list_unknown(const char *list, const struct bench_config *bench)
{
	size_t n, i;
	const struct metric_def **extra = bench_runtime_defs(bench, &n);
	char *copy = xstrdup(list), *save = NULL, *unknown = NULL;
	for (char *name = strtok_r(copy, ", \t", &save); name && !unknown;
	     name = strtok_r(NULL, ", \t", &save)) {
		if (!strcmp(name, "all") || metric_find(name))
			continue;
		for (i = 0; i < n && strcmp(extra[i]->name, name); i++)
			;
		if (i == n)
			unknown = xstrdup(name);
	}
	free(copy);
	free(extra);
	return unknown;
}

/* The same for a list (NULL: none recorded), which is taken only when bench defines all
 * its metrics (a metric.NAME may have gone from the configuration since). */
static void replay_list(const struct bench_config *bench, int64_t comparison_id, const char *key,
			char *stored, char **list, bool as_judged, bool say)
{
	char *unknown;
	if (!stored || (*list && !strcmp(stored, *list)))
		return;
	/* said also when the configuration is the comparison's own: it is judged otherwise */
	if (as_judged && (unknown = list_unknown(stored, bench))) {
		warning("%s: comparison %lld judged it with %s = %s; the configuration now says %s "
			"and no longer defines %s: judged with the configuration's",
			bench->name, (long long)comparison_id, key, stored, *list ? *list : "(none)",
			unknown);
		free(unknown);
		return;
	}
	if (say) {
		const char *by = config_said_by(key[0] == 'm' ? bench->metrics_origin
							    : bench->primary_origin);
		warning("%s: comparison %lld judged it with %s = %s; %s now says %s: %s",
			bench->name, (long long)comparison_id, key, stored, by,
			*list ? *list : "(none)",
			as_judged || by[0] != '-'
			    ? replay_changed_tail(as_judged)
			    : "judged again with the one asked, from the same runs");
	}
	if (as_judged)
		*list = stored;
}

/*
 * A replay and what its comparison recorded with its plan (schema 12) of how it judged:
 * the tolerances and the metrics and primary lists. revperf show (replay_as_judged) judges
 * with them: *judged is bench with them (its lists in *plan: release it after); compare
 * BASE TARGET, showing a finished comparison in place, judges with the configuration's.
 * Either way a warning names each that the configuration changed. 0 or RP_EINTERNAL.
 */
static int replay_judged_as(const struct compare_request *req, const struct bench_config *bench,
			    struct bench_config *judged, struct store_plan *plan)
{
	struct strbuf ident = STRBUF_INIT;
	bool as = req->replay_as_judged, say = !req->replay_own_config;
	int64_t id = 0, cid = req->replay->id;
	int ret;
	*judged = *bench;
	memset(plan, 0, sizeof(*plan));
	run_output_identity(&ident, bench);
	ret = store_benchmark_find(req->st, bench->name, ident.buf, &id);
	strbuf_release(&ident);
	if (!ret)
		ret = store_plan_read(req->st, cid, id, plan);
	if (ret)
		return ret < 0 ? RP_EINTERNAL : 0; /* not stored, or no plan: as configured */
	replay_tolerance(bench->name, cid, "tolerance", plan->tolerance, &judged->tolerance, as,
			 say);
	replay_tolerance(bench->name, cid, "count-tolerance", plan->count_tolerance,
			 &judged->count_tolerance, as, say);
	replay_list(bench, cid, "metrics", plan->metrics, &judged->metrics, as, say);
	replay_list(bench, cid, "primary", plan->primary, &judged->primary, as, say);
	/* The looks it planned: their alpha per look is what its verdicts were decided at. (In
	 * place, a finished comparison planned otherwise is measured anew, not shown.) */
	if (as && plan->min_runs && plan->max_runs &&
	    (plan->min_runs != bench->min_runs || plan->max_runs != bench->max_runs)) {
		if (say)
			warning("%s: comparison %lld planned runs %zu..%zu; the configuration now "
				"says %zu..%zu: %s",
				bench->name, (long long)cid, plan->min_runs, plan->max_runs,
				bench->min_runs, bench->max_runs, replay_changed_tail(as));
		judged->min_runs = plan->min_runs;
		judged->max_runs = plan->max_runs;
	}
	return 0;
}

int compare_one(const struct compare_request *req, const struct bench_config *bench,
		       struct compare_result *out, size_t *alloc, int64_t machine_id, struct rng *rng)
{
	struct bench_ctx c = { 0 };
	struct bench_config judged;
	struct store_plan plan = {0};
	struct bench_outcome *b;
	int ret;
	if (req->replay) {
		if (replay_judged_as(req, bench, &judged, &plan)) {
			store_plan_release(&plan);
			return RP_EINTERNAL;
		}
		bench = &judged;
	}
	ALLOC_GROW(out->benches, out->nr_benches + 1, *alloc);
	b = &out->benches[out->nr_benches++];
	memset(b, 0, sizeof(*b));
	b->name = xstrdup(bench->name);
	b->command[0] = xstrdup(req->a.command ? req->a.command : bench->command);
	b->command[1] = xstrdup(req->b.command ? req->b.command : bench->command);
	c.req = req;
	c.bench = bench;
	c.out = b;
	c.machine_id = machine_id;
	c.comparison_id = out->comparison_id;
	c.rng = rng;
	c.alpha = out->alpha;
	c.loadavg_fd = machine_loadavg_open();
	ret = compare_bench(req, bench, &c);
	/* Stopped before its end (an interrupt, an error): the time it ran all the same. */
	if (!b->elapsed_s && (c.started.tv_sec || c.started.tv_nsec))
		b->elapsed_s = bench_seconds_since(&c.started);
	/* After an error or an interrupt, a run may still be in flight: it is not stored. */
	bench_run_abandon(&c);
	if (!ret)
		compare_same_code(req, bench, b);
	if (!ret) /* what the reported metrics read, for the report */
		ret = run_output_first_lines(req->st, c.filter, bench, &b->reported, &b->nr_reported);
	if (req->replay) { /* nothing more is run: counted verdicts from the stored runs */
		if (!ret && !b->error && has_counted(b) &&
		    !(ret = compare_counted(req, bench, b->benchmark_id, machine_id,
					    out->comparison_id, c.timeout_ns, NULL, b->metrics,
					    b->nr_metrics, b->renamed, b->nr_renamed, &b->counted)) &&
		    !strcmp(req->replay->status, "done"))
			counted_only_failed(&c, b); /* as compare said, when it finished */
		goto out;
	}
	/* Profiles after the verdict's runs, never among them: they do not disturb it. */
	if (!ret && !b->error && (bench->profiles & PROFILE_CCT) && !interrupt_requested()) {
		compare_progress_phase(req, COMPARE_PROFILING, b->name, bench->profile_runs);
		ret = compare_profile_cct(req, bench, b->benchmark_id, machine_id,
					  out->comparison_id, &b->cct);
	}
	if (!ret && !b->error && (bench->profiles & PROFILE_SAMPLE) && !interrupt_requested()) {
		compare_progress_phase(req, COMPARE_PROFILING, b->name, bench->profile_runs);
		ret = compare_profile_sample(req, bench, b->benchmark_id, machine_id,
					     out->comparison_id, &b->cct);
	}
	if (!ret && !b->error && has_counted(b) && !interrupt_requested()) {
		compare_progress_phase(req, COMPARE_COUNTING, b->name, bench->min_count_runs);
		struct counted_probe probe = {counted_timeout_probe, &c};
		ret = compare_counted(req, bench, b->benchmark_id, machine_id, out->comparison_id,
				      c.timeout_ns, c.want_probe ? &probe : NULL, b->metrics,
				      b->nr_metrics, b->renamed, b->nr_renamed, &b->counted);
		if (!ret)
			counted_only_failed(&c, b);
	}
	if (!ret && !b->error && (bench->profiles & PROFILE_COUNTERS) && !interrupt_requested())
		ret = compare_counters(req, bench, c.filter, out->comparison_id, &b->counters);
	if (!ret && !b->error && (bench->profiles & PROFILE_IO) && !interrupt_requested()) {
		compare_progress_phase(req, COMPARE_TRACING, b->name, bench->profile_runs);
		ret = compare_profile_io(req, bench, b->benchmark_id, machine_id,
					 out->comparison_id, &b->io);
	}
out:
	if (c.affinity.valid) { /* the next benchmark starts unpinned unless it pins */
		proc_spawner_stop();
		cpu_pin_restore(&c.affinity);
	}
	free(c.defs);
	free(c.log_prefix);
	if (c.loadavg_fd >= 0)
		close(c.loadavg_fd);
	compare_progress_phase(req, COMPARE_BENCH_DONE, b->name, 0);
	if (ret == RP_EINTERRUPT || interrupt_requested())
		b->interrupted = true;
	if (b->interrupted && b->counted_only)
		b->decided = false; /* its counted runs were its budget */
	for (size_t i = 0; b->interrupted && i < b->nr_metrics; i++)
		/* a counted primary without its runs: the timed ones alone do not decide */
		if (b->metrics[i].primary && (b->metrics[i].def->flags & METRIC_COUNTED) &&
		    !b->metrics[i].measured)
			b->decided = false;
	if (b->interrupted)
		for (size_t i = 0; i < b->nr_metrics; i++)
			if (!b->metrics[i].measured && !b->metrics[i].unmeasured)
				b->metrics[i].unmeasured = "interrupted before a verdict";
	if (ret && ret != RP_EINTERRUPT && !interrupt_requested()) {
		/* Its verdicts were never computed: say so rather than show empty rows. */
		free(b->error);
		b->error = xstrdup("not completed: see the error above");
		for (size_t i = 0; i < b->nr_metrics; i++)
			metric_outcome_release_values(&b->metrics[i]);
		b->nr_metrics = 0;
	}
	store_plan_release(&plan); /* judged's lists */
	return ret;
}

/*
 * What the runs will need, before any runs: the spawner, and the CCT runtime when a
 * benchmark is profiled (a partial installation is found before minutes of timing runs).
 */
static int compare_helpers_check(const struct config *cfg)
{
	struct strbuf rt = STRBUF_INIT;
	int ret = proc_spawner_check();
	for (size_t i = 0; !ret && i < cfg->nr_benches; i++)
		if (cfg->benches[i].profiles & PROFILE_CCT) {
			ret = cct_runtime_path(&rt);
			break;
		}
	strbuf_release(&rt);
	return ret;
}

int compare_execute(const struct compare_request *req, struct compare_result *out)
{
	struct store_comparison comp = { 0 };
	struct rng rng;
	int64_t machine_id;
	size_t i, alloc = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (req->replay)
		return compare_replay(req, out);
	if ((ret = compare_helpers_check(req->cfg)))
		return ret;
	out->base_label = xstrdup(req->a.label);
	out->target_label = xstrdup(req->b.label);
	if (req->a.sha)
		snprintf(out->base_sha, sizeof(out->base_sha), "%s", req->a.sha);
	if (req->b.sha)
		snprintf(out->target_sha, sizeof(out->target_sha), "%s", req->b.sha);
	out->seed = req->cfg->seed_set ? req->cfg->seed : rng_fresh_seed();
	out->alpha = req->cfg->alpha;
	out->same_build = req->same_build;
	/* Command mode records new builds each time: nothing to continue from. */
	out->resumable = req->a.sha && req->b.sha;
	rng_seed(&rng, out->seed);
	machine_info_read(&out->machine);
	if (store_machine(req->st, &out->machine, &machine_id))
		return RP_EINTERNAL;
	comp.base_build = req->a.build_id;
	comp.target_build = req->b.build_id;
	comp.base_label = req->a.label;
	comp.target_label = req->b.label;
	comp.seed = out->seed;
	comp.alpha = out->alpha;
	comp.machine_id = machine_id;
	if (store_comparison_new(req->st, &comp))
		return RP_EINTERNAL;
	out->comparison_id = comp.id;
	for (i = 0; i < req->cfg->nr_benches && !ret; i++) {
		const struct bench_config *bench = &req->cfg->benches[i];
		if (bench->format == BENCH_GBENCH) {
			struct import_set cases;
			memset(&cases, 0, sizeof(cases));
			ret = gbench_discover(req, bench, comp.id, &cases);
			for (size_t k = 0; !ret && k < cases.nr_benches; k++) {
				struct bench_config cb;
				gbench_case_init(&cb, bench, &cases.benches[k], out);
				ret = compare_one(req, &cb, out, &alloc, machine_id, &rng);
				gbench_case_release(&cb);
			}
			import_set_release(&cases);
		} else {
			ret = compare_one(req, bench, out, &alloc, machine_id, &rng);
		}
		if (ret == RP_EINTERRUPT || interrupt_requested()) {
			out->interrupted = true;
			out->interrupt_signal = interrupt_signal();
			ret = 0;
			break;
		}
	}
	compare_adjust_p_values(out);
	if (!ret && compare_save_verdicts(req, out))
		ret = RP_EINTERNAL;
	if (store_comparison_finish(req->st, comp.id,
				    out->interrupted ? "interrupted" : ret ? "failed" : "done"))
		ret = ret ? ret : RP_EINTERNAL;
	return ret;
}

