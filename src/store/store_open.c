/*
 * Opening the database: the schema created and migrated in one write transaction, the
 * busy handler that waits for other writers and names them, and the comparisons whose
 * process is gone marked abandoned.
 */
#include "store/store.h"
#include "store/store_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect/machine.h"
#include "util/common.h"

#define REVPERF_APPLICATION_ID 0x52455650 /* "REVP" */
/* How long a statement waits for another process's lock before it fails. */
#define BUSY_TIMEOUT_NS (10LL * 1000000000LL)
/* After this much waiting, say once who holds the lock. */
#define BUSY_NOTE_NS (1LL * 1000000000LL)

/* Forward migrations: migrations[i] takes the schema from version i to i + 1. */
static const char *const migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE machines("
	"  id INTEGER PRIMARY KEY, hostname TEXT NOT NULL, cpu_model TEXT NOT NULL,"
	"  cores INTEGER NOT NULL, kernel TEXT NOT NULL, governor TEXT NOT NULL,"
	"  UNIQUE(hostname, cpu_model, cores, kernel, governor));"
	"CREATE TABLE revisions("
	"  id INTEGER PRIMARY KEY, sha TEXT NOT NULL UNIQUE, summary TEXT,"
	"  commit_time INTEGER);"
	"CREATE TABLE builds("
	"  id INTEGER PRIMARY KEY, revision_id INTEGER REFERENCES revisions(id),"
	"  command TEXT NOT NULL, worktree TEXT, log_path TEXT,"
	"  status TEXT NOT NULL CHECK(status IN ('ok', 'failed')),"
	"  duration_ns INTEGER, created_at INTEGER NOT NULL,"
	"  UNIQUE(revision_id, command));"
	"CREATE TABLE benchmarks("
	"  id INTEGER PRIMARY KEY, name TEXT NOT NULL, command TEXT NOT NULL,"
	"  UNIQUE(name, command));"
	"CREATE TABLE comparisons("
	"  id INTEGER PRIMARY KEY, base_build INTEGER REFERENCES builds(id),"
	"  target_build INTEGER REFERENCES builds(id), base_label TEXT, target_label TEXT,"
	"  seed INTEGER, alpha REAL, created_at INTEGER NOT NULL, finished_at INTEGER,"
	"  status TEXT NOT NULL);"
	"CREATE TABLE runs("
	"  id INTEGER PRIMARY KEY,"
	"  build_id INTEGER NOT NULL REFERENCES builds(id),"
	"  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),"
	"  machine_id INTEGER NOT NULL REFERENCES machines(id),"
	"  comparison_id INTEGER REFERENCES comparisons(id),"
	"  side TEXT NOT NULL CHECK(side IN ('A', 'B')),"
	"  warmup INTEGER NOT NULL, status TEXT NOT NULL, exit_code INTEGER, signal INTEGER,"
	"  pair_seq INTEGER,"
	"  detail TEXT, log_path TEXT, log_offset INTEGER, log_length INTEGER,"
	"  started_at INTEGER NOT NULL, loadavg REAL);"
	"CREATE INDEX runs_by_build ON runs(build_id, benchmark_id, machine_id, warmup, status);"
	"CREATE INDEX runs_by_pair ON runs(comparison_id, benchmark_id, pair_seq, side);"
	"CREATE TABLE metric_values("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  metric TEXT NOT NULL, value REAL NOT NULL,"
	"  PRIMARY KEY(run_id, metric)) WITHOUT ROWID;"
	"CREATE TABLE verdicts("
	"  comparison_id INTEGER NOT NULL REFERENCES comparisons(id),"
	"  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),"
	"  metric TEXT NOT NULL, is_primary INTEGER NOT NULL, verdict TEXT NOT NULL,"
	"  method TEXT, n_pairs INTEGER, p REAL,"
	"  ratio REAL, ci_lo REAL, ci_hi REAL, p_welch REAL, p_mw REAL, p_tost REAL, q_bh REAL,"
	"  n_a INTEGER, n_b INTEGER, mean_a REAL, mean_b REAL, sd_a REAL, sd_b REAL,"
	"  PRIMARY KEY(comparison_id, benchmark_id, metric));",
	/* 1 -> 2: build variants (the instrumented build of profiled runs) and profiles.
	 * SQLite cannot change a UNIQUE constraint: the table is rebuilt, ids kept (foreign
	 * keys are off while migrating, see store_open()). */
	"CREATE TABLE builds_v2("
	"  id INTEGER PRIMARY KEY, revision_id INTEGER REFERENCES revisions(id),"
	"  command TEXT NOT NULL, variant TEXT NOT NULL DEFAULT '', worktree TEXT,"
	"  log_path TEXT, status TEXT NOT NULL CHECK(status IN ('ok', 'failed')),"
	"  duration_ns INTEGER, created_at INTEGER NOT NULL,"
	"  UNIQUE(revision_id, command, variant));"
	"INSERT INTO builds_v2(id, revision_id, command, worktree, log_path, status,"
	"  duration_ns, created_at) SELECT id, revision_id, command, worktree, log_path,"
	"  status, duration_ns, created_at FROM builds;"
	"DROP TABLE builds;"
	"ALTER TABLE builds_v2 RENAME TO builds;"
	"CREATE TABLE profiles("
	"  id INTEGER PRIMARY KEY,"
	"  build_id INTEGER NOT NULL REFERENCES builds(id),"
	"  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),"
	"  machine_id INTEGER NOT NULL REFERENCES machines(id),"
	"  comparison_id INTEGER REFERENCES comparisons(id),"
	"  kind TEXT NOT NULL, status TEXT NOT NULL, detail TEXT,"
	"  path TEXT NOT NULL, log_path TEXT, started_at INTEGER NOT NULL);"
	"CREATE INDEX profiles_by_build ON profiles(build_id, benchmark_id, machine_id, kind);",
	/* 2 -> 3: counter series of runs (profile = counters), dynamic data per (build,
	 * benchmark) for the predictor, and trained predictors. */
	"CREATE TABLE run_counters("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  counter TEXT NOT NULL, unit TEXT, n INTEGER NOT NULL, samples BLOB NOT NULL,"
	"  PRIMARY KEY(run_id, counter)) WITHOUT ROWID;"
	"CREATE TABLE dynamic_profiles("
	"  id INTEGER PRIMARY KEY,"
	"  build_id INTEGER NOT NULL REFERENCES builds(id),"
	"  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),"
	"  source TEXT NOT NULL, cost TEXT NOT NULL, path TEXT, created_at INTEGER NOT NULL,"
	"  UNIQUE(build_id, benchmark_id));"
	"CREATE TABLE dynamic_functions("
	"  profile_id INTEGER NOT NULL REFERENCES dynamic_profiles(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL, calls INTEGER NOT NULL, cost REAL NOT NULL,"
	"  PRIMARY KEY(profile_id, name)) WITHOUT ROWID;"
	"CREATE TABLE predictors("
	"  id INTEGER PRIMARY KEY, scope TEXT NOT NULL, model TEXT NOT NULL,"
	"  nr_tuples INTEGER NOT NULL, nr_hits INTEGER NOT NULL, tuples TEXT,"
	"  trained_at INTEGER NOT NULL);",
	/* 3 -> 4: who runs a comparison, so that one whose process is gone (SIGKILL, a
	 * crash, a reboot) is marked abandoned instead of staying 'running' forever. */
	"ALTER TABLE comparisons ADD COLUMN host TEXT;"
	"ALTER TABLE comparisons ADD COLUMN boot_id TEXT;"
	"ALTER TABLE comparisons ADD COLUMN pid INTEGER;"
	"ALTER TABLE comparisons ADD COLUMN pid_start INTEGER;",
	/* 4 -> 5: the counts of a counted run (kinds vg-ir, vg-cache: ir, sim-cycles). */
	"CREATE TABLE profile_values("
	"  profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,"
	"  metric TEXT NOT NULL, value REAL NOT NULL,"
	"  PRIMARY KEY(profile_id, metric)) WITHOUT ROWID;",
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void store_process_host(char *out, size_t size)
{
	if (gethostname(out, size) < 0)
		snprintf(out, size, "unknown");
	out[size - 1] = '\0';
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
 * SQLite's busy handler: sleeps a little longer each time, up to BUSY_TIMEOUT_NS in all;
 * after BUSY_NOTE_NS, says once who holds the lock. Gives up (0) at the timeout and when
 * the user interrupts revperf.
 */
static int busy_wait(void *arg, int count)
{
	struct store *st = arg;
	int64_t now = now_ns(), step_ns;
	struct timespec ts;
	if (count == 0) {
		st->busy_since_ns = now;
		st->busy_noted = false;
		st->lock_timed_out = false;
	}
	if (interrupt_requested()) {
		st->busy_interrupted = true;
		return 0;
	}
	if (now - st->busy_since_ns >= BUSY_TIMEOUT_NS) {
		st->lock_timed_out = true;
		return 0;
	}
	if (!st->busy_noted && now - st->busy_since_ns >= BUSY_NOTE_NS) {
		struct strbuf sb = STRBUF_INIT;
		lock_holder(st, &sb);
		warning("database %s is locked by %s; waiting up to %lld s", st->path, sb.buf,
			(long long)(BUSY_TIMEOUT_NS / 1000000000LL));
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

int store_db_error(struct store *st, const char *what)
{
	int code = sqlite3_errcode(st->db);
	if ((code == SQLITE_BUSY || code == SQLITE_LOCKED) && st->busy_interrupted) {
		error("database %s: %s: interrupted while waiting for a lock", st->path, what);
	} else if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
		struct strbuf sb = STRBUF_INIT;
		lock_holder(st, &sb);
		if (st->lock_timed_out)
			error("database %s: %s: its lock has been held by %s for more than %lld s; "
			      "let that process finish, or stop it, and run again",
			      st->path, what, sb.buf, (long long)(BUSY_TIMEOUT_NS / 1000000000LL));
		else
			error("database %s: %s: locked by %s (%s); run again", st->path, what, sb.buf,
			      sqlite3_errmsg(st->db));
		strbuf_release(&sb);
		st->lock_failed = true;
	} else {
		error("database %s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
	}
	return RP_EINTERNAL;
}

int store_exec(struct store *st, const char *sql)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_db_error(st, "cannot update");
	return 0;
}

static void rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

static int pragma_int(struct store *st, const char *sql, int64_t *out)
{
	sqlite3_stmt *stmt;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(stmt, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(stmt);
	return rc;
}

/* What the database says it is, read in the transaction the caller opened. */
struct db_header {
	int64_t app_id, version, tables;
};

/*
 * Reads the header of a database inside a transaction, and refuses what is not ours.
 * Returns 0, 1 when it is ours and current (nothing to do), RP_EINPUT or RP_EINTERNAL.
 */
static int read_header(struct store *st, struct db_header *h)
{
	int rc = pragma_int(st, "PRAGMA application_id", &h->app_id);
	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) {
		error("%s is not a revperf database (not SQLite, or corrupt); move it away and "
		      "run again to start a new one",
		      st->path);
		return RP_EINPUT;
	}
	if (rc != SQLITE_OK)
		return store_db_error(st, "cannot read its header");
	if (pragma_int(st, "PRAGMA user_version", &h->version) != SQLITE_OK ||
	    pragma_int(st, "SELECT count(*) FROM sqlite_master", &h->tables) != SQLITE_OK)
		return store_db_error(st, "cannot read its schema");
	if (h->app_id != REVPERF_APPLICATION_ID && (h->tables > 0 || h->app_id != 0)) {
		error("%s is an SQLite database of another program (application_id %lld); "
		      "move it away so that revperf can create its own",
		      st->path, (long long)h->app_id);
		return RP_EINPUT;
	}
	if (h->version > STORE_SCHEMA_VERSION) {
		error("%s has schema version %lld, newer than this revperf understands (%d); "
		      "upgrade revperf",
		      st->path, (long long)h->version, STORE_SCHEMA_VERSION);
		return RP_EINPUT;
	}
	return h->app_id == REVPERF_APPLICATION_ID && h->version == STORE_SCHEMA_VERSION;
}

/*
 * Checks that the file is a database that is ours (or empty), and creates or migrates its
 * schema. A current database is only read. Otherwise the header is read again inside one
 * write transaction (BEGIN IMMEDIATE) that also creates and migrates, so that of several
 * revperf processes opening a new database at once one creates the schema and the others
 * see it done: none can see the tables of the first before its application_id.
 */
static int check_and_migrate(struct store *st)
{
	struct db_header h = { 0 };
	struct strbuf sql = STRBUF_INIT;
	int ret;
	if (store_exec(st, "BEGIN"))
		return RP_EINTERNAL;
	ret = read_header(st, &h);
	rollback(st);
	if (ret)
		return ret < 0 ? ret : 0;
	if (store_exec(st, "BEGIN IMMEDIATE"))
		return st->busy_interrupted ? RP_EINTERRUPT
		       : st->lock_failed ? RP_EINPUT : RP_EINTERNAL;
	ret = read_header(st, &h);
	if (ret) {
		rollback(st);
		return ret < 0 ? ret : 0;
	}
	for (size_t v = (size_t)(h.version < 0 ? 0 : h.version); v < ARRAY_SIZE(migrations); v++)
		strbuf_addstr(&sql, migrations[v]);
	strbuf_addf(&sql, " PRAGMA application_id = %d; PRAGMA user_version = %d; COMMIT;",
		    REVPERF_APPLICATION_ID, STORE_SCHEMA_VERSION);
	ret = store_exec(st, sql.buf);
	strbuf_release(&sql);
	if (ret)
		rollback(st);
	return ret;
}

/*
 * Marks 'abandoned' the comparisons still 'running' whose process is gone: same host,
 * and another boot, or no process with that pid and start time. Comparisons of other
 * hosts (a shared directory) and of revperf before schema 4 stay as they are.
 */
static int reap_abandoned(struct store *st)
{
	sqlite3_stmt *stmt = store_prepare(st, "SELECT id, boot_id, pid, pid_start FROM"
					       " comparisons WHERE status = 'running' AND host = ?1"
					       " AND pid IS NOT NULL");
	char host[256], boot[64];
	int64_t *gone = NULL;
	size_t n = 0, alloc = 0;
	int rc, ret = RP_EINTERNAL;
	if (!stmt)
		return RP_EINTERNAL;
	store_process_host(host, sizeof(host));
	machine_boot_id(boot, sizeof(boot));
	store_bind_text(stmt, 1, host);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *b = (const char *)sqlite3_column_text(stmt, 1);
		pid_t pid = (pid_t)sqlite3_column_int64(stmt, 2);
		int64_t start = sqlite3_column_int64(stmt, 3);
		if (b && !strcmp(b, boot) && machine_process_start(pid) == start)
			continue; /* it still runs */
		ALLOC_GROW(gone, n + 1, alloc);
		gone[n++] = sqlite3_column_int64(stmt, 0);
	}
	if (rc != SQLITE_DONE) {
		store_db_error(st, "cannot read comparisons");
		goto out;
	}
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (!n) {
		ret = 0;
		goto out;
	}
	if (store_exec(st, "BEGIN IMMEDIATE"))
		goto out;
	stmt = store_prepare(st, "UPDATE comparisons SET status = 'abandoned' WHERE id = ?1 AND"
				 " status = 'running'");
	if (!stmt)
		goto out;
	for (size_t i = 0; i < n; i++) {
		sqlite3_reset(stmt);
		sqlite3_bind_int64(stmt, 1, gone[i]);
		if (sqlite3_step(stmt) != SQLITE_DONE) {
			store_db_error(st, "cannot mark an abandoned comparison");
			goto out;
		}
	}
	if (store_exec(st, "COMMIT"))
		goto out;
	ret = 0;
out:
	sqlite3_finalize(stmt);
	if (ret)
		rollback(st);
	free(gone);
	return ret;
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
	for (int count = 0;; count++) {
		sqlite3_stmt *stmt;
		int rc;
		if (sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = WAL", -1, &stmt, NULL))
			return store_db_error(st, "cannot switch to WAL mode");
		rc = sqlite3_step(stmt);
		sqlite3_finalize(stmt);
		/* The mode it is in now; not "wal" on a file system without shared memory,
		 * which keeps the rollback journal, as before. */
		if (rc == SQLITE_ROW)
			return 0;
		if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
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

int store_open(const char *path, struct store **out)
{
	struct store *st = xcalloc(1, sizeof(*st));
	int ret = RP_EINTERNAL;
	int rc;

	st->path = xstrdup(path);
	if ((ret = refuse_links(path)))
		goto out;
	ret = RP_EINTERNAL;
	rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		error("cannot open database %s: %s; check that .revperf/ is writable", path,
		      st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		ret = RP_EINPUT;
		goto out;
	}
	sqlite3_busy_handler(st->db, busy_wait, st);
	sqlite3_extended_result_codes(st->db, 0);
	ret = check_and_migrate(st);
	if (ret)
		goto out;
	if (set_wal(st) ||
	    store_exec(st, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;") ||
	    reap_abandoned(st)) {
		ret = st->busy_interrupted ? RP_EINTERRUPT
		      : st->lock_failed ? RP_EINPUT : RP_EINTERNAL;
		goto out;
	}
	store_files_remember(st);
	*out = st;
	return 0;
out:
	store_close(st);
	return ret;
}

const char *store_engine_version(void)
{
	static char buf[64];
	if (!buf[0])
		snprintf(buf, sizeof(buf), "sqlite %s", sqlite3_libversion());
	return buf;
}

sqlite3_stmt *store_cached(struct store *st, enum store_stmt which, const char *sql)
{
	sqlite3_stmt **stmt = &st->cached[which];

	if (*stmt) {
		sqlite3_reset(*stmt);
		sqlite3_clear_bindings(*stmt);
		return *stmt;
	}
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt, NULL) !=
	    SQLITE_OK) {
		sqlite3_finalize(*stmt);
		*stmt = NULL;
		store_db_error(st, "cannot prepare a statement");
		return NULL;
	}
	return *stmt;
}

int store_cached_exec(struct store *st, enum store_stmt which, const char *sql, const char *what)
{
	sqlite3_stmt *stmt = store_cached(st, which, sql);
	int rc;

	if (!stmt)
		return RP_EINTERNAL;
	rc = sqlite3_step(stmt);
	sqlite3_reset(stmt);
	if (rc != SQLITE_DONE)
		return store_db_error(st, what);
	return 0;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	/* Unfinalized statements would keep the connection open (SQLITE_BUSY). */
	for (int i = 0; i < STORE_STMT_MAX; i++)
		sqlite3_finalize(st->cached[i]);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

bool store_lock_failed(const struct store *st)
{
	return st && st->lock_failed;
}
