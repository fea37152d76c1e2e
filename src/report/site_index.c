/*
 * index.html of the site (report/site.h): what was measured where, the latest verdicts,
 * and per benchmark one trend chart per metric with its change points, then the bytes
 * written by its traced runs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/assets.h"
#include "report/report.h"
#include "report/site.h"
#include "util/common.h"
#include "util/units.h"

static void verdict_row(struct strbuf *sb, const struct history *h, const struct history_verdict *v)
{
	strbuf_addstr(sb, "<tr><td>");
	site_escape(sb, v->bench != HISTORY_NONE ? h->benches[v->bench].name : "?");
	strbuf_addstr(sb, "</td><td>");
	site_escape(sb, v->metric);
	strbuf_addstr(sb, v->primary ? " (primary)" : "");
	strbuf_addstr(sb, "</td><td class=\"verdict-");
	site_escape(sb, v->verdict);
	strbuf_addstr(sb, "\">");
	site_escape(sb, v->verdict);
	if (isfinite(v->ratio) && isfinite(v->ci_lo) && isfinite(v->ci_hi)) {
		/* the decimals of the text and Markdown reports (units_ratio_add()) */
		int dec = units_ratio_decimals(v->ratio, v->ci_lo, v->ci_hi);
		strbuf_addf(sb, "</td><td class=\"num\">%.*f</td><td class=\"num\">", dec,
			    v->ratio);
		units_range_addf(sb, NAN, v->ci_lo, v->ci_hi, dec, UNITS_RANGE_BRACKETS);
		strbuf_addstr(sb, "</td>");
	} else
		strbuf_addstr(sb, "</td><td class=\"num\">n/a</td><td class=\"num\">n/a</td>");
	if (isfinite(v->p))
		strbuf_addf(sb, "<td class=\"num\">%.3g</td>", v->p);
	else
		strbuf_addstr(sb, "<td class=\"num\">n/a</td>");
	strbuf_addf(sb, "<td class=\"num\">%zu</td><td class=\"num\">%zu</td></tr>\n", v->n_a,
		    v->n_b);
}

void site_verdict_table(struct strbuf *sb, const struct history *h,
			const struct history_comparison *c)
{
	if (!c->nr_verdicts) {
		strbuf_addstr(sb, "<p class=\"note\">This comparison recorded no verdict.</p>\n");
		return;
	}
	strbuf_addstr(sb, "<table class=\"verdicts\"><tr><th>benchmark</th><th>metric</th>"
			  "<th>verdict</th><th>ratio B/A</th><th>CI of the ratio</th><th>p</th>"
			  "<th>n base</th><th>n target</th></tr>\n");
	for (size_t i = 0; i < c->nr_verdicts; i++)
		verdict_row(sb, h, &c->verdicts[i]);
	strbuf_addstr(sb, "</table>\n");
}

/* A link to a commit's page: short sha and summary. */
static void commit_link(struct strbuf *sb, const struct history *h, size_t commit)
{
	site_comparison_side(sb, h, commit, NULL, NULL, false);
}

static void latest_section(struct strbuf *sb, const struct history *h)
{
	const struct history_comparison *c;
	if (h->latest_comparison == HISTORY_NONE)
		return;
	c = &h->comparisons[h->latest_comparison];
	strbuf_addstr(sb, "<h2 id=\"latest\">Latest verdicts</h2>\n<p>Comparison ");
	strbuf_addf(sb, "#%lld: baseline ", (long long)c->id);
	site_comparison_side(sb, h, c->base_commit, c->base_label, c->base_sha, false);
	strbuf_addstr(sb, " against target ");
	site_comparison_side(sb, h, c->commit, c->target_label, NULL, false);
	strbuf_addstr(sb, ".</p>\n");
	site_verdict_table(sb, h, c);
}

/*
 * The verdict of the change point's commit in its own comparison, on the series' metric:
 * the comparison the commit's page shows, when its baseline is the commit before it in the
 * series (history's comparison with its parent); not an A/A comparison of the commit, nor
 * one against another commit.
 */
static const struct history_verdict *own_verdict(const struct history *h,
						 const struct history_series *s,
						 const struct history_change *ch,
						 const struct history_comparison **cmp)
{
	size_t k = h->commits[ch->commit].comparison;
	if (k == HISTORY_NONE || !ch->point)
		return NULL;
	*cmp = &h->comparisons[k];
	if ((*cmp)->base_build == (*cmp)->target_build ||
	    (*cmp)->base_commit != s->points[ch->point - 1].commit)
		return NULL;
	for (size_t i = 0; i < (*cmp)->nr_verdicts; i++) {
		const struct history_verdict *v = &(*cmp)->verdicts[i];
		if (v->bench == s->bench && !strcmp(v->metric, s->metric) && isfinite(v->ratio))
			return v;
	}
	return NULL;
}

/* "equal 1.000 [0.990, 1.012] against <commit>", and when the intervals are disjoint,
 * what may explain it (report_shift_disagrees()). */
static void own_verdict_cell(struct strbuf *sb, const struct history *h,
			     const struct history_series *s, const struct history_change *ch,
			     const struct report_shift *sh)
{
	const struct history_comparison *c = NULL;
	const struct history_verdict *v = own_verdict(h, s, ch, &c);
	strbuf_addstr(sb, "<td>");
	if (!v) {
		strbuf_addstr(sb, "none</td>");
		return;
	}
	site_escape(sb, v->verdict);
	strbuf_addf(sb, " %.3f", v->ratio);
	if (isfinite(v->ci_lo) && isfinite(v->ci_hi))
		strbuf_addf(sb, " [%.3f, %.3f]", v->ci_lo, v->ci_hi);
	strbuf_addstr(sb, " against ");
	site_comparison_side(sb, h, c->base_commit, c->base_label, c->base_sha, false);
	if (sh && report_shift_disagrees(sh, v->ci_lo, v->ci_hi))
		strbuf_addstr(sb, "<br><span class=\"note\">" REPORT_SHIFT_DISAGREES "</span>");
	strbuf_addstr(sb, "</td>");
}

static void change_table(struct strbuf *sb, const struct history *h, const struct history_series *s)
{
	if (!s->nr_changes)
		return;
	strbuf_addstr(sb, "<table class=\"changes\"><tr><th>change point (first commit)</th>"
			  "<th>median before</th><th>median after</th><th>change</th><th>p</th>"
			  "<th>its own comparison</th></tr>\n");
	for (size_t k = 0; k < s->nr_changes; k++) {
		const struct history_change *ch = &s->changes[k];
		char before[64], after[64];
		site_format_value(s->def, ch->median_before, before, sizeof(before));
		site_format_value(s->def, ch->median_after, after, sizeof(after));
		strbuf_addstr(sb, "<tr><td>");
		commit_link(sb, h, ch->commit);
		strbuf_addf(sb, "</td><td class=\"num\">%s</td><td class=\"num\">%s</td>", before,
			    after);
		struct report_shift sh = {ch->rel_change,    ch->rel_change_lo, ch->rel_change_hi,
					  ch->ci_alpha,	     ch->n_before,	ch->n_after};
		if (isfinite(ch->rel_change)) {
			strbuf_addf(sb, "<td class=\"num %s\">",
				    ch->rel_change > 0 ? "up" : "down");
			report_shift_add(sb, &sh);
			strbuf_addstr(sb, "</td>");
		} else
			strbuf_addstr(sb, "<td class=\"num\">n/a</td>");
		strbuf_addf(sb, "<td class=\"num\">%.3g</td>", ch->p_value);
		own_verdict_cell(sb, h, s, ch, isfinite(ch->rel_change) ? &sh : NULL);
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

/* What every chart follows, after its caption. */
static void follows(struct strbuf *sb, const struct history *h)
{
	strbuf_addstr(sb, " <span class=\"note follows\">");
	if (h->line_name) {
		strbuf_addstr(sb, "along ");
		site_escape(sb, h->line_name);
		strbuf_addstr(sb, ", first parents");
	} else {
		strbuf_addstr(sb, "every measured commit, by commit time");
	}
	strbuf_addstr(sb, "</span>");
}

/* How many of commits[from..to) were measured (history_measured()). */
static size_t count_measured(const struct history *h, size_t from, size_t to)
{
	size_t n = 0;
	for (size_t i = from; i < to; i++)
		n += history_measured(&h->commits[i]);
	return n;
}

/* The measured commits that are on no chart: those of other branches. */
static void others_section(struct strbuf *sb, const struct history *h)
{
	size_t n = count_measured(h, h->nr_line, h->nr_commits);
	if (!n)
		return;
	strbuf_addf(sb, "<h2 id=\"others\">Measured commits not on %s</h2>\n<p>",
		    h->nr_line ? "the charts" : "any chart");
	strbuf_addf(sb, "%zu measured commit%s %s not on the first-parent history of ", n,
		    n == 1 ? "" : "s", n == 1 ? "is" : "are");
	site_escape(sb, h->line_name);
	strbuf_addstr(sb, " (another branch, or a merged branch's own commits): each has its "
			  "page, and none is drawn into the trend.</p>\n<ul class=\"others\">\n");
	for (size_t i = h->nr_line; i < h->nr_commits; i++) {
		if (!history_measured(&h->commits[i]))
			continue;
		strbuf_addstr(sb, "<li>");
		commit_link(sb, h, i);
		strbuf_addstr(sb, "</li>\n");
	}
	strbuf_addstr(sb, "</ul>\n");
}

/*
 * The failed builds that are on no chart: before the first or after the last measured
 * commit, or of another branch. They have no run; each page names the command that failed.
 */
static void failed_section(struct strbuf *sb, const struct history *h)
{
	size_t n = h->nr_commits - h->nr_line - count_measured(h, h->nr_line, h->nr_commits);
	if (!n)
		return;
	strbuf_addf(sb, "<h2 id=\"failed\">Failed builds not on %s</h2>\n<p>",
		    h->nr_line ? "the charts" : "any chart");
	strbuf_addf(
	    sb,
	    "%zu commit%s whose build failed %s no measured run and %s outside the "
	    "measured commits the charts span (or on another branch): each has its page, "
	    "naming the build command that failed and its log.</p>\n<ul class=\"others\">\n",
	    n, n == 1 ? "" : "s", n == 1 ? "has" : "have", n == 1 ? "lies" : "lie");
	for (size_t i = h->nr_line; i < h->nr_commits; i++) {
		if (history_measured(&h->commits[i]))
			continue;
		strbuf_addstr(sb, "<li>");
		commit_link(sb, h, i);
		strbuf_addstr(sb, "</li>\n");
	}
	strbuf_addstr(sb, "</ul>\n");
}

static void bench_section(struct strbuf *sb, const struct history *h, size_t b)
{
	const struct history_bench *hb = &h->benches[b];
	strbuf_addf(sb, "<section class=\"bench\" id=\"bench-%zu\">\n<h2>", b);
	site_escape(sb, hb->name);
	strbuf_addstr(sb, "</h2>\n");
	for (size_t i = 0; i < hb->nr_series; i++) {
		const struct history_series *s = &h->series[hb->first_series + i];
		strbuf_addstr(sb, "<figure class=\"chart\"><figcaption>");
		site_escape(sb, s->metric);
		if (s->def) {
			strbuf_addstr(sb, " <span class=\"note\">(");
			site_escape(sb, s->def->help);
			strbuf_addstr(sb, ")</span>");
		}
		follows(sb, h);
		strbuf_addstr(sb, "</figcaption>\n");
		site_chart_series(sb, h, s);
		strbuf_addstr(sb, "</figure>\n");
		change_table(sb, h, s);
	}
	if (hb->nr_bytes) {
		strbuf_addstr(sb,
			      "<figure class=\"chart\"><figcaption>bytes written (I/O profiles)");
		follows(sb, h);
		strbuf_addstr(sb, "</figcaption>\n");
		site_chart_bytes(sb, h, hb);
		strbuf_addstr(sb, "</figure>\n");
	}
	strbuf_addstr(sb, "</section>\n");
}

static void machine_text(struct strbuf *sb, const struct history *h)
{
	const struct history_machine *m = &h->machine;
	if (!h->has_machine) {
		strbuf_addstr(sb, "No run on record.");
		return;
	}
	strbuf_addstr(sb, "Measured on ");
	site_escape(sb, m->hostname);
	strbuf_addstr(sb, " (");
	site_escape(sb, m->cpu_model);
	strbuf_addf(sb, ", %d cores, kernel ", m->cores);
	site_escape(sb, m->kernel);
	strbuf_addstr(sb, ", governor ");
	site_escape(sb, m->governor);
	if (h->machine_named) {
		strbuf_addf(sb, "): the machine this report is for (%zu runs).", m->nr_runs);
	} else {
		strbuf_addf(sb, "): the machine with the most runs (%zu).", m->nr_runs);
	}
	if (h->other_machine_runs)
		strbuf_addf(
		    sb, " <span class=\"flag\">%zu run%s of %zu other machine%s left out.</span>",
		    h->other_machine_runs, h->other_machine_runs == 1 ? "" : "s",
		    h->nr_machines - 1, h->nr_machines == 2 ? "" : "s");
}

int site_index_page(struct strbuf *out, const struct history *h, const struct site_options *o,
		    const char *generated)
{
	struct strbuf title = STRBUF_INIT, summary = STRBUF_INIT, machine = STRBUF_INIT;
	struct strbuf legend = STRBUF_INIT, contents = STRBUF_INIT, latest = STRBUF_INIT;
	struct strbuf benches = STRBUF_INIT, db = STRBUF_INIT;
	size_t shown = 0, measured_line = count_measured(h, 0, h->nr_line);
	size_t measured_others = count_measured(h, h->nr_line, h->nr_commits);
	size_t failed_others = h->nr_commits - h->nr_line - measured_others;
	int ret;

	site_escape(&title, o->title ? o->title : "revperf report");
	for (size_t b = 0; b < h->nr_benches; b++)
		shown += h->benches[b].nr_series || h->benches[b].nr_bytes;
	strbuf_addf(&summary, "%zu commit%s, %zu benchmark%s, %zu chart%s.", h->nr_commits,
		    h->nr_commits == 1 ? "" : "s", shown, shown == 1 ? "" : "s", h->nr_series,
		    h->nr_series == 1 ? "" : "s");
	if (h->line_name) {
		strbuf_addstr(&summary, " The charts follow the first-parent history of <strong>");
		site_escape(&summary, h->line_name);
		strbuf_addf(&summary, "</strong>: %zu measured commit%s", measured_line,
			    measured_line == 1 ? "" : "s");
	} else if (h->nr_line) {
		strbuf_addstr(&summary, " No repository: the charts show every measured commit "
					"in commit-time order");
	}
	if (h->nr_line) {
		strbuf_addstr(&summary, " from ");
		commit_link(&summary, h, 0);
		strbuf_addstr(&summary, " to ");
		commit_link(&summary, h, h->nr_line - 1);
	}
	if (h->nr_line > measured_line)
		strbuf_addf(&summary, ", with %zu failed build%s between them (marked)",
			    h->nr_line - measured_line, h->nr_line - measured_line == 1 ? "" : "s");
	if (h->line_name || h->nr_line)
		strbuf_addch(&summary, '.');
	if (measured_others)
		strbuf_addf(&summary,
			    " <a href=\"#others\">%zu measured commit%s of other "
			    "branches</a> %s on no chart.",
			    measured_others, measured_others == 1 ? "" : "s",
			    measured_others == 1 ? "is" : "are");
	if (failed_others)
		strbuf_addf(
		    &summary,
		    " <a href=\"#failed\">%zu failed build%s</a> with no measured run %s on "
		    "no chart.",
		    failed_others, failed_others == 1 ? "" : "s",
		    failed_others == 1 ? "is" : "are");
	machine_text(&machine, h);
	site_chart_legend(&legend);
	strbuf_addstr(&contents, "<nav class=\"contents\">");
	for (size_t b = 0; b < h->nr_benches; b++) {
		if (!h->benches[b].nr_series && !h->benches[b].nr_bytes)
			continue;
		strbuf_addf(&contents, "<a href=\"#bench-%zu\">", b);
		site_escape(&contents, h->benches[b].name);
		strbuf_addstr(&contents, "</a> ");
		bench_section(&benches, h, b);
	}
	others_section(&benches, h);
	failed_section(&benches, h);
	strbuf_addstr(&contents, "</nav>");
	latest_section(&latest, h);
	site_escape(&db, o->database ? o->database : "the store");
	{
		const struct site_slot slots[] = {
		    {"title", title.buf},	 {"summary", summary.buf},
		    {"machine", machine.buf},	 {"legend", legend.buf},
		    {"contents", contents.buf},	 {"latest", latest.buf},
		    {"benchmarks", benches.buf}, {"version", REVPERF_VERSION},
		    {"generated", generated},	 {"database", db.buf},
		};
		ret = site_fill(out, revperf_asset_site_index_html,
				revperf_asset_site_index_html_len, slots, ARRAY_SIZE(slots));
	}
	strbuf_release(&title);
	strbuf_release(&summary);
	strbuf_release(&machine);
	strbuf_release(&legend);
	strbuf_release(&contents);
	strbuf_release(&latest);
	strbuf_release(&benches);
	strbuf_release(&db);
	return ret;
}
