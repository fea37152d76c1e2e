/*
 * The store queries of the measured history (history/history_data.h): a few set-based
 * queries whose rows history_data.c turns into commits, series and pages, so that a
 * history of 1,000 commits costs a handful of statements, not one per commit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_history.h"
#include "store/store.h"
#include "store/store_impl.h"
#include "util/common.h"

#define column_real store_column_real

/* A copy of column i; "" when it is NULL. */
static char *column_str(struct db_stmt *stmt, int i)
{
	char *s = store_column_dup(stmt, i);
	return s ? s : xstrdup("");
}

/* Finalizes a statement stepped to rc: 0 at its end, else RP_EINTERNAL after an error. */
static int finish(struct store *st, struct db_stmt *stmt, int rc, const char *what)
{
	int ret = rc == DB_DONE ? 0 : store_db_error(st, what);
	db_finalize(stmt);
	return ret;
}

static int cmp_bench_id(const void *a, const void *b)
{
	const struct history_bench_id *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

int store_history_benches(struct store *st, struct history *h, struct history_bench_id **ids,
			  size_t *nr)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT id, name FROM benchmarks ORDER BY name, id");
	size_t alloc = 0;
	int rc;

	*ids = NULL;
	*nr = 0;
	if (!stmt)
		return RP_EINTERNAL;
	while ((rc = db_step(stmt)) == DB_ROW) {
		const char *name = db_column_text(stmt, 1);
		if (!name)
			name = "";
		if (!h->nr_benches || strcmp(h->benches[h->nr_benches - 1].name, name)) {
			ALLOC_GROW(h->benches, h->nr_benches + 1, h->alloc_benches);
			memset(&h->benches[h->nr_benches], 0, sizeof(h->benches[0]));
			h->benches[h->nr_benches++].name = xstrdup(name);
		}
		ALLOC_GROW(*ids, *nr + 1, alloc);
		(*ids)[*nr].id = db_column_int64(stmt, 0);
		(*ids)[(*nr)++].bench = h->nr_benches - 1;
	}
	if (*nr)
		qsort(*ids, *nr, sizeof(**ids), cmp_bench_id);
	return finish(st, stmt, rc, "cannot read the benchmarks");
}

/*
 * The runs a machine or a build has: the timing runs and the counted runs under valgrind
 * (profiles of kind vg-ir or vg-cache), which are a benchmark's only runs when its metrics
 * are all counted (compare makes no timing run then).
 */
#define COUNTED_KINDS_SQL "('vg-ir', 'vg-cache')"
#define MACHINE_RUNS_SQL                                                                           \
	" (SELECT machine_id FROM runs UNION ALL SELECT machine_id FROM profiles"                  \
	" WHERE kind IN " COUNTED_KINDS_SQL ") a"

int store_history_machine_names(struct store *st, char ***names, size_t *n)
{
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT m.hostname FROM (SELECT machine_id, count(*) AS n FROM" MACHINE_RUNS_SQL
		" GROUP BY machine_id) c JOIN machines m ON m.id = c.machine_id"
		" ORDER BY n DESC, m.id");
	size_t alloc = 0;
	int rc;

	*names = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	while ((rc = db_step(stmt)) == DB_ROW) {
		ALLOC_GROW(*names, *n + 1, alloc);
		(*names)[(*n)++] = column_str(stmt, 0);
	}
	return finish(st, stmt, rc, "cannot read the machines");
}

int store_history_machine(struct store *st, struct history *h, const char *name)
{
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT m.id, m.hostname, m.cpu_model, m.cores, m.kernel, m.governor, n FROM"
		" (SELECT machine_id, count(*) AS n FROM" MACHINE_RUNS_SQL " GROUP BY machine_id) c"
		" JOIN machines m ON m.id = c.machine_id"
		" ORDER BY CASE WHEN m.hostname = ?1 THEN 0 ELSE 1 END, n DESC, m.id");
	struct strbuf others = STRBUF_INIT;
	int rc;

	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, name ? name : "");
	while ((rc = db_step(stmt)) == DB_ROW) {
		size_t n = (size_t)db_column_int64(stmt, 6);
		const char *host = db_column_text(stmt, 1);
		h->nr_machines++;
		if (h->has_machine || (name && strcmp(host ? host : "", name))) {
			h->other_machine_runs += n;
			strbuf_addf(&others, "%s%s", others.len ? ", " : "", host ? host : "?");
			continue;
		}
		h->has_machine = true;
		h->machine_named = name != NULL;
		h->machine.id = db_column_int64(stmt, 0);
		h->machine.hostname = column_str(stmt, 1);
		h->machine.cpu_model = column_str(stmt, 2);
		h->machine.cores = db_column_int(stmt, 3);
		h->machine.kernel = column_str(stmt, 4);
		h->machine.governor = column_str(stmt, 5);
		h->machine.nr_runs = n;
	}
	rc = finish(st, stmt, rc, "cannot read the machines");
	if (!rc && name && !h->has_machine) {
		error("no runs measured on machine '%s' in %s; machines with runs: %s", name,
		      st->path, others.len ? others.buf : "none");
		rc = RP_EINPUT;
	}
	strbuf_release(&others);
	return rc;
}

int store_history_commits(struct store *st, struct history *h)
{
	/* Per revision, its main builds best first: most runs here (timing and counted), a
	 * failed one, newest. */
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT v.id, v.sha, v.summary, v.commit_time, b.id, b.status, b.log_path,"
		" (SELECT count(*) FROM runs r WHERE r.build_id = b.id AND r.machine_id = ?1"
		" AND r.warmup = 0) + (SELECT count(*) FROM profiles p WHERE p.build_id = b.id"
		" AND p.machine_id = ?1 AND p.kind IN " COUNTED_KINDS_SQL
		") AS n, EXISTS (SELECT 1 FROM build_logs l WHERE"
		" l.build_id = b.id), b.command FROM revisions v"
		" JOIN builds b ON b.revision_id = v.id AND b.variant = ''"
		" ORDER BY v.commit_time, v.id, n DESC,"
		" b.status = 'failed' DESC, b.id DESC");
	int64_t last_rev = 0;
	int rc;

	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, h->has_machine ? h->machine.id : 0);
	while ((rc = db_step(stmt)) == DB_ROW) {
		int64_t rev = db_column_int64(stmt, 0);
		const char *status = db_column_text(stmt, 5);
		bool failed = status && !strcmp(status, "failed");
		struct history_commit *c;

		if (rev == last_rev)
			continue; /* not the best build of the revision */
		last_rev = rev;
		if (db_column_int64(stmt, 7) == 0 && !failed)
			continue;
		ALLOC_GROW(h->commits, h->nr_commits + 1, h->alloc_commits);
		c = &h->commits[h->nr_commits++];
		memset(c, 0, sizeof(*c));
		c->revision_id = rev;
		c->sha = column_str(stmt, 1);
		c->summary = column_str(stmt, 2);
		c->commit_time = db_column_int64(stmt, 3);
		c->build_id = db_column_int64(stmt, 4);
		c->build_failed = failed;
		c->build_command = column_str(stmt, 9);
		c->build_log = store_column_dup(stmt, 6);
		c->build_log_stored = db_column_int(stmt, 8) != 0;
		c->comparison = HISTORY_NONE;
	}
	return finish(st, stmt, rc, "cannot read the measured commits");
}

int store_history_values(struct store *st, const struct history *h,
			 int (*fn)(void *ctx, const struct history_value_row *row), void *ctx)
{
	/* One row per metric value of a successful run, one per failed run (metric NULL). */
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT r.build_id, r.benchmark_id, r.status, mv.metric, mv.value, r.started_at"
		" FROM runs r"
		" LEFT JOIN metric_values mv ON mv.run_id = r.id AND r.status = 'ok'"
		" WHERE r.machine_id = ?1 AND r.warmup = 0"
		/* counted metrics (ir, sim-cycles): one row per value of a successful counted run */
		" UNION ALL SELECT p.build_id, p.benchmark_id, p.status, pv.metric, pv.value,"
		" p.started_at FROM profiles p JOIN profile_values pv ON pv.profile_id = p.id"
		" WHERE p.machine_id = ?1 AND p.status = 'ok' AND p.kind IN ('vg-ir', 'vg-cache')");
	struct history_value_row row;
	int rc, ret = 0;

	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, h->has_machine ? h->machine.id : 0);
	db_stream(stmt); /* 300,000 rows for 1,000 commits x 10 benchmarks; fn reads no table */
	while ((rc = db_step(stmt)) == DB_ROW) {
		row.build_id = db_column_int64(stmt, 0);
		row.benchmark_id = db_column_int64(stmt, 1);
		row.status = run_status_parse(db_column_text(stmt, 2));
		row.metric = db_column_text(stmt, 3);
		row.value = column_real(stmt, 4);
		row.started_at = db_column_int64(stmt, 5);
		if (row.status == RUN_OK && !row.metric)
			continue; /* a successful run without values */
		if ((ret = fn(ctx, &row)))
			break;
	}
	if (ret) {
		db_finalize(stmt);
		return ret;
	}
	return finish(st, stmt, rc, "cannot read the runs");
}

int store_history_io(struct store *st, struct history *h)
{
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT build_id, benchmark_id, machine_id, path FROM profiles"
		" WHERE kind = 'io' AND status = 'ok' ORDER BY build_id, benchmark_id, id");
	int rc;

	if (!stmt)
		return RP_EINTERNAL;
	while ((rc = db_step(stmt)) == DB_ROW) {
		struct history_io_profile *p;
		ALLOC_GROW(h->io, h->nr_io + 1, h->alloc_io);
		p = &h->io[h->nr_io++];
		memset(p, 0, sizeof(*p));
		p->build_id = db_column_int64(stmt, 0);
		p->benchmark_id = db_column_int64(stmt, 1);
		p->machine_id = db_column_int64(stmt, 2);
		p->path = column_str(stmt, 3);
		p->bench = HISTORY_NONE;
	}
	return finish(st, stmt, rc, "cannot read the I/O profiles");
}

/* The newest finished comparison of each target build on each machine (schema 13 records
 * it; NULL before, one group): the history's machine picks among them (keep_machine()). */
#define CHOSEN_SQL                                                                         \
	" (SELECT max(id) FROM comparisons WHERE status = 'done' GROUP BY target_build,"       \
	" machine_id)"

static struct history_comparison *find_comparison(struct history *h, int64_t id)
{
	size_t lo = 0, hi = h->nr_comparisons;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->comparisons[mid].id == id)
			return &h->comparisons[mid];
		if (h->comparisons[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The chosen comparison of a target build (comparisons sorted by target build here). */
static struct history_comparison *find_by_target(struct history_comparison **by_target, size_t n,
						 int64_t build)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by_target[mid]->target_build == build)
			return by_target[mid];
		if (by_target[mid]->target_build < build)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_target(const void *a, const void *b)
{
	const struct history_comparison *x = *(const struct history_comparison *const *)a;
	const struct history_comparison *y = *(const struct history_comparison *const *)b;
	return (x->target_build > y->target_build) - (x->target_build < y->target_build);
}

/* A pooled copy of s (log paths repeat for every run of a side). */
static const char *pool_str(struct history *h, const char *s)
{
	if (!s)
		return NULL;
	/* The runs of a comparison alternate between a few logs: the last few suffice. */
	for (size_t i = h->nr_strings, k = 0; i > 0 && k < 8; i--, k++)
		if (!strcmp(h->strings[i - 1], s))
			return h->strings[i - 1];
	ALLOC_GROW(h->strings, h->nr_strings + 1, h->alloc_strings);
	h->strings[h->nr_strings] = xstrdup(s);
	return h->strings[h->nr_strings++];
}

#define CHOSEN_ROWS_SQL                                                                    \
	"SELECT c.id, c.base_build, c.target_build, c.base_label, c.target_label,"              \
	" c.created_at, v.sha, c.machine_id FROM comparisons c LEFT JOIN builds b ON b.id ="     \
	" c.base_build LEFT JOIN revisions v ON v.id = b.revision_id WHERE c.id IN" CHOSEN_SQL   \
	" ORDER BY c.id"
#define VERDICTS_SQL                                                                       \
	"SELECT comparison_id, benchmark_id, metric, is_primary, verdict, ratio, ci_lo, ci_hi,"  \
	" p, n_a, n_b FROM verdicts WHERE comparison_id IN" CHOSEN_SQL
/* Every run made by a comparison; kept when it belongs to the pair of a chosen one. */
#define RUNS_SQL                                                                           \
	"SELECT r.comparison_id, r.id, c.base_build, c.target_build, r.benchmark_id,"           \
	" r.machine_id, r.side, r.warmup, r.status, r.exit_code, r.signal, r.detail,"          \
	" r.log_path, r.log_offset, r.log_length, mv.value FROM runs r JOIN comparisons c"     \
	" ON c.id = r.comparison_id LEFT JOIN metric_values mv ON mv.run_id = r.id AND"        \
	" mv.metric = 'wall' ORDER BY r.id"

void store_history_prefetch_end(struct store *st)
{
	db_finalize(st->history_chosen);
	db_finalize(st->history_verdicts);
	db_finalize(st->history_runs);
	st->history_chosen = st->history_verdicts = st->history_runs = NULL;
}

void store_history_prefetch(struct store *st)
{
	store_history_prefetch_end(st);
	st->history_chosen = store_prepare(st, CHOSEN_ROWS_SQL);
	st->history_verdicts = store_prepare(st, VERDICTS_SQL);
	st->history_runs = store_prepare(st, RUNS_SQL);
	if (st->history_chosen && st->history_verdicts && st->history_runs) {
		/* in this order: what the comparisons chosen are, their rows are too */
		struct db_stmt *all[] = {st->history_chosen, st->history_verdicts, st->history_runs};
		db_prefetch(all, ARRAY_SIZE(all));
	}
}

/* The statement store_history_prefetch() started (now the caller's), else a new one. */
static struct db_stmt *take(struct store *st, struct db_stmt **started, const char *sql)
{
	struct db_stmt *stmt = *started;
	*started = NULL;
	return stmt ? stmt : store_prepare(st, sql);
}

static int load_chosen(struct store *st, struct history *h)
{
	struct db_stmt *stmt = take(st, &st->history_chosen, CHOSEN_ROWS_SQL);
	int rc;

	if (!stmt)
		return RP_EINTERNAL;
	while ((rc = db_step(stmt)) == DB_ROW) {
		struct history_comparison *c;
		ALLOC_GROW(h->comparisons, h->nr_comparisons + 1, h->alloc_comparisons);
		c = &h->comparisons[h->nr_comparisons++];
		memset(c, 0, sizeof(*c));
		c->id = db_column_int64(stmt, 0);
		c->base_build = db_column_int64(stmt, 1);
		c->target_build = db_column_int64(stmt, 2);
		c->base_label = column_str(stmt, 3);
		c->target_label = column_str(stmt, 4);
		c->created_at = db_column_int64(stmt, 5);
		c->base_sha = store_column_dup(stmt, 6);
		c->machine_id = db_column_null(stmt, 7) ? 0 : db_column_int64(stmt, 7);
		c->recorded_machine = c->machine_id != 0;
		c->commit = c->base_commit = HISTORY_NONE;
	}
	return finish(st, stmt, rc, "cannot read the comparisons");
}

static void chosen_release(struct history_comparison *c)
{
	free(c->base_label);
	free(c->target_label);
	free(c->base_sha);
}

static int cmp_id(const void *a, const void *b)
{
	const struct history_comparison *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_target_id(const void *a, const void *b)
{
	const struct history_comparison *x = a, *y = b;
	if (x->target_build != y->target_build)
		return (x->target_build > y->target_build) - (x->target_build < y->target_build);
	return (x->id > y->id) - (x->id < y->id);
}

/*
 * One comparison per target build: the newest of those made on the history's machine, or
 * that recorded none (made before schema 13). Another machine's comparison is not this
 * machine's verdict: on a store shared by machines it used to be shown when it was newer.
 */
static void keep_machine(struct history *h)
{
	size_t kept = 0;
	if (!h->nr_comparisons)
		return;
	qsort(h->comparisons, h->nr_comparisons, sizeof(*h->comparisons), cmp_target_id);
	for (size_t i = 0; i < h->nr_comparisons; i++) {
		struct history_comparison *c = &h->comparisons[i];
		if (h->has_machine && c->recorded_machine && c->machine_id != h->machine.id) {
			chosen_release(c);
			continue;
		}
		if (kept && h->comparisons[kept - 1].target_build == c->target_build)
			chosen_release(&h->comparisons[--kept]); /* an older one of this build */
		h->comparisons[kept++] = *c;
	}
	h->nr_comparisons = kept;
	/* by id again, as they were read (find_comparison() searches by id) */
	qsort(h->comparisons, kept, sizeof(*h->comparisons), cmp_id);
}

static int load_verdicts(struct store *st, struct history *h)
{
	struct db_stmt *stmt = take(st, &st->history_verdicts, VERDICTS_SQL);
	int rc;

	if (!stmt)
		return RP_EINTERNAL;
	while ((rc = db_step(stmt)) == DB_ROW) {
		struct history_comparison *c = find_comparison(h, db_column_int64(stmt, 0));
		struct history_verdict *v;
		if (!c)
			continue;
		c->verdicts = xrealloc(c->verdicts, (c->nr_verdicts + 1) * sizeof(*c->verdicts));
		v = &c->verdicts[c->nr_verdicts++];
		memset(v, 0, sizeof(*v));
		v->benchmark_id = db_column_int64(stmt, 1);
		v->bench = HISTORY_NONE;
		v->metric = column_str(stmt, 2);
		v->primary = db_column_int(stmt, 3) != 0;
		v->verdict = column_str(stmt, 4);
		v->ratio = column_real(stmt, 5);
		v->ci_lo = column_real(stmt, 6);
		v->ci_hi = column_real(stmt, 7);
		v->p = column_real(stmt, 8);
		v->n_a = (size_t)db_column_int64(stmt, 9);
		v->n_b = (size_t)db_column_int64(stmt, 10);
	}
	return finish(st, stmt, rc, "cannot read the verdicts");
}

static void add_run(struct history *h, struct history_comparison *c, struct db_stmt *stmt)
{
	struct history_run *r;
	if ((c->nr_runs & (c->nr_runs - 1)) == 0) /* capacity: powers of two */
		c->runs = xrealloc(
		    c->runs, xmallocarray_size(c->nr_runs ? 2 * c->nr_runs : 1, sizeof(*c->runs)));
	r = &c->runs[c->nr_runs++];
	memset(r, 0, sizeof(*r));
	r->id = db_column_int64(stmt, 1);
	r->comparison_id = db_column_int64(stmt, 0);
	r->benchmark_id = db_column_int64(stmt, 4);
	r->bench = HISTORY_NONE;
	r->machine_id = db_column_int64(stmt, 5);
	r->side = db_column_text(stmt, 6)
		      ? *db_column_text(stmt, 6)
		      : 'A';
	r->warmup = db_column_int(stmt, 7) != 0;
	r->status = run_status_parse(db_column_text(stmt, 8));
	r->exit_code = db_column_int(stmt, 9);
	r->signal = db_column_int(stmt, 10);
	r->detail = store_column_dup(stmt, 11);
	r->log_path = pool_str(h, db_column_text(stmt, 12));
	r->log_offset = db_column_int64(stmt, 13);
	r->log_length = db_column_int64(stmt, 14);
	r->wall = column_real(stmt, 15);
	if (!c->machine_id)
		c->machine_id = r->machine_id;
}

/* Whether a run belongs with comparison c: the runs of its pair on its machine, when it
 * recorded one; any machine's before schema 13, as before. */
static bool run_of_machine(const struct history_comparison *c, struct db_stmt *stmt)
{
	return !c->recorded_machine || db_column_int64(stmt, 5) == c->machine_id;
}

static int load_runs(struct store *st, struct history *h)
{
	struct db_stmt *stmt = take(st, &st->history_runs, RUNS_SQL);
	struct history_comparison **by_target;
	int rc;

	if (!stmt)
		return RP_EINTERNAL;
	by_target = xmallocarray(h->nr_comparisons ? h->nr_comparisons : 1, sizeof(*by_target));
	for (size_t i = 0; i < h->nr_comparisons; i++)
		by_target[i] = &h->comparisons[i];
	qsort(by_target, h->nr_comparisons, sizeof(*by_target), cmp_target);
	while ((rc = db_step(stmt)) == DB_ROW) {
		struct history_comparison *c =
		    find_by_target(by_target, h->nr_comparisons, db_column_int64(stmt, 3));
		if (!c || c->base_build != db_column_int64(stmt, 2) ||
		    db_column_int64(stmt, 0) > c->id || !run_of_machine(c, stmt))
			continue;
		add_run(h, c, stmt);
	}
	free(by_target);
	return finish(st, stmt, rc, "cannot read the runs of the comparisons");
}

int store_history_comparisons(struct store *st, struct history *h)
{
	int ret;
	if ((ret = load_chosen(st, h)))
		return ret;
	keep_machine(h);
	if ((ret = load_verdicts(st, h)))
		return ret;
	return load_runs(st, h);
}
