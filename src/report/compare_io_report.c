/*
 * The sections under a benchmark's verdict from extra profiles: profile = io (the
 * similarity report of compare/compare_io.c, with how many traced runs it rests on) and
 * profile = counters (the control charts of compare/compare_counters.c).
 */
#include <jansson.h>
#include <stdio.h>

#include "compare/compare_counters.h"
#include "compare/compare_io.h"
#include "report/chart_report.h"
#include "report/io_report.h"
#include "report/report.h"
#include "util/common.h"
#include "util/units.h"

static void runs_line(FILE *f, const struct io_attribution *a, const char *indent)
{
	fprintf_printable(f, "%sI/O (traced runs: %zu + %zu", indent, a->runs[0], a->runs[1]);
	if (a->reused[0] || a->reused[1])
		fprintf(f, ", %zu + %zu reused", a->reused[0], a->reused[1]);
	if (a->failed[0] || a->failed[1])
		fprintf(f, "; %zu + %zu failed, left out", a->failed[0], a->failed[1]);
	fprintf(f, "):\n");
}

/* "475243.5 (475240..475250) -> 475245 bytes": the mean and min..max of each side,
 * the range left out when every run wrote the same. */
static void add_per_run(FILE *f, const struct io_per_run r[2], const char *one, const char *many)
{
	bool single = r[0].max == 1 && r[0].min == 1 && r[1].max == 1 && r[1].min == 1;
	struct strbuf sb = STRBUF_INIT;
	for (int side = 0; side < 2; side++) {
		char mean[32], lo[32], hi[32];
		snprintf(lo, sizeof(lo), "%.0f", r[side].min);
		snprintf(hi, sizeof(hi), "%.0f", r[side].max);
		snprintf(mean, sizeof(mean), "%.*f", r[side].min == r[side].max ? 0 : 1,
			 r[side].mean);
		strbuf_addstr(&sb, side ? " -> " : "");
		units_range_add(&sb, mean, lo, hi, UNITS_RANGE_DOTS);
	}
	fprintf_printable(f, "%s %s", sb.buf, single ? one : many);
	strbuf_release(&sb);
}

static json_t *per_run_json(const struct io_per_run r[2])
{
	return json_pack("{s:{s:f, s:f, s:f}, s:{s:f, s:f, s:f}}", "baseline", "mean", r[0].mean,
			 "min", r[0].min, "max", r[0].max, "target", "mean", r[1].mean, "min",
			 r[1].min, "max", r[1].max);
}

void report_io_text(FILE *f, const struct io_attribution *a, size_t top, const char *indent)
{
	struct io_report_options ro = {.top = top, .width = 110, .frame_kinds = &a->frame_kinds};
	struct io_similarity_labels lab = {a->labels[0], a->labels[1]};
	struct strbuf in = STRBUF_INIT;

	runs_line(f, a, indent);
	if (a->error) {
		fprintf_printable(f, "%s  not available: %s\n", indent, a->error);
		return;
	}
	fprintf_printable(f, "%s  written per run (mean, min..max): ", indent);
	add_per_run(f, a->bytes, "byte", "bytes");
	fputs(" in ", f);
	add_per_run(f, a->calls, "call", "calls");
	fputc('\n', f);
	strbuf_addf(&in, "%s  ", indent);
	io_similarity_text(f, &a->report, &lab, &ro, in.buf);
	fprintf_printable(f, "%s  profiles and logs: %s\n", indent, a->dir);
	strbuf_release(&in);
}

void report_io_markdown(FILE *f, const struct io_attribution *a, size_t top)
{
	struct io_report_options ro = {.top = top, .width = 110, .frame_kinds = &a->frame_kinds};

	fprintf(f, "Traced runs: %zu + %zu", a->runs[0], a->runs[1]);
	if (a->failed[0] || a->failed[1])
		fprintf(f, " (%zu + %zu failed, left out)", a->failed[0], a->failed[1]);
	fprintf(f, ".\n\n");
	if (a->error) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_add_md_escaped(&sb, a->error);
		fprintf_printable(f, "Not available: %s\n", sb.buf);
		strbuf_release(&sb);
		return;
	}
	fprintf(f, "Written per run (mean, min..max): ");
	add_per_run(f, a->bytes, "byte", "bytes");
	fputs(" in ", f);
	add_per_run(f, a->calls, "call", "calls");
	fputs(".\n\n", f);
	io_similarity_markdown(f, &a->report, &ro);
}

json_t *report_io_json(const struct io_attribution *a)
{
	json_t *o = json_object();

	json_object_set_new(o, "error", a->error ? json_string(a->error) : json_null());
	json_object_set_new(o, "runs",
			    json_pack("{s:I, s:I}", "baseline", (json_int_t)a->runs[0], "target",
				      (json_int_t)a->runs[1]));
	json_object_set_new(o, "reused",
			    json_pack("{s:I, s:I}", "baseline", (json_int_t)a->reused[0], "target",
				      (json_int_t)a->reused[1]));
	json_object_set_new(o, "failed",
			    json_pack("{s:I, s:I}", "baseline", (json_int_t)a->failed[0], "target",
				      (json_int_t)a->failed[1]));
	json_object_set_new(o, "bytes_per_run", per_run_json(a->bytes));
	json_object_set_new(o, "calls_per_run", per_run_json(a->calls));
	json_object_set_new(o, "similarity",
			    a->error ? json_null() : io_similarity_json(&a->report, NULL));
	json_object_set_new(o, "profiles", a->dir ? json_string(a->dir) : json_null());
	return o;
}

/* ---- profile = counters ---- */

void report_counters_text(FILE *f, const struct counters_attribution *a, const char *indent)
{
	struct chart_labels lab = { a->labels[0], a->labels[1], NULL };
	struct strbuf in = STRBUF_INIT;

	fprintf_printable(f, "%scounters (sampled runs: %zu + %zu):\n", indent, a->runs[0],
			  a->runs[1]);
	if (a->error) {
		fprintf_printable(f, "%s  not available: %s\n", indent, a->error);
		return;
	}
	strbuf_addf(&in, "%s  ", indent);
	chart_report_text(f, &a->res, &lab, in.buf);
	if (a->svg_dir)
		fprintf_printable(f, "%s  control charts: %s/\n", indent, a->svg_dir);
	strbuf_release(&in);
}

void report_counters_markdown(FILE *f, const struct counters_attribution *a)
{
	fprintf(f, "Sampled runs: %zu + %zu.\n\n", a->runs[0], a->runs[1]);
	if (a->error) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_add_md_escaped(&sb, a->error);
		fprintf_printable(f, "Not available: %s\n", sb.buf);
		strbuf_release(&sb);
		return;
	}
	chart_report_markdown(f, &a->res);
}

json_t *report_counters_json(const struct counters_attribution *a)
{
	struct chart_labels lab = { a->labels[0], a->labels[1], NULL };
	json_t *o = a->error ? json_object() : chart_report_json(&a->in, &a->res, &lab, NULL);

	json_object_set_new(o, "error", a->error ? json_string(a->error) : json_null());
	json_object_set_new(o, "sampled_runs", json_pack("{s:I, s:I}", "baseline",
							  (json_int_t)a->runs[0], "target",
							  (json_int_t)a->runs[1]));
	json_object_set_new(o, "charts", a->svg_dir ? json_string(a->svg_dir) : json_null());
	return o;
}
