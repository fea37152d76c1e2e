#include <errno.h>
#include <math.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "collect/proc.h"
#include "core/build.h"
#include "predict/predict.h"
#include "core/revision.h"
#include "util/common.h"
#include "util/json_real.h"
#include "util/units.h"

static struct {
	const char *config, *state_dir, *store, *bench, *scope;
	bool tests, no_cache;
	struct cli_output out;
} o;

/* clang-format off */
static const struct option predict_options[] = {
	CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
	{ OPT_STRING, 'b', "bench", "NAMES", "only these benchmarks (comma-separated)", &o.bench,
	  NULL },
	{ OPT_FLAG, 0, "tests", NULL, "select by PeASS's rules instead of the trained "
				      "predictor: a benchmark runs when a function it reached at "
				      "the ancestor changed, or its call trace at REV (when its "
				      "dynamic data there is stored) differs", &o.tests, NULL },
	{ OPT_STRING, 0, "scope", "SCOPE", "common (one predictor for all benchmarks, the "
					   "default) or bench (each benchmark's own)",
	  &o.scope, NULL },
	{ OPT_FLAG, 0, "no-cache", NULL, "recompute the binary diff instead of reusing it",
	  &o.no_cache, NULL },
	CLI_OUTPUT_OPTIONS(o.out, "text or json", CLI_QUIET_WARNINGS),
	OPT_END_MARKER,
};
static const char *const predict_usage[] = {
	"predict [options] [REV]",
	NULL,
};
const struct command_help predict_help = {
	"predict",
	predict_usage,
	"Predicts, before running anything, which benchmarks commit REV (default HEAD) needs\n"
	"(Perphecy, docs/prediction.md). For each benchmark it finds the closest first-parent\n"
	"ancestor with dynamic data (revperf run --dynamic), differences the program built\n"
	"there and at REV, and applies the predictor that revperf train learned: the\n"
	"benchmarks to run are listed with the indicator that fired, the others with the\n"
	"indicator values. A benchmark runs when no predictor was trained yet, no ancestor\n"
	"has its dynamic data, or the commit touches one of its select-paths. --tests selects\n"
	"by PeASS's rules instead.\n"
	"Exit status: 0 done, 2 usage or input error (a commit that does not build),\n"
	"3 internal failure.",
	predict_options,
};
/* clang-format on */

static void text_value(struct strbuf *sb, double v)
{
	if (isnan(v))
		strbuf_addstr(sb, "-");
	else if (v == floor(v) && fabs(v) < 1e15)
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.1f", v);
}

void cli_perphecy_values_text(struct strbuf *sb, const struct perphecy_values *v)
{
	for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++) {
		strbuf_addf(sb, "%s%s ", k ? ", " : "",
			    perphecy_template_label((enum perphecy_template)k));
		text_value(sb, v->v[k]);
	}
}

static void print_bench_text(struct strbuf *sb, const struct predict_bench *b)
{
	strbuf_addf(sb, "  %-24s ", b->name);
	switch (b->reason) {
	case PREDICT_FIRED: strbuf_addf(sb, "%s (%s predictor)", b->indicator, b->scope); break;
	case PREDICT_NO_PREDICTOR: strbuf_addstr(sb, "no predictor trained yet"); break;
	case PREDICT_NO_DATA:
		strbuf_addstr(sb, "no ancestor has its dynamic data (revperf run --dynamic)");
		break;
	case PREDICT_REACHED_CHANGED:
		strbuf_addf(sb, "reached changed function %s (%zu changed functions reached)",
			    b->function, b->nr_reached_changed);
		break;
	case PREDICT_NOT_REACHED:
		strbuf_addstr(sb, "reached no changed function");
		if (b->trace == PREDICT_TRACE_SAME)
			strbuf_addstr(sb, ", same call trace");
		break;
	case PREDICT_TRACE_CHANGED:
		strbuf_addf(sb, "call trace changed at %s (%llu %s at the ancestor, %llu here)",
			    b->function, (unsigned long long)b->calls_i,
			    units_noun(b->calls_i, "call", "calls"),
			    (unsigned long long)b->calls_u);
		break;
	case PREDICT_MARKED_PATH:
		strbuf_addf(sb, "touches marked path %s (select-paths %s)", b->path, b->glob);
		break;
	case PREDICT_DISMISSED: strbuf_addstr(sb, "no indicator fired"); break;
	}
	if (b->ancestor.sha[0])
		strbuf_addf(sb, "; ancestor %.12s (%u back)", b->ancestor.sha, b->ancestor.depth);
	strbuf_addch(sb, '\n');
	if (b->has_values && !b->run && b->reason == PREDICT_DISMISSED) {
		strbuf_addf(sb, "  %-24s ", "");
		cli_perphecy_values_text(sb, &b->values);
		strbuf_addch(sb, '\n');
	}
}

static void print_text(FILE *f, const struct predict_result *r, const char *expr)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	strbuf_addf(&sb, "predict %.12s (%s): %zu of %zu benchmark%s to run; ", r->sha, expr,
		    r->nr_run, r->nr_benches, r->nr_benches == 1 ? "" : "s");
	if (r->mode == PREDICT_TESTS)
		strbuf_addstr(&sb, "PeASS test selection (changed functions reached, call "
				   "traces)\n");
	else if (r->no_predictor)
		strbuf_addstr(&sb, "no predictor trained yet: all run (revperf train)\n");
	else
		strbuf_addf(&sb, "predictor trained on %zu tuples, %zu hits\n", r->train_tuples,
			    r->train_hits);
	for (int pass = 0; pass < 2; pass++) {
		bool any = false;
		for (i = 0; i < r->nr_benches; i++) {
			if (r->benches[i].run != !pass)
				continue;
			if (!any)
				strbuf_addstr(&sb, pass ? "skip:\n" : "run:\n");
			any = true;
			print_bench_text(&sb, &r->benches[i]);
		}
	}
	fprintf_printable(f, "%s", sb.buf);
	strbuf_release(&sb);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *values_json(const struct perphecy_values *v)
{
	json_t *o = json_object();
	for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++)
		json_object_set_new(o, perphecy_template_id((enum perphecy_template)k),
				    json_real_or_null(v->v[k]));
	return o;
}

static void print_json(FILE *f, const struct predict_result *r, const char *expr)
{
	json_t *root = json_object(), *run = json_array(), *benches = json_array();
	json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
	json_object_set_new(root, "schema", json_string("revperf-predict/2"));
	for (size_t i = 0; i < r->nr_benches; i++) {
		const struct predict_bench *b = &r->benches[i];
		json_t *o = json_object();
		if (b->run)
			json_array_append_new(run, json_string(b->name));
		json_object_set_new(o, "name", json_string(b->name));
		json_object_set_new(o, "run", json_boolean(b->run));
		json_object_set_new(o, "reason", json_string(predict_reason_name(b->reason)));
		json_object_set_new(o, "indicator", str_or_null(b->indicator));
		json_object_set_new(o, "scope", str_or_null(b->scope));
		json_object_set_new(o, "ancestor",
				    b->ancestor.sha[0]
					? json_pack("{s:s, s:i}", "sha", b->ancestor.sha, "depth",
						    (int)b->ancestor.depth)
					: json_null());
		json_object_set_new(o, "values",
				    b->has_values ? values_json(&b->values) : json_null());
		json_object_set_new(o, "path", str_or_null(b->path));
		json_object_set_new(o, "glob", str_or_null(b->glob));
		if (r->mode == PREDICT_TESTS) {
			json_object_set_new(o, "function", str_or_null(b->function));
			json_object_set_new(o, "reached_changed",
					    json_integer((json_int_t)b->nr_reached_changed));
			json_object_set_new(o, "trace", json_string(predict_trace_name(b->trace)));
			json_object_set_new(o, "calls",
					    b->reason == PREDICT_TRACE_CHANGED
						? json_pack("{s:I, s:I}", "ancestor",
							    (json_int_t)b->calls_i, "commit",
							    (json_int_t)b->calls_u)
						: json_null());
		}
		json_array_append_new(benches, o);
	}
	json_object_set_new(root, "revision", json_string(expr));
	json_object_set_new(root, "sha", json_string(r->sha));
	json_object_set_new(root, "mode",
			    json_string(r->mode == PREDICT_TESTS ? "tests" : "perphecy"));
	json_object_set_new(root, "predictor",
			    json_pack("{s:b, s:b, s:I, s:I, s:I}", "trained", !r->no_predictor,
				      "trivial", r->trivial, "tuples", (json_int_t)r->train_tuples,
				      "hits", (json_int_t)r->train_hits, "trained_at",
				      (json_int_t)r->trained_at));
	json_object_set_new(root, "run", run);
	json_object_set_new(root, "benchmarks", benches);
	json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	fputc('\n', f);
	json_decref(root);
}

static const char *const predict_formats[] = { "text", "json", NULL };

static int predict(int argc, char **argv)
{
	const char *args[1];
	struct predict_session s;
	struct cli_project p = {0};
	struct revision rev;
	struct store_build build;
	struct predict_result res;
	enum predict_scope scope = PREDICT_SCOPE_COMMON;
	bool json = false;
	int n, format, ret = EXIT_USAGE, err;

	memset(&o, 0, sizeof(o));
	o.out.quiet_warnings = true;
	memset(&s, 0, sizeof(s));
	memset(&rev, 0, sizeof(rev));
	memset(&build, 0, sizeof(build));
	memset(&res, 0, sizeof(res));
	n = parse_options(argc, argv, &predict_help, args, 1);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if ((format = cli_output_begin(&o.out, "predict", predict_formats)) < 0)
		return EXIT_USAGE;
	json = format == 1;
	if (o.scope && !strcmp(o.scope, "bench")) {
		scope = PREDICT_SCOPE_BENCH;
	} else if (o.scope && strcmp(o.scope, "common")) {
		usage_error("predict", "unknown scope '%s': use common or bench", o.scope);
		return EXIT_USAGE;
	}
	if (o.tests && o.scope) {
		usage_error("predict", "--scope chooses a trained predictor; --tests uses none");
		return EXIT_USAGE;
	}
	/* It builds the revision (and may list a suite's tests): can runs start at all? */
	if (proc_spawner_check())
		return EXIT_USAGE;
	if ((ret = cli_project_open(&p, CLI_WHERE(o), CLI_PROJECT_CONFIG)))
		goto out;
	if ((err = predict_session_open(&s, p.repo, &p.sd, p.st, o.config, o.bench)) ||
	    (err = repo_resolve(s.repo, n ? args[0] : "HEAD", &rev))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	s.ctx.use_cache = !o.no_cache;
	interrupt_install();
	if ((err = build_ensure(s.st, s.repo, s.sd, &rev, s.cfg.build_command, NULL,
				s.cfg.build_timeout_ns, &build)) ||
	    (err = predict_expand_suites(&s.ctx, build.worktree, rev.expr)) ||
	    (err = predict_revision(&s.ctx, &rev, &build,
				    o.tests ? PREDICT_TESTS : PREDICT_PERPHECY, scope, &res))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (res.no_predictor && !o.tests)
		warning(
		    "no predictor was trained yet: every benchmark is listed to run; run "
		    "`revperf train` once comparisons of commits with their parents are stored");
	if (res.trivial)
		warning(
		    "the predictor was trained without any hit (no stored verdict was worse or "
		    "better): it selects nothing; train again once a commit changed performance");
	o.out.printed = true;
	if (json)
		print_json(stdout, &res, rev.expr);
	else
		print_text(stdout, &res, rev.expr);
	if (fflush(stdout)) {
		error("cannot write the prediction: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		goto out;
	}
	ret = EXIT_OK;
out:
	predict_result_release(&res);
	store_build_release(&build);
	revision_release(&rev);
	predict_session_close(&s);
	ret = cli_project_close(&p, ret);
	return ret;
}

int cmd_predict(int argc, char **argv)
{
	int ret = predict(argc, argv);
	return cli_output_end(&o.out, ret);
}
