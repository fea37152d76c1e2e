/* revperf queue: the jobs of the queue, queued, running, done and failed (docs/team.md). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "report/queue_report.h"
#include "store/store.h"
#include "store/store_jobs.h"
#include "util/common.h"

static struct {
	const char *config, *state_dir, *store, *state;
	struct cli_output out;
} o;

/* clang-format off */
static const struct option queue_options[] = {
	{ OPT_STRING, 0, "state", "STATE", "only the jobs in this state: queued, running, done "
					   "or failed", &o.state, NULL },
	CLI_OUTPUT_OPTIONS(o.out, "text or json", CLI_QUIET_WARNINGS),
	CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
	OPT_END_MARKER,
};
/* clang-format on */
static const char *const queue_usage[] = {
    "queue [--state STATE] [options]",
    NULL,
};
const struct command_help queue_help = {
    "queue",
    queue_usage,
    "Shows the jobs of the queue (`revperf submit`), oldest first: queued; running, with\n"
    "the worker that holds it, its progress (runs stored since it was claimed) and how\n"
    "long its lease still holds (a lease that ran out: the worker is gone, and the next\n"
    "worker resumes the job); done and failed, with the machine that ran it, its exit\n"
    "status and, when it failed, its error. Then the count of each. Times are the\n"
    "database's clock. See docs/team.md.\n"
    "Exit status: 0 shown, 2 usage or input error (no store, an unknown --state), 3\n"
    "internal failure.",
    queue_options,
};

static const char *const queue_formats[] = {"text", "json", NULL};

static int queue_run(bool json)
{
	struct cli_project p = {0};
	struct store_job *jobs = NULL;
	size_t n = 0;
	int ret, err;

	if (o.state && strcmp(o.state, "queued") && strcmp(o.state, "running") &&
	    strcmp(o.state, "done") && strcmp(o.state, "failed")) {
		usage_error("queue", "unknown --state '%s': use queued, running, done or failed",
			    o.state);
		return EXIT_USAGE;
	}
	if ((ret = cli_project_open(&p, CLI_WHERE(o), CLI_PROJECT_EXISTING)))
		goto out;
	if ((err = store_jobs_list(p.st, o.state, &jobs, &n))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	o.out.printed = true;
	if (json ? queue_report_json(stdout, jobs, n)
		 : queue_report_text(stdout, jobs, n, o.state, cli_output_color(&o.out))) {
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		goto out;
	}
	ret = fflush(stdout) ? EXIT_INTERNAL : EXIT_OK;
out:
	store_jobs_free(jobs, n);
	return cli_project_close(&p, ret);
}

int cmd_queue(int argc, char **argv)
{
	int n, format;

	memset(&o, 0, sizeof(o));
	n = parse_options(argc, argv, &queue_help, NULL, 0);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	o.out.quiet_warnings = true; /* -q: no warnings, as its help says */
	if ((format = cli_output_begin(&o.out, "queue", queue_formats)) < 0)
		return EXIT_USAGE;
	return cli_output_end(&o.out, queue_run(format == 1));
}
