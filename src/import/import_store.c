/* Imported results stored as a revision's results (import_store.h, docs/import.md). */
#include "import/import_store.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/common.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The runs of one bench: its samples as rows of a samples x metrics matrix. */
static int store_bench(struct store *st, const struct import_bench *b, const char *command,
		       struct store_run *tmpl, size_t *nr_runs)
{
	const char **names = xcalloc(b->nr_metrics ? b->nr_metrics : 1, sizeof(*names));
	double *values = xmallocarray(xmallocarray_size(b->nr_samples ? b->nr_samples : 1,
							b->nr_metrics ? b->nr_metrics : 1),
				      sizeof(*values));
	size_t i, k;
	int ret;

	for (k = 0; k < b->nr_metrics; k++)
		names[k] = b->metrics[k].def->name;
	for (i = 0; i < b->nr_samples; i++)
		for (k = 0; k < b->nr_metrics; k++)
			values[i * b->nr_metrics + k] =
				i < b->metrics[k].n ? b->metrics[k].values[i] : NAN;
	ret = store_benchmark(st, b->name, command, &tmpl->benchmark_id);
	if (!ret)
		ret = store_import_runs(st, tmpl, names, values, b->nr_metrics, b->nr_samples);
	if (!ret)
		*nr_runs += b->nr_samples;
	free(names);
	free(values);
	return ret;
}

int import_store(struct store *st, const struct revision *rev, const struct import_set *set,
		 const struct machine_info *machine, struct import_store_summary *out)
{
	struct store_build build = { 0 };
	struct store_run tmpl = { 0 };
	struct strbuf build_cmd = STRBUF_INIT, bench_cmd = STRBUF_INIT;
	size_t i;
	int ret = RP_EINTERNAL, found;

	memset(out, 0, sizeof(*out));
	strbuf_addf(&build_cmd, "import:%s:%s", set->source, base_name(set->origin));
	strbuf_addf(&bench_cmd, "import:%s", set->source);
	if (store_transaction_begin(st))
		goto out;
	if (store_revision(st, rev->sha, rev->summary, rev->commit_time, &build.revision_id) ||
	    store_machine(st, machine, &tmpl.machine_id))
		goto out;
	found = store_build_find(st, build.revision_id, build_cmd.buf, NULL, &build);
	if (found < 0)
		goto out;
	out->replaced = found == 0;
	if (found == 0) {
		int64_t revision_id = build.revision_id;
		store_build_release(&build);
		build.revision_id = revision_id;
	}
	build.command = xstrdup(build_cmd.buf);
	snprintf(build.status, sizeof(build.status), "ok");
	if (store_build_save(st, &build) || store_build_runs_delete(st, build.id))
		goto out;
	tmpl.build_id = build.id;
	tmpl.side = 'A';
	tmpl.status = RUN_OK;
	tmpl.started_at = (int64_t)time(NULL);
	tmpl.loadavg = NAN; /* not known: measured elsewhere */
	for (i = 0; i < set->nr_benches; i++) {
		out->nr_excluded += set->benches[i].nr_excluded;
		/* A case whose every repetition failed has nothing to store. */
		if (!set->benches[i].nr_samples)
			continue;
		if (store_bench(st, &set->benches[i], bench_cmd.buf, &tmpl, &out->nr_runs))
			goto out;
		out->nr_benches++;
	}
	if (store_transaction_commit(st))
		goto out;
	out->build_id = build.id;
	ret = 0;
out:
	if (ret)
		store_transaction_rollback(st);
	store_build_release(&build);
	strbuf_release(&build_cmd);
	strbuf_release(&bench_cmd);
	return ret;
}
