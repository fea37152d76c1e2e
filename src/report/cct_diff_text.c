/*
 * The text report of a calling context tree diff: the profiles, the overlap, the
 * topological differences by stage, the weight differences.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/attribution_report.h"
#include "report/cct_report.h"
#include "util/common.h"

#define DEFAULT_PATH_WIDTH 100

void cct_report_path(struct strbuf *sb, const struct cct *t, uint32_t node, size_t width)
{
	uint32_t *frames = NULL;
	size_t nr = 0, alloc = 0, len = 0, tail_len, first;

	for (uint32_t n = node; n != CCT_NONE && n != CCT_ROOT; n = t->nodes[n].parent) {
		ALLOC_GROW(frames, nr + 1, alloc);
		frames[nr++] = n;
	}
	/* frames[nr - 1] is the top frame, frames[0] the node itself. */
	struct strbuf *names = xcalloc(nr ? nr : 1, sizeof(*names));
	for (size_t i = 0; i < nr; i++) {
		const struct cct_node *n = &t->nodes[frames[i]];
		strbuf_init(&names[i]);
		strbuf_addstr(&names[i], cct_name(t, n->name));
		if (n->site)
			strbuf_addf(&names[i], "#%u", (unsigned)n->site);
		len += names[i].len + (i ? 1 : 0);
	}
	if (!width || len <= width || nr <= 2) {
		for (size_t i = nr; i-- > 0;) {
			strbuf_add(sb, names[i].buf, names[i].len);
			if (i)
				strbuf_addch(sb, ';');
		}
		goto out;
	}
	/* "first;...;" then the longest tail that fits, at least the last frame. */
	tail_len = names[0].len;
	first = 1;
	while (first + 1 < nr - 1 &&
	       names[nr - 1].len + 5 + tail_len + 1 + names[first].len <= width) {
		tail_len += 1 + names[first].len;
		first++;
	}
	strbuf_add(sb, names[nr - 1].buf, names[nr - 1].len);
	strbuf_addstr(sb, ";...;");
	for (size_t i = first; i-- > 0;) {
		strbuf_add(sb, names[i].buf, names[i].len);
		if (i)
			strbuf_addch(sb, ';');
	}
out:
	for (size_t i = 0; i < nr; i++)
		strbuf_release(&names[i]);
	free(names);
	free(frames);
}

bool cct_report_has_calls(const struct cct *t)
{
	if (t->calls_known)
		return true;
	for (size_t i = 0; i < t->nr_nodes; i++)
		if (t->nodes[i].calls > 0)
			return true;
	return false;
}

double cct_report_scaled_sd(double value, double base, double base_sd)
{
	if (!(base > 0) || !isfinite(base_sd))
		return NAN;
	return value * base_sd / base;
}

void cct_report_add_count(struct strbuf *sb, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.2f", v);
}

/* "12.50%", or "12.50% ± 0.40" for a merged tree. */
static void add_pweight(struct strbuf *sb, double pweight, double sd)
{
	strbuf_addf(sb, "%6.2f%%", pweight);
	if (!isnan(sd))
		strbuf_addf(sb, " ± %.2f", sd);
}

/* "calls 5", "calls 5 ± 1.20", or nothing when the tree has no call counts. */
static void add_calls(struct strbuf *sb, const struct cct *t, bool calls, uint32_t node)
{
	if (!calls)
		return;
	strbuf_addstr(sb, "calls ");
	cct_report_add_count(sb, t->nodes[node].calls);
	if (t->sd)
		strbuf_addf(sb, " ± %.2f", t->sd[node].calls);
}

static const char *stage_heading(enum cct_diff_stage s)
{
	switch (s) {
	case CCT_STAGE_ADDED_DELETED:
		return "stage 1, added or deleted function (attributed to the caller)";
	case CCT_STAGE_MODIFIED:
		return "stage 2, direct modification (attributed to the modified functions, "
		       "nearest first)";
	case CCT_STAGE_SIDE_EFFECT: return "stage 3, side effect or non-determinism";
	}
	return "?";
}

struct text_ctx {
	FILE *f;
	const struct cct_diff *d;
	size_t path_width;
	bool calls_old, calls_new;
	struct strbuf line, path;
};

static void topo_line(struct text_ctx *c, const struct cct_topo_diff *e)
{
	const struct cct *t = e->in_new ? c->d->new_tree : c->d->old_tree;
	const struct cct_node *n = &t->nodes[e->node];
	double sd = t->sd ? cct_report_scaled_sd(e->pweight, n->incl, t->sd[e->node].incl) : NAN;

	strbuf_reset(&c->line);
	strbuf_addf(&c->line, "  %c ", e->in_new ? '+' : '-');
	add_pweight(&c->line, e->pweight, sd);
	strbuf_addstr(&c->line, "  ");
	add_calls(&c->line, t, e->in_new ? c->calls_new : c->calls_old, e->node);
	if (e->in_new ? c->calls_new : c->calls_old)
		strbuf_addstr(&c->line, "  ");
	strbuf_reset(&c->path);
	cct_report_path(&c->path, t, e->node, c->path_width);
	strbuf_addstr(&c->line, c->path.buf);
	if (e->stage == CCT_STAGE_ADDED_DELETED) {
		strbuf_addstr(&c->line, "  [caller ");
		if (e->caller == CCT_ROOT || e->caller == CCT_NONE)
			strbuf_addstr(&c->line, "none: a top frame");
		else
			strbuf_addstr(&c->line, cct_name(t, t->nodes[e->caller].name));
		strbuf_addch(&c->line, ']');
	}
	for (size_t i = 0; i < e->nr_attr; i++)
		strbuf_addf(&c->line, "%s%s", i ? ", " : "  [modified ",
			    c->d->attr[e->attr_first + i]);
	if (e->nr_attr)
		strbuf_addch(&c->line, ']');
	fprintf_printable(c->f, "%s\n", c->line.buf);
}

struct topo_rank {
	double pweight;
	size_t index;
};

/* Largest pweight first; ties in the diff's order. */
static int topo_rank_cmp(const void *pa, const void *pb)
{
	const struct topo_rank *a = pa, *b = pb;
	if (a->pweight != b->pweight)
		return a->pweight > b->pweight ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static void topo_stage(struct text_ctx *c, enum cct_diff_stage s, size_t max,
		       struct topo_rank *rank)
{
	size_t nr = 0;
	for (size_t i = 0; i < c->d->nr_topo; i++)
		if (c->d->topo[i].stage == s) {
			rank[nr].pweight = c->d->topo[i].pweight;
			rank[nr++].index = i;
		}
	if (!nr)
		return;
	qsort(rank, nr, sizeof(*rank), topo_rank_cmp);
	fprintf(c->f, "%s:\n", stage_heading(s));
	for (size_t i = 0; i < nr && (!max || i < max); i++)
		topo_line(c, &c->d->topo[rank[i].index]);
	if (max && nr > max)
		fprintf(c->f, "  ... and %zu more\n", nr - max);
}

static void pair_line(struct text_ctx *c, const struct cct_weight_pair *p)
{
	const struct cct *a = c->d->old_tree, *b = c->d->new_tree;
	double sd_a = a->sd ? cct_report_scaled_sd(p->old_pweight, a->nodes[p->old_node].excl,
						   a->sd[p->old_node].excl)
			    : NAN;
	double sd_b = b->sd ? cct_report_scaled_sd(p->new_pweight, b->nodes[p->new_node].excl,
						   b->sd[p->new_node].excl)
			    : NAN;

	strbuf_reset(&c->line);
	strbuf_addstr(&c->line, "  ");
	add_pweight(&c->line, p->old_pweight, sd_a);
	strbuf_addstr(&c->line, " -> ");
	add_pweight(&c->line, p->new_pweight, sd_b);
	strbuf_addf(&c->line, "  %+7.2f  ", p->new_pweight - p->old_pweight);
	if (c->calls_old || c->calls_new) {
		strbuf_addstr(&c->line, "calls ");
		if (c->calls_old)
			cct_report_add_count(&c->line, p->old_calls);
		else
			strbuf_addch(&c->line, '?');
		strbuf_addstr(&c->line, " -> ");
		if (c->calls_new)
			cct_report_add_count(&c->line, p->new_calls);
		else
			strbuf_addch(&c->line, '?');
		strbuf_addstr(&c->line, "  ");
	}
	strbuf_reset(&c->path);
	cct_report_path(&c->path, b, p->new_node, c->path_width);
	strbuf_addstr(&c->line, c->path.buf);
	fprintf_printable(c->f, "%s\n", c->line.buf);
}

static void profile_line(FILE *f, const char *what, const char *label, const struct cct *t)
{
	struct strbuf total = STRBUF_INIT;
	attribution_add_amount(&total, t->weight, t->weight_event, cct_total(t));
	fprintf_printable(f, "%s: %s (%zu context%s, total weight %s", what, label, t->nr_nodes - 1,
			  t->nr_nodes == 2 ? "" : "s", total.buf);
	strbuf_release(&total);
	if (t->sd)
		fprintf_printable(f, ", mean of %zu run%s", t->nr_runs, t->nr_runs == 1 ? "" : "s");
	fprintf(f, ")\n");
}

int cct_diff_report_text(FILE *f, const struct cct_diff *d, const struct cct_report_options *o)
{
	struct text_ctx c = {
	    .f = f,
	    .d = d,
	    .path_width = o && o->path_width ? o->path_width : DEFAULT_PATH_WIDTH,
	    .calls_old = cct_report_has_calls(d->old_tree),
	    .calls_new = cct_report_has_calls(d->new_tree),
	    .line = STRBUF_INIT,
	    .path = STRBUF_INIT,
	};
	struct topo_rank *rank = xmallocarray(d->nr_topo ? d->nr_topo : 1, sizeof(*rank));
	size_t max = o ? o->max_topo : 0;

	profile_line(f, "old", o && o->old_label ? o->old_label : "old", d->old_tree);
	profile_line(f, "new", o && o->new_label ? o->new_label : "new", d->new_tree);
	if (o && o->absolute) {
		fputc('\n', f);
		attribution_text(f, o->absolute, o->absolute_top, "");
		fputc('\n', f);
	} else if (o && o->absolute_note) {
		fprintf_printable(f, "no absolute change: %s\n", o->absolute_note);
	}
	/* The root is a matched pair but not a context. */
	fprintf_printable(f, "overlap %.2f%% of the common trees (%zu matched contexts)",
			  d->overlap, d->nr_matched ? d->nr_matched - 1 : 0);
	if (d->nr_pairs)
		fprintf_printable(f, "; %.2f%% after adjusting %zu weight%s", d->overlap_after,
				  d->nr_pairs, d->nr_pairs == 1 ? "" : "s");
	fputc('\n', f);

	if (d->nr_topo)
		fprintf(
		    f,
		    "\ncontexts in one tree only (+ new, - old; %% of that tree's total weight)\n");
	else
		fprintf(f, "no context in one tree only\n");
	topo_stage(&c, CCT_STAGE_ADDED_DELETED, max, rank);
	topo_stage(&c, CCT_STAGE_MODIFIED, max, rank);
	topo_stage(&c, CCT_STAGE_SIDE_EFFECT, max, rank);

	if (d->nr_pairs)
		fprintf(f,
			"\nweight differences (self weight in %% of the common trees, old -> new, "
			"change):\n");
	for (size_t i = 0; i < d->nr_pairs; i++)
		pair_line(&c, &d->pairs[i]);

	free(rank);
	strbuf_release(&c.line);
	strbuf_release(&c.path);
	return fflush(f) || ferror(f) ? -1 : 0;
}
