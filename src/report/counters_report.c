/* The summary of one sampled run (report/counters_report.h). */
#include "report/counters_report.h"

#include <jansson.h>
#include <math.h>

#include "analysis/stats.h"
#include "util/common.h"
#include "util/json_real.h"

void counters_report_summary(FILE *f, const struct run_samples *rs, const struct proc_result *res,
			     const char *command, const char *csv, bool json)
{
	json_t *root = json ? json_object() : NULL, *arr = json ? json_array() : NULL;

	if (json) {
		json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
		json_object_set_new(root, "schema", json_string("revperf-profile/1"));
		json_object_set_new(root, "command", json_string(command));
		json_object_set_new(root, "status", json_string(run_status_name(res->status)));
		json_object_set_new(root, "wall_s", json_real((double)res->m.wall_ns / 1e9));
		json_object_set_new(root, "interval_s", json_real_or_null(rs->interval_s));
		json_object_set_new(root, "csv", csv ? json_string(csv) : json_null());
	} else {
		fprintf_printable(f, "%s: %s, %.3f s wall, sampled every %.0f ms\n", command,
				  res->status == RUN_OK ? "exit 0" : res->detail,
				  (double)res->m.wall_ns / 1e9, rs->interval_s * 1000);
		if (csv)
			fprintf_printable(f, "series: %s\n", csv);
		fprintf_printable(f, "  %-24s %-10s %7s %12s %12s %12s %12s\n", "counter", "unit",
				  "samples", "min", "median", "mean", "max");
	}
	for (size_t i = 0; i < rs->nr; i++) {
		const struct sample_series *s = &rs->series[i];
		double q = NAN, mean = s->n ? stats_mean(s->v, s->n) : NAN, lo = NAN, hi = NAN;
		for (size_t k = 0; k < s->n; k++) {
			if (!k || s->v[k] < lo)
				lo = s->v[k];
			if (!k || s->v[k] > hi)
				hi = s->v[k];
		}
		if (s->n)
			q = stats_percentile(s->v, s->n, 50);
		if (json) {
			json_array_append_new(
			    arr, json_pack("{s:s, s:s?, s:I, s:f, s:f, s:f, s:f}", "counter", s->name,
					   "unit", s->unit, "samples", (json_int_t)s->n, "min",
					   s->n ? lo : 0.0, "median", s->n ? q : 0.0, "mean",
					   s->n ? mean : 0.0, "max", s->n ? hi : 0.0));
			continue;
		}
		fprintf_printable(f, "  %-24s %-10s %7zu %12.4g %12.4g %12.4g %12.4g\n", s->name,
				  s->unit ? s->unit : "", s->n, lo, q, mean, hi);
	}
	if (json) {
		json_object_set_new(root, "counters", arr);
		json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		fputc('\n', f);
		json_decref(root);
	}
}
