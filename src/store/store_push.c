/*
 * revperf push: the results of one store copied into another (a developer's SQLite file
 * into the team's PostgreSQL database), without duplicates. Rows with a natural key
 * (machines, revisions, benchmarks, builds of a revision, verdicts, dynamic data of a
 * build and benchmark) are found by it; rows without one (comparisons, runs, profiles,
 * builds of the --cmd-a/--cmd-b mode) are recorded in the target's table `pushed` as
 * (the source store's id, kind, the source's row id) -> the target's row id, so that a
 * second push finds them and adds nothing. Comparisons still running are left for a later
 * push, with their runs. The whole push is one transaction of the target: it lands whole
 * or not at all.
 */
#include "store/store.h"
#include "store/store_impl.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/common.h"
#include "util/strbuf.h"

/* Source row id -> target row id, filled in increasing source id (a SELECT ... ORDER BY
 * id), looked up by binary search. */
struct idmap {
	int64_t *from, *to;
	size_t n, alloc, alloc_to;
};

static void idmap_add(struct idmap *m, int64_t from, int64_t to)
{
	ALLOC_GROW(m->from, m->n + 1, m->alloc);
	ALLOC_GROW(m->to, m->n + 1, m->alloc_to);
	m->from[m->n] = from;
	m->to[m->n++] = to;
}

/* The target id of from, or 0 when it has none. */
static int64_t idmap_get(const struct idmap *m, int64_t from)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->from[mid] == from)
			return m->to[mid];
		if (m->from[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void idmap_release(struct idmap *m)
{
	free(m->from);
	free(m->to);
	memset(m, 0, sizeof(*m));
}

/* The most columns a copied row has (verdicts: 22). */
#define MAX_COLUMNS 32

/* The maps from source to target ids, one per table whose ids other rows hold. */
enum { NO_MAP, MACHINES, REVISIONS, BENCHMARKS, BUILDS, COMPARISONS, RUNS, PROFILES, NR_MAPS };
/* The kinds of rows recorded in `pushed`, by map (NULL: found by a natural key). */
static const char *const kind_names[NR_MAPS] = {
    NULL, NULL, NULL, NULL, "build", "comparison", "run", "profile",
};

struct push {
	struct store *from, *to;
	char origin[64];
	struct idmap map[NR_MAPS];
	struct idmap pushed[NR_MAPS]; /* recorded by earlier pushes of this origin */
	struct db_stmt *record;	      /* INSERT INTO pushed */
	struct store_push_stats *stats;
};

/* What earlier pushes of this origin recorded in the target. */
static int load_pushed(struct push *p)
{
	struct db_stmt *stmt = store_prepare(p->to, "SELECT kind, local_id, id FROM pushed"
						    " WHERE origin = ?1 ORDER BY kind, local_id");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, p->origin);
	while ((rc = db_step(stmt)) == DB_ROW) {
		const char *kind = db_column_text(stmt, 0);
		for (size_t k = 0; k < NR_MAPS; k++)
			if (kind && kind_names[k] && !strcmp(kind, kind_names[k]))
				idmap_add(&p->pushed[k], db_column_int64(stmt, 1),
					  db_column_int64(stmt, 2));
	}
	db_finalize(stmt);
	return rc == DB_DONE ? 0 : store_db_error(p->to, "cannot read what was pushed before");
}

static int record(struct push *p, int kind, int64_t from, int64_t to)
{
	idmap_add(&p->map[kind], from, to);
	db_bind_text(p->record, 1, p->origin);
	db_bind_text(p->record, 2, kind_names[kind]);
	db_bind_int64(p->record, 3, from);
	db_bind_int64(p->record, 4, to);
	return store_step_done(p->to, p->record, "cannot record a pushed row");
}

/*
 * Binds column i of src (of type t: 'i' integer, 'r' real, 't' text, 'b' blob) as
 * parameter j of dst, NULL as NULL; an integer through map when map is given. Returns 0,
 * or 1 when the id has no target (the row it points to was not pushed).
 */
static int bind_copy(struct db_stmt *dst, int j, struct db_stmt *src, int i, char t,
		     const struct idmap *map)
{
	size_t len;
	const void *blob;
	if (db_column_null(src, i)) {
		db_bind_null(dst, j);
		return 0;
	}
	switch (t) {
	case 'i':
		if (map && db_column_int64(src, i)) { /* 0: no row (runs_since: every run) */
			int64_t to = idmap_get(map, db_column_int64(src, i));
			if (!to)
				return 1;
			db_bind_int64(dst, j, to);
		} else {
			db_bind_int64(dst, j, db_column_int64(src, i));
		}
		break;
	case 'r':
		db_bind_double(dst, j, db_column_double(src, i));
		break;
	case 'b':
		blob = db_column_blob(src, i, &len);
		db_bind_blob(dst, j, blob, len);
		break;
	default:
		db_bind_text(dst, j, db_column_text(src, i));
		break;
	}
	return 0;
}

/*
 * A table copied the same way. Either its rows have an id of their own (`kind`, a map
 * recorded in `pushed`): a row pushed before is found there and not copied again; or they
 * hang on a row of another table (`kind` NO_MAP, the first column that row's id, refs[0]
 * its map): only the children of rows this push added are copied, the others came with
 * theirs. A row whose id column (refs[k]) points to a row that was not pushed is left for
 * later (a running comparison's).
 */
struct copied_table {
	const char *table;
	const char *columns;		 /* copied, in this order */
	const char *types;		 /* per column: i integer, r real, t text, b blob */
	unsigned char refs[MAX_COLUMNS]; /* per column: the map of an id, or NO_MAP */
	int kind;			 /* the map of the table's own ids, or NO_MAP */
	const char *where;		 /* the rows copied (SQL), or NULL: all */
	bool keep_target;		 /* the target's row, when it has one, stays */
	size_t added, present;		 /* offsets of the counts in store_push_stats */
};

#define STAT(name) offsetof(struct store_push_stats, name)

/* In the order they are copied: a table after those its rows point to. */
static const struct copied_table copied_tables[] = {
    {.table = "comparisons",
     .columns = "base_build, target_build, base_label, target_label, seed, alpha,"
		" created_at, finished_at, status, host, boot_id, pid, pid_start, machine_id",
     .types = "iittiriitttiii",
     .refs = {BUILDS, BUILDS, NO_MAP, NO_MAP, NO_MAP, NO_MAP, NO_MAP, NO_MAP, NO_MAP, NO_MAP,
	      NO_MAP, NO_MAP, NO_MAP, MACHINES},
     .kind = COMPARISONS,
     .where = "status <> 'running'",
     .added = STAT(comparisons_added),
     .present = STAT(comparisons_present)},
    /* a run of a comparison still running has no target comparison: left for later */
    {.table = "runs",
     .columns = "build_id, benchmark_id, machine_id, comparison_id, side, warmup, status,"
		" exit_code, signal, pair_seq, detail, log_path, log_offset, log_length,"
		" started_at, loadavg",
     .types = "iiiititiiittiiir",
     .refs = {BUILDS, BENCHMARKS, MACHINES, COMPARISONS},
     .kind = RUNS,
     .added = STAT(runs_added),
     .present = STAT(runs_present)},
    {.table = "metric_values", .columns = "run_id, metric, value", .types = "itr", .refs = {RUNS}},
    {.table = "run_logs",
     .columns = "run_id, length, data",
     .types = "iib",
     .refs = {RUNS},
     .keep_target = true},
    {.table = "build_logs",
     .columns = "build_id, length, data",
     .types = "iib",
     .refs = {BUILDS},
     .keep_target = true},
    {.table = "run_counters",
     .columns = "run_id, counter, unit, n, samples",
     .types = "ittib",
     .refs = {RUNS}},
    {.table = "verdicts",
     .columns = "comparison_id, benchmark_id, metric, is_primary, verdict, method,"
		" n_pairs, p, ratio, ci_lo, ci_hi, p_welch, p_mw, p_tost, q_bh, n_a, n_b,"
		" mean_a, mean_b, sd_a, sd_b, seq",
     .types = "iitittirrrrrrrriirrrri",
     .refs = {COMPARISONS, BENCHMARKS},
     .keep_target = true},
    /* what each comparison planned and judged with (schema 10-12): its replay needs it */
    {.table = "comparison_plans",
     .columns = "comparison_id, benchmark_id, min_runs, max_runs, runs_since, fresh,"
		" tolerance, count_tolerance, metrics, primary_metrics",
     .types = "iiiiiirrtt",
     .refs = {COMPARISONS, BENCHMARKS, NO_MAP, NO_MAP, COMPARISONS},
     .keep_target = true},
    {.table = "profiles",
     .columns = "build_id, benchmark_id, machine_id, comparison_id, kind, status,"
		" detail, path, log_path, started_at",
     .types = "iiiittttti",
     .refs = {BUILDS, BENCHMARKS, MACHINES, COMPARISONS},
     .kind = PROFILES,
     .added = STAT(profiles_added),
     .present = STAT(profiles_present)},
    {.table = "profile_values",
     .columns = "profile_id, metric, value",
     .types = "itr",
     .refs = {PROFILES}},
};

/* The SELECT (the row's own id first, when it has one) and INSERT of table t. */
static void copy_sql(const struct copied_table *t, struct strbuf *select, struct strbuf *insert)
{
	strbuf_addf(select, "SELECT %s%s FROM %s", t->kind ? "id, " : "", t->columns, t->table);
	if (t->where)
		strbuf_addf(select, " WHERE %s", t->where);
	if (t->kind)
		strbuf_addstr(select, " ORDER BY id");
	strbuf_addf(insert, "INSERT INTO %s(%s) VALUES(", t->table, t->columns);
	for (size_t k = 0; t->types[k]; k++)
		strbuf_addf(insert, "%s?%zu", k ? ", " : "", k + 1);
	strbuf_addch(insert, ')');
	if (t->keep_target)
		strbuf_addstr(insert, " ON CONFLICT DO NOTHING");
	if (t->kind)
		strbuf_addstr(insert, " RETURNING id");
}

static size_t *stat_at(struct push *p, size_t offset)
{
	return (size_t *)((char *)p->stats + offset);
}

/* Copies the rows of table t that no earlier push copied (struct copied_table). */
static int copy_table(struct push *p, const struct copied_table *t)
{
	struct strbuf select = STRBUF_INIT, insert = STRBUF_INIT;
	struct db_stmt *src = NULL, *dst = NULL;
	int first = t->kind ? 1 : 0; /* the first copied column of src */
	int rc, ret = RP_EINTERNAL;

	copy_sql(t, &select, &insert);
	if (!(src = store_prepare(p->from, select.buf)) ||
	    !(dst = store_prepare(p->to, insert.buf)))
		goto out;
	while ((rc = db_step(src)) == DB_ROW) {
		int64_t id = db_column_int64(src, 0), to = 0;
		bool orphan = false;
		if (t->kind && (to = idmap_get(&p->pushed[t->kind], id))) {
			idmap_add(&p->map[t->kind], id, to);
			(*stat_at(p, t->present))++;
			continue;
		}
		if (!t->kind && idmap_get(&p->pushed[t->refs[0]], id))
			continue; /* the child of a row pushed before: it came with it */
		for (size_t k = 0; t->types[k] && !orphan; k++)
			orphan = bind_copy(dst, (int)k + 1, src, (int)k + first, t->types[k],
					   t->refs[k] ? &p->map[t->refs[k]] : NULL);
		if (orphan)
			continue; /* it belongs to a row left for later (a running comparison) */
		if (!t->kind) {
			if (store_step_done(p->to, dst, "cannot copy a row"))
				goto out;
			continue;
		}
		if (db_step(dst) != DB_ROW) {
			store_db_error(p->to, "cannot copy a row");
			goto out;
		}
		to = db_column_int64(dst, 0);
		db_reset(dst);
		if (record(p, t->kind, id, to))
			goto out;
		(*stat_at(p, t->added))++;
	}
	if (rc != DB_DONE) {
		store_db_error(p->from, "cannot read its rows");
		goto out;
	}
	ret = 0;
out:
	db_finalize(src);
	db_finalize(dst);
	strbuf_release(&select);
	strbuf_release(&insert);
	return ret;
}

/* Machines, revisions and benchmarks: found or created by their natural keys. */
static int copy_keyed(struct push *p)
{
	struct db_stmt *s;
	int rc;

	if (!(s = store_prepare(p->from, "SELECT id, hostname, cpu_model, cores, kernel,"
					 " governor FROM machines ORDER BY id")))
		return RP_EINTERNAL;
	while ((rc = db_step(s)) == DB_ROW) {
		struct machine_info m;
		int64_t to;
		memset(&m, 0, sizeof(m));
		snprintf(m.hostname, sizeof(m.hostname), "%s", db_column_text(s, 1) ? db_column_text(s, 1) : "");
		snprintf(m.cpu_model, sizeof(m.cpu_model), "%s", db_column_text(s, 2) ? db_column_text(s, 2) : "");
		m.cores = db_column_int(s, 3);
		snprintf(m.kernel, sizeof(m.kernel), "%s", db_column_text(s, 4) ? db_column_text(s, 4) : "");
		snprintf(m.governor, sizeof(m.governor), "%s", db_column_text(s, 5) ? db_column_text(s, 5) : "");
		if (store_machine(p->to, &m, &to))
			break;
		idmap_add(&p->map[MACHINES], db_column_int64(s, 0), to);
	}
	db_finalize(s);
	if (rc != DB_DONE)
		return rc == DB_ROW ? RP_EINTERNAL : store_db_error(p->from, "cannot read machines");

	if (!(s = store_prepare(p->from, "SELECT id, sha, summary, commit_time FROM revisions"
					 " ORDER BY id")))
		return RP_EINTERNAL;
	while ((rc = db_step(s)) == DB_ROW) {
		int64_t to;
		if (store_revision(p->to, db_column_text(s, 1), db_column_text(s, 2),
				   db_column_int64(s, 3), &to))
			break;
		idmap_add(&p->map[REVISIONS], db_column_int64(s, 0), to);
	}
	db_finalize(s);
	if (rc != DB_DONE)
		return rc == DB_ROW ? RP_EINTERNAL : store_db_error(p->from, "cannot read revisions");

	if (!(s = store_prepare(p->from, "SELECT id, name, command FROM benchmarks ORDER BY id")))
		return RP_EINTERNAL;
	while ((rc = db_step(s)) == DB_ROW) {
		int64_t to;
		if (store_benchmark(p->to, db_column_text(s, 1), db_column_text(s, 2), &to))
			break;
		idmap_add(&p->map[BENCHMARKS], db_column_int64(s, 0), to);
	}
	db_finalize(s);
	if (rc != DB_DONE)
		return rc == DB_ROW ? RP_EINTERNAL : store_db_error(p->from, "cannot read benchmarks");
	return 0;
}

/*
 * Builds: one of a revision is the target's build of (revision, command, variant) when
 * it has one (the same commit built elsewhere), else a new row; one of the --cmd-a/--cmd-b
 * mode (no revision) is found through `pushed`.
 */
static int copy_builds(struct push *p)
{
	struct db_stmt *s = store_prepare(p->from, "SELECT id, revision_id, command, variant,"
						   " worktree, log_path, status, duration_ns,"
						   " created_at, generation, fingerprint FROM builds"
						   " ORDER BY id");
	struct db_stmt *ins = NULL, *find = NULL;
	int rc = DB_ERROR, ret = RP_EINTERNAL;
	if (!s)
		return RP_EINTERNAL;
	if (!(ins = store_prepare(p->to, "INSERT INTO builds(revision_id, command, variant,"
					 " worktree, log_path, status, duration_ns, created_at,"
					 " generation, fingerprint)"
					 " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
					 " RETURNING id")))
		goto out;
	/* The same generation: another generation of the commit's build is other programs,
	 * whose runs must not be pooled with these (core/build.c). */
	if (!(find = store_prepare(p->to, "SELECT id FROM builds WHERE revision_id = ?1 AND"
					  " command = ?2 AND variant = ?3 AND generation = ?4")))
		goto out;
	while ((rc = db_step(s)) == DB_ROW) {
		int64_t id = db_column_int64(s, 0), to = 0;
		int64_t rev = db_column_null(s, 1) ? 0 : idmap_get(&p->map[REVISIONS],
								  db_column_int64(s, 1));
		if (rev) {
			int r;
			db_bind_int64(find, 1, rev);
			store_bind_text(find, 2, db_column_text(s, 2));
			store_bind_text(find, 3, db_column_text(s, 3));
			db_bind_int64(find, 4, db_column_int64(s, 9));
			r = db_step(find);
			if (r == DB_ROW)
				to = db_column_int64(find, 0);
			else if (r != DB_DONE) {
				store_db_error(p->to, "cannot look up a build");
				goto out;
			}
			db_reset(find);
		} else {
			to = idmap_get(&p->pushed[BUILDS], id);
		}
		if (to) {
			idmap_add(&p->map[BUILDS], id, to);
			p->stats->builds_present++;
			continue;
		}
		if (rev)
			db_bind_int64(ins, 1, rev);
		else
			db_bind_null(ins, 1);
		for (int k = 2; k <= 10; k++)
			bind_copy(ins, k, s, k, k == 7 || k == 8 || k == 9 ? 'i' : 't', NULL);
		if (db_step(ins) != DB_ROW) {
			store_db_error(p->to, "cannot copy a build");
			goto out;
		}
		to = db_column_int64(ins, 0);
		db_reset(ins);
		if (rev)
			idmap_add(&p->map[BUILDS], id, to);
		else if (record(p, BUILDS, id, to))
			goto out;
		p->stats->builds_added++;
	}
	if (rc != DB_DONE) {
		store_db_error(p->from, "cannot read builds");
		goto out;
	}
	ret = 0;
out:
	db_finalize(s);
	db_finalize(ins);
	db_finalize(find);
	return ret;
}

/* Dynamic data: one per (build, benchmark); the target's, when it has one, stays. */
static int copy_dynamic(struct push *p)
{
	struct db_stmt *s = store_prepare(p->from, "SELECT id, build_id, benchmark_id, source,"
						   " cost, path, created_at FROM dynamic_profiles"
						   " ORDER BY id");
	struct db_stmt *ins = NULL, *fsrc = NULL, *fdst = NULL;
	int rc = DB_ERROR, ret = RP_EINTERNAL;
	if (!s)
		return RP_EINTERNAL;
	ins = store_prepare(p->to, "INSERT INTO dynamic_profiles(build_id, benchmark_id, source,"
				   " cost, path, created_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
				   " ON CONFLICT(build_id, benchmark_id) DO NOTHING RETURNING id");
	fsrc = store_prepare(p->from, "SELECT name, calls, cost FROM dynamic_functions"
				      " WHERE profile_id = ?1");
	fdst = store_prepare(p->to, "INSERT INTO dynamic_functions(profile_id, name, calls, cost)"
				    " VALUES(?1, ?2, ?3, ?4)");
	if (!ins || !fsrc || !fdst)
		goto out;
	while ((rc = db_step(s)) == DB_ROW) {
		const struct idmap *maps[2] = { &p->map[BUILDS], &p->map[BENCHMARKS] };
		int64_t to;
		int step;
		if (bind_copy(ins, 1, s, 1, 'i', maps[0]) || bind_copy(ins, 2, s, 2, 'i', maps[1]))
			continue;
		for (int k = 3; k <= 6; k++)
			bind_copy(ins, k, s, k, k == 6 ? 'i' : 't', NULL);
		step = db_step(ins);
		if (step == DB_DONE) { /* the target has dynamic data of its own */
			db_reset(ins);
			p->stats->dynamic_present++;
			continue;
		}
		if (step != DB_ROW) {
			store_db_error(p->to, "cannot copy dynamic data");
			goto out;
		}
		to = db_column_int64(ins, 0);
		db_reset(ins);
		db_reset(fsrc);
		db_bind_int64(fsrc, 1, db_column_int64(s, 0));
		while ((step = db_step(fsrc)) == DB_ROW) {
			db_bind_int64(fdst, 1, to);
			bind_copy(fdst, 2, fsrc, 0, 't', NULL);
			bind_copy(fdst, 3, fsrc, 1, 'i', NULL);
			bind_copy(fdst, 4, fsrc, 2, 'r', NULL);
			if (store_step_done(p->to, fdst, "cannot copy dynamic data"))
				goto out;
		}
		if (step != DB_DONE) {
			store_db_error(p->from, "cannot read dynamic data");
			goto out;
		}
		p->stats->dynamic_added++;
	}
	if (rc != DB_DONE) {
		store_db_error(p->from, "cannot read dynamic data");
		goto out;
	}
	ret = 0;
out:
	db_finalize(s);
	db_finalize(ins);
	db_finalize(fsrc);
	db_finalize(fdst);
	return ret;
}

static int count_running(struct push *p)
{
	struct db_stmt *s = store_prepare(p->from, "SELECT count(*) FROM comparisons"
						   " WHERE status = 'running'");
	int rc;
	if (!s)
		return RP_EINTERNAL;
	rc = db_step(s);
	if (rc == DB_ROW)
		p->stats->comparisons_running = (size_t)db_column_int64(s, 0);
	db_finalize(s);
	return rc == DB_ROW ? 0 : store_db_error(p->from, "cannot count comparisons");
}

/* Everything, inside the target's transaction. */
static int copy_all(struct push *p)
{
	int ret;

	if ((ret = copy_keyed(p)) || (ret = copy_builds(p)))
		return ret;
	for (size_t k = 0; k < ARRAY_SIZE(copied_tables); k++)
		if ((ret = copy_table(p, &copied_tables[k])))
			return ret;
	return copy_dynamic(p);
}

int store_push(struct store *from, struct store *to, struct store_push_stats *stats)
{
	struct push p;
	int ret;

	memset(&p, 0, sizeof(p));
	memset(stats, 0, sizeof(*stats));
	p.from = from;
	p.to = to;
	p.stats = stats;
	if ((ret = store_identity(from, true, p.origin)) || (ret = count_running(&p)))
		return ret;
	if (store_transaction_begin(to))
		return RP_EINTERNAL;
	ret = RP_EINTERNAL;
	if (!(p.record = store_prepare(to, "INSERT INTO pushed(origin, kind, local_id, id)"
					   " VALUES(?1, ?2, ?3, ?4)")))
		goto out;
	if ((ret = load_pushed(&p)) || (ret = copy_all(&p)))
		goto out;
	ret = store_transaction_commit(to);
out:
	db_finalize(p.record);
	if (ret)
		store_transaction_rollback(to);
	for (size_t k = 0; k < NR_MAPS; k++) {
		idmap_release(&p.map[k]);
		idmap_release(&p.pushed[k]);
	}
	return ret;
}
