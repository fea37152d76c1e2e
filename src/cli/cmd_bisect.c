/* revperf bisect: the commit that made a benchmark worse, or better (docs/history.md). */
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
	const char *config, *state_dir, *store, *bench, *metric;
	bool better;
	struct cli_output out;
	struct opt_overrides overrides;
} o;

static const struct option bisect_options[] = {
    {OPT_STRING, 'b', "bench", "NAME", "the benchmark that changed (required)", &o.bench, NULL},
    {OPT_STRING, 'M', "metric", "M",
     "the metric that changed (default: the benchmark's "
     "first primary metric)",
     &o.metric, NULL},
    {OPT_FLAG, 0, "better", NULL,
     "find the first commit better than GOOD (an improvement), not worse: BAD must be "
     "better",
     &o.better, NULL},
    CLI_OUTPUT_OPTIONS(o.out, "text or json", "no progress on stderr (with -f json: the steps)"),
    CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
    CLI_RUN_OPTIONS(o.overrides),
    OPT_END_MARKER,
};
static const char *const bisect_usage[] = {
    "bisect [options] --bench NAME [--metric M] [--better] GOOD BAD",
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
    "each step once, as it is decided (with -f json on stderr, as progress), then the\n"
    "culprit with the evidence: the culprit and its parent against GOOD (steps above)\n"
    "and the culprit against its own parent. Stored runs are reused, so a second\n"
    "bisect is fast.\n"
    "With --better it finds the commit that made NAME better (a speed-up), as git\n"
    "bisect's old/new terms do: BAD must be better than GOOD, and the search is for the\n"
    "first commit better than GOOD; equal, worse and undecided commits come before it.\n"
    "Exit status: 0 culprit (with --better: improvement) found, 1 BAD is not worse (with\n"
    "--better: not better) than GOOD or skipped commits hide the culprit, 2 usage or\n"
    "input error, 3 internal failure, 128 + N stopped by signal N (130 SIGINT, 143\n"
    "SIGTERM, 129 SIGHUP).",
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

/* Where the steps go as they are decided (bisect_request.on_step). */
struct step_out {
	FILE *f;
	const char *bench;
};

static void print_step(void *arg, const struct bisect_result *res, const char *what,
		       const struct revision *rev, const struct bisect_step *s)
{
	struct step_out *out = arg;
	bisect_text_step(out->f, res, out->bench, what, rev, s);
	fflush(out->f);
}

static const char *const bisect_formats[] = {"text", "json", NULL};

static int bisect(const char *const args[2], bool json);

int cmd_bisect(int argc, char **argv)
{
	const char *args[2];
	int n, format;

	memset(&o, 0, sizeof(o));
	n = parse_options(argc, argv, &bisect_help, args, 2);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if ((format = cli_output_begin(&o.out, "bisect", bisect_formats)) < 0)
		return EXIT_USAGE;
	if (n != 2 || !o.bench) {
		usage_error("bisect", "expected --bench NAME, GOOD and BAD");
		return cli_output_end(&o.out, EXIT_USAGE);
	}
	return cli_output_end(&o.out, bisect(args, format == 1));
}

/* The bisection between args[0] (good) and args[1] (bad), as an exit status. */
static int bisect(const char *const args[2], bool json)
{
	struct cli_project p;
	struct cli_config_source src = {NULL, NULL, NULL, NULL, set_primary, NULL, 0};
	struct bisect_request req;
	struct bisect_result res;
	struct step_out step_out;
	int ret = EXIT_USAGE, err;

	memset(&p, 0, sizeof(p));
	memset(&req, 0, sizeof(req));
	memset(&res, 0, sizeof(res));
	if (strchr(o.bench, ',')) {
		usage_error("bisect", "--bench takes one benchmark, got '%s'", o.bench);
		return EXIT_USAGE;
	}
	/* Before any build: a list or `all` would be taken as the primary of the steps, and
	 * refused only after the first comparison had run. */
	if (o.metric && (strpbrk(o.metric, ", \t") || !strcmp(o.metric, "all"))) {
		usage_error("bisect", "--metric takes one metric, got '%s'", o.metric);
		return EXIT_USAGE;
	}
	/* Before any build, run or report: can runs start at all (docs/install.md)? */
	if (proc_spawner_check())
		return EXIT_USAGE;
	if ((ret = cli_project_open(&p, CLI_WHERE(o), CLI_PROJECT_CONFIG)))
		goto out;
	src.config = o.config;
	src.bench = o.bench;
	src.overrides = &o.overrides;
	cli_revcompare_ctx(&req.ctx, &p, &src, NULL, false, true);
	req.ctx.load_config = load_config; /* the run budget scaled per step */
	req.ctx.progress = cli_compare_progress(o.out.quiet);
	req.good = args[0];
	req.bad = args[1];
	req.bench = o.bench;
	req.metric = o.metric;
	req.better = o.better;
	req.budget_factor = &budget_factor;
	/* Text: each step is the report's own line, printed once as it is decided; JSON:
	 * the same lines are the progress on stderr (the document comes at the end). */
	step_out.f = json ? (o.out.quiet ? NULL : stderr) : stdout;
	step_out.bench = o.bench;
	req.on_step = step_out.f ? print_step : NULL;
	req.on_step_arg = &step_out;
	interrupt_install();
	if ((err = bisect_run(&req, &res))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	o.out.printed = true;
	if (json ? bisect_report(stdout, &res, o.bench, true)
		 : bisect_text_outcome(stdout, &res, o.bench)) {
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
