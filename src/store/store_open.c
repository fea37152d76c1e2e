/*
 * Opening the store: the engine chosen by the location (an SQLite file, or PostgreSQL
 * when it is a connection string),
 * the schema created and migrated in one write transaction, and the comparisons whose
 * process is gone marked abandoned.
 */
#include "store/store.h"
#include "store/store_history.h"
#include "store/store_impl.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "collect/machine.h"
#include "util/common.h"

void store_process_host(char *out, size_t size)
{
	if (gethostname(out, size) < 0)
		snprintf(out, size, "unknown");
	out[size - 1] = '\0';
}

int store_db_error(struct store *st, const char *what)
{
	if (st->db->busy)
		return store_sqlite_busy_error(st, what);
	if (st->db->unreachable) {
		if (st->unreachable)
			return RP_EINTERNAL; /* said once: the server is gone */
		st->unreachable = true;
	}
	error("database %s: %s: %s", st->path, what, db_errmsg(st->db));
	return RP_EINTERNAL;
}

int store_exec(struct store *st, const char *sql)
{
	if (db_exec(st->db, sql))
		return store_db_error(st, "cannot update");
	return 0;
}

/*
 * Reads the header of a database inside a transaction, and refuses what is not ours.
 * Returns 0, 1 when it is ours and current (nothing to do), RP_EINPUT or RP_EINTERNAL.
 */
static int read_header(struct store *st, struct db_meta *h)
{
	if (db_meta_read(st->db, h)) {
		if (st->db->engine == DB_SQLITE && store_sqlite_not_a_database(st)) {
			error("%s is not a revperf database (not SQLite, or corrupt); move it away "
			      "and run again to start a new one",
			      st->path);
			return RP_EINPUT;
		}
		return store_db_error(st, "cannot read its schema");
	}
	if (!h->ours && (h->nr_tables > 0 || h->marked)) {
		if (st->db->engine == DB_SQLITE)
			error("%s is an SQLite database of another program (%s); move it away so "
			      "that revperf can create its own",
			      st->path, h->mark);
		else
			error("%s is a PostgreSQL database of another program (%s); give revperf a "
			      "database of its own (createdb), or a schema of its own "
			      "(options=-csearch_path=NAME)",
			      st->path, h->mark);
		return RP_EINPUT;
	}
	if (h->version > STORE_SCHEMA_VERSION) {
		error("%s has schema version %lld, newer than this revperf understands (%d); "
		      "upgrade revperf",
		      st->path, (long long)h->version, STORE_SCHEMA_VERSION);
		return RP_EINPUT;
	}
	return h->ours && h->version == STORE_SCHEMA_VERSION;
}

/* The migration steps above version `from`, for this engine, in sql. */
static void migration_sql(const struct store *st, int64_t from, struct strbuf *sql)
{
	for (size_t i = 0; i < store_nr_migrations; i++) {
		const struct store_migration *m = &store_migrations[i];
		if (m->to <= from)
			continue;
		if (st->db->engine == DB_POSTGRES && m->pg_sql)
			db_ddl(st->db, m->pg_sql, sql);
		else
			db_ddl(st->db, m->sql, sql);
	}
}

/*
 * Checks that the database is ours (or empty), and creates or migrates its schema. A
 * current database is only read. Otherwise the header is read again inside one write
 * transaction (SQLite's BEGIN IMMEDIATE; on PostgreSQL an advisory lock that
 * db_meta_read() takes) that also creates and migrates, so that of several revperf
 * processes opening a new database at once one creates the schema and the others see it
 * done: none can see the tables of the first before its mark. `existing`: a database
 * without revperf's schema is an error, not created.
 */
static int check_and_migrate(struct store *st, bool existing)
{
	struct db_meta h;
	struct strbuf sql = STRBUF_INIT;
	int ret;
	if (db_exec(st->db, "BEGIN"))
		return store_db_error(st, "cannot read its schema");
	ret = read_header(st, &h);
	db_rollback(st->db);
	if (ret)
		return ret < 0 ? ret : 0;
	if (existing && !h.ours) {
		error("no results in %s yet; run `revperf compare BASE TARGET` or `revperf "
		      "history` first (or `revperf submit` one for the workers)",
		      st->path);
		return RP_EINPUT;
	}
	if (store_transaction_begin(st))
		return st->busy_interrupted ? RP_EINTERRUPT
		       : st->lock_failed    ? RP_EINPUT
					    : RP_EINTERNAL;
	ret = read_header(st, &h);
	if (ret) {
		db_rollback(st->db);
		return ret < 0 ? ret : 0;
	}
	migration_sql(st, h.version, &sql);
	if (db_exec(st->db, sql.buf) || db_meta_write(st->db, STORE_SCHEMA_VERSION))
		ret = store_db_error(st, h.version ? "cannot migrate its schema"
						   : "cannot create its schema");
	else
		ret = store_transaction_commit(st);
	strbuf_release(&sql);
	if (ret)
		db_rollback(st->db);
	return ret;
}

/*
 * Marks 'abandoned' the comparisons still 'running' whose process is gone: same host,
 * and another boot, or no process with that pid and start time. Comparisons of other
 * hosts (a shared directory or database) and of revperf before schema 4 stay as they are;
 * in a PostgreSQL store, so do those of another boot (another machine may have the same
 * host name).
 */
static int reap_abandoned(struct store *st)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT id, boot_id, pid, pid_start FROM"
						 " comparisons WHERE status = 'running' AND"
						 " host = ?1 AND pid IS NOT NULL");
	char host[256], boot[64];
	int64_t *gone = NULL;
	size_t n = 0, alloc = 0;
	int rc, ret = RP_EINTERNAL;
	if (!stmt)
		return RP_EINTERNAL;
	store_process_host(host, sizeof(host));
	machine_boot_id(boot, sizeof(boot));
	store_bind_text(stmt, 1, host);
	while ((rc = db_step(stmt)) == DB_ROW) {
		const char *b = db_column_text(stmt, 1);
		pid_t pid = (pid_t)db_column_int64(stmt, 2);
		int64_t start = db_column_int64(stmt, 3);
		if (b && !strcmp(b, boot) && machine_process_start(pid) == start)
			continue; /* it still runs */
		/* A shared store: another boot of this host name may be another machine
		 * (containers, clones), whose comparison runs: only this boot's are reaped. */
		if (st->db->engine == DB_POSTGRES && (!b || strcmp(b, boot)))
			continue;
		ALLOC_GROW(gone, n + 1, alloc);
		gone[n++] = db_column_int64(stmt, 0);
	}
	if (rc != DB_DONE) {
		store_db_error(st, "cannot read comparisons");
		goto out;
	}
	db_finalize(stmt);
	stmt = NULL;
	if (!n) {
		ret = 0;
		goto out;
	}
	if (store_transaction_begin(st))
		goto out;
	stmt = store_prepare(st, "UPDATE comparisons SET status = 'abandoned' WHERE id = ?1 AND"
				 " status = 'running'");
	if (!stmt)
		goto out;
	for (size_t i = 0; i < n; i++) {
		db_bind_int64(stmt, 1, gone[i]);
		if (store_step_done(st, stmt, "cannot mark an abandoned comparison"))
			goto out;
	}
	if (store_transaction_commit(st))
		goto out;
	ret = 0;
out:
	db_finalize(stmt);
	if (ret)
		db_rollback(st->db);
	free(gone);
	return ret;
}

/*
 * A URL that names PostgreSQL but is not one ("postgresql:/db/x", "postgres:host"): taken
 * for a file path it made an SQLite database under a directory "postgresql:". One line.
 */
static bool mistyped_postgres_url(const char *where)
{
	size_t n = !strncasecmp(where, "postgresql:", 11) ? 11
		   : !strncasecmp(where, "postgres:", 9)  ? 9
							  : 0;
	struct strbuf shown = STRBUF_INIT;
	if (!n || db_is_postgres(where))
		return false;
	/* without the user and password it may hold (store_location_display() reads only
	 * well-formed URLs) */
	if (strrchr(where + n, '@')) {
		strbuf_add(&shown, where, n);
		strbuf_addstr(&shown, "...");
		strbuf_addstr(&shown, strrchr(where + n, '@'));
	} else {
		strbuf_addstr(&shown, where);
	}
	error("the store '%s' is not a PostgreSQL URL: write postgresql://USER@HOST:PORT/DBNAME "
	      "(two slashes), or a file path that does not begin with 'postgres'",
	      shown.buf);
	strbuf_release(&shown);
	return true;
}

int store_open(const char *path, unsigned flags, struct store **out)
{
	struct store *st;
	bool pg = db_is_postgres(path);
	int ret;

	*out = NULL;
	if (mistyped_postgres_url(path))
		return RP_EINPUT;
	st = xcalloc(1, sizeof(*st));
	st->wal_fd = -1;
	if (pg) {
		if ((ret = db_pg_open(path, &st->db)))
			goto out;
		st->path = xstrdup(st->db->name); /* without the password */
	} else {
		st->path = xstrdup(path);
		if ((ret = store_sqlite_open(st, path)))
			goto out;
	}
	if ((ret = check_and_migrate(st, flags & STORE_OPEN_EXISTING)))
		goto out;
	if (!pg && (ret = store_sqlite_setup(st)))
		goto out;
	if (reap_abandoned(st)) {
		ret = st->busy_interrupted ? RP_EINTERRUPT
		      : st->lock_failed    ? RP_EINPUT
					   : RP_EINTERNAL;
		goto out;
	}
	*out = st;
	return 0;
out:
	store_close(st);
	return ret;
}

bool store_location_is_postgres(const char *where)
{
	return db_is_postgres(where);
}

bool store_location_has_password(const char *where)
{
	return db_is_postgres(where) && db_pg_has_password(where);
}

void store_location_display(const char *where, struct strbuf *out)
{
	if (db_is_postgres(where))
		db_pg_display(where, out);
	else
		strbuf_addstr(out, where);
}

const char *store_engine_version(void)
{
	return store_sqlite_version();
}

const char *store_engine(const struct store *st)
{
	return st->db->engine == DB_POSTGRES ? "postgresql" : "sqlite";
}

const char *store_name(const struct store *st)
{
	return st->path;
}

struct db_stmt *store_cached(struct store *st, enum store_stmt which, const char *sql)
{
	struct db_stmt **stmt = &st->cached[which];

	if (*stmt) {
		db_reset(*stmt);
		return *stmt;
	}
	return *stmt = store_prepare(st, sql);
}

void store_close(struct store *st)
{
	if (!st)
		return;
	/* Unfinalized statements would keep an SQLite connection open (SQLITE_BUSY). */
	for (int i = 0; i < STORE_STMT_MAX; i++)
		db_finalize(st->cached[i]);
	store_history_prefetch_end(st);
	store_checkpointer_remove(st);
	db_close(st->db);
	store_files_forget(st);
	store_zstd_release(st);
	free(st->path);
	free(st);
}

bool store_lock_failed(const struct store *st)
{
	return st && st->lock_failed;
}

bool store_unreachable(const struct store *st)
{
	return st && st->unreachable;
}
