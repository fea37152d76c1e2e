#ifndef REVPERF_TESTS_TMP_DB_H
#define REVPERF_TESTS_TMP_DB_H

/*
 * A database for a unit test, on the engine the run chose: an SQLite file under /tmp, or,
 * when REVPERF_TEST_PG holds the connection string of a PostgreSQL server's superuser
 * (tests/pg/run.sh sets it; ctest runs the store's tests both ways), a new database on
 * that server. tmp_db_path() gives its location for store_open() (no SQLite file created;
 * the caller frees it through tmp_db_remove(), which deletes the database: the file with
 * its WAL and shared-memory files, or DROP DATABASE). tmp_db_exec() and tmp_db_text() run
 * SQL on it directly, outside the store, to set up or look at what the store cannot.
 * Include after <cmocka.h> and "util/common.h".
 */
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The PostgreSQL server of this run, or NULL: SQLite. */
static inline const char *tmp_db_pg(void)
{
	const char *s = getenv("REVPERF_TEST_PG");
	return s && *s ? s : NULL;
}

static inline bool tmp_db_is_pg(void)
{
	return tmp_db_pg() != NULL;
}

/* Runs sql on the server's superuser connection (CREATE/DROP DATABASE). */
static inline void tmp_db_admin(const char *sql)
{
	PGconn *c = PQconnectdb(tmp_db_pg());
	PGresult *r;
	if (PQstatus(c) != CONNECTION_OK)
		fail_msg("cannot connect to the test server: %s", PQerrorMessage(c));
	r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		fail_msg("%s: %s", sql, PQresultErrorMessage(r));
	PQclear(r);
	PQfinish(c);
}

static inline char *tmp_db_path(void)
{
	if (tmp_db_is_pg()) {
		static unsigned counter;
		struct strbuf sql = STRBUF_INIT, conn = STRBUF_INIT;
		char name[64];
		snprintf(name, sizeof(name), "revperf_unit_%ld_%u", (long)getpid(), counter++);
		strbuf_addf(&sql, "CREATE DATABASE %s", name);
		tmp_db_admin(sql.buf);
		strbuf_release(&sql);
		/* a later dbname= replaces the superuser's */
		strbuf_addf(&conn, "%s dbname=%s", tmp_db_pg(), name);
		return strbuf_detach(&conn);
	}
	char *path = xstrdup("/tmp/revperf-test-db-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	return path;
}

static inline void tmp_db_remove(char *path)
{
	struct strbuf sb = STRBUF_INIT;
	if (tmp_db_is_pg()) {
		const char *name = strrchr(path, '=') + 1;
		strbuf_addf(&sb, "DROP DATABASE IF EXISTS %s WITH (FORCE)", name);
		tmp_db_admin(sb.buf);
		strbuf_release(&sb);
		free(path);
		return;
	}
	unlink(path);
	strbuf_addf(&sb, "%s-wal", path);
	unlink(sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s-shm", path);
	unlink(sb.buf);
	strbuf_release(&sb);
	free(path);
}

/* Runs sql (several statements) on the database at path; fails the test on an error. */
static inline void tmp_db_exec(const char *path, const char *sql)
{
	if (tmp_db_is_pg()) {
		PGconn *c = PQconnectdb(path);
		PGresult *r;
		if (PQstatus(c) != CONNECTION_OK)
			fail_msg("cannot connect to %s: %s", path, PQerrorMessage(c));
		r = PQexec(c, sql);
		if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
			fail_msg("%s: %s", sql, PQresultErrorMessage(r));
		PQclear(r);
		PQfinish(c);
	} else {
		sqlite3 *db;
		char *err = NULL;
		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
			fail_msg("%s: %s", sql, err);
		sqlite3_close(db);
	}
}

/* The first column of the first row of sql, as text (a copy to free), or NULL. */
static inline char *tmp_db_text(const char *path, const char *sql)
{
	char *out = NULL;
	if (tmp_db_is_pg()) {
		PGconn *c = PQconnectdb(path);
		PGresult *r;
		if (PQstatus(c) != CONNECTION_OK)
			fail_msg("cannot connect to %s: %s", path, PQerrorMessage(c));
		r = PQexec(c, sql);
		if (PQresultStatus(r) != PGRES_TUPLES_OK)
			fail_msg("%s: %s", sql, PQresultErrorMessage(r));
		if (PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
			out = xstrdup(PQgetvalue(r, 0, 0));
		PQclear(r);
		PQfinish(c);
	} else {
		sqlite3 *db;
		sqlite3_stmt *stmt;
		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
			fail_msg("%s: %s", sql, sqlite3_errmsg(db));
		if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0))
			out = xstrdup((const char *)sqlite3_column_text(stmt, 0));
		sqlite3_finalize(stmt);
		sqlite3_close(db);
	}
	return out;
}

/*
 * The database of a test fixture whose SQLite file would be sqlite_path: that path, or on
 * PostgreSQL the same new database for every call with that path, dropped at exit. The
 * string stays valid until exit.
 */
static char *tmp_db_pg_paths[64][2];
static inline void tmp_db_drop_all(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(tmp_db_pg_paths) && tmp_db_pg_paths[i][0]; i++) {
		free(tmp_db_pg_paths[i][0]);
		tmp_db_remove(tmp_db_pg_paths[i][1]);
	}
}
static inline const char *tmp_db_at(const char *sqlite_path)
{
	size_t i;
	if (!tmp_db_is_pg())
		return sqlite_path;
	for (i = 0; i < ARRAY_SIZE(tmp_db_pg_paths) && tmp_db_pg_paths[i][0]; i++)
		if (!strcmp(tmp_db_pg_paths[i][0], sqlite_path))
			return tmp_db_pg_paths[i][1];
	assert_true(i < ARRAY_SIZE(tmp_db_pg_paths));
	if (i == 0)
		atexit(tmp_db_drop_all);
	tmp_db_pg_paths[i][0] = xstrdup(sqlite_path);
	tmp_db_pg_paths[i][1] = tmp_db_path();
	return tmp_db_pg_paths[i][1];
}

/* Skips a test that is about SQLite's files (WAL, a file that is not a database, ...). */
#define TMP_DB_SQLITE_ONLY()                                                                       \
	do {                                                                                       \
		if (tmp_db_is_pg())                                                                \
			skip();                                                                    \
	} while (0)

#endif
