#ifndef REVPERF_STORE_STORE_IMPL_H
#define REVPERF_STORE_STORE_IMPL_H

/*
 * Shared by the files of the store (store.c, store_profile.c, ...); not for other modules,
 * which go through store.h.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/db.h"

struct strbuf;
struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;
struct store_checkpointer;

/* Which file a path was when the store opened it (store_check_files()). */
struct store_file_id {
	bool known;
	dev_t dev;
	ino_t ino;
};

/*
 * Statements prepared once per handle and kept (store_cached()): those of every run, which
 * would otherwise be parsed again for each of thousands of runs. Through the database
 * interface (db.h), so on both engines: SQLite keeps the compiled statement; PostgreSQL's
 * backend keeps only the rewritten text (it sends it with PQexecParams at every step), so
 * there the saving is that rewrite. The transaction around a run stays db_begin() and
 * store_transaction_commit(), whose busy and reconnection handling is the engine's.
 */
enum store_stmt {
	STORE_STMT_RUN_INSERT,
	STORE_STMT_VALUE_INSERT,
	STORE_STMT_RUN_LOG_INSERT,
	STORE_STMT_MAX
};

struct store {
	struct db *db;
	struct db_stmt *cached[STORE_STMT_MAX]; /* NULL until first used; finalized at close */
	char *path; /* for messages: the SQLite file, or the PostgreSQL URL without password */
	/* store_history_prefetch(): reads of store_history_comparisons() started early */
	struct db_stmt *history_chosen, *history_verdicts, *history_runs;
	/* The busy handler: since when this wait lasts, and what it has said. */
	int64_t busy_since_ns;
	long long busy_timeout_s; /* 0 until the first wait reads it */
	bool busy_noted;      /* the "waiting for the lock" note was printed */
	bool lock_timed_out;  /* this wait for a lock lasted the whole busy timeout */
	bool lock_failed;     /* a statement failed for another process's lock */
	bool busy_interrupted; /* the user interrupted a wait for a lock */
	bool unreachable;      /* a statement failed for a server gone (PostgreSQL) */
	/* The files behind the database, to notice that something deleted or replaced them. */
	struct store_file_id db_id, wal_id, shm_id;
	int wal_fd; /* a -wal file (wal_fd_id), kept open for its header; -1: not open */
	struct store_file_id wal_fd_id;
	int64_t db_size; /* the database file's largest size seen: it never shrinks */
	size_t nr_checks; /* store_check_files() calls: commands that ran benchmarks */
	size_t nr_checks_verified; /* nr_checks at the last successful store_verify() */
	bool damaged;	  /* a check failed and said so: the others stay quiet */
	/* store_compress(), store_decompress(): made on first use, freed at close */
	struct ZSTD_CCtx_s *zstd_c;
	struct ZSTD_DCtx_s *zstd_d;
	struct store_checkpointer *checkpointer; /* SQLite: store_checkpoint.c; else NULL */
};

/* The zstd level of the logs and counter series the store keeps. */
#define STORE_ZSTD_LEVEL 3
/*
 * len bytes of data compressed with the store's kept context (store_zstd.c): a new buffer
 * (the caller frees it) of *zlen bytes, or NULL after error(). Not thread-safe: one
 * context per store.
 */
void *store_compress(struct store *st, const void *data, size_t len, size_t *zlen);
/*
 * Decompresses z (zlen bytes; NULL when zlen is 0) into out, which holds len bytes: 0 when
 * it decompresses to exactly len bytes, -1 otherwise (damaged, or another length). The
 * caller says what failed.
 */
int store_decompress(struct store *st, void *out, size_t len, const void *z, size_t zlen);
/* Frees the store's zstd contexts (store_close()). */
void store_zstd_release(struct store *st);

/*
 * Prints "database PATH: what: the engine's message" and returns RP_EINTERNAL. When the cause is
 * a lock held by another process past the busy timeout, the line names that process
 * (store_lock_owner()) and what to do instead.
 */
int store_db_error(struct store *st, const char *what);
/* Runs sql (several statements); 0, or RP_EINTERNAL after store_db_error()'s line. */
int store_exec(struct store *st, const char *sql);
/*
 * Appends "pid N (COMMAND)" for each other process holding a write lock on the database
 * (/proc/locks: its file, or the WAL index), ", " between them; nothing when none is
 * known. Linux only; elsewhere nothing.
 */
void store_lock_owner(const struct store *st, struct strbuf *out);
/* The host name, as comparisons record it (gethostname; "unknown"). */
void store_process_host(char *out, size_t size);
/* Records the identity of the database's files as they are now (store_check_files()). */
void store_files_remember(struct store *st);
/* Closes the descriptor store_check_files() keeps of the -wal file (store_close()). */
void store_files_forget(struct store *st);
/* A prepared statement, or NULL after store_db_error(). Finalize it with db_finalize(). */
struct db_stmt *store_prepare(struct store *st, const char *sql);
/*
 * The kept statement `which`, prepared from sql on first use, reset (db_reset(): its
 * bindings stay, so bind every parameter); or NULL after store_db_error(). The store owns
 * it: reset it after use (so that it holds no read transaction), never finalize it. sql
 * must be the same at every call.
 */
struct db_stmt *store_cached(struct store *st, enum store_stmt which, const char *sql);
/* Binds s (NULL binds NULL) as a copy. */
void store_bind_text(struct db_stmt *stmt, int i, const char *s);
/* Binds v, or NULL when it is not finite (NaN: not measured). */
void store_bind_real(struct db_stmt *stmt, int i, double v);
/* A malloc'd copy of column i, or NULL when it is NULL. */
char *store_column_dup(struct db_stmt *stmt, int i);
/* The columns of a builds row that store_build_from_row() reads, in its order. */
#define STORE_BUILD_COLUMNS                                                                \
	"id, revision_id, command, variant, worktree, log_path, status, duration_ns,"       \
	" generation, fingerprint"
struct store_build;
/* A builds row selected as STORE_BUILD_COLUMNS into *out (zeroed first). */
void store_build_from_row(struct db_stmt *stmt, struct store_build *out);
/* Column i, NAN when it is NULL. */
double store_column_real(struct db_stmt *stmt, int i);
/*
 * Runs a statement that returns no rows to its end (bound, not yet stepped), then resets
 * it: 0, or RP_EINTERNAL after store_db_error(st, what).
 */
int store_step_done(struct store *st, struct db_stmt *stmt, const char *what);

/* One step of the schema (store_schema.c): to version `to`; pg_sql NULL: sql for both. */
struct store_migration {
	int to;
	const char *sql, *pg_sql;
};
extern const struct store_migration store_migrations[];
extern const size_t store_nr_migrations;

/*
 * SQLite's side of store_open() (store_sqlite.c): refuses symbolic links in place of the
 * database's files, opens it with the busy handler that waits for and names other
 * writers. Returns 0, RP_EINPUT (one error line) or RP_EINTERNAL; st->db is set either
 * way when a handle exists.
 */
int store_sqlite_open(struct store *st, const char *path);
/* Whether the last failure said the file is not an SQLite database, or a corrupt one. */
bool store_sqlite_not_a_database(struct store *st);
/* "sqlite 3.40.1" (static storage). */
const char *store_sqlite_version(void);
/* store_db_error() for a statement that failed for another process's lock. */
int store_sqlite_busy_error(struct store *st, const char *what);
/*
 * After the schema: WAL mode, synchronous = NORMAL, foreign keys, and the WAL's checkpoints
 * in a thread (store_checkpointer_install()). 0 or an RP_* code.
 */
int store_sqlite_setup(struct store *st);
/*
 * The WAL's checkpoints in a thread of their own with a second connection, so that a commit
 * never copies the WAL into the database (store_checkpoint.c); SQLite's automatic
 * checkpoint when the thread cannot start. Remove before closing the store's connection.
 */
void store_checkpointer_install(struct store *st);
void store_checkpointer_remove(struct store *st);
/*
 * SQLite's quick_check at the end of a command (store_verify()): 0 when it says ok, else
 * RP_EINTERNAL after a line that the database is damaged (ending with advice, which also
 * marks st damaged) or that the check could not run.
 */
int store_sqlite_quick_check(struct store *st, const char *advice);

/*
 * The runs a struct store_run_filter selects, as a WHERE condition on `runs r` with
 * parameters ?1 to ?8 bound by store_bind_filter() (further parameters start at ?9). ?4 is
 * the one comparison (> 0), the last of the comparisons (its id negated, < 0), or 0 (all);
 * ?8 the first comparison (since_comparison, 0 for all).
 */
#define STORE_FILTER_SQL                                                                           \
	" r.build_id = ?1 AND r.benchmark_id = ?2 AND r.machine_id = ?3 AND r.warmup = 0"          \
	" AND r.side = ?5 AND (?4 = 0 OR r.comparison_id = ?4 OR r.comparison_id <= -?4)"          \
	" AND r.comparison_id >= ?8 AND r.comparison_id IN"                                         \
	" (SELECT id FROM comparisons WHERE base_build = ?6 AND target_build = ?7)"
struct store_run_filter;
void store_bind_filter(struct db_stmt *stmt, const struct store_run_filter *f);

#endif
