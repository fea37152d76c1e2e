#include "store/store.h"
#include "store/store_impl.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/common.h"

static int db_error(struct store *st, const char *what)
{
	return store_db_error(st, what);
}

static int exec_sql(struct store *st, const char *sql)
{
	return store_exec(st, sql);
}

static sqlite3_stmt *prepare(struct store *st, const char *sql)
{
	sqlite3_stmt *stmt = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL) != SQLITE_OK) {
		db_error(st, "cannot prepare a statement");
		return NULL;
	}
	return stmt;
}

static void bind_text(sqlite3_stmt *stmt, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(stmt, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(stmt, i);
}

static void bind_real(sqlite3_stmt *stmt, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(stmt, i, v);
	else
		sqlite3_bind_null(stmt, i);
}

/* Runs an INSERT OR IGNORE then a SELECT of the id, both with the same bound texts. */
static int get_or_create(struct store *st, const char *insert, const char *select,
			 const char *const *texts, size_t n, int64_t *id)
{
	sqlite3_stmt *stmt;
	size_t i;
	int rc;
	for (int pass = 0; pass < 2; pass++) {
		stmt = prepare(st, pass ? select : insert);
		if (!stmt)
			return RP_EINTERNAL;
		for (i = 0; i < n; i++)
			bind_text(stmt, (int)i + 1, texts[i]);
		rc = sqlite3_step(stmt);
		if (pass && rc == SQLITE_ROW)
			*id = sqlite3_column_int64(stmt, 0);
		sqlite3_finalize(stmt);
		if (rc != SQLITE_DONE && rc != SQLITE_ROW)
			return db_error(st, "cannot record");
		if (pass && rc != SQLITE_ROW)
			return db_error(st, "a row vanished");
	}
	return 0;
}

int store_machine(struct store *st, const struct machine_info *m, int64_t *id)
{
	char cores[16];
	const char *texts[5];
	snprintf(cores, sizeof(cores), "%d", m->cores);
	texts[0] = m->hostname;
	texts[1] = m->cpu_model;
	texts[2] = cores;
	texts[3] = m->kernel;
	texts[4] = m->governor;
	return get_or_create(st,
			     "INSERT OR IGNORE INTO machines(hostname, cpu_model, cores, kernel,"
			     " governor) VALUES(?1, ?2, ?3, ?4, ?5)",
			     "SELECT id FROM machines WHERE hostname = ?1 AND cpu_model = ?2 AND"
			     " cores = ?3 AND kernel = ?4 AND governor = ?5",
			     texts, 5, id);
}

int store_revision(struct store *st, const char *sha, const char *summary, int64_t commit_time,
		   int64_t *id)
{
	char when[32];
	const char *texts[3];
	snprintf(when, sizeof(when), "%lld", (long long)commit_time);
	texts[0] = sha;
	texts[1] = summary;
	texts[2] = when;
	return get_or_create(st,
			     "INSERT OR IGNORE INTO revisions(sha, summary, commit_time)"
			     " VALUES(?1, ?2, ?3)",
			     /* get_or_create binds every text to both statements: the SELECT
			      * names ?2 and ?3 in no-op terms so that the binds are valid */
			     "SELECT id FROM revisions WHERE sha = ?1 AND ?2 = ?2 AND ?3 = ?3", texts,
			     3, id);
}

int store_benchmark(struct store *st, const char *name, const char *command, int64_t *id)
{
	const char *texts[2] = { name, command };
	return get_or_create(st, "INSERT OR IGNORE INTO benchmarks(name, command) VALUES(?1, ?2)",
			     "SELECT id FROM benchmarks WHERE name = ?1 AND command = ?2", texts, 2,
			     id);
}

void store_build_release(struct store_build *b)
{
	if (!b)
		return;
	free(b->command);
	free(b->worktree);
	free(b->log_path);
	memset(b, 0, sizeof(*b));
}

static char *column_dup(sqlite3_stmt *stmt, int i)
{
	const unsigned char *s = sqlite3_column_text(stmt, i);
	return s ? xstrdup((const char *)s) : NULL;
}

int store_build_find(struct store *st, int64_t revision_id, const char *command,
		     const char *variant, struct store_build *out)
{
	sqlite3_stmt *stmt = prepare(st, "SELECT id, worktree, log_path, status, duration_ns"
					 " FROM builds WHERE revision_id = ?1 AND command = ?2"
					 " AND variant = ?3");
	int rc, ret = 1;
	if (!stmt)
		return RP_EINTERNAL;
	sqlite3_bind_int64(stmt, 1, revision_id);
	bind_text(stmt, 2, command);
	bind_text(stmt, 3, variant ? variant : "");
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		memset(out, 0, sizeof(*out));
		out->id = sqlite3_column_int64(stmt, 0);
		out->revision_id = revision_id;
		out->command = xstrdup(command);
		snprintf(out->variant, sizeof(out->variant), "%s", variant ? variant : "");
		out->worktree = column_dup(stmt, 1);
		out->log_path = column_dup(stmt, 2);
		snprintf(out->status, sizeof(out->status), "%s",
			 (const char *)sqlite3_column_text(stmt, 3));
		out->duration_ns = sqlite3_column_int64(stmt, 4);
		ret = 0;
	} else if (rc != SQLITE_DONE) {
		ret = db_error(st, "cannot look up a build");
	}
	sqlite3_finalize(stmt);
	return ret;
}

int store_build_save(struct store *st, struct store_build *b)
{
	sqlite3_stmt *stmt;
	int rc;
	if (b->revision_id) {
		stmt = prepare(st, "INSERT INTO builds(revision_id, command, worktree, log_path,"
				   " status, duration_ns, created_at, variant) VALUES(?1, ?2, ?3,"
				   " ?4, ?5, ?6, ?7, ?8) ON CONFLICT(revision_id, command, variant)"
				   " DO UPDATE SET worktree = ?3, log_path = ?4, status = ?5,"
				   " duration_ns = ?6, created_at = ?7 RETURNING id");
	} else {
		stmt = prepare(st, "INSERT INTO builds(revision_id, command, worktree, log_path,"
				   " status, duration_ns, created_at, variant) VALUES(NULL, ?2, ?3,"
				   " ?4, ?5, ?6, ?7, ?8) RETURNING id");
	}
	if (!stmt)
		return RP_EINTERNAL;
	if (b->revision_id)
		sqlite3_bind_int64(stmt, 1, b->revision_id);
	bind_text(stmt, 2, b->command);
	bind_text(stmt, 3, b->worktree);
	bind_text(stmt, 4, b->log_path);
	bind_text(stmt, 5, b->status);
	sqlite3_bind_int64(stmt, 6, b->duration_ns);
	sqlite3_bind_int64(stmt, 7, (int64_t)time(NULL));
	bind_text(stmt, 8, b->variant);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		b->id = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	if (rc != SQLITE_ROW)
		return db_error(st, "cannot record a build");
	return 0;
}

int store_comparison_new(struct store *st, struct store_comparison *c)
{
	sqlite3_stmt *stmt = prepare(st, "INSERT INTO comparisons(base_build, target_build,"
					 " base_label, target_label, seed, alpha, created_at,"
					 " status, host, boot_id, pid, pid_start) VALUES(?1, ?2, ?3,"
					 " ?4, ?5, ?6, ?7, 'running', ?8, ?9, ?10, ?11) RETURNING id");
	char host[256], boot[64];
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	sqlite3_bind_int64(stmt, 1, c->base_build);
	sqlite3_bind_int64(stmt, 2, c->target_build);
	bind_text(stmt, 3, c->base_label);
	bind_text(stmt, 4, c->target_label);
	/* SQLite integers are signed: the seed is stored as its bit pattern. */
	sqlite3_bind_int64(stmt, 5, (int64_t)c->seed);
	sqlite3_bind_double(stmt, 6, c->alpha);
	sqlite3_bind_int64(stmt, 7, (int64_t)time(NULL));
	/* Who runs it: a later open marks it abandoned once this process is gone. */
	store_process_host(host, sizeof(host));
	machine_boot_id(boot, sizeof(boot));
	bind_text(stmt, 8, host);
	bind_text(stmt, 9, boot);
	sqlite3_bind_int64(stmt, 10, (int64_t)getpid());
	sqlite3_bind_int64(stmt, 11, machine_process_start(getpid()));
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		c->id = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	return rc == SQLITE_ROW ? 0 : db_error(st, "cannot record a comparison");
}

int store_comparison_finish(struct store *st, int64_t id, const char *status)
{
	sqlite3_stmt *stmt = prepare(st, "UPDATE comparisons SET status = ?2, finished_at = ?3"
					 " WHERE id = ?1");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	sqlite3_bind_int64(stmt, 1, id);
	bind_text(stmt, 2, status);
	sqlite3_bind_int64(stmt, 3, (int64_t)time(NULL));
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : db_error(st, "cannot finish a comparison");
}

enum run_status run_status_parse(const char *s)
{
	int i;
	for (i = RUN_OK; s && i <= RUN_INTERRUPTED; i++)
		if (!strcmp(run_status_name((enum run_status)i), s))
			return (enum run_status)i;
	return RUN_FAILED;
}

int store_run_insert(struct store *st, struct store_run *run, const char *const *names,
		     const double *values, size_t n)
{
	sqlite3_stmt *stmt = NULL;
	size_t i;
	int rc, ret = RP_EINTERNAL;
	char side[2] = { run->side, 0 };

	/* One transaction per run, of kept statements: a run is stored as it ends. */
	if (store_cached_exec(st, STORE_STMT_BEGIN, "BEGIN IMMEDIATE", "cannot update"))
		return RP_EINTERNAL;
	stmt = store_cached(st, STORE_STMT_RUN_INSERT,
			    "INSERT INTO runs(build_id, benchmark_id, machine_id, comparison_id,"
			    " side, warmup, status, exit_code, signal, detail, log_path,"
			    " started_at, loadavg, log_offset, log_length, pair_seq) VALUES(?1, ?2,"
			    " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
			    " RETURNING id");
	if (!stmt)
		goto out;
	sqlite3_bind_int64(stmt, 1, run->build_id);
	sqlite3_bind_int64(stmt, 2, run->benchmark_id);
	sqlite3_bind_int64(stmt, 3, run->machine_id);
	if (run->comparison_id)
		sqlite3_bind_int64(stmt, 4, run->comparison_id);
	else
		sqlite3_bind_null(stmt, 4);
	bind_text(stmt, 5, side);
	sqlite3_bind_int(stmt, 6, run->warmup);
	bind_text(stmt, 7, run_status_name(run->status));
	sqlite3_bind_int(stmt, 8, run->exit_code);
	sqlite3_bind_int(stmt, 9, run->signal);
	bind_text(stmt, 10, run->detail && *run->detail ? run->detail : NULL);
	bind_text(stmt, 11, run->log_path);
	sqlite3_bind_int64(stmt, 12, run->started_at);
	bind_real(stmt, 13, run->loadavg);
	sqlite3_bind_int64(stmt, 14, run->log_offset);
	sqlite3_bind_int64(stmt, 15, run->log_length);
	if (run->pair_seq)
		sqlite3_bind_int64(stmt, 16, run->pair_seq);
	else
		sqlite3_bind_null(stmt, 16);
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		db_error(st, "cannot record a run");
		goto out;
	}
	run->id = sqlite3_column_int64(stmt, 0);
	sqlite3_reset(stmt);
	stmt = store_cached(st, STORE_STMT_VALUE_INSERT,
			    "INSERT INTO metric_values(run_id, metric, value) VALUES(?1, ?2, ?3)");
	if (!stmt)
		goto out;
	for (i = 0; i < n; i++) {
		if (!isfinite(values[i]))
			continue;
		sqlite3_reset(stmt);
		sqlite3_bind_int64(stmt, 1, run->id);
		bind_text(stmt, 2, names[i]);
		sqlite3_bind_double(stmt, 3, values[i]);
		if (sqlite3_step(stmt) != SQLITE_DONE) {
			db_error(st, "cannot record a metric value");
			goto out;
		}
	}
	sqlite3_reset(stmt);
	stmt = NULL;
	if (store_cached_exec(st, STORE_STMT_COMMIT, "COMMIT", "cannot update"))
		goto out;
	ret = 0;
out:
	if (stmt)
		sqlite3_reset(stmt);
	if (ret && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

void store_bind_filter(sqlite3_stmt *stmt, const struct store_run_filter *f)
{
	char side[2] = { f->side, 0 };
	sqlite3_bind_int64(stmt, 1, f->side == 'A' ? f->base_build : f->target_build);
	sqlite3_bind_int64(stmt, 2, f->benchmark_id);
	sqlite3_bind_int64(stmt, 3, f->machine_id);
	sqlite3_bind_int64(stmt, 4, f->comparison_id);
	bind_text(stmt, 5, side);
	sqlite3_bind_int64(stmt, 6, f->base_build);
	sqlite3_bind_int64(stmt, 7, f->target_build);
}

#define FILTER_SQL STORE_FILTER_SQL

int store_run_values(struct store *st, const struct store_run_filter *f, const char *metric,
		     double **values, size_t *n)
{
	sqlite3_stmt *stmt = prepare(st, "SELECT v.value FROM runs r JOIN metric_values v ON"
					 " v.run_id = r.id AND v.metric = ?8 WHERE" FILTER_SQL
					 " AND r.status = 'ok' ORDER BY r.id");
	size_t alloc = 0;
	int rc;
	*values = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, f);
	bind_text(stmt, 8, metric);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ALLOC_GROW(*values, *n + 1, alloc);
		(*values)[(*n)++] = sqlite3_column_double(stmt, 0);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		free(*values);
		*values = NULL;
		*n = 0;
		return db_error(st, "cannot read runs");
	}
	return 0;
}

int store_run_pairs(struct store *st, const struct store_run_filter *f, const char *metric,
		    double **a, double **b, size_t *n)
{
	struct store_run_filter fa = *f;
	sqlite3_stmt *stmt;
	size_t alloc = 0, alloc_b = 0;
	int rc;
	*a = *b = NULL;
	*n = 0;
	fa.side = 'A';
	stmt = prepare(st, "SELECT va.value, vb.value FROM runs r"
			   " JOIN runs rb ON rb.comparison_id = r.comparison_id"
			   "  AND rb.benchmark_id = r.benchmark_id AND rb.pair_seq = r.pair_seq"
			   "  AND rb.side = 'B' AND rb.build_id = ?7 AND rb.status = 'ok'"
			   "  AND rb.warmup = 0"
			   " JOIN metric_values va ON va.run_id = r.id AND va.metric = ?8"
			   " JOIN metric_values vb ON vb.run_id = rb.id AND vb.metric = ?8"
			   " WHERE" FILTER_SQL " AND r.status = 'ok' AND r.pair_seq IS NOT NULL"
			   " ORDER BY r.id");
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, &fa);
	bind_text(stmt, 8, metric);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ALLOC_GROW(*a, *n + 1, alloc);
		ALLOC_GROW(*b, *n + 1, alloc_b);
		(*a)[*n] = sqlite3_column_double(stmt, 0);
		(*b)[(*n)++] = sqlite3_column_double(stmt, 1);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		free(*a);
		free(*b);
		*a = *b = NULL;
		*n = 0;
		return db_error(st, "cannot read run pairs");
	}
	return 0;
}

int store_run_counts(struct store *st, const struct store_run_filter *f, size_t *ok,
		     size_t *failed)
{
	sqlite3_stmt *stmt = prepare(st, "SELECT coalesce(sum(r.status = 'ok'), 0),"
					 " coalesce(sum(r.status <> 'ok'), 0) FROM runs r WHERE"
					 FILTER_SQL);
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, f);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*ok = (size_t)sqlite3_column_int64(stmt, 0);
		*failed = (size_t)sqlite3_column_int64(stmt, 1);
	}
	sqlite3_finalize(stmt);
	return rc == SQLITE_ROW ? 0 : db_error(st, "cannot count runs");
}

int store_run_issues(struct store *st, int64_t comparison_id, int64_t benchmark_id,
		      struct store_run_issue **out, size_t *n)
{
	sqlite3_stmt *stmt = prepare(st, "SELECT id, side, status, exit_code, signal, detail,"
					 " log_path, log_offset, warmup FROM runs WHERE comparison_id = ?1 AND"
					 " benchmark_id = ?2 AND (status <> 'ok' OR detail IS NOT NULL)"
					 " ORDER BY id");
	size_t alloc = 0;
	int rc;
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	sqlite3_bind_int64(stmt, 1, comparison_id);
	sqlite3_bind_int64(stmt, 2, benchmark_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct store_run_issue *r;
		ALLOC_GROW(*out, *n + 1, alloc);
		r = &(*out)[(*n)++];
		r->id = sqlite3_column_int64(stmt, 0);
		r->side = ((const char *)sqlite3_column_text(stmt, 1))[0];
		r->status = run_status_parse((const char *)sqlite3_column_text(stmt, 2));
		r->exit_code = sqlite3_column_int(stmt, 3);
		r->signal = sqlite3_column_int(stmt, 4);
		r->detail = column_dup(stmt, 5);
		r->log_path = column_dup(stmt, 6);
		r->log_offset = sqlite3_column_int64(stmt, 7);
		r->warmup = sqlite3_column_int(stmt, 8) != 0;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return db_error(st, "cannot read the runs' notes");
	return 0;
}

void store_run_issues_free(struct store_run_issue *runs, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(runs[i].detail);
		free(runs[i].log_path);
	}
	free(runs);
}

int store_verdict_save(struct store *st, int64_t comparison_id, int64_t benchmark_id,
		       const char *metric, bool primary, const char *verdict,
		       const struct verdict_result *r, size_t n_pairs, double q_bh)
{
	sqlite3_stmt *stmt = prepare(st, "INSERT OR REPLACE INTO verdicts(comparison_id,"
					 " benchmark_id, metric, is_primary, verdict, ratio, ci_lo,"
					 " ci_hi, p_welch, p_mw, p_tost, q_bh, n_a, n_b, mean_a,"
					 " mean_b, sd_a, sd_b, method, n_pairs, p) VALUES(?1, ?2, ?3,"
					 " ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
					 " ?17, ?18, ?19, ?20, ?21)");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	sqlite3_bind_int64(stmt, 1, comparison_id);
	sqlite3_bind_int64(stmt, 2, benchmark_id);
	bind_text(stmt, 3, metric);
	sqlite3_bind_int(stmt, 4, primary);
	bind_text(stmt, 5, verdict);
	bind_real(stmt, 6, r->ratio);
	bind_real(stmt, 7, r->ci_lo);
	bind_real(stmt, 8, r->ci_hi);
	bind_real(stmt, 9, r->p_welch);
	bind_real(stmt, 10, r->p_mw);
	bind_real(stmt, 11, r->p_tost);
	bind_real(stmt, 12, q_bh);
	sqlite3_bind_int64(stmt, 13, (int64_t)r->n_a);
	sqlite3_bind_int64(stmt, 14, (int64_t)r->n_b);
	bind_real(stmt, 15, r->mean_a);
	bind_real(stmt, 16, r->mean_b);
	bind_real(stmt, 17, r->sd_a);
	bind_real(stmt, 18, r->sd_b);
	/* the interval's method; none for a metric that was not measured */
	bind_text(stmt, 19, strcmp(verdict, "unmeasured") ? verdict_method_name(r->method) : NULL);
	sqlite3_bind_int64(stmt, 20, (int64_t)n_pairs);
	bind_real(stmt, 21, r->p);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : db_error(st, "cannot record a verdict");
}

int store_transaction_begin(struct store *st)
{
	return exec_sql(st, "BEGIN IMMEDIATE");
}

int store_transaction_commit(struct store *st)
{
	return exec_sql(st, "COMMIT");
}

void store_transaction_rollback(struct store *st)
{
	if (st && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_build_runs_delete(struct store *st, int64_t build_id)
{
	sqlite3_stmt *stmt = prepare(st, "DELETE FROM runs WHERE build_id = ?1");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	sqlite3_bind_int64(stmt, 1, build_id);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : db_error(st, "cannot delete the runs of a build");
}

/* One run of store_import_runs(): the row, then its metric values (statements prepared). */
static int import_run_one(struct store *st, sqlite3_stmt *run_stmt, sqlite3_stmt *value_stmt,
			  const struct store_run *t, const char *const *names, const double *values,
			  size_t nr_metrics)
{
	char side[2] = { t->side, 0 };
	int64_t id;
	size_t k;
	sqlite3_reset(run_stmt);
	sqlite3_bind_int64(run_stmt, 1, t->build_id);
	sqlite3_bind_int64(run_stmt, 2, t->benchmark_id);
	sqlite3_bind_int64(run_stmt, 3, t->machine_id);
	if (t->comparison_id)
		sqlite3_bind_int64(run_stmt, 4, t->comparison_id);
	else
		sqlite3_bind_null(run_stmt, 4);
	bind_text(run_stmt, 5, side);
	sqlite3_bind_int(run_stmt, 6, t->warmup);
	bind_text(run_stmt, 7, run_status_name(t->status));
	sqlite3_bind_int(run_stmt, 8, t->exit_code);
	sqlite3_bind_int(run_stmt, 9, t->signal);
	bind_text(run_stmt, 10, t->detail && *t->detail ? t->detail : NULL);
	bind_text(run_stmt, 11, t->log_path);
	sqlite3_bind_int64(run_stmt, 12, t->started_at);
	bind_real(run_stmt, 13, t->loadavg);
	sqlite3_bind_int64(run_stmt, 14, t->log_offset);
	sqlite3_bind_int64(run_stmt, 15, t->log_length);
	if (t->pair_seq)
		sqlite3_bind_int64(run_stmt, 16, t->pair_seq);
	else
		sqlite3_bind_null(run_stmt, 16);
	if (sqlite3_step(run_stmt) != SQLITE_ROW)
		return db_error(st, "cannot record an imported run");
	id = sqlite3_column_int64(run_stmt, 0);
	/* RETURNING: the statement finishes only when stepped to its end. */
	if (sqlite3_step(run_stmt) != SQLITE_DONE)
		return db_error(st, "cannot record an imported run");
	for (k = 0; k < nr_metrics; k++) {
		if (!isfinite(values[k]))
			continue;
		sqlite3_reset(value_stmt);
		sqlite3_bind_int64(value_stmt, 1, id);
		bind_text(value_stmt, 2, names[k]);
		sqlite3_bind_double(value_stmt, 3, values[k]);
		if (sqlite3_step(value_stmt) != SQLITE_DONE)
			return db_error(st, "cannot record an imported metric value");
	}
	return 0;
}

int store_import_runs(struct store *st, const struct store_run *tmpl, const char *const *names,
		      const double *values, size_t nr_metrics, size_t nr_runs)
{
	sqlite3_stmt *run_stmt = NULL, *value_stmt = NULL;
	size_t i;
	int ret = RP_EINTERNAL;

	if (exec_sql(st, "SAVEPOINT import_runs"))
		return RP_EINTERNAL;
	run_stmt = prepare(st, "INSERT INTO runs(build_id, benchmark_id, machine_id,"
			       " comparison_id, side, warmup, status, exit_code, signal, detail,"
			       " log_path, started_at, loadavg, log_offset, log_length, pair_seq)"
			       " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
			       " ?14, ?15, ?16) RETURNING id");
	value_stmt = prepare(st, "INSERT INTO metric_values(run_id, metric, value)"
				 " VALUES(?1, ?2, ?3)");
	if (!run_stmt || !value_stmt)
		goto out;
	for (i = 0; i < nr_runs; i++)
		if (import_run_one(st, run_stmt, value_stmt, tmpl, names, values + i * nr_metrics,
				   nr_metrics))
			goto out;
	ret = 0;
out:
	sqlite3_finalize(run_stmt);
	sqlite3_finalize(value_stmt);
	/* Outside a transaction, RELEASE is the commit and may fail: then roll back too. */
	if (!ret && exec_sql(st, "RELEASE import_runs"))
		ret = RP_EINTERNAL;
	if (ret) {
		sqlite3_exec(st->db, "ROLLBACK TO import_runs", NULL, NULL, NULL);
		sqlite3_exec(st->db, "RELEASE import_runs", NULL, NULL, NULL);
	}
	return ret;
}

/* The helpers above, for the other files of the store (store_impl.h). */
sqlite3_stmt *store_prepare(struct store *st, const char *sql)
{
	return prepare(st, sql);
}

void store_bind_text(sqlite3_stmt *stmt, int i, const char *s)
{
	bind_text(stmt, i, s);
}

char *store_column_dup(sqlite3_stmt *stmt, int i)
{
	return column_dup(stmt, i);
}
