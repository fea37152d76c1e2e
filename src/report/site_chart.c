/*
 * The trend charts of the site (report/site.h): inline SVG, x the commit's position in the
 * followed history (first parents: commits of other branches are not on it), labelled with
 * short shas thinned to fit, y the median with its interval as a whisker; every point a
 * link to its commit's page with a tooltip; change points as vertical lines labelled with
 * the relative change; commits with failed runs and failed builds as marks of their own.
 * Each chart is drawn twice, for a wide and for a narrow window (site.css shows one): SVG
 * text scales with the drawing, so one drawing cannot be readable at both widths.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/site.h"
#include "util/common.h"
#include "util/units.h"

/* The size of a drawing, in its own units (about CSS pixels at the width it is meant for). */
struct geometry {
	const char *cls; /* "wide" or "narrow" (site.css) */
	double w, h, pad_l, pad_r, pad_t, pad_b;
	double label_w; /* room a commit label takes on the x axis */
};

static const struct geometry wide = {"wide", 960, 230, 74, 12, 22, 40, 64};
static const struct geometry narrow = {"narrow", 380, 230, 58, 8, 22, 40, 64};

/* The scales of one chart. */
struct chart {
	struct strbuf *sb;
	const struct history *h;
	const struct metric_def *def;
	const struct geometry *g;
	double lo, hi; /* y range */
};

#define CHART_W (c->g->w)
#define CHART_H (c->g->h)
#define PAD_L (c->g->pad_l)
#define PAD_R (c->g->pad_r)
#define PAD_T (c->g->pad_t)
#define PAD_B (c->g->pad_b)

/* x of a commit of the followed history (commits[0..nr_line)). */
static double x_of(const struct chart *c, size_t commit)
{
	double step = (CHART_W - PAD_L - PAD_R) / (double)(c->h->nr_line ? c->h->nr_line : 1);
	return PAD_L + ((double)commit + 0.5) * step;
}

static double y_of(const struct chart *c, double v)
{
	double t = c->hi > c->lo ? (v - c->lo) / (c->hi - c->lo) : 0.5;
	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	return PAD_T + (1 - t) * (CHART_H - PAD_T - PAD_B);
}

/* Widens [lo, hi] by 6% on each side (a flat series by 1% of its level). */
static void set_range(struct chart *c, double lo, double hi)
{
	double pad = (hi - lo) * 0.06;
	if (!(hi > lo))
		pad = fabs(hi) * 0.01 + (hi == 0);
	c->lo = lo - pad;
	c->hi = hi + pad;
	if (lo >= 0 && c->lo < 0)
		c->lo = 0;
}

static void value(const struct chart *c, double v, struct strbuf *sb)
{
	char buf[64];
	site_format_value(c->def, v, buf, sizeof(buf));
	strbuf_addstr(sb, buf);
}

/* ", 95% CI 4 ms .. 5 ms" after the median; nothing when every bound prints as it does. */
static void interval(const struct chart *c, const struct history_point *p, struct strbuf *sb)
{
	char med[64], lo[64], hi[64];
	site_format_value(c->def, p->median, med, sizeof(med));
	site_format_value(c->def, p->ci_lo, lo, sizeof(lo));
	site_format_value(c->def, p->ci_hi, hi, sizeof(hi));
	if (!strcmp(lo, med) && !strcmp(hi, med))
		return;
	strbuf_addf(sb, "%s%s .. %s", p->ci_minmax ? ", min..max " : ", 95% CI ", lo, hi);
}

/*
 * The x axis: a tick and a short sha under every k-th commit of the followed history, k
 * the smallest that leaves each label its room; the newest commit always labelled.
 */
static void x_labels(struct chart *c)
{
	struct strbuf *sb = c->sb;
	size_t n = c->h->nr_line, fit, every;
	double y = CHART_H - PAD_B;

	if (!n)
		return;
	fit = (size_t)((CHART_W - PAD_L - PAD_R) / c->g->label_w);
	if (!fit)
		fit = 1;
	every = (n + fit - 1) / fit;
	for (size_t i = 0; i < n; i++) {
		double x = x_of(c, i);
		char sha[8];
		/* Counted from the newest, so that the newest commit has its label. */
		if ((n - 1 - i) % every)
			continue;
		if ((n - 1 - i) / every >= fit)
			continue;
		snprintf(sha, sizeof(sha), "%s", c->h->commits[i].sha ? c->h->commits[i].sha : "");
		strbuf_addf(sb,
			    "<line class=\"tick\" x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\"/>"
			    "<text class=\"xlabel\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">",
			    x, y, x, y + 4, x, y + 26);
		site_escape(sb, sha);
		strbuf_addstr(sb, "</text>\n");
	}
}

/* The frame: grid, y labels (bottom, middle, top), commit labels under x. */
static void frame(struct chart *c, const char *label)
{
	struct strbuf *sb = c->sb;

	strbuf_addf(sb,
		    "<svg class=\"chart %s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		    "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"",
		    c->g->cls, CHART_W, CHART_H, CHART_W, CHART_H);
	site_escape(sb, label);
	strbuf_addstr(sb, "\">\n");
	for (int k = 0; k <= 2; k++) {
		double v = c->lo + (c->hi - c->lo) * k / 2, y = y_of(c, v);
		strbuf_addf(
		    sb, "<line class=\"grid\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>",
		    PAD_L, y, CHART_W - PAD_R, y);
		strbuf_addf(sb, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", PAD_L - 6,
			    y + 4);
		value(c, v, sb);
		strbuf_addstr(sb, "</text>\n");
	}
	strbuf_addf(sb, "<line class=\"axis\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>\n",
		    PAD_L, CHART_H - PAD_B, CHART_W - PAD_R, CHART_H - PAD_B);
	x_labels(c);
}

/* <a href="commits/X.html"><title>sha summary ... */
static void link_open(struct chart *c, size_t commit)
{
	const struct history_commit *hc = &c->h->commits[commit];
	strbuf_addstr(c->sb, "<a href=\"");
	site_commit_page(c->sb, c->h, commit);
	strbuf_addstr(c->sb, "\"><title>");
	site_short_sha(c->sb, hc->sha);
	strbuf_addch(c->sb, ' ');
	site_escape(c->sb, hc->summary);
}

static void failure_part(struct strbuf *sb, const char **sep, unsigned n, const char *what)
{
	if (!n)
		return;
	strbuf_addf(sb, "%s%u %s", *sep, n, what);
	*sep = ", ";
}

/* The failed runs of a point, for its tooltip (after a line break). */
static void failures_text(struct strbuf *sb, const struct history_failures *f)
{
	const char *sep = "&#10;";
	failure_part(sb, &sep, f->failed, "failed");
	failure_part(sb, &sep, f->crashed, "crashed");
	failure_part(sb, &sep, f->timeout, "timed out");
	failure_part(sb, &sep, f->other, "not started or interrupted");
}

static bool has_failures(const struct history_failures *f)
{
	return f->failed || f->crashed || f->timeout || f->other;
}

/* The failed builds: a grey square on the axis at their commit. */
static void build_failures(struct chart *c)
{
	for (size_t i = 0; i < c->h->nr_line; i++) {
		double x;
		if (!c->h->commits[i].build_failed)
			continue;
		x = x_of(c, i);
		link_open(c, i);
		strbuf_addf(c->sb,
			    "&#10;build failed</title><rect class=\"buildfail\" x=\"%.1f\" "
			    "y=\"%.0f\" width=\"7\" height=\"7\"/></a>\n",
			    x - 3.5, CHART_H - PAD_B - 3.5);
	}
}

/* A change point: a dashed line before its first commit and the relative change on top. */
static void change_mark(struct chart *c, const struct history_change *ch)
{
	double step = (CHART_W - PAD_L - PAD_R) / (double)c->h->nr_line;
	double x = x_of(c, ch->commit) - step / 2;
	bool up = ch->rel_change > 0;
	strbuf_addstr(c->sb, "<g class=\"changepoint\"><title>change point at ");
	site_short_sha(c->sb, c->h->commits[ch->commit].sha);
	strbuf_addstr(c->sb, ": ");
	value(c, ch->median_before, c->sb);
	strbuf_addstr(c->sb, " -&gt; ");
	value(c, ch->median_after, c->sb);
	strbuf_addstr(c->sb, " (");
	if (isfinite(ch->rel_change)) {
		struct report_shift sh = {ch->rel_change, ch->rel_change_lo, ch->rel_change_hi,
					  ch->ci_alpha,	  ch->n_before,	     ch->n_after};
		report_shift_add(c->sb, &sh);
		strbuf_addstr(c->sb, "; ");
	}
	strbuf_addf(c->sb, "p = %.3g)</title>", ch->p_value);
	strbuf_addf(c->sb, "<line class=\"cp\" x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\"/>",
		    x, PAD_T - 4, x, CHART_H - PAD_B);
	strbuf_addf(c->sb, "<text class=\"cp-label%s\" x=\"%.1f\" y=\"%.0f\"%s>", up ? "" : " down",
		    x + 3, PAD_T - 8, x > CHART_W - 60 ? " text-anchor=\"end\"" : "");
	if (isfinite(ch->rel_change))
		/* "?": the interval includes 0 (the tooltip says it) */
		strbuf_addf(c->sb, "%+.1f%%%s", ch->rel_change * 100,
			    ch->rel_change_lo <= 0 && ch->rel_change_hi >= 0 ? "?" : "");
	else
		strbuf_addstr(c->sb, "change");
	strbuf_addstr(c->sb, "</text></g>\n");
}

/* The segments between change points at their medians. */
static void segments(struct chart *c, const struct history_series *s)
{
	size_t first = 0;
	for (size_t k = 0; k <= s->nr_changes; k++) {
		size_t end = k < s->nr_changes ? s->changes[k].point : s->nr_points;
		double level = k < s->nr_changes ? s->changes[k].median_before
			       : s->nr_changes	 ? s->changes[k - 1].median_after
						 : NAN;
		if (isfinite(level) && end > first)
			strbuf_addf(c->sb,
				    "<line class=\"seg\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				    "y2=\"%.1f\"/>\n",
				    x_of(c, s->points[first].commit), y_of(c, level),
				    x_of(c, s->points[end - 1].commit), y_of(c, level));
		first = end;
	}
}

static void series_chart(struct strbuf *sb, const struct history *h, const struct history_series *s,
			 const struct geometry *g)
{
	struct chart c = {sb, h, s->def, g, 0, 0};
	double lo = INFINITY, hi = -INFINITY;
	struct strbuf label = STRBUF_INIT;
	const char *sep = "";

	for (size_t i = 0; i < s->nr_line_points; i++)
		if (s->points[i].n) {
			lo = fmin(lo, s->points[i].ci_lo);
			hi = fmax(hi, s->points[i].ci_hi);
		}
	if (!isfinite(lo))
		lo = hi = 0;
	set_range(&c, lo, hi);
	strbuf_addf(&label, "%s, %s per commit", h->benches[s->bench].name, s->metric);
	frame(&c, label.buf);
	strbuf_release(&label);
	/* the medians joined, under everything else */
	strbuf_addstr(sb, "<polyline class=\"trend\" points=\"");
	for (size_t i = 0; i < s->nr_line_points; i++)
		if (s->points[i].n) {
			strbuf_addf(sb, "%s%.1f,%.1f", sep, x_of(&c, s->points[i].commit),
				    y_of(&c, s->points[i].median));
			sep = " ";
		}
	strbuf_addstr(sb, "\"/>\n");
	segments(&c, s);
	for (size_t k = 0; k < s->nr_changes; k++)
		change_mark(&c, &s->changes[k]);
	build_failures(&c);
	for (size_t i = 0; i < s->nr_line_points; i++) {
		const struct history_point *p = &s->points[i];
		double x = x_of(&c, p->commit);
		bool failed = has_failures(&p->fail);
		link_open(&c, p->commit);
		if (p->n) {
			strbuf_addstr(sb, "&#10;median ");
			value(&c, p->median, sb);
			interval(&c, p, sb);
			strbuf_addf(sb, ", n = %zu", p->n);
		}
		failures_text(sb, &p->fail);
		strbuf_addstr(sb, "</title>");
		if (p->n) {
			double y = y_of(&c, p->median), y0 = y_of(&c, p->ci_lo),
			       y1 = y_of(&c, p->ci_hi);
			if (y0 - y1 >= 1)
				strbuf_addf(
				    sb,
				    "<line class=\"ci%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				    "y2=\"%.1f\"/>",
				    p->ci_minmax ? " minmax" : "", x, y0, x, y1);
			strbuf_addf(sb, "<circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>",
				    failed ? " warn" : "", x, y);
		}
		if (failed)
			strbuf_addf(sb, "<path class=\"failmark%s\" d=\"M%.1f %.0fl4 7h-8z\"/>",
				    p->fail.crashed || p->fail.timeout ? " crash" : "", x,
				    c.g->h - c.g->pad_b + 2);
		strbuf_addstr(sb, "</a>\n");
	}
	strbuf_addstr(sb, "</svg>\n");
}

void site_chart_series(struct strbuf *sb, const struct history *h, const struct history_series *s)
{
	series_chart(sb, h, s, &wide);
	series_chart(sb, h, s, &narrow);
}

static void bytes_chart(struct strbuf *sb, const struct history *h, const struct history_bench *b,
			const struct geometry *g)
{
	struct chart c = {sb, h, metric_find("wchar"), g, 0, 0};
	double lo = INFINITY, hi = -INFINITY;
	struct strbuf label = STRBUF_INIT;

	for (size_t i = 0; i < b->nr_line_bytes; i++) {
		lo = fmin(lo, b->bytes[i].mean_bytes);
		hi = fmax(hi, b->bytes[i].mean_bytes);
	}
	if (!isfinite(lo))
		lo = hi = 0;
	set_range(&c, lo, hi);
	strbuf_addf(&label, "%s, bytes written per traced run", b->name);
	frame(&c, label.buf);
	strbuf_release(&label);
	for (size_t i = 0; i < b->nr_line_bytes; i++) {
		const struct history_bytes *p = &b->bytes[i];
		link_open(&c, p->commit);
		strbuf_addstr(sb, "&#10;bytes written ");
		value(&c, p->mean_bytes, sb);
		strbuf_addf(sb, " (mean of %zu traced run%s)</title>", p->nr_profiles,
			    p->nr_profiles == 1 ? "" : "s");
		strbuf_addf(sb, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/></a>\n",
			    x_of(&c, p->commit), y_of(&c, p->mean_bytes));
	}
	strbuf_addstr(sb, "</svg>\n");
}

void site_chart_bytes(struct strbuf *sb, const struct history *h, const struct history_bench *b)
{
	bytes_chart(sb, h, b, &wide);
	bytes_chart(sb, h, b, &narrow);
}

void site_chart_legend(struct strbuf *sb)
{
	strbuf_addstr(
	    sb, "<span><svg width=\"14\" height=\"14\"><circle cx=\"7\" cy=\"7\" r=\"3\" "
		"fill=\"#0b5cad\"/><line x1=\"7\" y1=\"1\" x2=\"7\" y2=\"13\" stroke=\"#5b8fc7\"/>"
		"</svg> median and 95% interval (dashed: min..max of fewer than 6 runs)</span>"
		"<span><svg width=\"14\" height=\"14\"><path d=\"M7 3l4 7h-8z\" fill=\"#d4731a\"/>"
		"</svg> failed runs (red: crashed or timed out)</span>"
		"<span><svg width=\"14\" height=\"14\"><rect x=\"3\" y=\"3\" width=\"8\" "
		"height=\"8\" fill=\"#6e7781\"/></svg> build failed</span>"
		"<span><svg width=\"14\" height=\"14\"><line x1=\"7\" y1=\"0\" x2=\"7\" y2=\"14\" "
		"stroke=\"#b3261e\" stroke-dasharray=\"3 2\"/></svg> change point</span>");
}
