#ifndef REVPERF_STORE_STORE_IMPL_H
#define REVPERF_STORE_STORE_IMPL_H

/*
 * Shared by the files of the store (store.c, store_profile.c); not for other modules,
 * which go through store.h.
 */
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct strbuf;

/* Which file a path was when the store opened it (store_check_files()). */
struct store_file_id {
	bool known;
	dev_t dev;
	ino_t ino;
};

/*
 * Statements prepared once per handle and kept (store_cached()): those of every run, which
 * would otherwise be parsed again for each of thousands of runs.
 */
enum store_stmt {
	STORE_STMT_BEGIN,
	STORE_STMT_COMMIT,
	STORE_STMT_RUN_INSERT,
	STORE_STMT_VALUE_INSERT,
	STORE_STMT_MAX
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *cached[STORE_STMT_MAX]; /* NULL until first used; finalized at close */
	char *path;
	/* The busy handler: since when this wait lasts, and what it has said. */
	int64_t busy_since_ns;
	bool busy_noted;      /* the "waiting for the lock" note was printed */
	bool lock_timed_out;  /* this wait for a lock lasted the whole busy timeout */
	bool lock_failed;     /* a statement failed for another process's lock */
	bool busy_interrupted; /* the user interrupted a wait for a lock */
	/* The files behind the database, to notice that something deleted or replaced them. */
	struct store_file_id db_id, wal_id, shm_id;
	int64_t db_size; /* the database file's largest size seen: it never shrinks */
	size_t nr_checks; /* store_check_files() calls: commands that ran benchmarks */
	size_t nr_checks_verified; /* nr_checks at the last successful store_verify() */
	bool damaged;	  /* a check failed and said so: the others stay quiet */
};

/*
 * Prints "database PATH: what: sqlite message" and returns RP_EINTERNAL. When the cause is
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
/* A prepared statement, or NULL after store_db_error(). Finalize it. */
sqlite3_stmt *store_prepare(struct store *st, const char *sql);
/*
 * The kept statement `which`, prepared from sql on first use, reset with its bindings
 * cleared; or NULL after store_db_error(). The store owns it: reset it after use (so that
 * it holds no read transaction), never finalize it. sql must be the same at every call.
 */
sqlite3_stmt *store_cached(struct store *st, enum store_stmt which, const char *sql);
/* Steps a kept statement that returns no row (BEGIN, COMMIT) and resets it: 0, or
 * RP_EINTERNAL after store_db_error()'s line naming what. */
int store_cached_exec(struct store *st, enum store_stmt which, const char *sql, const char *what);
/* Binds s (NULL binds NULL) as a transient copy. */
void store_bind_text(sqlite3_stmt *stmt, int i, const char *s);
/* A malloc'd copy of column i, or NULL when it is NULL. */
char *store_column_dup(sqlite3_stmt *stmt, int i);

/*
 * The runs a struct store_run_filter selects, as a WHERE condition on `runs r` with
 * parameters ?1 to ?7 bound by store_bind_filter() (further parameters start at ?8).
 */
#define STORE_FILTER_SQL                                                                           \
	" r.build_id = ?1 AND r.benchmark_id = ?2 AND r.machine_id = ?3 AND r.warmup = 0"          \
	" AND r.side = ?5 AND (?4 = 0 OR r.comparison_id = ?4) AND r.comparison_id IN"             \
	" (SELECT id FROM comparisons WHERE base_build = ?6 AND target_build = ?7)"
struct store_run_filter;
void store_bind_filter(sqlite3_stmt *stmt, const struct store_run_filter *f);

#endif
