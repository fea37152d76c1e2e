/*
 * What only an SQLite store does when it opens: its files are revperf's own (no symbolic
 * link in their place), the busy handler that waits for another writer and names it,
 * and WAL mode.
 */
#include "store/db_sqlite.h"
#include "store/store.h"
#include "store/store_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/common.h"
#include "util/interrupt.h"

/*
 * How long a statement waits for another process's lock before it fails: 60 s, or
 * REVPERF_LOCK_TIMEOUT seconds (1-3600). 10 s was passed by a process creating a new
 * database while 7 others waited for it, under ASan at load 44 (issue 15).
 */
#define BUSY_TIMEOUT_S 60LL
/* After this much waiting, say once who holds the lock. */
#define BUSY_NOTE_NS (1LL * 1000000000LL)

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The busy timeout in seconds: REVPERF_LOCK_TIMEOUT when it is a number of 1-3600. */
static long long busy_timeout_s(void)
{
	const char *env = getenv("REVPERF_LOCK_TIMEOUT");
	char *end;
	long long v;
	if (!env || !*env)
		return BUSY_TIMEOUT_S;
	errno = 0;
	v = strtoll(env, &end, 10);
	if (errno || *end || v < 1 || v > 3600) {
		warning("REVPERF_LOCK_TIMEOUT='%s' is not a number of seconds from 1 to 3600; "
			"waiting up to %lld s for a lock",
			env, BUSY_TIMEOUT_S);
		return BUSY_TIMEOUT_S;
	}
	return v;
}

/* "pid 12 (python3 hold.py)", or "another process (...)" when /proc/locks does not tell. */
static void lock_holder(const struct store *st, struct strbuf *sb)
{
	size_t len = sb->len;
	store_lock_owner(st, sb);
	if (sb->len == len)
		strbuf_addstr(sb, "another process (/proc/locks does not name it)");
}

/*
 * SQLite's busy handler: sleeps a little longer each time, up to the busy timeout in all;
 * after BUSY_NOTE_NS, says once who holds the lock. Gives up (0) at the timeout and when
 * the user interrupts revperf.
 */
static int busy_wait(void *arg, int count)
{
	struct store *st = arg;
	int64_t now = now_ns(), step_ns;
	struct timespec ts;
	if (count == 0) {
		if (!st->busy_timeout_s)
			st->busy_timeout_s = busy_timeout_s();
		st->busy_since_ns = now;
		st->busy_noted = false;
		st->lock_timed_out = false;
	}
	if (interrupt_requested()) {
		st->busy_interrupted = true;
		return 0;
	}
	if (now - st->busy_since_ns >= st->busy_timeout_s * 1000000000LL) {
		st->lock_timed_out = true;
		return 0;
	}
	if (!st->busy_noted && now - st->busy_since_ns >= BUSY_NOTE_NS) {
		struct strbuf sb = STRBUF_INIT;
		lock_holder(st, &sb);
		warning("database %s is locked by %s; waiting up to %lld s", st->path, sb.buf,
			st->busy_timeout_s);
		strbuf_release(&sb);
		st->busy_noted = true;
	}
	step_ns = count < 10 ? (1000000LL << count) / 8 : 50000000LL; /* 125 us .. 50 ms */
	if (step_ns > 50000000LL)
		step_ns = 50000000LL;
	ts.tv_sec = 0;
	ts.tv_nsec = (long)step_ns;
	nanosleep(&ts, NULL);
	return 1;
}

int store_sqlite_busy_error(struct store *st, const char *what)
{
	if (st->busy_interrupted) {
		error("database %s: %s: interrupted while waiting for a lock", st->path, what);
	} else {
		struct strbuf sb = STRBUF_INIT;
		lock_holder(st, &sb);
		if (st->lock_timed_out)
			error("database %s: %s: its lock has been held by %s for more than %lld s; "
			      "let that process finish, or stop it, and run again",
			      st->path, what, sb.buf, st->busy_timeout_s);
		else
			error("database %s: %s: locked by %s (%s); run again", st->path, what, sb.buf,
			      db_errmsg(st->db));
		strbuf_release(&sb);
		st->lock_failed = true;
	}
	return RP_EINTERNAL;
}

/*
 * WAL: readers (report) never block the runner; NORMAL sync is durable against a crash of
 * revperf, which is what an interrupted compare needs. The mode is stored in the file, so
 * this changes a new database once. The change needs an exclusive lock for which SQLite
 * does not call the busy handler: several processes opening a new database at once retry
 * here, within the busy timeout.
 */
static int set_wal(struct store *st)
{
	sqlite3 *conn = db_sqlite_handle(st->db);
	for (int count = 0;; count++) {
		sqlite3_stmt *stmt;
		int rc;
		if (sqlite3_prepare_v2(conn, "PRAGMA journal_mode = WAL", -1, &stmt, NULL)) {
			db_set_error(st->db, "%s", sqlite3_errmsg(conn));
			return store_db_error(st, "cannot switch to WAL mode");
		}
		rc = sqlite3_step(stmt);
		sqlite3_finalize(stmt);
		/* The mode it is in now; not "wal" on a file system without shared memory,
		 * which keeps the rollback journal, as before. */
		if (rc == SQLITE_ROW)
			return 0;
		st->db->busy = rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
		db_set_error(st->db, "%s", sqlite3_errmsg(conn));
		if (!st->db->busy)
			return store_db_error(st, "cannot switch to WAL mode");
		if (!busy_wait(st, count))
			return store_db_error(st, "cannot switch to WAL mode");
	}
}

/*
 * The database and the files SQLite keeps beside it are revperf's own: a link planted in
 * their place would make SQLite write through it (util/fsutil.h). The directory may be a
 * link the user chose (--state-dir), so SQLITE_OPEN_NOFOLLOW, which refuses both, is not
 * used. Returns 0 or RP_EINPUT with an error.
 */
static int refuse_links(const char *path)
{
	static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;
	for (size_t i = 0; i < ARRAY_SIZE(suffixes) && !ret; i++) {
		struct stat st;
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s%s", path, suffixes[i]);
		if (lstat(sb.buf, &st) == 0 && S_ISLNK(st.st_mode)) {
			error("%s is a symbolic link; revperf does not open its database through "
			      "one: remove it",
			      sb.buf);
			ret = RP_EINPUT;
		}
	}
	strbuf_release(&sb);
	return ret;
}

int store_sqlite_open(struct store *st, const char *path)
{
	int ret;
	if ((ret = refuse_links(path)))
		return ret;
	if (db_sqlite_open(path, &st->db)) {
		error("cannot open database %s: %s; check that .revperf/ is writable", path,
		      db_errmsg(st->db));
		return RP_EINPUT;
	}
	sqlite3_busy_handler(db_sqlite_handle(st->db), busy_wait, st);
	return 0;
}

int store_sqlite_setup(struct store *st)
{
	if (set_wal(st) ||
	    store_exec(st, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;"))
		return st->busy_interrupted ? RP_EINTERRUPT
		       : st->lock_failed    ? RP_EINPUT
					    : RP_EINTERNAL;
	store_checkpointer_install(st);
	store_files_remember(st);
	return 0;
}

bool store_sqlite_not_a_database(struct store *st)
{
	int rc = db_sqlite_errcode(st->db);
	return rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT;
}

const char *store_sqlite_version(void)
{
	static char buf[64];
	if (!buf[0])
		snprintf(buf, sizeof(buf), "sqlite %s", sqlite3_libversion());
	return buf;
}

int store_sqlite_quick_check(struct store *st, const char *advice)
{
	sqlite3 *conn = db_sqlite_handle(st->db);
	sqlite3_stmt *stmt;
	const char *result = NULL;
	int rc, ret = RP_EINTERNAL;
	if (sqlite3_prepare_v2(conn, "PRAGMA quick_check(1)", -1, &stmt, NULL) != SQLITE_OK) {
		db_set_error(st->db, "%s", sqlite3_errmsg(conn));
		return store_db_error(st, "cannot check its integrity");
	}
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		result = (const char *)sqlite3_column_text(stmt, 0);
	if (rc == SQLITE_ROW && result && !strcmp(result, "ok")) {
		ret = 0;
	} else if (rc == SQLITE_ROW || rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) {
		st->damaged = true;
		error("database %s is damaged (SQLite's quick_check: %s): results of this command "
		      "may be lost; %s",
		      st->path, rc == SQLITE_ROW && result ? result : sqlite3_errmsg(conn), advice);
	} else {
		db_set_error(st->db, "%s", sqlite3_errmsg(conn));
		store_db_error(st, "cannot check its integrity");
	}
	sqlite3_finalize(stmt);
	return ret;
}
