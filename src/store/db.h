#ifndef REVPERF_STORE_DB_H
#define REVPERF_STORE_DB_H

/*
 * The database engines behind the store, private to src/store/: one small interface
 * (prepare, bind, step, column, finalize; exec; transactions) and two backends, SQLite
 * (db_sqlite.c, the embedded default) and PostgreSQL through libpq (db_pg.c). The store's
 * SQL is written once, in the subset both understand: numbered parameters ?1, ?2 (the
 * PostgreSQL backend turns them into $1, $2), INSERT ... ON CONFLICT instead of INSERT OR
 * IGNORE / REPLACE, RETURNING id for new ids, no boolean arithmetic. Table definitions are
 * written in SQLite's types and rewritten for PostgreSQL by db_ddl(). A db handle is not
 * thread-safe.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

enum db_engine {
	DB_SQLITE,
	DB_POSTGRES,
};

/* db_step()'s results; DB_ERROR after a failure whose message db_errmsg() gives. */
enum db_step_result {
	DB_ERROR = -1,
	DB_DONE = 0,
	DB_ROW = 1,
};

struct db;
/* A prepared statement: every backend's statement starts with this. */
struct db_stmt {
	struct db *db;
};

/* What a database says it is (db_meta_read()), read inside the caller's transaction. */
struct db_meta {
	int64_t nr_tables; /* tables of any program in it */
	bool marked;	   /* it carries a program's mark (SQLite application_id, PostgreSQL
			      table schema_version) */
	bool ours;	   /* ... and the mark is revperf's */
	int64_t version;   /* revperf's schema version, 0 when not marked */
	char mark[64];	   /* the mark found, for a message ("application_id 42") */
};

/* The operations of a backend (db.c dispatches; each backend defines one table). */
struct db_ops {
	int (*prepare)(struct db *db, const char *sql, struct db_stmt **out);
	void (*bind_int64)(struct db_stmt *s, int i, int64_t v);
	void (*bind_double)(struct db_stmt *s, int i, double v);
	void (*bind_text)(struct db_stmt *s, int i, const char *v);
	void (*bind_blob)(struct db_stmt *s, int i, const void *p, size_t n);
	void (*bind_null)(struct db_stmt *s, int i);
	int (*step)(struct db_stmt *s);
	void (*reset)(struct db_stmt *s);
	void (*finalize)(struct db_stmt *s);
	void (*prefetch)(struct db_stmt **s, size_t n); /* NULL: nothing to gain */
	void (*stream)(struct db_stmt *s); /* NULL: rows are read as they come anyway */
	bool (*column_null)(struct db_stmt *s, int i);
	int64_t (*column_int64)(struct db_stmt *s, int i);
	double (*column_double)(struct db_stmt *s, int i);
	const char *(*column_text)(struct db_stmt *s, int i);
	const void *(*column_blob)(struct db_stmt *s, int i, size_t *len);
	int (*exec)(struct db *db, const char *sql);
	int (*begin)(struct db *db);
	int (*commit)(struct db *db); /* NULL: exec("COMMIT") */
	bool (*in_transaction)(struct db *db);
	int (*meta_read)(struct db *db, struct db_meta *out);
	int (*meta_write)(struct db *db, int64_t version);
	void (*close)(struct db *db);
};

/* The part every backend's handle starts with. */
struct db {
	const struct db_ops *ops;
	enum db_engine engine;
	/* The database for messages: a path, or a PostgreSQL URL without its password. */
	char *name;
	/* The last failure's message, one line (no password in it). */
	char *errmsg;
	/* The last failure was another process's lock (SQLite: SQLITE_BUSY, SQLITE_LOCKED). */
	bool busy;
	/* The last failure was a lost connection or a server that cannot be reached. */
	bool unreachable;
};

/* The application id of revperf's SQLite databases ("REVP"), and the name PostgreSQL's
 * schema_version table holds. */
#define DB_APPLICATION_ID 0x52455650
#define DB_APPLICATION_NAME "revperf"

/*
 * Whether a store location is a PostgreSQL connection string (a postgresql:// or
 * postgres:// URI, or libpq's key=value form, which begins with a keyword and '='):
 * anything else is an SQLite file's path.
 */
bool db_is_postgres(const char *where);

/*
 * Opens the SQLite database at path (created when missing). Returns 0, or -1 with *out
 * set to a handle whose db_errmsg() says why (close it too); NULL only on allocation
 * failure, which aborts. Close with db_close().
 */
int db_sqlite_open(const char *path, struct db **out);
/*
 * Connects to PostgreSQL (conninfo as libpq takes it, environment variables included;
 * connect_timeout 10 s unless it says otherwise). Returns 0, or RP_EINPUT when the
 * connection string does not parse, the server cannot be reached or refuses the
 * credentials: one error line, printed here, naming the server without the password.
 * *out is set when a handle exists (close it either way). Close with db_close().
 */
int db_pg_open(const char *conninfo, struct db **out);
/*
 * conninfo for messages, appended to out: postgresql://USER@HOST:PORT/DBNAME (a socket
 * directory as ?host=DIR), never the password.
 */
void db_pg_display(const char *conninfo, struct strbuf *out);
/* Whether conninfo itself holds a password (false when it does not parse). */
bool db_pg_has_password(const char *conninfo);

void db_close(struct db *db);

/*
 * A prepared statement for sql (one statement). Returns 0, or -1 (db_errmsg()); *out is
 * NULL then. Finalize it with db_finalize() (NULL accepted).
 */
int db_prepare(struct db *db, const char *sql, struct db_stmt **out);
/* Binds parameter i (from 1); a copy of text and blob is kept. NULL text binds NULL. */
void db_bind_int64(struct db_stmt *s, int i, int64_t v);
void db_bind_double(struct db_stmt *s, int i, double v);
void db_bind_text(struct db_stmt *s, int i, const char *v);
void db_bind_blob(struct db_stmt *s, int i, const void *p, size_t n);
void db_bind_null(struct db_stmt *s, int i);
/* Runs the statement (first call) or moves to its next row: DB_ROW, DB_DONE or DB_ERROR. */
int db_step(struct db_stmt *s);
/*
 * Starts n reads (bound, not yet stepped, of one handle) in the background where the
 * engine gains from it: PostgreSQL runs them in order in one read-only snapshot, on a
 * connection of their own in a thread, while the caller goes on with other statements on
 * this handle (the server works on both at once); the first step of each waits for the
 * thread. Their snapshot is taken now, not at their first step. If the background
 * connection fails, the first step runs the statement as usual. Binding, resetting or
 * finalizing one waits for the thread and drops its result. SQLite: nothing.
 */
void db_prefetch(struct db_stmt **s, size_t n);
/*
 * Asks for the statement's rows one at a time as the server sends them, instead of its
 * whole result at the first step (PostgreSQL: libpq's single-row mode; SQLite reads so
 * anyway): less memory for a large read, and the server produces rows while the caller
 * handles the previous ones. Call it before the first step. Until such a statement is
 * stepped to its end, reset or finalized, no other statement may run on the handle (it
 * fails). A read that breaks on the way is not sent again.
 */
void db_stream(struct db_stmt *s);
/* Makes the statement ready to run again; bindings are kept. */
void db_reset(struct db_stmt *s);
void db_finalize(struct db_stmt *s);
/* Columns of the current row, from 0. NULL reads as 0, 0.0, NULL (text) and NULL (blob);
 * texts and blobs stay valid until the next step, reset or finalize. */
bool db_column_null(struct db_stmt *s, int i);
int64_t db_column_int64(struct db_stmt *s, int i);
int db_column_int(struct db_stmt *s, int i);
double db_column_double(struct db_stmt *s, int i);
const char *db_column_text(struct db_stmt *s, int i);
const void *db_column_blob(struct db_stmt *s, int i, size_t *len);

/* Runs sql, one or several statements without parameters or results: 0 or -1. */
int db_exec(struct db *db, const char *sql);
/* A write transaction: SQLite's BEGIN IMMEDIATE (the write lock now), PostgreSQL's BEGIN. */
int db_begin(struct db *db);
int db_commit(struct db *db);
/* Rolls back the open transaction, if any; never fails (a failure is noted in errmsg). */
void db_rollback(struct db *db);
bool db_in_transaction(struct db *db);

/* Reads the database's mark and schema version (call inside a transaction). 0 or -1. */
int db_meta_read(struct db *db, struct db_meta *out);
/* Marks the database as revperf's, at schema version (inside the migrating transaction). */
int db_meta_write(struct db *db, int64_t version);

/*
 * Table definitions (CREATE, ALTER) written with SQLite's types, for this engine: as they
 * are for SQLite; for PostgreSQL INTEGER PRIMARY KEY becomes an identity column, INTEGER
 * BIGINT, REAL DOUBLE PRECISION, BLOB BYTEA, and WITHOUT ROWID goes. Appends to out.
 */
void db_ddl(const struct db *db, const char *sql, struct strbuf *out);

/* The last failure's message (never NULL). */
const char *db_errmsg(const struct db *db);
/* Sets the failure message (printf-style); for the backends. */
__attribute__((format(printf, 2, 3))) void db_set_error(struct db *db, const char *fmt, ...);

#endif
