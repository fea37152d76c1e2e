#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "collect/proc.h"
#include "core/build.h"
#include "core/compare.h"
#include "core/compare_import.h"
#include "core/config.h"
#include "core/import.h"
#include "core/predict.h"
#include "core/revision.h"
#include "core/store.h"
#include "report/report.h"
#include "util/common.h"

static struct {
	const char *config, *state_dir, *bench, *cmd_a, *cmd_b, *format, *select;
	bool quiet, no_color, fresh, import;
	struct opt_overrides overrides;
} o;

static const struct option compare_options[] = {
	{ OPT_STRING, 'c', "config", "FILE", "configuration file (default: revperf.ini at the "
					     "repository root)", &o.config, NULL },
	{ OPT_STRING, 0, "state-dir", "DIR", "where results, worktrees and logs live (default "
					     ".revperf/ at the root)", &o.state_dir, NULL },
	{ OPT_STRING, 'b', "bench", "NAMES", "only these benchmarks (comma-separated)", &o.bench,
	  NULL },
	{ OPT_OPTARG, 0, "select", "MODE", "only the benchmarks TARGET needs: perphecy (the "
					   "trained predictor; a bare --select) or tests (PeASS: "
					   "a function they reached changed)", &o.select, "perphecy" },
	{ OPT_STRING, 0, "cmd-a", "CMD", "without git: the baseline command", &o.cmd_a, NULL },
	{ OPT_STRING, 0, "cmd-b", "CMD", "without git: the target command", &o.cmd_b, NULL },
	{ OPT_FLAG, 0, "import", NULL, "judge two result files (hyperfine or Google Benchmark "
				       "JSON) instead of revisions", &o.import, NULL },
	{ OPT_CONFIG, 0, "build-command", "CMD", "how to build a revision (empty: no build)",
	  &o.overrides, "build.command" },
	{ OPT_CONFIG, 'm', "metrics", "LIST", "metrics to report, e.g. wall,cpu,maxrss or all",
	  &o.overrides, "metrics" },
	{ OPT_CONFIG, 0, "primary", "LIST", "metrics that decide the exit code and stopping",
	  &o.overrides, "primary" },
	{ OPT_CONFIG, 0, "metric", "NAME=SPEC", "a metric the benchmark prints, e.g. "
	  "'speed=/([0-9.]+) MB\\/s/ higher-is-better unit=MB/s'", &o.overrides, "metric.*" },
	{ OPT_CONFIG, 't', "tolerance", "PCT", "changes smaller than this are equal (2%)",
	  &o.overrides, "tolerance" },
	{ OPT_CONFIG, 'r', "runs", "MIN..MAX", "runs per side (5..30)", &o.overrides, "runs" },
	{ OPT_CONFIG, 'w', "warmup", "N", "discarded warm-up runs per side (1)", &o.overrides,
	  "warmup" },
	{ OPT_CONFIG, 0, "timeout", "DURATION", "per-run timeout (auto: 10 x baseline median, "
						">= 60 s)", &o.overrides, "timeout" },
	{ OPT_CONFIG, 0, "time-budget", "DURATION", "stop sampling a benchmark after this long",
	  &o.overrides, "time-budget" },
	{ OPT_CONFIG, 0, "profile", "KIND", "extra profiled runs after the timing runs: cct "
					    "(calling context tree) or none", &o.overrides,
	  "profile" },
	{ OPT_CONFIG, 0, "profile-runs", "N", "profiled runs per side (3)", &o.overrides,
	  "profile-runs" },
	{ OPT_CONFIG, 0, "profile-command", "CMD", "how to build a revision for profiled runs "
						   "(with -finstrument-functions)",
	  &o.overrides, "build.profile-command" },
	{ OPT_CONFIG, 'a', "alpha", "A", "1 - confidence level of the verdict (0.01)",
	  &o.overrides, "alpha" },
	{ OPT_CONFIG, 0, "seed", "N", "seed of the randomized run order (reproducible)",
	  &o.overrides, "seed" },
	{ OPT_STRING, 'f', "format", "FMT", "text, json or markdown", &o.format, NULL },
	{ OPT_FLAG, 0, "fresh", NULL, "ignore stored runs of this comparison; measure anew",
	  &o.fresh, NULL },
	{ OPT_FLAG, 'q', "quiet", NULL, "no progress line", &o.quiet, NULL },
	{ OPT_FLAG, 0, "no-color", NULL, "no colour, even on a terminal", &o.no_color, NULL },
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
	"confidence interval. Running the same comparison again reuses its stored runs\n"
	"(same builds, benchmark command and machine) and continues; --fresh does not.\n"
	"With --import, nothing is run: the samples of two hyperfine exports or two Google\n"
	"Benchmark JSON files (baseline first) are judged the same way (docs/import.md).\n"
	"Exit status: 0 no regression, 1 a primary metric worse, 2 usage or input error,\n"
	"3 internal failure, 130 interrupted.",
	compare_options,
};

/* The report on stdout, in colour on a terminal unless --no-color. */
static int print_report(const struct compare_result *res, enum report_format format)
{
	if (report_compare(stdout, res, format, !o.no_color && isatty(STDOUT_FILENO)))
		return error("cannot write the report: %s", strerror(errno));
	return 0;
}

/* Applies flag overrides through the same validation as the file. */
static int apply_overrides(struct config *cfg)
{
	size_t i;
	for (i = 0; i < o.overrides.nr; i++) {
		char flag[64];
		const char *key = o.overrides.items[i].key;
		snprintf(flag, sizeof(flag), "--%s", o.overrides.items[i].flag);
		if (!strncmp(key, "build.", 6)) {
			if (config_set(cfg, "build", key + 6, o.overrides.items[i].value, flag))
				return -1;
		} else if (!strcmp(key, "metric.*")) {
			/* NAME=SPEC becomes the key metric.NAME */
			const char *v = o.overrides.items[i].value, *eq = strchr(v, '=');
			struct strbuf k = STRBUF_INIT;
			int bad;
			if (!eq || eq == v) {
				error("--metric: expected NAME=/REGEX/ [options], got '%s'", v);
				return -1;
			}
			strbuf_addf(&k, "metric.%.*s", (int)(eq - v), v);
			bad = config_set(cfg, NULL, k.buf, eq + 1, flag);
			strbuf_release(&k);
			if (bad)
				return -1;
		} else if (config_set(cfg, NULL, key, o.overrides.items[i].value, flag)) {
			return -1;
		}
	}
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
	if (o.cmd_a || o.cmd_b || o.bench || o.config || o.state_dir || o.fresh) {
		usage_error("compare", "--import judges two files: --cmd-a, --cmd-b, --bench, "
				       "--config, --state-dir and --fresh do not apply");
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
	if (apply_overrides(&cfg))
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
	if (print_report(&res, format)) {
		ret = EXIT_INTERNAL;
		goto out;
	}
	ret = compare_exit_code(&res);
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
	struct strbuf def = STRBUF_INIT;
	int ret;
	strbuf_addf(&def, "A: %s\nB: %s", o.cmd_a, o.cmd_b);
	ret = config_set(cfg, "benchmark \"command\"", "command", def.buf, "--cmd-a/--cmd-b");
	strbuf_release(&def);
	if (ret)
		return ret;
	config_bench(cfg, "command")->origin[0] = '\0';
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

/*
 * Test suites become their tests, as listed at the target; with --select, only the
 * benchmarks the target needs are kept (docs/prediction.md). Returns 0 or an RP_E* code.
 */
static int select_benchmarks(struct config *cfg, struct store *st, struct repo *repo,
			     const struct state_dir *sd, const struct revision *target,
			     const struct store_build *build)
{
	struct predict_ctx ctx;
	struct predict_result pred;
	size_t before;
	int err;
	predict_ctx_init(&ctx, cfg, st, repo, sd);
	memset(&pred, 0, sizeof(pred));
	err = predict_expand_suites(&ctx, build->worktree, target->expr);
	before = cfg->nr_benches;
	if (!err && o.select)
		err = predict_revision(&ctx, target, build,
				       strcmp(o.select, "tests") ? PREDICT_PERPHECY : PREDICT_TESTS,
				       PREDICT_SCOPE_COMMON, &pred);
	if (!err && o.select) {
		if (pred.no_predictor && strcmp(o.select, "tests"))
			warning("--select: no predictor was trained yet, every benchmark runs "
				"(revperf train)");
		if (pred.trivial)
			warning("--select: the predictor was trained without any hit and selects "
				"nothing; train again once a commit changed performance");
		err = predict_select(cfg, &pred);
		if (!err && !o.quiet)
			fprintf(stderr, "revperf: --select=%s: %s needs %zu of %zu benchmarks\n",
				o.select, target->expr, cfg->nr_benches, before);
	}
	predict_result_release(&pred);
	predict_ctx_release(&ctx);
	return err;
}

/*
 * The instrumented builds of profiled runs (a benchmark with profile = cct), in worktrees
 * of their own. Returns 0 (also when no benchmark profiles) or an RP_E* code.
 */
static const struct bench_config *profiled_bench(const struct config *cfg)
{
	for (size_t i = 0; i < cfg->nr_benches; i++)
		if (cfg->benches[i].profiles & PROFILE_CCT)
			return &cfg->benches[i];
	return NULL;
}

/* Before anything is built: profile = cct in git mode needs [build] profile-command. */
static int check_profiling(const struct config *cfg)
{
	const struct bench_config *needs = profiled_bench(cfg);
	if (!needs || cfg->profile_build_command)
		return 0;
	error("%s: benchmark '%s' has profile = cct, which needs a build compiled with "
	      "-finstrument-functions: add to [build] a line such as profile-command = "
	      "make CFLAGS='-O2 -g -finstrument-functions'",
	      cfg->path ? cfg->path : "revperf.ini", needs->name);
	return RP_EINPUT;
}

static int build_profiling(const struct config *cfg, const struct state_dir *sd,
			   struct store *st, struct repo *repo, const struct revision revs[2],
			   struct compare_request *req, struct store_build out[2])
{
	int err;
	if (!profiled_bench(cfg))
		return 0;
	for (int i = 0; i < 2; i++)
		if ((err = build_ensure(st, repo, sd, &revs[i], cfg->profile_build_command, "cct",
					&out[i])))
			return err;
	req->a.profile_build_id = out[0].id;
	req->b.profile_build_id = out[1].id;
	req->a.profile_cwd = out[0].worktree;
	req->b.profile_cwd = out[1].worktree;
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	const char *args[2];
	struct config cfg;
	struct repo *repo = NULL;
	struct state_dir sd = { NULL, NULL, NULL, NULL };
	struct store *st = NULL;
	struct revision revs[2];
	struct store_build builds[2], profile_builds[2];
	struct compare_request req;
	struct compare_result res;
	enum report_format format = REPORT_TEXT;
	char cwd[4096];
	struct strbuf config_path = STRBUF_INIT;
	int n, ret = EXIT_USAGE, err;
	bool command_mode;

	memset(&o, 0, sizeof(o));
	memset(revs, 0, sizeof(revs));
	memset(builds, 0, sizeof(builds));
	memset(profile_builds, 0, sizeof(profile_builds));
	memset(&req, 0, sizeof(req));
	memset(&res, 0, sizeof(res));
	config_init(&cfg);
	n = parse_options(argc, argv, &compare_help, args, 2);
	if (n == -2) {
		ret = EXIT_OK;
		goto out;
	}
	if (n < 0)
		goto out;
	if (o.format && report_format_parse(o.format, &format)) {
		usage_error("compare", "unknown format '%s': use text, json or markdown", o.format);
		goto out;
	}
	if (o.select && strcmp(o.select, "perphecy") && strcmp(o.select, "tests")) {
		usage_error("compare", "unknown --select mode '%s': use perphecy or tests",
			    o.select);
		goto out;
	}
	if (o.select && (o.import || o.cmd_a || o.cmd_b)) {
		usage_error("compare", "--select chooses benchmarks of a revision; it does not "
				       "apply to --import or --cmd-a/--cmd-b");
		goto out;
	}
	if (o.import) {
		ret = compare_import_files(args, n, format);
		goto out;
	}
	command_mode = o.cmd_a || o.cmd_b;
	if (command_mode && (!o.cmd_a || !o.cmd_b || n)) {
		usage_error("compare", "--cmd-a and --cmd-b go together, without revisions");
		goto out;
	}
	if (!command_mode && n != 2) {
		usage_error("compare", "expected BASE and TARGET revisions, got %d argument%s", n,
			    n == 1 ? "" : "s");
		goto out;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		error("cannot read the current directory: %s", strerror(errno));
		goto out;
	}

	if (!command_mode) {
		if ((err = repo_open(cwd, &repo))) {
			ret = rp_err_exit_code(err);
			goto out;
		}
		if (o.config)
			strbuf_addstr(&config_path, o.config);
		else
			strbuf_addf(&config_path, "%s/revperf.ini", repo_workdir(repo));
		if (config_read(&cfg, config_path.buf))
			goto out;
		if (!cfg.nr_benches) {
			error("%s defines no benchmark; add a [benchmark \"NAME\"] section with a "
			      "command",
			      config_path.buf);
			goto out;
		}
	} else if (o.config && config_read(&cfg, o.config)) {
		goto out;
	}
	if (apply_overrides(&cfg))
		goto out;
	if (command_mode) {
		/* Only the two commands are compared; [benchmark] sections do not apply. */
		config_select(&cfg, "");
	} else if (o.bench && config_select(&cfg, o.bench)) {
		goto out;
	}

	if ((err = state_dir_open(repo ? repo_workdir(repo) : cwd, o.state_dir, &sd)) ||
	    (err = store_open(sd.db_path, &st))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (command_mode) {
		if ((err = setup_commands(&cfg, st, &req, builds))) {
			ret = rp_err_exit_code(err);
			goto out;
		}
	} else {
		for (int i = 0; i < 2; i++)
			if ((err = repo_resolve(repo, args[i], &revs[i]))) {
				ret = rp_err_exit_code(err);
				goto out;
			}
	}
	if (config_finish(&cfg) || (!command_mode && check_profiling(&cfg)))
		goto out;
	interrupt_install();
	if (!command_mode) {
		for (int i = 0; i < 2; i++) {
			if ((err = build_ensure(st, repo, &sd, &revs[i], cfg.build_command, NULL,
						&builds[i]))) {
				ret = rp_err_exit_code(err);
				goto out;
			}
		}
		req.a.label = revs[0].expr;
		req.b.label = revs[1].expr;
		req.a.sha = revs[0].sha;
		req.b.sha = revs[1].sha;
		req.a.cwd = builds[0].worktree;
		req.b.cwd = builds[1].worktree;
		req.a.build_id = builds[0].id;
		req.b.build_id = builds[1].id;
		req.same_build = builds[0].id == builds[1].id;
		if ((err = build_profiling(&cfg, &sd, st, repo, revs, &req, profile_builds)) ||
		    (err = select_benchmarks(&cfg, st, repo, &sd, &revs[1], &builds[1]))) {
			ret = rp_err_exit_code(err);
			goto out;
		}
	} else {
		req.a.profile_build_id = req.a.build_id;
		req.b.profile_build_id = req.b.build_id;
	}
	req.cfg = &cfg;
	req.st = st;
	req.sd = &sd;
	req.progress = !o.quiet && isatty(STDERR_FILENO);
	req.fresh = o.fresh;
	err = compare_execute(&req, &res);
	if (err && !res.nr_benches) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (print_report(&res, format)) {
		ret = EXIT_INTERNAL;
		goto out;
	}
	if (err)
		ret = rp_err_exit_code(err);
	else if (res.interrupted)
		ret = 128 + interrupt_signal();
	else
		ret = compare_exit_code(&res);
out:
	compare_result_release(&res);
	store_build_release(&builds[0]);
	store_build_release(&builds[1]);
	store_build_release(&profile_builds[0]);
	store_build_release(&profile_builds[1]);
	revision_release(&revs[0]);
	revision_release(&revs[1]);
	store_close(st);
	state_dir_release(&sd);
	repo_close(repo);
	config_release(&cfg);
	strbuf_release(&config_path);
	return ret;
}
