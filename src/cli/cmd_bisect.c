/* revperf bisect: the commit that made a benchmark worse (docs/history.md). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "collect/proc.h"
#include "history/bisect.h"
#include "report/history_report.h"
#include "util/common.h"

static struct {
	const char *config, *state_dir, *store, *bench, *metric, *format;
	bool quiet;
	struct opt_overrides overrides;
} o;

static const struct option bisect_options[] = {
    {OPT_STRING, 'b', "bench", "NAME", "the benchmark that got worse (required)", &o.bench, NULL},
    {OPT_STRING, 'M', "metric", "M",
     "the metric that got worse (default: the benchmark's "
     "first primary metric)",
     &o.metric, NULL},
    {OPT_STRING, 'f', "format", "FMT", "text or json", &o.format, NULL},
    {OPT_FLAG, 'q', "quiet", NULL, "no progress on stderr", &o.quiet, NULL},
    CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
    CLI_RUN_OPTIONS(o.overrides),
    OPT_END_MARKER,
};
static const char *const bisect_usage[] = {
    "bisect [options] --bench NAME [--metric M] GOOD BAD",
    NULL,
};
const struct command_help bisect_help = {
    "bisect",
    bisect_usage,
    "Finds the first commit on the first-parent path from GOOD to BAD whose benchmark\n"
    "NAME is worse than at GOOD, by binary search: each step compares GOOD with a commit\n"
    "and decides by the verdict of compare (worse, equal, better, undecided). An\n"
    "undecided step is run again with twice, then four times the runs; a commit that\n"
    "stays undecided or does not build is skipped and a neighbour is tried. It prints\n"
    "the culprit with the evidence: the culprit against GOOD and against its own parent,\n"
    "and the parent against GOOD. Stored runs are reused, so a second bisect is fast.\n"
    "Exit status: 0 culprit found, 1 BAD is not worse than GOOD or skipped commits hide\n"
    "the culprit, 2 usage or input error, 3 internal failure, 128 + N stopped by signal N\n"
    "(130 SIGINT, 143 SIGTERM, 129 SIGHUP).",
    bisect_options,
};

static size_t budget_factor = 1;

static int set_primary(struct config *cfg, void *arg)
{
	(void)arg;
	return o.metric ? config_set(cfg, NULL, "primary", o.metric, "--metric") : 0;
}

/* The configuration of one step: the file and flags, then the run budget scaled. */
static int load_config(struct config *cfg, void *arg)
{
	int err = cli_load_config(cfg, arg);
	for (size_t i = 0; !err && i < cfg->nr_benches; i++) {
		cfg->benches[i].max_runs *= budget_factor;
		if (cfg->benches[i].time_budget_ns)
			cfg->benches[i].time_budget_ns *= (ns_t)budget_factor;
	}
	return err;
}

int cmd_bisect(int argc, char **argv)
{
	const char *args[2];
	struct cli_project p;
	struct cli_config_source src = {NULL, NULL, NULL, NULL, set_primary, NULL};
	struct bisect_request req;
	struct bisect_result res;
	int n, ret = EXIT_USAGE, err;

	memset(&o, 0, sizeof(o));
	memset(&p, 0, sizeof(p));
	memset(&req, 0, sizeof(req));
	memset(&res, 0, sizeof(res));
	n = parse_options(argc, argv, &bisect_help, args, 2);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if (n != 2 || !o.bench) {
		usage_error("bisect", "expected --bench NAME, GOOD and BAD");
		return EXIT_USAGE;
	}
	if (strchr(o.bench, ',')) {
		usage_error("bisect", "--bench takes one benchmark, got '%s'", o.bench);
		return EXIT_USAGE;
	}
	if (o.format && strcmp(o.format, "text") && strcmp(o.format, "json")) {
		usage_error("bisect", "unknown format '%s': use text or json", o.format);
		return EXIT_USAGE;
	}
	if ((ret = cli_project_open(&p, CLI_WHERE(o), 0)))
		goto out;
	src.config = o.config;
	src.bench = o.bench;
	src.overrides = &o.overrides;
	cli_revcompare_ctx(&req.ctx, &p, &src, NULL, false, true);
	req.ctx.load_config = load_config; /* the run budget scaled per step */
	req.ctx.progress = cli_compare_progress(o.quiet);
	req.good = args[0];
	req.bad = args[1];
	req.bench = o.bench;
	req.metric = o.metric;
	req.budget_factor = &budget_factor;
	req.progress = o.quiet ? NULL : stderr;
	interrupt_install();
	if ((err = bisect_run(&req, &res))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (bisect_report(stdout, &res, o.bench, o.format && !strcmp(o.format, "json"))) {
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		goto out;
	}
	switch (res.outcome) {
	case BISECT_FOUND: ret = EXIT_OK; break;
	case BISECT_INTERRUPTED: ret = interrupt_exit_code(); break;
	default: ret = EXIT_REGRESSION;
	}
out:
	bisect_result_release(&res);
	ret = cli_project_close(&p, ret);
	return ret;
}
