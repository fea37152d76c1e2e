/*
 * The PostgreSQL backend of the store's database interface (db.h), through libpq.
 * Statements run with PQexecParams() at their first step, their whole result read then
 * (the store's reads are a few set-based queries); parameters ?N become $N. db_prefetch()
 * runs reads ahead in a thread on a connection of its own (the history's largest), so
 * that the server computes them while this connection serves the others. Numbers are
 * sent typed (int8, float8), texts untyped so that the server infers them from their
 * column, blobs as binary bytea. A connection that the server dropped (a restart) is
 * noticed before a statement is sent outside a transaction, and made again, waiting up to
 * RECONNECT_WAIT_S: a command that stores a run as it ends keeps going across a restart.
 * The password never appears in a message: db->name is the URL without it, and libpq's
 * messages are cleaned of it.
 */
#include "store/db.h"

#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/common.h"
#include "util/interrupt.h"

/* How long a lost connection is tried again before the statement fails (unless
 * REVPERF_RECONNECT_S says otherwise: 0 to 3600 seconds). */
#define RECONNECT_WAIT_S 60
/* Unless the connection string says otherwise: an unreachable server fails this fast. */
#define CONNECT_TIMEOUT_S "10"
/*
 * And a server that vanishes mid-statement (its host down, the network cut: no reset comes)
 * fails it within about a minute, not the kernel's two hours of keepalive idle: a probe
 * after 30 s idle, every 10 s, 3 unanswered end it; data unacknowledged for 60 s too.
 */
#define KEEPALIVES_IDLE_S "30"
#define KEEPALIVES_INTERVAL_S "10"
#define KEEPALIVES_COUNT "3"
#define TCP_USER_TIMEOUT_MS "60000"

/* Type OIDs (pg_type.h, stable since forever). */
#define BYTEAOID 17
#define INT8OID 20
#define FLOAT8OID 701

struct pg_db {
	struct db base;
	PGconn *conn;
	char *password; /* of the connection string, to clean messages of it; NULL: none */
	char *conninfo; /* as opened: db_prefetch() connects again with it */
	bool gone;	/* the server did not come back within the wait: no more waiting */
	struct pg_stmt *streaming; /* a statement whose rows are still coming (db_stream()) */
};

struct pg_param {
	Oid type;    /* 0: let the server infer it (texts, NULL) */
	char *value; /* NULL: SQL NULL */
	int len;
	int format; /* 0 text, 1 binary (bytea) */
};

struct pg_stmt {
	struct db_stmt base;
	char *sql;
	int nparams;
	struct pg_param *params;
	PGresult *res;
	int row, nrows;
	bool executed;
	bool readonly; /* SELECT or WITH: safe to send again after a lost connection */
	bool stream;   /* db_stream(): rows one at a time (libpq's single-row mode) */
	unsigned char *blob; /* the unescaped bytea of the last column_blob() */
	/* db_prefetch(): the group running it, and its result (NULL: failed, run it here) */
	struct prefetch *pre;
	PGresult *prefetched;
};

/* Statements of db_prefetch() run in order by a thread on a connection of its own. */
struct prefetch {
	pthread_t thread;
	const char *conninfo;
	struct pg_stmt **stmts;
	size_t n;
	size_t refs; /* statements not yet joined */
	bool joined;
};

static struct pg_db *of(struct db *db)
{
	return (struct pg_db *)db;
}

static struct pg_stmt *stmt_of(struct db_stmt *s)
{
	return (struct pg_stmt *)s;
}

/* Replaces every occurrence of the password in sb by "***". */
static void mask_password(const struct pg_db *d, struct strbuf *sb)
{
	size_t plen = d->password ? strlen(d->password) : 0;
	struct strbuf out = STRBUF_INIT;
	const char *p = sb->buf, *hit;
	if (!plen)
		return;
	while ((hit = strstr(p, d->password))) {
		strbuf_add(&out, p, (size_t)(hit - p));
		strbuf_addstr(&out, "***");
		p = hit + plen;
	}
	strbuf_addstr(&out, p);
	strbuf_release(sb);
	*sb = out;
}

/* A statement's failure: the server's primary message, else libpq's. */
static const char *result_error(PGconn *conn, const PGresult *res)
{
	const char *primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	return primary && *primary ? primary : PQerrorMessage(conn);
}

/* Records a failure: msg (libpq's, several lines) cleaned of the password. */
static void failed(struct db *db, const char *msg)
{
	struct pg_db *d = of(db);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, msg && *msg ? msg : "unknown error");
	mask_password(d, &sb);
	db->busy = false;
	db->unreachable = !d->conn || PQstatus(d->conn) != CONNECTION_OK;
	db_set_error(db, "%s", sb.buf);
	strbuf_release(&sb);
}

static void ignore_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static long reconnect_wait_s(void)
{
	const char *env = getenv("REVPERF_RECONNECT_S");
	char *end;
	long v;
	if (!env || !*env)
		return RECONNECT_WAIT_S;
	errno = 0;
	v = strtol(env, &end, 10);
	if (errno || *end || v < 0 || v > 3600) {
		warning("REVPERF_RECONNECT_S='%s' is not a number of seconds from 0 to 3600; "
			"waiting %d s",
			env, RECONNECT_WAIT_S);
		return RECONNECT_WAIT_S;
	}
	return v;
}

static bool idle(const struct pg_db *d)
{
	PGTransactionStatusType t = PQtransactionStatus(d->conn);
	return t == PQTRANS_IDLE || t == PQTRANS_UNKNOWN;
}

/*
 * Whether the connection looks alive: nothing waits on its socket, or what waits (a
 * server's "terminating connection" message, then the end of the stream) is read without
 * losing it. An idle connection has nothing to read; a few rounds read the message, then
 * the end.
 */
static bool alive(PGconn *conn)
{
	for (int i = 0; i < 4; i++) {
		struct pollfd p = { PQsocket(conn), POLLIN, 0 };
		if (PQstatus(conn) != CONNECTION_OK || p.fd < 0)
			return false;
		if (poll(&p, 1, 0) <= 0)
			return true;
		if (!PQconsumeInput(conn))
			return false;
		PQisBusy(conn); /* parses it: a message while idle goes to the notice processor */
	}
	return PQstatus(conn) == CONNECTION_OK;
}

/*
 * Outside a transaction, a connection the server closed (a restart: its message and the
 * end of the stream wait in the socket) is made again before anything is sent, waiting
 * up to RECONNECT_WAIT_S for the server. Returns 0, or -1 (failed()) when the server did
 * not come back, or the user interrupted.
 */
static int ensure_connected(struct db *db)
{
	struct pg_db *d = of(db);
	long wait_s;
	time_t start;
	struct strbuf why = STRBUF_INIT;
	if (!idle(d))
		return 0; /* inside a transaction: losing it is the statement's failure */
	if (alive(d->conn))
		return 0;
	if (d->gone) /* waited once already: the command is ending */
		return -1;
	wait_s = reconnect_wait_s();
	failed(db, PQerrorMessage(d->conn));
	warning("database %s: the connection was lost (%s); connecting again for up to %ld s",
		db->name, db_errmsg(db), wait_s);
	start = time(NULL);
	for (;;) {
		struct timespec ts = { 0, 250000000L };
		PQreset(d->conn);
		if (PQstatus(d->conn) == CONNECTION_OK) {
			PQsetNoticeProcessor(d->conn, ignore_notice, NULL);
			warning("database %s: connected again", db->name);
			return 0;
		}
		if (interrupt_requested() || time(NULL) - start >= wait_s)
			break;
		nanosleep(&ts, NULL);
	}
	strbuf_addf(&why, "the connection was lost and the server did not answer again within "
			  "%ld s (", wait_s);
	strbuf_addstr(&why, PQerrorMessage(d->conn));
	while (why.len && (why.buf[why.len - 1] == '\n' || why.buf[why.len - 1] == ' '))
		why.buf[--why.len] = '\0';
	strbuf_addstr(&why, "); start it and run the command again: what was stored stays");
	d->gone = true;
	failed(db, why.buf);
	strbuf_release(&why);
	return -1;
}

/* Copies sql with ?N as $N (and a bare ? as the next number); *nparams the highest. */
static char *translate(const char *sql, int *nparams)
{
	struct strbuf sb = STRBUF_INIT;
	int next = 0, max = 0;
	for (const char *p = sql; *p;) {
		if (*p == '\'' || *p == '"') { /* a literal or a quoted name, as it is */
			char q = *p;
			strbuf_addch(&sb, *p++);
			while (*p && *p != q)
				strbuf_addch(&sb, *p++);
			if (*p)
				strbuf_addch(&sb, *p++);
		} else if (*p == '?') {
			int n = 0;
			p++;
			if (*p >= '0' && *p <= '9')
				while (*p >= '0' && *p <= '9' && n < 100000)
					n = n * 10 + (*p++ - '0');
			else
				n = next + 1;
			next = n;
			if (n > max)
				max = n;
			strbuf_addf(&sb, "$%d", n);
		} else {
			strbuf_addch(&sb, *p++);
		}
	}
	*nparams = max;
	return strbuf_detach(&sb);
}

static int pg_prepare(struct db *db, const char *sql, struct db_stmt **out)
{
	struct pg_stmt *s = xcalloc(1, sizeof(*s));
	const char *p = sql;
	s->base.db = db;
	s->sql = translate(sql, &s->nparams);
	s->params = xcalloc(s->nparams ? (size_t)s->nparams : 1, sizeof(*s->params));
	s->row = -1;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	s->readonly = !strncasecmp(p, "SELECT", 6) || !strncasecmp(p, "WITH", 4);
	*out = &s->base;
	return 0;
}

/* Waits for the statement's prefetch thread, if any; its result kept when `keep`. */
static void prefetch_join(struct pg_stmt *s, bool keep)
{
	struct prefetch *pre = s->pre;
	if (!pre)
		return;
	if (!pre->joined) {
		pthread_join(pre->thread, NULL);
		pre->joined = true;
	}
	s->pre = NULL;
	if (--pre->refs == 0) {
		free(pre->stmts);
		free(pre);
	}
	if (!keep) {
		PQclear(s->prefetched);
		s->prefetched = NULL;
	}
}

/* The parameter i (from 1) emptied, or NULL when i is out of range (ignored, as SQLite). */
static struct pg_param *param(struct db_stmt *st, int i)
{
	struct pg_stmt *s = stmt_of(st);
	struct pg_param *p;
	if (i < 1 || i > s->nparams)
		return NULL;
	prefetch_join(s, false); /* bound anew: the prefetched result is not this one's */
	p = &s->params[i - 1];
	free(p->value);
	memset(p, 0, sizeof(*p));
	return p;
}

static void pg_bind_int64(struct db_stmt *s, int i, int64_t v)
{
	struct pg_param *p = param(s, i);
	struct strbuf sb = STRBUF_INIT;
	if (!p)
		return;
	strbuf_addf(&sb, "%lld", (long long)v);
	p->type = INT8OID;
	p->value = strbuf_detach(&sb);
}

static void pg_bind_double(struct db_stmt *s, int i, double v)
{
	struct pg_param *p = param(s, i);
	struct strbuf sb = STRBUF_INIT;
	if (!p)
		return;
	if (isnan(v))
		strbuf_addstr(&sb, "NaN");
	else if (isinf(v))
		strbuf_addstr(&sb, v > 0 ? "Infinity" : "-Infinity");
	else
		strbuf_addf(&sb, "%.17g", v);
	p->type = FLOAT8OID;
	p->value = strbuf_detach(&sb);
}

static void pg_bind_text(struct db_stmt *s, int i, const char *v)
{
	struct pg_param *p = param(s, i);
	if (p)
		p->value = xstrdup(v);
}

static void pg_bind_blob(struct db_stmt *s, int i, const void *data, size_t n)
{
	struct pg_param *p = param(s, i);
	if (!p)
		return;
	if (n > INT32_MAX) { /* the store's blobs are capped far below */
		fprintf(stderr, "revperf: a blob of %zu bytes is too large for PostgreSQL\n", n);
		abort();
	}
	p->type = BYTEAOID;
	p->value = xmalloc(n ? n : 1);
	memcpy(p->value, data, n);
	p->len = (int)n;
	p->format = 1;
}

static void pg_bind_null(struct db_stmt *s, int i)
{
	param(s, i);
}

/* The rest of a streamed statement's rows, read and dropped: the connection is free. */
static void end_stream(struct pg_stmt *s)
{
	struct pg_db *d = of(s->base.db);
	PGresult *res;
	if (d->streaming != s)
		return;
	while ((res = PQgetResult(d->conn)))
		PQclear(res);
	d->streaming = NULL;
}

static void clear_result(struct pg_stmt *s)
{
	end_stream(s);
	prefetch_join(s, false);
	PQclear(s->res);
	s->res = NULL;
	PQfreemem(s->blob);
	s->blob = NULL;
	s->executed = false;
	s->row = -1;
	s->nrows = 0;
}

/* Sends the statement with its parameters: 0, or -1 (failed()). */
static int execute(struct pg_stmt *s)
{
	struct db *db = s->base.db;
	struct pg_db *d = of(db);
	int n = s->nparams;
	Oid *types = xcalloc(n ? (size_t)n : 1, sizeof(*types));
	const char **values = xcalloc(n ? (size_t)n : 1, sizeof(*values));
	int *lengths = xcalloc(n ? (size_t)n : 1, sizeof(*lengths));
	int *formats = xcalloc(n ? (size_t)n : 1, sizeof(*formats));
	int ret = -1;

	for (int i = 0; i < n; i++) {
		types[i] = s->params[i].type;
		values[i] = s->params[i].value;
		lengths[i] = s->params[i].len;
		formats[i] = s->params[i].format;
	}
	if (d->streaming) {
		failed(db, "a streamed statement's rows are still being read (a bug)");
		goto out;
	}
	if (s->stream) {
		if (ensure_connected(db))
			goto out;
		if (!PQsendQueryParams(d->conn, s->sql, n, types, values, lengths, formats, 0)) {
			failed(db, PQerrorMessage(d->conn));
			goto out;
		}
		PQsetSingleRowMode(d->conn);
		d->streaming = s;
		s->executed = true;
		ret = 0;
		goto out;
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		bool was_idle = idle(d);
		ExecStatusType status;
		if (ensure_connected(db))
			break;
		s->res = PQexecParams(d->conn, s->sql, n, types, values, lengths, formats, 0);
		status = PQresultStatus(s->res);
		if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
			s->nrows = PQntuples(s->res);
			s->executed = true;
			ret = 0;
			break;
		}
		failed(db, result_error(d->conn, s->res));
		PQclear(s->res);
		s->res = NULL;
		/* A read sent outside a transaction on a connection that broke meanwhile is
		 * sent again once; a write is not: it may have been done. */
		if (!(db->unreachable && was_idle && s->readonly))
			break;
	}
out:
	free(types);
	free(values);
	free(lengths);
	free(formats);
	return ret;
}

static PGconn *connect_to(const char *conninfo);

/* Runs s on conn, its result into s->prefetched (kept only when it succeeded). */
static void prefetch_one(PGconn *conn, struct pg_stmt *s)
{
	int n = s->nparams;
	Oid *types = xcalloc(n ? (size_t)n : 1, sizeof(*types));
	const char **values = xcalloc(n ? (size_t)n : 1, sizeof(*values));
	int *lengths = xcalloc(n ? (size_t)n : 1, sizeof(*lengths));
	int *formats = xcalloc(n ? (size_t)n : 1, sizeof(*formats));
	PGresult *res;

	for (int i = 0; i < n; i++) {
		types[i] = s->params[i].type;
		values[i] = s->params[i].value;
		lengths[i] = s->params[i].len;
		formats[i] = s->params[i].format;
	}
	res = PQexecParams(conn, s->sql, n, types, values, lengths, formats, 0);
	if (PQresultStatus(res) == PGRES_TUPLES_OK)
		s->prefetched = res;
	else
		PQclear(res); /* run again on the main connection, whose error counts */
	free(types);
	free(values);
	free(lengths);
	free(formats);
}

/*
 * The prefetch thread: its statements in order in one read-only repeatable-read
 * transaction (one snapshot: what the first sees, the others see).
 */
static void *prefetch_main(void *arg)
{
	struct prefetch *pre = arg;
	PGconn *conn = connect_to(pre->conninfo);
	PGresult *res;

	if (conn && PQstatus(conn) == CONNECTION_OK) {
		PQsetNoticeProcessor(conn, ignore_notice, NULL);
		res = PQexec(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
		if (PQresultStatus(res) == PGRES_COMMAND_OK)
			for (size_t i = 0; i < pre->n; i++)
				prefetch_one(conn, pre->stmts[i]);
		PQclear(res);
	}
	PQfinish(conn); /* the transaction ends with it */
	return NULL;
}

static void pg_prefetch(struct db_stmt **st, size_t n)
{
	struct prefetch *pre;
	sigset_t all, old;
	if (!n || !of(st[0]->db)->conninfo)
		return;
	for (size_t i = 0; i < n; i++)
		if (stmt_of(st[i])->executed || stmt_of(st[i])->pre || !stmt_of(st[i])->readonly ||
		    stmt_of(st[i])->stream)
			return;
	pre = xcalloc(1, sizeof(*pre));
	pre->conninfo = of(st[0]->db)->conninfo;
	pre->stmts = xmallocarray(n, sizeof(*pre->stmts));
	pre->n = pre->refs = n;
	for (size_t i = 0; i < n; i++)
		pre->stmts[i] = stmt_of(st[i]);
	/* The thread takes no signal: the user's interrupt stays the main thread's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&pre->thread, NULL, prefetch_main, pre)) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		free(pre->stmts);
		free(pre);
		return;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (size_t i = 0; i < n; i++)
		pre->stmts[i]->pre = pre;
}

/* The next row of a streamed statement: DB_ROW, DB_DONE or DB_ERROR (failed()). */
static int step_stream(struct pg_stmt *s)
{
	struct pg_db *d = of(s->base.db);
	PGresult *res;
	PQclear(s->res);
	s->res = NULL;
	s->row = -1;
	s->nrows = 0;
	if (d->streaming != s)
		return DB_DONE; /* ended already */
	res = PQgetResult(d->conn);
	switch (PQresultStatus(res)) {
	case PGRES_SINGLE_TUPLE:
		s->res = res;
		s->row = 0;
		s->nrows = 1;
		return DB_ROW;
	case PGRES_TUPLES_OK:
	case PGRES_COMMAND_OK:
		PQclear(res);
		end_stream(s);
		return DB_DONE;
	default:
		failed(s->base.db, result_error(d->conn, res));
		PQclear(res);
		end_stream(s);
		return DB_ERROR;
	}
}

static int pg_step(struct db_stmt *st)
{
	struct pg_stmt *s = stmt_of(st);
	if (!s->executed && s->pre) {
		prefetch_join(s, true);
		if (s->prefetched) {
			s->res = s->prefetched;
			s->prefetched = NULL;
			s->nrows = PQntuples(s->res);
			s->executed = true;
		}
	}
	if (!s->executed && execute(s))
		return DB_ERROR;
	PQfreemem(s->blob);
	s->blob = NULL;
	if (s->stream)
		return step_stream(s);
	if (s->row + 1 < s->nrows) {
		s->row++;
		return DB_ROW;
	}
	s->row = s->nrows;
	return DB_DONE;
}

static void pg_stream(struct db_stmt *st)
{
	struct pg_stmt *s = stmt_of(st);
	s->stream = !s->pre && !s->executed; /* a read ahead has its whole result */
}

static void pg_reset(struct db_stmt *st)
{
	clear_result(stmt_of(st));
}

static void pg_finalize(struct db_stmt *st)
{
	struct pg_stmt *s = stmt_of(st);
	clear_result(s);
	for (int i = 0; i < s->nparams; i++)
		free(s->params[i].value);
	free(s->params);
	free(s->sql);
	free(s);
}

/* Column i of the current row, or NULL when it is NULL or there is none. */
static const char *value(struct db_stmt *st, int i)
{
	struct pg_stmt *s = stmt_of(st);
	if (!s->res || s->row < 0 || s->row >= s->nrows || i < 0 || i >= PQnfields(s->res) ||
	    PQgetisnull(s->res, s->row, i))
		return NULL;
	return PQgetvalue(s->res, s->row, i);
}

static bool pg_column_null(struct db_stmt *s, int i)
{
	return !value(s, i);
}

static int64_t pg_column_int64(struct db_stmt *s, int i)
{
	const char *v = value(s, i);
	if (!v)
		return 0;
	if (!strcmp(v, "t") || !strcmp(v, "f")) /* a boolean, as SQLite's 1 and 0 */
		return *v == 't';
	return strtoll(v, NULL, 10);
}

static double pg_column_double(struct db_stmt *s, int i)
{
	const char *v = value(s, i);
	return v ? strtod(v, NULL) : 0.0;
}

static const char *pg_column_text(struct db_stmt *s, int i)
{
	return value(s, i);
}

static const void *pg_column_blob(struct db_stmt *st, int i, size_t *len)
{
	struct pg_stmt *s = stmt_of(st);
	const char *v = value(st, i);
	*len = 0;
	PQfreemem(s->blob);
	s->blob = NULL;
	if (!v)
		return NULL;
	s->blob = PQunescapeBytea((const unsigned char *)v, len);
	if (!s->blob) {
		fprintf(stderr, "revperf: out of memory reading a blob\n");
		abort();
	}
	return s->blob;
}

/*
 * Runs sql; once more after a connection lost on the way when `again` (a statement that
 * did nothing if it failed, such as BEGIN) and no transaction was open.
 */
static int exec_sql(struct db *db, const char *sql, bool again)
{
	struct pg_db *d = of(db);
	if (d->streaming) {
		failed(db, "a streamed statement's rows are still being read (a bug)");
		return -1;
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		bool was_idle = idle(d);
		PGresult *res;
		ExecStatusType status;
		if (ensure_connected(db))
			return -1;
		res = PQexec(d->conn, sql);
		status = PQresultStatus(res);
		if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
			PQclear(res);
			return 0;
		}
		failed(db, result_error(d->conn, res));
		PQclear(res);
		if (!(again && was_idle && db->unreachable))
			break;
	}
	return -1;
}

static int pg_exec(struct db *db, const char *sql)
{
	return exec_sql(db, sql, false);
}

static int pg_begin(struct db *db)
{
	return exec_sql(db, "BEGIN", true);
}

static bool pg_in_transaction(struct db *db)
{
	return !idle(of(db));
}

/* One row, one column as text into out (size n): 0, or -1 (failed()). */
static int query_one(struct db *db, const char *sql, char *out, size_t n)
{
	PGresult *res = PQexec(of(db)->conn, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		failed(db, result_error(of(db)->conn, res));
		PQclear(res);
		return -1;
	}
	snprintf(out, n, "%s", PQgetisnull(res, 0, 0) ? "" : PQgetvalue(res, 0, 0));
	PQclear(res);
	return 0;
}

/*
 * The table schema_version (application, version) marks the database as revperf's; the
 * tables counted are those of the current schema (search_path). Inside a transaction,
 * an advisory lock first: of several processes creating the schema at once, one does
 * while the others wait here, then find it done.
 */
static int pg_meta_read(struct db *db, struct db_meta *out)
{
	char buf[128], lock[64];
	if (pg_in_transaction(db)) {
		snprintf(lock, sizeof(lock), "SELECT pg_advisory_xact_lock(%d)", DB_APPLICATION_ID);
		if (query_one(db, lock, buf, sizeof(buf)))
			return -1;
	}
	if (query_one(db, "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname ="
			  " current_schema()",
		      buf, sizeof(buf)))
		return -1;
	out->nr_tables = strtoll(buf, NULL, 10);
	if (query_one(db, "SELECT to_regclass('schema_version') IS NOT NULL", buf, sizeof(buf)))
		return -1;
	if (strcmp(buf, "t")) {
		snprintf(out->mark, sizeof(out->mark), "%lld table%s, no schema_version table",
			 (long long)out->nr_tables, out->nr_tables == 1 ? "" : "s");
		return 0;
	}
	out->marked = true;
	if (query_one(db, "SELECT application FROM schema_version LIMIT 1", buf, sizeof(buf)))
		return -1;
	out->ours = !strcmp(buf, DB_APPLICATION_NAME);
	snprintf(out->mark, sizeof(out->mark), "schema_version of '%.32s'", buf);
	if (!out->ours)
		return 0;
	if (query_one(db, "SELECT version FROM schema_version LIMIT 1", buf, sizeof(buf)))
		return -1;
	out->version = strtoll(buf, NULL, 10);
	return 0;
}

static int pg_meta_write(struct db *db, int64_t version)
{
	char sql[256];
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE IF NOT EXISTS schema_version(application TEXT NOT NULL,"
		 " version BIGINT NOT NULL); DELETE FROM schema_version;"
		 " INSERT INTO schema_version VALUES('%s', %lld);",
		 DB_APPLICATION_NAME, (long long)version);
	return pg_exec(db, sql);
}

static void pg_close(struct db *db)
{
	struct pg_db *d = of(db);
	PQfinish(d->conn);
	free(d->password);
	free(d->conninfo);
	free(db->name);
	free(db->errmsg);
	free(d);
}

static const struct db_ops pg_ops = {
	.prepare = pg_prepare,
	.bind_int64 = pg_bind_int64,
	.bind_double = pg_bind_double,
	.bind_text = pg_bind_text,
	.bind_blob = pg_bind_blob,
	.bind_null = pg_bind_null,
	.step = pg_step,
	.reset = pg_reset,
	.finalize = pg_finalize,
	.prefetch = pg_prefetch,
	.stream = pg_stream,
	.column_null = pg_column_null,
	.column_int64 = pg_column_int64,
	.column_double = pg_column_double,
	.column_text = pg_column_text,
	.column_blob = pg_column_blob,
	.exec = pg_exec,
	.begin = pg_begin,
	.in_transaction = pg_in_transaction,
	.meta_read = pg_meta_read,
	.meta_write = pg_meta_write,
	.close = pg_close,
};

/* Appends s with the characters a URL's part cannot hold as %XX. */
static void add_url_part(struct strbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~", *p))
			strbuf_addch(sb, (char)*p);
		else
			strbuf_addf(sb, "%%%02X", *p);
	}
}

/* postgresql://user@host:port/dbname (a socket directory as ?host=), from the parts. */
static void display(struct strbuf *out, const char *user, const char *host, const char *port,
		    const char *dbname)
{
	bool socket = host && (host[0] == '/' || host[0] == '@');
	strbuf_addstr(out, "postgresql://");
	if (user && *user) {
		add_url_part(out, user);
		strbuf_addch(out, '@');
	}
	if (host && *host && !socket)
		strbuf_addstr(out, host);
	if (port && *port && !socket)
		strbuf_addf(out, ":%s", port);
	strbuf_addch(out, '/');
	if (dbname && *dbname)
		add_url_part(out, dbname);
	if (socket) {
		strbuf_addstr(out, "?host=");
		strbuf_addstr(out, host);
		if (port && *port)
			strbuf_addf(out, "&port=%s", port);
	}
}

void db_pg_display(const char *conninfo, struct strbuf *out)
{
	char *err = NULL;
	PQconninfoOption *opts = PQconninfoParse(conninfo, &err);
	const char *user = NULL, *host = NULL, *port = NULL, *dbname = NULL;
	if (!opts) {
		PQfreemem(err);
		strbuf_addstr(out, "postgresql://(a connection string that does not parse)");
		return;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++) {
		if (!o->val)
			continue;
		if (!strcmp(o->keyword, "user"))
			user = o->val;
		else if (!strcmp(o->keyword, "host"))
			host = o->val;
		else if (!strcmp(o->keyword, "port"))
			port = o->val;
		else if (!strcmp(o->keyword, "dbname"))
			dbname = o->val;
	}
	display(out, user, host, port, dbname);
	PQconninfoFree(opts);
}

bool db_pg_has_password(const char *conninfo)
{
	char *err = NULL;
	PQconninfoOption *opts = PQconninfoParse(conninfo, &err);
	bool found = false;
	PQfreemem(err);
	for (PQconninfoOption *o = opts; o && o->keyword; o++)
		if (!strcmp(o->keyword, "password") && o->val && *o->val)
			found = true;
	PQconninfoFree(opts);
	return found;
}

/* A connection to conninfo (NULL only when out of memory): check PQstatus(). */
static PGconn *connect_to(const char *conninfo)
{
	static const char *const keywords[] = {
		"connect_timeout",  "keepalives_idle",		 "keepalives_interval",
		"keepalives_count", "tcp_user_timeout",		 "fallback_application_name",
		"dbname",	    NULL};
	const char *values[] = {CONNECT_TIMEOUT_S, KEEPALIVES_IDLE_S, KEEPALIVES_INTERVAL_S,
				KEEPALIVES_COUNT,  TCP_USER_TIMEOUT_MS, "revperf",
				conninfo,	   NULL};
	return PQconnectdbParams(keywords, values, 1);
}

int db_pg_open(const char *conninfo, struct db **out)
{
	struct pg_db *d;
	struct strbuf name = STRBUF_INIT;
	char *err = NULL;
	PQconninfoOption *opts = PQconninfoParse(conninfo, &err);

	*out = NULL;
	if (!opts) {
		/* libpq's message may quote the string, password included: not printed */
		PQfreemem(err);
		error("the store's PostgreSQL connection string does not parse; write it as "
		      "postgresql://USER@HOST:PORT/DBNAME or as libpq's key=value pairs "
		      "(host=... dbname=...), the password in PGPASSFILE or PGPASSWORD");
		return RP_EINPUT;
	}
	d = xcalloc(1, sizeof(*d));
	d->base.ops = &pg_ops;
	d->base.engine = DB_POSTGRES;
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (!strcmp(o->keyword, "password") && o->val && *o->val)
			d->password = xstrdup(o->val);
	PQconninfoFree(opts);

	d->conninfo = xstrdup(conninfo);
	d->conn = connect_to(conninfo);
	if (!d->conn) {
		fprintf(stderr, "revperf: out of memory connecting to PostgreSQL\n");
		abort();
	}
	/* What libpq tried (environment and defaults included), never the password. */
	display(&name, PQuser(d->conn), PQhost(d->conn), PQport(d->conn), PQdb(d->conn));
	d->base.name = strbuf_detach(&name);
	*out = &d->base;
	if (PQstatus(d->conn) != CONNECTION_OK) {
		failed(&d->base, PQerrorMessage(d->conn));
		error("cannot connect to the store %s: %s; check that the server runs and the "
		      "connection string (host, port, dbname, user; the password in PGPASSFILE or "
		      "PGPASSWORD)",
		      d->base.name, db_errmsg(&d->base));
		return RP_EINPUT;
	}
	PQsetNoticeProcessor(d->conn, ignore_notice, NULL);
	return 0;
}
