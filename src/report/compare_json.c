#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/run_output.h"
#include "report/report.h"
#include "util/common.h"
#include "util/json_real.h"

static const char *unit_name(enum metric_unit u)
{
	switch (u) {
	case UNIT_SECONDS: return "s";
	case UNIT_BYTES: return "bytes";
	default: return "count";
	}
}

/* What each reported metric read in the first run (run_output.h), made printable. */
static json_t *reported_lines_json(const struct bench_outcome *b)
{
	json_t *a = json_array();
	struct strbuf t = STRBUF_INIT, head = STRBUF_INIT;
	for (size_t i = 0; i < b->nr_reported; i++) {
		const struct reported_line *rl = &b->reported[i];
		json_t *o = json_pack("{s:s, s:I, s:s, s:s, s:I}", "metric", rl->metric, "run_id",
				      (json_int_t)rl->run_id, "side", report_side_name(rl->side),
				      "match", rl->mean ? "mean" : "last", "matches",
				      (json_int_t)rl->matches);
		if (rl->line) {
			strbuf_reset(&head);
			strbuf_add(&head, rl->line, rl->value_at);
			json_object_set_new(o, "number_at",
					    json_integer((json_int_t)strlen(
						strbuf_printable(&t, head.buf))));
			strbuf_reset(&head);
			strbuf_add(&head, rl->line + rl->value_at, rl->value_len);
			json_object_set_new(o, "number", json_string(strbuf_printable(&t, head.buf)));
			json_object_set_new(o, "line", json_string(strbuf_printable(&t, rl->line)));
		} else {
			json_object_set_new(o, "number_at", json_null());
			json_object_set_new(o, "number", json_null());
			json_object_set_new(o, "line", json_null());
		}
		json_array_append_new(a, o);
	}
	strbuf_release(&t);
	strbuf_release(&head);
	return a;
}

/* The values of one side, in run order (hyperfine's "times"). */
static json_t *side_values(const struct metric_outcome *m, int side)
{
	json_t *a = json_array();
	for (size_t i = 0; i < m->nr_values[side]; i++)
		json_array_append_new(a, json_real_or_null(m->values[side][i]));
	return a;
}

/* The runs those values came from; null when they are not stored one by one. */
static json_t *side_run_ids(const struct metric_outcome *m, int side)
{
	json_t *a;
	if (!m->run_ids[side])
		return m->nr_values[side] ? json_null() : json_array();
	a = json_array();
	for (size_t i = 0; i < m->nr_values[side]; i++)
		json_array_append_new(a, json_integer((json_int_t)m->run_ids[side][i]));
	return a;
}

/* Every run of one side and how it ended: what a script checks before the values. */
static json_t *run_ends_json(const struct bench_outcome *b, int side)
{
	json_t *a = json_array();
	for (size_t i = 0; i < b->nr_run_ends[side]; i++) {
		const struct store_run_end *r = &b->run_ends[side][i];
		json_array_append_new(
			a, json_pack("{s:I, s:s, s:o, s:o}", "run_id", (json_int_t)r->id, "status",
				     run_status_name(r->status), "exit_code",
				     r->exit_known ? json_integer(r->exit_code) : json_null(),
				     "signal", r->exit_known ? json_integer(r->signal) : json_null()));
	}
	return a;
}

static json_t *metric_json(const struct metric_outcome *m)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(m->def->name));
	if (m->def->unit == UNIT_CUSTOM)
		json_object_set_new(o, "unit", m->def->unit_label ? json_string(m->def->unit_label)
								  : json_null());
	else
		json_object_set_new(o, "unit", json_string(unit_name(m->def->unit)));
	json_object_set_new(o, "direction", json_string(m->def->direction == HIGHER_IS_BETTER
								 ? "higher-is-better"
								 : "lower-is-better"));
	json_object_set_new(o, "primary", json_boolean(m->primary));
	json_object_set_new(o, "verdict",
			    json_string(m->measured ? verdict_name(m->r.verdict) : "unmeasured"));
	json_object_set_new(o, "unmeasured_reason",
			    m->measured ? json_null() : json_string(report_unmeasured_reason(m)));
	json_object_set_new(o, "ratio", json_real_or_null(m->measured ? m->r.ratio : NAN));
	json_object_set_new(o, "ci",
			    json_pack("[o, o]", json_real_or_null(m->measured ? m->r.ci_lo : NAN),
				      json_real_or_null(m->measured ? m->r.ci_hi : NAN)));
	json_object_set_new(o, "method", !m->measured ? json_null()
						   : json_string(verdict_method_name(m->r.method)));
	json_object_set_new(o, "resamples", m->r.resamples ? json_integer((json_int_t)m->r.resamples)
							   : json_null());
	json_object_set_new(o, "reason", m->r.reason ? json_string(m->r.reason) : json_null());
	json_object_set_new(o, "pairs", json_integer((json_int_t)m->n_pairs));
	json_object_set_new(o, "p", json_real_or_null(m->r.p));
	json_object_set_new(o, "p_welch", json_real_or_null(m->r.p_welch));
	json_object_set_new(o, "q_bh", json_real_or_null(m->q_bh));
	json_object_set_new(o, "p_mann_whitney", json_real_or_null(m->r.p_mw));
	json_object_set_new(o, "p_tost", json_real_or_null(m->r.p_tost));
	json_object_set_new(o, "baseline",
			    json_pack("{s:I, s:o, s:o, s:o}", "n", (json_int_t)m->r.n_a, "mean",
				      json_real_or_null(m->r.mean_a), "median",
				      json_real_or_null(m->median[0]), "sd",
				      json_real_or_null(m->r.sd_a)));
	json_object_set_new(o, "target",
			    json_pack("{s:I, s:o, s:o, s:o}", "n", (json_int_t)m->r.n_b, "mean",
				      json_real_or_null(m->r.mean_b), "median",
				      json_real_or_null(m->median[1]), "sd",
				      json_real_or_null(m->r.sd_b)));
	json_object_set_new(o, "values", json_pack("{s:o, s:o}", "baseline", side_values(m, 0),
						   "target", side_values(m, 1)));
	json_object_set_new(o, "run_ids", json_pack("{s:o, s:o}", "baseline", side_run_ids(m, 0),
						    "target", side_run_ids(m, 1)));
	json_object_set_new(o, "zeros", json_boolean(m->r.zeros));
	json_object_set_new(o, "degenerate", json_boolean(m->r.degenerate));
	json_object_set_new(o, "counted", json_boolean(m->def->flags & METRIC_COUNTED));
	/* undecided, but the interval excludes 1: the direction is known, the size is not */
	json_object_set_new(o, "direction_known", report_known_direction(m)
						       ? json_string(report_known_direction(m))
						       : json_null());
	json_object_set_new(o, "deterministic",
			    (m->def->flags & METRIC_COUNT) && m->measured ? json_boolean(m->r.exact)
									  : json_null());
	{
		bool count = (m->def->flags & METRIC_COUNT) && m->measured;
		json_object_set_new(o, "spread",
				    count ? json_pack("[o, o]", json_real_or_null(m->r.spread_a),
						      json_real_or_null(m->r.spread_b))
					  : json_null());
	}
	return o;
}

static json_t *insns_json(int64_t n)
{
	return n < 0 ? json_null() : json_integer((json_int_t)n);
}

/* The binary diff of the benchmark's program, with every function that differs. */
static json_t *same_code_json(const struct bench_outcome *b)
{
	json_t *list;
	if (b->same_code == SAME_CODE_UNKNOWN)
		return json_null();
	list = json_array();
	for (size_t i = 0; i < b->nr_changed; i++) {
		const struct changed_fn *c = &b->changed[i];
		json_array_append_new(
		    list, json_pack("{s:s, s:s, s:s?, s:s?, s:{s:o, s:o}}", "class", c->cls,
				    "name", c->name, "old_name", c->old_name, "only", c->only,
				    "insns", "baseline", insns_json(c->insns[0]), "target",
				    insns_json(c->insns[1])));
	}
	return json_pack("{s:s, s:b, s:I, s:I, s:o}", "program", b->program, "identical",
			 b->same_code == SAME_CODE_IDENTICAL, "functions",
			 (json_int_t)b->functions_total, "changed", (json_int_t)b->functions_changed,
			 "changed_functions", list);
}

static json_t *bench_json(const struct bench_outcome *b)
{
	json_t *o = json_object(), *metrics = json_array(), *failed = json_array();
	size_t i;
	json_object_set_new(o, "name", json_string(b->name));
	json_object_set_new(o, "runs",
			    json_pack("{s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I}}", "baseline", "ok",
				      (json_int_t)b->ok_a, "reused", (json_int_t)b->reused_a,
				      "failed", (json_int_t)b->failed_a, "target", "ok",
				      (json_int_t)b->ok_b, "reused", (json_int_t)b->reused_b,
				      "failed", (json_int_t)b->failed_b));
	json_object_set_new(o, "commands",
			    json_pack("{s:s?, s:s?}", "baseline", b->command[0], "target",
				      b->command[1]));
	json_object_set_new(o, "run_list", json_pack("{s:o, s:o}", "baseline",
						     run_ends_json(b, 0), "target",
						     run_ends_json(b, 1)));
	json_object_set_new(o, "looks", json_integer((json_int_t)b->looks));
	json_object_set_new(o, "decided", json_boolean(b->decided));
	json_object_set_new(o, "tolerance", json_real_or_null(b->tolerance));
	json_object_set_new(o, "ci_level", json_real_or_null(1.0 - b->ci_alpha));
	json_object_set_new(o, "elapsed_s", json_real_or_null(b->elapsed_s));
	json_object_set_new(o, "error", b->error ? json_string(b->error) : json_null());
	json_object_set_new(o, "target_broken", json_boolean(b->target_broken));
	json_object_set_new(o, "counted_only", json_boolean(b->counted_only));
	for (i = 0; i < b->nr_metrics; i++)
		json_array_append_new(metrics, metric_json(&b->metrics[i]));
	json_object_set_new(o, "metrics", metrics);
	for (i = 0; i < b->nr_issues; i++) {
		const struct store_run_issue *r = &b->issues[i];
		json_array_append_new(
			failed, json_pack("{s:I, s:s, s:s, s:i, s:i, s:s?, s:s?, s:I, s:b}", "run_id",
					  (json_int_t)r->id, "side", report_side_name(r->side),
					  "status", run_status_name(r->status), "exit_code",
					  r->exit_code, "signal", r->signal, "detail", r->detail,
					  "log", r->log_path, "log_offset", (json_int_t)r->log_offset,
					  "warmup", r->warmup));
	}
	json_object_set_new(o, "run_issues", failed);
	json_object_set_new(o, "reported_lines", reported_lines_json(b));
	json_object_set_new(o, "attribution",
			    b->cct ? report_attribution_json(b->cct) : json_null());
	json_object_set_new(o, "io", b->io ? report_io_json(b->io) : json_null());
	json_object_set_new(o, "counters",
			    b->counters ? report_counters_json(b->counters) : json_null());
	json_object_set_new(o, "counted", b->counted ? report_counted_json(b) : json_null());
	json_object_set_new(o, "extended_looks", json_integer((json_int_t)b->extended_looks));
	json_object_set_new(o, "pinned", b->pinned[0] ? json_string(b->pinned) : json_null());
	json_object_set_new(o, "quiet", json_pack("{s:I, s:I, s:f}", "pairs_waited",
						  (json_int_t)b->quiet_pairs, "still_busy",
						  (json_int_t)b->noisy_pairs, "waited_s",
						  b->quiet_wait_s));
	json_object_set_new(o, "same_code", same_code_json(b));
	return o;
}

json_t *report_compare_json_object(const struct compare_result *res)
{
	json_t *root = json_object(), *benches = json_array();
	size_t i;
	json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
	json_object_set_new(root, "schema", json_string("revperf-compare/6"));
	json_object_set_new(root, "comparison_id", json_integer((json_int_t)res->comparison_id));
	json_object_set_new(root, "baseline",
			    json_pack("{s:s, s:s?}", "label", res->base_label, "sha",
				      res->base_sha[0] ? res->base_sha : NULL));
	json_object_set_new(root, "target",
			    json_pack("{s:s, s:s?}", "label", res->target_label, "sha",
				      res->target_sha[0] ? res->target_sha : NULL));
	json_object_set_new(root, "same_build", json_boolean(res->same_build));
	json_object_set_new(root, "imported", json_boolean(res->imported));
	json_object_set_new(root, "alpha", json_real_or_null(res->alpha));
	json_object_set_new(root, "seed", json_integer((json_int_t)res->seed));
	json_object_set_new(root, "machine",
			    json_pack("{s:s, s:s, s:i, s:s, s:s}", "hostname",
				      res->machine.hostname, "cpu_model", res->machine.cpu_model,
				      "cores", res->machine.cores, "kernel", res->machine.kernel,
				      "governor", res->machine.governor));
	json_object_set_new(root, "interrupted", json_boolean(res->interrupted));
	json_object_set_new(root, "exit_code", json_integer(res->exit_code));
	for (i = 0; i < res->nr_benches; i++)
		json_array_append_new(benches, bench_json(&res->benches[i]));
	json_object_set_new(root, "benchmarks", benches);
	return root;
}

int report_compare_json(FILE *f, const struct compare_result *res)
{
	json_t *root = report_compare_json_object(res);
	int ret;
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', f);
	json_decref(root);
	return ret ? -1 : 0;
}
