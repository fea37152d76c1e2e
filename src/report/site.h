#ifndef REVPERF_REPORT_SITE_H
#define REVPERF_REPORT_SITE_H

/*
 * The static HTML site of `revperf report` (docs/report.md): index.html with one SVG trend
 * chart per benchmark and metric, and one page per commit (commits/<sha>.html) with its
 * measurements, the verdicts and runs of the comparison that measured it, and the
 * attribution (differential flame graph, control charts, I/O similarity). It works from
 * file:// with no server and no network. The pages are the templates of
 * src/report/assets/ (site-index.html, site-commit.html, site.css) with their {{slots}}
 * filled. Every string that comes from the program under test or the store goes through
 * site_escape().
 */
#include <stdbool.h>
#include <stdio.h>

#include "history/history_data.h"

struct site_options {
	const char *out_dir;	/* created if missing; index.html is written last */
	const char *state_root; /* the .revperf directory */
	/* The store's folder of profiles, <profiles_dir>/<comparison>/<bench>/ (struct
	 * state_dir's profiles), and whether it is not state_root/profiles (another store's
	 * than the state directory's own). */
	const char *profiles_dir;
	bool store_apart;
	const char *commit_url; /* "https://host/commit/{sha}"; NULL = no diff link */
	const char *database;	/* the database's path, named in the footer */
	/* The store, for the logs it keeps of runs and builds whose files are not on this
	 * machine (written into the site); NULL: logs are only linked. */
	struct store *st;
	const char *title;	/* NULL = "revperf report" */
};

/* What site_write() wrote. */
struct site_stats {
	size_t pages, charts, files_copied;
};

/*
 * Writes the site of h into o->out_dir. Returns 0, RP_EINPUT after error() when out_dir
 * is not a directory that can be created or written, RP_EINTERNAL on a write error.
 * stats may be NULL.
 */
int site_write(const struct history *h, const struct site_options *o, struct site_stats *stats);

/*
 * The one escape of the site (strbuf_add_xml_escaped(): & < > " ' as character
 * references, control characters and invalid UTF-8 as U+FFFD), safe in HTML text,
 * attribute values and inline SVG. NULL appends nothing.
 */
struct strbuf;
void site_escape(struct strbuf *sb, const char *s);

/* ---- Shared by the site*.c files ---- */

/* A {{name}} slot of a template and its value (HTML, already escaped). */
struct site_slot {
	const char *name;
	const char *html;
};

/*
 * Appends the template with each {{name}} replaced by its slot's value. Returns 0, or
 * RP_EINTERNAL after error() for a slot the template names and `slots` lacks (a bug).
 */
int site_fill(struct strbuf *out, const char *tmpl, size_t len, const struct site_slot *slots,
	      size_t nr);

/* The page of commit i relative to the site root: "commits/<sha>.html" (a safe name). */
void site_commit_page(struct strbuf *sb, const struct history *h, size_t commit);
/* Its base name only, for links between commit pages. */
void site_commit_name(struct strbuf *sb, const struct history *h, size_t commit);
/* The same without ".html": also the directory of the page's files (commits/<base>/). */
void site_commit_base(struct strbuf *sb, const struct history *h, size_t commit);
/* The first 12 characters of a sha, escaped. */
void site_short_sha(struct strbuf *sb, const char *sha);
/*
 * One side of a comparison, the same for the baseline and the target: the short sha of
 * its commit (a link to its page, relative to the site root or, from_commit_page, to
 * another commit page) and the commit's subject, then the label the comparison was given
 * in parentheses unless it only names the sha ("main"; history gives full shas). A side
 * whose commit has no page (commit HISTORY_NONE): its short sha (sha, when known) and
 * label. Escaped.
 */
void site_comparison_side(struct strbuf *sb, const struct history *h, size_t commit,
			  const char *label, const char *sha, bool from_commit_page);
/* A value of a metric with its unit ("12.3 ms"); def NULL: 4 significant digits. */
void site_format_value(const struct metric_def *def, double v, char *buf, size_t size);
/* A unix time as "2026-11-21 14:03 UTC". */
void site_format_time(int64_t t, char *buf, size_t size);
/*
 * A file:// URL of an absolute path (percent-encoded), escaped; the path as text otherwise.
 * A file that is gone (removed by revperf gc) is no link but a note "TEXT removed by
 * revperf gc". Returns whether the file is there (false only for a missing one).
 */
bool site_file_link(struct strbuf *sb, const char *path, const char *text);

/* The SVG chart of a series (inline in index.html: links relative to the site root). */
void site_chart_series(struct strbuf *sb, const struct history *h, const struct history_series *s);
/* The SVG chart of a benchmark's bytes written (profile = io). */
void site_chart_bytes(struct strbuf *sb, const struct history *h, const struct history_bench *b);
/* The legend of the chart marks. */
void site_chart_legend(struct strbuf *sb);

/* The verdict table of a comparison (every verdict of its benchmarks and metrics). */
void site_verdict_table(struct strbuf *sb, const struct history *h,
			const struct history_comparison *c);

/* index.html (into `out`, the whole page). */
int site_index_page(struct strbuf *out, const struct history *h, const struct site_options *o,
		    const char *generated);

/*
 * The runs whose output the store keeps, sorted: asked once for the whole site, at the
 * first run whose log file is not on this machine (site_write() owns it).
 */
struct site_logged {
	int64_t *ids;
	size_t n;
	bool asked;
};

/* commits/<sha>.html and its attribution files; errors after error(). */
int site_commit_write(const struct history *h, const struct site_options *o, size_t commit,
		      const char *generated, struct strbuf *page, struct site_stats *stats,
		      struct site_logged *logged);

/* Writes `len` bytes to path through path.tmp renamed into place; RP_EINTERNAL after error(). */
int site_write_file(const char *path, const char *data, size_t len);

#endif
