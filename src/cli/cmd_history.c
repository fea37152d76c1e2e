/* revperf history: each commit of a range measured against its parent (docs/history.md). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "collect/proc.h"
#include "history/history.h"
#include "compare/revcompare.h"
#include "report/history_report.h"
#include "util/common.h"
#include "util/parse.h"

static struct {
	const char *config, *state_dir, *store, *bench, *select, *limit, *min_segment;
	bool all_commits, fresh;
	struct cli_output out;
	struct opt_overrides overrides;
} o;

static const struct option history_options[] = {
    {OPT_STRING, 'n', "max-count", "N",
     "the newest N commits (default 20 for a single "
     "revision, all of an A..B range)",
     &o.limit, NULL},
    {OPT_FLAG, 0, "all-commits", NULL,
     "also the commits of merged side branches (default: "
     "first parents only)",
     &o.all_commits, NULL},
    {OPT_OPTARG, 0, "select", "MODE",
     "per commit, only the benchmarks it needs: perphecy "
     "(the trained predictor; a bare --select) or tests",
     &o.select, "perphecy"},
    {OPT_STRING, 'b', "bench", "NAMES", "only these benchmarks (comma-separated)", &o.bench, NULL},
    {OPT_STRING, 0, "min-segment", "N", "change points: fewest commits between two (3)",
     &o.min_segment, NULL},
    {OPT_FLAG, 0, "fresh", NULL, "measure every commit anew, even when stored", &o.fresh, NULL},
    CLI_OUTPUT_OPTIONS(o.out, "text, json or markdown", "no progress on stderr"),
    CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
    CLI_METRIC_OPTIONS(o.overrides),
    CLI_RUN_OPTIONS(o.overrides),
    OPT_END_MARKER,
};
static const char *const history_usage[] = {
    "history [options] [RANGE]",
    NULL,
};
const struct command_help history_help = {
    "history",
    history_usage,
    "Measures each commit of RANGE against its first parent, oldest first, as compare\n"
    "does (builds cached, stored runs reused), then finds the change points along each\n"
    "benchmark's series by E-divisive means, each with the (1 - alpha) interval of its\n"
    "relative change. RANGE is A..B (the commits of B that A lacks)\n"
    "or one revision (default HEAD) and its newest -n ancestors. A commit already compared\n"
    "with its parent is not measured again (unless --fresh) when that comparison answers\n"
    "the metrics and primary asked now (-m, --primary, revperf.ini); one judged on another\n"
    "primary is shown with the one asked, with a warning. An interrupted history\n"
    "resumes where it stopped when run again. A commit that does not build is shown as\n"
    "such; the next one is compared with the last commit that built.\n"
    "Exit status: 0 done, 2 usage or input error (an empty range), 3 internal failure,\n"
    "128 + N stopped by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP).",
    history_options,
};

static int parse_count(const char *flag, const char *s, size_t lo, size_t *out)
{
	double v;
	if (parse_double(s, (double)lo, 1e9, &v) || v != (double)(size_t)v) {
		usage_error("history", "%s expects a whole number >= %zu, got '%s'", flag, lo, s);
		return -1;
	}
	*out = (size_t)v;
	return 0;
}

static const char *const history_formats[] = {"text", "json", "markdown", NULL};

static int history(int n, const char *const *args, enum report_format format);

int cmd_history(int argc, char **argv)
{
	const char *args[1];
	int n, format;

	memset(&o, 0, sizeof(o));
	n = parse_options(argc, argv, &history_help, args, 1);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	/* history_formats in the order of enum report_format */
	if ((format = cli_output_begin(&o.out, "history", history_formats)) < 0)
		return EXIT_USAGE;
	return cli_output_end(&o.out, history(n, args, (enum report_format)format));
}

/* The history of RANGE (args[0], or HEAD), as an exit status. */
static int history(int n, const char *const *args, enum report_format format)
{
	struct cli_project p;
	struct cli_config_source src = {NULL, NULL, NULL, NULL, NULL, NULL, 0};
	struct history_request req;
	struct history_result res;
	const char *range;
	size_t limit = 0, min_segment = 0;
	int ret = EXIT_USAGE, err;

	memset(&p, 0, sizeof(p));
	memset(&req, 0, sizeof(req));
	memset(&res, 0, sizeof(res));
	range = n ? args[0] : "HEAD";
	if (o.select && strcmp(o.select, "perphecy") && strcmp(o.select, "tests")) {
		usage_error("history", "unknown --select mode '%s': use perphecy or tests",
			    o.select);
		return EXIT_USAGE;
	}
	if ((o.limit && parse_count("-n", o.limit, 1, &limit)) ||
	    (o.min_segment && parse_count("--min-segment", o.min_segment, 2, &min_segment)))
		return EXIT_USAGE;
	if (!o.limit && !strstr(range, ".."))
		limit = HISTORY_DEFAULT_COUNT;
	/* Before any build, run or report: can runs start at all (docs/install.md)? */
	if (proc_spawner_check())
		return EXIT_USAGE;
	if ((ret = cli_project_open(&p, CLI_WHERE(o), CLI_PROJECT_CONFIG)))
		goto out;
	src.config = o.config;
	src.bench = o.bench;
	src.overrides = &o.overrides;
	/* one line per commit instead of compare's notes */
	cli_revcompare_ctx(&req.ctx, &p, &src, o.select, o.fresh, true);
	req.ctx.progress = cli_compare_progress(o.out.quiet);
	req.range = range;
	req.first_parent = !o.all_commits;
	req.limit = limit;
	req.min_segment = min_segment;
	req.progress = o.out.quiet ? NULL : stderr;
	interrupt_install();
	err = history_run(&req, &res);
	if (err && !res.nr_commits) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	o.out.printed = true;
	if (history_report(stdout, &res, format)) {
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		goto out;
	}
	if (err)
		ret = rp_err_exit_code(err);
	else if (res.interrupted)
		ret = interrupt_exit_code();
	else
		ret = EXIT_OK;
out:
	history_result_release(&res);
	ret = cli_project_close(&p, ret);
	return ret;
}
