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
#include "report/attribution_report.h"
#include "report/report.h"
#include "util/common.h"
#include "util/json_real.h"

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
		else if (isfinite(m->r.spread_a)) {
			struct strbuf counts = STRBUF_INIT;
			report_verdict_counts(&counts, m);
			fprintf(
			    f,
			    "%s  %s: not deterministic here (runs differ by %.3g%% on A, %.3g%% "
			    "on B): judged by the statistics over %s\n",
			    indent, m->def->name, 100 * m->r.spread_a, 100 * m->r.spread_b,
			    counts.buf);
			strbuf_release(&counts);
		}
	}
}

void report_counted_text(FILE *f, const struct bench_outcome *b, const char *indent)
{
	const struct counted_attribution *a = b->counted;
	struct strbuf in = STRBUF_INIT;

	fprintf(f, "%scounted under valgrind (callgrind%s, %zu + %zu runs", indent,
		strcmp(a->kind, "vg-cache") ? "" : " with the cache model " VALGRIND_CACHE_MODEL,
		a->runs[0], a->runs[1]);
	if (a->reused[0] || a->reused[1])
		fprintf(f, ", %zu + %zu reused", a->reused[0], a->reused[1]);
	if (a->failed[0] || a->failed[1])
		fprintf(f, ", %zu + %zu failed", a->failed[0], a->failed[1]);
	if (a->elapsed_s > 0)
		fprintf(f, ", %.1f s", a->elapsed_s);
	fprintf(f, "); instructions are not time: %s\n",
		b->counted_only ? "no metric was timed (ask for wall too for speed)"
				: "see the timed metrics for speed");
	if (a->error) {
		fprintf_printable(f, "%s  not available: %s\n", indent, a->error);
		return;
	}
	determinism_text(f, b, indent);
	if (a->attribution_error) {
		fprintf(f, "%s  no attribution: %s\n", indent, a->attribution_error);
		return;
	}
	if (a->wrappers)
		fprintf(f, "%s  %zu shell wrapper%s left out of the counts\n", indent, a->wrappers,
			a->wrappers == 1 ? "" : "s");
	/* No attribution when the counted runs did not finish (interrupted), as in Markdown
	 * and JSON: an empty one would read as "0 + 0 runs" in another profile's unit. */
	if (!a->have_abs)
		return;
	strbuf_addf(&in, "%s  ", indent);
	attribution_text(f, &a->abs, COUNTED_TOP, in.buf);
	strbuf_release(&in);
}

void report_counted_markdown(FILE *f, const struct bench_outcome *b)
{
	const struct counted_attribution *a = b->counted;
	fprintf(f, "\nCounted under valgrind (%zu + %zu runs", a->runs[0], a->runs[1]);
	if (a->elapsed_s > 0)
		fprintf(f, ", %.1f s", a->elapsed_s);
	fprintf(f, "); instructions are not time.\n\n");
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
	if (a->have_abs)
		attribution_markdown(f, &a->abs, COUNTED_TOP);
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
	json_object_set_new(o, "elapsed_s", a->elapsed_s > 0 ? json_real(a->elapsed_s) : json_null());
	json_object_set_new(o, "error", a->error ? json_string(a->error) : json_null());
	if (a->error)
		return o;
	json_object_set_new(o, "wrappers_left_out", json_integer((json_int_t)a->wrappers));
	if (a->have_abs) {
		json_t *abs = attribution_json(&a->abs);
		json_object_set_new(o, "instructions",
				    json_pack("[o, o]",
					      json_real_or_null(a->abs.total.side[0].mean),
					      json_real_or_null(a->abs.total.side[1].mean)));
		/* the lists also at the top, where they were before the one attribution */
		json_object_set(o, "functions", json_object_get(abs, "functions"));
		json_object_set(o, "paths", json_object_get(abs, "paths"));
		json_object_set_new(o, "attribution", abs);
	} else {
		json_object_set_new(o, "instructions", json_null());
		json_object_set_new(o, "attribution", json_null());
	}
	return o;
}
