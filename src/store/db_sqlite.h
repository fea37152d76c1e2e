#ifndef REVPERF_STORE_DB_SQLITE_H
#define REVPERF_STORE_DB_SQLITE_H

/*
 * What only an SQLite database has (its files, locks, pragmas), for store_sqlite.c, the
 * only file besides db_sqlite.c that calls SQLite; everything else goes through db.h.
 */
#include <sqlite3.h>

struct db;

/* The connection of an SQLite handle (db->engine == DB_SQLITE). */
sqlite3 *db_sqlite_handle(struct db *db);
/* SQLite's result code of the last failure (SQLITE_OK when none). */
int db_sqlite_errcode(struct db *db);

#endif
