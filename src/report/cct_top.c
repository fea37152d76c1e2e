#include "report/cct_top.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "util/json_real.h"
#include "util/units.h"

struct ranked {
	uint32_t node;
	double w;
};

static int heavier_first(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

uint32_t *cct_top_nodes(const struct cct *t, size_t k, bool by_exclusive, size_t *n)
{
	size_t m = t->nr_nodes > 1 ? t->nr_nodes - 1 : 0;
	struct ranked *all = xcalloc(m ? m : 1, sizeof(*all));
	uint32_t *out;
	for (size_t i = 0; i < m; i++) {
		all[i].node = (uint32_t)(i + 1);
		all[i].w = by_exclusive ? t->nodes[i + 1].excl : t->nodes[i + 1].incl;
	}
	qsort(all, m, sizeof(*all), heavier_first);
	*n = m < k ? m : k;
	out = xcalloc(*n ? *n : 1, sizeof(*out));
	for (size_t i = 0; i < *n; i++)
		out[i] = all[i].node;
	free(all);
	return out;
}

/* A weight in its unit: nanoseconds as a time, anything else as a count. */
static void format_weight(char *buf, size_t size, double w, const char *unit)
{
	if (!strcmp(unit, "ns")) {
		if (w >= 1e9)
			snprintf(buf, size, "%.3f s", w / 1e9);
		else if (w >= 1e6)
			snprintf(buf, size, "%.3f ms", w / 1e6);
		else if (w >= 1e3)
			snprintf(buf, size, "%.3f us", w / 1e3);
		else
			snprintf(buf, size, "%.0f ns", w);
	} else {
		snprintf(buf, size, "%.0f %s", w, unit);
	}
}

static void print_list(FILE *f, const struct cct *t, const char *title, bool by_exclusive,
		       size_t k, const char *unit)
{
	double total = cct_total(t);
	struct strbuf path = STRBUF_INIT;
	size_t n;
	uint32_t *top = cct_top_nodes(t, k, by_exclusive, &n);

	fprintf_printable(f, "\n%s:\n", title);
	fprintf_printable(f, "  %7s  %12s  %12s  %s\n", "share", by_exclusive ? "self" : "total",
			  "calls", "context");
	for (size_t i = 0; i < n; i++) {
		const struct cct_node *nd = &t->nodes[top[i]];
		double w = by_exclusive ? nd->excl : nd->incl;
		char wb[32], cb[32];
		format_weight(wb, sizeof(wb), w, unit);
		if (nd->calls > 0)
			snprintf(cb, sizeof(cb), "%.0f", nd->calls);
		else
			snprintf(cb, sizeof(cb), "-");
		strbuf_reset(&path);
		cct_path(t, top[i], &path);
		fprintf_printable(f, "  %6.2f%%  %12s  %12s  %s\n",
				  total > 0 ? 100.0 * w / total : 0.0, wb, cb, path.buf);
	}
	free(top);
	strbuf_release(&path);
}

/* Threads listed one per line at most; the rest are summed on one line. */
#define THREAD_LINES 16

/* What the clock measures, in words. */
static const char *clock_words(const char *clock)
{
	if (!strcmp(clock, "none"))
		return "none (REVPERF_CCT_CLOCK=none): the weights are call counts";
	return "elapsed time from a call's entry to its exit, waiting included (time a "
	       "thread is blocked or descheduled inside a function counts as that "
	       "function's); on-CPU time is not measured by the CCT runtime";
}

static void threads_text(FILE *f, const struct profile_threads *th, const char *unit)
{
	double sum = 0, rest = 0;
	char wb[32];

	fprintf(f, "time in instrumented functions per thread (elapsed, waiting included):\n");
	for (size_t i = 0; i < th->nr; i++) {
		sum += th->t[i].ns;
		if (i >= THREAD_LINES) {
			rest += th->t[i].ns;
			continue;
		}
		format_weight(wb, sizeof(wb), th->t[i].ns, unit);
		fprintf(f, "  %12s  pid %d, thread %d%s\n", wb, th->t[i].pid, th->t[i].tid,
			th->t[i].tid == th->t[i].pid ? " (main thread)" : "");
	}
	if (th->nr > THREAD_LINES) {
		format_weight(wb, sizeof(wb), rest, unit);
		fprintf(f, "  %12s  %zu more threads\n", wb, th->nr - THREAD_LINES);
	}
	format_weight(wb, sizeof(wb), sum, unit);
	fprintf(f, "  %12s  summed over %zu threads: threads overlap in time, so the sum can "
		   "pass the wall time\n",
		wb, th->nr);
}

int cct_top_text(FILE *f, const struct cct *t, const struct cct_top_options *o)
{
	size_t k = o && o->top ? o->top : 20;
	const char *unit = o && o->unit ? o->unit : "ns";
	const struct profile_threads *th = o ? o->threads : NULL;
	char tb[32];

	if (o && o->clock)
		fprintf(f, "clock %s: %s\n", o->clock, clock_words(o->clock));
	if (th && th->nr > 1 && !strcmp(unit, "ns"))
		threads_text(f, th, unit);
	format_weight(tb, sizeof(tb), cct_total(t), unit);
	if (th && th->nr > 1)
		fprintf_printable(f, "total %s, summed over %zu threads, in %zu %s\n", tb, th->nr,
				  t->nr_nodes ? t->nr_nodes - 1 : 0,
				  units_noun(t->nr_nodes ? t->nr_nodes - 1 : 0, "context", "contexts"));
	else
		fprintf_printable(f, "total %s in %zu %s%s\n", tb, t->nr_nodes ? t->nr_nodes - 1 : 0,
				  units_noun(t->nr_nodes ? t->nr_nodes - 1 : 0, "context", "contexts"),
				  th ? " (one thread)" : "");
	print_list(f, t, "heaviest contexts, inclusive (the function and all it called)", false,
		   k, unit);
	print_list(f, t, "heaviest contexts, exclusive (the function's own code)", true, k,
		   unit);
	return ferror(f) ? -1 : 0;
}

/* The context's frames from the top frame down to the node. */
static json_t *path_json(const struct cct *t, uint32_t node)
{
	json_t *a = json_array();
	size_t depth = 0, total = 0;
	uint32_t *chain;
	for (uint32_t n = node; n != CCT_ROOT && n != CCT_NONE; n = t->nodes[n].parent)
		total++;
	chain = xcalloc(total ? total : 1, sizeof(*chain));
	for (uint32_t n = node; n != CCT_ROOT && n != CCT_NONE; n = t->nodes[n].parent)
		chain[depth++] = n;
	while (depth-- > 0)
		json_array_append_new(a, json_string(cct_name(t, t->nodes[chain[depth]].name)));
	free(chain);
	return a;
}

static json_t *list_json(const struct cct *t, bool by_exclusive, size_t k, bool no_calls)
{
	json_t *a = json_array();
	size_t n;
	uint32_t *top = cct_top_nodes(t, k, by_exclusive, &n);
	for (size_t i = 0; i < n; i++) {
		const struct cct_node *nd = &t->nodes[top[i]];
		json_t *e = json_object();
		json_object_set_new(e, "path", path_json(t, top[i]));
		json_object_set_new(e, "site", json_integer(nd->site));
		json_object_set_new(e, "calls",
				    no_calls ? json_null() : json_real_or_null(nd->calls));
		json_object_set_new(e, "inclusive", json_real_or_null(nd->incl));
		json_object_set_new(e, "exclusive", json_real_or_null(nd->excl));
		json_array_append_new(a, e);
	}
	free(top);
	return a;
}

json_t *cct_top_to_json(const struct cct *t, const struct cct_top_options *o)
{
	size_t k = o && o->top ? o->top : 20;
	bool no_calls = o && o->no_calls;
	json_t *root = json_object();
	json_object_set_new(root, "unit", json_string(o && o->unit ? o->unit : "ns"));
	json_object_set_new(root, "clock", o && o->clock ? json_string(o->clock) : json_null());
	if (o && o->threads) {
		json_t *th = json_array();
		for (size_t i = 0; i < o->threads->nr; i++)
			json_array_append_new(th, json_pack("{s:i, s:i, s:f}", "pid",
							    o->threads->t[i].pid, "tid",
							    o->threads->t[i].tid, "total",
							    o->threads->t[i].ns));
		json_object_set_new(root, "threads", th);
	} else {
		json_object_set_new(root, "threads", json_null());
	}
	json_object_set_new(root, "total", json_real_or_null(cct_total(t)));
	json_object_set_new(root, "contexts", json_integer((json_int_t)(t->nr_nodes - 1)));
	json_object_set_new(root, "by_inclusive", list_json(t, false, k, no_calls));
	json_object_set_new(root, "by_exclusive", list_json(t, true, k, no_calls));
	return root;
}

int cct_top_json(FILE *f, const struct cct *t, const struct cct_top_options *o)
{
	json_t *root = cct_top_to_json(t, o);
	int ret;
	ret = json_dumpf(root, f, JSON_INDENT(2));
	fputc('\n', f);
	json_decref(root);
	return ret || ferror(f) ? -1 : 0;
}
