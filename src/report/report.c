#include "report/report.h"

#include <math.h>
#include <string.h>

#include "util/common.h"

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
