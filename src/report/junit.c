/*
 * The comparison as JUnit XML (report.h): for CI systems that show test results. One
 * test case per benchmark and metric, a <failure> for each `worse`, an <error> for a
 * benchmark that could not be compared; the verdict of the others in <system-out>.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/compare_counted.h"
#include "report/report.h"
#include "util/common.h"
#include "util/units.h"

static void attr(struct strbuf *sb, const char *name, const char *value)
{
	strbuf_addf(sb, " %s=\"", name);
	strbuf_add_xml_escaped(sb, value);
	strbuf_addch(sb, '"');
}

/*
 * "worse: x1.123 [1.101, 1.144] (primary; 12 pairs; tolerance 2%)": the runs and the
 * tolerance that judged this metric. A counted metric (ir) is judged over its counted
 * runs against the count tolerance, not over the timing runs (none, when every metric is
 * counted); so is a count whose runs agree (exact), over the timing runs.
 */
static void describe(struct strbuf *sb, const struct bench_outcome *b,
		     const struct metric_outcome *m)
{
	bool counted = m->def->flags & METRIC_COUNTED;
	bool by_count = counted || ((m->def->flags & METRIC_COUNT) && m->r.exact);
	double tolerance = by_count ? b->count_tolerance : b->tolerance;
	strbuf_addstr(sb, m->measured ? verdict_name(m->r.verdict) : "unmeasured");
	if (m->measured && m->r.reason)
		strbuf_addf(sb, ": %s", m->r.reason);
	else if (m->measured && isfinite(m->r.ratio)) {
		strbuf_addstr(sb, ": x");
		units_range_addf(sb, m->r.ratio, m->r.ci_lo, m->r.ci_hi, 4, UNITS_RANGE_BRACKETS);
	}
	strbuf_addf(sb, " (%s; ", m->primary ? "primary" : "not primary");
	if (m->measured)
		report_verdict_counts(sb, m);
	else
		strbuf_addf(sb, "%zu + %zu runs", b->ok_a, b->ok_b);
	strbuf_addf(sb, "%s; %stolerance %.3g%%)", counted ? " counted" : "",
		    by_count ? "count " : "", 100 * tolerance);
}

/*
 * The seconds a benchmark took: its timing runs and, after them, its counted runs under
 * valgrind (a benchmark whose metrics are all counted has only those).
 */
static double bench_seconds(const struct bench_outcome *b)
{
	return b->elapsed_s + (b->counted ? b->counted->elapsed_s : 0);
}

static void testcase(struct strbuf *sb, const struct bench_outcome *b, const char *name)
{
	struct strbuf cls = STRBUF_INIT;
	strbuf_addf(&cls, "revperf.%s", b->name);
	strbuf_addstr(sb, "    <testcase");
	attr(sb, "classname", cls.buf);
	attr(sb, "name", name);
	strbuf_addf(sb, " time=\"%.3f\">\n",
		    bench_seconds(b) / (b->nr_metrics ? b->nr_metrics : 1));
	strbuf_release(&cls);
}

static void bench_cases(struct strbuf *sb, const struct compare_result *res,
			const struct bench_outcome *b, size_t *failures, size_t *errors)
{
	struct strbuf msg = STRBUF_INIT;
	if (b->error || b->target_broken) {
		testcase(sb, b, "runs");
		strbuf_addstr(sb, b->target_broken ? "      <failure type=\"broken\""
						   : "      <error type=\"not-comparable\"");
		attr(sb, "message", b->error ? b->error : "the target's runs fail");
		strbuf_addstr(sb, "/>\n");
		strbuf_addstr(sb, "    </testcase>\n");
		*(b->target_broken ? failures : errors) += 1;
	}
	for (size_t i = 0; i < b->nr_metrics; i++) {
		const struct metric_outcome *m = &b->metrics[i];
		strbuf_reset(&msg);
		describe(&msg, b, m);
		testcase(sb, b, m->def->name);
		if (m->measured && m->r.verdict == VERDICT_WORSE) {
			strbuf_addstr(sb, "      <failure type=\"worse\"");
			attr(sb, "message", msg.buf);
			strbuf_addstr(sb, ">");
			strbuf_add_xml_escaped(sb, res->base_label);
			strbuf_addstr(sb, " -&gt; ");
			strbuf_add_xml_escaped(sb, res->target_label);
			strbuf_addstr(sb, ": ");
			strbuf_add_xml_escaped(sb, msg.buf);
			strbuf_addstr(sb, "</failure>\n");
			(*failures)++;
		} else {
			strbuf_addstr(sb, "      <system-out>");
			strbuf_add_xml_escaped(sb, msg.buf);
			strbuf_addstr(sb, "</system-out>\n");
		}
		strbuf_addstr(sb, "    </testcase>\n");
	}
	strbuf_release(&msg);
}

int report_compare_junit(FILE *f, const struct compare_result *res)
{
	struct strbuf cases = STRBUF_INIT, head = STRBUF_INIT, suite = STRBUF_INIT;
	size_t failures = 0, errors = 0, tests = 0, i;
	double seconds = 0;
	int ret;

	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		tests += b->nr_metrics + (b->error || b->target_broken);
		seconds += bench_seconds(b);
		bench_cases(&cases, res, b, &failures, &errors);
	}
	strbuf_addf(&suite, "revperf %s..%s", res->base_label, res->target_label);
	strbuf_addf(&head,
		    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"revperf\" "
		    "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n"
		    "  <testsuite",
		    tests, failures, errors, seconds);
	attr(&head, "name", suite.buf);
	strbuf_addf(&head,
		    " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" "
		    "time=\"%.3f\">\n",
		    tests, failures, errors, seconds);
	fputs(head.buf, f);
	fputs(cases.buf, f);
	fputs("  </testsuite>\n</testsuites>\n", f);
	ret = ferror(f) ? -1 : 0;
	strbuf_release(&cases);
	strbuf_release(&head);
	strbuf_release(&suite);
	return ret;
}
