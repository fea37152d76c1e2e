/*
 * The differential flame graph of a calling context tree diff, as SVG: the new tree's layout
 * (width = share of the new total weight, the root at the bottom), each frame coloured by the
 * change of its pweight against the matched old context, a ranked list of the largest
 * changes under it (each row zooms on its frame), a search box, the contexts only in the old
 * tree in a table below. The document is src/report/assets/flamegraph.svg with its markers
 * filled in; it is laid out for width_px and its script lays it out again for the width of
 * the page.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/assets.h"
#include "report/attribution_report.h"
#include "report/cct_flamegraph_impl.h"
#include "report/cct_report.h"
#include "util/common.h"

#define DEFAULT_WIDTH_PX 1200u
#define MIN_WIDTH_PX 200u
#define DEFAULT_MIN_FRAME_PX 0.3
#define DEFAULT_PATH_WIDTH 100

/*
 * The length of the valid UTF-8 sequence of a non-ASCII character at p, or 0: the ranges
 * exclude overlong forms, surrogates, code points above U+10FFFF and the non-characters
 * U+FFFE and U+FFFF, none of which an XML document may contain.
 */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	if (c >= 0xc2 && c <= 0xdf && (p[1] & 0xc0) == 0x80)
		return 2;
	if (c >= 0xe0 && c <= 0xef && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80 &&
	    !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0) &&
	    !(c == 0xef && p[1] == 0xbf && p[2] >= 0xbe))
		return 3;
	if (c >= 0xf0 && c <= 0xf4 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80 &&
	    (p[3] & 0xc0) == 0x80 && !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] >= 0x90))
		return 4;
	return 0;
}

/* The number of bytes of the character at p: an invalid byte is a character of its own. */
size_t fg_char_len(const unsigned char *p)
{
	size_t len = *p < 0x80 ? 1 : utf8_len(p);
	return len ? len : 1;
}

/*
 * Appends `s` with XML escaping, keeping at most `max_chars` characters (0 = all; a cut name
 * ends in ".."). Bytes that are not valid UTF-8, and control characters, which XML 1.0 cannot
 * carry even as character references, become '?'.
 */
void fg_add_xml(struct strbuf *sb, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t nr_chars = 0, keep;

	for (const unsigned char *q = p; *q; q += fg_char_len(q))
		nr_chars++;
	keep = max_chars && nr_chars > max_chars ? (max_chars > 2 ? max_chars - 2 : 0) : nr_chars;
	for (size_t n = 0; n < keep; n++) {
		size_t len = *p < 0x80 ? 1 : utf8_len(p);
		switch (*p) {
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		case '\'': strbuf_addstr(sb, "&#39;"); break;
		default:
			if (len > 1)
				strbuf_add(sb, p, len);
			else if (!len || *p < 0x20 || *p == 0x7f)
				strbuf_addch(sb, '?');
			else
				strbuf_addch(sb, (char)*p);
			break;
		}
		p += len ? len : 1;
	}
	if (keep < nr_chars)
		strbuf_addstr(sb, "..");
}

/*
 * The matching of the diff, rebuilt: a new node not inside a topological difference is
 * matched (the diff's matching is the relaxed common tree from the roots), to the old child
 * of its parent's match with the same function and call site.
 */
static void match_nodes(struct fg_ctx *c)
{
	const struct cct *a = c->a, *b = c->b;
	uint32_t *name_map = xmallocarray(b->nr_names ? b->nr_names : 1, sizeof(*name_map));

	for (size_t i = 0; i < b->nr_names; i++)
		name_map[i] = cct_name_find(a, cct_name(b, (uint32_t)i));
	for (size_t i = 0; i < b->nr_nodes; i++)
		c->nodes[i].topo = CCT_NONE;
	for (size_t i = 0; i < c->d->nr_topo; i++)
		if (c->d->topo[i].in_new && c->d->topo[i].node < b->nr_nodes)
			c->nodes[c->d->topo[i].node].topo = (uint32_t)i;
	c->nodes[CCT_ROOT].old = CCT_ROOT;
	for (size_t i = 1; i < b->nr_nodes; i++) {
		struct fg_node *n = &c->nodes[i];
		const struct fg_node *parent = &c->nodes[b->nodes[i].parent];
		uint32_t name = name_map[b->nodes[i].name];
		n->depth = parent->depth + 1;
		if (n->topo == CCT_NONE)
			n->topo = parent->topo;
		n->old = CCT_NONE;
		if (n->topo == CCT_NONE && parent->old != CCT_NONE && name != CCT_NONE)
			n->old = cct_child_find(a, parent->old, name, b->nodes[i].site);
		if (n->old != CCT_NONE) {
			c->common_a += a->nodes[n->old].excl;
			c->common_b += b->nodes[i].excl;
		}
		if (b->nodes[i].site)
			c->has_sites = true;
	}
	c->common_a += a->nodes[CCT_ROOT].excl;
	c->common_b += b->nodes[CCT_ROOT].excl;
	for (size_t i = 1; i < a->nr_nodes && !c->has_sites; i++)
		c->has_sites = a->nodes[i].site != 0;
	free(name_map);
}

double fg_pweight(double excl, double common)
{
	return common > 0 ? 100.0 * excl / common : 0.0;
}

/* The change of the node's pweight, in points (0 for a node without a match). */
double fg_change(const struct fg_ctx *c, uint32_t node)
{
	uint32_t old = c->nodes[node].old;
	if (old == CCT_NONE)
		return 0.0;
	return fg_pweight(c->b->nodes[node].excl, c->common_b) -
	       fg_pweight(c->a->nodes[old].excl, c->common_a);
}

/* x and width per node (children left to right in list order), which nodes are drawn. */
static void layout(struct fg_ctx *c)
{
	const struct cct *b = c->b;
	double scale = c->total_b > 0 ? (c->width_px - 2 * PAD_PX) / c->total_b : 0.0;
	double max_change = 0;

	for (size_t i = 0; i < b->nr_nodes; i++) {
		struct fg_node *n = &c->nodes[i];
		double w = b->nodes[i].incl > 0 ? b->nodes[i].incl * scale : 0.0;
		if (i == CCT_ROOT) {
			n->x = PAD_PX;
		} else {
			struct fg_node *parent = &c->nodes[b->nodes[i].parent];
			n->x = parent->cursor_x;
			parent->cursor_x += w;
		}
		n->w = w;
		n->cursor_x = n->x;
		n->drawn = (w >= c->min_frame_px || (n->forced && w > 0)) &&
			   (i == CCT_ROOT || c->nodes[b->nodes[i].parent].drawn);
		if (!n->drawn) {
			c->nr_omitted++;
			continue;
		}
		c->nr_drawn++;
		if (n->depth > c->max_depth)
			c->max_depth = n->depth;
		if (fabs(fg_change(c, (uint32_t)i)) > max_change)
			max_change = fabs(fg_change(c, (uint32_t)i));
	}
	c->color_scale = max_change > MIN_COLOR_SCALE ? max_change : MIN_COLOR_SCALE;
}

static void add_fill(struct fg_ctx *c, uint32_t node)
{
	static const double grey[3] = {228, 228, 228}, red[3] = {235, 30, 30},
			    blue[3] = {40, 90, 235};
	double d = fg_change(c, node), t;
	const double *to;

	if (node != CCT_ROOT && c->nodes[node].old == CCT_NONE) {
		strbuf_addstr(&c->sb, "url(#only-new)");
		return;
	}
	t = fmin(fabs(d) / c->color_scale, 1.0);
	to = d > 0 ? red : blue;
	if (fabs(d) < UNCHANGED_EPS)
		t = 0;
	strbuf_addf(&c->sb, "rgb(%d,%d,%d)", (int)lround(grey[0] + t * (to[0] - grey[0])),
		    (int)lround(grey[1] + t * (to[1] - grey[1])),
		    (int)lround(grey[2] + t * (to[2] - grey[2])));
}

static double percent(double v, double total)
{
	return total > 0 ? 100.0 * v / total : 0.0;
}

/* The tooltip: name, context, inclusive shares, pweights, calls; one line each. */
static void add_tooltip(struct fg_ctx *c, uint32_t node)
{
	const struct cct_node *n = &c->b->nodes[node];
	const struct fg_node *fn = &c->nodes[node];
	const struct cct_node *o = fn->old != CCT_NONE ? &c->a->nodes[fn->old] : NULL;

	if (node == CCT_ROOT) {
		strbuf_addstr(&c->sb, "all\ntotal weight: ");
		attribution_add_amount(&c->sb, c->a->weight, c->a->weight_event, c->total_a);
		strbuf_addstr(&c->sb, " -> ");
		attribution_add_amount(&c->sb, c->b->weight, c->b->weight_event, c->total_b);
		return;
	}
	fg_add_xml(&c->sb, cct_name(c->b, n->name), 0);
	if (n->site)
		strbuf_addf(&c->sb, " (call site %u)", (unsigned)n->site);
	strbuf_addch(&c->sb, '\n');
	strbuf_reset(&c->path);
	cct_report_path(&c->path, c->b, node, TOOLTIP_PATH_WIDTH);
	fg_add_xml(&c->sb, c->path.buf, 0);
	if (fn->top)
		strbuf_addf(&c->sb, "\nchange ranked %u of the %zu largest (list below)",
			    (unsigned)fn->top, c->nr_top);
	if (!o) {
		const struct cct_topo_diff *e = fn->topo != CCT_NONE ? &c->d->topo[fn->topo] : NULL;
		strbuf_addstr(&c->sb, "\nonly in the new profile");
		if (e)
			strbuf_addf(&c->sb, " (stage %d, %s)", (int)e->stage,
				    cct_diff_stage_name(e->stage));
		strbuf_addf(&c->sb, "\ninclusive: %.2f%% of the new total",
			    percent(n->incl, c->total_b));
		if (c->calls_b) {
			strbuf_addstr(&c->sb, "\ncalls: ");
			cct_report_add_count(&c->sb, n->calls);
		}
		return;
	}
	strbuf_addf(&c->sb, "\ninclusive: %.2f%% -> %.2f%% of the total",
		    percent(o->incl, c->total_a), percent(n->incl, c->total_b));
	strbuf_addf(&c->sb, "\nself (pweight): %.2f%% -> %.2f%% of the common trees (%+.2f)",
		    fg_pweight(o->excl, c->common_a), fg_pweight(n->excl, c->common_b),
		    fg_change(c, node));
	if (c->calls_a || c->calls_b) {
		strbuf_addstr(&c->sb, "\ncalls: ");
		if (c->calls_a)
			cct_report_add_count(&c->sb, o->calls);
		else
			strbuf_addch(&c->sb, '?');
		strbuf_addstr(&c->sb, " -> ");
		if (c->calls_b)
			cct_report_add_count(&c->sb, n->calls);
		else
			strbuf_addch(&c->sb, '?');
	}
}

/* y of a frame inside the frames group: the root at the bottom. */
static double frame_y(const struct fg_ctx *c, uint32_t depth)
{
	return (double)(c->max_depth - depth) * FRAME_PX;
}

static double frames_height(const struct fg_ctx *c)
{
	return (double)(c->max_depth + 1) * FRAME_PX;
}

static void write_frames(struct fg_ctx *c)
{
	const struct cct *b = c->b;
	for (size_t i = 0; i < b->nr_nodes; i++) {
		const struct fg_node *n = &c->nodes[i];
		double label_chars;
		if (!n->drawn)
			continue;
		strbuf_reset(&c->sb);
		strbuf_addf(&c->sb, "<g class=\"f%s\" id=\"f%zu\" data-p=\"%u\"><title>",
			    n->top ? " top" : "", i,
			    i == CCT_ROOT ? 0u : (unsigned)b->nodes[i].parent);
		add_tooltip(c, (uint32_t)i);
		strbuf_addf(&c->sb,
			    "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
			    "fill=\"",
			    n->x, frame_y(c, n->depth), n->w, FRAME_PX - 1);
		add_fill(c, (uint32_t)i);
		strbuf_addf(&c->sb, "\"/><text x=\"%.2f\" y=\"%.1f\">", n->x + LABEL_PAD_PX,
			    frame_y(c, n->depth) + FRAME_PX - 4.5);
		label_chars = floor((n->w - 2 * LABEL_PAD_PX) / CHAR_PX);
		if (label_chars >= 3)
			fg_add_xml(&c->sb, i == CCT_ROOT ? "all" : cct_name(b, b->nodes[i].name),
				   (size_t)label_chars);
		strbuf_addstr(&c->sb, "</text></g>\n");
		fwrite(c->sb.buf, 1, c->sb.len, c->f);
	}
}

/*
 * Appends `text` as one paragraph at y: a <text class="wrap"> whose <tspan> lines hold
 * whole words, at most `chars` characters each (a longer word is cut). Returns the number
 * of lines. The script wraps the same words again for the page's width.
 */
static size_t add_paragraph(struct strbuf *out, const char *text, size_t chars, double y)
{
	size_t lines = 0, line_chars = 0;
	const char *p = text;

	strbuf_addf(out, "<text class=\"wrap sub\" x=\"%.1f\" y=\"%.1f\">", PAD_PX, y);
	while (*p) {
		size_t word = strcspn(p, " "), word_chars = 0;
		for (size_t i = 0; i < word; i += fg_char_len((const unsigned char *)p + i))
			word_chars++;
		if (!lines || (line_chars && line_chars + 1 + word_chars > chars)) {
			if (lines)
				strbuf_addstr(out, "</tspan>");
			strbuf_addf(out, "<tspan x=\"%.1f\" dy=\"%.0f\">", PAD_PX,
				    lines ? LINE_PX : 0.0);
			lines++;
			line_chars = 0;
		} else if (line_chars) {
			/* Words of one line are one tspan; the script splits at spaces. */
			strbuf_addch(out, ' ');
			line_chars++;
		}
		{
			char *w = xstrndup(p, word);
			fg_add_xml(out, w, 0);
			free(w);
		}
		line_chars += word_chars;
		p += word;
		while (*p == ' ')
			p++;
	}
	if (lines)
		strbuf_addstr(out, "</tspan>");
	strbuf_addstr(out, "</text>\n");
	return lines;
}

/* The paragraphs under the title, and from their height the layout of everything below. */
static void layout_vertical(struct fg_ctx *c)
{
	struct strbuf text = STRBUF_INIT;
	size_t chars = (size_t)fmax(10, floor((c->width_px - 2 * PAD_PX) / CHAR_PX));
	double y = FIRST_LINE_Y;

	strbuf_addf(&text, "%s -> %s: width = share of the new total weight (", c->old_label,
		    c->new_label);
	cct_report_add_count(&text, c->total_b);
	strbuf_addf(&text, "); overlap %.2f%%", c->d->overlap);
	if (c->nr_omitted)
		strbuf_addf(&text, "; %zu contexts narrower than %.2g px not drawn", c->nr_omitted,
			    c->min_frame_px);
	strbuf_addch(&text, '.');
	y += (double)add_paragraph(&c->header, text.buf, chars, y) * LINE_PX + 2;
	strbuf_reset(&text);
	strbuf_addf(&text,
		    "Colour = change of the self weight share (pweight): red more, blue less, "
		    "full at %.2f points; hatched red = only in the new profile; outlined = the "
		    "largest changes, listed under the graph. Hover for values, click to zoom, "
		    "search names in the box below.",
		    c->color_scale);
	y += (double)add_paragraph(&c->header, text.buf, chars, y) * LINE_PX + 2;
	if (c->has_sites) {
		y += (double)add_paragraph(
			 &c->header,
			 "f#N in a path = the call to f from the place of rank N among the "
			 "places in the caller's code that call f (counted from 0 in address "
			 "order; #0 is not written). Call sites are ranked, not addressed, so "
			 "that they match across builds; --plain merges them.",
			 chars, y) *
			 LINE_PX +
		     2;
	}
	c->search_y = y;
	if (c->nr_top) {
		strbuf_reset(&text);
		strbuf_addf(&text,
			    "The %zu largest changes, in points of the self weight share "
			    "(pweight); %s. Click a row to show its frame.",
			    c->nr_top,
			    c->a->sd && c->b->sd
				? "± one sd over the runs of both sides"
				: "one run per side: the run-to-run spread is not known");
		c->top_lines = add_paragraph(&c->top_heading, text.buf, chars, 0);
	}
	if (fg_removed_rows(c)) {
		size_t n = fg_removed_rows(c);
		strbuf_reset(&text);
		strbuf_addf(&text,
			    "Only in %s (not drawn above): %zu context%s, %% of the old total "
			    "weight.",
			    c->old_label, n, n == 1 ? "" : "s");
		c->removed_lines = add_paragraph(&c->removed_heading, text.buf, chars, 0);
	}
	c->frames_y = y + SEARCH_PX + TOOLS_PX + 8;
	c->top_y = c->frames_y + frames_height(c) + GAP_PX;
	c->removed_y = c->top_y + fg_top_height(c);
	c->height = c->removed_y + fg_removed_height(c) + PAD_PX;
	strbuf_release(&text);
}

static void write_marker(struct fg_ctx *c, const char *name, size_t len)
{
	static const char *const numbers[] = {
	    "WIDTH",	     "HALF_WIDTH", "HEIGHT",	 "SEARCH_Y",  "TOOLS_Y",	"FRAMES_Y",
	    "FRAMES_HEIGHT", "TOP_Y",	   "TOP_HEIGHT", "REMOVED_Y", "REMOVED_HEIGHT",
	};
	const double values[] = {
	    c->width_px,
	    c->width_px / 2,
	    c->height,
	    c->search_y,
	    c->search_y + SEARCH_PX,
	    c->frames_y,
	    frames_height(c),
	    c->top_y,
	    fg_top_height(c),
	    c->removed_y,
	    fg_removed_height(c),
	};

	strbuf_reset(&c->sb);
	for (size_t i = 0; i < ARRAY_SIZE(numbers); i++)
		if (strlen(numbers[i]) == len && !memcmp(name, numbers[i], len)) {
			strbuf_addf(&c->sb, "%.0f", values[i]);
			fwrite(c->sb.buf, 1, c->sb.len, c->f);
			return;
		}
	if (len == 5 && !memcmp(name, "TITLE", len)) {
		fg_add_xml(&c->sb, c->title, 0);
	} else if (len == 6 && !memcmp(name, "HEADER", len)) {
		strbuf_add(&c->sb, c->header.buf, c->header.len);
	} else if (len == 6 && !memcmp(name, "FRAMES", len)) {
		write_frames(c);
		return;
	} else if (len == 3 && !memcmp(name, "TOP", len)) {
		fg_write_top(c);
		return;
	} else if (len == 7 && !memcmp(name, "REMOVED", len)) {
		fg_write_removed(c);
		return;
	} else {
		/* Not a marker: copied as it is. */
		fputc('@', c->f);
		fwrite(name, 1, len, c->f);
		fputc('@', c->f);
		return;
	}
	fwrite(c->sb.buf, 1, c->sb.len, c->f);
}

/* Copies the template, replacing each marker (an upper-case name between two '@'). */
static void expand_template(struct fg_ctx *c, const char *tmpl, size_t len)
{
	size_t i = 0;
	while (i < len) {
		const char *at = memchr(tmpl + i, '@', len - i);
		size_t start, end;
		if (!at) {
			fwrite(tmpl + i, 1, len - i, c->f);
			break;
		}
		start = (size_t)(at - tmpl);
		fwrite(tmpl + i, 1, start - i, c->f);
		end = start + 1;
		while (end < len && ((tmpl[end] >= 'A' && tmpl[end] <= 'Z') || tmpl[end] == '_'))
			end++;
		if (end < len && tmpl[end] == '@' && end > start + 1) {
			write_marker(c, tmpl + start + 1, end - start - 1);
			i = end + 1;
		} else {
			fputc('@', c->f);
			i = start + 1;
		}
	}
}

int cct_diff_report_svg(FILE *f, const struct cct_diff *d, const struct cct_report_options *o)
{
	struct fg_ctx c = {
	    .f = f,
	    .d = d,
	    .a = d->old_tree,
	    .b = d->new_tree,
	    .old_label = o && o->old_label ? o->old_label : "old",
	    .new_label = o && o->new_label ? o->new_label : "new",
	    .title = o && o->title ? o->title : "Differential flame graph",
	    .width_px = o && o->width_px ? (double)o->width_px : DEFAULT_WIDTH_PX,
	    .min_frame_px = o && o->min_frame_px > 0 ? o->min_frame_px : DEFAULT_MIN_FRAME_PX,
	    .total_a = cct_total(d->old_tree),
	    .total_b = cct_total(d->new_tree),
	    .calls_a = cct_report_has_calls(d->old_tree),
	    .calls_b = cct_report_has_calls(d->new_tree),
	    .header = STRBUF_INIT,
	    .top_heading = STRBUF_INIT,
	    .removed_heading = STRBUF_INIT,
	    .sb = STRBUF_INIT,
	    .path = STRBUF_INIT,
	};

	if (c.width_px < MIN_WIDTH_PX)
		c.width_px = MIN_WIDTH_PX;
	c.nodes = xcalloc(c.b->nr_nodes, sizeof(*c.nodes));
	match_nodes(&c);
	fg_select_top(&c);
	layout(&c);
	layout_vertical(&c);
	expand_template(&c, revperf_asset_flamegraph_svg, revperf_asset_flamegraph_svg_len);
	free(c.nodes);
	strbuf_release(&c.header);
	strbuf_release(&c.top_heading);
	strbuf_release(&c.removed_heading);
	strbuf_release(&c.sb);
	strbuf_release(&c.path);
	return fflush(f) || ferror(f) ? -1 : 0;
}
