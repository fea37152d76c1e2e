/*
 * The counted section under a benchmark's verdict (ir, sim-cycles; compare/compare_counted.h):
 * how the counts were taken, whether they were deterministic here, and the functions and
 * call paths whose instructions changed, with their share of the change.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collect/valgrind_run.h"
#include "compare/compare_counted.h"
#include "report/report.h"
#include "util/common.h"

#define PATH_WIDTH 80

static void format_count(char *buf, size_t size, double v)
{
	double a = fabs(v);
	if (a >= 1e9)
		snprintf(buf, size, "%.3f G", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, size, "%.3f M", v / 1e6);
	else if (a >= 1e3)
		snprintf(buf, size, "%.2f k", v / 1e3);
	else
		snprintf(buf, size, "%.0f", v);
}

static void format_delta(char *buf, size_t size, double v)
{
	char n[24];
	format_count(n, sizeof(n), fabs(v));
	snprintf(buf, size, "%c%s", v < 0 ? '-' : '+', n);
}

/* A path shortened to its innermost whole frames ("...;f;g") within about width bytes. */
static void short_path(char *buf, size_t size, const char *p, size_t width)
{
	size_t len = strlen(p);
	const char *cut = p;
	if (len > width) {
		cut = strchr(p + len - width, ';');
		cut = cut ? cut + 1 : p + len - width;
	}
	snprintf(buf, size, "%s%s", cut == p ? "" : "...;", cut);
}

/* What the outcomes say about determinism, one line per counted or count metric. */
static void determinism_text(FILE *f, const struct bench_outcome *b, const char *indent)
{
	for (size_t i = 0; i < b->nr_metrics; i++) {
		const struct metric_outcome *m = &b->metrics[i];
		if (!(m->def->flags & METRIC_COUNT) || !m->measured)
			continue;
		if (m->r.exact)
			fprintf(f, "%s  %s: deterministic here (every run of a side counted the "
				   "same%s): the ratio is exact, judged against the count tolerance "
				   "%g%%\n",
				indent, m->def->name,
				m->r.spread_a > 0 || m->r.spread_b > 0 ? " within 0.01%" : "",
				100 * b->counted->tolerance);
		else if (isfinite(m->r.spread_a))
			fprintf(f, "%s  %s: not deterministic here (runs differ by %.3g%% on A, %.3g%% "
				   "on B): judged by the statistics over %zu + %zu runs\n",
				indent, m->def->name, 100 * m->r.spread_a, 100 * m->r.spread_b,
				m->r.n_a, m->r.n_b);
	}
}

static void changes_text(FILE *f, const struct counted_change *c, size_t n, bool paths,
			 const char *indent)
{
	for (size_t i = 0; i < n; i++) {
		char a[32], b[32], d[40], share[16], key[64];
		format_count(a, sizeof(a), c[i].mean[0]);
		format_count(b, sizeof(b), c[i].mean[1]);
		format_delta(d, sizeof(d), c[i].delta);
		if (isfinite(c[i].share))
			snprintf(share, sizeof(share), "%.1f%%", 100 * c[i].share);
		else
			snprintf(share, sizeof(share), "-");
		if (paths)
			short_path(key, sizeof(key), c[i].key, 40);
		/* names come from the program's symbols: printed through the printable escape */
		fprintf_printable(f, "%s  %-44s %12s %12s %12s Ir %7s%s\n", indent,
				  paths ? key : c[i].key, a, b, d, share,
			c[i].noise ? "  (within the run-to-run spread: noise)" : "");
	}
}

void report_counted_text(FILE *f, const struct bench_outcome *b, const char *indent)
{
	const struct counted_attribution *a = b->counted;
	char ta[32], tb[32], d[40];

	fprintf(f, "%scounted under valgrind (callgrind%s, %zu + %zu runs", indent,
		strcmp(a->kind, "vg-cache") ? "" : " with the cache model " VALGRIND_CACHE_MODEL,
		a->runs[0], a->runs[1]);
	if (a->reused[0] || a->reused[1])
		fprintf(f, ", %zu + %zu reused", a->reused[0], a->reused[1]);
	if (a->failed[0] || a->failed[1])
		fprintf(f, ", %zu + %zu failed", a->failed[0], a->failed[1]);
	fprintf(f, "); instructions are not time: see the timed metrics for speed\n");
	if (a->error) {
		fprintf_printable(f, "%s  not available: %s\n", indent, a->error);
		return;
	}
	determinism_text(f, b, indent);
	if (a->attribution_error) {
		fprintf(f, "%s  no attribution: %s\n", indent, a->attribution_error);
		return;
	}
	format_count(ta, sizeof(ta), a->total[0]);
	format_count(tb, sizeof(tb), a->total[1]);
	format_delta(d, sizeof(d), a->total[1] - a->total[0]);
	fprintf(f, "%s  instructions per run: %s -> %s (%s)", indent, ta, tb, d);
	if (a->wrappers)
		fprintf(f, "; %zu shell wrapper%s left out", a->wrappers,
			a->wrappers == 1 ? "" : "s");
	fprintf(f, "\n");
	if (!a->nr_funcs) {
		fprintf(f, "%s  no function's instructions changed\n", indent);
		return;
	}
	fprintf(f, "%s  %-44s %12s %12s %15s %7s\n", indent, "function (self)", "baseline", "target",
		"change", "share");
	changes_text(f, a->funcs, a->nr_funcs, false, indent);
	fprintf(f, "%s  %-44s %12s %12s %15s %7s\n", indent, "call path (self)", "baseline",
		"target", "change", "share");
	changes_text(f, a->paths, a->nr_paths, true, indent);
}

void report_counted_markdown(FILE *f, const struct bench_outcome *b)
{
	const struct counted_attribution *a = b->counted;
	fprintf(f, "\nCounted under valgrind (%zu + %zu runs); instructions are not time.\n\n",
		a->runs[0], a->runs[1]);
	if (a->error) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_add_md_escaped(&sb, a->error);
		fprintf(f, "Not available: %s\n", sb.buf);
		strbuf_release(&sb);
		return;
	}
	for (size_t i = 0; i < b->nr_metrics; i++) {
		const struct metric_outcome *m = &b->metrics[i];
		if ((m->def->flags & METRIC_COUNT) && m->measured)
			fprintf(f, "- `%s`: %s\n", m->def->name,
				m->r.exact ? "deterministic here (exact ratio)"
					   : "not deterministic here (statistical verdict)");
	}
	if (!a->nr_funcs)
		return;
	fprintf(f, "\n| function (self) | baseline Ir | target Ir | change | share |\n"
		   "|---|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < a->nr_funcs; i++) {
		char x[32], y[32], d[40];
		format_count(x, sizeof(x), a->funcs[i].mean[0]);
		format_count(y, sizeof(y), a->funcs[i].mean[1]);
		format_delta(d, sizeof(d), a->funcs[i].delta);
		struct strbuf name = STRBUF_INIT;
		strbuf_add_md_escaped(&name, a->funcs[i].key);
		fprintf(f, "| %s | %s | %s | %s | %.1f%% |\n", name.buf, x, y, d,
			isfinite(a->funcs[i].share) ? 100 * a->funcs[i].share : 0.0);
		strbuf_release(&name);
	}
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *changes_json(const struct counted_change *c, size_t n, const char *key)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("{s:s, s:o, s:o, s:o, s:o, s:b}", key, c[i].key,
						     "baseline", num(c[i].mean[0]), "target",
						     num(c[i].mean[1]), "change", num(c[i].delta),
						     "share", num(c[i].share), "noise", c[i].noise));
	return arr;
}

json_t *report_counted_json(const struct bench_outcome *b)
{
	const struct counted_attribution *a = b->counted;
	json_t *o = json_object();
	json_object_set_new(o, "tool", json_string("callgrind"));
	json_object_set_new(o, "cache_model", strcmp(a->kind, "vg-cache")
						  ? json_null()
						  : json_string(VALGRIND_CACHE_MODEL));
	json_object_set_new(o, "runs", json_pack("[I, I]", (json_int_t)a->runs[0],
						 (json_int_t)a->runs[1]));
	json_object_set_new(o, "reused", json_pack("[I, I]", (json_int_t)a->reused[0],
						   (json_int_t)a->reused[1]));
	json_object_set_new(o, "failed", json_pack("[I, I]", (json_int_t)a->failed[0],
						   (json_int_t)a->failed[1]));
	json_object_set_new(o, "error", a->error ? json_string(a->error) : json_null());
	if (a->error)
		return o;
	json_object_set_new(o, "instructions", json_pack("[o, o]", num(a->total[0]),
							 num(a->total[1])));
	json_object_set_new(o, "wrappers_left_out", json_integer((json_int_t)a->wrappers));
	json_object_set_new(o, "functions", changes_json(a->funcs, a->nr_funcs, "function"));
	json_object_set_new(o, "paths", changes_json(a->paths, a->nr_paths, "path"));
	return o;
}
