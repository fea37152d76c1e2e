#include "history/bisect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collect/proc.h"
#include "util/common.h"

/* Shown changed as searched for (git bisect's "new"): worse, or better with req->better. A
 * target that breaks is worse, and no improvement. */
static bool is_new(const struct bisect_request *req, const struct bisect_step *s)
{
	if (req->better)
		return !strcmp(s->verdict, "better");
	return !strcmp(s->verdict, "worse") || !strcmp(s->verdict, "broken");
}

/*
 * Not shown changed (git bisect's "old"): equal, the other direction, or still undecided
 * after the escalations (the culprit is the first commit shown changed; the report says
 * which steps were undecided).
 */
static bool is_old(const struct bisect_request *req, const struct bisect_step *s)
{
	return !strcmp(s->verdict, "equal") || !strcmp(s->verdict, "undecided") ||
	       !strcmp(s->verdict, req->better ? "worse" : "better");
}

/* The outcome of req->bench and its metric in a comparison, into *s. */
static int read_outcome(const struct bisect_request *req, const struct revcompare *rc,
			struct bisect_step *s, char metric[64])
{
	for (size_t i = 0; i < rc->res.nr_benches; i++) {
		const struct bench_outcome *b = &rc->res.benches[i];
		if (strcmp(b->name, req->bench))
			continue;
		if (b->target_broken) {
			snprintf(s->verdict, sizeof(s->verdict), "broken");
			return 0;
		}
		if (b->error) {
			snprintf(s->verdict, sizeof(s->verdict), "failed");
			return 0;
		}
		for (size_t k = 0; k < b->nr_metrics; k++) {
			const struct metric_outcome *m = &b->metrics[k];
			if (req->metric ? strcmp(m->def->name, req->metric) : !m->primary)
				continue;
			snprintf(metric, 64, "%s", m->def->name);
			snprintf(s->verdict, sizeof(s->verdict), "%s",
				 m->measured ? verdict_name(m->r.verdict) : "undecided");
			s->ratio = m->r.ratio;
			s->ci_lo = m->r.ci_lo;
			s->ci_hi = m->r.ci_hi;
			s->n_a = m->r.n_a;
			s->n_b = m->r.n_b;
			return 0;
		}
		error("benchmark '%s' has no metric '%s'; name one of its metrics with --metric "
		      "and list it in `metrics`",
		      req->bench, req->metric ? req->metric : "(primary)");
		return RP_EINPUT;
	}
	error("benchmark '%s' was not compared; check its name in revperf.ini", req->bench);
	return RP_EINPUT;
}

/* A step is decided: told once, whatever its escalations were. */
static void decided(const struct bisect_request *req, const struct bisect_result *res,
		    const char *what, const struct revision *rev, const struct bisect_step *s)
{
	if (req->on_step)
		req->on_step(req->on_step_arg, res, what, rev, s);
}

/*
 * Compares base with target, with more runs while undecided. Returns 0 (s filled; a
 * target that does not build is the verdict "build-failed"), RP_EINTERRUPT, or an error
 * (the base does not build: RP_EBUILD).
 */
static int step(const struct bisect_request *req, struct bisect_result *res, const char *base,
		const struct revision *target, struct bisect_step *s)
{
	int err = 0;
	for (size_t esc = 0; esc <= BISECT_MAX_ESCALATIONS; esc++) {
		struct revcompare rc;
		*req->budget_factor = (size_t)1 << esc;
		memset(s, 0, sizeof(*s));
		s->ratio = s->ci_lo = s->ci_hi = NAN;
		err = revcompare_run(&req->ctx, base, target->sha, &rc);
		for (size_t i = 0; i < rc.cfg.nr_benches; i++)
			if (!strcmp(rc.cfg.benches[i].name, req->bench))
				s->budget = rc.cfg.benches[i].max_runs;
		s->comparison_id = rc.res.comparison_id;
		if (err == RP_EINTERRUPT || (rc.executed && rc.res.interrupted)) {
			err = RP_EINTERRUPT;
		} else if (rc.failed_build == 1) {
			snprintf(s->verdict, sizeof(s->verdict), "build-failed");
			err = 0;
		} else if (!err && rc.executed) {
			err = read_outcome(req, &rc, s, res->metric);
		} else if (!err) {
			error("benchmark '%s' was not compared", req->bench);
			err = RP_EINPUT;
		}
		revcompare_release(&rc);
		if (err)
			return err;
		if (strcmp(s->verdict, "undecided"))
			break;
	}
	return 0;
}

/* The candidate nearest the middle of (lo, hi) that was not skipped; -1 when none. */
static long pick(long lo, long hi, const bool *skipped)
{
	long mid = lo + (hi - lo) / 2;
	for (long d = 0; d < hi - lo; d++) {
		if (mid + d < hi && !skipped[mid + d])
			return mid + d;
		if (d && mid - d > lo && !skipped[mid - d])
			return mid - d;
	}
	return -1;
}

static void add_step(struct bisect_result *res, const struct bisect_step *s, size_t *alloc)
{
	ALLOC_GROW(res->steps, res->nr_steps + 1, *alloc);
	res->steps[res->nr_steps++] = *s;
}

static int search(const struct bisect_request *req, struct bisect_result *res)
{
	bool *skipped = xcalloc(res->nr_path, sizeof(*skipped));
	long lo = -1, hi = (long)res->nr_path - 1, cand;
	size_t alloc = 0;
	int err = 0;

	while (hi - lo > 1) {
		struct bisect_step s;
		if ((cand = pick(lo, hi, skipped)) < 0) {
			res->outcome = BISECT_AMBIGUOUS;
			res->first_possible = (size_t)(lo + 1);
			res->culprit = (size_t)hi;
			goto out;
		}
		if ((err = step(req, res, res->good.sha, &res->path[cand], &s)))
			goto out;
		s.index = (size_t)cand;
		add_step(res, &s, &alloc);
		decided(req, res, "GOOD against", &res->path[cand], &res->steps[res->nr_steps - 1]);
		if (is_new(req, &s))
			hi = cand;
		else if (is_old(req, &s))
			lo = cand;
		else
			skipped[cand] = true;
	}
	res->outcome = BISECT_FOUND;
	res->culprit = (size_t)hi;
	/* The evidence: the culprit against its own parent, and the parent's step. */
	err = step(req, res, hi ? res->path[hi - 1].sha : res->good.sha, &res->path[hi],
		   &res->culprit_vs_parent);
	res->culprit_vs_parent.index = (size_t)hi;
	for (size_t i = 0; lo >= 0 && i < res->nr_steps; i++)
		if (res->steps[i].index == (size_t)lo) {
			res->parent_vs_good = res->steps[i];
			res->have_parent_vs_good = true;
		}
out:
	free(skipped);
	return err;
}

int bisect_run(const struct bisect_request *req, struct bisect_result *res)
{
	struct strbuf range = STRBUF_INIT;
	int err;

	memset(res, 0, sizeof(*res));
	res->better = req->better;
	res->endpoint.ratio = res->culprit_vs_parent.ratio = NAN;
	if ((err = repo_resolve(req->ctx.repo, req->good, &res->good)) ||
	    (err = repo_resolve(req->ctx.repo, req->bad, &res->bad)))
		goto out;
	strbuf_addf(&range, "%s..%s", res->good.sha, res->bad.sha);
	if ((err = repo_range(req->ctx.repo, range.buf, true, 0, &res->path, &res->nr_path)))
		goto out;
	if (!res->nr_path || strcmp(res->path[0].parent, res->good.sha)) {
		error("%s is not an ancestor of %s along first parents; give GOOD older than BAD "
		      "on the same mainline",
		      req->good, req->bad);
		err = RP_EINPUT;
		goto out;
	}
	if ((err = step(req, res, res->good.sha, &res->bad, &res->endpoint)))
		goto out;
	res->endpoint.index = res->nr_path - 1;
	decided(req, res, "GOOD against BAD", &res->bad, &res->endpoint);
	if (!strcmp(res->endpoint.verdict, "build-failed")) {
		error("BAD (%s) does not build; give a BAD that builds", req->bad);
		err = RP_EINPUT;
		goto out;
	}
	if (!is_new(req, &res->endpoint)) {
		res->outcome = BISECT_NOT_WORSE;
		goto out;
	}
	err = search(req, res);
out:
	if (err == RP_EINTERRUPT) {
		res->outcome = BISECT_INTERRUPTED;
		err = 0;
	}
	strbuf_release(&range);
	return err;
}

void bisect_result_release(struct bisect_result *res)
{
	if (!res)
		return;
	revision_release(&res->good);
	revision_release(&res->bad);
	revisions_free(res->path, res->nr_path);
	free(res->steps);
	memset(res, 0, sizeof(*res));
}
