#include "report/report.h"

#include <math.h>
#include <string.h>

#include "analysis/changepoint.h"
#include "util/common.h"
#include "util/units.h"

int report_format_parse(const char *s, enum report_format *out)
{
	if (!strcmp(s, "text"))
		*out = REPORT_TEXT;
	else if (!strcmp(s, "json"))
		*out = REPORT_JSON;
	else if (!strcmp(s, "markdown") || !strcmp(s, "md"))
		*out = REPORT_MARKDOWN;
	else
		return -1;
	return 0;
}

int report_compare(FILE *f, const struct compare_result *res, enum report_format format,
		   bool color)
{
	int ret;
	switch (format) {
	case REPORT_JSON: ret = report_compare_json(f, res); break;
	case REPORT_MARKDOWN: ret = report_compare_markdown(f, res); break;
	default: ret = report_compare_text(f, res, color); break;
	}
	if (fflush(f) || ferror(f))
		return -1;
	return ret;
}

const char *report_ci_level(char buf[32], double alpha)
{
	int digits = 2;
	/* two decimals would round 100 - 100 alpha up to 100.00 below alpha = 5e-5 */
	while (digits < 12 && 100.0 * alpha < 0.5 * pow(10.0, -digits))
		digits++;
	snprintf(buf, 32, "%.*f%%", digits + (digits > 2), 100.0 * (1.0 - alpha));
	return buf;
}

/* One bound of a shift's interval: "-3.1%", "-inf%" when unbounded. */
static void add_pct(struct strbuf *sb, double x, int decimals)
{
	if (isfinite(x))
		strbuf_addf(sb, "%+.*f%%", decimals, 100 * x);
	else
		strbuf_addf(sb, "%cinf%%", x < 0 ? '-' : '+');
}

void report_shift_add(struct strbuf *sb, const struct report_shift *s)
{
	double shift = s->shift, lo = s->lo, hi = s->hi;
	/* a counted metric's shifts can be a few tenths of %: two decimals below 1% */
	int decimals = fabs(shift) < 0.01 ? 2 : 1;
	char level[32];
	add_pct(sb, shift, decimals);
	if (isnan(lo) || isnan(hi))
		return;
	strbuf_addf(sb, ", %s CI ", report_ci_level(level, s->ci_alpha));
	add_pct(sb, lo, decimals);
	strbuf_addstr(sb, " to ");
	add_pct(sb, hi, decimals);
	/* kept (the permutation test found a change of distribution), but not its size */
	if (lo <= 0 && hi >= 0)
		strbuf_addstr(sb, ", includes 0: size and direction unknown");
	/* the bootstrap median of a few values cannot leave their range: too narrow */
	if (s->n_before < CHANGEPOINT_SHORT_SEGMENT || s->n_after < CHANGEPOINT_SHORT_SEGMENT) {
		bool before = s->n_before < s->n_after;
		size_t n = before ? s->n_before : s->n_after;
		strbuf_addf(sb, "; %zu commit%s %s: coverage below %s", n, n == 1 ? "" : "s",
			    before ? "before" : "after", level);
	}
}

bool report_shift_disagrees(const struct report_shift *s, double ci_lo, double ci_hi)
{
	double lo = 1 + s->lo, hi = 1 + s->hi;
	if (isnan(lo) || isnan(hi) || isnan(ci_lo) || isnan(ci_hi) || (lo <= 1 && hi >= 1))
		return false;
	return hi < ci_lo || lo > ci_hi;
}

void report_verdict_counts(struct strbuf *sb, const struct metric_outcome *m)
{
	if (m->r.paired)
		strbuf_addf(sb, "%zu %s", m->r.n_a, m->r.n_a == 1 ? "pair" : "pairs");
	else
		strbuf_addf(sb, "%zu + %zu runs", m->r.n_a, m->r.n_b);
}

const char *report_side_name(char side)
{
	return side == 'A' ? "baseline" : "target";
}

const char *report_known_direction(const struct metric_outcome *m)
{
	bool up;
	if (!m->measured || m->r.verdict != VERDICT_UNDECIDED || !isfinite(m->r.ci_lo) ||
	    !isfinite(m->r.ci_hi) || (m->r.ci_lo <= 1 && m->r.ci_hi >= 1))
		return NULL;
	up = m->r.ci_lo > 1;
	if (m->def->unit == UNIT_SECONDS)
		return up ? "slower" : "faster";
	return up ? "higher" : "lower";
}

void report_undecided_note(struct strbuf *sb, const struct metric_outcome *m)
{
	const char *dir = report_known_direction(m);
	if (dir)
		strbuf_addf(sb, " (%s: %+.1f%% to %+.1f%%)", dir, 100.0 * (m->r.ci_lo - 1),
			    100.0 * (m->r.ci_hi - 1));
}

const char *report_same_code_changed(const struct bench_outcome *b)
{
	size_t j;
	if (b->same_code != SAME_CODE_IDENTICAL)
		return NULL;
	for (j = 0; j < b->nr_metrics; j++) {
		const struct metric_outcome *m = &b->metrics[j];
		if (m->measured &&
		    (m->r.verdict == VERDICT_WORSE || m->r.verdict == VERDICT_BETTER))
			return m->def->name;
	}
	return NULL;
}

void report_changed_fn_name(struct strbuf *sb, const struct changed_fn *c)
{
	if (c->old_name)
		strbuf_addf(sb, "%s -> ", c->old_name);
	strbuf_addstr(sb, c->name);
}

void report_changed_fn_insns(struct strbuf *sb, const struct changed_fn *c)
{
	int64_t n[2];
	for (int side = 0; side < 2; side++) {
		n[side] = c->insns[side] < 0 ? 0 : c->insns[side];
		if (c->insns[side] < 0)
			strbuf_addch(sb, '-');
		else
			strbuf_addf(sb, "%lld", (long long)c->insns[side]);
		strbuf_addstr(sb, side ? " insns" : " -> ");
	}
	strbuf_addf(sb, " (%+lld)", (long long)(n[1] - n[0]));
}

const char *report_unmeasured_reason(const struct metric_outcome *m)
{
	if (m->unmeasured)
		return m->unmeasured;
	return m->r.n_a + m->r.n_b ? "fewer than 2 values on a side" : "no values";
}

void report_failed_run(struct strbuf *sb, const struct store_run_issue *r)
{
	strbuf_addf(sb, "%s%s run %s", report_side_name(r->side), r->warmup ? " warm-up" : "",
		    run_status_name(r->status));
	if (r->detail && *r->detail)
		strbuf_addf(sb, " (%s)", r->detail);
	if (r->log_path)
		strbuf_addf(sb, ", log %s from byte %lld", r->log_path, (long long)r->log_offset);
}

void report_headline(struct strbuf *sb, const struct compare_result *res)
{
	size_t worse = 0, better = 0, equal = 0, undecided = 0;
	size_t unmeasured = 0, broken = 0, not_compared = 0, other_worse = 0, other_better = 0;

	for (size_t i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		broken += b->target_broken;
		not_compared += b->error && !b->target_broken;
		for (size_t j = 0; j < b->nr_metrics; j++) {
			const struct metric_outcome *m = &b->metrics[j];
			/* as the text summary: the primary metrics decide; the others' changes
			 * are said apart, never hidden */
			if (!m->primary) {
				other_worse += m->measured && m->r.verdict == VERDICT_WORSE;
				other_better += m->measured && m->r.verdict == VERDICT_BETTER;
				continue;
			}
			if (!m->measured) {
				unmeasured++;
				continue;
			}
			switch (m->r.verdict) {
			case VERDICT_WORSE: worse++; break;
			case VERDICT_BETTER: better++; break;
			case VERDICT_EQUAL: equal++; break;
			default: undecided++; break;
			}
		}
	}
	units_count_add(sb, worse, "regression", "regressions");
	strbuf_addstr(sb, ", ");
	units_count_add(sb, better, "improvement", "improvements");
	strbuf_addf(sb, ", %zu unchanged", equal);
	if (undecided)
		strbuf_addf(sb, ", %zu undecided", undecided);
	if (unmeasured)
		strbuf_addf(sb, ", %zu unmeasured", unmeasured);
	if (broken)
		strbuf_addf(sb, ", %zu %s broken in the target", broken,
			    units_noun(broken, "benchmark", "benchmarks"));
	if (not_compared)
		strbuf_addf(sb, ", %zu %s not compared", not_compared,
			    units_noun(not_compared, "benchmark", "benchmarks"));
	if (other_worse || other_better) {
		strbuf_addstr(sb, "; other metrics: ");
		if (other_worse)
			units_count_add(sb, other_worse, "regression", "regressions");
		if (other_worse && other_better)
			strbuf_addstr(sb, ", ");
		if (other_better)
			units_count_add(sb, other_better, "improvement", "improvements");
	}
}

bool report_reused_runs(const struct compare_result *res)
{
	for (size_t i = 0; i < res->nr_benches; i++)
		if (res->benches[i].reused_a || res->benches[i].reused_b)
			return true;
	return false;
}
