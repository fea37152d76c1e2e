#ifndef REVPERF_REPORT_REPORT_H
#define REVPERF_REPORT_REPORT_H

#include <stdio.h>

#include "compare/compare.h"

enum report_format {
	REPORT_TEXT = 0,
	REPORT_JSON,
	REPORT_MARKDOWN,
};

/* Parses "text", "json" or "markdown" (also "md"). Returns 0 or -1. */
int report_format_parse(const char *s, enum report_format *out);

/*
 * Writes the comparison report to f. Text uses colour when `color` is set (a TTY).
 * JSON follows docs/json-schema.md. Returns 0, or -1 on a write error.
 */
int report_compare(FILE *f, const struct compare_result *res, enum report_format format,
		   bool color);

int report_compare_text(FILE *f, const struct compare_result *res, bool color);
int report_compare_json(FILE *f, const struct compare_result *res);
/* The same document as a new JSON object (ci embeds it); the caller json_decref()s it. */
struct json_t;
struct json_t *report_compare_json_object(const struct compare_result *res);
int report_compare_markdown(FILE *f, const struct compare_result *res);

/*
 * JUnit XML (junit.c): one test case per benchmark and metric, a failure for each `worse`
 * (the target's runs failing is a failure too), an error for a benchmark that could not
 * be compared. Returns 0, or -1 on a write error.
 */
int report_compare_junit(FILE *f, const struct compare_result *res);
/*
 * The comparison in one line, for a headline: "2 regressions, 1 improvement, 14 unchanged"
 * over every benchmark's primary metrics, those that decide the exit status, as the text
 * summary (", 3 undecided", ", 1 unmeasured", benchmarks broken in the target or not
 * compared, when there are); the other metrics' verdicts are left to the table. Appended
 * to sb.
 */
struct strbuf;
void report_headline(struct strbuf *sb, const struct compare_result *res);

/* Shared by the renderers. */
const char *report_side_name(char side); /* 'A' -> "baseline", 'B' -> "target" */

/*
 * The confidence level 1 - alpha as a percentage, "99.00%", with as many digits as it takes
 * never to print 100% (alpha spending past many looks: "99.99999976%"). Returns buf.
 */
const char *report_ci_level(char buf[32], double alpha);
/*
 * A change point's relative shift and its (1 - ci_alpha) interval, as every report shows
 * it: "-28.4%, 99.00% CI -31.0% to -25.2%" (two decimals below 1%, as compare's exact
 * shifts), "..., includes 0: size and direction unknown" when the interval holds 0, the
 * shift alone when the bounds are NaN (no interval); "...; 3 commits after: coverage
 * below 99.00%" when a segment is shorter than CHANGEPOINT_SHORT_SEGMENT.
 */
struct report_shift {
	double shift, lo, hi; /* lo, hi NAN: no interval */
	double ci_alpha;
	size_t n_before, n_after; /* commits of the two segments */
};
void report_shift_add(struct strbuf *sb, const struct report_shift *s);
/*
 * Whether a change point's shift (its interval, as a ratio 1 + lo .. 1 + hi) and its
 * commit's own comparison (the ratio's interval ci_lo .. ci_hi) are disjoint, the shift's
 * not holding 1: a change spread over several commits, or medians that pool runs made at
 * other times (under other load), where the comparison's were interleaved pairs. False
 * when a bound is NaN.
 */
bool report_shift_disagrees(const struct report_shift *s, double ci_lo, double ci_hi);
/* What disjoint intervals may mean, as every report says it. */
#define REPORT_SHIFT_DISAGREES                                                              \
	"disjoint from the change point's interval: a change spread over several commits, "  \
	"or medians moved by runs made at other times (the comparison's runs were "          \
	"interleaved pairs)"
/*
 * An undecided metric whose interval lies entirely on one side of 1 (but not entirely
 * beyond the tolerance): the direction is known, the size is not. "faster" or "slower"
 * for times, "lower" or "higher" otherwise; NULL when the direction is not known.
 */
struct metric_outcome;
const char *report_known_direction(const struct metric_outcome *m);
/*
 * The first metric decided worse or better although the binary diff found the program's
 * code identical in both builds, or NULL: such a change comes from the program's inputs, the
 * libraries or scripts it runs, or the machine, and the report says so beside the verdict.
 */
const char *report_same_code_changed(const struct bench_outcome *b);
/*
 * Whether some benchmark reused timing runs stored before this comparison: its seed
 * ordered only its new runs (jq trial: a reused comparison showed a seed that had ordered
 * none of them).
 */
bool report_reused_runs(const struct compare_result *res);
/* A function that differs between the builds: its name ("old -> new" when renamed), and
 * its instructions ("12 -> 17 insns (+5)", "- -> 8 insns (+8)" when added), into sb. */
void report_changed_fn_name(struct strbuf *sb, const struct changed_fn *c);
void report_changed_fn_insns(struct strbuf *sb, const struct changed_fn *c);
/* Appends " (faster: -0.7% to -9.8%)" for such a metric to sb; nothing otherwise. */
void report_undecided_note(struct strbuf *sb, const struct metric_outcome *m);
/*
 * What a metric's verdict was computed from, into sb: "199 pairs" when it was paired (the
 * complete interleaved pairs, fewer than the runs when a run of a pair failed or was
 * reused without its partner), else "200 + 200 runs".
 */
void report_verdict_counts(struct strbuf *sb, const struct metric_outcome *m);
/* One failed run as "crashed (killed by SIGSEGV)" into sb. */
void report_failed_run(struct strbuf *sb, const struct store_run_issue *r);
/* Why a metric has no verdict: its reason, or for results without one (imported), the
 * counts of its values. Static text. */
struct metric_outcome;
const char *report_unmeasured_reason(const struct metric_outcome *m);

/*
 * The attribution under a benchmark's verdict (profile = cct, compare/compare_profile.h):
 * with `absolute`, the absolute change per function and call path first
 * (report/attribution_report.h); then the largest topological and weight differences of
 * the calling context trees (PARCS), at most `top` of each kind, and where the flame graph
 * is. `indent` prefixes every line.
 */
struct cct_attribution;
void report_attribution_text(FILE *f, const struct cct_attribution *a, size_t top,
			     const char *indent, bool absolute);
/* The attribution as a JSON object (docs/json-schema.md): a new reference. */
struct json_t;
struct json_t *report_attribution_json(const struct cct_attribution *a);

/*
 * The I/O section under a benchmark's verdict (profile = io, compare/compare_io.h): the
 * changed and stopped stack traces of the similarity report, at most `top` of each.
 */
struct io_attribution;
void report_io_text(FILE *f, const struct io_attribution *a, size_t top, const char *indent);
void report_io_markdown(FILE *f, const struct io_attribution *a, size_t top);
struct json_t *report_io_json(const struct io_attribution *a);

/* The control charts under a benchmark's verdict (profile = counters). */
struct counters_attribution;
void report_counters_text(FILE *f, const struct counters_attribution *a, const char *indent);
void report_counters_markdown(FILE *f, const struct counters_attribution *a);
struct json_t *report_counters_json(const struct counters_attribution *a);

/* The counted metrics under a benchmark's verdict (ir, sim-cycles): b->counted not NULL. */
struct bench_outcome;
void report_counted_text(FILE *f, const struct bench_outcome *b, const char *indent);
void report_counted_markdown(FILE *f, const struct bench_outcome *b);
struct json_t *report_counted_json(const struct bench_outcome *b);

#endif
