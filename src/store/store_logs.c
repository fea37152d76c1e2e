/*
 * The output of runs and builds kept in the database (zstd-compressed), so that a report
 * built on another machine from a shared store shows them: the log files themselves stay
 * on the machine that measured (docs/store.md, "Logs").
 */
#include "store/store.h"
#include "store/store_impl.h"

#include <stdio.h>
#include <string.h>

#include "util/common.h"

/*
 * Saves data compressed with sql (into run_logs or build_logs) for id; with the kept
 * statement `which` (store_cached()), or, which < 0, a statement of its own.
 */
static int log_save(struct store *st, int which, const char *sql, int64_t id, const void *data,
		    size_t len)
{
	size_t zlen;
	void *z = store_compress(st, data, len, &zlen);
	struct db_stmt *stmt;
	int ret = RP_EINTERNAL;

	if (!z)
		goto out;
	stmt = which >= 0 ? store_cached(st, (enum store_stmt)which, sql) : store_prepare(st, sql);
	if (!stmt)
		goto out;
	db_bind_int64(stmt, 1, id);
	db_bind_int64(stmt, 2, (int64_t)len);
	db_bind_blob(stmt, 3, z, zlen);
	ret = store_step_done(st, stmt, "cannot record a log");
	if (which < 0)
		db_finalize(stmt);
out:
	free(z);
	return ret;
}

int store_run_log_save(struct store *st, int64_t run_id, const void *data, size_t len)
{
	/* one per run: kept */
	return log_save(st, STORE_STMT_RUN_LOG_INSERT,
			"INSERT INTO run_logs(run_id, length, data) VALUES(?1, ?2, ?3)"
			" ON CONFLICT(run_id) DO UPDATE SET length = excluded.length,"
			" data = excluded.data",
			run_id, data, len);
}

int store_build_log_save(struct store *st, int64_t build_id, const void *data, size_t len)
{
	return log_save(st, -1,
			"INSERT INTO build_logs(build_id, length, data) VALUES(?1, ?2, ?3)"
			" ON CONFLICT(build_id) DO UPDATE SET length = excluded.length,"
			" data = excluded.data",
			build_id, data, len);
}

/* Reads the log of id from sql into sb: 0, 1 when there is none, RP_EINTERNAL. */
static int log_get(struct store *st, const char *sql, int64_t id, struct strbuf *sb)
{
	struct db_stmt *stmt = store_prepare(st, sql);
	int rc, ret = RP_EINTERNAL;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, id);
	rc = db_step(stmt);
	if (rc == DB_ROW) {
		int64_t len = db_column_int64(stmt, 0);
		size_t zlen;
		const void *z = db_column_blob(stmt, 1, &zlen);
		/* the store is input: a length it cannot hold is a damaged row */
		if (len < 0 || len > STORE_LOG_MAX_BYTES) {
			error("database %s: log %lld: a length of %lld bytes; the row is damaged",
			      st->path, (long long)id, (long long)len);
			goto out;
		}
		strbuf_grow(sb, (size_t)len + 1);
		if (store_decompress(st, sb->buf + sb->len, (size_t)len, z, zlen)) {
			error("database %s: log %lld does not decompress", st->path, (long long)id);
			goto out;
		}
		sb->len += (size_t)len;
		sb->buf[sb->len] = '\0';
		ret = 0;
	} else if (rc == DB_DONE) {
		ret = 1;
	} else {
		store_db_error(st, "cannot read a log");
	}
out:
	db_finalize(stmt);
	return ret;
}

int store_run_log_get(struct store *st, int64_t run_id, struct strbuf *sb)
{
	return log_get(st, "SELECT length, data FROM run_logs WHERE run_id = ?1", run_id, sb);
}

int store_build_log_get(struct store *st, int64_t build_id, struct strbuf *sb)
{
	return log_get(st, "SELECT length, data FROM build_logs WHERE build_id = ?1", build_id, sb);
}

int store_logged_runs(struct store *st, int64_t **ids, size_t *n)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT run_id FROM run_logs ORDER BY run_id");
	size_t alloc = 0;
	int rc;
	*ids = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	while ((rc = db_step(stmt)) == DB_ROW) {
		ALLOC_GROW(*ids, *n + 1, alloc);
		(*ids)[(*n)++] = db_column_int64(stmt, 0);
	}
	db_finalize(stmt);
	if (rc == DB_DONE)
		return 0;
	free(*ids);
	*ids = NULL;
	*n = 0;
	return store_db_error(st, "cannot list the stored logs");
}
