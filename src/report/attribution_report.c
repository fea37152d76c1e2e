/*
 * The absolute attribution as text, Markdown, JSON and HTML (report/attribution_report.h).
 */
#include "report/attribution_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/common.h"

#define PATH_WIDTH 60

const char *attribution_weight_phrase(const struct attribution *a)
{
	switch (a->weight) {
	case CCT_WEIGHT_ELAPSED_NS:
		return "elapsed time in calls (the CCT runtime's clock: waiting included), "
		       "summed over threads";
	case CCT_WEIGHT_CPU_NS: return "on-CPU time, summed over threads";
	case CCT_WEIGHT_WAIT_NS: return "off-CPU (waiting) time, summed over threads";
	case CCT_WEIGHT_CALLS: return "calls";
	case CCT_WEIGHT_EVENT:
		return !strcmp(a->weight_event, "Ir") ? "instructions (Ir)" : "counted events";
	case CCT_WEIGHT_UNKNOWN: break;
	}
	return "weight (folded stacks: the file's own unit, samples for perf)";
}

/* What changed, as a noun: "time", "instructions", "count", "calls", "weight". */
static const char *weight_noun(const struct attribution *a)
{
	switch (a->weight) {
	case CCT_WEIGHT_ELAPSED_NS:
	case CCT_WEIGHT_CPU_NS:
	case CCT_WEIGHT_WAIT_NS: return "time";
	case CCT_WEIGHT_CALLS: return "calls";
	case CCT_WEIGHT_EVENT: return !strcmp(a->weight_event, "Ir") ? "instructions" : "count";
	case CCT_WEIGHT_UNKNOWN: break;
	}
	return "weight";
}

static bool is_time_weight(enum cct_weight w)
{
	return w == CCT_WEIGHT_ELAPSED_NS || w == CCT_WEIGHT_CPU_NS || w == CCT_WEIGHT_WAIT_NS;
}

static bool is_time(const struct attribution *a)
{
	return is_time_weight(a->weight);
}

/* A scale for the values of a row: divisor and its suffix ("ms", "M Ir", "k"). */
struct scale {
	double div;
	char suffix[40];
};

static void pick_weight_scale(enum cct_weight w, const char *event, double v, struct scale *s)
{
	double x = fabs(v);
	const char *unit = w == CCT_WEIGHT_EVENT ? event : w == CCT_WEIGHT_CALLS ? "calls" : "";
	if (is_time_weight(w)) {
		static const struct {
			double div;
			const char *name;
		} t[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
		size_t i = 0;
		while (i + 1 < ARRAY_SIZE(t) && x < t[i].div)
			i++;
		s->div = t[i].div;
		snprintf(s->suffix, sizeof(s->suffix), "%s", t[i].name);
		return;
	}
	s->div = x >= 1e9 ? 1e9 : x >= 1e6 ? 1e6 : x >= 1e3 ? 1e3 : 1;
	snprintf(s->suffix, sizeof(s->suffix), "%s%s%s",
		 s->div == 1e9	 ? "G"
		 : s->div == 1e6 ? "M"
		 : s->div == 1e3 ? "k"
				 : "",
		 s->div > 1 && *unit ? " " : "", unit);
}

static void pick_scale(const struct attribution *a, double v, struct scale *s)
{
	pick_weight_scale(a->weight, a->weight_event, v, s);
}

void attribution_add_amount(struct strbuf *sb, enum cct_weight w, const char *event, double v)
{
	struct scale s;
	int d;
	pick_weight_scale(w, event, v, &s);
	/* as the rows' decimals(): time scaled to 10 us, counts to 3 digits, else whole or
	 * one digit for a mean of runs */
	d = s.div > 1 ? (is_time_weight(w) ? 2 : 3) : v == floor(v) || is_time_weight(w) ? 0 : 1;
	strbuf_addf(sb, "%.*f", d, v / s.div);
	if (*s.suffix)
		strbuf_addf(sb, " %s", s.suffix);
}

/*
 * Digits after the point for values divided by the scale: time to 10 us in ms, counts
 * scaled by k, M or G to 3 digits; plain counts whole, or to one digit when the row's mean
 * or sd is a fraction below 1000 (a mean of a few samples).
 */
static int decimals(const struct scale *s, const struct attribution *a, double mean, double sd)
{
	if (s->div > 1)
		return is_time(a) ? 2 : 3;
	if (is_time(a))
		return 0;
	if (fabs(mean) < 1000 && (mean != floor(mean) || (isfinite(sd) && sd != floor(sd))))
		return 1;
	return 0;
}

/* "10.20 ± 0.31 ms", "10.20 ms" without spread. */
static void add_stat(struct strbuf *sb, const struct attribution *a,
		     const struct attribution_stat *st)
{
	struct scale s;
	int d;
	/* the unit of the larger of the two: "333.33 ± 577.35 us", "0.33 ± 3.31 ms" */
	pick_scale(a, isfinite(st->sd) && st->sd > fabs(st->mean) ? st->sd : st->mean, &s);
	d = decimals(&s, a, st->mean, st->sd);
	strbuf_addf(sb, "%.*f", d, st->mean / s.div);
	if (st->sd == 0)
		strbuf_addstr(sb, " ± 0");
	else if (isfinite(st->sd))
		strbuf_addf(sb, " ± %.*f", d, st->sd / s.div);
	if (*s.suffix)
		strbuf_addf(sb, " %s", s.suffix);
}

/* "+10.60 ± 1.50 ms" (the half-width of the interval), "+10.60 ms" without spread. */
static void add_change(struct strbuf *sb, const struct attribution *a,
		       const struct attribution_entry *e)
{
	struct scale s;
	int d;
	/* the unit of the larger of the change and its half-width: "-0.33 ± 3.31 ms", not
	 * "-333.33 ± 3308.28 us" */
	pick_scale(a,
		   isfinite(e->ci_hi) && e->ci_hi - e->delta > fabs(e->delta) ? e->ci_hi - e->delta
									 : e->delta,
		   &s);
	d = decimals(&s, a, e->delta, e->ci_hi - e->delta);
	strbuf_addf(sb, "%+.*f", d, e->delta / s.div);
	if (e->ci_hi == e->delta)
		strbuf_addstr(sb, " ± 0");
	else if (isfinite(e->ci_hi))
		strbuf_addf(sb, " ± %.*f", d, (e->ci_hi - e->delta) / s.div);
	if (*s.suffix)
		strbuf_addf(sb, " %s", s.suffix);
}

static void add_share(struct strbuf *sb, double share)
{
	if (isfinite(share))
		strbuf_addf(sb, "%.1f%%", 100 * share);
	else
		strbuf_addch(sb, '-');
}

static void add_calls(struct strbuf *sb, const struct attribution_entry *e)
{
	for (int s = 0; s < 2; s++) {
		double c = e->side[s].calls;
		if (s)
			strbuf_addstr(sb, " -> ");
		if (c == floor(c) && fabs(c) < 1e15)
			strbuf_addf(sb, "%.0f", c);
		else
			strbuf_addf(sb, "%.1f", c);
	}
}

const char *attribution_class_name(enum attribution_class c)
{
	switch (c) {
	case ATTRIBUTION_FINDING: return "finding";
	case ATTRIBUTION_NOISE: return "noise";
	case ATTRIBUTION_NO_SPREAD: break;
	}
	return "no spread";
}

static bool have_spread(const struct attribution *a)
{
	return a->runs[0] >= 2 && a->runs[1] >= 2;
}

/* The class column: "moved" for a path whose change is only its function's split. */
static const char *row_class(const struct attribution_entry *e)
{
	if (e->moved && e->class == ATTRIBUTION_FINDING)
		return "moved";
	return attribution_class_name(e->class);
}

static bool any_moved(const struct attribution *a)
{
	for (size_t i = 0; i < a->nr_paths; i++)
		if (a->paths[i].moved && a->paths[i].class == ATTRIBUTION_FINDING)
			return true;
	return false;
}

/* Where a path's shortened form begins: its innermost whole frames within about width bytes. */
static const char *short_path_start(const char *p, size_t width)
{
	size_t len = strlen(p);
	const char *cut = p;
	if (len > width) {
		cut = strchr(p + len - width, ';');
		cut = cut ? cut + 1 : p + len - width;
	}
	return cut;
}

/* The frame before `cut` in p (the shortened form one frame longer), or p itself. */
static const char *one_frame_more(const char *p, const char *cut)
{
	if (cut <= p)
		return p;
	cut--; /* the ';' before the shown frames */
	while (cut > p && cut[-1] != ';')
		cut--;
	return cut;
}

/*
 * The shortened forms of the listed paths, each widened frame by frame while it reads the
 * same as another listed path's: two contexts of one function that differ only near the
 * root ("main;run;step;insert" and "main;exec;step;insert") are otherwise two rows
 * "...;step;insert" with different numbers.
 */
static const char **short_path_starts(const struct attribution_entry *e, size_t n, size_t width)
{
	const char **cut = xcalloc(n ? n : 1, sizeof(*cut));
	bool widened = true;
	for (size_t i = 0; i < n; i++)
		cut[i] = short_path_start(e[i].key, width);
	while (widened) {
		widened = false;
		for (size_t i = 0; i < n; i++) {
			for (size_t j = 0; j < n; j++) {
				if (j == i || (cut[i] == e[i].key && cut[j] == e[j].key) ||
				    strcmp(cut[i], cut[j]))
					continue;
				/* the same text shown for two paths: one frame more on both */
				cut[i] = one_frame_more(e[i].key, cut[i]);
				cut[j] = one_frame_more(e[j].key, cut[j]);
				widened = true;
			}
		}
	}
	return cut;
}

static void add_short_path(struct strbuf *sb, const char *p, const char *cut)
{
	if (cut != p)
		strbuf_addstr(sb, "...;");
	strbuf_addstr(sb, cut);
}

/* The cells of one row, as plain (unescaped) text. */
struct row {
	struct strbuf base, target, change, share, calls;
};

static void row_fill(struct row *r, const struct attribution *a, const struct attribution_entry *e)
{
	strbuf_reset(&r->base);
	strbuf_reset(&r->target);
	strbuf_reset(&r->change);
	strbuf_reset(&r->share);
	strbuf_reset(&r->calls);
	add_stat(&r->base, a, &e->side[0]);
	add_stat(&r->target, a, &e->side[1]);
	add_change(&r->change, a, e);
	add_share(&r->share, e->share);
	if (a->calls_known && e->key)
		add_calls(&r->calls, e);
}

static void row_init(struct row *r)
{
	strbuf_init(&r->base);
	strbuf_init(&r->target);
	strbuf_init(&r->change);
	strbuf_init(&r->share);
	strbuf_init(&r->calls);
}

static void row_release(struct row *r)
{
	strbuf_release(&r->base);
	strbuf_release(&r->target);
	strbuf_release(&r->change);
	strbuf_release(&r->share);
	strbuf_release(&r->calls);
}

/*
 * Whether the total is the same on every run of both sides (deterministic counts that did
 * not change): its class is noise by the rule (the interval [0, 0] holds 0), but no
 * noise is there to speak of.
 */
static bool total_unchanged(const struct attribution *a)
{
	const struct attribution_entry *t = &a->total;
	return t->delta == 0 && t->side[0].sd == 0 && t->side[1].sd == 0;
}

/* "3 + 3 runs; total per run 102.30 ± 1.20 ms -> 112.90 ± 1.50 ms, +10.60 ± 1.70 ms" */
static void heading(struct strbuf *sb, const struct attribution *a)
{
	struct row r;
	row_init(&r);
	row_fill(&r, a, &a->total);
	strbuf_addf(sb, "%zu + %zu runs; per run %s -> %s, change %s", a->runs[0], a->runs[1],
		    r.base.buf, r.target.buf, r.change.buf);
	if (have_spread(a))
		strbuf_addf(sb, " (%s)",
			    total_unchanged(a) ? "unchanged"
					       : attribution_class_name(a->total.class));
	row_release(&r);
}

/* What the table's numbers are, and the rule, or why there is no spread. */
static void legend(struct strbuf *sb, const struct attribution *a)
{
	if (!have_spread(a)) {
		strbuf_addf(sb,
			    "no spread: %s has a single run, so no change can be told from "
			    "run-to-run noise; take several runs per side",
			    a->runs[0] < 2 && a->runs[1] < 2 ? "each side"
			    : a->runs[0] < 2		     ? "the baseline"
							     : "the target");
		return;
	}
	strbuf_addf(sb,
		    "mean per run ± sd over the runs; change ± the half-width of its %g%% Welch "
		    "interval; noise: that interval holds 0",
		    100 * (1 - a->alpha));
	if (a->total.class == ATTRIBUTION_NOISE && !total_unchanged(a))
		strbuf_addstr(sb, "; the total change is itself within the noise: shares are "
				  "shares of noise");
	if (any_moved(a))
		strbuf_addstr(sb, "; moved: the path's function executed the same instructions "
				  "on both sides, only their estimated split over its callers "
				  "changed (callgrind records calls between two functions, not "
				  "whole paths)");
}

/* s left-aligned in `width` columns (UTF-8 characters, not bytes: "±" is one). */
/* s and spaces to width columns; one space at least, so that a value wider than its
 * column (a share of -3877.0% of a small net change) never runs into the next. */
static void add_padded(struct strbuf *sb, const char *s, size_t width)
{
	size_t cols = 0;
	for (const char *p = s; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80;
	strbuf_addstr(sb, s);
	do
		strbuf_addch(sb, ' ');
	while (++cols < width);
}

/*
 * "12 more call paths changed, together 3.4% of the change (5 findings among all, 2
 * moved)": what the list leaves out, and how much of the change that is, so that a long
 * tail (hundreds of thousands of paths of a compiler's run) is known to be small or not.
 * Self costs add up to the total, so the rest is the total's change less the listed ones'.
 */
static void add_rest(struct strbuf *sb, const struct attribution *a,
		     const struct attribution_entry *e, size_t shown, size_t changed,
		     size_t findings, size_t moved, bool paths)
{
	double listed = 0;
	for (size_t i = 0; i < shown; i++)
		listed += e[i].delta;
	strbuf_addf(sb, "%zu more %s changed", changed - shown,
		    paths ? (changed - shown == 1 ? "call path" : "call paths")
			  : (changed - shown == 1 ? "function" : "functions"));
	if (isfinite(a->total.delta) && a->total.delta != 0) {
		double rest = (a->total.delta - listed) / a->total.delta;
		/* shares of a net change can pass 100% (changes of both signs) */
		strbuf_addf(sb, ", together %.1f%% of the change", 100 * rest);
	}
	strbuf_addf(sb, " (%zu finding%s among all", findings, findings == 1 ? "" : "s");
	if (moved)
		strbuf_addf(sb, ", %zu moved", moved);
	strbuf_addch(sb, ')');
}

static void text_list(FILE *f, const struct attribution *a, const struct attribution_entry *e,
		      size_t n, size_t changed, size_t findings, size_t moved, bool paths,
		      size_t top, const char *indent)
{
	struct row r;
	struct strbuf line = STRBUF_INIT;
	size_t shown = top && n > top ? top : n;
	const char **cut;

	if (!changed)
		return;
	cut = paths ? short_path_starts(e, shown, PATH_WIDTH) : NULL;
	row_init(&r);
	for (size_t i = 0; i <= shown; i++) {
		strbuf_reset(&line);
		strbuf_addstr(&line, indent);
		strbuf_addstr(&line, "  ");
		if (!i) {
			add_padded(&line, "baseline", 24);
			add_padded(&line, "target", 24);
			add_padded(&line, "change", 24);
			add_padded(&line, "share", 8);
			add_padded(&line, "", 10);
			strbuf_addstr(&line, paths ? "call path (self)" : "function (self)");
			fprintf(f, "%s\n", line.buf);
			continue;
		}
		row_fill(&r, a, &e[i - 1]);
		add_padded(&line, r.base.buf, 24);
		add_padded(&line, r.target.buf, 24);
		add_padded(&line, r.change.buf, 24);
		add_padded(&line, r.share.buf, 8);
		add_padded(&line, have_spread(a) ? row_class(&e[i - 1]) : "", 10);
		if (paths)
			add_short_path(&line, e[i - 1].key, cut[i - 1]);
		else
			strbuf_addstr(&line, e[i - 1].key);
		if (r.calls.len)
			strbuf_addf(&line, "  (calls %s)", r.calls.buf);
		/* names come from the program's symbols: printed through the printable escape */
		fprintf_printable(f, "%s\n", line.buf);
	}
	if (changed > shown) {
		strbuf_reset(&line);
		add_rest(&line, a, e, shown, changed, findings, moved, paths);
		fprintf(f, "%s  ... %s\n", indent, line.buf);
	}
	free(cut);
	row_release(&r);
	strbuf_release(&line);
}

void attribution_text(FILE *f, const struct attribution *a, size_t top, const char *indent)
{
	struct strbuf sb = STRBUF_INIT;

	heading(&sb, a);
	fprintf(f, "%sabsolute change, %s:\n%s  %s\n", indent, attribution_weight_phrase(a), indent,
		sb.buf);
	if (!a->changed_funcs && !a->changed_paths) {
		fprintf(f, "%s  no function's %s changed\n", indent, weight_noun(a));
	} else {
		text_list(f, a, a->funcs, a->nr_funcs, a->changed_funcs, a->finding_funcs, 0,
			  false, top, indent);
		text_list(f, a, a->paths, a->nr_paths, a->changed_paths, a->finding_paths,
			  a->moved_paths, true, top, indent);
	}
	strbuf_reset(&sb);
	legend(&sb, a);
	fprintf(f, "%s  (%s)\n", indent, sb.buf);
	strbuf_release(&sb);
}

static void md_list(FILE *f, const struct attribution *a, const struct attribution_entry *e,
		    size_t n, size_t changed, size_t findings, size_t moved, bool paths,
		    size_t top)
{
	struct row r;
	struct strbuf key = STRBUF_INIT;
	size_t shown = top && n > top ? top : n;

	if (!shown)
		return;
	fprintf(
	    f, "\n| %s | baseline | target | change | share |%s%s\n|---|---:|---:|---:|---:|%s%s\n",
	    paths ? "call path (self)" : "function (self)", have_spread(a) ? " |" : "",
	    a->calls_known ? " calls per run |" : "", have_spread(a) ? "---|" : "",
	    a->calls_known ? "---:|" : "");
	row_init(&r);
	for (size_t i = 0; i < shown; i++) {
		row_fill(&r, a, &e[i]);
		strbuf_reset(&key);
		strbuf_add_md_escaped(&key, e[i].key);
		fprintf(f, "| %s | %s | %s | %s | %s |", key.buf, r.base.buf, r.target.buf,
			r.change.buf, r.share.buf);
		if (have_spread(a))
			fprintf(f, " %s |", row_class(&e[i]));
		if (a->calls_known)
			fprintf(f, " %s |", r.calls.buf);
		fputc('\n', f);
	}
	if (changed > shown) {
		strbuf_reset(&key);
		add_rest(&key, a, e, shown, changed, findings, moved, paths);
		fprintf(f, "\n%s.\n", key.buf);
	}
	row_release(&r);
	strbuf_release(&key);
}

void attribution_markdown(FILE *f, const struct attribution *a, size_t top)
{
	struct strbuf sb = STRBUF_INIT;
	heading(&sb, a);
	fprintf(f, "\nAbsolute change, %s: %s.\n", attribution_weight_phrase(a), sb.buf);
	md_list(f, a, a->funcs, a->nr_funcs, a->changed_funcs, a->finding_funcs, 0, false, top);
	md_list(f, a, a->paths, a->nr_paths, a->changed_paths, a->finding_paths, a->moved_paths,
		true, top);
	strbuf_reset(&sb);
	legend(&sb, a);
	fprintf(f, "\n%s.\n", sb.buf);
	strbuf_release(&sb);
}

static void html_list(struct strbuf *sb, const struct attribution *a,
		      const struct attribution_entry *e, size_t n, size_t changed, size_t findings,
		      size_t moved, bool paths, size_t top)
{
	struct row r;
	size_t shown = top && n > top ? top : n;

	if (!shown)
		return;
	strbuf_addf(sb,
		    "<table class=\"attribution\"><tr><th>baseline</th><th>target</th>"
		    "<th>change</th><th>share</th>%s%s<th>%s</th></tr>\n",
		    have_spread(a) ? "<th></th>" : "",
		    a->calls_known ? "<th>calls per run</th>" : "",
		    paths ? "call path (self)" : "function (self)");
	row_init(&r);
	for (size_t i = 0; i < shown; i++) {
		row_fill(&r, a, &e[i]);
		strbuf_addf(sb, "<tr class=\"%s\"><td class=\"num\">",
			    e[i].class == ATTRIBUTION_NO_SPREAD
				? "no-spread"
				: attribution_class_name(e[i].class));
		strbuf_add_xml_escaped(sb, r.base.buf);
		strbuf_addstr(sb, "</td><td class=\"num\">");
		strbuf_add_xml_escaped(sb, r.target.buf);
		strbuf_addstr(sb, "</td><td class=\"num\">");
		strbuf_add_xml_escaped(sb, r.change.buf);
		strbuf_addstr(sb, "</td><td class=\"num\">");
		strbuf_add_xml_escaped(sb, r.share.buf);
		strbuf_addstr(sb, "</td>");
		if (have_spread(a))
			strbuf_addf(sb, "<td>%s</td>", row_class(&e[i]));
		if (a->calls_known) {
			strbuf_addstr(sb, "<td class=\"num\">");
			strbuf_add_xml_escaped(sb, r.calls.buf);
			strbuf_addstr(sb, "</td>");
		}
		strbuf_addstr(sb, "<td class=\"stack\">");
		strbuf_add_xml_escaped(sb, e[i].key);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	if (changed > shown) {
		struct strbuf rest = STRBUF_INIT;
		add_rest(&rest, a, e, shown, changed, findings, moved, paths);
		strbuf_addstr(sb, "<p>");
		strbuf_add_xml_escaped(sb, rest.buf);
		strbuf_addstr(sb, ".</p>\n");
		strbuf_release(&rest);
	}
	row_release(&r);
}

void attribution_html(struct strbuf *sb, const struct attribution *a, size_t top)
{
	struct strbuf line = STRBUF_INIT;
	heading(&line, a);
	strbuf_addf(sb, "<p>Absolute change, %s: ", attribution_weight_phrase(a));
	strbuf_add_xml_escaped(sb, line.buf);
	strbuf_addstr(sb, ".</p>\n");
	html_list(sb, a, a->funcs, a->nr_funcs, a->changed_funcs, a->finding_funcs, 0, false, top);
	html_list(sb, a, a->paths, a->nr_paths, a->changed_paths, a->finding_paths,
		  a->moved_paths, true, top);
	strbuf_reset(&line);
	legend(&line, a);
	strbuf_addstr(sb, "<p class=\"note\">");
	strbuf_add_xml_escaped(sb, line.buf);
	strbuf_addstr(sb, ".</p>\n");
	strbuf_release(&line);
}
