/*
 * Control-chart reports: text, JSON, Markdown and one SVG chart per counter
 * (docs/counters.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/fsutil.h"
#include "report/chart_report.h"
#include "util/common.h"
#include "util/json_real.h"

static const char *side_label(const struct chart_labels *l, int side)
{
	if (!l)
		return side ? "target" : "baseline";
	return side ? l->target : l->baseline;
}

/* What happened to a counter besides its limits: filter and scaling notes. */
static void add_notes(struct strbuf *sb, const struct cchart_counter *c)
{
	if (c->dropped_base || c->dropped_target)
		strbuf_addf(sb, "%sidle periods: dropped %zu baseline + %zu target samples",
			    sb->len ? "; " : "", c->dropped_base, c->dropped_target);
	if (c->scaling == CCHART_SCALE_DONE)
		strbuf_addf(sb, "%sscaled to the baseline load (c = %.4g l + %.4g)",
			    sb->len ? "; " : "", c->alpha, c->beta);
	else if (c->scaling == CCHART_SCALE_NO_FIT || c->scaling == CCHART_SCALE_BAD_REF ||
		 c->scaling == CCHART_SCALE_FLAT)
		strbuf_addf(sb, "%snot load-scaled: %s", sb->len ? "; " : "",
			    cchart_scaling_name(c->scaling));
	if (c->threshold_fallback)
		strbuf_addf(sb, "%sone baseline run: threshold = its own ratio",
			    sb->len ? "; " : "");
}

/* "1 in 10": the chance that a good target exceeds the threshold, 1 / (n + 1). */
static void add_chance(struct strbuf *sb, double chance)
{
	strbuf_addf(sb, "1 in %.0f", 1 / chance);
}

/* The bimodal filter's line: what it decided on and what it dropped. */
static void filter_text(FILE *f, const struct cchart_filter *flt, const char *indent)
{
	fprintf(f, "%s  bimodal filter on CPU utilisation (%s%s): ", indent, flt->cpu,
		flt->scaling == CCHART_SCALE_DONE ? ", load-scaled" : "");
	if (!flt->on)
		fprintf(f, "off\n");
	else if (!flt->nr_base_cpu)
		fprintf(f, "no CPU samples in the baseline, nothing dropped\n");
	else if (flt->whole_run != SIZE_MAX)
		fprintf(f,
			"two modes, but %s lies below the valley (%.4g) throughout: runs that got "
			"less CPU, not idle time; nothing dropped\n",
			flt->whole_run_name, flt->refused_cut);
	else if (isnan(flt->sw_p))
		fprintf(f, "too few CPU samples to test, nothing dropped\n");
	else if (!(flt->sw_p < 0.05))
		fprintf(f, "normal (Shapiro-Wilk p %.2g), nothing dropped\n", flt->sw_p);
	else if (flt->nr_modes < 2)
		fprintf(f, "one mode (Shapiro-Wilk p %.2g), nothing dropped\n", flt->sw_p);
	else if (!flt->active)
		fprintf(f,
			"%zu modes without a valley between the two highest (Shapiro-Wilk p %.2g), "
			"nothing dropped\n",
			flt->nr_modes, flt->sw_p);
	else
		fprintf(f,
			"idle below %.4g, dropped from every counter: %zu of %zu baseline and "
			"%zu of %zu target CPU samples' periods\n",
			flt->cut, flt->nr_idle[0], flt->nr_cpu[0], flt->nr_idle[1], flt->nr_cpu[1]);
	if (flt->on && flt->active && flt->nr_target_whole) {
		fprintf_printable(f, "%s    %s", indent, flt->target_whole_name);
		if (flt->nr_target_whole > 1)
			fprintf(f, " and %zu more target run%s", flt->nr_target_whole - 1,
				flt->nr_target_whole == 2 ? "" : "s");
		fprintf(f,
			" %s below the cut throughout: not idle time but less CPU (a "
			"loaded machine, or a slower program), kept whole\n",
			flt->nr_target_whole > 1 ? "lie" : "lies");
	}
}

void chart_report_not_judged(struct strbuf *sb, const struct cchart_result *r)
{
	size_t k = 0;

	strbuf_addf(sb, "of %zu counter%s", r->nr_counters, r->nr_counters == 1 ? "" : "s");
	for (int st = 0; st < CCHART_NR_STATUS; st++) {
		size_t n = st == CCHART_CHARTED ? r->nr_no_headroom : r->nr_status[st];
		const char *name = st == CCHART_CHARTED
				       ? "no headroom"
				       : cchart_status_name((enum cchart_status)st);
		if (n)
			strbuf_addf(sb, "%s %zu %s", k++ ? "," : ":", n, name);
	}
}

json_t *chart_report_not_judged_json(const struct cchart_result *r)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "no_headroom", (json_int_t)r->nr_no_headroom,
			 "only_in_baseline", (json_int_t)r->nr_status[CCHART_ONLY_BASELINE],
			 "only_in_target", (json_int_t)r->nr_status[CCHART_ONLY_TARGET],
			 "no_samples", (json_int_t)r->nr_status[CCHART_NO_SAMPLES], "idle",
			 (json_int_t)r->nr_status[CCHART_IDLE]);
}

void chart_report_text(FILE *f, const struct cchart_result *r, const struct chart_labels *l,
		       const char *indent)
{
	struct strbuf sb = STRBUF_INIT;
	size_t in_control = 0, other = 0, judged = r->nr_judged;

	fprintf_printable(f, "%scontrol charts: %s (%zu run%s) against %s (%zu run%s); limits %s",
			  indent, side_label(l, 1), r->nr_target_runs,
			  r->nr_target_runs == 1 ? "" : "s", side_label(l, 0), r->nr_base_runs,
			  r->nr_base_runs == 1 ? "" : "s", cchart_limits_name(r->limits));
	if (l && l->load)
		fprintf_printable(f, "; load %s (%s)", l->load,
				  r->scale_baseline ? "both sides scaled" : "target scaled");
	if (r->margin > 0)
		fprintf_printable(f, "; margin %.1f points", 100 * r->margin);
	fprintf_printable(f, "\n");
	filter_text(f, &r->filter, indent);
	if (!judged) {
		/* "0 of 0 in control" would read as a good target */
		chart_report_not_judged(&sb, r);
		fprintf_printable(f, "%s  nothing decided: no counter could be judged (%s)\n",
				  indent, sb.buf);
	} else {
		fprintf_printable(f, "%s  %zu of %zu judged counter%s out of control%s\n", indent,
				  r->nr_out, judged, judged == 1 ? "" : "s",
				  r->nr_out ? " (by violation ratio - threshold):" : "");
	}
	if (judged)
		fprintf_printable(
		    f,
		    "%s  by chance alone a good target exceeds each threshold with the "
		    "probability given beside it, and shows at least one of these %zu counters "
		    "out of control with probability %.0f%% (were they independent)%s\n",
		    indent, judged, 100 * r->chance_any,
		    r->margin > 0 ? ", less with the margin" : "");
	if (r->nr_out)
		fprintf_printable(f, "%s  %-24s %8s %10s %10s %8s %11s %11s %11s  %s\n", indent,
				  "counter", "ratio", "threshold", "chance", "excess", "LCL", "CL",
				  "UCL", "target samples outside");
	for (size_t i = 0; i < r->nr_counters; i++) {
		const struct cchart_counter *c = &r->counters[i];
		if (c->status != CCHART_CHARTED) {
			other++;
			continue;
		}
		if (!c->out_of_control) {
			in_control += !c->no_headroom;
			continue;
		}
		strbuf_reset(&sb);
		add_chance(&sb, c->chance);
		fprintf_printable(
		    f, "%s  %-24s %7.1f%% %9.1f%% %10s %+7.1f%% %11.4g %11.4g %11.4g  %zu of %zu\n",
		    indent, c->name, 100 * c->ratio, 100 * c->threshold, sb.buf, 100 * c->excess,
		    c->lcl, c->cl, c->ucl, c->nr_violations, c->nr_target);
		strbuf_reset(&sb);
		add_notes(&sb, c);
		if (sb.len)
			fprintf_printable(f, "%s      (%s)\n", indent, sb.buf);
	}
	if (in_control) {
		fprintf_printable(f, "%s  in control:", indent);
		for (size_t i = 0, k = 0; i < r->nr_counters; i++) {
			const struct cchart_counter *c = &r->counters[i];
			if (c->status != CCHART_CHARTED || c->out_of_control || c->no_headroom)
				continue;
			strbuf_reset(&sb);
			add_chance(&sb, c->chance);
			fprintf_printable(f, "%s %s %.1f%% %s %.1f%% (chance %s)", k++ ? "," : "",
					  c->name, 100 * c->ratio,
					  c->ratio > c->threshold ? "within the margin over" : "<=",
					  100 * c->threshold, sb.buf);
		}
		fprintf_printable(f, "\n");
	}
	if (r->nr_no_headroom) {
		fprintf_printable(
		    f,
		    "%s  no headroom, not judged (threshold 100%%: a baseline run lies entirely "
		    "outside the others' limits):",
		    indent);
		for (size_t i = 0, k = 0; i < r->nr_counters; i++) {
			const struct cchart_counter *c = &r->counters[i];
			if (c->status == CCHART_CHARTED && c->no_headroom)
				fprintf_printable(f, "%s %s %.1f%%", k++ ? "," : "", c->name,
						  100 * c->ratio);
		}
		fprintf(f, "\n");
	}
	if (other) {
		fprintf_printable(f, "%s  not charted:", indent);
		for (size_t i = 0, k = 0; i < r->nr_counters; i++) {
			const struct cchart_counter *c = &r->counters[i];
			if (c->status != CCHART_CHARTED)
				fprintf_printable(f, "%s %s (%s)", k++ ? "," : "", c->name,
						  cchart_status_name(c->status));
		}
		fprintf(f, "\n");
	}
	strbuf_release(&sb);
}

void chart_report_runs_text(FILE *f, const struct cchart_input *in, const struct cchart_result *r,
			    const struct cchart_run_score *scores, const char *indent)
{
	const struct cchart_runs *runs = &in->side[CCHART_TARGET];

	fprintf_printable(f, "%s  target runs scored alone:\n", indent);
	for (size_t i = 0; i < r->nr_target_runs && i < runs->nr; i++) {
		const struct cchart_run_score *s = &scores[i];
		fprintf_printable(f, "%s    %-4s %s", indent, s->bad ? "BAD" : "ok",
				  runs->runs[i]->name);
		if (s->max_counter)
			fprintf_printable(
			    f, ": %zu counter%s out of control, largest ratio %.1f%% (%s)",
			    s->nr_out, s->nr_out == 1 ? "" : "s", 100 * s->max_ratio,
			    s->max_counter);
		fprintf(f, "\n");
	}
}

static json_t *filter_json(const struct cchart_filter *flt, const struct cchart_result *r)
{
	json_t *o = json_object(), *runs[2] = {json_array(), json_array()};
	size_t nr[2] = {r->nr_base_runs, r->nr_target_runs};

	json_object_set_new(o, "on", json_boolean(flt->on));
	json_object_set_new(o, "cpu", json_string(flt->cpu ? flt->cpu : ""));
	json_object_set_new(o, "baseline_cpu_samples", json_integer((json_int_t)flt->nr_base_cpu));
	json_object_set_new(o, "shapiro_wilk_p", json_real_or_null(flt->sw_p));
	json_object_set_new(o, "modes", json_integer((json_int_t)flt->nr_modes));
	json_object_set_new(o, "active", json_boolean(flt->active));
	json_object_set_new(o, "cut", json_real_or_null(flt->cut));
	json_object_set_new(o, "refused_cut", json_real_or_null(flt->refused_cut));
	json_object_set_new(o, "refused_for_run",
			    flt->whole_run_name ? json_string(flt->whole_run_name) : json_null());
	json_object_set_new(o, "cpu_scaling", json_string(cchart_scaling_name(flt->scaling)));
	json_object_set_new(o, "idle_baseline", json_integer((json_int_t)flt->nr_idle[0]));
	json_object_set_new(o, "cpu_baseline", json_integer((json_int_t)flt->nr_cpu[0]));
	json_object_set_new(o, "idle_target", json_integer((json_int_t)flt->nr_idle[1]));
	json_object_set_new(o, "cpu_target", json_integer((json_int_t)flt->nr_cpu[1]));
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; flt->run_idle[side] && i < nr[side]; i++)
			json_array_append_new(runs[side],
					      json_real_or_null(flt->run_idle[side][i]));
	json_object_set_new(o, "baseline_run_idle_shares", runs[0]);
	json_object_set_new(o, "target_run_idle_shares", runs[1]);
	return o;
}

json_t *chart_report_json(const struct cchart_input *in, const struct cchart_result *r,
			  const struct chart_labels *l, const struct cchart_run_score *scores)
{
	json_t *root = json_object(), *counters = json_array();

	json_object_set_new(root, "baseline", json_string(side_label(l, 0)));
	json_object_set_new(root, "target", json_string(side_label(l, 1)));
	json_object_set_new(root, "baseline_runs", json_integer((json_int_t)r->nr_base_runs));
	json_object_set_new(root, "target_runs", json_integer((json_int_t)r->nr_target_runs));
	json_object_set_new(root, "limits", json_string(cchart_limits_name(r->limits)));
	json_object_set_new(root, "load_counter",
			    l && l->load ? json_string(l->load) : json_null());
	json_object_set_new(root, "scale_baseline", json_boolean(r->scale_baseline));
	json_object_set_new(root, "period_s", json_real_or_null(r->period_s));
	json_object_set_new(root, "margin", json_real_or_null(r->margin));
	json_object_set_new(root, "filter", filter_json(&r->filter, r));
	json_object_set_new(root, "charted", json_integer((json_int_t)r->nr_charted));
	json_object_set_new(root, "judged", json_integer((json_int_t)r->nr_judged));
	json_object_set_new(root, "no_headroom", json_integer((json_int_t)r->nr_no_headroom));
	json_object_set_new(root, "chance_any", json_real_or_null(r->chance_any));
	json_object_set_new(root, "out_of_control", json_integer((json_int_t)r->nr_out));
	for (size_t i = 0; i < r->nr_counters; i++) {
		const struct cchart_counter *c = &r->counters[i];
		json_t *o = json_object(), *loo = json_array(), *runs = json_array();
		json_object_set_new(o, "counter", json_string(c->name));
		json_object_set_new(o, "status", json_string(cchart_status_name(c->status)));
		json_object_set_new(o, "out_of_control", json_boolean(c->out_of_control));
		if (c->status == CCHART_CHARTED) {
			json_object_set_new(o, "violation_ratio", json_real_or_null(c->ratio));
			json_object_set_new(o, "threshold", json_real_or_null(c->threshold));
			json_object_set_new(o, "chance", json_real_or_null(c->chance));
			json_object_set_new(o, "no_headroom", json_boolean(c->no_headroom));
			json_object_set_new(o, "excess", json_real_or_null(c->excess));
			json_object_set_new(o, "threshold_fallback",
					    json_boolean(c->threshold_fallback));
			json_object_set_new(o, "lcl", json_real_or_null(c->lcl));
			json_object_set_new(o, "cl", json_real_or_null(c->cl));
			json_object_set_new(o, "ucl", json_real_or_null(c->ucl));
			json_object_set_new(o, "baseline_samples",
					    json_integer((json_int_t)c->nr_base));
			json_object_set_new(o, "target_samples",
					    json_integer((json_int_t)c->nr_target));
			json_object_set_new(o, "violations",
					    json_integer((json_int_t)c->nr_violations));
			json_object_set_new(o, "dropped_baseline",
					    json_integer((json_int_t)c->dropped_base));
			json_object_set_new(o, "dropped_target",
					    json_integer((json_int_t)c->dropped_target));
			json_object_set_new(o, "scaling",
					    json_string(cchart_scaling_name(c->scaling)));
			json_object_set_new(o, "alpha", json_real_or_null(c->alpha));
			json_object_set_new(o, "beta", json_real_or_null(c->beta));
			json_object_set_new(o, "fit_r", json_real_or_null(c->fit_r));
			json_object_set_new(o, "fit_p", json_real_or_null(c->fit_p));
			json_object_set_new(o, "load_ref", json_real_or_null(c->l_ref));
			for (size_t k = 0; k < r->nr_base_runs; k++)
				json_array_append_new(loo, json_real_or_null(c->loo_ratio[k]));
			for (size_t k = 0; k < r->nr_target_runs; k++)
				json_array_append_new(runs, json_real_or_null(c->run_ratio[k]));
		}
		json_object_set_new(o, "leave_one_out_ratios", loo);
		json_object_set_new(o, "target_run_ratios", runs);
		json_array_append_new(counters, o);
	}
	json_object_set_new(root, "counters", counters);
	if (scores) {
		json_t *a = json_array();
		for (size_t i = 0; i < r->nr_target_runs; i++) {
			const struct cchart_run_score *s = &scores[i];
			json_t *o = json_object();
			const char *name = i < in->side[CCHART_TARGET].nr
					       ? in->side[CCHART_TARGET].runs[i]->name
					       : "";
			json_object_set_new(o, "run", json_string(name));
			json_object_set_new(o, "bad", json_boolean(s->bad));
			json_object_set_new(o, "counters_out", json_integer((json_int_t)s->nr_out));
			json_object_set_new(o, "max_ratio", json_real_or_null(s->max_ratio));
			json_object_set_new(o, "max_counter",
					    s->max_counter ? json_string(s->max_counter)
							   : json_null());
			json_array_append_new(a, o);
		}
		json_object_set_new(root, "target_run_scores", a);
	}
	return root;
}

void chart_report_markdown(FILE *f, const struct cchart_result *r)
{
	size_t judged = r->nr_judged;

	if (!judged) {
		struct strbuf sb = STRBUF_INIT;
		chart_report_not_judged(&sb, r);
		fprintf_printable(f,
				  "**Nothing decided**: no counter could be judged (%s; limits %s, "
				  "%zu baseline runs, %zu target runs).\n\n",
				  sb.buf, cchart_limits_name(r->limits), r->nr_base_runs,
				  r->nr_target_runs);
		strbuf_release(&sb);
		return;
	}
	fprintf(f,
		"%zu of %zu judged counters out of control (limits %s, %zu baseline runs, "
		"%zu target runs",
		r->nr_out, judged, cchart_limits_name(r->limits), r->nr_base_runs,
		r->nr_target_runs);
	if (r->nr_no_headroom)
		fprintf(f, "; %zu more without headroom, not judged", r->nr_no_headroom);
	fprintf(f, ").");
	if (judged)
		fprintf(f,
			" By chance alone a good target shows at least one out of control with "
			"probability %.0f%% (were the counters independent).",
			100 * r->chance_any);
	fprintf(f, "\n\n");
	if (!r->nr_out)
		return;
	fprintf(f, "| counter | violation ratio | threshold | chance | LCL | CL | UCL |\n");
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < r->nr_counters; i++) {
		const struct cchart_counter *c = &r->counters[i];
		if (c->status != CCHART_CHARTED || !c->out_of_control)
			continue;
		struct strbuf name = STRBUF_INIT;
		fputs("| `", f);
		for (const char *p = strbuf_printable(&name, c->name); *p; p++)
			fputc(*p == '`' || *p == '|' ? '_' : *p, f);
		strbuf_release(&name);
		fprintf_printable(f, "` | %.1f%% | %.1f%% | 1 in %.0f | %.4g | %.4g | %.4g |\n",
				  100 * c->ratio, 100 * c->threshold, 1 / c->chance, c->lcl, c->cl,
				  c->ucl);
	}
	fputc('\n', f);
}

/* ---- SVG ---- */

static void xml_escape(FILE *f, const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_xml_escaped(&sb, s);
	fputs(sb.buf, f);
	strbuf_release(&sb);
}

#define SVG_W 900
#define SVG_H 360
#define PAD_L 80
#define PAD_R 20
#define PAD_T 40
#define PAD_B 40

int chart_report_svg(FILE *f, const struct cchart_input *in, const struct cchart_result *r,
		     size_t idx, const struct chart_labels *l)
{
	struct cchart_points pts = {0};
	const struct cchart_counter *c;
	double ymin, ymax, xmax = 0, *offset;
	int err;

	if ((err = cchart_chart_points(in, r, idx, &pts))) {
		cchart_points_release(&pts);
		return err;
	}
	c = &r->counters[idx];
	/* Target runs side by side: each run's samples from its own first timestamp. */
	offset = xcalloc(pts.nr_runs ? pts.nr_runs : 1, sizeof(*offset));
	for (size_t k = 0, i = 0; k < pts.nr_runs; k++) {
		double span = 0;
		offset[k] = xmax;
		for (; i < pts.nr && pts.points[i].run == k; i++)
			if (isfinite(pts.run_t0_s[k]) && pts.points[i].t_s - pts.run_t0_s[k] > span)
				span = pts.points[i].t_s - pts.run_t0_s[k];
		xmax += span + (pts.nr_runs > 1 ? 0.05 * (span + 1e-9) + 1e-9 : 0);
	}
	if (xmax <= 0)
		xmax = 1;
	ymin = c->lcl;
	ymax = c->ucl;
	for (size_t i = 0; i < pts.nr; i++) {
		if (pts.points[i].value < ymin)
			ymin = pts.points[i].value;
		if (pts.points[i].value > ymax)
			ymax = pts.points[i].value;
	}
	if (ymax - ymin <= 0) {
		ymax += fabs(ymax) * 0.05 + 1;
		ymin -= fabs(ymin) * 0.05 + 1;
	} else {
		double pad = (ymax - ymin) * 0.05;
		ymax += pad;
		ymin -= pad;
	}
#define X(t) (PAD_L + (t) / xmax * (SVG_W - PAD_L - PAD_R))
#define Y(v) (PAD_T + (ymax - (v)) / (ymax - ymin) * (SVG_H - PAD_T - PAD_B))
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		SVG_W, SVG_H, SVG_W, SVG_H);
	fprintf(f, "<title>");
	xml_escape(f, c->name);
	fprintf(f, ": violation ratio %.1f%%, threshold %.1f%% (chance 1 in %.0f)</title>\n",
		100 * c->ratio, 100 * c->threshold, 1 / c->chance);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">", PAD_L);
	xml_escape(f, c->name);
	fprintf(f, " %s %.1f%% outside [LCL, UCL], threshold %.1f%% (chance 1 in %.0f)</text>\n",
		c->out_of_control ? "OUT OF CONTROL:"
		: c->no_headroom  ? "no headroom, not judged:"
				  : "in control:",
		100 * c->ratio, 100 * c->threshold, 1 / c->chance);
	/* The baseline band, CL, axes. */
	fprintf(f,
		"<rect class=\"band\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
		"fill=\"#dde8f5\"/>\n",
		PAD_L, Y(c->ucl), SVG_W - PAD_L - PAD_R, Y(c->lcl) - Y(c->ucl));
	fprintf(f,
		"<line class=\"cl\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#3a6ea5\" "
		"stroke-dasharray=\"6 3\"/>\n",
		PAD_L, SVG_W - PAD_R, Y(c->cl), Y(c->cl));
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">UCL %.4g</text>\n", PAD_L - 4,
		Y(c->ucl) + 4, c->ucl);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">CL %.4g</text>\n", PAD_L - 4,
		Y(c->cl) + 4, c->cl);
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">LCL %.4g</text>\n", PAD_L - 4,
		Y(c->lcl) + 4, c->lcl);
	fprintf(f,
		"<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"black\"/>\n"
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">target runs, seconds from each "
		"run's start (%zu run%s)</text>\n",
		PAD_L, SVG_W - PAD_R, SVG_H - PAD_B, SVG_H - PAD_B, (PAD_L + SVG_W - PAD_R) / 2,
		SVG_H - 12, pts.nr_runs, pts.nr_runs == 1 ? "" : "s");
	for (size_t k = 1; k < pts.nr_runs; k++)
		fprintf(f,
			"<line class=\"run\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
			"stroke=\"#bbb\"/>\n",
			X(offset[k]), X(offset[k]), PAD_T, SVG_H - PAD_B);
	for (size_t i = 0; i < pts.nr; i++) {
		const struct cchart_point *p = &pts.points[i];
		double t = offset[p->run] +
			   (isfinite(pts.run_t0_s[p->run]) ? p->t_s - pts.run_t0_s[p->run] : 0);
		const char *cls = p->kind == CCHART_POINT_VIOLATION ? "violation"
				  : p->kind == CCHART_POINT_DROPPED ? "dropped"
								    : "in";
		const char *fill = p->kind == CCHART_POINT_VIOLATION ? "#d62728"
				   : p->kind == CCHART_POINT_DROPPED ? "#cccccc"
								     : "#1f77b4";
		fprintf(
		    f,
		    "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"><title>run "
		    "%u, t %.2f s: %.6g</title></circle>\n",
		    cls, X(t), Y(p->value), p->kind == CCHART_POINT_VIOLATION ? "3.5" : "2.5", fill,
		    (unsigned)p->run + 1, p->t_s, p->value);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">baseline: ", PAD_L + 4, PAD_T - 6);
	xml_escape(f, side_label(l, 0));
	fprintf(f, "; target: ");
	xml_escape(f, side_label(l, 1));
	fprintf(f, "</text>\n</svg>\n");
#undef X
#undef Y
	free(offset);
	cchart_points_release(&pts);
	return ferror(f) ? -1 : 0;
}

int chart_report_svg_dir(const char *dir, const struct cchart_input *in,
			 const struct cchart_result *r, const struct chart_labels *l)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;

	if (mkdir_p(dir))
		return RP_EINTERNAL;
	for (size_t i = 0; i < r->nr_counters && !ret; i++) {
		FILE *f;
		if (r->counters[i].status != CCHART_CHARTED)
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/", dir);
		fsutil_add_safe_name(&path, r->counters[i].name);
		strbuf_addstr(&path, ".svg");
		if (!(f = fopen_own(path.buf, "w"))) {
			error("cannot create %s: %s", path.buf, fs_strerror(errno));
			ret = RP_EINTERNAL;
			break;
		}
		ret = chart_report_svg(f, in, r, i, l);
		if (fclose(f) || ret < 0) {
			error("cannot write %s: %s", path.buf, strerror(errno));
			ret = RP_EINTERNAL;
		}
	}
	strbuf_release(&path);
	return ret;
}
