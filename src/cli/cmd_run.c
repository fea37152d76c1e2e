#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "collect/proc.h"
#include "core/build.h"
#include "util/fsutil.h"
#include "predict/predict.h"
#include "core/revision.h"
#include "util/common.h"
#include "util/units.h"

static struct {
	const char *config, *state_dir, *store, *bench, *select, *dynamic;
	struct cli_output out;
	json_t *runs; /* -f json: the benchmarks' results, printed at the end */
} o;

/* clang-format off */
static const struct option run_options[] = {
	CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
	{ OPT_STRING, 'b', "bench", "NAMES", "only these benchmarks (comma-separated)", &o.bench,
	  NULL },
	{ OPT_OPTARG, 0, "dynamic", "SOURCE", "collect dynamic data for the predictor, each "
					      "benchmark once: callgrind (calls and instructions "
					      "per function, under valgrind), cct (calls and self "
					      "time from the CCT runtime, in the profile-command "
					      "build) or auto (a bare --dynamic: callgrind when "
					      "valgrind is installed, else cct)", &o.dynamic, "auto" },
	{ OPT_OPTARG, 0, "select", "MODE", "only the benchmarks the commit needs: perphecy (the "
					   "trained predictor; a bare --select) or tests (PeASS: "
					   "a function they reached changed, or their call trace "
					   "differs)", &o.select, "perphecy" },
	CLI_OUTPUT_OPTIONS(o.out, "text or json", "no progress on stderr"),
	OPT_END_MARKER,
};
static const char *const run_usage[] = {
	"run [options] [--dynamic[=SOURCE]] [--select[=MODE]] [REV]",
	NULL,
};
const struct command_help run_help = {
	"run",
	run_usage,
	"Builds REV (default HEAD) and runs each configured benchmark once in its worktree.\n"
	"With --dynamic, each runs under valgrind's callgrind (or, without valgrind, with the\n"
	"CCT runtime in the [build] profile-command build) and its calls and instructions\n"
	"(or self time) per function are stored as the commit's dynamic data, which revperf\n"
	"predict and revperf train use (docs/prediction.md); without it, the run's status,\n"
	"wall and CPU time are shown and nothing is stored (a smoke test of the benchmarks).\n"
	"A run stops after the benchmark's timeout, 600 s unless configured (under valgrind\n"
	"or the CCT runtime: from one run without them, docs/prediction.md).\n"
	"Exit status: 0 every benchmark ran, 2 usage or input error (a commit that does not\n"
	"build, a benchmark that fails, neither valgrind nor a profile-command), 3 internal\n"
	"failure.",
	run_options,
};
/* clang-format on */

/* One plain run: status and times. Returns 0 ok, RP_EINPUT failed, or an RP_E* code. */
static int run_plain(const struct predict_session *s, const struct store_build *build,
		     const struct bench_config *b)
{
	struct strbuf log = STRBUF_INIT, notes = STRBUF_INIT;
	struct proc_spec spec = {0};
	struct proc_result res;
	int ret = RP_EINTERNAL;
	strbuf_addf(&log, "%s/run-", s->sd->logs);
	fsutil_add_safe_name(&log, b->name);
	strbuf_addstr(&log, ".log");
	unlink(log.buf);
	spec.command = b->command;
	spec.cwd = build->worktree;
	spec.log_path = log.buf;
	spec.log_limit_bytes = b->log_limit_bytes;
	spec.discard_stdout = b->discard_stdout;
	/* As compare's first run: without a configured timeout, 600 s (before, none). */
	spec.timeout_ns = b->timeout_ns ? b->timeout_ns : RUN_TIMEOUT_FIRST_NS;
	if (proc_run(&spec, &res) || store_check_files(s->st, "the run"))
		goto out;
	if (res.status == RUN_INTERRUPTED) {
		ret = RP_EINTERRUPT;
		goto out;
	}
	proc_result_notes(&res, &notes);
	if (o.runs)
		json_array_append_new(
		    o.runs, json_pack("{s:s, s:s, s:i, s:f, s:f, s:I, s:s, s:s?}", "name", b->name,
				      "status", run_status_name(res.status), "exit_code",
				      res.exit_code, "wall_s", (double)res.m.wall_ns * 1e-9,
				      "cpu_s", (double)(res.m.user_ns + res.m.sys_ns) * 1e-9,
				      "maxrss_bytes", (json_int_t)res.m.maxrss_kb * 1024, "log",
				      log.buf, "note", notes.len ? notes.buf : NULL));
	else
		fprintf_printable(
		    stdout, "%-24s %-8s wall %.3f s  cpu %.3f s  maxrss %lld KiB  log %s\n",
		    b->name, run_status_name(res.status), (double)res.m.wall_ns * 1e-9,
		    (double)(res.m.user_ns + res.m.sys_ns) * 1e-9, (long long)res.m.maxrss_kb,
		    log.buf);
	if (notes.len)
		warning("benchmark '%s': %s", b->name, notes.buf);
	if (res.status != RUN_OK) {
		error("benchmark '%s' %s: %s; see %s%s", b->name, run_status_name(res.status),
		      res.detail, log.buf,
		      res.status == RUN_TIMEOUT ? " (set `timeout` if it takes this long)" : "");
		ret = RP_EINPUT;
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&log);
	strbuf_release(&notes);
	return ret;
}

/* profile_build: the instrumented build for the CCT runtime; NULL: under callgrind. */
static int run_dynamic(struct predict_session *s, const struct revision *rev,
		       const struct store_build *build, const struct store_build *profile_build,
		       const struct bench_config *b)
{
	struct predict_dynamic d;
	int ret = profile_build
		      ? predict_collect_dynamic_cct(&s->ctx, rev, build, profile_build, b, &d)
		      : predict_collect_dynamic(&s->ctx, rev, build, b, &d);
	if (ret)
		return ret;
	if (o.runs)
		json_array_append_new(
		    o.runs,
		    json_pack("{s:s, s:I, s:I, s:s, s:I, s:f, s:s}", "name", b->name, "functions",
			      (json_int_t)d.nr_functions, "calls", (json_int_t)d.calls, "cost_unit",
			      d.cost_unit == PERPHECY_COST_SELF_NS ? "self_ns" : "instructions",
			      "cost", (json_int_t)d.cost, "elapsed_s", d.elapsed_s, "data",
			      d.path));
	else if (d.cost_unit == PERPHECY_COST_SELF_NS)
		fprintf_printable(
		    stdout,
		    "%-24s %zu function%s reached, %llu %s, %.3f ms self time, %.1f s with "
		    "the CCT runtime; %s\n",
		    b->name, d.nr_functions, d.nr_functions == 1 ? "" : "s",
		    (unsigned long long)d.calls, units_noun(d.calls, "call", "calls"),
		    (double)d.cost * 1e-6, d.elapsed_s, d.path);
	else
		fprintf_printable(
		    stdout,
		    "%-24s %zu function%s reached, %llu %s, %llu instructions, %.1f s under "
		    "callgrind; %s\n",
		    b->name, d.nr_functions, d.nr_functions == 1 ? "" : "s",
		    (unsigned long long)d.calls, units_noun(d.calls, "call", "calls"),
		    (unsigned long long)d.cost, d.elapsed_s, d.path);
	free(d.path);
	return 0;
}

static const char *const run_formats[] = {"text", "json", NULL};

/* -f json: the document of the benchmarks that ran (o.runs, taken). */
static int print_json(const struct revision *rev)
{
	json_t *root =
	    json_pack("{s:s, s:s, s:{s:s, s:s}, s:s?, s:o}", "revperf_version", REVPERF_VERSION,
		      "schema", "revperf-run/1", "revision", "ref", rev->expr, "sha", rev->sha,
		      "dynamic", o.dynamic, "benchmarks", o.runs);
	int ret;
	o.runs = NULL;
	o.out.printed = true;
	if (!root)
		return -1;
	ret = json_dumpf(root, stdout,
			 JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(root);
	return ret || fputc('\n', stdout) == EOF ? -1 : 0;
}

static int run(int argc, char **argv)
{
	const char *args[1];
	struct predict_session s;
	struct cli_project p = {0};
	struct revision rev;
	struct store_build build, profile_build;
	struct predict_result pred;
	enum predict_mode mode = PREDICT_PERPHECY;
	enum predict_dynamic_source source = PREDICT_DYNAMIC_AUTO;
	int n, format, ret = EXIT_USAGE, err, first_err = 0;

	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	memset(&rev, 0, sizeof(rev));
	memset(&build, 0, sizeof(build));
	memset(&profile_build, 0, sizeof(profile_build));
	memset(&pred, 0, sizeof(pred));
	n = parse_options(argc, argv, &run_help, args, 1);
	if (n == -2) {
		ret = EXIT_OK;
		goto out;
	}
	if (n < 0 || (format = cli_output_begin(&o.out, "run", run_formats)) < 0)
		goto out;
	if (format == 1)
		o.runs = json_array();
	if (o.select && !strcmp(o.select, "tests")) {
		mode = PREDICT_TESTS;
	} else if (o.select && strcmp(o.select, "perphecy")) {
		usage_error("run", "unknown --select mode '%s': use perphecy or tests", o.select);
		goto out;
	}
	if (o.dynamic && predict_dynamic_source_parse(o.dynamic, &source)) {
		usage_error("run", "unknown --dynamic source '%s': use callgrind, cct or auto",
			    o.dynamic);
		goto out;
	}
	/* Before any build or run: can runs start at all (docs/install.md)? */
	if (proc_spawner_check()) {
		ret = EXIT_USAGE;
		goto out;
	}
	if ((ret = cli_project_open(&p, CLI_WHERE(o), CLI_PROJECT_CONFIG)))
		goto out;
	if ((err = predict_session_open(&s, p.repo, &p.sd, p.st, o.config, o.bench)) ||
	    (err = repo_resolve(s.repo, n ? args[0] : "HEAD", &rev))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	/* Said before anything is built. */
	if (o.dynamic && (err = predict_dynamic_choose(&s.cfg, source, &source))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	s.ctx.quiet = o.out.quiet;
	interrupt_install();
	if ((err = build_ensure(s.st, s.repo, s.sd, &rev, s.cfg.build_command, NULL,
				s.cfg.build_timeout_ns, &build)) ||
	    (err = predict_expand_suites(&s.ctx, build.worktree, rev.expr))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (o.select) {
		if ((err = predict_revision(&s.ctx, &rev, &build, mode, PREDICT_SCOPE_COMMON,
					    &pred)) ||
		    (err = predict_select(&s.cfg, &pred))) {
			ret = rp_err_exit_code(err);
			goto out;
		}
		if (!o.out.quiet)
			fprintf(stderr, "revperf: --select=%s: %zu of %zu benchmarks needed\n",
				o.select, pred.nr_run, pred.nr_benches);
	}
	/* The CCT runtime runs the benchmarks in the instrumented build, as compare's
	 * profile = cct does; the data is stored under the normal build. */
	if (o.dynamic && source == PREDICT_DYNAMIC_CCT && s.cfg.nr_benches &&
	    (err = build_ensure(s.st, s.repo, s.sd, &rev, s.cfg.profile_build_command, "cct",
				s.cfg.build_timeout_ns, &profile_build))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	for (size_t i = 0; i < s.cfg.nr_benches && !interrupt_requested(); i++) {
		const struct bench_config *b = &s.cfg.benches[i];
		err = o.dynamic
			  ? run_dynamic(&s, &rev, &build,
					source == PREDICT_DYNAMIC_CCT ? &profile_build : NULL, b)
			  : run_plain(&s, &build, b);
		if (err == RP_EINTERRUPT || err == RP_EINTERNAL) {
			ret = rp_err_exit_code(err);
			goto out;
		}
		if (err && !first_err)
			first_err = err;
	}
	if (o.runs && print_json(&rev)) {
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		goto out;
	}
	if (interrupt_requested()) {
		ret = interrupt_exit_code();
		goto out;
	}
	ret = first_err ? rp_err_exit_code(first_err) : EXIT_OK;
out:
	fflush(stdout);
	json_decref(o.runs);
	o.runs = NULL;
	predict_result_release(&pred);
	store_build_release(&profile_build);
	store_build_release(&build);
	revision_release(&rev);
	predict_session_close(&s);
	ret = cli_project_close(&p, ret);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	int ret = run(argc, argv);
	return cli_output_end(&o.out, ret);
}
