/*
 * The lists under the differential flame graph (report/cct_flamegraph_impl.h): the ranked
 * list of the largest changes, each row linked to its frame, and the contexts only in the
 * old tree, which the graph (the new tree's layout) cannot draw.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/cct_flamegraph_impl.h"
#include "report/cct_report.h"
#include "util/common.h"

/* The sd of a share `p` of a merged tree from its node's weight and sd (0 when both are). */
static double share_sd(double p, double weight, double sd)
{
	if (weight == 0 && sd == 0)
		return 0;
	return cct_report_scaled_sd(p, weight, sd);
}

static int top_cmp(const void *pa, const void *pb)
{
	const struct fg_top *a = pa, *b = pb;
	if (fabs(a->value) != fabs(b->value))
		return fabs(a->value) > fabs(b->value) ? -1 : 1;
	return a->node < b->node ? -1 : a->node > b->node;
}

/*
 * The largest changes: matched contexts by the change of their pweight, contexts only in
 * the new tree (the root of each such subtree) by their share; at most TOP_CHANGES. Their
 * frames, and their ancestors', are drawn however narrow.
 */
void fg_select_top(struct fg_ctx *c)
{
	const struct cct *a = c->a, *b = c->b;
	struct fg_top *all = xmallocarray(b->nr_nodes, sizeof(*all));
	size_t nr = 0;
	bool spread = a->sd && b->sd;

	for (size_t i = 1; i < b->nr_nodes; i++) {
		const struct fg_node *n = &c->nodes[i];
		struct fg_top *t = &all[nr];
		t->node = (uint32_t)i;
		t->sd = NAN;
		if (n->old != CCT_NONE) {
			double v = fg_change(c, (uint32_t)i);
			if (fabs(v) < UNCHANGED_EPS)
				continue;
			t->value = v;
			t->only_new = false;
			if (spread) {
				const struct cct_node *o = &a->nodes[n->old], *m = &b->nodes[i];
				double so = share_sd(fg_pweight(o->excl, c->common_a), o->excl,
						     a->sd[n->old].excl);
				double sn = share_sd(fg_pweight(m->excl, c->common_b), m->excl,
						     b->sd[i].excl);
				t->sd = sqrt(so * so + sn * sn);
			}
		} else if (n->topo != CCT_NONE && c->d->topo[n->topo].node == i) {
			const struct cct_topo_diff *e = &c->d->topo[n->topo];
			t->value = e->pweight;
			t->only_new = true;
			if (b->sd)
				t->sd = share_sd(e->pweight, b->nodes[i].incl, b->sd[i].incl);
		} else {
			continue;
		}
		nr++;
	}
	qsort(all, nr, sizeof(*all), top_cmp);
	c->nr_top = nr < TOP_CHANGES ? nr : TOP_CHANGES;
	for (size_t k = 0; k < c->nr_top; k++) {
		c->top[k] = all[k];
		c->nodes[all[k].node].top = (uint32_t)k + 1;
		for (uint32_t u = all[k].node; u != CCT_NONE && !c->nodes[u].forced;
		     u = b->nodes[u].parent)
			c->nodes[u].forced = true;
	}
	free(all);
}

/* The number of path characters a row starting at x with `lead` characters has room for. */
static size_t row_room(const struct fg_ctx *c, double x, size_t lead)
{
	double room = floor((c->width_px - PAD_PX - x) / CHAR_PX) - (double)lead;
	return room > 10 ? (size_t)room : 10;
}

/* A row's text: the fixed part and the path, which the script shortens to fit the page. */
static void add_row_text(struct fg_ctx *c, double x, double y, const char *lead,
			 const struct cct *t, uint32_t node)
{
	strbuf_addf(&c->sb, "<text class=\"row\" x=\"%.1f\" y=\"%.1f\"><tspan class=\"lead\">", x,
		    y);
	fg_add_xml(&c->sb, lead, 0);
	strbuf_addstr(&c->sb, "</tspan><tspan class=\"path\">");
	strbuf_reset(&c->path);
	cct_report_path(&c->path, t, node, row_room(c, x, strlen(lead)));
	fg_add_xml(&c->sb, c->path.buf, 0);
	strbuf_addstr(&c->sb, "</tspan></text>");
}

double fg_top_height(const struct fg_ctx *c)
{
	return c->nr_top ? (double)(c->top_lines - 1) * LINE_PX + (double)(c->nr_top + 1) * ROW_PX +
			       GAP_PX
			 : 0.0;
}

/* A list's heading (a paragraph at y 0) and the start of its rows, moved down by the
 * heading's extra lines (the script moves them again for the page's width). */
static void write_heading(struct fg_ctx *c, const struct strbuf *heading, size_t lines)
{
	fwrite(heading->buf, 1, heading->len, c->f);
	fprintf(c->f, "<g class=\"rows\" transform=\"translate(0,%.0f)\">\n",
		(double)(lines - 1) * LINE_PX);
}

/* The ranked list of the largest changes, each row linked to its frame. */
void fg_write_top(struct fg_ctx *c)
{
	struct strbuf lead = STRBUF_INIT;

	if (!c->nr_top)
		return;
	write_heading(c, &c->top_heading, c->top_lines);
	for (size_t k = 0; k < c->nr_top; k++) {
		const struct fg_top *t = &c->top[k];
		const struct fg_node *n = &c->nodes[t->node];
		strbuf_reset(&lead);
		strbuf_addf(&lead, "%2zu. ", k + 1);
		if (t->only_new)
			strbuf_addf(&lead, "%6.2f%% only in new", t->value);
		else
			strbuf_addf(&lead, "%+7.2f", t->value);
		if (!isnan(t->sd))
			strbuf_addf(&lead, " ± %.2f", t->sd);
		strbuf_addstr(&lead, n->drawn ? "  " : "  (no width in the new profile)  ");
		strbuf_reset(&c->sb);
		if (n->drawn)
			strbuf_addf(&c->sb, "<g class=\"top-row\" data-f=\"f%u\">",
				    (unsigned)t->node);
		else
			strbuf_addstr(&c->sb, "<g class=\"top-row-undrawn\">");
		strbuf_addstr(&c->sb, "<title>");
		strbuf_reset(&c->path);
		cct_report_path(&c->path, c->b, t->node, TOOLTIP_PATH_WIDTH);
		fg_add_xml(&c->sb, c->path.buf, 0);
		strbuf_addstr(&c->sb, "</title>");
		add_row_text(c, PAD_PX, (double)(k + 1) * ROW_PX, lead.buf, c->b, t->node);
		strbuf_addstr(&c->sb, "</g>\n");
		fwrite(c->sb.buf, 1, c->sb.len, c->f);
	}
	fputs("</g>\n", c->f);
	strbuf_release(&lead);
}

struct removed_rank {
	double pweight;
	size_t index;
};

static int removed_cmp(const void *pa, const void *pb)
{
	const struct removed_rank *a = pa, *b = pb;
	if (a->pweight != b->pweight)
		return a->pweight > b->pweight ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

size_t fg_removed_rows(const struct fg_ctx *c)
{
	size_t rows = 0;
	for (size_t i = 0; i < c->d->nr_topo; i++)
		rows += !c->d->topo[i].in_new;
	return rows;
}

double fg_removed_height(const struct fg_ctx *c)
{
	size_t rows = fg_removed_rows(c);
	if (rows > MAX_REMOVED_ROWS)
		rows = MAX_REMOVED_ROWS + 1;
	return rows ? (double)(c->removed_lines - 1) * LINE_PX + (double)(rows + 1) * ROW_PX : 0.0;
}

/* The contexts only in the old tree (no width in the new one), largest first. */
void fg_write_removed(struct fg_ctx *c)
{
	const struct cct_diff *d = c->d;
	struct removed_rank *rank = xmallocarray(d->nr_topo ? d->nr_topo : 1, sizeof(*rank));
	struct strbuf lead = STRBUF_INIT;
	size_t nr = 0, shown;

	for (size_t i = 0; i < d->nr_topo; i++)
		if (!d->topo[i].in_new) {
			rank[nr].pweight = d->topo[i].pweight;
			rank[nr++].index = i;
		}
	qsort(rank, nr, sizeof(*rank), removed_cmp);
	if (!nr)
		goto out;
	write_heading(c, &c->removed_heading, c->removed_lines);
	shown = nr < MAX_REMOVED_ROWS ? nr : MAX_REMOVED_ROWS;
	for (size_t k = 0; k < shown; k++) {
		const struct cct_topo_diff *e = &d->topo[rank[k].index];
		double ry = (double)(k + 1) * ROW_PX;
		strbuf_reset(&c->sb);
		strbuf_addstr(&c->sb, "<g class=\"removed\"><title>");
		strbuf_reset(&c->path);
		cct_report_path(&c->path, c->a, e->node, TOOLTIP_PATH_WIDTH);
		fg_add_xml(&c->sb, c->path.buf, 0);
		strbuf_addf(&c->sb,
			    "\nonly in the old profile (stage %d, %s)\n%.2f%% of the old total",
			    (int)e->stage, cct_diff_stage_name(e->stage), e->pweight);
		if (c->calls_a) {
			strbuf_addstr(&c->sb, "\ncalls: ");
			cct_report_add_count(&c->sb, e->calls);
		}
		strbuf_addf(&c->sb,
			    "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" "
			    "fill=\"url(#only-old)\"/>",
			    PAD_PX, ry - 10);
		strbuf_reset(&lead);
		strbuf_addf(&lead, "%6.2f%%  %-13s  ", e->pweight, cct_diff_stage_name(e->stage));
		add_row_text(c, PAD_PX + 18, ry, lead.buf, c->a, e->node);
		strbuf_addstr(&c->sb, "</g>\n");
		fwrite(c->sb.buf, 1, c->sb.len, c->f);
	}
	if (nr > shown) {
		strbuf_reset(&c->sb);
		strbuf_addf(
		    &c->sb,
		    "<text class=\"sub\" x=\"%.1f\" y=\"%.1f\">... and %zu more (revperf diff "
		    "--format json lists all)</text>\n",
		    PAD_PX + 18, (double)(shown + 1) * ROW_PX, nr - shown);
		fwrite(c->sb.buf, 1, c->sb.len, c->f);
	}
	fputs("</g>\n", c->f);
out:
	strbuf_release(&lead);
	free(rank);
}
