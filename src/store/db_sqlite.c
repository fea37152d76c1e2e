/* The SQLite backend of the store's database interface (db.h). */
#include "store/db.h"
#include "store/db_sqlite.h"

#include <stdio.h>
#include <string.h>

#include "util/common.h"

struct sqlite_db {
	struct db base;
	sqlite3 *conn;
	int last_rc;
	/* BEGIN IMMEDIATE and COMMIT, compiled on first use and kept (finalized at close):
	 * one pair per stored run, which sqlite3_exec() would parse again every time. */
	sqlite3_stmt *begin, *commit;
};

struct sqlite_stmt {
	struct db_stmt base;
	sqlite3_stmt *stmt;
};

static struct sqlite_db *of(struct db *db)
{
	return (struct sqlite_db *)db;
}

static sqlite3_stmt *stmt_of(struct db_stmt *s)
{
	return ((struct sqlite_stmt *)s)->stmt;
}

/* Records the failure rc of the last call. */
static void failed(struct db *db, int rc)
{
	struct sqlite_db *d = of(db);
	d->last_rc = rc;
	db->busy = rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
	db->unreachable = false;
	db_set_error(db, "%s", d->conn ? sqlite3_errmsg(d->conn) : sqlite3_errstr(rc));
}

sqlite3 *db_sqlite_handle(struct db *db)
{
	return of(db)->conn;
}

int db_sqlite_errcode(struct db *db)
{
	return of(db)->last_rc;
}

static int sq_prepare(struct db *db, const char *sql, struct db_stmt **out)
{
	sqlite3_stmt *stmt = NULL;
	struct sqlite_stmt *s;
	int rc = sqlite3_prepare_v2(of(db)->conn, sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK) {
		failed(db, rc);
		return -1;
	}
	s = xcalloc(1, sizeof(*s));
	s->base.db = db;
	s->stmt = stmt;
	*out = &s->base;
	return 0;
}

static void sq_bind_int64(struct db_stmt *s, int i, int64_t v)
{
	sqlite3_bind_int64(stmt_of(s), i, v);
}

static void sq_bind_double(struct db_stmt *s, int i, double v)
{
	sqlite3_bind_double(stmt_of(s), i, v);
}

static void sq_bind_text(struct db_stmt *s, int i, const char *v)
{
	sqlite3_bind_text(stmt_of(s), i, v, -1, SQLITE_TRANSIENT);
}

static void sq_bind_blob(struct db_stmt *s, int i, const void *p, size_t n)
{
	sqlite3_bind_blob64(stmt_of(s), i, n ? p : "", n, SQLITE_TRANSIENT);
}

static void sq_bind_null(struct db_stmt *s, int i)
{
	sqlite3_bind_null(stmt_of(s), i);
}

static int sq_step(struct db_stmt *s)
{
	int rc = sqlite3_step(stmt_of(s));
	if (rc == SQLITE_ROW)
		return DB_ROW;
	if (rc == SQLITE_DONE)
		return DB_DONE;
	failed(s->db, rc);
	return DB_ERROR;
}

static void sq_reset(struct db_stmt *s)
{
	sqlite3_reset(stmt_of(s));
}

static void sq_finalize(struct db_stmt *s)
{
	sqlite3_finalize(stmt_of(s));
	free(s);
}

static bool sq_column_null(struct db_stmt *s, int i)
{
	return sqlite3_column_type(stmt_of(s), i) == SQLITE_NULL;
}

static int64_t sq_column_int64(struct db_stmt *s, int i)
{
	return sqlite3_column_int64(stmt_of(s), i);
}

static double sq_column_double(struct db_stmt *s, int i)
{
	return sqlite3_column_double(stmt_of(s), i);
}

static const char *sq_column_text(struct db_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(stmt_of(s), i);
}

static const void *sq_column_blob(struct db_stmt *s, int i, size_t *len)
{
	const void *p = sqlite3_column_blob(stmt_of(s), i);
	*len = (size_t)sqlite3_column_bytes(stmt_of(s), i);
	return p;
}

static int sq_exec(struct db *db, const char *sql)
{
	int rc = sqlite3_exec(of(db)->conn, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		failed(db, rc);
		return -1;
	}
	return 0;
}

/* Runs the kept statement *kept, compiling it from sql on first use: 0 or -1 (failed()). */
static int kept_exec(struct db *db, sqlite3_stmt **kept, const char *sql)
{
	int rc = SQLITE_OK;
	if (!*kept)
		rc = sqlite3_prepare_v3(of(db)->conn, sql, -1, SQLITE_PREPARE_PERSISTENT, kept,
					NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(*kept);
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
		else
			failed(db, rc); /* before the reset, with the step's message */
		sqlite3_reset(*kept);
		return rc == SQLITE_OK ? 0 : -1;
	}
	failed(db, rc);
	return -1;
}

static int sq_begin(struct db *db)
{
	return kept_exec(db, &of(db)->begin, "BEGIN IMMEDIATE");
}

static int sq_commit(struct db *db)
{
	return kept_exec(db, &of(db)->commit, "COMMIT");
}

static bool sq_in_transaction(struct db *db)
{
	return of(db)->conn && !sqlite3_get_autocommit(of(db)->conn);
}

static int pragma_int(struct db *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *stmt;
	int rc = sqlite3_prepare_v2(of(db)->conn, sql, -1, &stmt, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW) {
			*out = sqlite3_column_int64(stmt, 0);
			rc = SQLITE_OK;
		}
		sqlite3_finalize(stmt);
	}
	if (rc != SQLITE_OK) {
		failed(db, rc);
		return -1;
	}
	return 0;
}

/* PRAGMA application_id marks the file as revperf's; user_version is the schema version. */
static int sq_meta_read(struct db *db, struct db_meta *out)
{
	int64_t app_id = 0;
	if (pragma_int(db, "PRAGMA application_id", &app_id) ||
	    pragma_int(db, "PRAGMA user_version", &out->version) ||
	    pragma_int(db, "SELECT count(*) FROM sqlite_master", &out->nr_tables))
		return -1;
	out->marked = app_id != 0;
	out->ours = app_id == DB_APPLICATION_ID;
	if (!out->ours)
		out->version = 0;
	snprintf(out->mark, sizeof(out->mark), "application_id %lld", (long long)app_id);
	return 0;
}

static int sq_meta_write(struct db *db, int64_t version)
{
	char sql[128];
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %lld;",
		 DB_APPLICATION_ID, (long long)version);
	return sq_exec(db, sql);
}

static void sq_close(struct db *db)
{
	/* Unfinalized statements would keep the connection open (SQLITE_BUSY). */
	sqlite3_finalize(of(db)->begin);
	sqlite3_finalize(of(db)->commit);
	sqlite3_close(of(db)->conn);
	free(db->name);
	free(db->errmsg);
	free(db);
}

static const struct db_ops sqlite_ops = {
	.prepare = sq_prepare,
	.bind_int64 = sq_bind_int64,
	.bind_double = sq_bind_double,
	.bind_text = sq_bind_text,
	.bind_blob = sq_bind_blob,
	.bind_null = sq_bind_null,
	.step = sq_step,
	.reset = sq_reset,
	.finalize = sq_finalize,
	.column_null = sq_column_null,
	.column_int64 = sq_column_int64,
	.column_double = sq_column_double,
	.column_text = sq_column_text,
	.column_blob = sq_column_blob,
	.exec = sq_exec,
	.begin = sq_begin,
	.commit = sq_commit,
	.in_transaction = sq_in_transaction,
	.meta_read = sq_meta_read,
	.meta_write = sq_meta_write,
	.close = sq_close,
};

int db_sqlite_open(const char *path, struct db **out)
{
	struct sqlite_db *d = xcalloc(1, sizeof(*d));
	int rc;
	d->base.ops = &sqlite_ops;
	d->base.engine = DB_SQLITE;
	d->base.name = xstrdup(path);
	*out = &d->base;
	rc = sqlite3_open_v2(path, &d->conn, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		failed(&d->base, rc);
		return -1;
	}
	sqlite3_extended_result_codes(d->conn, 0);
	return 0;
}
