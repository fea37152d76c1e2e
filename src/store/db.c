/* The database interface of the store (db.h): dispatch to the backend, shared helpers. */
#include "store/db.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/common.h"

bool db_is_postgres(const char *where)
{
	const char *p = where;
	if (!where)
		return false;
	if (!strncmp(where, "postgresql://", 13) || !strncmp(where, "postgres://", 11))
		return true;
	/* libpq's key=value pairs begin with a keyword: "host=...", "dbname = ..."; a path
	 * with an '=' further on ("/tmp/a=b/x.db", "./x=1.db") is a file */
	while (*p == ' ' || *p == '\t')
		p++;
	if (!(*p >= 'a' && *p <= 'z'))
		return false;
	while ((*p >= 'a' && *p <= 'z') || *p == '_')
		p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '=';
}

void db_close(struct db *db)
{
	if (db)
		db->ops->close(db);
}

int db_prepare(struct db *db, const char *sql, struct db_stmt **out)
{
	*out = NULL;
	return db->ops->prepare(db, sql, out);
}

void db_bind_int64(struct db_stmt *s, int i, int64_t v)
{
	s->db->ops->bind_int64(s, i, v);
}

void db_bind_double(struct db_stmt *s, int i, double v)
{
	s->db->ops->bind_double(s, i, v);
}

void db_bind_text(struct db_stmt *s, int i, const char *v)
{
	if (v)
		s->db->ops->bind_text(s, i, v);
	else
		s->db->ops->bind_null(s, i);
}

void db_bind_blob(struct db_stmt *s, int i, const void *p, size_t n)
{
	s->db->ops->bind_blob(s, i, p, n);
}

void db_bind_null(struct db_stmt *s, int i)
{
	s->db->ops->bind_null(s, i);
}

int db_step(struct db_stmt *s)
{
	return s->db->ops->step(s);
}

void db_prefetch(struct db_stmt **s, size_t n)
{
	if (n && s[0]->db->ops->prefetch)
		s[0]->db->ops->prefetch(s, n);
}

void db_stream(struct db_stmt *s)
{
	if (s->db->ops->stream)
		s->db->ops->stream(s);
}

void db_reset(struct db_stmt *s)
{
	s->db->ops->reset(s);
}

void db_finalize(struct db_stmt *s)
{
	if (s)
		s->db->ops->finalize(s);
}

bool db_column_null(struct db_stmt *s, int i)
{
	return s->db->ops->column_null(s, i);
}

int64_t db_column_int64(struct db_stmt *s, int i)
{
	return s->db->ops->column_int64(s, i);
}

int db_column_int(struct db_stmt *s, int i)
{
	return (int)s->db->ops->column_int64(s, i);
}

double db_column_double(struct db_stmt *s, int i)
{
	return s->db->ops->column_double(s, i);
}

const char *db_column_text(struct db_stmt *s, int i)
{
	return s->db->ops->column_text(s, i);
}

const void *db_column_blob(struct db_stmt *s, int i, size_t *len)
{
	return s->db->ops->column_blob(s, i, len);
}

int db_exec(struct db *db, const char *sql)
{
	return db->ops->exec(db, sql);
}

int db_begin(struct db *db)
{
	return db->ops->begin(db);
}

int db_commit(struct db *db)
{
	return db->ops->commit ? db->ops->commit(db) : db->ops->exec(db, "COMMIT");
}

void db_rollback(struct db *db)
{
	if (db && db->ops->in_transaction(db)) {
		/* keep the message of the failure that led here */
		char *msg = db->errmsg ? xstrdup(db->errmsg) : NULL;
		bool busy = db->busy, unreachable = db->unreachable;
		db->ops->exec(db, "ROLLBACK");
		free(db->errmsg);
		db->errmsg = msg;
		db->busy = busy;
		db->unreachable = unreachable;
	}
}

bool db_in_transaction(struct db *db)
{
	return db->ops->in_transaction(db);
}

int db_meta_read(struct db *db, struct db_meta *out)
{
	memset(out, 0, sizeof(*out));
	return db->ops->meta_read(db, out);
}

int db_meta_write(struct db *db, int64_t version)
{
	return db->ops->meta_write(db, version);
}

const char *db_errmsg(const struct db *db)
{
	return db->errmsg ? db->errmsg : "unknown error";
}

void db_set_error(struct db *db, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* One line: libpq's messages span several ("...failed\n\tIs the server running"):
	 * each run of white space becomes one space. */
	size_t w = 0;
	for (size_t r = 0; r < sb.len; r++) {
		bool space = sb.buf[r] == '\n' || sb.buf[r] == '\t' || sb.buf[r] == '\r' ||
			     sb.buf[r] == ' ';
		if (space && (w == 0 || sb.buf[w - 1] == ' '))
			continue;
		sb.buf[w++] = space ? ' ' : sb.buf[r];
	}
	while (w && sb.buf[w - 1] == ' ')
		w--;
	sb.buf[w] = '\0';
	sb.len = w;
	free(db->errmsg);
	db->errmsg = strbuf_detach(&sb);
}

/* Whether the word at s (length n) is w, case-insensitively. */
static bool word_is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !strncasecmp(s, w, n);
}

void db_ddl(const struct db *db, const char *sql, struct strbuf *out)
{
	const char *p = sql;
	if (db->engine == DB_SQLITE) {
		strbuf_addstr(out, sql);
		return;
	}
	while (*p) {
		const char *w = p;
		size_t n;
		if (*p == '\'') { /* a literal, as it is */
			do
				strbuf_addch(out, *p++);
			while (*p && *p != '\'');
			if (*p)
				strbuf_addch(out, *p++);
			continue;
		}
		if (!isalpha((unsigned char)*p) && *p != '_') {
			strbuf_addch(out, *p++);
			continue;
		}
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		n = (size_t)(p - w);
		if (word_is(w, n, "INTEGER") && !strncasecmp(p, " PRIMARY KEY", 12)) {
			strbuf_addstr(out, "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY");
			p += 12;
		} else if (word_is(w, n, "INTEGER")) {
			strbuf_addstr(out, "BIGINT");
		} else if (word_is(w, n, "REAL")) {
			strbuf_addstr(out, "DOUBLE PRECISION");
		} else if (word_is(w, n, "BLOB")) {
			strbuf_addstr(out, "BYTEA");
		} else if (word_is(w, n, "WITHOUT") && !strncasecmp(p, " ROWID", 6)) {
			p += 6;
			while (out->len && out->buf[out->len - 1] == ' ')
				out->buf[--out->len] = '\0';
		} else {
			strbuf_add(out, w, n);
		}
	}
}
