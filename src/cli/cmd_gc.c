/* revperf gc: the worktrees, builds and logs no stored result needs, removed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/gc.h"
#include "report/gc_report.h"
#include "util/common.h"
#include "util/parse.h"

/* A log or folder no row points to that changed this recently may be a running command's. */
#define GC_GRACE_NS (10LL * 60 * 1000000000LL)

static struct {
	const char *state_dir, *store, *older_than;
	bool dry_run;
	struct cli_output out;
} o;

static const struct option gc_options[] = {
	{ OPT_STRING, 0, "older-than", "AGE", "also remove what only results older than AGE "
					      "need (e.g. 30d, 12h, 0s)", &o.older_than, NULL },
	{ OPT_FLAG, 'n', "dry-run", NULL, "list what would be removed, remove nothing",
	  &o.dry_run, NULL },
	{ OPT_STRING, 0, "state-dir", "DIR", "where results, worktrees and logs live (default "
					     ".revperf/ at the root)", &o.state_dir, NULL },
	CLI_STORE_OPTION(o.store),
	CLI_OUTPUT_OPTIONS(o.out, "text or json", "no notes on stderr (kept worktrees in use)"),
	OPT_END_MARKER,
};
static const char *const gc_usage[] = {
	"gc [--older-than AGE] [--dry-run] [options]",
	NULL,
};
const struct command_help gc_help = {
    "gc",
    gc_usage,
    "Removes from the state directory the worktrees (checkouts and their builds) and the\n"
    "log files that no stored result needs: a build no stored run, comparison or profile\n"
    "refers to, a log no run or build points to. With --older-than AGE, also those whose\n"
    "newest result is older than AGE: the results stay in the database with the copies of\n"
    "their logs (which the report links), show says that their log files are gone, and a\n"
    "later compare builds again. Also the folders whose owner is not in the store:\n"
    "profiles/<id> of a comparison it lacks, dynamic/<sha>/<benchmark> no row of dynamic\n"
    "data points to (kept whole while their owner is: the store has no copy of them).\n"
    "Prints what it removed and how much it freed; --dry-run prints the same and removes\n"
    "nothing. The database, lock files, report/ and ci/ (what report and ci write from\n"
    "the whole store) stay; a worktree another revperf is building is kept, as are files\n"
    "and folders no row points to that changed in the last 10 minutes (a running\n"
    "command's); symbolic links are never followed (docs/store.md).\n"
    "Exit status: 0 done, 2 usage or input error (no stored results, a bad AGE), 3\n"
    "internal failure (something could not be removed).",
    gc_options,
};

static const char *const gc_formats[] = { "text", "json", NULL };

static int gc_run(bool json)
{
	struct gc_options opt = { 0 };
	struct gc_result res = { 0 };
	struct cli_project p;
	int ret, err;

	opt.dry_run = o.dry_run;
	opt.grace_ns = GC_GRACE_NS;
	if (o.older_than) {
		if (parse_duration(o.older_than, &opt.older_than_ns)) {
			usage_error("gc", "--older-than '%s' is not an age; give a number with s, m, "
					  "h or d, such as 30d or 12h",
				    o.older_than);
			return EXIT_USAGE;
		}
		opt.older_than = true;
	}
	if ((ret = cli_project_open(&p, &(struct cli_where){ NULL, o.state_dir, o.store },
				    CLI_PROJECT_EXISTING)))
		goto out;
	err = gc_collect(p.st, &p.sd, &opt, &res);
	if (!o.out.quiet && res.in_use)
		fprintf(stderr, "revperf gc: kept %zu worktree%s another revperf is building in\n",
			res.in_use, res.in_use == 1 ? "" : "s");
	if (!o.out.quiet && res.recent)
		fprintf(stderr,
			"revperf gc: kept %zu log file%s no run points to that changed in the last "
			"10 minutes (a running comparison's); run gc again later\n",
			res.recent, res.recent == 1 ? "" : "s");
	if (!o.out.quiet && res.recent_dirs)
		fprintf(stderr,
			"revperf gc: kept %zu folder%s of profiles/ or dynamic/ no stored result "
			"needs that changed in the last 10 minutes (a running command's); run gc "
			"again later\n",
			res.recent_dirs, res.recent_dirs == 1 ? "" : "s");
	o.out.printed = true;
	if ((json ? gc_report_json : gc_report_text)(stdout, &res, &opt)) {
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		goto out;
	}
	ret = err ? rp_err_exit_code(err) : EXIT_OK;
out:
	gc_result_release(&res);
	return cli_project_close(&p, ret);
}

int cmd_gc(int argc, char **argv)
{
	int n, format;

	memset(&o, 0, sizeof(o));
	n = parse_options(argc, argv, &gc_help, NULL, 0);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if ((format = cli_output_begin(&o.out, "gc", gc_formats)) < 0)
		return EXIT_USAGE;
	return cli_output_end(&o.out, gc_run(format == 1));
}
