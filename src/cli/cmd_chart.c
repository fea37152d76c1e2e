/* revperf chart: control charts of counters, baseline runs against target runs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/control_chart.h"
#include "cli/commands.h"
#include "core/build.h"
#include "core/config.h"
#include "analysis/counters_chart.h"
#include "compare/compare_counters.h"
#include "import/counters_csv.h"
#include "core/revision.h"
#include "store/store.h"
#include "report/chart_report.h"
#include "util/common.h"
#include "util/parse.h"

static struct {
	const char *baseline_unused, *target_unused; /* parsed before parse_options() */
	const char *bench, *state_dir, *store, *load, *limits, *period, *out, *svg;
	const char *bad, *run_threshold, *margin, *cpu;
	bool no_filter, no_scaling, scale_target_only, runs;
	struct cli_output output;
} o;

static const struct option chart_options[] = {
    {OPT_STRING, 0, "baseline", "SRC...",
     "the baseline: CSV files and/or revisions (with "
     "--bench), one or more",
     &o.baseline_unused, NULL},
    {OPT_STRING, 0, "target", "SRC...", "the target, likewise", &o.target_unused, NULL},
    {OPT_STRING, 'b', "bench", "NAME", "the benchmark whose stored runs a revision means", &o.bench,
     NULL},
    {OPT_STRING, 0, "state-dir", "DIR",
     "where the results are (default .revperf/ at the "
     "repository root)",
     &o.state_dir, NULL},
    CLI_STORE_OPTION(o.store),
    {OPT_STRING, 0, "load", "COUNTER",
     "scale both sides to the baseline's mean load, this counter (e.g. requests_per_s)",
     &o.load, NULL},
    {OPT_STRING, 0, "limits", "L", "5/95 (default), 1/99, 10/90 or 3sd", &o.limits, NULL},
    {OPT_STRING, 0, "period", "SECONDS", "load-scaling period (1)", &o.period, NULL},
    {OPT_STRING, 0, "cpu", "COUNTER[,COUNTER]",
     "the CPU utilisation on which the bimodal filter decides: the sum of these counters "
     "(default " CCHART_CPU_DEFAULT ")",
     &o.cpu, NULL},
    {OPT_FLAG, 0, "no-filter", NULL, "no bimodal filter (idle periods are kept)", &o.no_filter,
     NULL},
    {OPT_FLAG, 0, "no-scaling", NULL, "no load scaling even with --load", &o.no_scaling, NULL},
    {OPT_FLAG, 0, "scale-target-only", NULL,
     "with --load: scale the target only, the baseline keeps its load's variation (the "
     "paper's rule)",
     &o.scale_target_only, NULL},
    {OPT_STRING, 0, "margin", "PCT",
     "out of control only when the violation ratio exceeds the threshold by more than PCT "
     "percentage points (default 0)",
     &o.margin, NULL},
    {OPT_FLAG, 0, "runs", NULL, "also score each target run on its own", &o.runs, NULL},
    {OPT_STRING, 0, "run-threshold", "T",
     "with --runs: a run is bad when its largest "
     "violation ratio exceeds T (0-1; default: any "
     "counter above its threshold)",
     &o.run_threshold, NULL},
    {OPT_STRING, 0, "label-bad", "TEXT",
     "with --runs: target runs whose name contains "
     "TEXT are known bad: precision and recall",
     &o.bad, NULL},
    CLI_OUTPUT_OPTIONS(o.output, "text (default), json or markdown", CLI_QUIET_WARNINGS),
    {OPT_STRING, 'o', "out", "FILE", "write the report to FILE instead of stdout", &o.out, NULL},
    {OPT_STRING, 0, "svg", "DIR", "write one SVG control chart per counter into DIR", &o.svg, NULL},
    OPT_END_MARKER,
};
static const char *const chart_usage[] = {"chart [options] --baseline SRC... --target SRC...",
					  NULL};
const struct command_help chart_help = {
    "chart",
    chart_usage,
    "Control charts (METHODS.md section 4): the control limits of every counter from the\n"
    "pooled samples of the baseline runs (CL the median, LCL/UCL percentiles), the share\n"
    "of target samples outside them (the violation ratio), a threshold per counter from\n"
    "the baseline runs themselves (each scored against the others: the largest ratio),\n"
    "and the counters out of control, ordered by ratio minus threshold. Beside each\n"
    "threshold: the chance that a good target exceeds it, 1 in (baseline runs + 1). A\n"
    "source is a CSV file (timestamp,counter,value and optionally run; one run per file or\n"
    "per run name) or, with --bench, a revision whose runs `compare` sampled (profile =\n"
    "counters). With --load both sides are scaled to the baseline's mean load by a\n"
    "least-squares fit over the baseline's periods. When the baseline's CPU utilisation is\n"
    "bimodal (idle and busy), its idle periods are dropped from every counter first; a\n"
    "target run below the cut throughout is not idle but starved or slower: scored whole.\n"
    "See docs/counters.md.\n"
    "Exit status: 0 every judged counter in control, 1 some out of control, 2 usage or\n"
    "input error (a file and line, a NaN, a revision without sampled runs) or no counter\n"
    "judged (every sample of a side idle, no headroom: the report says why, nothing was\n"
    "decided), 3 internal failure.",
    chart_options,
};

struct chart_ctx {
	struct cli_project p; /* opened on first use of a revision source */
	bool opened;
};

static int open_store(struct chart_ctx *c)
{
	int ret;
	if (c->opened)
		return 0;
	if ((ret = cli_project_open(&c->p, &(struct cli_where){ NULL, o.state_dir, o.store }, 0)))
		return ret == EXIT_USAGE ? RP_EINPUT : RP_EINTERNAL;
	c->opened = true;
	return 0;
}

/* Adds the runs of one source to a side; *what describes the side for the labels. */
static int add_source(struct chart_ctx *c, struct cchart_input *in, enum cchart_side side,
		      const char *src, struct strbuf *what)
{
	int err;

	if (what->len)
		strbuf_addstr(what, ", ");
	if (!strcmp(src, "-") || !access(src, F_OK)) {
		strbuf_addstr(what, src);
		return counters_csv_chart_add(src, in, side);
	}
	if (!o.bench) {
		error("'%s' is not a file; to chart a revision's sampled runs, name the benchmark "
		      "with --bench",
		      src);
		return RP_EINPUT;
	}
	if ((err = open_store(c)))
		return err;
	return compare_counters_of_revision(c->p.st, c->p.repo, src, o.bench, in, side, what);
}


/*
 * The one line on stderr when no counter was judged (the report, already printed, says so
 * too): why, and what to do about each reason there was.
 */
static void undecided_error(const struct cchart_result *r)
{
	struct strbuf why = STRBUF_INIT, todo = STRBUF_INIT;

	chart_report_not_judged(&why, r);
	if (r->nr_status[CCHART_IDLE])
		strbuf_addstr(&todo, "the bimodal filter found one side idle throughout: chart "
				     "with --no-filter to keep its samples, or record runs that "
				     "keep the program busy");
	if (r->nr_no_headroom)
		strbuf_addf(&todo,
			    "%sthe baseline runs never overlap: record more or longer "
			    "baseline runs",
			    todo.len ? "; " : "");
	if (r->nr_status[CCHART_ONLY_BASELINE] || r->nr_status[CCHART_ONLY_TARGET] ||
	    r->nr_status[CCHART_NO_SAMPLES])
		strbuf_addf(&todo,
			    "%scounters with samples on one side only: sample both sides' "
			    "runs with the same counters",
			    todo.len ? "; " : "");
	fflush(stdout);
	error("chart: no counter could be judged, nothing decided (%s)%s%s", why.buf,
	      todo.len ? ": " : "", todo.buf);
	strbuf_release(&why);
	strbuf_release(&todo);
}

static const char *const chart_formats[] = {"text", "json", "markdown", NULL};

static int chart(int argc, char **argv)
{
	char **rest = NULL, **side[2] = {NULL, NULL};
	int nr_rest, nr_side[2], n, err, ret = EXIT_USAGE;
	struct chart_ctx c = {0};
	struct cchart_input in;
	struct cchart_opts opts;
	struct cchart_result res = {0};
	struct cchart_run_score *scores = NULL;
	struct strbuf what[2] = {STRBUF_INIT, STRBUF_INIT};
	struct chart_labels lab;
	enum { TEXT, JSON, MARKDOWN } format = TEXT;
	const char *args[1];
	double run_t = NAN;
	FILE *f = stdout;

	memset(&o, 0, sizeof(o));
	o.output.quiet_warnings = true;
	cchart_input_init(&in);
	cchart_opts_init(&opts);
	options_split_sides(argc, argv, &rest, &nr_rest, side, nr_side);
	n = parse_options(nr_rest, rest, &chart_help, args, 0);
	if (n == -2) {
		ret = EXIT_OK;
		goto out;
	}
	if (n < 0)
		goto out;
	/* chart_formats in the order of the enum */
	if ((n = cli_output_begin(&o.output, "chart", chart_formats)) < 0)
		goto out;
	format = n == 1 ? JSON : n == 2 ? MARKDOWN : TEXT;
	if (!nr_side[0] || !nr_side[1]) {
		usage_error("chart", "expected --baseline SRC... and --target SRC...");
		goto out;
	}
	{
		/* Both sides' sources: standard input may be one of them. */
		const char **all = xcalloc((size_t)(nr_side[0] + nr_side[1]), sizeof(*all));
		memcpy(all, side[0], (size_t)nr_side[0] * sizeof(*all));
		memcpy(all + nr_side[0], side[1], (size_t)nr_side[1] * sizeof(*all));
		err = stdin_at_most_once("chart", all, nr_side[0] + nr_side[1]);
		free(all);
		if (err)
			goto out;
	}
	if (o.limits && cchart_limits_parse(o.limits, &opts.limits))
		goto out;
	if (o.period && parse_double(o.period, 1e-3, 1e6, &opts.period_s)) {
		usage_error("chart", "--period '%s': expected seconds, e.g. 1 or 0.5", o.period);
		goto out;
	}
	if (o.margin) {
		if (parse_double(o.margin, 0, 100, &opts.margin)) {
			usage_error("chart", "--margin '%s': expected percentage points from 0 to 100",
				    o.margin);
			goto out;
		}
		opts.margin /= 100;
	}
	if (o.run_threshold && parse_double(o.run_threshold, 0, 1, &run_t)) {
		usage_error("chart", "--run-threshold '%s': expected a ratio from 0 to 1",
			    o.run_threshold);
		goto out;
	}
	if ((o.run_threshold || o.bad) && !o.runs) {
		usage_error("chart", "--run-threshold and --label-bad go with --runs");
		goto out;
	}
	opts.bimodal_filter = !o.no_filter;
	opts.scale_load = !o.no_scaling;
	opts.scale_baseline = !o.scale_target_only;
	if (o.load && (err = cchart_input_set_load(&in, o.load)))
		goto out;
	if (o.cpu && (err = cchart_input_set_cpu(&in, o.cpu)))
		goto out;
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < nr_side[s]; i++)
			if ((err = add_source(&c, &in, s ? CCHART_TARGET : CCHART_BASELINE,
					      side[s][i], &what[s]))) {
				ret = rp_err_exit_code(err);
				goto out;
			}
	if ((err = cchart_analyze(&in, &opts, &res))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (o.runs) {
		scores = xcalloc(res.nr_target_runs ? res.nr_target_runs : 1, sizeof(*scores));
		if ((err = cchart_score_runs(
			 &res, isnan(run_t) ? CCHART_RULE_THRESHOLD : CCHART_RULE_RATIO,
			 isnan(run_t) ? 0 : run_t, scores))) {
			ret = rp_err_exit_code(err);
			goto out;
		}
	}
	lab.baseline = what[0].buf;
	lab.target = what[1].buf;
	lab.load = o.load;
	if (o.svg && (err = chart_report_svg_dir(o.svg, &in, &res, &lab))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (!(f = cli_report_open(o.out))) {
		f = stdout;
		goto out;
	}
	o.output.printed = true;
	if (format == JSON) {
		json_t *root = json_object(), *body = chart_report_json(&in, &res, &lab, scores);
		json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
		json_object_set_new(root, "schema", json_string("revperf-chart/2"));
		json_object_update(root, body);
		json_decref(body);
		json_object_set_new(root, "decided", json_boolean(res.nr_judged > 0));
		json_object_set_new(root, "not_judged", chart_report_not_judged_json(&res));
		json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		fputc('\n', f);
		json_decref(root);
	} else if (format == MARKDOWN) {
		chart_report_markdown(f, &res);
	} else {
		chart_report_text(f, &res, &lab, "");
		if (scores)
			chart_report_runs_text(f, &in, &res, scores, "");
	}
	if (scores && o.bad) {
		const struct cchart_runs *t = &in.side[CCHART_TARGET];
		bool *pred = xcalloc(t->nr ? t->nr : 1, sizeof(bool));
		bool *label = xcalloc(t->nr ? t->nr : 1, sizeof(bool));
		struct cchart_eval ev;
		for (size_t i = 0; i < t->nr; i++) {
			pred[i] = scores[i].bad;
			label[i] = strstr(t->runs[i]->name, o.bad) != NULL;
		}
		if (!cchart_evaluate(pred, label, t->nr, &ev))
			fprintf(format == TEXT ? f : stderr,
				"precision %.2f, recall %.2f (tp %zu, fp %zu, fn %zu, tn %zu; runs "
				"labelled bad: names containing '%s')\n",
				ev.precision, ev.recall, ev.tp, ev.fp, ev.fn, ev.tn, o.bad);
		free(pred);
		free(label);
	}
	ret = cli_report_close(f, o.out, false,
			       res.nr_out      ? EXIT_REGRESSION
			       : res.nr_judged ? EXIT_OK
					       : EXIT_USAGE);
	f = stdout;
	if (ret == EXIT_USAGE)
		undecided_error(&res);
out:
	if (f != stdout)
		fclose(f);
	free(scores);
	cchart_result_release(&res);
	cchart_input_release(&in);
	strbuf_release(&what[0]);
	strbuf_release(&what[1]);
	ret = cli_project_close(&c.p, ret);
	free(rest);
	free(side[0]);
	free(side[1]);
	return ret;
}

int cmd_chart(int argc, char **argv)
{
	int ret = chart(argc, argv);
	return cli_output_end(&o.output, ret);
}
