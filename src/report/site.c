/*
 * The static HTML site (report/site.h): escaping, templates, links and the order in which
 * the files are written (the stylesheet, every commit page, index.html last).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/fsutil.h"
#include "util/parse.h"
#include "report/assets.h"
#include "report/site.h"
#include "util/common.h"

void site_escape(struct strbuf *sb, const char *s)
{
	if (s)
		strbuf_add_xml_escaped(sb, s);
}

int site_fill(struct strbuf *out, const char *tmpl, size_t len, const struct site_slot *slots,
	      size_t nr)
{
	const char *p = tmpl, *end = tmpl + len;
	while (p < end) {
		const char *open = memmem(p, (size_t)(end - p), "{{", 2), *close;
		size_t i, name_len;
		if (!open) {
			strbuf_add(out, p, (size_t)(end - p));
			break;
		}
		strbuf_add(out, p, (size_t)(open - p));
		close = memmem(open + 2, (size_t)(end - open - 2), "}}", 2);
		if (!close) {
			error("report template: '{{' without '}}'");
			return RP_EINTERNAL;
		}
		name_len = (size_t)(close - open - 2);
		for (i = 0; i < nr; i++)
			if (strlen(slots[i].name) == name_len &&
			    !memcmp(slots[i].name, open + 2, name_len))
				break;
		if (i == nr) {
			error("report template: no value for {{%.*s}}", (int)name_len, open + 2);
			return RP_EINTERNAL;
		}
		strbuf_addstr(out, slots[i].html ? slots[i].html : "");
		p = close + 2;
	}
	return 0;
}

/* A sha fit for a file name: 4 to 64 hex digits. */
static bool safe_sha(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return n >= 4 && n <= 64 && !s[n];
}

void site_commit_base(struct strbuf *sb, const struct history *h, size_t commit)
{
	const struct history_commit *c = &h->commits[commit];
	if (safe_sha(c->sha))
		strbuf_addstr(sb, c->sha);
	else
		strbuf_addf(sb, "rev-%lld", (long long)c->revision_id);
}

void site_commit_name(struct strbuf *sb, const struct history *h, size_t commit)
{
	site_commit_base(sb, h, commit);
	strbuf_addstr(sb, ".html");
}

void site_commit_page(struct strbuf *sb, const struct history *h, size_t commit)
{
	strbuf_addstr(sb, "commits/");
	site_commit_name(sb, h, commit);
}

void site_short_sha(struct strbuf *sb, const char *sha)
{
	char buf[13];
	snprintf(buf, sizeof(buf), "%s", sha ? sha : "");
	site_escape(sb, buf);
}

/* Whether label only names sha: empty, or a prefix of it of 4 characters or more. */
static bool label_is_sha(const char *label, const char *sha)
{
	size_t n = label ? strlen(label) : 0;
	return !n || (sha && n >= 4 && !strncmp(label, sha, n));
}

void site_comparison_side(struct strbuf *sb, const struct history *h, size_t commit,
			  const char *label, const char *sha, bool from_commit_page)
{
	if (commit != HISTORY_NONE) {
		sha = h->commits[commit].sha;
		strbuf_addstr(sb, "<a href=\"");
		if (from_commit_page)
			site_commit_name(sb, h, commit);
		else
			site_commit_page(sb, h, commit);
		strbuf_addstr(sb, "\"><code>");
		site_short_sha(sb, sha);
		strbuf_addstr(sb, "</code></a> ");
		site_escape(sb, h->commits[commit].summary);
	} else if (sha && *sha) {
		strbuf_addstr(sb, "<code>");
		site_short_sha(sb, sha);
		strbuf_addstr(sb, "</code>");
	} else {
		site_escape(sb, label ? label : "");
		return;
	}
	if (!label_is_sha(label, sha)) {
		strbuf_addstr(sb, " (");
		site_escape(sb, label);
		strbuf_addch(sb, ')');
	}
}

void site_format_value(const struct metric_def *def, double v, char *buf, size_t size)
{
	if (def)
		metric_format(def, v, buf, size);
	else if (isfinite(v))
		snprintf(buf, size, "%.4g", v);
	else
		snprintf(buf, size, "n/a");
}

void site_format_time(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!t || !gmtime_r(&tt, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, size, "unknown");
}

bool site_file_link(struct strbuf *sb, const char *path, const char *text)
{
	static const char hex[] = "0123456789ABCDEF";
	if (!path || path[0] != '/') {
		site_escape(sb, path ? path : text);
		return true;
	}
	if (!path_exists(path)) {
		strbuf_addstr(sb, "<span class=\"note\">");
		site_escape(sb, text);
		strbuf_addstr(sb, " removed by revperf gc</span>");
		return false;
	}
	strbuf_addstr(sb, "<a href=\"file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p)) {
			strbuf_addch(sb, (char)*p);
		} else {
			strbuf_addch(sb, '%');
			strbuf_addch(sb, hex[*p >> 4]);
			strbuf_addch(sb, hex[*p & 15]);
		}
	}
	strbuf_addstr(sb, "\">");
	site_escape(sb, text ? text : path);
	strbuf_addstr(sb, "</a>");
	return true;
}

int site_write_file(const char *path, const char *data, size_t len)
{
	struct whole_file w;

	if (whole_file_open(&w, path)) {
		error("cannot create %s: %s", path, fs_strerror(errno));
		return RP_EINTERNAL;
	}
	fwrite(data, 1, len, w.f); /* a short write sets the stream's error: commit fails */
	if (whole_file_commit(&w)) {
		error("cannot write %s: %s", path, strerror(errno));
		return RP_EINTERNAL;
	}
	return 0;
}

/* The output directory: created when missing, refused when it is something else. */
static int prepare_out_dir(const char *state_root, const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int ret = RP_EINPUT;

	if (!stat(dir, &st) && !S_ISDIR(st.st_mode)) {
		error("--out %s is not a directory; name a directory for the site (it is created "
		      "when missing)",
		      dir);
		return RP_EINPUT;
	}
	strbuf_addf(&sb, "%s/commits", dir);
	if (mkdir_own(state_root, dir) || mkdir_own(dir, sb.buf))
		goto out;
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

int site_write(const struct history *h, const struct site_options *o, struct site_stats *stats)
{
	struct strbuf path = STRBUF_INIT, page = STRBUF_INIT;
	struct site_stats local = {0, 0, 0};
	struct site_logged logged = {NULL, 0, false};
	char generated[64];
	int ret;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	if (o->commit_url && parse_http_url(o->commit_url)) {
		/* The configuration refuses it already; no other caller may slip one in. */
		error("commit-url '%s' is not an http:// or https:// URL; the report links to "
		      "no other kind",
		      o->commit_url);
		return RP_EINPUT;
	}
	site_format_time((int64_t)time(NULL), generated, sizeof(generated));
	if ((ret = prepare_out_dir(o->state_root, o->out_dir)))
		goto out;
	strbuf_addf(&path, "%s/site.css", o->out_dir);
	if (site_write_file(path.buf, revperf_asset_site_css, revperf_asset_site_css_len)) {
		ret = RP_EINPUT; /* the first file: the directory is not writable */
		goto out;
	}
	for (size_t i = 0; i < h->nr_commits; i++) {
		strbuf_reset(&page);
		if ((ret = site_commit_write(h, o, i, generated, &page, stats, &logged)))
			goto out;
		stats->pages++;
	}
	strbuf_reset(&page);
	if ((ret = site_index_page(&page, h, o, generated)))
		goto out;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/index.html", o->out_dir);
	if ((ret = site_write_file(path.buf, page.buf, page.len)))
		goto out;
	stats->pages++;
	stats->charts = h->nr_series;
	for (size_t b = 0; b < h->nr_benches; b++)
		stats->charts += h->benches[b].nr_bytes > 0;
out:
	free(logged.ids);
	strbuf_release(&path);
	strbuf_release(&page);
	return ret;
}
