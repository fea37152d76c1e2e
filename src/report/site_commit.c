/*
 * The page of one commit (report/site.h): its measurements, and the latest finished
 * comparison that measured it as target: verdicts, runs (duration, exit status, log) and
 * attribution (differential flame graph and control charts copied from the state
 * directory, the I/O similarity report computed from the stored profiles).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "report/assets.h"
#include "report/attribution_report.h"
#include "report/compare_graphics.h"
#include "report/io_report.h"
#include "report/site.h"
#include "store/store.h"
#include "util/common.h"
#include "util/strmap.h"
#include "util/units.h"
#include "util/input.h"

/* Rows of the I/O similarity table. */
#define IO_TOP 10

/* What the page of one commit is built from. */
struct page {
	const struct history *h;
	const struct site_options *o;
	size_t commit;
	struct strbuf base; /* the page's name without ".html": its files' directory */
	struct site_stats *stats;
	/* The runs whose output the store keeps (the whole site's). */
	struct site_logged *logged;
	/* The comparison's folder of profiles, profiles/[store-<id>/]<comparison>
	 * (comparison_section). */
	struct strbuf profiles;
};

static void commit_href(struct strbuf *sb, const struct history *h, size_t commit,
			const char *text_class)
{
	strbuf_addstr(sb, "<a href=\"");
	site_commit_name(sb, h, commit);
	strbuf_addf(sb, "\"%s><code>", text_class);
	site_short_sha(sb, h->commits[commit].sha);
	strbuf_addstr(sb, "</code></a>");
}

/* The index, and the older and newer commits along the followed history. */
static void nav(struct page *p, struct strbuf *sb)
{
	const struct history *h = p->h;
	strbuf_addstr(sb, "<a href=\"../index.html\">index</a>");
	if (!h->commits[p->commit].on_line) {
		strbuf_addstr(sb, "<span class=\"note\">not on the first-parent history of ");
		site_escape(sb, h->line_name);
		strbuf_addstr(sb, ": on no chart</span>");
		return;
	}
	if (p->commit > 0) {
		strbuf_addstr(sb, "<span>older: ");
		commit_href(sb, h, p->commit - 1, " rel=\"prev\"");
		strbuf_addstr(sb, "</span>");
	}
	if (p->commit + 1 < h->nr_line) {
		strbuf_addstr(sb, "<span>newer: ");
		commit_href(sb, h, p->commit + 1, " rel=\"next\"");
		strbuf_addstr(sb, "</span>");
	}
	strbuf_addf(sb, "<span class=\"note\">commit %zu of %zu", p->commit + 1, h->nr_line);
	if (h->line_name) {
		strbuf_addstr(sb, " along ");
		site_escape(sb, h->line_name);
		strbuf_addstr(sb, " (first parents)");
	}
	strbuf_addstr(sb, "</span>");
}

/* The diff link: the template with every {sha} replaced. */
static void diff_link(struct page *p, struct strbuf *sb)
{
	const char *t = p->o->commit_url, *at;
	struct strbuf url = STRBUF_INIT;
	if (!t)
		return;
	while ((at = strstr(t, "{sha}"))) {
		strbuf_add(&url, t, (size_t)(at - t));
		strbuf_addstr(&url, p->h->commits[p->commit].sha);
		t = at + 5;
	}
	strbuf_addstr(&url, t);
	strbuf_addstr(sb, "<a class=\"diff\" href=\"");
	site_escape(sb, url.buf);
	strbuf_addstr(sb, "\">diff</a>");
	strbuf_release(&url);
}

static int stored_log_link(struct page *p, struct strbuf *sb, const char *path, bool stored,
			   int64_t id, bool build, const char *text);

static int build_text(struct page *p, struct strbuf *sb)
{
	const struct history_commit *c = &p->h->commits[p->commit];
	int linked = 0;
	strbuf_addstr(sb, c->build_failed ? "<span class=\"flag\">failed</span>" : "ok");
	if (c->build_failed && c->build_command && *c->build_command) {
		/* Which configuration's build it was: another one may have built this commit. */
		strbuf_addstr(sb, ": <code class=\"build-command\">");
		site_escape(sb, c->build_command);
		strbuf_addstr(sb, "</code>");
	}
	if (c->build_log) {
		strbuf_addstr(sb, " (");
		linked = stored_log_link(p, sb, c->build_log, c->build_log_stored, c->build_id, true,
					 "build log");
		if (!linked)
			site_file_link(sb, c->build_log, "build log");
		strbuf_addstr(sb, ")");
	}
	return linked < 0 ? linked : 0;
}

static const struct history_point *point_at(const struct history_series *s, size_t commit)
{
	size_t lo = 0, hi = s->nr_points;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->points[mid].commit == commit)
			return &s->points[mid];
		if (s->points[mid].commit < commit)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const struct history_bytes *bytes_at(const struct history_bench *b, size_t commit)
{
	size_t lo = 0, hi = b->nr_bytes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->bytes[mid].commit == commit)
			return &b->bytes[mid];
		if (b->bytes[mid].commit < commit)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void failures_cell(struct strbuf *sb, const struct history_failures *f)
{
	unsigned n = f->failed + f->crashed + f->timeout + f->other;
	if (!n) {
		strbuf_addstr(sb, "<td class=\"num\">0</td>");
		return;
	}
	strbuf_addf(sb, "<td class=\"num flag\">%u (", n);
	strbuf_addf(sb, "%u failed, %u crashed, %u timed out", f->failed, f->crashed, f->timeout);
	if (f->other)
		strbuf_addf(sb, ", %u other", f->other);
	strbuf_addstr(sb, ")</td>");
}

/* This commit's point of every series, and its bytes written. */
static void points_table(struct page *p, struct strbuf *sb)
{
	const struct history *h = p->h;
	size_t rows = 0;
	for (size_t i = 0; i < h->nr_series; i++) {
		const struct history_series *s = &h->series[i];
		const struct history_point *pt = point_at(s, p->commit);
		char med[64], lo[64], hi[64];
		if (!pt)
			continue;
		if (!rows++)
			strbuf_addstr(sb, "<table class=\"points\"><tr><th>benchmark</th>"
					  "<th>metric</th><th>median</th><th>interval</th>"
					  "<th>n</th><th>runs not ok</th></tr>\n");
		site_format_value(s->def, pt->median, med, sizeof(med));
		site_format_value(s->def, pt->ci_lo, lo, sizeof(lo));
		site_format_value(s->def, pt->ci_hi, hi, sizeof(hi));
		strbuf_addstr(sb, "<tr><td>");
		site_escape(sb, h->benches[s->bench].name);
		strbuf_addstr(sb, "</td><td>");
		site_escape(sb, s->metric);
		strbuf_addf(sb, "</td><td class=\"num\">%s</td>", pt->n ? med : "n/a");
		if (pt->n && !strcmp(lo, hi)) /* a point: printed once */
			strbuf_addf(sb, "<td class=\"num\">%s (%s)</td>", lo,
				    pt->ci_minmax ? "min = max, fewer than 6 runs"
						  : "95%, lower = upper bound");
		else if (pt->n)
			strbuf_addf(sb, "<td class=\"num\">%s .. %s (%s)</td>", lo, hi,
				    pt->ci_minmax ? "min..max, fewer than 6 runs" : "95%");
		else
			strbuf_addstr(sb, "<td></td>");
		strbuf_addf(sb, "<td class=\"num\">%zu</td>", pt->n);
		failures_cell(sb, &pt->fail);
		strbuf_addstr(sb, "</tr>\n");
	}
	for (size_t b = 0; b < h->nr_benches; b++) {
		const struct history_bytes *by = bytes_at(&h->benches[b], p->commit);
		char v[64];
		if (!by)
			continue;
		if (!rows++)
			strbuf_addstr(sb, "<table class=\"points\">\n");
		site_format_value(metric_find("wchar"), by->mean_bytes, v, sizeof(v));
		strbuf_addstr(sb, "<tr><td>");
		site_escape(sb, h->benches[b].name);
		strbuf_addf(
		    sb,
		    "</td><td>bytes written (I/O profiles)</td><td class=\"num\">%s</td>"
		    "<td>mean per traced run</td><td class=\"num\">%zu</td><td></td></tr>\n",
		    v, by->nr_profiles);
	}
	if (rows)
		strbuf_addstr(sb, "</table>\n");
	else
		strbuf_addstr(sb, "<p class=\"note\">No run of this commit was measured on this "
				  "machine.</p>\n");
}

/*
 * Writes data as commits/<page>/<sub>/<name> of the site; its path relative to the page
 * in *rel. Returns 0 or RP_EINTERNAL after error().
 */
static int write_in(struct page *p, const char *sub, const char *name, const struct strbuf *data,
		    struct strbuf *rel)
{
	struct strbuf dir = STRBUF_INIT, dst = STRBUF_INIT;
	int ret;
	strbuf_reset(rel);
	strbuf_addf(rel, "%s/%s", p->base.buf, sub);
	strbuf_addf(&dir, "%s/commits/%s", p->o->out_dir, rel->buf);
	if (!(ret = mkdir_own(p->o->out_dir, dir.buf) ? RP_EINTERNAL : 0)) {
		strbuf_addch(rel, '/');
		fsutil_add_safe_name(rel, name);
		strbuf_addf(&dst, "%s/commits/%s", p->o->out_dir, rel->buf);
		if (!(ret = site_write_file(dst.buf, data->buf, data->len)))
			p->stats->files_copied++;
	}
	strbuf_release(&dir);
	strbuf_release(&dst);
	return ret;
}

/*
 * A log that is not on this machine (the report is built from a shared store elsewhere)
 * but that the store keeps: written into the site, linked there. Returns 1 when linked so,
 * 0 when the caller links the path as it is (a local file, or nothing kept), or
 * RP_EINTERNAL.
 */
static int stored_log_link(struct page *p, struct strbuf *sb, const char *path, bool stored,
			   int64_t id, bool build, const char *text)
{
	struct strbuf data = STRBUF_INIT, rel = STRBUF_INIT;
	char name[64];
	int ret;
	if (!stored || !p->o->st || (path && access(path, R_OK) == 0))
		return 0;
	ret = build ? store_build_log_get(p->o->st, id, &data)
		    : store_run_log_get(p->o->st, id, &data);
	if (ret) /* 1: none after all, linked as it is */
		goto out;
	snprintf(name, sizeof(name), build ? "build.log" : "run-%lld.log", (long long)id);
	if ((ret = write_in(p, "logs", name, &data, &rel)))
		goto out;
	strbuf_addstr(sb, "<a href=\"");
	site_escape(sb, rel.buf);
	strbuf_addstr(sb, "\">");
	site_escape(sb, text);
	strbuf_addstr(sb, "</a> <span class=\"note\">");
	units_bytes_add(sb, (double)data.len);
	strbuf_addstr(sb, ", from the store</span>");
	ret = 2;
out:
	strbuf_release(&data);
	strbuf_release(&rel);
	return ret < 0 ? ret : ret == 2;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/*
 * Whether the store keeps run r's output: every run with a stored log, asked once for
 * the site (one round trip, not one per comparison). 1, 0 or RP_EINTERNAL.
 */
static int run_log_stored(struct page *p, const struct history_run *r)
{
	struct site_logged *l = p->logged;
	if (!l->asked) {
		l->asked = true;
		if (store_logged_runs(p->o->st, &l->ids, &l->n))
			return RP_EINTERNAL;
	}
	return l->n && bsearch(&r->id, l->ids, l->n, sizeof(*l->ids), cmp_id) != NULL;
}

static int run_row(struct page *p, struct strbuf *sb, const struct history_run *r, size_t nr)
{
	int linked = 0, stored = 0;
	char wall[64];
	bool bad = r->status != RUN_OK;
	strbuf_addf(sb, "<tr%s><td>%s</td><td class=\"num\">%zu%s</td><td>%s</td>",
		    bad		? " class=\"bad\""
		    : r->warmup ? " class=\"warmup\""
				: "",
		    r->side == 'B' ? "target" : "baseline", nr, r->warmup ? " (warm-up)" : "",
		    run_status_name(r->status));
	if (r->status == RUN_CRASHED || r->status == RUN_TIMEOUT)
		strbuf_addf(sb, "<td class=\"num\">signal %d</td>", r->signal);
	else
		strbuf_addf(sb, "<td class=\"num\">%d</td>", r->exit_code);
	site_format_value(metric_find("wall"), r->wall, wall, sizeof(wall));
	strbuf_addf(sb, "<td class=\"num\">%s</td><td>", wall);
	if (r->log_path && r->log_length <= 0) {
		strbuf_addstr(sb, "<span class=\"note\">no output</span>");
	} else {
		/* the log file is not on this machine: the copy the store keeps, if any */
		if (p->o->st && !(r->log_path && access(r->log_path, R_OK) == 0) &&
		    (stored = run_log_stored(p, r)) < 0)
			return stored;
		if (stored)
			linked = stored_log_link(p, sb, r->log_path, true, r->id, false, "log");
		if (linked < 0)
			return linked;
		if (!linked && site_file_link(sb, r->log_path, "log") && r->log_path) {
			strbuf_addstr(sb, " <span class=\"note\">");
			units_bytes_add(sb, (double)r->log_length);
			strbuf_addf(sb, " from byte %lld</span>", (long long)r->log_offset);
		}
	}
	strbuf_addstr(sb, "</td><td>");
	site_escape(sb, r->detail);
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

/*
 * The runs of one benchmark, runs[0..n): baseline then target, in the order they ran
 * (counted: its verdicts are all of counted metrics, which take no timing run). Returns 0
 * or RP_EINTERNAL (a log from the store that could not be written).
 */
/*
 * Whether the comparison was measured from this state directory, so that its
 * profiles/<comparison>/ here are its own: a run of it (or of the comparisons whose runs
 * it reused) logged under the state directory. Comparison numbers are a store's: the same
 * number in this directory may be another store's comparison (a clone that compared on
 * its own SQLite store too), and a shared store's comparisons were measured in the state
 * directories of the workers. Without a run log to tell (a benchmark of counted metrics
 * alone), the files are taken as its own.
 */
static bool under(const char *path, const char *dir)
{
	size_t len = strlen(dir);
	return !strncmp(path, dir, len) && path[len] == '/';
}

static bool measured_here(const struct page *p, const struct history_comparison *c)
{
	const char *last = NULL;
	char *root = realpath(p->o->state_root, NULL);
	bool logged = false, here = false;
	for (size_t i = 0; i < c->nr_runs && !here; i++) {
		const char *log = c->runs[i].log_path;
		char *real;
		if (!log || log == last) /* log paths are shared strings: a side's, repeated */
			continue;
		last = log;
		logged = true;
		here = under(log, p->o->state_root);
		if (!here && root && (real = realpath(log, NULL))) {
			/* a --state-dir spelled otherwise than when the runs were stored */
			here = under(real, root);
			free(real);
		}
	}
	free(root);
	return here || !logged;
}

static int runs_table(struct page *p, struct strbuf *sb, const struct history_run *runs, size_t n,
		      bool counted)
{
	size_t nr[2] = {0, 0}, timed = 0;
	int ret = 0;
	for (size_t i = 0; i < n; i++)
		timed += !runs[i].warmup;
	if (!timed && counted) {
		strbuf_addstr(sb, "<p class=\"note\">No timing run: its metrics are all counted, "
				  "in runs under valgrind (below).");
		if (n)
			strbuf_addstr(sb, " The warm-up without valgrind set their timeout.");
		strbuf_addstr(sb, "</p>\n");
		if (!n)
			return 0;
	}
	if (!n) {
		strbuf_addstr(sb, "<p class=\"note\">No run of this benchmark is on record for "
				  "this comparison.</p>\n");
		return 0;
	}
	strbuf_addstr(sb, "<table class=\"runs\"><tr><th>side</th><th>run</th>"
			  "<th>status</th><th>exit</th><th>duration (wall)</th>"
			  "<th>log</th><th>detail</th></tr>\n");
	for (size_t i = 0; i < n && !ret; i++)
		ret = run_row(p, sb, &runs[i], ++nr[runs[i].side == 'B']);
	strbuf_addstr(sb, "</table>\n");
	return ret;
}

static int copy_file(const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *out = NULL;
	int ret = RP_EINTERNAL;

	if (input_read(&sb, from, &input_state))
		goto out;
	if (!(out = fopen_own(to, "w"))) {
		error("cannot create %s: %s", to, fs_strerror(errno));
		goto out;
	}
	if (fwrite(sb.buf, 1, sb.len, out) != sb.len) {
		error("cannot copy %s to %s: %s", from, to, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (out && fclose(out) && !ret) {
		error("cannot write %s: %s", to, strerror(errno));
		ret = RP_EINTERNAL;
	}
	strbuf_release(&sb);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file names (*.svg) of a directory, sorted; *n = 0 when it cannot be read. */
static char **svg_files(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t alloc = 0;
	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 4 && !strcmp(e->d_name + len - 4, ".svg")) {
			ALLOC_GROW(names, *n + 1, alloc);
			names[(*n)++] = xstrdup(e->d_name);
		}
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), cmp_str);
	return names;
}

/* dst/<name> in the site for src, copied; its path relative to the page in *rel. */
static int copy_in(struct page *p, const char *src, size_t bench, const char *sub, const char *name,
		   struct strbuf *rel)
{
	struct strbuf dir = STRBUF_INIT, dst = STRBUF_INIT;
	int ret = RP_EINTERNAL;
	strbuf_reset(rel);
	strbuf_addf(rel, "%s/%zu%s%s", p->base.buf, bench, sub ? "/" : "", sub ? sub : "");
	strbuf_addf(&dir, "%s/commits/%s", p->o->out_dir, rel->buf);
	if (mkdir_own(p->o->out_dir, dir.buf))
		goto out;
	strbuf_addch(rel, '/');
	fsutil_add_safe_name(rel, name);
	strbuf_addf(&dst, "%s/commits/%s", p->o->out_dir, rel->buf);
	if ((ret = copy_file(src, dst.buf)))
		goto out;
	p->stats->files_copied++;
out:
	strbuf_release(&dir);
	strbuf_release(&dst);
	return ret;
}

/*
 * The absolute change per function and call path that `compare` left in
 * profiles/<comparison>/<bench>/ (profile = cct or sample) and its counted/ directory (ir),
 * read back and rendered escaped. A file that is there but unreadable is a warning and a note.
 */
static void absolute_sections(struct page *p, struct strbuf *sb, const char *dir, size_t bench)
{
	static const struct {
		const char *sub, *title;
	} files[] = {
	    {"", "Absolute change (profiled runs)"},
	    {"/counted", "Absolute change (counted runs under valgrind)"},
	};
	struct strbuf path = STRBUF_INIT;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct attribution a;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s%s/" ATTRIBUTION_FILE, dir, files[i].sub);
		if (!path_exists(path.buf))
			continue;
		strbuf_addf(sb, "<h4>%s</h4>\n", files[i].title);
		if (attribution_read_json(path.buf, &a)) {
			strbuf_addstr(sb, "<p class=\"flag\">This attribution could not be read (see "
					  "the report's warnings).</p>\n");
			warning("the absolute change of %s left out of its commit page (see above)",
				p->h->benches[bench].name);
			continue;
		}
		attribution_html(sb, &a, ATTRIBUTION_TOP);
		attribution_release(&a);
	}
	strbuf_release(&path);
}

/* The flame graph and control charts `compare` left in the comparison's <bench>/. */
static int profile_files(struct page *p, struct strbuf *sb, size_t bench)
{
	struct strbuf dir = STRBUF_INIT, src = STRBUF_INIT, rel = STRBUF_INIT;
	char **charts;
	size_t n;
	int ret = 0;

	strbuf_addf(&dir, "%s/", p->profiles.buf);
	fsutil_add_safe_name(&dir, p->h->benches[bench].name);
	absolute_sections(p, sb, dir.buf, bench);
	strbuf_addf(&src, "%s/flamegraph.svg", dir.buf);
	if (path_exists(src.buf)) {
		if ((ret = copy_in(p, src.buf, bench, NULL, "flamegraph.svg", &rel)))
			goto out;
		strbuf_addstr(sb, "<h4>Differential flame graph</h4>\n<iframe class=\"flamegraph\" "
				  "title=\"differential flame graph\" src=\"");
		site_escape(sb, rel.buf);
		strbuf_addstr(sb, "\"></iframe>\n<p><a href=\"");
		site_escape(sb, rel.buf);
		strbuf_addstr(sb,
			      "\">open the flame graph</a> (red: more time in the target, blue: "
			      "less; click a frame to zoom)</p>\n");
	}
	strbuf_addstr(&dir, "/charts");
	charts = svg_files(dir.buf, &n);
	if (n)
		strbuf_addstr(sb, "<h4>Control charts of the sampled counters</h4>\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&src);
		strbuf_addf(&src, "%s/%s", dir.buf, charts[i]);
		if (!ret && !(ret = copy_in(p, src.buf, bench, "charts", charts[i], &rel))) {
			strbuf_addstr(sb, "<a href=\"");
			site_escape(sb, rel.buf);
			strbuf_addstr(sb, "\"><img class=\"controlchart\" alt=\"");
			site_escape(sb, charts[i]);
			strbuf_addstr(sb, "\" src=\"");
			site_escape(sb, rel.buf);
			strbuf_addstr(sb, "\"></a>\n");
		}
		free(charts[i]);
	}
	free(charts);
out:
	strbuf_release(&dir);
	strbuf_release(&src);
	strbuf_release(&rel);
	return ret;
}

static void io_row(struct strbuf *sb, const struct spectra_row *r, size_t nr_runs,
		   const struct strmap *kinds)
{
	struct strbuf stack = STRBUF_INIT;
	strbuf_addf(sb,
		    "<tr><td class=\"num\">%.2f</td><td class=\"num\">%.1f</td>"
		    "<td class=\"num\">%.0f</td><td class=\"num\">",
		    r->sc, r->impact, r->total_impact);
	if (r->has_range)
		io_report_range(sb, r->lo, r->hi);
	else
		strbuf_addstr(sb, "new");
	strbuf_addf(sb,
		    "</td><td class=\"num\">%.1f</td><td class=\"num\">%zu/%zu</td>"
		    "<td class=\"num\">%+.1f</td><td class=\"stack\" title=\"",
		    r->bpc_mean, r->runs_written, nr_runs, r->calls_diff);
	/* The whole stack on hover; the cell shows it around the program's frames. */
	site_escape(sb, r->stack);
	strbuf_addstr(sb, "\">");
	io_report_stack(&stack, r->stack, kinds, 400);
	site_escape(sb, stack.buf);
	strbuf_release(&stack);
	strbuf_addstr(sb, "</td></tr>\n");
}

/* The I/O similarity report of the comparison's stored profiles of one benchmark. */
static void io_section(struct page *p, struct strbuf *sb, size_t cmp, size_t bench)
{
	struct spectra_report rep;
	struct strmap kinds = STRMAP_INIT;
	size_t used[2], changed, shown = 0;
	int ret = history_io_compare(p->h, cmp, bench, &rep, used, &kinds);

	if (ret < 0) {
		strbuf_addstr(sb, "<p class=\"flag\">The I/O profiles of this comparison could not "
				  "be read (see the report's warnings).</p>\n");
		warning("I/O similarity of %s left out of its commit page (see above)",
			p->h->benches[bench].name);
	}
	if (ret != 1) {
		spectra_report_release(&rep);
		strmap_release(&kinds);
		return;
	}
	changed = io_similarity_changed(&rep);
	strbuf_addf(sb,
		    "<h4>I/O similarity (writes)</h4>\n<p>%zu traced run%s of the target "
		    "against %zu of the baseline: %zu of %zu stack traces changed, %zu stopped "
		    "writing.</p>\n",
		    used[1], used[1] == 1 ? "" : "s", used[0], changed, rep.nr_rows,
		    rep.nr_stopped);
	for (size_t i = 0; i < rep.nr_rows && shown < IO_TOP; i++) {
		const struct spectra_row *r = &rep.rows[i];
		if (!(r->sc < 1.0 || !r->has_range))
			continue;
		if (!shown++)
			strbuf_addstr(sb, "<table class=\"io\"><tr><th>SC</th><th>Impact</th>"
					  "<th>TotalImpact</th><th>baseline range (bytes/call)"
					  "</th><th>bytes/call</th><th>runs</th><th>calls diff</th>"
					  "<th>stack trace</th></tr>\n");
		io_row(sb, r, rep.nr_runs, &kinds);
	}
	if (shown) {
		const char *legend[IO_REPORT_LEGEND_LINES];
		io_report_legend_lines(legend);
		strbuf_addstr(sb, "</table>\n<ul class=\"legend\">\n");
		for (size_t i = 0; i < IO_REPORT_LEGEND_LINES; i++) {
			strbuf_addstr(sb, "<li>");
			site_escape(sb, legend[i]);
			strbuf_addstr(sb, "</li>\n");
		}
		strbuf_addstr(sb, "</ul>\n");
	}
	spectra_report_release(&rep);
	strmap_release(&kinds);
}

static int comparison_section(struct page *p, struct strbuf *sb)
{
	const struct history *h = p->h;
	size_t ci = h->commits[p->commit].comparison;
	const struct history_comparison *c;
	char when[64];
	bool profiles = false;
	int ret = 0;

	if (ci == HISTORY_NONE) {
		strbuf_addstr(sb, "<h2>Comparison</h2>\n<p class=\"note\">No finished comparison "
				  "has this commit as its target.</p>\n");
		return 0;
	}
	c = &h->comparisons[ci];
	site_format_time(c->created_at, when, sizeof(when));
	strbuf_addf(sb, "<h2>Comparison #%lld</h2>\n<p>Baseline ", (long long)c->id);
	site_comparison_side(sb, h, c->base_commit, c->base_label, c->base_sha, true);
	strbuf_addstr(sb, " against target ");
	site_comparison_side(sb, h, c->commit, c->target_label, NULL, true);
	strbuf_addf(sb, ", started %s.</p>\n", when);
	site_verdict_table(sb, h, c);
	strbuf_addstr(sb, "<h2>Runs and attribution</h2>\n<p class=\"note\">The runs of this "
			  "comparison and of the earlier comparisons of the same two builds, whose "
			  "runs it reused. The links point into the state directory; a log whose "
			  "file is not on this machine is written from the store into the "
			  "site.</p>\n");
	if (p->o->state_root) {
		/* The store's folder (core/build.h, state_dir_bind_store); for a store other
		 * than the state directory's own, the files its comparisons left before schema
		 * 15 kept them apart are in profiles/<comparison> still. */
		strbuf_addf(&p->profiles, "%s/%lld", p->o->profiles_dir, (long long)c->id);
		if (!path_exists(p->profiles.buf) && p->o->store_apart) {
			strbuf_reset(&p->profiles);
			strbuf_addf(&p->profiles, "%s/profiles/%lld", p->o->state_root,
				    (long long)c->id);
		}
		profiles = path_exists(p->profiles.buf);
		if (profiles && !measured_here(p, c)) {
			profiles = false;
			strbuf_addstr(sb,
				      "<p class=\"flag\">Its profiles (attribution, flame graphs, "
				      "control charts) stayed in the state directory that measured "
				      "it, on ");
			site_escape(sb, h->has_machine ? h->machine.hostname : "another machine");
			strbuf_addstr(sb, ", not in this one, whose comparison of the same number "
					  "is another store's or another clone's: build the report "
					  "there to see them.</p>\n");
		}
	}
	/* verdicts and runs are sorted by benchmark: walk both once */
	for (size_t v = 0, r = 0; (v < c->nr_verdicts || r < c->nr_runs) && !ret;) {
		size_t b = HISTORY_NONE, r_end;
		bool counted = v < c->nr_verdicts;
		if (v < c->nr_verdicts)
			b = c->verdicts[v].bench;
		if (r < c->nr_runs && c->runs[r].bench < b)
			b = c->runs[r].bench;
		if (b == HISTORY_NONE)
			break;
		for (; v < c->nr_verdicts && c->verdicts[v].bench == b; v++) {
			const struct metric_def *def = metric_find(c->verdicts[v].metric);
			counted = counted && def && (def->flags & METRIC_COUNTED);
		}
		for (r_end = r; r_end < c->nr_runs && c->runs[r_end].bench == b; r_end++)
			;
		strbuf_addstr(sb, "<h3>");
		site_escape(sb, h->benches[b].name);
		strbuf_addstr(sb, "</h3>\n");
		ret = runs_table(p, sb, c->runs + r, r_end - r, counted);
		r = r_end;
		if (profiles && !ret)
			ret = profile_files(p, sb, b);
		if (h->nr_io)
			io_section(p, sb, ci, b);
	}
	return ret;
}

int site_commit_write(const struct history *h, const struct site_options *o, size_t commit,
		      const char *generated, struct strbuf *page, struct site_stats *stats,
		      struct site_logged *logged)
{
	const struct history_commit *hc = &h->commits[commit];
	struct page p = {h, o, commit, STRBUF_INIT, stats, logged, STRBUF_INIT};
	struct strbuf short_sha = STRBUF_INIT, summary = STRBUF_INIT, navb = STRBUF_INIT;
	struct strbuf sha = STRBUF_INIT, diff = STRBUF_INIT, build = STRBUF_INIT;
	struct strbuf machine = STRBUF_INIT, points = STRBUF_INIT, cmp = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT;
	char when[64];
	int ret;

	site_commit_base(&p.base, h, commit);
	site_short_sha(&short_sha, hc->sha);
	site_escape(&summary, hc->summary);
	nav(&p, &navb);
	site_escape(&sha, hc->sha);
	diff_link(&p, &diff);
	site_format_time(hc->commit_time, when, sizeof(when));
	if ((ret = build_text(&p, &build)))
		goto out;
	site_escape(&machine, h->has_machine ? h->machine.hostname : "no machine");
	points_table(&p, &points);
	if ((ret = comparison_section(&p, &cmp)))
		goto out;
	{
		const struct site_slot slots[] = {
		    {"short_sha", short_sha.buf},
		    {"summary", summary.buf},
		    {"nav", navb.buf},
		    {"sha", sha.buf},
		    {"diff", diff.buf},
		    {"time", when},
		    {"build", build.buf},
		    {"machine", machine.buf},
		    {"points", points.buf},
		    {"comparison", cmp.buf},
		    {"version", REVPERF_VERSION},
		    {"generated", generated},
		};
		if ((ret = site_fill(page, revperf_asset_site_commit_html,
				     revperf_asset_site_commit_html_len, slots, ARRAY_SIZE(slots))))
			goto out;
	}
	strbuf_addf(&path, "%s/commits/%s.html", o->out_dir, p.base.buf);
	ret = site_write_file(path.buf, page->buf, page->len);
out:
	strbuf_release(&p.base);
	strbuf_release(&p.profiles);
	strbuf_release(&short_sha);
	strbuf_release(&summary);
	strbuf_release(&navb);
	strbuf_release(&sha);
	strbuf_release(&diff);
	strbuf_release(&build);
	strbuf_release(&machine);
	strbuf_release(&points);
	strbuf_release(&cmp);
	strbuf_release(&path);
	return ret;
}
