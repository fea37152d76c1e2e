#include <errno.h>
#include <math.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/config.h"
#include "predict/predict.h"
#include "util/common.h"
#include "util/json_real.h"
#include "util/parse.h"

static struct {
	const char *config, *state_dir, *store, *bench, *k, *seed, *cover, *templates;
	const char *min_dismiss, *dismiss_goal;
	bool evaluate, dry_run;
	struct cli_output out;
} o;

/* clang-format off */
static const struct option train_options[] = {
	CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
	{ OPT_STRING, 'b', "bench", "NAMES", "only these benchmarks (comma-separated)", &o.bench,
	  NULL },
	{ OPT_FLAG, 0, "evaluate", NULL, "report hit and dismiss rates by k-fold "
					 "cross-validation by commit", &o.evaluate, NULL },
	{ OPT_STRING, 'k', "k", "N", "folds of the cross-validation (10)", &o.k, NULL },
	{ OPT_STRING, 0, "seed", "N", "seed of the fold assignment, also of --dismiss-goal's (1)",
	  &o.seed, NULL },
	{ OPT_FLAG, 'n', "dry-run", NULL, "learn and report, but keep the stored predictors",
	  &o.dry_run, NULL },
	{ OPT_STRING, 0, "cover", "HOW", "paper (Algorithm 1, the default) or every-hit (each "
					 "hit adds its own cheapest indicator)", &o.cover, NULL },
	{ OPT_STRING, 0, "min-dismiss", "RATE", "the dismiss budget: loosen the thresholds while "
						"at least RATE (85% or 0.85) of the training misses "
						"are still dismissed, or tighten them until they "
						"are", &o.min_dismiss, NULL },
	{ OPT_STRING, 0, "dismiss-goal", "RATE", "choose the dismiss budget by an inner "
						 "cross-validation of the training data: the one "
						 "predicting the most hits while dismissing at "
						 "least RATE of the misses", &o.dismiss_goal, NULL },
	{ OPT_STRING, 0, "templates", "SET", "paper (the paper's eight indicator templates, the "
					     "default), startup (also the four of the dynamic "
					     "loader's start-up work), cost (also the estimate of "
					     "the changed cost), startup,cost, or auto (paper or "
					     "cost, as --dismiss-goal's inner cross-validation "
					     "chooses)", &o.templates, NULL },
	CLI_OUTPUT_OPTIONS(o.out, "text or json", CLI_QUIET_WARNINGS),
	OPT_END_MARKER,
};
static const char *const train_usage[] = {
	"train [options] [--evaluate [--k N]]",
	NULL,
};
const struct command_help train_help = {
	"train",
	train_usage,
	"Learns which benchmarks commits need (Perphecy's Algorithm 1, docs/prediction.md)\n"
	"from the stored verdicts of comparisons of commits with their parents: each\n"
	"(commit, benchmark) whose closest ancestor has dynamic data (revperf run --dynamic)\n"
	"is a tuple, a hit when a primary metric got worse or better, a miss when all were\n"
	"equal (undecided verdicts are left out). Stores a common predictor and one per\n"
	"benchmark with the tuples they learned from; revperf predict applies them.\n"
	"--evaluate reports the hit rate (changes predicted) and dismiss rate (unchanged\n"
	"benchmarks skipped) by k-fold cross-validation. --cover every-hit, --min-dismiss,\n"
	"--dismiss-goal and --templates startup/cost/auto depart from the paper (docs/prediction.md,\n"
	"\"Covering every hit\", \"A dismiss budget\", \"A dismiss goal\", \"Start-up work\",\n"
	"\"The changed cost\", \"Choosing the template set\").\n"
	"Exit status: 0 done, 2 usage or input error (no training data), 3 internal failure.",
	train_options,
};
/* clang-format on */

static int parse_count(const char *flag, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	if (parse_u64(s, out) || *out < min || *out > max) {
		usage_error("train", "%s expects a number from %llu to %llu, got '%s'", flag,
			    (unsigned long long)min, (unsigned long long)max, s);
		return -1;
	}
	return 0;
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

static void predictor_text(struct strbuf *sb, const struct perphecy_predictor *p)
{
	if (p->no_hits) {
		strbuf_addstr(sb, "nothing (no hit to learn from)");
		return;
	}
	if (!p->nr) {
		strbuf_addstr(sb, "nothing");
		return;
	}
	for (size_t k = 0; k < p->nr; k++) {
		if (k)
			strbuf_addstr(sb, " or ");
		perphecy_indicator_format(&p->ind[k], sb);
	}
}

static void rate_text(struct strbuf *sb, double r)
{
	if (isnan(r))
		strbuf_addstr(sb, "     -");
	else
		strbuf_addf(sb, "%6.3f", r);
}

static void eval_row(struct strbuf *sb, const char *name, const struct perphecy_eval *e)
{
	strbuf_addf(sb, "  %-24s ", name);
	rate_text(sb, e->hit_rate);
	strbuf_addstr(sb, "    ");
	rate_text(sb, e->dismiss_rate);
	strbuf_addf(sb, "   %zu/%zu hits predicted, %zu/%zu misses dismissed\n", e->hits_predicted,
		    e->hits, e->misses_dismissed, e->misses);
}

/* The hits that the common predictor missed in cross-validation, with their values. */
static void missed_text(struct strbuf *sb, const struct predict_training *t,
			const struct perphecy_cv_result *cv)
{
	size_t n = cv->total.hits - cv->total.hits_predicted;
	if (!cv->predicted || !n)
		return;
	strbuf_addf(sb, "hit%s the common predictor missed in cross-validation:\n",
		    n == 1 ? "" : "s");
	for (size_t i = 0; i < t->nr_tuples; i++) {
		const struct perphecy_tuple *u = &t->tuples[i];
		if (!u->hit || cv->predicted[i])
			continue;
		strbuf_addf(sb, "  %.12s %-24s ", t->sources[i].commit, t->bench_names[u->bench]);
		cli_perphecy_values_text(sb, &u->values);
		strbuf_addch(sb, '\n');
	}
}

/* With a dismiss goal, after a predictor: the budget its inner cross-validation chose. */
static void goal_text(struct strbuf *sb, const struct predict_training *t,
		      const struct perphecy_predictor *p, const struct perphecy_goal_choice *c)
{
	if (t->dismiss_goal < 0 || p->no_hits)
		return;
	if (!c->k) {
		strbuf_addstr(sb, "; budget none (fewer than 2 commits to choose on)");
		return;
	}
	if (t->templates & PERPHECY_TEMPLATES_AUTO)
		strbuf_addf(sb, "; templates %s", perphecy_templates_name(c->templates));
	if (c->min_dismiss < 0)
		strbuf_addstr(sb, "; budget none");
	else
		strbuf_addf(sb, "; budget %.3g%%", 100 * c->min_dismiss);
	strbuf_addf(sb, " (inner %u folds: %zu/%zu hits, %zu/%zu misses dismissed%s)", c->k,
		    c->inner.hits_predicted, c->inner.hits, c->inner.misses_dismissed,
		    c->inner.misses, c->reached ? "" : "; the goal not reached");
}

/* With a dismiss goal, under a cross-validation's row: the budgets its folds chose. */
static void cv_goal_text(struct strbuf *sb, const struct predict_training *t,
			 const struct perphecy_cv_result *cv)
{
	if (t->dismiss_goal < 0 || !cv->nr_goal_folds)
		return;
	strbuf_addf(sb, "    budgets chosen in the %zu trainings: ", cv->nr_goal_folds);
	if (isnan(cv->chosen_lo))
		strbuf_addstr(sb, "none");
	else if (cv->chosen_lo == cv->chosen_hi)
		strbuf_addf(sb, "%.3g%%", 100 * cv->chosen_lo);
	else
		strbuf_addf(sb, "%.3g%% to %.3g%%", 100 * cv->chosen_lo, 100 * cv->chosen_hi);
	if (cv->nr_goal_none && !isnan(cv->chosen_lo))
		strbuf_addf(sb, ", none in %zu", cv->nr_goal_none);
	if (cv->nr_goal_unreached)
		strbuf_addf(sb, "; the goal not reached in %zu", cv->nr_goal_unreached);
	if (t->templates & PERPHECY_TEMPLATES_AUTO)
		strbuf_addf(sb, "; templates cost in %zu, paper in %zu", cv->nr_goal_cost,
			    cv->nr_goal_folds - cv->nr_goal_cost);
	strbuf_addch(sb, '\n');
}

static void print_text(FILE *f, const struct predict_training *t)
{
	struct strbuf sb = STRBUF_INIT;
	size_t j;
	strbuf_addf(&sb,
		    "training data: %zu tuple%s from %zu commit%s and %zu benchmark%s: %zu hit%s, "
		    "%zu miss%s\n",
		    t->nr_tuples, plural(t->nr_tuples), t->nr_commits, plural(t->nr_commits),
		    t->nr_bench, plural(t->nr_bench), t->nr_hits, plural(t->nr_hits), t->nr_misses,
		    t->nr_misses == 1 ? "" : "es");
	strbuf_addf(&sb,
		    "left out: %zu undecided, %zu without dynamic data at an ancestor, %zu not "
		    "against the parent, %zu superseded, %zu of benchmarks not configured\n",
		    t->nr_undecided, t->nr_no_ancestor, t->nr_not_parent, t->nr_superseded,
		    t->nr_unconfigured);
	strbuf_addstr(&sb, "predictors (run a benchmark when)");
	if (t->cover != PERPHECY_COVER_PAPER)
		strbuf_addstr(&sb, ", every hit's own cheapest indicator");
	if (t->templates & PERPHECY_STARTUP_TEMPLATES)
		strbuf_addstr(&sb, ", with the start-up templates");
	if (t->templates & PERPHECY_TEMPLATES_AUTO)
		strbuf_addstr(&sb, ", with or without the changed cost's estimate as the inner "
				   "cross-validation chose");
	else if (t->templates & PERPHECY_COST_TEMPLATES)
		strbuf_addstr(&sb, ", with the changed cost's estimate");
	if (t->min_dismiss >= 0)
		strbuf_addf(&sb,
			    ", thresholds moved so that %.3g%% of the training misses are "
			    "dismissed (loosened while they are, tightened until they are)",
			    100 * t->min_dismiss);
	if (t->dismiss_goal >= 0)
		strbuf_addf(&sb,
			    ", thresholds moved by the dismiss budget that an inner "
			    "cross-validation chose for a dismiss goal of %.3g%%",
			    100 * t->dismiss_goal);
	strbuf_addstr(&sb, ":\n  common                   ");
	predictor_text(&sb, &t->common);
	goal_text(&sb, t, &t->common, &t->goal_common);
	strbuf_addch(&sb, '\n');
	for (j = 0; j < t->nr_bench; j++) {
		strbuf_addf(&sb, "  %-24s ", t->bench_names[j]);
		predictor_text(&sb, &t->per_bench[j]);
		strbuf_addf(&sb, " (%zu hit%s, %zu miss%s)", t->per_bench[j].nr_hits,
			    plural(t->per_bench[j].nr_hits), t->per_bench[j].nr_misses,
			    t->per_bench[j].nr_misses == 1 ? "" : "es");
		goal_text(&sb, t, &t->per_bench[j], &t->goal_bench[j]);
		strbuf_addch(&sb, '\n');
	}
	strbuf_addstr(&sb, "on its training set:      hit rate  dismiss rate\n");
	eval_row(&sb, "common", &t->full);
	if (t->evaluated) {
		strbuf_addf(&sb,
			    "cross-validation (%u folds by commit):\n"
			    "                           hit rate  dismiss rate\n",
			    t->cv_common.k);
		eval_row(&sb, "common", &t->cv_common.total);
		cv_goal_text(&sb, t, &t->cv_common);
		for (j = 0; j < t->cv_common.nr_bench; j++) {
			struct strbuf name = STRBUF_INIT;
			strbuf_addf(&name, "  %s", t->bench_names[t->cv_common.per_bench[j].bench]);
			eval_row(&sb, name.buf, &t->cv_common.per_bench[j].eval);
			strbuf_release(&name);
		}
		eval_row(&sb, "per benchmark", &t->cv_bench.total);
		cv_goal_text(&sb, t, &t->cv_bench);
		for (j = 0; j < t->cv_bench.nr_bench; j++) {
			struct strbuf name = STRBUF_INIT;
			strbuf_addf(&name, "  %s", t->bench_names[t->cv_bench.per_bench[j].bench]);
			eval_row(&sb, name.buf, &t->cv_bench.per_bench[j].eval);
			strbuf_release(&name);
		}
		missed_text(&sb, t, &t->cv_common);
	}
	fprintf_printable(f, "%s", sb.buf);
	strbuf_release(&sb);
}

static json_t *eval_json(const struct perphecy_eval *e)
{
	return json_pack(
	    "{s:o, s:o, s:I, s:I, s:I, s:I}", "hit_rate", json_real_or_null(e->hit_rate),
	    "dismiss_rate", json_real_or_null(e->dismiss_rate), "hits", (json_int_t)e->hits,
	    "hits_predicted", (json_int_t)e->hits_predicted, "misses", (json_int_t)e->misses,
	    "misses_dismissed", (json_int_t)e->misses_dismissed);
}

static json_t *cv_json(const struct predict_training *t, const struct perphecy_cv_result *cv)
{
	json_t *benches = json_object();
	for (size_t j = 0; j < cv->nr_bench; j++)
		json_object_set_new(benches, t->bench_names[cv->per_bench[j].bench],
				    eval_json(&cv->per_bench[j].eval));
	json_t *missed = json_array(), *flagged = json_array();
	for (size_t i = 0; cv->predicted && i < t->nr_tuples; i++) {
		const struct perphecy_tuple *u = &t->tuples[i];
		if (u->hit == cv->predicted[i])
			continue;
		json_array_append_new(u->hit ? missed : flagged,
				      json_pack("{s:s, s:s}", "commit", t->sources[i].commit,
						"bench", t->bench_names[u->bench]));
	}
	json_t *goal = json_null();
	if (t->dismiss_goal >= 0)
		goal = json_pack("{s:I, s:I, s:I, s:o, s:o, s:o}", "trainings",
				 (json_int_t)cv->nr_goal_folds, "none", (json_int_t)cv->nr_goal_none,
				 "goal_not_reached", (json_int_t)cv->nr_goal_unreached, "lowest",
				 json_real_or_null(cv->chosen_lo), "highest",
				 json_real_or_null(cv->chosen_hi), "cost_templates",
				 t->templates & PERPHECY_TEMPLATES_AUTO
				     ? json_integer((json_int_t)cv->nr_goal_cost)
				     : json_null());
	return json_pack("{s:o, s:I, s:I, s:o, s:o, s:o, s:o}", "total", eval_json(&cv->total),
			 "predictors", (json_int_t)cv->nr_predictors, "trivial",
			 (json_int_t)cv->nr_trivial, "benchmarks", benches, "missed_hits", missed,
			 "flagged_misses", flagged, "budgets_chosen", goal);
}

/* What a dismiss goal's inner cross-validation chose for one predictor. */
static json_t *goal_json(const struct perphecy_goal_choice *c)
{
	return json_pack("{s:o, s:s, s:I, s:b, s:o}", "min_dismiss",
			 c->min_dismiss >= 0 ? json_real_or_null(c->min_dismiss) : json_null(),
			 "templates", perphecy_templates_name(c->templates), "inner_folds",
			 (json_int_t)c->k, "goal_reached", c->reached, "inner",
			 c->k ? eval_json(&c->inner) : json_null());
}

/* A stored predictor's JSON, as an object. */
static json_t *predictor_json(const struct perphecy_predictor *p)
{
	char *text = perphecy_predictor_to_json(p);
	json_t *o = json_loads(text, 0, NULL);
	free(text);
	return o ? o : json_null();
}

static void print_json(FILE *f, const struct predict_training *t, bool saved)
{
	json_t *root = json_object(), *predictors = json_object();
	json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
	json_object_set_new(root, "schema", json_string("revperf-train/4"));

	json_object_set_new(root, "tuples", json_integer((json_int_t)t->nr_tuples));
	json_object_set_new(root, "commits", json_integer((json_int_t)t->nr_commits));
	json_object_set_new(root, "hits", json_integer((json_int_t)t->nr_hits));
	json_object_set_new(root, "misses", json_integer((json_int_t)t->nr_misses));
	json_object_set_new(root, "saved", json_boolean(saved));
	json_object_set_new(
	    root, "left_out",
	    json_pack("{s:I, s:I, s:I, s:I, s:I}", "undecided", (json_int_t)t->nr_undecided,
		      "no_ancestor_data", (json_int_t)t->nr_no_ancestor, "not_parent",
		      (json_int_t)t->nr_not_parent, "superseded", (json_int_t)t->nr_superseded,
		      "unconfigured", (json_int_t)t->nr_unconfigured));
	json_object_set_new(predictors, "common", predictor_json(&t->common));
	for (size_t j = 0; j < t->nr_bench; j++)
		json_object_set_new(predictors, t->bench_names[j], predictor_json(&t->per_bench[j]));
	json_object_set_new(root, "predictors", predictors);
	json_object_set_new(root, "cover", json_string(perphecy_cover_name(t->cover)));
	json_object_set_new(root, "min_dismiss",
			    t->min_dismiss >= 0 ? json_real_or_null(t->min_dismiss) : json_null());
	json_object_set_new(root, "dismiss_goal", t->dismiss_goal >= 0
						      ? json_real_or_null(t->dismiss_goal)
						      : json_null());
	if (t->dismiss_goal >= 0) {
		json_t *chosen = json_object(), *benches = json_object();
		json_object_set_new(chosen, "common", goal_json(&t->goal_common));
		for (size_t j = 0; j < t->nr_bench; j++)
			json_object_set_new(benches, t->bench_names[j], goal_json(&t->goal_bench[j]));
		json_object_set_new(chosen, "per_bench", benches);
		json_object_set_new(root, "budget_chosen", chosen);
	} else {
		json_object_set_new(root, "budget_chosen", json_null());
	}
	json_object_set_new(root, "templates", json_string(perphecy_templates_name(t->templates)));
	json_object_set_new(root, "training_set", eval_json(&t->full));
	json_object_set_new(root, "evaluation",
			    t->evaluated ? json_pack("{s:I, s:o, s:o}", "k", (json_int_t)t->cv_common.k,
						     "common", cv_json(t, &t->cv_common),
						     "per_bench", cv_json(t, &t->cv_bench))
					 : json_null());
	json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	fputc('\n', f);
	json_decref(root);
}

static const char *const train_formats[] = { "text", "json", NULL };

static int train(int argc, char **argv)
{
	const char *args[1];
	struct predict_session s;
	struct cli_project p = {0};
	struct predict_train_opts opts;
	struct predict_training t;
	uint64_t v;
	bool json = false;
	int n, format, ret = EXIT_USAGE, err;

	memset(&o, 0, sizeof(o));
	o.out.quiet_warnings = true;
	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	predict_train_opts_init(&opts);
	n = parse_options(argc, argv, &train_help, args, 0);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if ((format = cli_output_begin(&o.out, "train", train_formats)) < 0)
		return EXIT_USAGE;
	json = format == 1;
	if (o.k && !o.evaluate) {
		usage_error("train", "--k sets up --evaluate; add --evaluate");
		return EXIT_USAGE;
	}
	if (o.seed && !o.evaluate && !o.dismiss_goal) {
		usage_error("train", "--seed sets up --evaluate and --dismiss-goal; add one");
		return EXIT_USAGE;
	}
	if (o.min_dismiss && o.dismiss_goal) {
		usage_error("train", "--dismiss-goal chooses the dismiss budget: give it or "
				     "--min-dismiss, not both");
		return EXIT_USAGE;
	}
	if (o.k) {
		if (parse_count("--k", o.k, 2, 1000, &v))
			return EXIT_USAGE;
		opts.k = (unsigned)v;
	}
	if (o.seed) {
		if (parse_count("--seed", o.seed, 0, UINT64_MAX, &v))
			return EXIT_USAGE;
		opts.seed = v;
	}
	if (o.cover && perphecy_cover_parse(o.cover, &opts.cover)) {
		usage_error("train", "--cover '%s': use paper or every-hit", o.cover);
		return EXIT_USAGE;
	}
	if (o.min_dismiss && parse_percent(o.min_dismiss, &opts.min_dismiss)) {
		usage_error("train", "--min-dismiss '%s': write a rate such as 85%% or 0.85",
			    o.min_dismiss);
		return EXIT_USAGE;
	}
	if (o.dismiss_goal && parse_percent(o.dismiss_goal, &opts.dismiss_goal)) {
		usage_error("train", "--dismiss-goal '%s': write a rate such as 85%% or 0.85",
			    o.dismiss_goal);
		return EXIT_USAGE;
	}
	if (o.templates && perphecy_templates_parse(o.templates, &opts.templates)) {
		usage_error("train", "--templates '%s': use paper, startup, cost, startup,cost or auto",
			    o.templates);
		return EXIT_USAGE;
	}
	if ((opts.templates & PERPHECY_TEMPLATES_AUTO) && !o.dismiss_goal) {
		usage_error("train", "--templates auto: the set is chosen by --dismiss-goal's inner "
				     "cross-validation; add --dismiss-goal (e.g. 0.85)");
		return EXIT_USAGE;
	}
	opts.evaluate = o.evaluate;
	opts.save = !o.dry_run;
	if ((ret = cli_project_open(&p, CLI_WHERE(o), CLI_PROJECT_CONFIG)))
		goto out;
	if ((err = predict_session_open(&s, p.repo, &p.sd, p.st, o.config, o.bench))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	interrupt_install();
	if ((err = predict_train(&s.ctx, &opts, &t))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (!t.nr_hits)
		warning("no training tuple is a hit (no verdict was worse or better): the "
			"predictor is trivial and selects nothing; train again once comparisons "
			"found a performance change");
	for (size_t j = 0; j < t.nr_bench; j++)
		if (t.nr_hits && t.per_bench[j].no_hits)
			warning("benchmark '%s' has no hit among its %zu tuples: its own predictor "
				"selects nothing (--scope common uses the common one)",
				t.bench_names[j], t.per_bench[j].nr_misses);
	o.out.printed = true;
	if (json)
		print_json(stdout, &t, opts.save);
	else
		print_text(stdout, &t);
	if (fflush(stdout)) {
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		goto out;
	}
	ret = EXIT_OK;
out:
	predict_training_release(&t);
	predict_session_close(&s);
	ret = cli_project_close(&p, ret);
	return ret;
}

int cmd_train(int argc, char **argv)
{
	int ret = train(argc, argv);
	return cli_output_end(&o.out, ret);
}
