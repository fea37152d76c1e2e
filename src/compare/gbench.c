/* Google Benchmark programs (format = gbench): discovery, one benchmark per case, values. */
#include "compare/gbench.h"

#include <stdio.h>
#include <string.h>

#include "analysis/stats.h"
#include "collect/cmdline.h"
#include "collect/proc.h"
#include "util/fsutil.h"
#include "util/common.h"

/* Timeout of the discovery run when the benchmark sets none. */
#define DISCOVERY_TIMEOUT_NS (600LL * 1000000000LL)

/*
 * The discovery run of a Google Benchmark binary: once, in the target's worktree, every
 * case with one repetition, to learn the cases and their metrics (real_time, cpu_time,
 * user counters). Returns 0, or RP_EINPUT with an error naming the log.
 */
int gbench_discover(const struct compare_request *req, const struct bench_config *b,
			   int64_t comparison_id, struct import_set *cases)
{
	struct strbuf dir = STRBUF_INIT, out = STRBUF_INIT, log = STRBUF_INIT, cmd = STRBUF_INIT;
	struct proc_spec spec = { 0 };
	struct proc_result res;
	int ret = RP_EINTERNAL;
	strbuf_addf(&dir, "%s/%lld", req->sd->run_logs, (long long)comparison_id);
	if (mkdir_own(req->sd->root, dir.buf))
		goto out;
	strbuf_addf(&out, "%s/discovery-%zu.json", dir.buf, (size_t)(b - req->cfg->benches));
	strbuf_addf(&log, "%s/discovery-%zu.log", dir.buf, (size_t)(b - req->cfg->benches));
	strbuf_addf(&cmd, "%s --benchmark_repetitions=1 --benchmark_out=", b->command);
	cmdline_add_shell_quoted(&cmd, out.buf);
	strbuf_addstr(&cmd, " --benchmark_out_format=json");
	spec.command = cmd.buf;
	spec.cwd = req->b.cwd;
	spec.log_path = log.buf;
	spec.log_limit_bytes = b->log_limit_bytes;
	spec.timeout_ns = b->timeout_ns ? b->timeout_ns : DISCOVERY_TIMEOUT_NS;
	if (proc_run(&spec, &res) || store_check_files(req->st, "the discovery run of a gbench "
							       "benchmark"))
		goto out;
	ret = RP_EINPUT;
	if (res.status != RUN_OK) {
		error("benchmark '%s' (format = gbench): the discovery run failed (%s); see %s",
		      b->name, res.detail, log.buf);
		goto out;
	}
	if (!path_exists(out.buf)) {
		error("benchmark '%s' (format = gbench): the discovery run wrote no "
		      "--benchmark_out file; is '%s' a Google Benchmark binary? see %s",
		      b->name, b->command, log.buf);
		goto out;
	}
	if (import_read_file(out.buf, cases))
		goto out;
	if (!cases->nr_benches) {
		error("benchmark '%s' (format = gbench): the binary ran no benchmark case; see %s",
		      b->name, log.buf);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&dir);
	strbuf_release(&out);
	strbuf_release(&log);
	strbuf_release(&cmd);
	return ret;
}

/*
 * The revperf benchmark of one gbench case: the parent's options, the name PARENT/CASE,
 * the command restricted to the case, and the case's metrics (handed to res). Release the
 * returned name and command with gbench_case_release().
 */
void gbench_case_init(struct bench_config *cb, const struct bench_config *parent,
			     const struct import_bench *ib, struct compare_result *res)
{
	struct strbuf name = STRBUF_INIT, cmd = STRBUF_INIT, re = STRBUF_INIT;
	const struct metric_def **defs = xcalloc(ib->nr_metrics + 1, sizeof(*defs));
	const char *p;
	size_t i;
	*cb = *parent; /* shallow: only name, command, primary and case_defs differ */
	strbuf_addf(&name, "%s/%s", parent->name, ib->name);
	strbuf_addch(&re, '^');
	for (p = ib->name; *p; p++) {
		if (strchr("\\^$.|?*+()[]{}", *p))
			strbuf_addch(&re, '\\');
		strbuf_addch(&re, *p);
	}
	strbuf_addch(&re, '$');
	strbuf_addf(&cmd, "%s --benchmark_filter=", parent->command);
	cmdline_add_shell_quoted(&cmd, re.buf);
	for (i = 0; i < ib->nr_metrics; i++) {
		const struct metric_def *d = ib->metrics[i].def;
		struct metric_def *own =
			metric_def_new(d->name, d->unit, d->unit_label, d->direction, d->help);
		compare_result_own_def(res, own);
		defs[i] = own;
	}
	cb->name = strbuf_detach(&name);
	cb->command = strbuf_detach(&cmd);
	cb->case_defs = defs;
	cb->nr_case_defs = ib->nr_metrics;
	if (!parent->primary_origin[0])
		cb->primary = (char *)"real_time"; /* gbench's own measure, unless set */
	strbuf_release(&re);
}

void gbench_case_release(struct bench_config *cb)
{
	free(cb->name);
	free(cb->command);
	free(cb->case_defs);
}

/*
 * A gbench case's values from the JSON its run wrote: for each of the case's metrics the
 * mean over the run's repetitions. Missing values become notes, never zeros.
 */
void gbench_values(const struct bench_config *b, const char *path, const char **names,
			  double *values, size_t *nv, struct strbuf *note)
{
	struct import_set set;
	size_t i, j;
	memset(&set, 0, sizeof(set));
	if (import_read_file(path, &set) || set.nr_benches != 1) {
		strbuf_addf(note, "%sno Google Benchmark result for this case in %s",
			    note->len ? "; " : "", path);
		import_set_release(&set);
		return;
	}
	for (i = 0; i < b->nr_case_defs; i++) {
		const struct import_metric *m = NULL;
		for (j = 0; j < set.benches[0].nr_metrics; j++)
			if (!strcmp(set.benches[0].metrics[j].def->name, b->case_defs[i]->name))
				m = &set.benches[0].metrics[j];
		if (!m || !m->n) {
			strbuf_addf(note, "%sno %s in the Google Benchmark output",
				    note->len ? "; " : "", b->case_defs[i]->name);
			continue;
		}
		names[*nv] = b->case_defs[i]->name;
		values[(*nv)++] = stats_mean(m->values, m->n);
	}
	import_set_release(&set);
}

