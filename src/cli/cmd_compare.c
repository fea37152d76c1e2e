#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "collect/proc.h"
#include "core/build.h"
#include "compare/compare.h"
#include "compare/compare_import.h"
#include "core/config.h"
#include "import/import.h"
#include "compare/revcompare.h"
#include "core/revision.h"
#include "store/store.h"
#include "report/report.h"
#include "util/common.h"

static struct {
	const char *config, *state_dir, *store, *bench, *cmd_a, *cmd_b, *select;
	bool fresh, more, import;
	struct cli_output out;
	struct opt_overrides overrides;
} o;

static const struct option compare_options[] = {
	CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
	{ OPT_STRING, 'b', "bench", "NAMES", "only these benchmarks (comma-separated)", &o.bench,
	  NULL },
	{ OPT_OPTARG, 0, "select", "MODE", "only the benchmarks TARGET needs: perphecy (the "
					   "trained predictor; a bare --select) or tests (PeASS: "
					   "a function they reached changed)", &o.select, "perphecy" },
	{ OPT_STRING, 0, "cmd-a", "CMD", "without git: the baseline command", &o.cmd_a, NULL },
	{ OPT_STRING, 0, "cmd-b", "CMD", "without git: the target command", &o.cmd_b, NULL },
	{ OPT_FLAG, 0, "import", NULL, "judge two result files (hyperfine or Google Benchmark "
				       "JSON) instead of revisions", &o.import, NULL },
	CLI_METRIC_OPTIONS(o.overrides),
	CLI_RUN_OPTIONS(o.overrides),
	{ OPT_CONFIG, 0, "metric", "NAME=SPEC", "a metric the benchmark prints, the pattern "
	  "anchored on what precedes the number, e.g. 'speed=/speed: ([0-9.]+) MB\\/s/ "
	  "higher-is-better unit=MB/s'", &o.overrides, "metric.*" },
	{ OPT_CONFIG, 0, "profile", "KINDS", "extra profiles beside the verdict: cct (calling "
					     "context tree, profiled runs), sample (the same, "
					     "sampled from runs of the timing build), io (write "
					     "system calls per stack trace, traced runs), counters "
					     "(the timing runs sampled: control charts), a list "
					     "such as cct,io, or none", &o.overrides, "profile" },
	{ OPT_CONFIG, 0, "profile-runs", "N", "profiled runs per side (3)", &o.overrides,
	  "profile-runs" },
	{ OPT_CONFIG, 0, "profile-command", "CMD", "how to build a revision for profiled runs "
						   "(with -finstrument-functions)",
	  &o.overrides, "build.profile-command" },
	{ OPT_FLAG, 0, "fresh", NULL, "ignore stored runs of this comparison; measure anew",
	  &o.fresh, NULL },
	{ OPT_FLAG, 0, "more", NULL, "continue a finished comparison: up to --runs more runs "
				     "per side", &o.more, NULL },
	CLI_OUTPUT_OPTIONS(o.out, "text, json or markdown", "no progress line"),
	OPT_END_MARKER,
};
static const char *const compare_usage[] = {
	"compare [options] [--select[=MODE]] BASE TARGET",
	"compare [options] --cmd-a CMD --cmd-b CMD",
	"compare [--tolerance PCT] [--alpha A] [-f FMT] --import FILE_A FILE_B",
	NULL,
};
const struct command_help compare_help = {
	"compare", compare_usage,
	"Builds both revisions (any expression git accepts), runs every benchmark of\n"
	"revperf.ini on both in fresh processes, interleaved in random pairs, until the\n"
	"statistics decide, stores every run in .revperf/revperf.db and prints a verdict per\n"
	"benchmark and metric: worse, better, equal or undecided, with the ratio and its\n"
	"confidence interval. Counted metrics (ir, sim-cycles) are counted after, in runs\n"
	"under valgrind; a benchmark whose metrics are all counted has no timing runs, only\n"
	"those (and, with no timeout known, one warm-up of A that sets their timeout).\n"
	"Running the same comparison again reuses its stored runs (same builds, benchmark\n"
	"command, machine, runs range and alpha; not runs that lack a metric now asked for)\n"
	"and continues an unfinished one; a finished one (every primary metric decided,\n"
	"counted ones like ir too, or the runs spent) is printed again without running\n"
	"anything, not even a warm-up (revperf show), unless --more continues it with a new\n"
	"budget of runs or --fresh measures anew.\n"
	"With --import, nothing is run: the samples of two hyperfine exports or two Google\n"
	"Benchmark JSON files (baseline first) are judged the same way (docs/import.md).\n"
	"Exit status: 0 no regression, 1 a primary metric worse (or the target's runs fail where\n"
	"the baseline's succeed), 2 usage or input error (also: a revision that does not build,\n"
	"its build log named; a benchmark whose baseline's runs keep failing, so that it\n"
	"cannot be compared, when no other regresses; a primary metric.NAME never matched;\n"
	"another process held the database's lock),\n"
	"3 internal failure (also: a run deleted or damaged the database), 128 + N stopped by\n"
	"signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP).",
	compare_options,
};

/*
 * The report on stdout, in colour on a terminal unless --no-color or NO_COLOR; it says
 * exit_code. A command that fails (code 2, 3) although it has a report says why in the JSON
 * document too.
 */
static int print_report(struct compare_result *res, enum report_format format, int exit_code)
{
	int ret;
	res->exit_code = exit_code;
	o.out.printed = true;
	if (format == REPORT_JSON && (exit_code == EXIT_USAGE || exit_code == EXIT_INTERNAL) &&
	    error_recorded(0)) {
		json_t *root = report_compare_json_object(res);
		json_object_set_new(root, "error", cli_output_error_json(exit_code));
		ret = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
						   JSON_REAL_PRECISION(10)) ||
		      fputc('\n', stdout) == EOF;
		json_decref(root);
	} else {
		ret = report_compare(stdout, res, format, cli_output_color(&o.out));
	}
	if (ret)
		return error("cannot write the report: %s", strerror(errno));
	return 0;
}

/* --import: judges two result files; no git, no build, no store. */
static int compare_import_files(const char *const *files, int n, enum report_format format)
{
	struct config cfg;
	struct import_set sets[2];
	struct compare_result res;
	size_t i;
	int ret = EXIT_USAGE, err;

	config_init(&cfg);
	memset(sets, 0, sizeof(sets));
	memset(&res, 0, sizeof(res));
	if (n != 2) {
		usage_error("compare", "--import expects two result files, FILE_A FILE_B; got %d", n);
		goto out;
	}
	if (o.cmd_a || o.cmd_b || o.bench || o.config || o.state_dir || o.store || o.fresh ||
	    o.more) {
		usage_error("compare", "--import judges two files: --cmd-a, --cmd-b, --bench, "
				       "--config, --state-dir, --store, --fresh and --more do not "
				       "apply");
		goto out;
	}
	for (i = 0; i < o.overrides.nr; i++) {
		const char *key = o.overrides.items[i].key;
		if (strcmp(key, "tolerance") && strcmp(key, "alpha")) {
			usage_error("compare", "--%s does not apply to --import (--tolerance and "
					       "--alpha do)",
				    o.overrides.items[i].flag);
			goto out;
		}
	}
	if (cli_apply_overrides(&cfg, &o.overrides) || stdin_at_most_once("compare", files, n))
		goto out;
	for (i = 0; i < 2; i++)
		if ((err = import_read_file(files[i], &sets[i]))) {
			ret = rp_err_exit_code(err);
			goto out;
		}
	if ((err = compare_imported(&sets[0], &sets[1], cfg.alpha, cfg.defaults.tolerance,
				    &res))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	ret = compare_exit_code(&res);
	if (print_report(&res, format, ret))
		ret = EXIT_INTERNAL;
out:
	compare_result_release(&res);
	import_set_release(&sets[0]);
	import_set_release(&sets[1]);
	config_release(&cfg);
	return ret;
}

/* --cmd-a/--cmd-b: one benchmark, no git, no build. */
static int setup_commands(struct config *cfg, struct store *st, struct compare_request *req,
			  struct store_build builds[2])
{
	int ret = cli_commands_bench(cfg, o.cmd_a, o.cmd_b);
	if (ret)
		return ret;
	for (int i = 0; i < 2; i++) {
		builds[i].revision_id = 0;
		builds[i].command = xstrdup(i ? o.cmd_b : o.cmd_a);
		snprintf(builds[i].status, sizeof(builds[i].status), "ok");
		if (store_build_save(st, &builds[i]))
			return RP_EINTERNAL;
	}
	req->a.label = "A";
	req->b.label = "B";
	req->a.command = o.cmd_a;
	req->b.command = o.cmd_b;
	req->a.build_id = builds[0].id;
	req->b.build_id = builds[1].id;
	req->same_build = false;
	return 0;
}

/* Git mode: both revisions built and compared (compare/revcompare.h). */
static int compare_revisions(const char *const args[2], enum report_format format)
{
	struct cli_project p;
	struct revcompare rc;
	struct cli_config_source src = {NULL, o.config, o.bench, &o.overrides, NULL, NULL, 0};
	struct revcompare_ctx ctx;
	int ret, err;

	memset(&rc, 0, sizeof(rc));
	if ((ret = cli_project_open(&p, CLI_WHERE(o), CLI_PROJECT_CONFIG)))
		goto out;
	cli_revcompare_ctx(&ctx, &p, &src, o.select, o.fresh, o.out.quiet);
	ctx.more = o.more;
	interrupt_install();
	err = revcompare_run(&ctx, args[0], args[1], &rc);
	if (rc.replayed && !o.out.quiet)
		fprintf(stderr, "revperf: comparison %lld is finished; shown from the store, "
				"nothing ran (--more to continue it, --fresh to start anew)\n",
			(long long)rc.stored.id);
	if (err && !rc.res.nr_benches) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (!rc.executed) {
		/* --select chose nothing: an empty report, nothing stored */
		ret = print_report(&rc.res, format, EXIT_OK) ? EXIT_INTERNAL : EXIT_OK;
		goto out;
	}
	ret = cli_compare_exit(&p, err, &rc.res);
	if (print_report(&rc.res, format, ret))
		ret = EXIT_INTERNAL;
out:
	revcompare_release(&rc);
	ret = cli_project_close(&p, ret);
	return ret;
}

/* --cmd-a/--cmd-b: two commands, no git, no build. */
static int compare_commands(enum report_format format)
{
	struct config cfg;
	struct cli_project p = {0};
	struct store_build builds[2];
	struct compare_request req;
	struct compare_result res;
	int ret = EXIT_USAGE, err;

	memset(builds, 0, sizeof(builds));
	memset(&req, 0, sizeof(req));
	memset(&res, 0, sizeof(res));
	config_init(&cfg);
	if (o.config && config_read(&cfg, o.config))
		goto out;
	if (cli_apply_overrides(&cfg, &o.overrides))
		goto out;
	/* Only the two commands are compared; [benchmark] sections do not apply. */
	config_select(&cfg, "");
	if ((err = cli_project_open(&p, CLI_WHERE(o), CLI_PROJECT_NO_REPO))) {
		ret = err;
		goto out;
	}
	if ((err = setup_commands(&cfg, p.st, &req, builds))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (config_finish(&cfg))
		goto out;
	interrupt_install();
	req.a.profile_build_id = req.a.build_id;
	req.b.profile_build_id = req.b.build_id;
	req.cfg = &cfg;
	req.st = p.st;
	req.sd = &p.sd;
	req.progress = cli_compare_progress(o.out.quiet);
	req.fresh = o.fresh;
	err = compare_execute(&req, &res);
	if (!err)
		cli_compare_executed(&res, NULL);
	if (err && !res.nr_benches) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	ret = cli_compare_exit(&p, err, &res);
	if (print_report(&res, format, ret))
		ret = EXIT_INTERNAL;
out:
	compare_result_release(&res);
	store_build_release(&builds[0]);
	store_build_release(&builds[1]);
	ret = cli_project_close(&p, ret);
	config_release(&cfg);
	return ret;
}

static const char *const compare_formats[] = { "text", "json", "markdown", NULL };

/* What compare does once its options parsed, as an exit status. */
static int compare_dispatch(const char *const args[2], int n, enum report_format format)
{
	bool command_mode;
	if (o.select && strcmp(o.select, "perphecy") && strcmp(o.select, "tests")) {
		usage_error("compare", "unknown --select mode '%s': use perphecy or tests",
			    o.select);
		return EXIT_USAGE;
	}
	if (o.select && (o.import || o.cmd_a || o.cmd_b)) {
		usage_error("compare", "--select chooses benchmarks of a revision; it does "
				       "not apply to --import or --cmd-a/--cmd-b");
		return EXIT_USAGE;
	}
	if (o.import)
		return compare_import_files(args, n, format);
	command_mode = o.cmd_a || o.cmd_b;
	if (command_mode && (!o.cmd_a || !o.cmd_b || n)) {
		usage_error("compare", "--cmd-a and --cmd-b go together, without revisions");
		return EXIT_USAGE;
	}
	if (o.more && (o.fresh || command_mode)) {
		usage_error("compare", "--more continues a stored comparison of two revisions; "
				       "drop --fresh, --cmd-a and --cmd-b");
		return EXIT_USAGE;
	}
	if (!command_mode && n != 2) {
		usage_error("compare", "expected BASE and TARGET revisions, got %d argument%s", n,
			    n == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	/* Before any build, run or report: can runs start at all (docs/install.md)? */
	if (proc_spawner_check())
		return EXIT_USAGE;
	return command_mode ? compare_commands(format) : compare_revisions(args, format);
}

int cmd_compare(int argc, char **argv)
{
	const char *args[2];
	int n, format;

	memset(&o, 0, sizeof(o));
	n = parse_options(argc, argv, &compare_help, args, 2);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	/* compare_formats in the order of enum report_format */
	if ((format = cli_output_begin(&o.out, "compare", compare_formats)) < 0)
		return EXIT_USAGE;
	return cli_output_end(&o.out, compare_dispatch(args, n, (enum report_format)format));
}
