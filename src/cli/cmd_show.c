/* revperf show: a stored comparison printed again, nothing built or run. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/revision.h"
#include "compare/revcompare.h"
#include "core/gc.h"
#include "report/report.h"
#include "store/store_show.h"
#include "util/common.h"
#include "util/parse.h"

static struct {
	const char *config, *state_dir, *store;
	struct cli_output out;
} o;

static const struct option show_options[] = {
	CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
	CLI_OUTPUT_OPTIONS(o.out, "text, json or markdown (as compare)", CLI_QUIET_WARNINGS),
	OPT_END_MARKER,
};
static const char *const show_usage[] = {
	"show [options] [COMPARISON_ID | BASE TARGET]",
	NULL,
};
const struct command_help show_help = {
	"show", show_usage,
	"Prints a stored comparison again, in the formats of compare, without building or\n"
	"running anything: the comparison COMPARISON_ID (the comparison_id of compare -f\n"
	"json), the newest stored comparison of the revisions BASE and TARGET, or without\n"
	"arguments the newest comparison of two revisions. It is shown as it was measured:\n"
	"the runs of the builds it used and its benchmarks' commands of that time, also after\n"
	"[build] command or a benchmark's command changed or a benchmark was removed (one\n"
	"warning line says so), and the binary diff of those builds while their worktrees\n"
	"hold them (else a note says why there is none). The verdicts are computed again as that\n"
	"comparison judged them (its tolerances, metrics and primary lists; a warning says\n"
	"which the configuration now changes), from the runs it took: its own and the\n"
	"earlier ones it reused (none after --fresh), none of a later --more; the\n"
	"counted metrics (ir, sim-cycles) and their functions from the counted runs stored\n"
	"up to it; profiles (cct, sample, io, counters) are not shown again. A comparison of\n"
	"revisions is shown in the project's git repository; one of two commands\n"
	"(--cmd-a/--cmd-b) anywhere its store is found, and outside git show without\n"
	"arguments shows the newest of those.\n"
	"Exit status: 0 shown (the report's exit_code says what compare exited with), 2 usage\n"
	"or input error (no such comparison: the message says how to make one), 3 internal\n"
	"failure.",
	show_options,
};

static const char *const show_formats[] = { "text", "json", "markdown", NULL };

/*
 * Which comparison: 0 and *id, or an exit status after an error. Without arguments, the
 * newest comparison of two revisions in a repository, of two commands elsewhere.
 */
static int show_pick(struct cli_project *p, bool in_git, const char *const *args, int n,
		     int64_t *id, struct store_comparison_info *info)
{
	uint64_t v;
	int found;
	if (n == 2)
		return 0;
	if (n == 1) {
		if (parse_u64(args[0], &v) || !v || v > INT64_MAX) {
			usage_error("show", "'%s' is not a comparison id (a positive number); give "
					    "BASE TARGET to show the newest comparison of two revisions",
				    args[0]);
			return EXIT_USAGE;
		}
		*id = (int64_t)v;
	} else if ((found = store_comparison_last(p->st, !in_git, id))) {
		if (found == 1)
			error("no stored comparison of two %s in %s; make one with `revperf compare "
			      "%s`",
			      in_git ? "revisions" : "commands", store_name(p->st),
			      in_git ? "BASE TARGET" : "--cmd-a CMD --cmd-b CMD");
		return found == 1 ? EXIT_USAGE : EXIT_INTERNAL;
	}
	if ((found = store_comparison_get(p->st, *id, info))) {
		if (found == 1)
			error("no comparison %lld in %s; `revperf show` without arguments shows the "
			      "newest one",
			      (long long)*id, store_name(p->st));
		return found == 1 ? EXIT_USAGE : EXIT_INTERNAL;
	}
	if (!in_git && info->base_sha[0] && info->target_sha[0]) {
		error("comparison %lld compared two revisions: show judges it with the "
		      "repository's revisions and revperf.ini; run it in that repository",
		      (long long)*id);
		return EXIT_USAGE;
	}
	return 0;
}

/* The report and exit status of a replayed comparison. */
static int show_report(struct cli_project *p, struct compare_result *res,
		       enum report_format format)
{
	size_t missing, total;
	res->exit_code = compare_exit_code(res);
	if (!o.out.quiet &&
	    !gc_comparison_logs_missing(p->st, res->comparison_id, &missing, &total) && missing)
		fprintf(stderr,
			"revperf show: note: %zu of the %zu logs of comparison %lld were removed "
			"by revperf gc; the results stay\n",
			missing, total, (long long)res->comparison_id);
	o.out.printed = true;
	if (report_compare(stdout, res, format, cli_output_color(&o.out))) {
		error("cannot write the report: %s", strerror(errno));
		return EXIT_INTERNAL;
	}
	return 0;
}

/*
 * A comparison of two commands (--cmd-a/--cmd-b): its one benchmark defined again from the
 * commands its two builds recorded, as compare defined it, and judged from its runs with
 * its recorded plan (tolerances, metrics, primary, alpha); -c adds defaults, as it did
 * for compare. Needs no repository.
 */
static int show_commands(struct cli_project *p, const struct store_comparison_info *info,
			 enum report_format format)
{
	struct config cfg;
	struct compare_request req;
	struct compare_result res;
	int ret = EXIT_USAGE, err;

	config_init(&cfg);
	memset(&req, 0, sizeof(req));
	memset(&res, 0, sizeof(res));
	if (!info->build_command || !info->target_command) {
		error("comparison %lld: its builds recorded no command, so it cannot be shown "
		      "again; compare the two commands again",
		      (long long)info->id);
		goto out;
	}
	if (o.config && config_read(&cfg, o.config))
		goto out;
	config_select(&cfg, "");
	if (cli_commands_bench(&cfg, info->build_command, info->target_command) ||
	    config_finish(&cfg))
		goto out;
	req.a.label = info->base_label ? info->base_label : "A";
	req.b.label = info->target_label ? info->target_label : "B";
	req.a.command = info->build_command;
	req.b.command = info->target_command;
	req.a.build_id = info->base_build;
	req.b.build_id = info->target_build;
	req.a.profile_build_id = req.a.build_id;
	req.b.profile_build_id = req.b.build_id;
	req.cfg = &cfg;
	req.st = p->st;
	req.sd = &p->sd;
	req.replay = info;
	req.replay_as_judged = true;
	req.replay_own_config = true;
	if ((err = compare_execute(&req, &res))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	ret = show_report(p, &res, format);
out:
	compare_result_release(&res);
	config_release(&cfg);
	return ret;
}

static int show_run(const char *const *args, int n, enum report_format format)
{
	struct cli_project p;
	struct cli_config_source src = { NULL, o.config, NULL, NULL, NULL, NULL, 0 };
	struct store_comparison_info info = { 0 };
	struct revcompare_ctx ctx;
	struct revcompare rc;
	int64_t id = 0;
	bool in_git = repo_dir_in_git(".");
	int ret, err;

	memset(&rc, 0, sizeof(rc));
	memset(&p, 0, sizeof(p));
	/* A comparison of revisions is judged with the repository's revisions and revperf.ini;
	 * one of two commands (--cmd-a/--cmd-b) needs neither. */
	if (!in_git && n == 2) {
		error("show BASE TARGET names revisions: run it in their git repository (outside "
		      "one, show prints comparisons of two commands, --cmd-a/--cmd-b)");
		ret = EXIT_USAGE;
		goto out;
	}
	if ((ret = cli_project_open(&p, CLI_WHERE(o),
				    CLI_PROJECT_EXISTING |
					(in_git ? CLI_PROJECT_CONFIG : CLI_PROJECT_NO_REPO))))
		goto out;
	if ((ret = show_pick(&p, in_git, args, n, &id, &info)))
		goto out;
	if (n != 2 && (!info.base_sha[0] || !info.target_sha[0])) {
		ret = show_commands(&p, &info, format);
		goto out;
	}
	cli_revcompare_ctx(&ctx, &p, &src, NULL, false, true);
	ctx.progress = NULL;
	ctx.stored_only = true;
	ctx.comparison_id = id;
	err = revcompare_run(&ctx, n == 2 ? args[0] : info.base_sha,
			     n == 2 ? args[1] : info.target_sha, &rc);
	if (err) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (rc.bindiff_not_redone && !o.out.quiet)
		fprintf(stderr,
			"revperf show: note: the worktrees of comparison %lld's builds no longer "
			"hold them (built with another command since, built again into other "
			"programs, or removed): its binary "
			"diff is not shown\n",
			(long long)rc.res.comparison_id);
	ret = show_report(&p, &rc.res, format);
out:
	store_comparison_info_release(&info);
	revcompare_release(&rc);
	return cli_project_close(&p, ret);
}

int cmd_show(int argc, char **argv)
{
	const char *args[2];
	int n, format;

	memset(&o, 0, sizeof(o));
	n = parse_options(argc, argv, &show_help, args, 2);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	o.out.quiet_warnings = true; /* -q: no warnings, as its help says */
	if ((format = cli_output_begin(&o.out, "show", show_formats)) < 0)
		return EXIT_USAGE;
	return cli_output_end(&o.out, show_run(args, n, (enum report_format)format));
}
