/*
 * The attribution section under a benchmark's verdict (profile = cct): a summary of the
 * calling context tree diff of compare/compare_profile.c. The full diff is in the flame
 * graph and in `revperf diff`.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/compare_profile.h"
#include "report/attribution_report.h"
#include "report/cct_report.h"
#include "report/report.h"
#include "util/common.h"
#include "util/json_real.h"

#define PATH_WIDTH 90

/* The largest topological differences (by pweight), at most `top`, as indices. */
static size_t largest_topo(const struct cct_diff *d, size_t top, size_t *idx)
{
	size_t n = 0;
	for (size_t i = 0; i < d->nr_topo; i++) {
		size_t j = n < top ? n++ : top;
		if (j == top && (!top || d->topo[idx[top - 1]].pweight >= d->topo[i].pweight))
			continue;
		if (j == top)
			j = top - 1;
		while (j > 0 && d->topo[idx[j - 1]].pweight < d->topo[i].pweight) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	return n;
}

void report_attribution_text(FILE *f, const struct cct_attribution *a, size_t top,
			     const char *indent, bool absolute)
{
	const struct cct_diff *d = &a->diff;
	struct strbuf sb = STRBUF_INIT;
	size_t *idx, n;

	if (a->sampled)
		fprintf_printable(f, "%sattribution (sampled on-CPU time of the timing builds, %zu "
				     "+ %zu runs",
				  indent, a->runs[0], a->runs[1]);
	else
		fprintf_printable(f, "%sattribution (calling context trees, %zu + %zu profiled runs",
				  indent, a->runs[0], a->runs[1]);
	if (a->reused[0] || a->reused[1])
		fprintf(f, ", %zu + %zu reused", a->reused[0], a->reused[1]);
	fprintf(f, "):\n");
	if (a->error) {
		fprintf_printable(f, "%s  not available: %s\n", indent, a->error);
		return;
	}
	if (a->sampled) {
		fprintf_printable(f, "%s  on-CPU time in user space per run (mean): %.1f ms -> %.1f "
				     "ms; call graph %s -> %s; no call counts\n",
				  indent, a->on_cpu_ns[0] / 1e6, a->on_cpu_ns[1] / 1e6,
				  a->callgraph[0], a->callgraph[1]);
		for (const char *l = a->notes; l && *l;) {
			const char *nl = strchr(l, '\n');
			fprintf_printable(f, "%s  note: %.*s\n", indent, (int)(nl - l), l);
			l = nl + 1;
		}
	}
	if (absolute && a->have_absolute) {
		struct strbuf in = STRBUF_INIT;
		strbuf_addf(&in, "%s  ", indent);
		attribution_text(f, &a->absolute, top, in.buf);
		strbuf_release(&in);
	} else if (absolute && a->absolute_note) {
		fprintf_printable(f, "%s  no absolute change: %s\n", indent, a->absolute_note);
	}
	fprintf(f, "%s  PARCS (shares of each tree's total, METHODS.md section 5):\n", indent);
	fprintf_printable(
	    f, "%s  overlap %.2f%% of the common trees; weights adjusted down to %.2f%% (%s)\n",
	    indent, d->overlap, a->threshold,
	    a->threshold_from_runs ? "the overlap of two target runs: the noise floor"
				   : "no second target run: 100%");
	if (!a->have_bindiff)
		fprintf_printable(
		    f, "%s  no binary diff (%s): every topological difference is stage 3\n", indent,
		    a->bindiff_note ? a->bindiff_note : "unknown reason");
	idx = xcalloc(top ? top : 1, sizeof(*idx));
	n = largest_topo(d, top, idx);
	if (n)
		fprintf_printable(f, "%s  call paths in one tree only (largest %zu of %zu):\n",
				  indent, n, d->nr_topo);
	for (size_t i = 0; i < n; i++) {
		const struct cct_topo_diff *e = &d->topo[idx[i]];
		const struct cct *t = e->in_new ? d->new_tree : d->old_tree;
		strbuf_reset(&sb);
		cct_report_path(&sb, t, e->node, PATH_WIDTH);
		fprintf_printable(f, "%s    %s %-13s %6.2f%%  %s", indent, e->in_new ? "+" : "-",
				  cct_diff_stage_name(e->stage), e->pweight, sb.buf);
		if (e->stage == CCT_STAGE_ADDED_DELETED && e->caller != CCT_NONE &&
		    e->caller != CCT_ROOT)
			fprintf_printable(f, "  (called by %s)",
					  cct_name(t, t->nodes[e->caller].name));
		if (e->stage == CCT_STAGE_MODIFIED && e->nr_attr) {
			fprintf(f, "  (modified: ");
			for (size_t k = 0; k < e->nr_attr; k++)
				fprintf_printable(f, "%s%s", k ? ", " : "",
						  d->attr[e->attr_first + k]);
			fprintf(f, ")");
		}
		fputc('\n', f);
	}
	free(idx);
	bool calls = cct_report_has_calls(d->old_tree) || cct_report_has_calls(d->new_tree);
	if (d->nr_pairs)
		fprintf_printable(
		    f,
		    "%s  heavier or lighter contexts (%% of the common tree's self time, "
		    "baseline -> target%s):\n",
		    indent, calls ? "; calls" : "");
	for (size_t i = 0; i < d->nr_pairs && i < top; i++) {
		const struct cct_weight_pair *p = &d->pairs[i];
		strbuf_reset(&sb);
		cct_report_path(&sb, d->new_tree, p->new_node, PATH_WIDTH);
		if (calls)
			fprintf_printable(f, "%s    %6.2f%% -> %6.2f%%  %.0f -> %.0f  %s\n", indent,
					  p->old_pweight, p->new_pweight, p->old_calls,
					  p->new_calls, sb.buf);
		else
			fprintf_printable(f, "%s    %6.2f%% -> %6.2f%%  %s\n", indent,
					  p->old_pweight, p->new_pweight, sb.buf);
	}
	if (!d->nr_topo && !d->nr_pairs)
		fprintf_printable(f, "%s  no difference beyond the noise floor\n", indent);
	if (a->svg_path)
		fprintf_printable(f, "%s  differential flame graph: %s\n", indent, a->svg_path);
	strbuf_release(&sb);
}

json_t *report_attribution_json(const struct cct_attribution *a)
{
	json_t *o;
	if (a->error) {
		o = json_object();
		json_object_set_new(o, "error", json_string(a->error));
	} else {
		struct cct_report_options ro = { .old_label = a->labels[0],
						  .new_label = a->labels[1] };
		o = cct_diff_to_json(&a->diff, &ro);
		json_object_set_new(o, "error", json_null());
	}
	json_object_set_new(o, "absolute",
			    a->have_absolute ? attribution_json(&a->absolute) : json_null());
	json_object_set_new(o, "absolute_note",
			    a->absolute_note ? json_string(a->absolute_note) : json_null());
	json_object_set_new(o, "runs", json_pack("{s:I, s:I}", "baseline", (json_int_t)a->runs[0],
						  "target", (json_int_t)a->runs[1]));
	json_object_set_new(o, "reused", json_pack("{s:I, s:I}", "baseline",
						    (json_int_t)a->reused[0], "target",
						    (json_int_t)a->reused[1]));
	json_object_set_new(o, "threshold", json_real_or_null(a->threshold));
	json_object_set_new(o, "threshold_from_target_runs", json_boolean(a->threshold_from_runs));
	json_object_set_new(o, "binary_diff", json_boolean(a->have_bindiff));
	json_object_set_new(o, "binary_diff_note",
			    a->bindiff_note ? json_string(a->bindiff_note) : json_null());
	json_object_set_new(o, "flame_graph", a->svg_path ? json_string(a->svg_path) : json_null());
	json_object_set_new(o, "profiles", a->dir ? json_string(a->dir) : json_null());
	json_object_set_new(o, "kind", json_string(a->sampled ? "sample" : "cct"));
	if (a->sampled) {
		json_t *notes = json_array();
		json_object_set_new(o, "on_cpu_ns_per_run",
				    json_pack("{s:f, s:f}", "baseline", a->on_cpu_ns[0], "target",
					      a->on_cpu_ns[1]));
		json_object_set_new(o, "call_graph",
				    json_pack("{s:s, s:s}", "baseline", a->callgraph[0], "target",
					      a->callgraph[1]));
		for (const char *l = a->notes; l && *l;) {
			const char *nl = strchr(l, '\n');
			json_array_append_new(notes, json_stringn(l, (size_t)(nl - l)));
			l = nl + 1;
		}
		json_object_set_new(o, "notes", notes);
	}
	return o;
}
