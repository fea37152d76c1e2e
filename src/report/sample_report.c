#include "report/sample_report.h"

#include <inttypes.h>
#include <string.h>

#include "util/common.h"
#include "util/json_real.h"

static bool is_time(const struct sample_profile *p)
{
	return !strcmp(p->unit, "ns");
}

/* A weight in the profile's unit: ns as ms, anything else as a count. */
static void weight_text(char *buf, size_t size, const struct sample_profile *p, double w)
{
	if (is_time(p))
		snprintf(buf, size, "%.3f ms", w / 1e6);
	else
		snprintf(buf, size, "%.0f %s", w, p->unit);
}

static void threads_text(FILE *f, const struct sample_profile *p)
{
	double total = 0;
	uint64_t samples = 0;
	char w[64];

	fprintf(f, "on-CPU time in user space, sampled (each +-%s per thread):\n",
		is_time(p) && p->period ? "one period" : "one sample");
	for (size_t i = 0; i < p->nr_threads; i++) {
		const struct sample_thread *t = &p->threads[i];
		weight_text(w, sizeof(w), p, t->weight);
		fprintf_printable(
		    f, "  thread %-3zu %-16s pid %-7u tid %-7u %14s %9" PRIu64 " samples\n", i,
		    t->comm, t->pid, t->tid, w, t->samples);
		total += t->weight;
		samples += t->samples;
	}
	weight_text(w, sizeof(w), p, total);
	fprintf(f, "  all %zu thread%s %*s %14s %9" PRIu64 " samples\n", p->nr_threads,
		p->nr_threads == 1 ? "" : "s", p->nr_threads == 1 ? 43 : 42, "", w, samples);
	fprintf(f,
		"  the kernel counted: user %.3f ms, system %.3f ms (not sampled), wall %.3f "
		"ms\n",
		(double)p->user_ns / 1e6, (double)p->sys_ns / 1e6, (double)p->wall_ns / 1e6);
}

static void modules_text(FILE *f, const struct sample_profile *p)
{
	fputs("unwinding:", f);
	for (size_t i = 0; i < p->nr_modules; i++)
		fprintf_printable(f, "%s %s %s (%" PRIu64 " frames)", i ? "," : "",
				  p->modules[i].path, p->modules[i].unwind, p->modules[i].frames);
	fputs(p->nr_modules ? "\n" : " no frame in any module\n", f);
}

int sample_report_text(FILE *f, const struct sample_profile *p, const struct cct *tree,
		       const struct cct_top_options *o, const struct sample_report_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	struct cct_top_options to = *o;

	fprintf_printable(f, "%s: %s, %.3f s wall\n", p->command, run->status,
			  (double)p->wall_ns / 1e9);
	if (run->path)
		fprintf_printable(f, "profile in %s\n", run->path);
	sample_profile_period_text(p, &sb);
	fprintf_printable(f, "sampled %s at %u Hz (%s); call graph %s: %s\n", p->event,
			  p->frequency_hz, sb.buf, p->callgraph,
			  *p->callgraph_why ? p->callgraph_why : "as asked");
	threads_text(f, p);
	fprintf(f, "samples lost: %" PRIu64 "; stacks reaching an entry point: %.1f%%\n", p->lost,
		p->samples ? 100.0 * (double)p->complete / (double)p->samples : 0.0);
	modules_text(f, p);
	strbuf_reset(&sb);
	sample_profile_notes(p, &sb);
	for (const char *l = sb.buf; *l;) {
		const char *nl = strchr(l, '\n');
		fprintf_printable(f, "note: %.*s\n", (int)(nl - l), l);
		l = nl + 1;
	}
	strbuf_release(&sb);
	if (p->samples) {
		fprintf(f, "a context's time is its samples times the period: about +-sqrt(k) "
			   "samples for k samples; sampled trees count no calls\n\n");
		to.unit = p->unit;
		cct_top_text(f, tree, &to);
	}
	return ferror(f) ? -1 : 0;
}

int sample_report_json(FILE *f, const struct sample_profile *p, const struct cct *tree,
		       const struct cct_top_options *o, const struct sample_report_run *run)
{
	json_t *root = json_object(), *threads = json_array(), *mods = json_array(), *notes;
	struct cct_top_options to = *o;
	struct strbuf sb = STRBUF_INIT;
	double total = 0;
	int ret;

	json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
	json_object_set_new(root, "schema", json_string("revperf-profile/1"));
	json_object_set_new(root, "command", json_string(p->command));
	json_object_set_new(root, "status", json_string(run->status));
	json_object_set_new(root, "profile", run->path ? json_string(run->path) : json_null());
	json_object_set_new(root, "event", json_string(p->event));
	json_object_set_new(root, "unit", json_string(p->unit));
	json_object_set_new(root, "frequency_hz", json_integer(p->frequency_hz));
	json_object_set_new(root, "period", json_integer((json_int_t)p->period));
	json_object_set_new(root, "callgraph", json_string(p->callgraph));
	json_object_set_new(root, "callgraph_why", json_string(p->callgraph_why));
	json_object_set_new(root, "wall_ns", json_integer((json_int_t)p->wall_ns));
	json_object_set_new(root, "user_ns", json_integer((json_int_t)p->user_ns));
	json_object_set_new(root, "sys_ns", json_integer((json_int_t)p->sys_ns));
	json_object_set_new(root, "samples", json_integer((json_int_t)p->samples));
	json_object_set_new(root, "lost", json_integer((json_int_t)p->lost));
	json_object_set_new(root, "throttled", json_integer((json_int_t)p->throttled));
	json_object_set_new(root, "truncated", json_integer((json_int_t)p->truncated));
	json_object_set_new(root, "complete", json_integer((json_int_t)p->complete));
	for (size_t i = 0; i < p->nr_threads; i++) {
		const struct sample_thread *t = &p->threads[i];
		json_t *o2 = json_object();
		json_object_set_new(o2, "thread", json_integer((json_int_t)i));
		json_object_set_new(o2, "comm", json_string(t->comm));
		json_object_set_new(o2, "pid", json_integer(t->pid));
		json_object_set_new(o2, "tid", json_integer(t->tid));
		json_object_set_new(o2, "samples", json_integer((json_int_t)t->samples));
		json_object_set_new(o2, "on_cpu", json_real_or_null(t->weight));
		json_array_append_new(threads, o2);
		total += t->weight;
	}
	json_object_set_new(root, "threads", threads);
	json_object_set_new(root, "on_cpu", json_real_or_null(total));
	for (size_t i = 0; i < p->nr_modules; i++) {
		json_t *m = json_object();
		json_object_set_new(m, "path", json_string(p->modules[i].path));
		json_object_set_new(m, "unwind", json_string(p->modules[i].unwind));
		json_object_set_new(m, "frames", json_integer((json_int_t)p->modules[i].frames));
		json_array_append_new(mods, m);
	}
	json_object_set_new(root, "modules", mods);
	sample_profile_notes(p, &sb);
	notes = json_array();
	for (const char *l = sb.buf; *l;) {
		const char *nl = strchr(l, '\n');
		json_array_append_new(notes, json_stringn(l, (size_t)(nl - l)));
		l = nl + 1;
	}
	strbuf_release(&sb);
	json_object_set_new(root, "notes", notes);
	to.unit = p->unit;
	to.no_calls = !tree->calls_known;
	json_object_set_new(root, "tree", cct_top_to_json(tree, &to));
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
	return ret || ferror(f) ? -1 : 0;
}
