#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/compare_counted.h"
#include "compare/run_output.h"
#include "report/report.h"
#include "util/common.h"
#include "util/units.h"

#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

/* The functions that differ between the builds shown in text (all in JSON, Markdown). */
#define CHANGED_SHOWN 5

static const char *verdict_color(enum verdict v, const struct metric_def *def)
{
	UNUSED(def);
	switch (v) {
	case VERDICT_WORSE: return RED;
	case VERDICT_BETTER: return GREEN;
	case VERDICT_UNDECIDED: return YELLOW;
	default: return "";
	}
}

/* How an interval was computed, for the benchmark's header line (NULL: no interval). */
static const char *method_text(enum verdict_method m)
{
	switch (m) {
	case VERDICT_METHOD_PAIRED_T: return "paired t over interleaved pairs";
	case VERDICT_METHOD_WELCH: return "Welch, unpaired";
	case VERDICT_METHOD_PAIRED_BOOTSTRAP: return "ratio of means, paired bootstrap";
	case VERDICT_METHOD_BOOTSTRAP: return "ratio of means, bootstrap";
	case VERDICT_METHOD_EXACT:
	case VERDICT_METHOD_NONE: break;
	}
	return NULL;
}

/*
 * The interval methods of a benchmark's measured metrics, the log-scale ones first; the
 * bootstrap of values with zeros names its metrics: "paired t over interleaved pairs;
 * ratio of means, paired bootstrap (zeros: user)"; "no interval" when no metric has one.
 */
static void bench_method(struct strbuf *sb, const struct bench_outcome *b)
{
	static const enum verdict_method order[] = {
	    VERDICT_METHOD_PAIRED_T, VERDICT_METHOD_WELCH, VERDICT_METHOD_PAIRED_BOOTSTRAP,
	    VERDICT_METHOD_BOOTSTRAP};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		bool zeros = order[i] == VERDICT_METHOD_PAIRED_BOOTSTRAP ||
			     order[i] == VERDICT_METHOD_BOOTSTRAP;
		size_t named = 0;

		for (j = 0; j < b->nr_metrics; j++) {
			const struct metric_outcome *m = &b->metrics[j];
			if (!m->measured || m->r.method != order[i])
				continue;
			if (!named) {
				if (sb->len)
					strbuf_addstr(sb, "; ");
				strbuf_addstr(sb, method_text(order[i]));
				if (!zeros)
					break;
				strbuf_addstr(sb, " (zeros: ");
			} else {
				strbuf_addstr(sb, ", ");
			}
			strbuf_addstr(sb, m->def->name);
			named++;
		}
		if (named)
			strbuf_addch(sb, ')');
	}
	if (!sb->len)
		strbuf_addstr(sb, "no interval");
}

/*
 * Whether more runs could decide: some primary metric is undecided for noise, not for a
 * reason more runs cannot change (a side of zeros only, which its own line explains).
 */
static bool undecided_for_noise(const struct bench_outcome *b)
{
	size_t j;
	for (j = 0; j < b->nr_metrics; j++) {
		const struct metric_outcome *m = &b->metrics[j];
		if (m->primary && !(m->measured && m->r.reason) &&
		    !(m->measured && m->r.verdict != VERDICT_UNDECIDED))
			return true;
	}
	return false;
}

static void format_p(char *buf, size_t size, double p)
{
	if (!isfinite(p))
		snprintf(buf, size, "-");
	else if (p < 1e-4)
		snprintf(buf, size, "%.1e", p);
	else
		snprintf(buf, size, "%.4f", p);
}

/*
 * "1.023 [1.010, 1.040]", or "1.000" alone when the interval is that point (exact); more
 * decimals when the interval and the change are below 0.001 (units_ratio_add()).
 */
static void ratio_ci(char *buf, size_t size, const struct metric_outcome *m)
{
	struct strbuf sb = STRBUF_INIT;
	units_ratio_add(&sb, m->r.ratio, m->r.ci_lo, m->r.ci_hi, UNITS_RANGE_BRACKETS);
	snprintf(buf, size, "%s", sb.buf);
	strbuf_release(&sb);
}

/* The widths of a benchmark's "mean ± sd" cells: the widest mean and sd of its metrics,
 * at least 11 and 9 ("1.2345 G Ir ± 0.0012 G Ir" would push the later columns). */
struct mean_sd_width {
	int mean, sd;
};

static void mean_sd_width(const struct bench_outcome *b, struct mean_sd_width *w)
{
	w->mean = 11;
	w->sd = 9;
	for (size_t j = 0; j < b->nr_metrics; j++) {
		const struct metric_outcome *m = &b->metrics[j];
		struct metric_mean_sd side[2];
		if (!m->measured)
			continue;
		metric_format_mean_sd(m->def, 2, (const double[]){m->r.mean_a, m->r.mean_b},
				      (const double[]){m->r.sd_a, m->r.sd_b}, side);
		for (int i = 0; i < 2; i++) {
			if ((int)strlen(side[i].mean) > w->mean)
				w->mean = (int)strlen(side[i].mean);
			if ((int)strlen(side[i].sd) > w->sd)
				w->sd = (int)strlen(side[i].sd);
		}
	}
}

static void print_metric(FILE *f, const struct bench_outcome *b, const struct metric_outcome *m,
			 const struct mean_sd_width *w, bool color)
{
	struct metric_mean_sd side[2];
	char pw[16], q[16], pmw[16];
	char name[32], ratio[64];
	const char *verdict = m->measured ? verdict_name(m->r.verdict) : "unmeasured";
	struct strbuf def_name = STRBUF_INIT;
	UNUSED(b);
	snprintf(name, sizeof(name), "%s%s", strbuf_printable(&def_name, m->def->name),
		 m->primary ? " *" : "");
	strbuf_release(&def_name);
	if (!m->measured) {
		fprintf(f, "  %-16s %s%-10s%s %s\n", name, color ? YELLOW : "", verdict,
			color ? RESET : "", report_unmeasured_reason(m));
		return;
	}
	metric_format_mean_sd(m->def, 2, (const double[]){m->r.mean_a, m->r.mean_b},
			      (const double[]){m->r.sd_a, m->r.sd_b}, side);
	format_p(pw, sizeof(pw), m->r.p);
	format_p(q, sizeof(q), m->q_bh);
	format_p(pmw, sizeof(pmw), m->r.p_mw);
	ratio_ci(ratio, sizeof(ratio), m);
	fprintf(f, "  %-16s %s%-10s%s %-24s %*s ± %-*s %*s ± %-*s %8s %8s %8s%s%s\n", name,
		color ? verdict_color(m->r.verdict, m->def) : "", verdict, color ? RESET : "",
		ratio, w->mean, side[0].mean, w->sd, side[0].sd, w->mean, side[1].mean, w->sd,
		side[1].sd, pw, q, pmw,
		report_known_direction(m) ? "  " : "",
		report_known_direction(m) ? report_known_direction(m) : "");
}

/* Names wider than this make their row longer rather than every row. */
#define CHANGED_NAME_COLUMN 40

/*
 * "./prog: 4 of 68 functions differ between the builds", then the first CHANGED_SHOWN of
 * them (b->changed's order), one a line with its class and instructions, and how many more
 * (JSON and Markdown list them all).
 */
static void print_changed(FILE *f, const struct bench_outcome *b)
{
	struct strbuf sb = STRBUF_INIT;
	size_t shown = b->nr_changed < CHANGED_SHOWN ? b->nr_changed : CHANGED_SHOWN;
	int width = 8;
	fprintf_printable(f, "  %s: %zu of %zu functions differ between the builds (revperf "
			     "bindiff)%s\n",
			  b->program, b->functions_changed, b->functions_total,
			  shown ? ", the largest changes in instructions first:" : "");
	for (size_t i = 0; i < shown; i++) {
		strbuf_reset(&sb);
		report_changed_fn_name(&sb, &b->changed[i]);
		if ((int)sb.len > width)
			width = sb.len > CHANGED_NAME_COLUMN ? CHANGED_NAME_COLUMN : (int)sb.len;
	}
	for (size_t i = 0; i < shown; i++) {
		const struct changed_fn *c = &b->changed[i];
		strbuf_reset(&sb);
		report_changed_fn_name(&sb, c);
		fprintf_printable(f, "    %-8s  %-*s  ", c->cls, width, sb.buf);
		strbuf_reset(&sb);
		report_changed_fn_insns(&sb, c);
		fprintf(f, "%s", sb.buf);
		if (c->only)
			fprintf(f, "  (only %s: not a change of the code)", c->only);
		fputc('\n', f);
	}
	if (b->nr_changed > shown)
		fprintf(f, "    ... and %zu more (-f json or -f markdown lists them all)\n",
			b->nr_changed - shown);
	strbuf_release(&sb);
}

/*
 * One line per primary metric: the change in percent with its interval, and what the
 * verdict used: its complete pairs when paired (the header counts every run).
 */
static void print_summary(FILE *f, const struct compare_result *res, bool color)
{
	struct strbuf note = STRBUF_INIT, name = STRBUF_INIT, metric = STRBUF_INIT;
	struct strbuf counts = STRBUF_INIT;
	char level[32];
	size_t i, j;
	fprintf(f, "\nsummary (target vs baseline):\n");
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		strbuf_printable(&name, b->name);
		if (b->error) {
			fprintf(f, "  %s: %s%s%s\n", name.buf, color ? RED : "",
				b->target_broken ? "target broken" : "not compared",
				color ? RESET : "");
			continue;
		}
		for (j = 0; j < b->nr_metrics; j++) {
			const struct metric_outcome *m = &b->metrics[j];
			/* counted metrics beside the timed ones: work done next to time taken */
			if (!m->primary && !((m->def->flags & METRIC_COUNTED) && m->measured))
				continue;
			strbuf_printable(&metric, m->def->name);
			if (!m->measured) {
				fprintf(f, "  %s %s: unmeasured (%s)\n", name.buf, metric.buf,
					report_unmeasured_reason(m));
				continue;
			}
			strbuf_reset(&counts);
			report_verdict_counts(&counts, m);
			if (m->r.reason) {
				fprintf(f, "  %s %s: %s%s%s: %s (%s)\n", name.buf, metric.buf,
					color ? verdict_color(m->r.verdict, m->def) : "",
					verdict_name(m->r.verdict), color ? RESET : "", m->r.reason,
					counts.buf);
				continue;
			}
			if (m->r.exact) {
				/* as the counted section says: "the same" only when to the unit */
				fprintf(
				    f,
				    "  %s %s: %s%s%s, %+.2f%% (exact: every run of a side counted "
				    "the same%s, %s)\n",
				    name.buf, metric.buf,
				    color ? verdict_color(m->r.verdict, m->def) : "",
				    verdict_name(m->r.verdict), color ? RESET : "",
				    100.0 * (m->r.ratio - 1),
				    m->r.spread_a > 0 || m->r.spread_b > 0 ? " within 0.01%" : "",
				    counts.buf);
				continue;
			}
			strbuf_reset(&note);
			report_undecided_note(&note, m);
			fprintf(f, "  %s %s: %s%s%s%s, %+.1f%% (%s CI %+.1f%% to %+.1f%%, %s)\n",
				name.buf, metric.buf,
				color ? verdict_color(m->r.verdict, m->def) : "",
				verdict_name(m->r.verdict), color ? RESET : "", note.buf,
				100.0 * (m->r.ratio - 1), report_ci_level(level, b->ci_alpha),
				100.0 * (m->r.ci_lo - 1), 100.0 * (m->r.ci_hi - 1), counts.buf);
		}
	}
	strbuf_release(&note);
	strbuf_release(&name);
	strbuf_release(&metric);
	strbuf_release(&counts);
}

/* Characters of valid UTF-8 text (what strbuf_printable() returns): its width, roughly. */
static size_t text_width(const char *s, size_t len)
{
	size_t w = 0;
	for (size_t i = 0; i < len; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* The line each reported metric read in the first run, the number marked below it. */
static void print_reported_lines(FILE *f, const struct bench_outcome *b)
{
	struct strbuf t = STRBUF_INIT, head = STRBUF_INIT;
	for (size_t i = 0; i < b->nr_reported; i++) {
		const struct reported_line *rl = &b->reported[i];
		const char *side = report_side_name(rl->side);
		size_t pad, marks;
		if (!rl->line) {
			fprintf_printable(f, "  %s: no match in the first %s run (#%lld)\n",
					  rl->metric, side, (long long)rl->run_id);
			continue;
		}
		fprintf_printable(f, "  %s read in the first %s run (#%lld), %s of %zu match%s:\n",
				  rl->metric, side, (long long)rl->run_id,
				  rl->mean ? "mean" : "last", rl->matches,
				  rl->matches == 1 ? "" : "es");
		strbuf_reset(&head);
		strbuf_add(&head, rl->line, rl->value_at);
		strbuf_printable(&t, head.buf);
		pad = text_width(t.buf, t.len);
		strbuf_reset(&head);
		strbuf_add(&head, rl->line + rl->value_at, rl->value_len);
		strbuf_printable(&t, head.buf);
		marks = text_width(t.buf, t.len);
		fprintf(f, "    %s\n    %*s", strbuf_printable(&t, rl->line), (int)pad, "");
		while (marks--)
			fputc('^', f);
		fputc('\n', f);
	}
	strbuf_release(&t);
	strbuf_release(&head);
}

/*
 * Labels, names, errors and run details come from the command line, the repository and the
 * benchmarks' output: printed through strbuf_printable (the colours are revperf's own).
 */
/* Whether a side's label is its sha already (or its start): `ci` labels a side by it. */
static bool label_is_sha(const char *label, const char *sha)
{
	size_t n = label ? strlen(label) : 0;
	return n >= 7 && n <= strlen(sha) && !strncmp(label, sha, n);
}

int report_compare_text(FILE *f, const struct compare_result *res, bool color)
{
	struct strbuf t = STRBUF_INIT;
	char level[32];
	size_t i, j;
	fprintf(f, "%sbaseline%s %s", color ? BOLD : "", color ? RESET : "",
		strbuf_printable(&t, res->base_label));
	if (res->base_sha[0] && !label_is_sha(res->base_label, res->base_sha))
		fprintf(f, " (%.12s)", res->base_sha);
	fprintf(f, "  vs  %starget%s %s", color ? BOLD : "", color ? RESET : "",
		strbuf_printable(&t, res->target_label));
	if (res->target_sha[0] && !label_is_sha(res->target_label, res->target_sha))
		fprintf(f, " (%.12s)", res->target_sha);
	if (res->imported)
		fprintf(f, "\nimported results (measured elsewhere, by another tool); alpha %g\n",
			res->alpha);
	else
		fprintf_printable(
		    f,
		    "\nmachine: %s, %s, %d cores, kernel %s, governor %s; alpha %g, seed "
		    "%llu%s\n",
		    res->machine.hostname, res->machine.cpu_model, res->machine.cores,
		    res->machine.kernel, res->machine.governor, res->alpha,
		    (unsigned long long)res->seed,
		    report_reused_runs(res) ? " (of its new runs; the reused ones kept their own "
					      "comparisons' order)"
					    : "");
	if (res->same_build)
		fprintf(f, "note: both sides are the same build (an A/A comparison)\n");
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		const char *changed;
		struct strbuf method = STRBUF_INIT;
		bench_method(&method, b);
		fprintf(f, "\n%s%s%s: ", color ? BOLD : "", strbuf_printable(&t, b->name),
			color ? RESET : "");
		if (b->counted_only) {
			/* "needed": a comparison shown again for its counted metrics alone may
			 * have timing runs stored, which no metric asked reads */
			fprintf(f, "no timing runs needed (every metric asked is counted: see the "
				   "counted runs below");
			if (b->probe_timeout_s > 0 && !b->error)
				fprintf(f, "; a warm-up of A without valgrind set their timeout: "
					   "%.0f s",
					b->probe_timeout_s);
			fputc(')', f);
		} else {
			fprintf(f, "%zu + %zu runs", b->ok_a, b->ok_b);
		}
		if (b->reused_a || b->reused_b)
			fprintf(f, " (%zu + %zu reused)", b->reused_a, b->reused_b);
		if (b->counted_only)
			fprintf(f, res->replayed ? ", shown from the store" : ", %.1f s",
				b->elapsed_s + (b->counted ? b->counted->elapsed_s : 0));
		else if (res->imported)
			fprintf(f, "; ratio B/A with %s CI (%s), tolerance %g%%\n",
				report_ci_level(level, b->ci_alpha), method.buf, 100.0 * b->tolerance);
		else if (res->replayed)
			fprintf(f, ", shown from the store; ratio B/A with %s CI (%s), tolerance %g%%",
				report_ci_level(level, b->ci_alpha), method.buf, 100.0 * b->tolerance);
		else
			fprintf(f, ", %zu look%s%s, %.1f s; ratio B/A with %s CI (%s), tolerance "
				   "%g%%",
				b->looks, b->looks == 1 ? "" : "s",
				b->extended_looks ? " (some past the run budget: alpha spending)" : "",
				b->elapsed_s, report_ci_level(level, b->ci_alpha), method.buf,
				100.0 * b->tolerance);
		if (b->counted_only && b->counted)
			fprintf(f, "; count tolerance %g%%", 100.0 * b->counted->tolerance);
		else if (!res->imported && b->counted)
			fprintf(f, " (counts: %g%%)", 100.0 * b->counted->tolerance);
		if (!res->imported)
			fputc('\n', f);
		strbuf_release(&method);
		if (b->pinned[0])
			fprintf(f, "  pinned to CPU %s (both sides)\n", b->pinned);
		if (b->quiet_pairs)
			fprintf(f, "  waited %.1f s for a quiet machine before %zu pair%s%s\n",
				b->quiet_wait_s, b->quiet_pairs, b->quiet_pairs == 1 ? "" : "s",
				b->noisy_pairs ? " (still busy after the longest wait before some)"
					       : "");
		if (b->same_code == SAME_CODE_IDENTICAL)
			fprintf_printable(f, "  %s: the same code in both builds (binary diff: %zu "
					     "functions, none changed)\n",
					  b->program, b->functions_total);
		else if (b->same_code == SAME_CODE_DIFFERS)
			print_changed(f, b);
		if (b->nr_metrics) {
			struct mean_sd_width w;
			mean_sd_width(b, &w);
			/* + 1: printf counts the two bytes of "±" in the headings */
			fprintf(f, "  %-16s %-10s %-24s %*s %*s %8s %8s %8s\n", "metric", "verdict",
				"ratio [CI]", w.mean + w.sd + 4, "baseline mean ± sd",
				w.mean + w.sd + 4, "target mean ± sd", "p", "q BH", "p MW");
			for (j = 0; j < b->nr_metrics; j++)
				print_metric(f, b, &b->metrics[j], &w, color);
			for (j = 0; j < b->nr_metrics; j++)
				if (b->metrics[j].measured && b->metrics[j].r.reason)
					fprintf(f, "  %s: %s\n", b->metrics[j].def->name,
						b->metrics[j].r.reason);
			if ((changed = report_same_code_changed(b)))
				fprintf_printable(f,
						  "  note: %s changed although %s's code is the same "
						  "in both builds: the change comes from its inputs, the "
						  "libraries or scripts it runs, or the machine\n",
						  changed, b->program);
		}
		print_reported_lines(f, b);
		if (b->error)
			fprintf(f, "  %s%s: %s%s\n", color ? RED : "",
				b->target_broken ? "target broken" : "error",
				strbuf_printable(&t, b->error), color ? RESET : "");
		else if (!b->decided && b->interrupted && b->counted && b->counted->elapsed_s > 0)
			/* the counted runs come last: the timing runs had ended (a replay, whose
			 * counted phase took no time, cannot tell when it was interrupted) */
			fprintf(f, "  undecided: interrupted during its counted runs under valgrind%s\n",
				b->counted_only ? "" : ", after its timing runs");
		else if (!b->decided && b->interrupted)
			fprintf(f, "  undecided: interrupted before its run budget was spent\n");
		else if (!b->decided && b->looks && undecided_for_noise(b))
			fprintf(f, "  %s\n",
				res->imported
				    ? "undecided: the imported samples are too few or too noisy; "
				      "measure more runs with the other tool, or raise the tolerance"
				    : "undecided after the run budget: raise `runs` or the tolerance, "
				      "or quiet the machine");
		for (j = 0; j < b->nr_issues; j++) {
			struct strbuf sb = STRBUF_INIT;
			report_failed_run(&sb, &b->issues[j]);
			fprintf(f, "  %swarning%s: %s%s\n", color ? YELLOW : "", color ? RESET : "",
				b->issues[j].status == RUN_OK ? "" : "excluded ",
				strbuf_printable(&t, sb.buf));
			strbuf_release(&sb);
		}
		if (b->cct)
			report_attribution_text(f, b->cct, 5, "  ", true);
		if (b->io)
			report_io_text(f, b->io, 5, "  ");
		if (b->counters)
			report_counters_text(f, b->counters, "  ");
		if (b->counted)
			report_counted_text(f, b, "  ");
	}
	fprintf(f, "\n* primary metric (decides the exit code). Verdict: the whole CI beyond "
		   "the tolerance is worse/better, inside it equal, else undecided.\n");
	print_summary(f, res, color);
	if (res->interrupted)
		fprintf(f, "interrupted: the runs that finished are stored%s\n",
			res->resumable ? "; run the same command again to continue" : "");
	strbuf_release(&t);
	return 0;
}
