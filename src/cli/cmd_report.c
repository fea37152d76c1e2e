/* revperf report: the static HTML site of the measured history (docs/report.md). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/config.h"
#include "util/fsutil.h"
#include "history/history_data.h"
#include "core/revision.h"
#include "store/store.h"
#include "report/site.h"
#include "store/store_history.h"
#include "util/common.h"
#include "util/units.h"
#include "util/parse.h"

static struct {
	const char *out, *state_dir, *store, *config, *commit_url, *min_segment, *title, *machine;
	bool each_machine;
	struct cli_output output;
} o;

/* clang-format off */
static const struct option report_options[] = {
	{ OPT_STRING, 'o', "out", "DIR", "write the site into DIR (default: report/ in the "
					 "state directory); created when missing", &o.out, NULL },
	{ OPT_STRING, 0, "state-dir", "DIR", "where the results are (default .revperf/ at the "
					     "repository root)", &o.state_dir, NULL },
	CLI_STORE_OPTION(o.store),
	{ OPT_STRING, 'c', "config", "FILE", "configuration file for [report] commit-url "
					     "(default: revperf.ini at the repository root, when "
					     "there is one)", &o.config, NULL },
	{ OPT_STRING, 0, "commit-url", "TEMPLATE", "link each commit page to its diff: "
						   "TEMPLATE with {sha} replaced, e.g. "
						   "https://example.org/repo/commit/{sha}",
	  &o.commit_url, NULL },
	{ OPT_STRING, 0, "min-segment", "N", "change points: fewest commits between two "
					     "(default 3, at least 2)", &o.min_segment, NULL },
	{ OPT_STRING, 0, "title", "TEXT", "the title of the index page", &o.title, NULL },
	{ OPT_STRING, 0, "machine", "NAME", "the runs of this machine (its name as stored: "
					    "the host name, or a worker's --machine; default: "
					    "the machine with the most runs)", &o.machine, NULL },
	{ OPT_FLAG, 0, "each-machine", NULL, "one site per machine with runs, in DIR/NAME/ "
					     "(text only)", &o.each_machine, NULL },
	CLI_OUTPUT_OPTIONS(o.output, "text or json (what was written)",
			   "print nothing when all went well (text)"),
	OPT_END_MARKER,
};
/* clang-format on */
static const char *const report_usage[] = {
    "report [--out DIR] [options]",
    NULL,
};
const struct command_help report_help = {
    "report",
    report_usage,
    "Writes the measured history as a static HTML site that works from file:// with no\n"
    "server: index.html with one trend chart per benchmark and metric (each point the\n"
    "median of a commit's successful runs with its distribution-free 95% interval,\n"
    "change points marked, failed runs and builds flagged, bytes written where I/O\n"
    "profiles exist), and one page per commit (commits/<sha>.html) with its verdicts,\n"
    "runs, logs and attribution (differential flame graph, control charts, I/O\n"
    "similarity). The commits are those whose main build has runs on the machine with\n"
    "the most runs, or the one --machine names (or failed); --each-machine writes one\n"
    "site per machine, never mixing two machines' runs in a chart. The charts follow\n"
    "the first parents of HEAD (its branch is named on each chart) from the first to\n"
    "the last measured commit: a failed build between them is marked, one before or\n"
    "after has its page (naming the build command that failed) but stays off the\n"
    "charts, as do the measured commits of other branches. See docs/report.md.\n"
    "Exit status: 0 written, 2 usage or input error (no results yet, --out not a\n"
    "directory, a --machine without runs), 3 internal failure.",
    report_options,
};

struct report_ctx {
	struct cli_project p; /* no repository with --state-dir */
	struct config cfg;
	struct strbuf out;
	struct history h;
	struct revision *line; /* HEAD's first parents, oldest first */
	size_t nr_line;
	const char **line_shas;
	struct strbuf line_name;
};

/*
 * The history the charts follow: the first parents of HEAD, named after its branch. With
 * no repository (--state-dir) or no commit yet, none: every measured commit by time.
 */
static int follow_head(struct report_ctx *c, struct history_opts *ho)
{
	int err;
	if (!c->p.repo)
		return 0;
	if ((err = repo_range(c->p.repo, "HEAD", true, 0, &c->line, &c->nr_line)))
		return rp_err_exit_code(err);
	c->line_shas = xmallocarray(c->nr_line ? c->nr_line : 1, sizeof(*c->line_shas));
	for (size_t i = 0; i < c->nr_line; i++)
		c->line_shas[i] = c->line[i].sha;
	repo_head_name(c->p.repo, &c->line_name);
	ho->line = c->line_shas;
	ho->nr_line = c->nr_line;
	ho->line_name = c->line_name.buf;
	return 0;
}

/*
 * The project (its state directory not created: a report only reads) and the
 * configuration: both at the repository root, or --state-dir and --config (else
 * ./revperf.ini when present). Returns 0 or an exit code.
 */
static int locate(struct report_ctx *c)
{
	char cwd[4096];
	struct strbuf ini = STRBUF_INIT;
	int ret;

	if (!getcwd(cwd, sizeof(cwd))) {
		error("cannot read the current directory: %s", strerror(errno));
		return EXIT_INTERNAL;
	}
	if ((ret = cli_project_open(&c->p, CLI_WHERE(o),
				    CLI_PROJECT_EXISTING | (o.state_dir ? CLI_PROJECT_NO_REPO : 0))))
		return ret;
	if (o.config)
		strbuf_addstr(&ini, o.config);
	else
		strbuf_addf(&ini, "%s/revperf.ini", c->p.repo ? repo_workdir(c->p.repo) : cwd);
	if (o.config || path_exists(ini.buf))
		ret = rp_err_exit_code(config_read(&c->cfg, ini.buf));
	strbuf_release(&ini);
	return ret;
}

static int parse_min_segment(size_t *out)
{
	uint64_t v;
	*out = 0;
	if (!o.min_segment)
		return 0;
	if (parse_u64(o.min_segment, &v) || v < 2 || v > 1000000)
		return usage_error("report",
				   "--min-segment '%s': expected a number of commits "
				   "from 2 to 1000000",
				   o.min_segment);
	*out = (size_t)v;
	return 0;
}

/* Loads the history of ho's machine and writes its site into out_dir, with the line that
 * says so (format 1: JSON). Returns an exit status. */
static int write_site(struct report_ctx *c, struct history_opts *ho, const char *out_dir,
		      int format)
{
	struct site_options so;
	struct site_stats stats;
	int err, ret = EXIT_USAGE;

	if ((err = history_load(c->p.st, ho, &c->h))) {
		ret = rp_err_exit_code(err);
		return ret;
	}
	if (!c->h.nr_commits) {
		error("no measured commit in %s; run `revperf compare BASE TARGET` or `revperf "
		      "history` first",
		      store_name(c->p.st));
		return ret;
	}
	memset(&so, 0, sizeof(so));
	so.out_dir = out_dir;
	so.state_root = c->p.sd.root;
	so.profiles_dir = c->p.sd.profiles;
	so.store_apart = state_dir_store_apart(&c->p.sd);
	so.commit_url = o.commit_url ? o.commit_url : c->cfg.report_commit_url;
	so.database = store_name(c->p.st);
	so.st = c->p.st;
	so.title = o.title;
	if ((err = site_write(&c->h, &so, &stats))) {
		ret = rp_err_exit_code(err);
		return ret;
	}
	o.output.printed = true;
	if (format == 1) {
		struct strbuf index = STRBUF_INIT;
		json_t *root;
		strbuf_addf(&index, "%s/index.html", out_dir);
		root = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I}", "revperf_version",
				 REVPERF_VERSION, "schema", "revperf-report/1", "directory",
				 out_dir, "index", index.buf, "commits",
				 (json_int_t)c->h.nr_commits, "charts", (json_int_t)stats.charts,
				 "pages", (json_int_t)stats.pages, "files_copied",
				 (json_int_t)stats.files_copied);
		if (!root || json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
		    fputc('\n', stdout) == EOF)
			ret = EXIT_INTERNAL;
		json_decref(root);
		strbuf_release(&index);
	} else if (!o.output.quiet) {
		printf("wrote %s/index.html: %zu %s, %zu %s, %zu %s, %zu %s copied\n", out_dir,
		       c->h.nr_commits, units_noun(c->h.nr_commits, "commit", "commits"),
		       stats.charts, units_noun(stats.charts, "chart", "charts"), stats.pages,
		       units_noun(stats.pages, "page", "pages"), stats.files_copied,
		       units_noun(stats.files_copied, "file", "files"));
	}
	if (ret == EXIT_INTERNAL || fflush(stdout)) {
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		return ret;
	}
	return EXIT_OK;
}

static const char *const report_formats[] = { "text", "json", NULL };

static int report(int argc, char **argv)
{
	const char *args[1];
	struct report_ctx c;
	struct history_opts ho = {0};
	int n, err, ret = EXIT_USAGE, format;

	memset(&o, 0, sizeof(o));
	memset(&c, 0, sizeof(c));
	config_init(&c.cfg);
	strbuf_init(&c.out);
	strbuf_init(&c.line_name);
	n = parse_options(argc, argv, &report_help, args, 0);
	if (n == -2) {
		ret = EXIT_OK;
		goto out;
	}
	if (n < 0 || (format = cli_output_begin(&o.output, "report", report_formats)) < 0 ||
	    parse_min_segment(&ho.min_segment))
		goto out;
	if (o.each_machine && (format == 1 || o.machine)) {
		usage_error("report", "--each-machine writes text only, and every machine: use "
				      "--machine NAME -f json for one");
		goto out;
	}
	if (o.commit_url && parse_http_url(o.commit_url)) {
		usage_error("report",
			    "--commit-url '%s': expected an http:// or https:// URL such as "
			    "https://example.org/repo/commit/{sha}",
			    o.commit_url);
		goto out;
	}
	if ((err = locate(&c)) || (err = follow_head(&c, &ho))) {
		ret = err;
		goto out;
	}
	ho.cfg = &c.cfg; /* count tolerances of the change points */
	if (o.out)
		strbuf_addstr(&c.out, o.out);
	else
		strbuf_addf(&c.out, "%s/report", c.p.sd.root);
	if (o.each_machine) {
		char **names = NULL;
		size_t nr = 0;
		if ((err = store_history_machine_names(c.p.st, &names, &nr))) {
			ret = rp_err_exit_code(err);
			goto out;
		}
		if (!nr)
			error("no runs in %s; run `revperf compare BASE TARGET` or `revperf "
			      "history` first",
			      store_name(c.p.st));
		ret = nr ? EXIT_OK : EXIT_USAGE;
		for (size_t i = 0; i < nr && ret == EXIT_OK; i++) {
			struct strbuf dir = STRBUF_INIT;
			strbuf_addf(&dir, "%s/", c.out.buf);
			fsutil_add_safe_name(&dir, names[i]);
			ho.machine = names[i];
			history_release(&c.h);
			ret = write_site(&c, &ho, dir.buf, format);
			strbuf_release(&dir);
		}
		for (size_t i = 0; i < nr; i++)
			free(names[i]);
		free(names);
		goto out;
	}
	ho.machine = o.machine;
	ret = write_site(&c, &ho, c.out.buf, format);
out:
	history_release(&c.h);
	revisions_free(c.line, c.nr_line);
	free(c.line_shas);
	strbuf_release(&c.line_name);
	config_release(&c.cfg);
	ret = cli_project_close(&c.p, ret);
	strbuf_release(&c.out);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	int ret = report(argc, argv);
	return cli_output_end(&o.output, ret);
}
