#ifndef REVPERF_CORE_STORE_IMPL_H
#define REVPERF_CORE_STORE_IMPL_H

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

#endif
