#include "report/history_report.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "core/metric.h"
#include "util/common.h"
#include "util/json_real.h"
#include "util/units.h"

/* "worse x1.123 [1.101, 1.144]" */
static void add_verdict(struct strbuf *sb, const struct store_verdict *v)
{
	strbuf_addstr(sb, v->verdict);
	if (isfinite(v->ratio)) {
		strbuf_addstr(sb, " x");
		units_ratio_add(sb, v->ratio, v->ci_lo, v->ci_hi, UNITS_RANGE_BRACKETS);
	}
}

/*
 * Text taken from the repository and the benchmarks (subjects, names) goes through one of
 * these: strbuf_add_printable for a terminal, strbuf_add_md_escaped for Markdown.
 */
typedef void (*add_text_fn)(struct strbuf *sb, const char *s);


/* A count with six significant digits and k, M or G ("179.439M"), as compare scales it. */
static void add_count6(struct strbuf *sb, double v)
{
	double a = fabs(v);
	if (a >= 1e9)
		strbuf_addf(sb, "%.6gG", v / 1e9);
	else if (a >= 1e6)
		strbuf_addf(sb, "%.6gM", v / 1e6);
	else if (a >= 1e4)
		strbuf_addf(sb, "%.6gk", v / 1e3);
	else
		strbuf_addf(sb, "%.6g", v);
}
/* The verdict of the change point's commit against the commit it was compared with. */
static const struct store_verdict *own_verdict(const struct history_commit *c,
					       const struct history_series *s)
{
	for (size_t i = 0; *c->base && i < c->nr_verdicts; i++) {
		const struct store_verdict *v = &c->verdicts[i];
		if (!strcmp(v->bench, s->bench) && !strcmp(v->metric, s->metric) &&
		    isfinite(v->ratio))
			return v;
	}
	return NULL;
}

/* Whether the change point's interval and its commit's own comparison's are disjoint. */
static bool own_verdict_disjoint(const struct history_series *s, const struct store_verdict *v,
				 const struct changepoint *p)
{
	struct report_shift sh = {p->rel_change, p->rel_change_lo, p->rel_change_hi,
				  s->ci_alpha,	 p->n_before,	   p->n_after};
	return report_shift_disagrees(&sh, v->ci_lo, v->ci_hi);
}

/* "; its own comparison with 1a2b3c4d5e6f: equal 1.002 [0.990, 1.014]", and when the
 * two intervals are disjoint, what may explain it. */
static void add_own_verdict(struct strbuf *sb, const struct history_commit *c,
			    const struct history_series *s, const struct changepoint *p)
{
	const struct store_verdict *v = own_verdict(c, s);
	if (!v)
		return;
	strbuf_addf(sb, "; its own comparison with %.12s: %s %.3f", c->base, v->verdict,
		    v->ratio);
	if (isfinite(v->ci_lo) && isfinite(v->ci_hi))
		strbuf_addf(sb, " [%.3f, %.3f]", v->ci_lo, v->ci_hi);
	if (own_verdict_disjoint(s, v, p))
		strbuf_addstr(sb, ", " REPORT_SHIFT_DISAGREES);
}

static void add_change_point(struct strbuf *sb, const struct history_result *res,
			     const struct history_series *s, const struct changepoint *p,
			     add_text_fn add_text)
{
	const struct history_commit *c = &res->commits[s->commit[p->index]];
	const struct metric_def *def;
	strbuf_addf(sb, "at %.12s (", c->rev.sha);
	add_text(sb, c->rev.summary);
	def = metric_find(s->metric);
	if (def && (def->unit == UNIT_SECONDS || def->unit == UNIT_BYTES)) {
		/* in the unit the verdicts show ("121 ms -> 86.6 ms"), not bare seconds */
		char before[64], after[64];
		metric_format(def, p->median_before, before, sizeof(before));
		metric_format(def, p->median_after, after, sizeof(after));
		strbuf_addf(sb, "): median %s -> %s", before, after);
	} else if (def && def->unit == UNIT_COUNT) {
		/* "179.439M -> 194.123M" as compare's counts read, not 1.79439e+08; six digits,
		 * since a counted shift can be a few tenths of a percent */
		strbuf_addstr(sb, "): median ");
		add_count6(sb, p->median_before);
		strbuf_addstr(sb, " -> ");
		add_count6(sb, p->median_after);
	} else {
		strbuf_addf(sb, "): median %.6g -> %.6g", p->median_before, p->median_after);
	}
	if (isfinite(p->rel_change)) {
		struct report_shift sh = {p->rel_change, p->rel_change_lo, p->rel_change_hi,
					  s->ci_alpha,	 p->n_before,	   p->n_after};
		strbuf_addstr(sb, " (");
		report_shift_add(sb, &sh);
		strbuf_addch(sb, ')');
	}
	strbuf_addf(sb, ", p = %.3g", p->p_value);
	add_own_verdict(sb, c, s, p);
}

/* "N shifts below the count tolerance 0.1% ..." when min_change dropped some. */
static void add_dropped(struct strbuf *sb, const struct history_series *s)
{
	const struct metric_def *def = metric_find(s->metric);
	size_t n = s->cp.nr_below_min_change;
	strbuf_addf(sb, "%zu shift%s below the %stolerance %g%% not counted as change point%s",
		    n, n == 1 ? "" : "s", def && (def->flags & METRIC_COUNTED) ? "count " : "",
		    100 * s->min_change, n == 1 ? "" : "s");
}

/* "bench metric" */
static void add_series_name(struct strbuf *sb, const char *bench, const char *metric,
			    add_text_fn add_text)
{
	add_text(sb, bench);
	strbuf_addch(sb, ' ');
	add_text(sb, metric);
}

/* Why a series has no change point. */
static void add_no_change(struct strbuf *sb, const struct history_series *s)
{
	if (s->n == 0)
		strbuf_addstr(sb, "unmeasured: no commit has a value (not supported on this "
				  "machine, never in the output, or no run succeeded)");
	else if (s->cp_failed)
		strbuf_addstr(sb, "not analysed (see the error above)");
	else if (s->cp.stop == CHANGEPOINT_STOP_TOO_SHORT)
		strbuf_addf(sb, "none: %zu commit%s with values %s too few to split", s->n,
			    s->n == 1 ? "" : "s", s->n == 1 ? "is" : "are");
	else if (s->cp.has_rejected)
		strbuf_addf(sb, "none (best candidate p = %.3g)", s->cp.rejected.p_value);
	else
		strbuf_addstr(sb, "none");
}

static int report_text(FILE *f, const struct history_result *res)
{
	struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT;
	size_t k, i, j;
	fprintf(f, "history of %s (%s), %zu commit%s, oldest first\n",
		strbuf_printable(&name, res->range),
		res->first_parent ? "first parents" : "all commits", res->nr_commits,
		res->nr_commits == 1 ? "" : "s");
	for (k = 0; k < res->nr_commits; k++) {
		const struct history_commit *c = &res->commits[k];
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%.12s  %-10s", c->rev.sha, history_status_name(c->status));
		if (*c->base)
			strbuf_addf(&sb, " vs %.12s", c->base);
		for (i = 0; i < c->nr_verdicts; i++) {
			if (!c->verdicts[i].primary)
				continue;
			strbuf_addstr(&sb, "  ");
			add_series_name(&sb, c->verdicts[i].bench, c->verdicts[i].metric,
					strbuf_add_printable);
			strbuf_addstr(&sb, ": ");
			add_verdict(&sb, &c->verdicts[i]);
		}
		if (c->status == HISTORY_NOTHING_SELECTED)
			strbuf_addf(&sb, "  (0 of %zu benchmarks needed)", c->configured);
		strbuf_addstr(&sb, "  ");
		strbuf_add_printable(&sb, c->rev.summary);
		fprintf(f, "%s\n", sb.buf);
	}
	if (res->nr_series)
		fprintf(f, "\nchange points (E-divisive means, medians of each commit's runs):\n");
	for (i = 0; i < res->nr_series; i++) {
		const struct history_series *s = &res->series[i];
		strbuf_reset(&name);
		add_series_name(&name, s->bench, s->metric, strbuf_add_printable);
		if (!s->cp.nr_points) {
			strbuf_reset(&sb);
			add_no_change(&sb, s);
			fprintf(f, "  %s: %s\n", name.buf, sb.buf);
		}
		for (j = 0; j < s->cp.nr_points; j++) {
			strbuf_reset(&sb);
			add_change_point(&sb, res, s, &s->cp.points[j], strbuf_add_printable);
			fprintf(f, "  %s: %s\n", name.buf, sb.buf);
		}
		if (s->cp.nr_below_min_change) {
			strbuf_reset(&sb);
			add_dropped(&sb, s);
			fprintf(f, "  %s: %s\n", name.buf, sb.buf);
		}
	}
	if (res->interrupted)
		fprintf(f, "\ninterrupted: run the same command again to go on where it stopped\n");
	strbuf_release(&sb);
	strbuf_release(&name);
	return ferror(f) ? -1 : 0;
}

static int report_markdown(FILE *f, const struct history_result *res)
{
	struct strbuf sb = STRBUF_INIT;
	size_t k, i, j;
	/* Subjects and names come from the repository and the benchmarks: escaped, so that
	 * they cannot make HTML, links, images or extra table cells. */
	strbuf_addstr(&sb, "### revperf history of ");
	strbuf_add_md_code(&sb, res->range);
	fprintf(f,
		"%s\n\n| commit | status | against | verdicts | summary |\n|---|---|---|---|---|\n",
		sb.buf);
	for (k = 0; k < res->nr_commits; k++) {
		const struct history_commit *c = &res->commits[k];
		strbuf_reset(&sb);
		strbuf_addf(&sb, "| `%.12s` | %s | ", c->rev.sha, history_status_name(c->status));
		if (*c->base)
			strbuf_addf(&sb, "`%.12s`", c->base);
		strbuf_addstr(&sb, " | ");
		for (i = 0, j = 0; i < c->nr_verdicts; i++) {
			if (!c->verdicts[i].primary)
				continue;
			if (j++)
				strbuf_addstr(&sb, "<br>");
			add_series_name(&sb, c->verdicts[i].bench, c->verdicts[i].metric,
					strbuf_add_md_escaped);
			strbuf_addstr(&sb, ": ");
			add_verdict(&sb, &c->verdicts[i]);
		}
		strbuf_addstr(&sb, " | ");
		strbuf_add_md_escaped(&sb, c->rev.summary);
		fprintf(f, "%s |\n", sb.buf);
	}
	fprintf(f, "\n**Change points** (E-divisive means):\n\n");
	for (i = 0; i < res->nr_series; i++) {
		const struct history_series *s = &res->series[i];
		strbuf_reset(&sb);
		add_series_name(&sb, s->bench, s->metric, strbuf_add_md_escaped);
		strbuf_addstr(&sb, ": ");
		if (!s->cp.nr_points)
			add_no_change(&sb, s);
		for (j = 0; j < s->cp.nr_points; j++) {
			if (j)
				strbuf_addstr(&sb, "; ");
			add_change_point(&sb, res, s, &s->cp.points[j], strbuf_add_md_escaped);
		}
		if (s->cp.nr_below_min_change) {
			strbuf_addstr(&sb, "; ");
			add_dropped(&sb, s);
		}
		fprintf(f, "- %s\n", sb.buf);
	}
	strbuf_release(&sb);
	return ferror(f) ? -1 : 0;
}

static json_t *commit_json(const struct history_commit *c)
{
	json_t *o = json_object(), *vs = json_array();
	json_object_set_new(o, "sha", json_string(c->rev.sha));
	json_object_set_new(o, "parent", json_string(c->rev.parent));
	json_object_set_new(o, "summary", json_string(c->rev.summary));
	json_object_set_new(o, "status", json_string(history_status_name(c->status)));
	json_object_set_new(o, "against", *c->base ? json_string(c->base) : json_null());
	json_object_set_new(o, "comparison",
			    c->comparison_id ? json_integer(c->comparison_id) : json_null());
	json_object_set_new(o, "seconds", json_real_or_null(c->elapsed_s));
	for (size_t i = 0; i < c->nr_verdicts; i++) {
		const struct store_verdict *v = &c->verdicts[i];
		json_t *j = json_object();
		json_object_set_new(j, "benchmark", json_string(v->bench));
		json_object_set_new(j, "metric", json_string(v->metric));
		json_object_set_new(j, "primary", json_boolean(v->primary));
		json_object_set_new(j, "verdict", json_string(v->verdict));
		json_object_set_new(j, "ratio", json_real_or_null(v->ratio));
		json_object_set_new(
		    j, "ci",
		    json_pack("[oo]", json_real_or_null(v->ci_lo), json_real_or_null(v->ci_hi)));
		json_object_set_new(j, "p", json_real_or_null(v->p));
		json_object_set_new(j, "n",
				    json_pack("[II]", (json_int_t)v->n_a, (json_int_t)v->n_b));
		json_array_append_new(vs, j);
	}
	json_object_set_new(o, "verdicts", vs);
	return o;
}

static json_t *series_json(const struct history_result *res, const struct history_series *s)
{
	json_t *o = json_object(), *pts = json_array(), *cps = json_array();
	size_t i;
	json_object_set_new(o, "benchmark", json_string(s->bench));
	json_object_set_new(o, "metric", json_string(s->metric));
	json_object_set_new(o, "measured", json_boolean(s->n > 0));
	for (i = 0; i < s->n; i++)
		json_array_append_new(pts, json_pack("{s:s,s:f}", "sha",
						     res->commits[s->commit[i]].rev.sha, "median",
						     s->median[i]));
	for (i = 0; i < s->cp.nr_points; i++) {
		const struct changepoint *p = &s->cp.points[i];
		const struct history_commit *c = &res->commits[s->commit[p->index]];
		const struct store_verdict *v = own_verdict(c, s);
		json_t *own = json_null();
		if (v)
			own = json_pack("{s:s,s:s,s:o,s:[oo],s:b}", "against", c->base, "verdict",
					v->verdict, "ratio", json_real_or_null(v->ratio), "ci",
					json_real_or_null(v->ci_lo), json_real_or_null(v->ci_hi),
					"disjoint", own_verdict_disjoint(s, v, p));
		json_array_append_new(
		    cps, json_pack("{s:s,s:f,s:f,s:o,s:[oo],s:I,s:I,s:f,s:o}", "sha", c->rev.sha,
				   "median_before", p->median_before, "median_after",
				   p->median_after, "rel_change", json_real_or_null(p->rel_change),
				   "rel_change_ci", json_real_or_null(p->rel_change_lo),
				   json_real_or_null(p->rel_change_hi), "commits_before",
				   (json_int_t)p->n_before, "commits_after", (json_int_t)p->n_after,
				   "p", p->p_value, "own_verdict", own));
	}
	json_object_set_new(o, "points", pts);
	json_object_set_new(o, "change_points", cps);
	/* the shifts below the (count) tolerance that were dropped */
	json_object_set_new(o, "min_change", json_real_or_null(s->min_change));
	/* rel_change_ci is a (1 - ci_alpha) interval */
	json_object_set_new(o, "ci_level", json_real(1 - s->ci_alpha));
	json_object_set_new(o, "below_min_change",
			    json_integer((json_int_t)s->cp.nr_below_min_change));
	return o;
}

static int report_json(FILE *f, const struct history_result *res)
{
	json_t *root = json_object(), *commits = json_array(), *series = json_array();
	size_t i;
	int ret;
	json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
	json_object_set_new(root, "schema", json_string("revperf-history/3"));
	json_object_set_new(root, "range", json_string(res->range));
	json_object_set_new(root, "first_parent", json_boolean(res->first_parent));
	json_object_set_new(root, "interrupted", json_boolean(res->interrupted));
	for (i = 0; i < res->nr_commits; i++)
		json_array_append_new(commits, commit_json(&res->commits[i]));
	for (i = 0; i < res->nr_series; i++)
		json_array_append_new(series, series_json(res, &res->series[i]));
	json_object_set_new(root, "commits", commits);
	json_object_set_new(root, "series", series);
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(root);
	fputc('\n', f);
	return ret || ferror(f) ? -1 : 0;
}

int history_report(FILE *f, const struct history_result *res, enum report_format format)
{
	switch (format) {
	case REPORT_JSON: return report_json(f, res);
	case REPORT_MARKDOWN: return report_markdown(f, res);
	case REPORT_TEXT: break;
	}
	return report_text(f, res);
}

/*
 * The widths of a step's ratio ("x1.023 [1.010, 1.040]", 4 decimals when the change is
 * that small) and runs ("12+12 runs") cells: the steps are printed one by one as they are
 * decided, so a column cannot take its widest cell's width; these hold the usual ones.
 */
#define STEP_RATIO_WIDTH 24
#define STEP_RUNS_WIDTH 12

static void step_text(FILE *f, const struct bisect_result *r, const char *what,
		      const struct revision *rev, const struct bisect_step *s)
{
	struct strbuf summary = STRBUF_INIT, ratio = STRBUF_INIT, runs = STRBUF_INIT;
	if (isfinite(s->ratio)) {
		strbuf_addch(&ratio, 'x');
		units_ratio_add(&ratio, s->ratio, s->ci_lo, s->ci_hi, UNITS_RANGE_BRACKETS);
		strbuf_addf(&runs, "%zu+%zu runs", s->n_a, s->n_b);
	}
	/* a step without a ratio (build-failed) keeps the summary in its column */
	fprintf(f, "  %-24s %.12s  %-12s %-*s  %-*s  %s\n", what, rev->sha, s->verdict,
		STEP_RATIO_WIDTH, ratio.buf, STEP_RUNS_WIDTH, runs.buf,
		strbuf_printable(&summary, rev->summary));
	strbuf_release(&ratio);
	strbuf_release(&runs);
	strbuf_release(&summary);
	if (!strcmp(s->verdict, "undecided"))
		fprintf(f, "  %-24s (not shown %s with %zu %s: counted as %s)\n", "",
			r->better ? "better" : "worse", s->budget,
			units_noun(s->budget, "run", "runs"),
			r->better ? "before the improvement" : "good");
}

/* The step that compared GOOD with path[index]; NULL when none did. */
static const struct bisect_step *step_at(const struct bisect_result *r, size_t index)
{
	if (index + 1 == r->nr_path)
		return &r->endpoint;
	for (size_t i = 0; i < r->nr_steps; i++)
		if (r->steps[i].index == index)
			return &r->steps[i];
	return NULL;
}

void bisect_text_step(FILE *f, const struct bisect_result *r, const char *bench, const char *what,
		      const struct revision *rev, const struct bisect_step *s)
{
	/* GOOD against BAD comes first: the heading goes before it. */
	if (s == &r->endpoint) {
		struct strbuf name = STRBUF_INIT;
		add_series_name(&name, bench, r->metric, strbuf_add_printable);
		fprintf(f, "bisect %s from %.12s to %.12s: %zu commit%s on the first-parent path%s\n",
			name.buf, r->good.sha, r->bad.sha, r->nr_path, r->nr_path == 1 ? "" : "s",
			r->better ? "; looking for the first commit better than GOOD" : "");
		strbuf_release(&name);
	}
	step_text(f, r, what, rev, s);
}

/* "worse", "undecided (counted as good)": a step's verdict in the evidence line. */
static const char *evidence_verdict(const struct bisect_result *r, const struct bisect_step *s)
{
	if (strcmp(s->verdict, "undecided"))
		return s->verdict;
	return r->better ? "undecided (counted as before the improvement)"
			 : "undecided (counted as good)";
}

int bisect_text_outcome(FILE *f, const struct bisect_result *r, const char *bench)
{
	const struct bisect_step *s;
	struct strbuf name = STRBUF_INIT, text = STRBUF_INIT;
	add_series_name(&name, bench, r->metric, strbuf_add_printable);
	switch (r->outcome) {
	case BISECT_FOUND:
		/* Its steps against GOOD are above: named, not printed again. */
		/* an improvement is no culprit: named as what it is */
		fprintf(f, "\n%s: %s %s\nevidence: ", r->better ? "improvement" : "culprit",
			r->path[r->culprit].sha,
			strbuf_printable(&text, r->path[r->culprit].summary));
		if ((s = step_at(r, r->culprit)))
			fprintf(f, "against GOOD %s, ", evidence_verdict(r, s));
		if (r->have_parent_vs_good)
			fprintf(f, "its parent %.12s against GOOD %s (steps above); ",
				r->path[r->culprit - 1].sha,
				evidence_verdict(r, &r->parent_vs_good));
		else if (!r->culprit)
			fprintf(f, "its parent is GOOD (steps above); ");
		else
			fprintf(f, "(steps above); ");
		fprintf(f, "against its parent:\n");
		step_text(f, r, r->better ? "improvement vs parent" : "culprit against parent",
			  &r->path[r->culprit], &r->culprit_vs_parent);
		break;
	case BISECT_NOT_WORSE:
		fprintf(f, "\nBAD is not %s than GOOD on %s (%s): nothing to bisect\n",
			r->better ? "better" : "worse", name.buf, r->endpoint.verdict);
		/* the other direction: the command that bisects it */
		if (!r->better && !strcmp(r->endpoint.verdict, "better"))
			fprintf(f, "which commit made it better: 'revperf bisect --better %.12s "
				   "%.12s -b %s' finds the first; 'revperf history %.12s..%.12s -b %s' "
				   "compares each with its parent\n",
				r->good.sha, r->bad.sha, bench, r->good.sha, r->bad.sha, bench);
		else if (r->better && !strcmp(r->endpoint.verdict, "worse"))
			fprintf(f, "which commit made it worse: 'revperf bisect %.12s %.12s -b %s' "
				   "(without --better)\n",
				r->good.sha, r->bad.sha, bench);
		break;
	case BISECT_AMBIGUOUS:
		fprintf(f,
			"\nthe culprit is one of %.12s..%.12s: the commits before %.12s could not "
			"be decided or do not build\n",
			r->path[r->first_possible].sha, r->path[r->culprit].sha,
			r->path[r->culprit].sha);
		break;
	case BISECT_INTERRUPTED:
		fprintf(f, "\ninterrupted: run the same command again; stored runs are reused\n");
		break;
	}
	strbuf_release(&name);
	strbuf_release(&text);
	return ferror(f) ? -1 : 0;
}

/* The whole text report at once: every step, then the outcome. */
static int bisect_text(FILE *f, const struct bisect_result *r, const char *bench)
{
	if (r->nr_path)
		bisect_text_step(f, r, bench, "GOOD against BAD", &r->bad, &r->endpoint);
	for (size_t i = 0; i < r->nr_steps; i++)
		bisect_text_step(f, r, bench, "GOOD against", &r->path[r->steps[i].index],
				 &r->steps[i]);
	return bisect_text_outcome(f, r, bench);
}

static json_t *step_json(const struct revision *rev, const struct bisect_step *s)
{
	return json_pack("{s:s,s:s,s:o,s:[oo],s:[II],s:I,s:o}", "sha", rev->sha, "verdict",
			 s->verdict, "ratio", json_real_or_null(s->ratio), "ci",
			 json_real_or_null(s->ci_lo), json_real_or_null(s->ci_hi), "n",
			 (json_int_t)s->n_a, (json_int_t)s->n_b, "max_runs", (json_int_t)s->budget,
			 "comparison",
			 s->comparison_id ? json_integer(s->comparison_id) : json_null());
}

static const char *const outcome_names[] = {"found", "not-worse", "ambiguous", "interrupted"};

static const char *outcome_name(const struct bisect_result *r)
{
	return r->outcome == BISECT_NOT_WORSE && r->better ? "not-better"
							   : outcome_names[r->outcome];
}

static int bisect_json(FILE *f, const struct bisect_result *r, const char *bench)
{
	json_t *root = json_object(), *steps = json_array();
	int ret;
	json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
	json_object_set_new(root, "schema", json_string("revperf-bisect/2"));
	json_object_set_new(root, "benchmark", json_string(bench));
	json_object_set_new(root, "metric", json_string(r->metric));
	json_object_set_new(root, "good", json_string(r->good.sha));
	json_object_set_new(root, "bad", json_string(r->bad.sha));
	json_object_set_new(root, "path_length", json_integer((json_int_t)r->nr_path));
	json_object_set_new(root, "looking_for", json_string(r->better ? "better" : "worse"));
	json_object_set_new(root, "outcome", json_string(outcome_name(r)));
	json_object_set_new(root, "good_against_bad", step_json(&r->bad, &r->endpoint));
	for (size_t i = 0; i < r->nr_steps; i++)
		json_array_append_new(steps, step_json(&r->path[r->steps[i].index], &r->steps[i]));
	json_object_set_new(root, "steps", steps);
	if (r->outcome == BISECT_FOUND) {
		const struct revision *c = &r->path[r->culprit];
		json_object_set_new(root, "culprit",
				    json_pack("{s:s,s:s}", "sha", c->sha, "summary", c->summary));
		json_object_set_new(root, "culprit_against_parent",
				    step_json(c, &r->culprit_vs_parent));
	} else if (r->outcome == BISECT_AMBIGUOUS) {
		json_object_set_new(
		    root, "candidates",
		    json_pack("[ss]", r->path[r->first_possible].sha, r->path[r->culprit].sha));
	}
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(root);
	fputc('\n', f);
	return ret || ferror(f) ? -1 : 0;
}

int bisect_report(FILE *f, const struct bisect_result *r, const char *bench, bool json)
{
	return json ? bisect_json(f, r, bench) : bisect_text(f, r, bench);
}
