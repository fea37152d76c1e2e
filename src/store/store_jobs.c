/*
 * The queue's table (store_jobs.h, docs/team.md): submit, claim, renew, finish, list.
 * Every time is the database's clock (NOW below), so that leases do not depend on the
 * workers' clocks.
 */
#include "store/store_jobs.h"
#include "store/store.h"
#include "store/store_impl.h"

#include <stdio.h>
#include <string.h>

#include "util/common.h"

/* The database's clock in whole seconds since the epoch, as an SQL expression. */
static const char *now_sql(const struct store *st)
{
	return st->db->engine == DB_POSTGRES ? "CAST(EXTRACT(EPOCH FROM now()) AS BIGINT)"
					     : "CAST(strftime('%s', 'now') AS INTEGER)";
}

/* sql with every "NOW" replaced by now_sql(), prepared. */
static struct db_stmt *prepare_now(struct store *st, const char *sql)
{
	struct strbuf sb = STRBUF_INIT;
	struct db_stmt *stmt;
	const char *p = sql, *q;
	while ((q = strstr(p, "NOW"))) {
		strbuf_add(&sb, p, (size_t)(q - p));
		strbuf_addstr(&sb, now_sql(st));
		p = q + 3;
	}
	strbuf_addstr(&sb, p);
	stmt = store_prepare(st, sb.buf);
	strbuf_release(&sb);
	return stmt;
}

/*
 * Runs stmt (bound, not stepped) for its one row's first column into *out; finalizes it.
 * 0, or RP_EINTERNAL after store_db_error(st, what).
 */
static int step_int64(struct store *st, struct db_stmt *stmt, int64_t *out, const char *what)
{
	int rc = db_step(stmt);
	if (rc == DB_ROW)
		*out = db_column_int64(stmt, 0);
	db_finalize(stmt);
	return rc == DB_ROW ? 0 : store_db_error(st, what);
}

static int64_t column_int_or(struct db_stmt *stmt, int i, int64_t none)
{
	return db_column_null(stmt, i) ? none : db_column_int64(stmt, i);
}

void store_job_release(struct store_job *job)
{
	if (!job)
		return;
	free(job->kind);
	free(job->args);
	free(job->label);
	free(job->machine_tag);
	free(job->state);
	free(job->worker);
	free(job->machine);
	free(job->progress);
	free(job->error);
	memset(job, 0, sizeof(*job));
}

void store_jobs_free(struct store_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		store_job_release(&jobs[i]);
	free(jobs);
}

int store_now(struct store *st, int64_t *now)
{
	struct db_stmt *stmt = prepare_now(st, "SELECT NOW");
	if (!stmt)
		return RP_EINTERNAL;
	return step_int64(st, stmt, now, "cannot read the database's clock");
}

int store_job_submit(struct store *st, const char *kind, const char *args, const char *label,
		     const char *machine_tag, int64_t *id)
{
	struct db_stmt *stmt =
	    prepare_now(st, "INSERT INTO jobs(kind, args, label, machine_tag, state, submitted_at)"
			    " VALUES(?1, ?2, ?3, ?4, 'queued', NOW) RETURNING id");
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, kind);
	store_bind_text(stmt, 2, args);
	store_bind_text(stmt, 3, label);
	store_bind_text(stmt, 4, machine_tag);
	return step_int64(st, stmt, id, "cannot queue a job");
}

int store_jobs_analyze(struct store *st)
{
	return store_exec(st, "ANALYZE jobs");
}

/* The columns every read of a job selects, in the order read_job() reads them. */
#define JOB_COLUMNS                                                                                \
	"id, kind, args, label, machine_tag, state, worker, machine, progress, error,"             \
	" lease_until, attempts, exit_code, submitted_at, started_at, finished_at, NOW"

static void read_job(struct db_stmt *stmt, struct store_job *job)
{
	job->id = db_column_int64(stmt, 0);
	job->kind = store_column_dup(stmt, 1);
	job->args = store_column_dup(stmt, 2);
	job->label = store_column_dup(stmt, 3);
	job->machine_tag = store_column_dup(stmt, 4);
	job->state = store_column_dup(stmt, 5);
	job->worker = store_column_dup(stmt, 6);
	job->machine = store_column_dup(stmt, 7);
	job->progress = store_column_dup(stmt, 8);
	job->error = store_column_dup(stmt, 9);
	job->lease_until = column_int_or(stmt, 10, 0);
	job->attempts = column_int_or(stmt, 11, 0);
	job->exit_code = column_int_or(stmt, 12, -1);
	job->submitted_at = column_int_or(stmt, 13, 0);
	job->started_at = column_int_or(stmt, 14, 0);
	job->finished_at = column_int_or(stmt, 15, 0);
	job->now = column_int_or(stmt, 16, 0);
}

int store_job_claim(struct store *st, const char *worker, const char *machine,
		    const char *machine_tag, int64_t lease_s, int64_t max_attempts,
		    struct store_job *out, bool *claimed)
{
	/* Which jobs this worker may take; ?4 the worker's tag (NULL: untagged jobs only). */
#define CLAIMABLE                                                                                  \
	" state IN ('queued', 'running')"                                                          \
	" AND (state = 'queued' OR lease_until < NOW)"                                             \
	" AND (machine_tag IS NULL OR machine_tag = ?4)"
	const char *pg = "UPDATE jobs SET state = 'running', worker = ?1, machine = ?2,"
			 " lease_until = NOW + ?3, attempts = attempts + 1, progress = NULL,"
			 " started_at = COALESCE(started_at, NOW)"
			 " WHERE id = (SELECT id FROM jobs WHERE" CLAIMABLE
			 " ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING " JOB_COLUMNS;
	const char *sqlite = "UPDATE jobs SET state = 'running', worker = ?1, machine = ?2,"
			     " lease_until = NOW + ?3, attempts = attempts + 1, progress = NULL,"
			     " started_at = COALESCE(started_at, NOW)"
			     " WHERE id = (SELECT id FROM jobs WHERE" CLAIMABLE
			     " ORDER BY id LIMIT 1) RETURNING " JOB_COLUMNS;
	struct db_stmt *stmt;
	struct strbuf err = STRBUF_INIT;
	int rc, ret;

	*claimed = false;
	memset(out, 0, sizeof(*out));
	/* Jobs that lost their worker too often fail rather than take a worker down again. */
	strbuf_addf(&err,
		    "lost its worker %lld times (killed, or its machine or network gone); "
		    "see the worker's log, then `revperf submit` it again",
		    (long long)max_attempts);
	stmt = prepare_now(st, "UPDATE jobs SET state = 'failed', error = ?1, finished_at = NOW"
			       " WHERE state = 'running' AND lease_until < NOW AND attempts >= ?2");
	if (!stmt) {
		strbuf_release(&err);
		return RP_EINTERNAL;
	}
	db_bind_text(stmt, 1, err.buf);
	db_bind_int64(stmt, 2, max_attempts);
	ret = store_step_done(st, stmt, "cannot claim a job (the first step: failing the jobs whose workers were lost too often)");
	db_finalize(stmt);
	strbuf_release(&err);
	if (ret)
		return ret;

	if (!(stmt = prepare_now(st, st->db->engine == DB_POSTGRES ? pg : sqlite)))
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, worker);
	store_bind_text(stmt, 2, machine);
	db_bind_int64(stmt, 3, lease_s);
	store_bind_text(stmt, 4, machine_tag);
	rc = db_step(stmt);
	if (rc == DB_ROW) {
		read_job(stmt, out);
		*claimed = true;
		rc = db_step(stmt);
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		store_job_release(out);
		*claimed = false;
		return store_db_error(st, "cannot claim a job");
	}
	return 0;
#undef CLAIMABLE
}

/* Runs an UPDATE of job id held by worker (?1 id, ?2 worker); *held whether it was. */
static int update_held(struct store *st, struct db_stmt *stmt, int64_t id, const char *worker,
		       bool *held, const char *what)
{
	int rc;
	db_bind_int64(stmt, 1, id);
	store_bind_text(stmt, 2, worker);
	rc = db_step(stmt);
	*held = rc == DB_ROW;
	while (rc == DB_ROW)
		rc = db_step(stmt);
	db_finalize(stmt);
	return rc == DB_DONE ? 0 : store_db_error(st, what);
}

int store_job_renew(struct store *st, int64_t id, const char *worker, int64_t lease_s,
		    const char *progress, bool *held)
{
	struct db_stmt *stmt = prepare_now(
	    st, "UPDATE jobs SET lease_until = NOW + ?3, progress = COALESCE(?4, progress)"
		" WHERE id = ?1 AND worker = ?2 AND state = 'running' RETURNING id");
	*held = false;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 3, lease_s);
	store_bind_text(stmt, 4, progress);
	return update_held(st, stmt, id, worker, held, "cannot renew a job's lease");
}

int store_job_finish(struct store *st, int64_t id, const char *worker, bool ok, int64_t exit_code,
		     const char *error, bool *held)
{
	struct db_stmt *stmt = prepare_now(
	    st, "UPDATE jobs SET state = ?3, error = ?4, exit_code = ?5, lease_until = NULL,"
		" finished_at = NOW WHERE id = ?1 AND worker = ?2 AND state = 'running'"
		" RETURNING id");
	*held = false;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_text(stmt, 3, ok ? "done" : "failed");
	store_bind_text(stmt, 4, error);
	db_bind_int64(stmt, 5, exit_code);
	return update_held(st, stmt, id, worker, held, "cannot record a job's end");
}

int store_job_give_back(struct store *st, int64_t id, const char *worker, bool *held)
{
	struct db_stmt *stmt =
	    store_prepare(st, "UPDATE jobs SET state = 'queued', worker = NULL, lease_until = NULL"
			      " WHERE id = ?1 AND worker = ?2 AND state = 'running' RETURNING id");
	*held = false;
	if (!stmt)
		return RP_EINTERNAL;
	return update_held(st, stmt, id, worker, held, "cannot give a job back");
}

int store_jobs_list(struct store *st, const char *state, struct store_job **out, size_t *n)
{
	struct db_stmt *stmt =
	    prepare_now(st, "SELECT " JOB_COLUMNS
			    " FROM jobs WHERE CAST(?1 AS TEXT) IS NULL OR state = ?1 ORDER BY id");
	size_t alloc = 0;
	int rc;
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, state);
	while ((rc = db_step(stmt)) == DB_ROW) {
		ALLOC_GROW(*out, *n + 1, alloc);
		memset(&(*out)[*n], 0, sizeof(**out));
		read_job(stmt, &(*out)[(*n)++]);
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		store_jobs_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_db_error(st, "cannot read the jobs");
	}
	return 0;
}

int store_runs_max_id(struct store *st, int64_t *max_id)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT COALESCE(MAX(id), 0) FROM runs");
	if (!stmt)
		return RP_EINTERNAL;
	return step_int64(st, stmt, max_id, "cannot read the runs");
}

int store_machine_runs_after(struct store *st, const char *machine, int64_t after_id, int64_t *n)
{
	struct db_stmt *stmt =
	    store_prepare(st, "SELECT count(*) FROM runs r JOIN machines m ON m.id = r.machine_id"
			      " WHERE m.hostname = ?1 AND r.id > ?2");
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, machine);
	db_bind_int64(stmt, 2, after_id);
	return step_int64(st, stmt, n, "cannot read the runs");
}
