#ifndef REVPERF_STORE_STORE_IMPL_H
#define REVPERF_STORE_STORE_IMPL_H

/*
 * Shared by the files of the store (store.c, store_profile.c); not for other modules,
 * which go through store.h.
 */
#include <sqlite3.h>

struct store {
	sqlite3 *db;
	char *path;
};

/* Prints "database PATH: what: sqlite message" and returns RP_EINTERNAL. */
int store_db_error(struct store *st, const char *what);
/* A prepared statement, or NULL after store_db_error(). Finalize it. */
sqlite3_stmt *store_prepare(struct store *st, const char *sql);
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
