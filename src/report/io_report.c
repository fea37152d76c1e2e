/*
 * Reports of the I/O spectrum analysis: one run's test execution report and the
 * similarity report of two revisions (docs/io-analysis.md).
 */
#include <inttypes.h>
#include <string.h>

#include "report/io_report.h"
#include "util/common.h"
#include "util/json_real.h"
#include "util/strmap.h"
#include "util/units.h"

#define DEFAULT_TOP 10
#define DEFAULT_WIDTH 160

static size_t top_of(const struct io_report_options *o)
{
	return o && o->top ? o->top : DEFAULT_TOP;
}

static size_t width_of(const struct io_report_options *o)
{
	return o && o->width ? o->width : DEFAULT_WIDTH;
}

static const struct strmap *kinds_of(const struct io_report_options *o)
{
	return o ? o->frame_kinds : NULL;
}

/* Shortens a stack in the middle to `width` bytes: first frame, "...", the last frames. */
static void stack_width(struct strbuf *sb, const char *stack, size_t width)
{
	size_t len = strlen(stack), head;
	const char *first_end, *tail;

	if (!width || len <= width || !(first_end = strchr(stack, ';'))) {
		strbuf_addstr(sb, stack);
		return;
	}
	/* A first frame that is an elision already ("...") is not repeated. */
	if (first_end - stack == 3 && !strncmp(stack, "...", 3))
		head = 0;
	else
		head = (size_t)(first_end - stack) + 1;
	/* The longest tail of whole frames that fits next to "first;...;". */
	tail = strrchr(stack, ';') + 1;
	for (const char *p = tail - 1; p > first_end; p--) {
		if (*p != ';' || p == tail - 1)
			continue;
		if (head + 4 + (size_t)(stack + len - (p + 1)) > width)
			break;
		tail = p + 1;
	}
	if (tail <= first_end + 1) {
		strbuf_addstr(sb, stack);
		return;
	}
	strbuf_add(sb, stack, head);
	strbuf_addstr(sb, "...;");
	strbuf_addstr(sb, tail);
}

/* Whether the frame `name` (len bytes) is the program's: absent from the map, it is. */
static bool own_frame(const struct strmap *kinds, struct strbuf *tmp, const char *name, size_t len)
{
	const size_t *v;
	strbuf_reset(tmp);
	strbuf_add(tmp, name, len);
	v = strmap_get(kinds, tmp->buf);
	return !v || *v;
}

struct stack_frame {
	const char *name; /* into the stack key, not terminated */
	size_t len;
	bool own;
};

/* The stack around the program's frames (io_report_stack()) into the empty sb. */
static void stack_around_program(struct strbuf *sb, const char *stack, const struct strmap *kinds)
{
	struct strbuf tmp = STRBUF_INIT;
	struct stack_frame *f = NULL;
	size_t n = 0, alloc = 0, i = 0, nr_own = 0;

	for (const char *p = stack;;) {
		const char *end = strchr(p, ';');
		ALLOC_GROW(f, n + 1, alloc);
		f[n].name = p;
		f[n].len = end ? (size_t)(end - p) : strlen(p);
		f[n].own = own_frame(kinds, &tmp, p, f[n].len);
		nr_own += f[n++].own;
		if (!end)
			break;
		p = end + 1;
	}
	if (!nr_own || nr_own == n) {
		strbuf_addstr(sb, stack); /* nothing to tell apart */
		goto out;
	}
	/* Start-up: the C runtime's _start (linked into the program), library frames, then
	 * the program's first function; a thread's start is library frames alone. */
	i = n > 1 && f[0].len == 6 && !strncmp(f[0].name, "_start", 6) && !f[1].own ? 1 : 0;
	if (!f[i].own) {
		while (i < n && !f[i].own)
			i++;
		if (i < n)
			strbuf_addstr(sb, "...");
		else
			i = 0;
	}
	while (i < n) {
		if (sb->len)
			strbuf_addch(sb, ';');
		strbuf_add(sb, f[i].name, f[i].len);
		if (f[i++].own)
			continue;
		/* The library frame where the program entered it: the rest of the run elided. */
		if (i < n && !f[i].own) {
			strbuf_addstr(sb, ";...");
			while (i < n && !f[i].own)
				i++;
		}
	}
out:
	free(f);
	strbuf_release(&tmp);
}

void io_report_stack(struct strbuf *sb, const char *stack, const struct strmap *frame_kinds,
		     size_t width)
{
	struct strbuf around = STRBUF_INIT, cut = STRBUF_INIT;

	if (!frame_kinds) {
		stack_width(sb, stack, width);
		return;
	}
	stack_around_program(&around, stack, frame_kinds);
	stack_width(&cut, around.buf, width);
	/* Two elisions side by side (the start-up's and the width's) are one. */
	for (const char *p = cut.buf, *prev = NULL; *p;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool dots = len == 3 && !strncmp(p, "...", 3);
		if (!(dots && prev && !strncmp(prev, "...", 3) && (prev[3] == ';' || !prev[3]))) {
			if (prev)
				strbuf_addch(sb, ';');
			strbuf_add(sb, p, len);
			prev = p;
		}
		p += len + (end != NULL);
	}
	strbuf_release(&around);
	strbuf_release(&cut);
}

static void add_bytes(struct strbuf *sb, double b)
{
	units_bytes_add(sb, b);
}

static const char *dir_word(enum iotrace_dir d, bool plural)
{
	if (d == IOTRACE_READ)
		return plural ? "reads" : "read";
	return plural ? "writes" : "written";
}

/* The entry whose keys are (stack, file), to show where in the program it came from. */
static const struct io_entry *find_entry(const struct io_profile *p, enum iotrace_dir dir,
					 const char *stack, const char *file)
{
	struct strbuf s = STRBUF_INIT, f = STRBUF_INIT;
	const struct io_entry *found = NULL;

	for (size_t i = 0; i < p->nr_entries && !found; i++) {
		const struct io_entry *e = &p->entries[i];
		if (e->dir != dir)
			continue;
		strbuf_reset(&s);
		strbuf_reset(&f);
		io_entry_stack_key(e, &s);
		io_entry_file_key(p, e, &f);
		if (!strcmp(s.buf, stack) && (!file || !strcmp(f.buf, file)))
			found = e;
	}
	strbuf_release(&s);
	strbuf_release(&f);
	return found;
}

/* "log_flush (kvstore.c:292)": where the program itself asked for the I/O. */
static void add_origin(struct strbuf *sb, const struct io_entry *e)
{
	const struct io_frame *f = e ? io_entry_origin(e) : NULL;

	if (!f && e && e->nr_frames)
		f = &e->frames[0];
	if (!f) {
		strbuf_addstr(sb, "?");
		return;
	}
	io_frame_name(f, sb);
	if (f->source) {
		const char *slash = strrchr(f->source, '/');
		strbuf_addf(sb, " (%s)", slash ? slash + 1 : f->source);
	}
}

static void exec_totals(const struct io_profile *p, enum iotrace_dir dir, uint64_t *errors,
			uint64_t *unfinished)
{
	*errors = *unfinished = 0;
	for (size_t i = 0; i < p->nr_entries; i++) {
		if (p->entries[i].dir != dir)
			continue;
		*errors += p->entries[i].errors;
		*unfinished += p->entries[i].unfinished;
	}
}

static void status_line(struct strbuf *sb, const struct io_profile *p)
{
	if (p->status == RUN_OK)
		strbuf_addstr(sb, "exit 0");
	else
		strbuf_addf(sb, "%s: %s", run_status_name(p->status),
			    p->detail ? p->detail : "no detail");
}

static void print_top(FILE *f, const struct io_profile *p, const struct spectra_top *t, size_t n,
		      const struct io_report_options *o)
{
	struct strbuf sb = STRBUF_INIT;

	fprintf_printable(f, "  %10s %10s %11s  %-24s %s\n", "bytes", "calls", "B/call", "file",
			  "where (innermost frame of the program)");
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&sb);
		add_bytes(&sb, (double)t[i].bytes);
		fprintf_printable(f, "  %10s %10" PRIu64 " %11.1f  %-24s ", sb.buf, t[i].calls,
				  t[i].bpc, t[i].file ? t[i].file : "");
		strbuf_reset(&sb);
		add_origin(&sb, find_entry(p, o->dir, t[i].stack, t[i].file));
		fprintf_printable(f, "%s\n", sb.buf);
		strbuf_reset(&sb);
		io_report_stack(&sb, t[i].stack, o->frame_kinds, width_of(o));
		fprintf_printable(f, "      %s\n", sb.buf);
	}
	strbuf_release(&sb);
}

int io_exec_report_text(FILE *f, const struct io_profile *p, const struct io_report_options *opts)
{
	struct io_report_options def = {0}, *o = &def;
	struct spectra_run run;
	struct spectra_exec ex = {0};
	struct strbuf sb = STRBUF_INIT;
	struct strmap kinds = STRMAP_INIT;
	uint64_t errors, unfinished;
	int ret = -1;

	if (opts)
		def = *opts;
	if (!o->frame_kinds) {
		io_profiles_frame_kinds(p, 1, &kinds);
		o->frame_kinds = &kinds;
	}
	if (io_profile_to_spectra(p, o->dir, NULL, &run) ||
	    spectra_exec_build(&run, SPECTRA_BY_STACK_FILE, top_of(o), &ex))
		goto out;
	exec_totals(p, o->dir, &errors, &unfinished);
	status_line(&sb, p);
	fprintf_printable(f, "%s: %s, %.3f s wall, %zu process%s\n", p->command, sb.buf,
			  (double)p->wall_ns / 1e9, p->nr_procs, p->nr_procs == 1 ? "" : "es");
	strbuf_reset(&sb);
	add_bytes(&sb, (double)ex.total_bytes);
	fprintf_printable(
	    f, "%s: %" PRIu64 " %s, %s (%.1f B/call), %zu stack trace%s, %zu file%s",
	    dir_word(o->dir, true), ex.total_calls, units_noun(ex.total_calls, "call", "calls"),
	    sb.buf, ex.total_calls ? (double)ex.total_bytes / (double)ex.total_calls : 0.0,
	    ex.nr_stacks, ex.nr_stacks == 1 ? "" : "s", ex.nr_files, ex.nr_files == 1 ? "" : "s");
	fprintf(f, "; %" PRIu64 " failed, %" PRIu64 " unfinished\n", errors, unfinished);
	if (p->stragglers_killed)
		fprintf(f, "processes left behind by the program were killed\n");
	fprintf_printable(f, "log: %s\n",
			  p->log ? p->log
				 : "not kept (the program's output went to the "
				   "terminal)");
	if (o->profile_path)
		fprintf_printable(f, "profile: %s\n", o->profile_path);
	if (!ex.total_calls) {
		fprintf_printable(f, "\nno %s system call was made\n",
				  o->dir == IOTRACE_READ ? "read" : "write");
		ret = ferror(f) ? -1 : 0;
		goto out;
	}
	fprintf_printable(f, "\nTop stack traces by bytes %s\n", dir_word(o->dir, false));
	print_top(f, p, ex.by_bytes, ex.nr_by_bytes, o);
	fprintf(f, "\nTop stack traces by bytes per call\n");
	print_top(f, p, ex.by_bpc, ex.nr_by_bpc, o);
	fprintf_printable(f, "\nFiles by bytes %s\n", dir_word(o->dir, false));
	for (size_t i = 0; i < ex.nr_files_top; i++) {
		strbuf_reset(&sb);
		add_bytes(&sb, (double)ex.files[i].bytes);
		fprintf_printable(f, "  %10s %10" PRIu64 " %-5s  %s\n", sb.buf, ex.files[i].calls,
				  units_noun(ex.files[i].calls, "call", "calls"), ex.files[i].file);
	}
	ret = ferror(f) ? -1 : 0;
out:
	spectra_exec_release(&ex);
	spectra_run_release(&run);
	strbuf_release(&sb);
	strmap_release(&kinds);
	return ret;
}

static json_t *frames_json(const struct io_entry *e)
{
	json_t *a = json_array();
	if (!e)
		return a;
	for (size_t i = 0; i < e->nr_frames; i++) {
		const struct io_frame *fr = &e->frames[i];
		json_t *o = json_object();
		char addr[32];
		snprintf(addr, sizeof(addr), "0x%" PRIx64, fr->addr);
		json_object_set_new(o, "function",
				    fr->function ? json_string(fr->function) : json_null());
		json_object_set_new(o, "source",
				    fr->source ? json_string(fr->source) : json_null());
		json_object_set_new(o, "module", json_string(fr->module));
		json_object_set_new(o, "addr", json_string(addr));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *top_json(const struct io_profile *p, const struct spectra_top *t, size_t n,
			const struct io_report_options *o)
{
	json_t *a = json_array();
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const struct io_entry *e = find_entry(p, o->dir, t[i].stack, t[i].file);
		json_t *row = json_object();
		json_object_set_new(row, "stack", json_string(t[i].stack));
		json_object_set_new(row, "file", json_string(t[i].file));
		json_object_set_new(row, "calls", json_integer((json_int_t)t[i].calls));
		json_object_set_new(row, "bytes", json_integer((json_int_t)t[i].bytes));
		json_object_set_new(row, "bytes_per_call", json_real_or_null(t[i].bpc));
		strbuf_reset(&sb);
		add_origin(&sb, e);
		json_object_set_new(row, "where", json_string(sb.buf));
		json_object_set_new(row, "frames", frames_json(e));
		json_array_append_new(a, row);
	}
	strbuf_release(&sb);
	return a;
}

json_t *io_exec_report_json(const struct io_profile *p, const struct io_report_options *o)
{
	struct io_report_options def = {0};
	struct spectra_run run;
	struct spectra_exec ex = {0};
	json_t *root = NULL, *files;
	uint64_t errors, unfinished;

	if (!o)
		o = &def;
	if (io_profile_to_spectra(p, o->dir, NULL, &run) ||
	    spectra_exec_build(&run, SPECTRA_BY_STACK_FILE, top_of(o), &ex))
		goto out;
	exec_totals(p, o->dir, &errors, &unfinished);
	root = json_object();
	json_object_set_new(root, "command", json_string(p->command));
	json_object_set_new(root, "status", json_string(run_status_name(p->status)));
	json_object_set_new(root, "exit_code", json_integer(p->exit_code));
	json_object_set_new(root, "signal", json_integer(p->signal));
	json_object_set_new(root, "detail", p->detail ? json_string(p->detail) : json_null());
	json_object_set_new(root, "wall_s", json_real((double)p->wall_ns / 1e9));
	json_object_set_new(root, "processes", json_integer((json_int_t)p->nr_procs));
	json_object_set_new(root, "log", p->log ? json_string(p->log) : json_null());
	json_object_set_new(root, "profile",
			    o->profile_path ? json_string(o->profile_path) : json_null());
	json_object_set_new(root, "direction",
			    json_string(o->dir == IOTRACE_READ ? "read" : "write"));
	json_object_set_new(root, "calls", json_integer((json_int_t)ex.total_calls));
	json_object_set_new(root, "bytes", json_integer((json_int_t)ex.total_bytes));
	json_object_set_new(root, "failed_calls", json_integer((json_int_t)errors));
	json_object_set_new(root, "unfinished_calls", json_integer((json_int_t)unfinished));
	json_object_set_new(root, "stack_traces", json_integer((json_int_t)ex.nr_stacks));
	json_object_set_new(root, "top_by_bytes", top_json(p, ex.by_bytes, ex.nr_by_bytes, o));
	json_object_set_new(root, "top_by_bytes_per_call", top_json(p, ex.by_bpc, ex.nr_by_bpc, o));
	files = json_array();
	for (size_t i = 0; i < ex.nr_files_top; i++) {
		json_t *row = json_object();
		json_object_set_new(row, "file", json_string(ex.files[i].file));
		json_object_set_new(row, "calls", json_integer((json_int_t)ex.files[i].calls));
		json_object_set_new(row, "bytes", json_integer((json_int_t)ex.files[i].bytes));
		json_array_append_new(files, row);
	}
	json_object_set_new(root, "files", files);
out:
	spectra_exec_release(&ex);
	spectra_run_release(&run);
	return root;
}

/* ---- Similarity ---- */

static bool row_changed(const struct spectra_row *r)
{
	return r->sc < 1.0 || !r->has_range;
}

size_t io_similarity_changed(const struct spectra_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nr_rows; i++)
		n += row_changed(&r->rows[i]);
	return n;
}

/* A baseline range of bytes per call: "100.0..120.0", one number when it is a point. */
void io_report_range(struct strbuf *sb, double lo, double hi)
{
	char l[32], h[32];
	snprintf(l, sizeof(l), "%.1f", lo);
	snprintf(h, sizeof(h), "%.1f", hi);
	units_range_add(sb, NULL, l, h, UNITS_RANGE_DOTS);
}

static void add_range(struct strbuf *sb, const struct spectra_row *row)
{
	if (!row->has_range)
		strbuf_addstr(sb, "new");
	else
		io_report_range(sb, row->lo, row->hi);
}

void io_report_legend_lines(const char *lines[IO_REPORT_LEGEND_LINES])
{
	lines[0] = "SC: similarity to the baseline, sqrt(runs inside its range of bytes per "
		   "call / runs): 1 all inside, 0 none";
	lines[1] = "Impact: distance of bytes per call from that range, mean over the runs "
		   "outside (+ above, - below; a new stack trace: its bytes per call)";
	lines[2] = "TotalImpact: Impact x calls per run, in bytes per run";
}

void io_similarity_text(FILE *f, const struct spectra_report *r,
			const struct io_similarity_labels *l, const struct io_report_options *o,
			const char *indent)
{
	struct strbuf sb = STRBUF_INIT;
	size_t changed = io_similarity_changed(r), shown = 0, top = top_of(o);

	fprintf_printable(
	    f,
	    "%sI/O similarity of %s (%zu run%s) against %s (%zu run%s): %zu of %zu stack "
	    "trace%s changed, %zu stopped %s\n",
	    indent, l ? l->target : "target", r->nr_runs, r->nr_runs == 1 ? "" : "s",
	    l ? l->baseline : "baseline", r->nr_base_runs, r->nr_base_runs == 1 ? "" : "s", changed,
	    r->nr_rows, r->nr_rows == 1 ? "" : "s", r->nr_stopped,
	    o && o->dir == IOTRACE_READ ? "reading" : "writing");
	if (r->nr_base_runs < 2)
		fprintf(f,
			"%s  (one baseline run: each range is a single value, so any change in "
			"bytes per call is outside it)\n",
			indent);
	if (changed) {
		fprintf_printable(
		    f, "%s  %5s %12s %14s %16s %10s %6s %10s  %s\n", indent, "SC", "Impact",
		    "TotalImpact", "baseline B/call", "B/call", "Runs", "CallsDiff",
		    r->group == SPECTRA_BY_STACK_FILE ? "stack trace -> file" : "stack trace");
	}
	for (size_t i = 0; i < r->nr_rows && shown < top; i++) {
		const struct spectra_row *row = &r->rows[i];
		if (!row_changed(row))
			continue;
		shown++;
		strbuf_reset(&sb);
		add_range(&sb, row);
		fprintf_printable(f, "%s  %5.2f %12.1f %14.0f %16s %10.1f %3zu/%-2zu %+10.1f  ",
				  indent, row->sc, row->impact, row->total_impact, sb.buf,
				  row->bpc_mean, row->runs_written, r->nr_runs, row->calls_diff);
		strbuf_reset(&sb);
		io_report_stack(&sb, row->stack, kinds_of(o), width_of(o));
		fprintf_printable(f, "%s%s%s\n", sb.buf, row->file ? " -> " : "",
				  row->file ? row->file : "");
	}
	if (changed > shown)
		fprintf_printable(f, "%s  ... %zu more changed (--top)\n", indent, changed - shown);
	if (r->nr_rows > changed)
		fprintf(f,
			"%s  %zu stack trace%s wrote within the baseline range in every run "
			"(SC 1)\n",
			indent, r->nr_rows - changed, r->nr_rows - changed == 1 ? "" : "s");
	for (size_t i = 0; i < r->nr_stopped && i < top; i++) {
		const struct spectra_stopped *s = &r->stopped[i];
		if (!i)
			fprintf_printable(f, "%s  stopped (no call in any %s run):\n", indent,
					  l ? l->target : "target");
		strbuf_reset(&sb);
		add_bytes(&sb, s->base_bytes_mean);
		strbuf_addf(&sb, "/run in %.1f calls/run, B/call ", s->base_calls_mean);
		io_report_range(&sb, s->lo, s->hi);
		fprintf_printable(f, "%s    %s  ", indent, sb.buf);
		strbuf_reset(&sb);
		io_report_stack(&sb, s->stack, kinds_of(o), width_of(o));
		fprintf_printable(f, "%s%s%s\n", sb.buf, s->file ? " -> " : "",
				  s->file ? s->file : "");
	}
	if (r->nr_stopped > top)
		fprintf_printable(f, "%s    ... %zu more stopped\n", indent, r->nr_stopped - top);
	if (changed) {
		const char *legend[IO_REPORT_LEGEND_LINES];
		io_report_legend_lines(legend);
		for (size_t i = 0; i < IO_REPORT_LEGEND_LINES; i++)
			fprintf_printable(f, "%s  %s\n", indent, legend[i]);
	}
	strbuf_release(&sb);
}

json_t *io_similarity_json(const struct spectra_report *r, const struct io_report_options *o)
{
	json_t *root = json_object(), *rows = json_array(), *stopped = json_array();

	json_object_set_new(
	    root, "grouping",
	    json_string(r->group == SPECTRA_BY_STACK_FILE ? "stack_file" : "stack"));
	json_object_set_new(root, "direction",
			    json_string(o && o->dir == IOTRACE_READ ? "read" : "write"));
	json_object_set_new(root, "absent_as_outside", json_boolean(r->absent_as_outside));
	json_object_set_new(root, "baseline_runs", json_integer((json_int_t)r->nr_base_runs));
	json_object_set_new(root, "target_runs", json_integer((json_int_t)r->nr_runs));
	json_object_set_new(root, "changed", json_integer((json_int_t)io_similarity_changed(r)));
	for (size_t i = 0; i < r->nr_rows; i++) {
		const struct spectra_row *row = &r->rows[i];
		json_t *o2 = json_object(), *bpc = json_array();
		json_object_set_new(o2, "stack", json_string(row->stack));
		json_object_set_new(o2, "file", row->file ? json_string(row->file) : json_null());
		json_object_set_new(o2, "sc", json_real_or_null(row->sc));
		json_object_set_new(o2, "runs_inside", json_integer((json_int_t)row->a));
		json_object_set_new(o2, "runs_counted", json_integer((json_int_t)row->n));
		json_object_set_new(o2, "runs_written",
				    json_integer((json_int_t)row->runs_written));
		json_object_set_new(o2, "runs_outside",
				    json_integer((json_int_t)row->runs_outside));
		json_object_set_new(o2, "range_low", json_real_or_null(row->lo));
		json_object_set_new(o2, "range_high", json_real_or_null(row->hi));
		json_object_set_new(o2, "range_diff", json_real_or_null(row->range_diff));
		json_object_set_new(o2, "impact", json_real_or_null(row->impact));
		json_object_set_new(o2, "total_impact", json_real_or_null(row->total_impact));
		json_object_set_new(o2, "calls_mean", json_real_or_null(row->calls_mean));
		json_object_set_new(o2, "bytes_mean", json_real_or_null(row->bytes_mean));
		json_object_set_new(o2, "bytes_per_call_mean", json_real_or_null(row->bpc_mean));
		json_object_set_new(o2, "base_calls_mean", json_real_or_null(row->base_calls_mean));
		json_object_set_new(o2, "base_bytes_mean", json_real_or_null(row->base_bytes_mean));
		json_object_set_new(o2, "calls_diff", json_real_or_null(row->calls_diff));
		for (size_t k = 0; k < r->nr_runs; k++)
			json_array_append_new(bpc, json_real_or_null(row->bpc[k]));
		json_object_set_new(o2, "bytes_per_call", bpc);
		json_array_append_new(rows, o2);
	}
	json_object_set_new(root, "rows", rows);
	for (size_t i = 0; i < r->nr_stopped; i++) {
		const struct spectra_stopped *s = &r->stopped[i];
		json_t *o2 = json_object();
		json_object_set_new(o2, "stack", json_string(s->stack));
		json_object_set_new(o2, "file", s->file ? json_string(s->file) : json_null());
		json_object_set_new(o2, "range_low", json_real_or_null(s->lo));
		json_object_set_new(o2, "range_high", json_real_or_null(s->hi));
		json_object_set_new(o2, "base_runs_written",
				    json_integer((json_int_t)s->base_runs_written));
		json_object_set_new(o2, "base_calls_mean", json_real_or_null(s->base_calls_mean));
		json_object_set_new(o2, "base_bytes_mean", json_real_or_null(s->base_bytes_mean));
		json_array_append_new(stopped, o2);
	}
	json_object_set_new(root, "stopped", stopped);
	return root;
}

/* Markdown table cells: '|' would end the cell, backquotes the code span, a newline the row
 * (paths and frames are made printable first: one line, no control characters). */
static void md_code(FILE *f, const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s = strbuf_printable(&sb, text);
	fputc('`', f);
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '`' ? '\'' : *s, f);
	}
	fputc('`', f);
	strbuf_release(&sb);
}

void io_similarity_markdown(FILE *f, const struct spectra_report *r,
			    const struct io_report_options *o)
{
	struct strbuf sb = STRBUF_INIT;
	size_t changed = io_similarity_changed(r), shown = 0, top = top_of(o);

	fprintf(f,
		"I/O similarity: %zu of %zu stack traces changed, %zu stopped (%zu baseline "
		"runs, %zu target runs)\n\n",
		changed, r->nr_rows, r->nr_stopped, r->nr_base_runs, r->nr_runs);
	if (changed) {
		fprintf_printable(
		    f, "| SC | Impact (B/call) | TotalImpact (B) | baseline B/call | B/call | "
		       "Runs | CallsDiff | stack trace |\n");
		fprintf(f, "|---:|---:|---:|---:|---:|---:|---:|---|\n");
	}
	for (size_t i = 0; i < r->nr_rows && shown < top; i++) {
		const struct spectra_row *row = &r->rows[i];
		if (!row_changed(row))
			continue;
		shown++;
		strbuf_reset(&sb);
		add_range(&sb, row);
		fprintf_printable(f, "| %.2f | %.1f | %.0f | %s | %.1f | %zu/%zu | %+.1f | ",
				  row->sc, row->impact, row->total_impact, sb.buf, row->bpc_mean,
				  row->runs_written, r->nr_runs, row->calls_diff);
		strbuf_reset(&sb);
		io_report_stack(&sb, row->stack, kinds_of(o), width_of(o));
		if (row->file) {
			strbuf_addstr(&sb, " -> ");
			strbuf_addstr(&sb, row->file);
		}
		md_code(f, sb.buf);
		fprintf(f, " |\n");
	}
	if (changed > shown)
		fprintf_printable(f, "\n%zu more changed stack traces: see the JSON report.\n",
				  changed - shown);
	if (changed) {
		const char *legend[IO_REPORT_LEGEND_LINES];
		io_report_legend_lines(legend);
		fputc('\n', f);
		for (size_t i = 0; i < IO_REPORT_LEGEND_LINES; i++)
			fprintf(f, "- %s\n", legend[i]);
	}
	for (size_t i = 0; i < r->nr_stopped && i < top; i++) {
		if (!i)
			fprintf(f, "\nStopped writing:\n\n");
		strbuf_reset(&sb);
		io_report_stack(&sb, r->stopped[i].stack, kinds_of(o), width_of(o));
		fprintf(f, "- ");
		md_code(f, sb.buf);
		fprintf(f, " (%.1f calls/run in the baseline)\n", r->stopped[i].base_calls_mean);
	}
	fputc('\n', f);
	strbuf_release(&sb);
}
