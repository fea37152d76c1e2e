#ifndef REVPERF_REPORT_CCT_FLAMEGRAPH_IMPL_H
#define REVPERF_REPORT_CCT_FLAMEGRAPH_IMPL_H

/*
 * Private to src/report/: what the two halves of the differential flame graph share,
 * cct_flamegraph.c (the matching, the frames, the paragraphs, the template) and
 * cct_flamegraph_lists.c (the ranked list of the largest changes, the contexts only in the
 * old tree). One context per document; not thread-safe for the same context.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/cct_diff.h"
#include "util/strbuf.h"

/* Must match the constants of the template's script (FG_PAD, FG_LINE, ...). */
#define PAD_PX 10.0
#define FRAME_PX 16.0
#define ROW_PX 16.0
#define LINE_PX 14.0
#define FIRST_LINE_Y 44.0
#define SEARCH_PX 24.0
#define TOOLS_PX 18.0
#define GAP_PX 24.0
/* The monospace font of the template at 11px; must match FG_CHAR_PX and FG_LABEL_PAD. */
#define CHAR_PX 6.6
#define LABEL_PAD_PX 3.0
/* Rows of the ranked list of the largest changes. */
#define TOP_CHANGES 10
/* Colour intensity: |change| / max(largest |change| drawn, this), in pweight points. */
#define MIN_COLOR_SCALE 1.0
/* Changes smaller than this (pweight points) are drawn as unchanged. */
#define UNCHANGED_EPS 0.005
/* Contexts only in the old tree listed under the graph; JSON lists all of them. */
#define MAX_REMOVED_ROWS 20
/* Contexts in tooltips are shortened beyond this many bytes. */
#define TOOLTIP_PATH_WIDTH 400

/* Per node of the new tree. */
struct fg_node {
	uint32_t old;	/* the matched old node, or CCT_NONE */
	uint32_t topo;	/* the topological difference it is part of, or CCT_NONE */
	uint32_t depth; /* the root is 0 */
	uint32_t top;	/* rank in the list of the largest changes + 1, 0 = not listed */
	bool drawn;
	bool forced;	 /* drawn however narrow: listed, or the ancestor of a listed frame */
	double x, w;	 /* px */
	double cursor_x; /* where the next child starts */
};

/* A row of the list of the largest changes. */
struct fg_top {
	uint32_t node;
	double value; /* pweight change in points; for a context only in the new tree, its
			 inclusive share of the new total */
	double sd;    /* of the value over the runs of both sides; NAN when unknown */
	bool only_new;
};

struct fg_ctx {
	FILE *f;
	const struct cct_diff *d;
	const struct cct *a, *b;
	const char *old_label, *new_label, *title;
	struct fg_node *nodes;
	double width_px, min_frame_px;
	double total_a, total_b;   /* whole trees */
	double common_a, common_b; /* self weight of the matched nodes */
	double color_scale;
	uint32_t max_depth;
	size_t nr_drawn, nr_omitted;
	bool calls_a, calls_b, has_sites;
	struct fg_top top[TOP_CHANGES];
	size_t nr_top;
	/* Vertical layout at width_px: the script computes it again for the page. */
	double search_y, frames_y, top_y, removed_y, height;
	struct strbuf header; /* the paragraphs under the title, wrapped for width_px */
	struct strbuf top_heading, removed_heading; /* the same, of the lists */
	size_t top_lines, removed_lines;	    /* their lines at width_px */
	struct strbuf sb, path;
};

/* The length in bytes of the (UTF-8) character at p; an invalid byte is one character. */
size_t fg_char_len(const unsigned char *p);
/*
 * Appends `s` XML-escaped, at most `max_chars` characters (0 = all; a cut name ends in "..");
 * bytes that are not valid UTF-8 and control characters become '?'.
 */
void fg_add_xml(struct strbuf *sb, const char *s, size_t max_chars);
/* 100 x excl / common, 0 when common is 0. */
double fg_pweight(double excl, double common);
/* The change of the node's pweight in points, 0 for a node without a match. */
double fg_change(const struct fg_ctx *c, uint32_t node);

/*
 * Chooses the rows of the ranked list (c->top) after the matching: matched contexts by the
 * change of their pweight, contexts only in the new tree by their share, at most
 * TOP_CHANGES; marks their frames and their ancestors' to be drawn however narrow.
 */
void fg_select_top(struct fg_ctx *c);
/* Heights at width_px of the ranked list and of the table of contexts only in the old tree
 * (c->top_lines and c->removed_lines set), and how many such contexts there are. */
double fg_top_height(const struct fg_ctx *c);
double fg_removed_height(const struct fg_ctx *c);
size_t fg_removed_rows(const struct fg_ctx *c);
/* Write the ranked list and the table into c->f, their headings first. */
void fg_write_top(struct fg_ctx *c);
void fg_write_removed(struct fg_ctx *c);

#endif
