#include "history/history.h"
#include "history/min_change.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "analysis/stats.h"
#include "collect/machine.h"
#include "collect/proc.h"
#include "core/metric.h"
#include "util/common.h"

const char *history_status_name(enum history_status s)
{
	switch (s) {
	case HISTORY_COMPARED: return "compared";
	case HISTORY_REUSED: return "reused";
	case HISTORY_BUILD_FAILED: return "build-failed";
	case HISTORY_NO_BASE: return "no-base";
	case HISTORY_ROOT: return "root";
	case HISTORY_NOTHING_SELECTED: return "nothing-selected";
	case HISTORY_FAILED: return "failed";
	case HISTORY_INTERRUPTED: return "interrupted";
	case HISTORY_PENDING: return "pending";
	}
	return "?";
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The stored build of sha with the configured build command: 0 found (*b), 1 not, <0. */
static int find_build(struct store *st, const struct config *cfg, const struct revision *rev,
		      struct store_build *b)
{
	int64_t rev_id;
	if (store_revision(st, rev->sha, rev->summary, rev->commit_time, &rev_id))
		return RP_EINTERNAL;
	return store_build_find(st, rev_id, cfg->build_command ? cfg->build_command : "", NULL, b);
}

/* The configured benchmark a stored verdict belongs to (a suite's test: the suite). */
static const struct bench_config *verdict_bench(const struct config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nr_benches; i++) {
		const char *b = cfg->benches[i].name;
		size_t len = strlen(b);
		if (!strcmp(name, b) ||
		    (cfg->benches[i].tests && !strncmp(name, b, len) && name[len] == '/'))
			return &cfg->benches[i];
	}
	return NULL;
}

/*
 * Whether stored comparison id, of verdicts v, answers for the commit as cfg asks now: no
 * primary verdict undecided (more runs may decide it), every configured benchmark (a test
 * suite: any of its tests) has a verdict, and each answers what cfg asks of it as compare
 * takes a finished comparison (revcompare_stored_answers(): its metrics, a final verdict
 * for its primary; planned with the same runs and alpha). With --select, the comparison
 * covers what the commit needed. 1 it does, 0 not, <0 a store failure.
 */
static int covers(struct store *st, const struct config *cfg, int64_t id,
		  const struct store_verdict *v, size_t n, bool selecting)
{
	for (size_t k = 0; k < n; k++) {
		const struct bench_config *b = verdict_bench(cfg, v[k].bench);
		/* undecided after its whole run budget: finished too (compare --more goes on) */
		if (v[k].primary && !strcmp(v[k].verdict, "undecided") &&
		    (!b || v[k].n_a < b->max_runs || v[k].n_b < b->max_runs))
			return 0;
	}
	for (size_t i = 0; i < cfg->nr_benches; i++) {
		const struct bench_config *b = &cfg->benches[i];
		size_t len = strlen(b->name);
		bool found = false;
		int differs;
		for (size_t k = 0; k < n && !found; k++)
			found = !strcmp(v[k].bench, b->name) ||
				(b->tests && !strncmp(v[k].bench, b->name, len) &&
				 v[k].bench[len] == '/');
		if (!found && !selecting)
			return 0;
		/* a suite is judged per test, under the tests' names */
		if (!found || b->tests)
			continue;
		if (!revcompare_stored_answers(v, n, b))
			return 0;
		differs = store_comparison_plan_differs(st, id, b->name, b->min_runs, b->max_runs,
							cfg->alpha);
		if (differs)
			return differs < 0 ? differs : 0;
	}
	return 1;
}

/* Whether list (metrics or primary) names metric, "all" as metric_parse_list() expands it:
 * every metric but the counted ones. */
static bool list_names(const char *list, const char *metric)
{
	const struct metric_def *def = metric_find(metric);
	const char *p = list ? list : "";
	while (*p) {
		size_t len;
		p += strspn(p, ", \t");
		len = strcspn(p, ", \t");
		if (!len)
			break;
		if (len == strlen(metric) && !strncmp(p, metric, len))
			return true;
		if (len == 3 && !strncmp(p, "all", 3) && def && !(def->flags & METRIC_COUNTED) &&
		    strcmp(metric, "iteration"))
			return true;
		p += len;
	}
	return false;
}

/*
 * The verdicts of commit c that cfg asks for now: of a configured benchmark, and of a
 * metric its metrics or primary list names (a metric the benchmark defines, metric.NAME,
 * is always asked). A stored comparison reused for more metrics than asked (compare -m
 * wall,cpu,ir, then history -m ir) has verdicts for the others too; compare shows such a
 * comparison with the metrics asked (judged again), and history showed them all: their
 * rows in JSON and a change-point line per metric never asked for.
 */
static void asked_only(const struct config *cfg, struct history_commit *c)
{
	size_t kept = 0;
	for (size_t k = 0; k < c->nr_verdicts; k++) {
		struct store_verdict *v = &c->verdicts[k];
		const struct bench_config *b = verdict_bench(cfg, v->bench);
		bool asked = b && (!metric_find(v->metric) || list_names(b->metrics, v->metric) ||
				   list_names(b->primary, v->metric));
		if (asked) {
			c->verdicts[kept++] = *v;
			continue;
		}
		free(v->bench);
		free(v->metric);
		free(v->command);
	}
	c->nr_verdicts = kept;
}

/*
 * The verdicts of commit c flagged primary as cfg asks now. A stored comparison judged on
 * another primary whose verdicts answer this one (covers()) is shown with the one asked,
 * as compare shows a finished comparison in place (judged again with the configuration's,
 * from the same runs); with say, a warning per benchmark so shown names the comparison,
 * what it judged on and what is asked now.
 */
static void primary_as_asked(const struct config *cfg, struct history_commit *c, bool say)
{
	for (size_t i = 0; i < cfg->nr_benches; i++) {
		const struct bench_config *b = &cfg->benches[i];
		struct strbuf judged = STRBUF_INIT;
		bool differs = false;
		for (size_t k = 0; k < c->nr_verdicts; k++) {
			struct store_verdict *v = &c->verdicts[k];
			bool asked = list_names(b->primary, v->metric);
			if (verdict_bench(cfg, v->bench) != b)
				continue;
			if (v->primary && !list_names(judged.buf, v->metric))
				strbuf_addf(&judged, "%s%s", judged.len ? ", " : "", v->metric);
			differs |= asked != v->primary;
			v->primary = asked;
		}
		if (differs && say)
			warning("%.12s: %s: comparison %lld judged it with primary = %s; %s now "
				"says %s: shown with the one asked, from the same verdicts",
				c->rev.sha, b->name, (long long)c->comparison_id,
				judged.len ? judged.buf : "(none)",
				config_said_by(b->primary_origin),
				b->primary ? b->primary : "(none)");
		strbuf_release(&judged);
	}
}

/*
 * A finished comparison of (base, commit) stored earlier on this machine: fills the commit's verdicts and
 * returns 0, 1 when there is none, <0 on a store failure.
 */
static int stored_comparison(const struct history_request *req, const struct config *cfg,
			     const struct revision *base, int64_t machine_id,
			     struct history_commit *c)
{
	struct store_build b[2];
	int64_t id;
	int found, ret = 1;

	memset(b, 0, sizeof(b));
	if ((found = find_build(req->ctx.st, cfg, base, &b[0])) ||
	    (found = find_build(req->ctx.st, cfg, &c->rev, &b[1])))
		goto out;
	found = store_comparison_latest(req->ctx.st, b[0].id, b[1].id, "done", machine_id, &id);
	if (found)
		goto out;
	if ((ret = store_comparison_verdicts(req->ctx.st, id, &c->verdicts, &c->nr_verdicts)))
		goto out;
	ret = c->nr_verdicts
		  ? covers(req->ctx.st, cfg, id, c->verdicts, c->nr_verdicts, req->ctx.select)
		  : 0;
	if (ret <= 0) {
		store_verdicts_free(c->verdicts, c->nr_verdicts);
		c->verdicts = NULL;
		c->nr_verdicts = 0;
		ret = ret < 0 ? ret : 1;
		goto out;
	}
	c->comparison_id = id;
	c->build_id = b[1].id;
	primary_as_asked(cfg, c, true); /* says what the stored primary was: before */
	asked_only(cfg, c);
	ret = 0;
out:
	store_build_release(&b[0]);
	store_build_release(&b[1]);
	return found < 0 ? found : ret;
}

static void progress_line(const struct history_request *req, const struct history_result *res,
			  size_t k)
{
	const struct history_commit *c = &res->commits[k];
	if (!req->progress)
		return;
	fprintf_printable(req->progress, "revperf: [%zu/%zu] %.12s %s: %s", k + 1, res->nr_commits,
			  c->rev.sha, c->rev.summary, history_status_name(c->status));
	if (*c->base)
		fprintf_printable(req->progress, " against %.12s", c->base);
	for (size_t i = 0; i < c->nr_verdicts; i++)
		if (c->verdicts[i].primary)
			fprintf_printable(req->progress, "; %s %s %s x%.3f", c->verdicts[i].bench,
					  c->verdicts[i].metric, c->verdicts[i].verdict,
					  c->verdicts[i].ratio);
	if (c->selected != c->configured)
		fprintf_printable(req->progress, " (--select: %zu of %zu benchmarks)", c->selected,
				  c->configured);
	fprintf_printable(req->progress, " (%.1f s)\n", c->elapsed_s);
}

/* Compares commit k with base; fills its entry. Returns 0 or RP_EINTERNAL. */
static int measure(const struct history_request *req, struct history_result *res, size_t k,
		   const char *base)
{
	struct history_commit *c = &res->commits[k];
	struct revcompare rc;
	int err = revcompare_run(&req->ctx, base, c->rev.sha, &rc);

	snprintf(c->base, sizeof(c->base), "%s", rc.revs[0].sha[0] ? rc.revs[0].sha : base);
	c->build_id = rc.builds[1].id;
	c->selected = rc.selected;
	c->configured = rc.configured;
	if (err == RP_EINTERRUPT || (rc.executed && rc.res.interrupted)) {
		c->status = HISTORY_INTERRUPTED;
		res->interrupted = true;
		err = 0;
	} else if (rc.failed_build == 1) {
		c->status = HISTORY_BUILD_FAILED;
		err = 0;
	} else if (rc.failed_build == 0) {
		c->status = HISTORY_NO_BASE;
		err = 0;
	} else if (err == RP_EINTERNAL) {
		c->status = HISTORY_FAILED;
	} else if (err) {
		c->status = HISTORY_FAILED;
		err = 0;
	} else if (!rc.executed) {
		c->status = HISTORY_NOTHING_SELECTED;
	} else {
		c->status = HISTORY_COMPARED;
		c->comparison_id = rc.res.comparison_id;
		err = store_comparison_verdicts(req->ctx.st, c->comparison_id, &c->verdicts,
						&c->nr_verdicts);
		/* shown from the store in place: compare said what it judges again */
		if (!err && rc.replayed)
			primary_as_asked(&rc.cfg, c, false);
	}
	revcompare_release(&rc);
	return err;
}

/* 1 when the build of rev with the configured command is stored as failed, else 0 or <0. */
static int known_failed(const struct history_request *req, const struct config *cfg,
			const struct revision *rev)
{
	struct store_build b;
	int found = find_build(req->ctx.st, cfg, rev, &b);
	if (found)
		return found < 0 ? found : 0;
	found = !strcmp(b.status, "failed");
	store_build_release(&b);
	return found;
}

/*
 * Commit k against its first parent or, when that does not build, the nearest first-parent
 * ancestor that does (at most HISTORY_MAX_BASE_HOPS back). A build stored as failed is not
 * tried again (unless --fresh). Returns 0 (the outcome in the commit's entry) or an error.
 */
static int one_commit(const struct history_request *req, struct history_result *res,
		      const struct config *cfg, size_t k)
{
	struct history_commit *c = &res->commits[k];
	char base[41];
	int err;

	if (!*c->rev.parent) {
		c->status = HISTORY_ROOT;
		return 0;
	}
	if (!req->ctx.fresh && (err = known_failed(req, cfg, &c->rev))) {
		if (err < 0)
			return err;
		c->status = HISTORY_BUILD_FAILED;
		return 0;
	}
	snprintf(base, sizeof(base), "%s", c->rev.parent);
	c->status = HISTORY_NO_BASE;
	for (size_t hops = 0; *base && hops < HISTORY_MAX_BASE_HOPS; hops++) {
		struct revision b;
		int found = 1;
		if (repo_resolve(req->ctx.repo, base, &b)) {
			c->status = HISTORY_FAILED;
			return 0;
		}
		if (!req->ctx.fresh && (found = known_failed(req, cfg, &b)) == 1) {
			snprintf(base, sizeof(base), "%s", b.parent);
			revision_release(&b);
			continue;
		}
		if (found >= 0 && !req->ctx.fresh)
			found = stored_comparison(req, cfg, &b, res->machine_id, c);
		revision_release(&b);
		if (found < 0)
			return found;
		if (!found) {
			c->status = HISTORY_REUSED;
			snprintf(c->base, sizeof(c->base), "%s", base);
			return 0;
		}
		if ((err = measure(req, res, k, base)))
			return err;
		if (c->status != HISTORY_NO_BASE)
			return 0;
		/* the base did not build: try its parent */
		if (repo_resolve(req->ctx.repo, base, &b))
			return 0;
		snprintf(base, sizeof(base), "%s", b.parent);
		revision_release(&b);
	}
	return 0;
}

int history_run(const struct history_request *req, struct history_result *res)
{
	struct config cfg;
	struct machine_info m;
	struct revision *revs = NULL;
	size_t nr = 0, k;
	double t0 = now_s();
	int err;

	memset(res, 0, sizeof(*res));
	config_init(&cfg);
	res->range = xstrdup(req->range);
	res->first_parent = req->first_parent;
	if ((err = req->ctx.load_config(&cfg, req->ctx.config_arg)) ||
	    (err =
		 repo_range(req->ctx.repo, req->range, req->first_parent, req->limit, &revs, &nr)))
		goto out;
	if (!nr) {
		error("the range '%s' has no commits; give A..B with B a descendant of A, or "
		      "one revision",
		      req->range);
		err = RP_EINPUT;
		goto out;
	}
	machine_info_read(&m);
	if ((err = store_machine(req->ctx.st, &m, &res->machine_id)))
		goto out;
	res->commits = xcalloc(nr, sizeof(*res->commits));
	res->nr_commits = nr;
	for (k = 0; k < nr; k++) {
		res->commits[k].rev = revs[k];
		res->commits[k].status = HISTORY_PENDING;
	}
	free(revs);
	revs = NULL;

	for (k = 0; k < nr && !res->interrupted; k++) {
		double t = now_s();
		if (interrupt_requested()) {
			res->interrupted = true;
			break;
		}
		if ((err = one_commit(req, res, &cfg, k)))
			goto out;
		res->commits[k].elapsed_s = now_s() - t;
		progress_line(req, res, k);
	}
	err = history_series_compute(req->ctx.st, res, req->min_segment, &cfg);
out:
	res->elapsed_s = now_s() - t0;
	revisions_free(revs, nr);
	config_release(&cfg);
	return err;
}

static struct history_series *series_of(struct history_result *res, const char *bench,
					const char *metric, size_t *alloc)
{
	struct history_series *s;
	for (size_t i = 0; i < res->nr_series; i++)
		if (!strcmp(res->series[i].bench, bench) && !strcmp(res->series[i].metric, metric))
			return &res->series[i];
	ALLOC_GROW(res->series, res->nr_series + 1, *alloc);
	s = &res->series[res->nr_series++];
	memset(s, 0, sizeof(*s));
	s->bench = xstrdup(bench);
	s->metric = xstrdup(metric);
	return s;
}

int history_series_compute(struct store *st, struct history_result *res, size_t min_segment,
			   struct config *cfg)
{
	size_t alloc = 0, k, i;
	for (k = 0; k < res->nr_commits; k++) {
		const struct history_commit *c = &res->commits[k];
		for (i = 0; i < c->nr_verdicts && c->build_id; i++) {
			const struct store_verdict *v = &c->verdicts[i];
			struct history_series *s = series_of(res, v->bench, v->metric, &alloc);
			double *x = NULL;
			size_t n = 0;
			/* of the command the verdict judged: a build measured with two commands
			 * of one benchmark name has two programs' values (zlib trial) */
			if (store_build_metric_values(st, c->build_id, res->machine_id, v->bench,
						      v->command, v->metric, &x, &n))
				return RP_EINTERNAL;
			if (n) {
				s->commit = xrealloc(s->commit, (s->n + 1) * sizeof(*s->commit));
				s->median = xrealloc(s->median, (s->n + 1) * sizeof(*s->median));
				s->commit[s->n] = k;
				s->median[s->n++] = stats_percentile(x, n, 50);
			}
			free(x);
		}
	}
	for (i = 0; i < res->nr_series; i++) {
		struct history_series *s = &res->series[i];
		struct changepoint_opts o;
		changepoint_opts_init(&o);
		if (min_segment)
			o.min_size = min_segment;
		o.name = s->metric;
		o.min_rel_change = s->min_change = history_min_change(cfg, s->bench, s->metric);
		/* the interval of each shift at the verdicts' confidence (--alpha) */
		if (cfg)
			o.ci_alpha = cfg->alpha;
		s->ci_alpha = o.ci_alpha;
		s->cp_failed = changepoint_detect(s->median, s->n, &o, &s->cp) != 0;
	}
	return 0;
}

void history_result_release(struct history_result *res)
{
	size_t i;
	if (!res)
		return;
	for (i = 0; i < res->nr_commits; i++) {
		revision_release(&res->commits[i].rev);
		store_verdicts_free(res->commits[i].verdicts, res->commits[i].nr_verdicts);
	}
	free(res->commits);
	for (i = 0; i < res->nr_series; i++) {
		free(res->series[i].bench);
		free(res->series[i].metric);
		free(res->series[i].commit);
		free(res->series[i].median);
		changepoint_result_release(&res->series[i].cp);
	}
	free(res->series);
	free(res->range);
	memset(res, 0, sizeof(*res));
}
