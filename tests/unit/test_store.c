/*
 * Unit tests of the store: schema, foreign databases, runs, transactions. They run on
 * SQLite, and again on PostgreSQL (tests/pg/run.sh, tmp_db.h); the tests of SQLite's
 * files skip there.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sqlite3.h>
#include <cmocka.h>

#include "store/db.h"
#include "store/store.h"
#include "store/store_dynamic.h"
#include "store/store_gc.h"
#include "store/store_impl.h"
#include "store/store_show.h"
#include "util/common.h"
#include "tmp_db.h"

static int64_t add_run(struct store *st, int64_t comparison, int64_t build, int64_t bench,
		       int64_t machine, enum run_status status, bool warmup, double wall)
{
	struct store_run run = { 0 };
	const char *names[] = { "wall", "cpu" };
	double values[] = { wall, wall / 2 };
	run.build_id = build;
	run.comparison_id = comparison;
	run.benchmark_id = bench;
	run.machine_id = machine;
	run.side = 'A';
	run.warmup = warmup;
	run.status = status;
	run.detail = status == RUN_OK ? "" : "exit status 1";
	run.log_path = "/tmp/x.log";
	run.started_at = 1;
	assert_int_equal(store_run_insert(st, &run, names, values, 2), 0);
	return run.id;
}

/* A counted run (a vg-ir profile at /p/1) of build and benchmark on machine; its id. */
static int64_t add_counted_profile(struct store *st, int64_t comparison, int64_t build,
				   int64_t bench, int64_t machine)
{
	struct store_profile prof = { 0 };
	prof.build_id = build;
	prof.benchmark_id = bench;
	prof.machine_id = machine;
	prof.comparison_id = comparison;
	snprintf(prof.kind, sizeof(prof.kind), "vg-ir");
	prof.path = (char *)"/p/1";
	assert_int_equal(store_profile_add(st, &prof), 0);
	return prof.id;
}

/* The status of comparison id, read from the database directly (a copy the caller frees). */
static char *comparison_status(const char *path, int64_t id)
{
	char sql[128], *status;
	snprintf(sql, sizeof(sql), "SELECT status FROM comparisons WHERE id = %lld", (long long)id);
	status = tmp_db_text(path, sql);
	assert_non_null(status);
	return status;
}

static void test_roundtrip_and_reopen(void **state)
{
	char *path = tmp_db_path();
	struct store *st;
	struct machine_info m = { "host", "cpu", 2, "6.1", "performance" };
	struct store_build b = { 0 }, found = { 0 };
	int64_t machine, machine2, rev, bench, bench2;
	struct store_run_filter f = { 0 };
	double *v;
	size_t n, ok, failed;
	UNUSED(state);

	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_machine(st, &m, &machine), 0);
	assert_int_equal(store_machine(st, &m, &machine2), 0);
	assert_true(machine == machine2);
	assert_int_equal(store_revision(st, "abc", "first", 10, &rev), 0);
	assert_int_equal(store_build_find(st, rev, "make", NULL, &found), 1);
	b.revision_id = rev;
	b.command = xstrdup("make");
	b.worktree = xstrdup("/w");
	snprintf(b.status, sizeof(b.status), "ok");
	assert_int_equal(store_build_save(st, &b), 0);
	assert_int_equal(store_benchmark(st, "ingest", "./x", &bench), 0);
	assert_int_equal(store_benchmark(st, "ingest", "./x --changed", &bench2), 0);
	assert_true(bench != bench2); /* a changed definition is a new benchmark */

	{
		struct store_comparison c1 = { 0 }, c2 = { 0 };
		struct store_build other = { 0 };
		other.revision_id = rev;
		other.command = xstrdup("make other");
		snprintf(other.status, sizeof(other.status), "ok");
		assert_int_equal(store_build_save(st, &other), 0);
		c1.base_build = b.id;
		c1.target_build = other.id; /* another pair: only its own runs */
		c2.base_build = b.id;
		c2.target_build = b.id;
		c1.base_label = c2.base_label = "base";
		c1.target_label = c2.target_label = "target";
		assert_int_equal(store_comparison_new(st, &c1), 0);
		assert_int_equal(store_comparison_new(st, &c2), 0);
		add_run(st, c2.id, b.id, bench, machine, RUN_OK, true, 9.0); /* warm-up: unused */
		add_run(st, c2.id, b.id, bench, machine, RUN_OK, false, 1.0);
		add_run(st, c2.id, b.id, bench, machine, RUN_FAILED, false, 5.0);
		add_run(st, c2.id, b.id, bench, machine, RUN_OK, false, 2.0);
		add_run(st, c1.id, b.id, bench, machine, RUN_OK, false, 7.0); /* other pair */
		store_close(st);

		/* Reopen: everything committed is there. */
		assert_int_equal(store_open(path, 0, &st), 0);
		assert_int_equal(store_build_find(st, rev, "make", NULL, &found), 0);
		assert_int_equal(found.id, b.id);
		assert_string_equal(found.worktree, "/w");
		f.base_build = b.id;
		f.target_build = b.id;
		f.side = 'A';
		f.benchmark_id = bench;
		f.machine_id = machine;
		assert_int_equal(store_run_values(st, &f, "wall", &v, &n), 0);
		assert_int_equal(n, 2);
		assert_true(v[0] == 1.0 && v[1] == 2.0);
		free(v);
		assert_int_equal(store_run_counts(st, &f, &ok, &failed), 0);
		assert_int_equal(ok, 2);
		assert_int_equal(failed, 1);
		f.comparison_id = c1.id; /* --fresh in another comparison: nothing */
		assert_int_equal(store_run_values(st, &f, "wall", &v, &n), 0);
		assert_int_equal(n, 0);
		free(v);
		f.comparison_id = 0;
		f.side = 'B'; /* the other side of the pair */
		assert_int_equal(store_run_values(st, &f, "wall", &v, &n), 0);
		assert_int_equal(n, 0);
		free(v);
		f.side = 'A';
		f.target_build = other.id; /* the other pair sees only its own run */
		assert_int_equal(store_run_values(st, &f, "wall", &v, &n), 0);
		assert_int_equal(n, 1);
		assert_true(v[0] == 7.0);
		free(v);
		store_build_release(&other);
	}
	store_close(st);
	store_build_release(&b);
	store_build_release(&found);
	tmp_db_remove(path);
}

static void test_foreign_and_corrupt(void **state)
{
	char *path = tmp_db_path();
	struct store *st = NULL;
	char *x;
	FILE *f;
	UNUSED(state);

	/* Another program's database is refused, and left untouched. */
	tmp_db_exec(path, "CREATE TABLE theirs(x INTEGER); INSERT INTO theirs VALUES(42)");
	assert_int_equal(store_open(path, 0, &st), RP_EINPUT);
	assert_null(st);
	x = tmp_db_text(path, "SELECT x FROM theirs");
	assert_string_equal(x, "42");
	free(x);
	tmp_db_remove(path);
	path = tmp_db_path();

	/* A file that is not a database. */
	if (!tmp_db_is_pg()) {
		f = fopen(path, "w");
		assert_non_null(f);
		for (int i = 0; i < 200; i++)
			fputs("this is not a database, just text\n", f);
		fclose(f);
		assert_int_equal(store_open(path, 0, &st), RP_EINPUT);
		unlink(path);
	}

	/* A store that must exist already, and holds nothing: refused, not created. */
	assert_int_equal(store_open(path, STORE_OPEN_EXISTING, &st), RP_EINPUT);

	/* A database from a newer revperf. */
	assert_int_equal(store_open(path, 0, &st), 0);
	store_close(st);
	tmp_db_exec(path, tmp_db_is_pg() ? "UPDATE schema_version SET version = 99"
					 : "PRAGMA user_version = 99");
	assert_int_equal(store_open(path, 0, &st), RP_EINPUT);
	assert_int_equal(store_open(path, STORE_OPEN_EXISTING, &st), RP_EINPUT);
	tmp_db_remove(path);
}

static void test_wal_mode(void **state)
{
	char *path;
	struct store *st;
	sqlite3 *db;
	sqlite3_stmt *stmt;
	UNUSED(state);
	TMP_DB_SQLITE_ONLY();
	path = tmp_db_path();
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(stmt, 0), "wal");
	sqlite3_finalize(stmt);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(stmt, 0), STORE_SCHEMA_VERSION);
	sqlite3_finalize(stmt);
	sqlite3_close(db);
	store_close(st);
	tmp_db_remove(path);
}

/*
 * The schema version a store is marked with is the last migration's: 5c400ed added step 10
 * and left the version at 9, so stores already at 9 never got its table.
 */
static void test_schema_version_is_last_migration(void **state)
{
	UNUSED(state);
	assert_true(store_nr_migrations > 0);
	for (size_t i = 1; i < store_nr_migrations; i++)
		assert_true(store_migrations[i].to >= store_migrations[i - 1].to);
	assert_int_equal(store_migrations[store_nr_migrations - 1].to, STORE_SCHEMA_VERSION);
}

/* A database of schema 1 (before build variants) keeps its builds and gains profiles. */
/*
 * Build generations (schema 14): a build of (revision, command, variant) built again into
 * other programs is a new row one generation up; the newest is found, the old one keeps
 * its runs and its fingerprint; a failed build again keeps the fingerprint recorded; push
 * copies each generation as its own build.
 */
static void test_build_generations(void **state)
{
	char *path = tmp_db_path(), *dst_path = tmp_db_path();
	struct store *st, *dst;
	struct machine_info m = { "host", "cpu", 2, "6.1", "performance" };
	struct store_build b = { 0 }, next = { 0 }, found = { 0 };
	struct store_comparison c = { 0 };
	struct store_push_stats ps;
	int64_t machine, rev, bench, trev;
	size_t runs, counted, profiles;
	UNUSED(state);

	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_machine(st, &m, &machine), 0);
	assert_int_equal(store_revision(st, "abc", "first", 10, &rev), 0);
	assert_int_equal(store_benchmark(st, "ingest", "./x", &bench), 0);
	b.revision_id = rev;
	b.command = xstrdup("make");
	b.fingerprint = xstrdup("0123456789abcdef prog\n");
	snprintf(b.status, sizeof(b.status), "ok");
	assert_int_equal(store_build_save(st, &b), 0);
	assert_int_equal(store_build_measured(st, b.id, &runs, &counted, &profiles), 0);
	assert_true(runs == 0 && counted == 0 && profiles == 0);
	c.base_build = c.target_build = b.id;
	c.base_label = c.target_label = "x";
	assert_int_equal(store_comparison_new(st, &c), 0);
	add_run(st, c.id, b.id, bench, machine, RUN_OK, true, 9.0); /* a warm-up: not counted */
	add_run(st, c.id, b.id, bench, machine, RUN_OK, false, 1.0);
	add_run(st, c.id, b.id, bench, machine, RUN_OK, false, 2.0);
	add_counted_profile(st, c.id, b.id, bench, machine);
	assert_int_equal(store_comparison_finish(st, c.id, "done"), 0);
	assert_int_equal(store_build_measured(st, b.id, &runs, &counted, &profiles), 0);
	assert_true(runs == 2 && counted == 1 && profiles == 0);

	/* built again and failed: the same row, the fingerprint of what its runs measured */
	free(b.fingerprint);
	b.fingerprint = NULL;
	snprintf(b.status, sizeof(b.status), "failed");
	assert_int_equal(store_build_save(st, &b), 0);
	assert_int_equal(store_build_find(st, rev, "make", NULL, &found), 0);
	assert_int_equal(found.id, b.id);
	assert_string_equal(found.fingerprint, "0123456789abcdef prog\n");
	store_build_release(&found);

	/* built into other programs: a new generation, found from now on */
	next.revision_id = rev;
	next.command = xstrdup("make");
	next.generation = 1;
	next.fingerprint = xstrdup("fedcba9876543210 prog\n");
	snprintf(next.status, sizeof(next.status), "ok");
	assert_int_equal(store_build_save(st, &next), 0);
	assert_true(next.id != b.id);
	assert_int_equal(store_build_find(st, rev, "make", NULL, &found), 0);
	assert_int_equal(found.id, next.id);
	assert_int_equal(found.generation, 1);
	assert_string_equal(found.fingerprint, "fedcba9876543210 prog\n");
	store_build_release(&found);
	assert_int_equal(store_build_measured(st, next.id, &runs, &counted, &profiles), 0);
	assert_true(runs == 0 && counted == 0 && profiles == 0);
	/* the old one keeps its runs and programs, for show */
	assert_int_equal(store_build_get(st, b.id, &found), 0);
	assert_int_equal(found.generation, 0);
	assert_string_equal(found.fingerprint, "0123456789abcdef prog\n");
	store_build_release(&found);
	assert_int_equal(store_build_measured(st, b.id, &runs, &counted, &profiles), 0);
	assert_true(runs == 2 && counted == 1);
	/* recorded at a later use */
	assert_int_equal(store_build_fingerprint_set(st, next.id, "1111111111111111 prog\n"), 0);
	assert_int_equal(store_build_get(st, next.id, &found), 0);
	assert_string_equal(found.fingerprint, "1111111111111111 prog\n");
	store_build_release(&found);

	/* pushed: two builds, each generation with its own runs; again: nothing added */
	assert_int_equal(store_open(dst_path, 0, &dst), 0);
	assert_int_equal(store_push(st, dst, &ps), 0);
	assert_int_equal(ps.builds_added, 2);
	assert_int_equal(ps.runs_added, 3);
	assert_int_equal(store_revision(dst, "abc", "first", 10, &trev), 0);
	assert_int_equal(store_build_find(dst, trev, "make", NULL, &found), 0);
	assert_int_equal(found.generation, 1);
	assert_string_equal(found.fingerprint, "1111111111111111 prog\n");
	assert_int_equal(store_build_measured(dst, found.id, &runs, &counted, &profiles), 0);
	assert_true(runs == 0 && counted == 0);
	store_build_release(&found);
	assert_int_equal(store_push(st, dst, &ps), 0);
	assert_int_equal(ps.builds_added, 0);
	assert_int_equal(ps.builds_present, 2);
	store_close(dst);
	store_close(st);
	store_build_release(&b);
	store_build_release(&next);
	tmp_db_remove(dst_path);
	tmp_db_remove(path);
}

static void test_migrate_from_v1(void **state)
{
	char *path;
	struct store *st;
	struct store_build found = { 0 }, cct = { 0 };
	sqlite3 *db;
	UNUSED(state);
	TMP_DB_SQLITE_ONLY();
	path = tmp_db_path();

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "CREATE TABLE revisions(id INTEGER PRIMARY KEY, sha TEXT NOT"
				      " NULL UNIQUE, summary TEXT, commit_time INTEGER);"
				      "CREATE TABLE builds(id INTEGER PRIMARY KEY, revision_id"
				      " INTEGER REFERENCES revisions(id), command TEXT NOT NULL,"
				      " worktree TEXT, log_path TEXT, status TEXT NOT NULL,"
				      " duration_ns INTEGER, created_at INTEGER NOT NULL,"
				      " UNIQUE(revision_id, command));"
				      "CREATE TABLE comparisons(id INTEGER PRIMARY KEY, base_build"
				      " INTEGER, target_build INTEGER, base_label TEXT,"
				      " target_label TEXT, seed INTEGER, alpha REAL, created_at"
				      " INTEGER NOT NULL, finished_at INTEGER, status TEXT NOT NULL);"
				      "INSERT INTO comparisons(id, created_at, status) VALUES(3, 1,"
				      " 'running');"
				      "INSERT INTO revisions VALUES(7, 'abc', 's', 1);"
				      "INSERT INTO builds VALUES(42, 7, 'make', '/w/abc', NULL, 'ok',"
				      " 5, 1);"
				      "CREATE TABLE verdicts(comparison_id INTEGER NOT NULL,"
				      " benchmark_id INTEGER NOT NULL, metric TEXT NOT NULL,"
				      " is_primary INTEGER NOT NULL, verdict TEXT NOT NULL,"
				      " method TEXT, n_pairs INTEGER, p REAL, ratio REAL, ci_lo REAL,"
				      " ci_hi REAL, p_welch REAL, p_mw REAL, p_tost REAL, q_bh REAL,"
				      " n_a INTEGER, n_b INTEGER, mean_a REAL, mean_b REAL, sd_a REAL,"
				      " sd_b REAL, PRIMARY KEY(comparison_id, benchmark_id, metric));"
				      "INSERT INTO verdicts(comparison_id, benchmark_id, metric,"
				      " is_primary, verdict) VALUES(3, 1, 'wall', 1, 'worse'),"
				      " (3, 1, 'cpu', 0, 'equal');"
				      "PRAGMA application_id = 1380275792; PRAGMA user_version = 1;",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	/* The tables of schema 1 that the migrations do not touch are not needed here. A
	 * running comparison of an older revperf says nothing of its process: left as it is. */
	assert_int_equal(store_open(path, 0, &st), 0);
	{
		/* Verdicts keep the order they were saved in (schema 6: seq, from the rowid). */
		sqlite3_stmt *stmt;
		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT group_concat(metric) FROM (SELECT"
							" metric FROM verdicts ORDER BY seq)",
						    -1, &stmt, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(stmt, 0), "wall,cpu");
		sqlite3_finalize(stmt);
		sqlite3_close(db);
	}
	assert_int_equal(store_build_find(st, 7, "make", NULL, &found), 0);
	assert_int_equal(found.id, 42);
	assert_string_equal(found.worktree, "/w/abc");
	assert_string_equal(found.variant, "");
	assert_int_equal(found.generation, 0); /* schema 14: no fingerprint recorded yet */
	assert_null(found.fingerprint);
	store_build_release(&found);
	{
		char *status = comparison_status(path, 3);
		assert_string_equal(status, "running");
		free(status);
	}
	/* The same command as another variant is another build. */
	assert_int_equal(store_build_find(st, 7, "make", "cct", &cct), 1);
	cct.revision_id = 7;
	cct.command = xstrdup("make");
	cct.worktree = xstrdup("/w/abc-cct");
	snprintf(cct.variant, sizeof(cct.variant), "cct");
	snprintf(cct.status, sizeof(cct.status), "ok");
	assert_int_equal(store_build_save(st, &cct), 0);
	assert_true(cct.id != 42);
	assert_int_equal(store_build_find(st, 7, "make", NULL, &found), 0);
	assert_int_equal(found.id, 42);
	store_build_release(&found);
	assert_int_equal(store_build_find(st, 7, "make", "cct", &found), 0);
	assert_int_equal(found.id, cct.id);
	assert_string_equal(found.variant, "cct");
	store_build_release(&found);
	store_build_release(&cct);
	store_close(st);
	tmp_db_remove(path);
}

/* Profiled runs: recorded, found by build and by revision, failed ones left out. */
static void test_profiles(void **state)
{
	char *path = tmp_db_path();
	struct store *st;
	struct store_build cct = { 0 };
	struct store_profile p = { 0 }, *list;
	struct machine_info m = { "host", "cpu", 2, "6.1", "performance" };
	int64_t rev, bench, machine;
	size_t n;
	UNUSED(state);

	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_revision(st, "abc", "s", 1, &rev), 0);
	assert_int_equal(store_benchmark(st, "ingest", "./x", &bench), 0);
	assert_int_equal(store_machine(st, &m, &machine), 0);
	cct.revision_id = rev;
	cct.command = xstrdup("make");
	snprintf(cct.variant, sizeof(cct.variant), "cct");
	snprintf(cct.status, sizeof(cct.status), "ok");
	assert_int_equal(store_build_save(st, &cct), 0);
	p.build_id = cct.id;
	p.benchmark_id = bench;
	p.machine_id = machine;
	snprintf(p.kind, sizeof(p.kind), "cct");
	p.path = (char *)"/p/1";
	assert_int_equal(store_profile_add(st, &p), 0);
	p.path = (char *)"/p/2";
	p.status = RUN_CRASHED;
	p.detail = (char *)"killed by SIGSEGV";
	assert_int_equal(store_profile_add(st, &p), 0);
	p.path = (char *)"/p/3";
	p.status = RUN_OK;
	p.detail = NULL;
	assert_int_equal(store_profile_add(st, &p), 0);
	assert_int_equal(store_profiles_find(st, cct.id, bench, machine, "cct", &list, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0].path, "/p/1");
	assert_string_equal(list[1].path, "/p/3");
	assert_int_equal(list[1].status, RUN_OK);
	store_profiles_free(list, n);
	assert_int_equal(store_profiles_find(st, cct.id, bench, machine, "io", &list, &n), 0);
	assert_int_equal(n, 0);
	store_profiles_free(list, n);
	assert_int_equal(store_profiles_of_revision(st, "abc", "ingest", "cct", &list, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[1].path, "/p/3");
	store_profiles_free(list, n);
	assert_int_equal(store_profiles_of_revision(st, "abc", "other", "cct", &list, &n), 0);
	assert_int_equal(n, 0);
	store_profiles_free(list, n);
	store_build_release(&cct);
	store_close(st);
	tmp_db_remove(path);
}

/*
 * Verdicts read back in the order they were saved, a verdict saved again (a later look)
 * replacing the old one and moving to the end; non-finite numbers are NULL (NaN back).
 */
static void test_verdict_order(void **state)
{
	char *path = tmp_db_path();
	struct store *st;
	struct store_build b = { 0 };
	struct store_comparison c = { 0 };
	struct verdict_result r = { 0 };
	struct store_verdict *v;
	int64_t bench;
	size_t n;
	UNUSED(state);

	assert_int_equal(store_open(path, 0, &st), 0);
	b.command = xstrdup("true");
	snprintf(b.status, sizeof(b.status), "ok");
	assert_int_equal(store_build_save(st, &b), 0);
	assert_int_equal(store_benchmark(st, "ingest", "./x", &bench), 0);
	c.base_build = c.target_build = b.id;
	c.base_label = c.target_label = "x";
	assert_int_equal(store_comparison_new(st, &c), 0);
	r.n_a = r.n_b = 5;
	r.ratio = 1.25;
	r.ci_lo = 1.125;
	r.ci_hi = 1.5;
	r.p = 0.001;
	r.p_welch = r.p_mw = r.p_tost = r.mean_a = r.mean_b = r.sd_a = r.sd_b = NAN;
	assert_int_equal(store_verdict_save(st, c.id, bench, "wall", true, "worse", &r, 5, 0.002), 0);
	r.ratio = INFINITY;
	assert_int_equal(store_verdict_save(st, c.id, bench, "cpu", false, "undecided", &r, 5, NAN),
			 0);
	r.ratio = 1.5;
	assert_int_equal(store_verdict_save(st, c.id, bench, "wall", true, "worse", &r, 9, 0.001), 0);
	assert_int_equal(store_comparison_verdicts(st, c.id, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].metric, "cpu");
	assert_true(isnan(v[0].ratio)); /* not finite: not stored */
	assert_string_equal(v[1].metric, "wall");
	assert_string_equal(v[1].bench, "ingest");
	assert_true(v[1].primary);
	assert_true(v[1].ratio == 1.5 && v[1].ci_lo == 1.125 && v[1].p == 0.001);
	assert_int_equal(v[1].n_a, 5);
	store_verdicts_free(v, n);
	store_build_release(&b);
	store_close(st);
	tmp_db_remove(path);
}

/*
 * store_push(): an SQLite store's results into another store (this run's engine): every
 * kind of row, blobs and NULLs intact, and a second push adds nothing. A running
 * comparison waits, with its runs, until it ends.
 */
static void test_push(void **state)
{
	char *src_path = xstrdup("/tmp/revperf-test-push-XXXXXX"), *dst_path = tmp_db_path();
	struct store *src, *dst;
	struct machine_info m = { "host", "cpu", 2, "6.1", "performance" };
	struct store_build b = { 0 }, cct = { 0 };
	struct store_comparison c = { 0 }, running = { 0 };
	int64_t prof_id;
	struct store_dynamic dyn = { 0 };
	struct perphecy_profile pp;
	struct run_samples rs;
	struct store_push_stats ps;
	struct store_counter_run *cr;
	struct store_run_filter f = { 0 };
	struct verdict_result r = { 0 };
	int64_t machine, rev, bench, run_id;
	double *v, value;
	size_t n;
	int fd = mkstemp(src_path);
	UNUSED(state);

	assert_true(fd >= 0);
	close(fd);
	unlink(src_path);
	assert_int_equal(store_open(src_path, 0, &src), 0);
	assert_int_equal(store_machine(src, &m, &machine), 0);
	assert_int_equal(store_revision(src, "abc", "first", 10, &rev), 0);
	assert_int_equal(store_benchmark(src, "ingest", "./x", &bench), 0);
	b.revision_id = cct.revision_id = rev;
	b.command = xstrdup("make");
	cct.command = xstrdup("make");
	snprintf(b.status, sizeof(b.status), "ok");
	snprintf(cct.status, sizeof(cct.status), "ok");
	snprintf(cct.variant, sizeof(cct.variant), "cct");
	assert_int_equal(store_build_save(src, &b), 0);
	assert_int_equal(store_build_save(src, &cct), 0);
	c.base_build = c.target_build = running.base_build = running.target_build = b.id;
	c.base_label = c.target_label = running.base_label = running.target_label = "x";
	assert_int_equal(store_comparison_new(src, &c), 0);
	add_run(src, c.id, b.id, bench, machine, RUN_OK, false, 1.5);
	run_id = add_run(src, c.id, b.id, bench, machine, RUN_OK, false, 2.5);
	assert_int_equal(store_run_log_save(src, run_id, "line one\nline two\n", 18), 0);
	assert_int_equal(store_build_log_save(src, b.id, "", 0), 0); /* empty, but kept */
	add_run(src, c.id, b.id, bench, machine, RUN_FAILED, false, 9.0);
	run_samples_init(&rs);
	for (int k = 0; k < 50; k++)
		assert_int_equal(run_samples_add(&rs, "cpu_user", k % 2 ? "cores" : NULL, k * 0.1,
						 k * 0.25),
				 0);
	assert_int_equal(store_run_counters_save(src, run_id, &rs), 0);
	run_samples_release(&rs);
	r.n_a = r.n_b = 2;
	r.ratio = 1.25;
	r.ci_lo = r.ci_hi = r.p = r.p_welch = r.p_mw = r.p_tost = NAN;
	r.mean_a = r.mean_b = r.sd_a = r.sd_b = NAN;
	assert_int_equal(store_verdict_save(src, c.id, bench, "wall", true, "worse", &r, 2, NAN),
			 0);
	{
		struct store_plan plan = { .min_runs = 5, .max_runs = 30, .runs_since = c.id,
					   .fresh = true, .tolerance = 0.02, .count_tolerance = NAN,
					   .metrics = (char *)"wall, cpu", .primary = NULL };
		assert_int_equal(store_plan_insert(src, c.id, bench, &plan), 0);
	}
	assert_int_equal(store_comparison_finish(src, c.id, "done"), 0);
	prof_id = add_counted_profile(src, c.id, cct.id, bench, machine);
	assert_int_equal(store_profile_value_set(src, prof_id, "ir", 123456789.0), 0);
	dyn.build_id = b.id;
	dyn.benchmark_id = bench;
	snprintf(dyn.source, sizeof(dyn.source), "callgrind");
	snprintf(dyn.cost, sizeof(dyn.cost), "instructions");
	perphecy_profile_init(&pp, "ingest", PERPHECY_COST_INSTRUCTIONS);
	assert_int_equal(perphecy_profile_add(&pp, "hot", 10, 1000), 0);
	assert_int_equal(perphecy_profile_add(&pp, "cold", 1, 5), 0);
	assert_int_equal(store_dynamic_save(src, &dyn, &pp), 0);
	perphecy_profile_release(&pp);
	/* still running (this process): not pushed yet, nor its run */
	assert_int_equal(store_comparison_new(src, &running), 0);
	add_run(src, running.id, b.id, bench, machine, RUN_OK, false, 3.0);

	assert_int_equal(store_open(dst_path, 0, &dst), 0);
	assert_int_equal(store_push(src, dst, &ps), 0);
	assert_int_equal(ps.comparisons_added, 1);
	assert_int_equal(ps.comparisons_running, 1);
	assert_int_equal(ps.runs_added, 3);
	assert_int_equal(ps.builds_added, 2);
	assert_int_equal(ps.profiles_added, 1);
	assert_int_equal(ps.dynamic_added, 1);
	/* again: nothing */
	assert_int_equal(store_push(src, dst, &ps), 0);
	assert_int_equal(ps.comparisons_added + ps.runs_added + ps.profiles_added, 0);
	assert_int_equal(ps.builds_added + ps.dynamic_added, 0);
	assert_int_equal(ps.comparisons_present, 1);
	assert_int_equal(ps.runs_present, 3);
	assert_int_equal(ps.builds_present, 2);
	assert_int_equal(ps.profiles_present, 1);
	assert_int_equal(ps.dynamic_present, 1);

	/* what the target holds reads as the source did */
	{
		int64_t tb, tbench, tm, trev, tc;
		struct store_build found = { 0 };
		struct store_verdict *vs;
		struct store_profile *pl;
		assert_int_equal(store_revision(dst, "abc", "first", 10, &trev), 0);
		assert_int_equal(store_benchmark(dst, "ingest", "./x", &tbench), 0);
		assert_int_equal(store_machine(dst, &m, &tm), 0);
		assert_int_equal(store_build_find(dst, trev, "make", NULL, &found), 0);
		tb = found.id;
		store_build_release(&found);
		assert_int_equal(store_comparison_latest(dst, tb, tb, "done", tm, &tc), 0);
		/* made on machine m (its runs say, no machine recorded): none on another */
		assert_int_equal(store_comparison_latest(dst, tb, tb, "done", tm + 1000, &tc), 1);
		assert_int_equal(store_comparison_latest(dst, tb, tb, "done", tm, &tc), 0);
		f.base_build = f.target_build = tb;
		f.side = 'A';
		f.benchmark_id = tbench;
		f.machine_id = tm;
		assert_int_equal(store_run_values(dst, &f, "wall", &v, &n), 0);
		assert_int_equal(n, 2);
		assert_true(v[0] == 1.5 && v[1] == 2.5);
		free(v);
		assert_int_equal(store_run_counters(dst, &f, &cr, &n), 0);
		assert_int_equal(n, 1);
		assert_int_equal(cr[0].samples.series[0].n, 50);
		assert_true(cr[0].samples.series[0].v[49] == 49 * 0.25);
		store_counter_runs_free(cr, n);
		assert_int_equal(store_comparison_verdicts(dst, tc, &vs, &n), 0);
		assert_int_equal(n, 1);
		assert_true(vs[0].ratio == 1.25 && isnan(vs[0].ci_lo));
		store_verdicts_free(vs, n);
		{
			/* the plan came along, its comparison ids mapped, NULLs kept */
			struct store_plan plan;
			assert_int_equal(store_plan_read(dst, tc, tbench, &plan), 0);
			assert_int_equal(plan.min_runs, 5);
			assert_int_equal(plan.max_runs, 30);
			assert_true(plan.runs_since_known && plan.runs_since == tc && plan.fresh);
			assert_true(plan.tolerance == 0.02 && isnan(plan.count_tolerance));
			assert_string_equal(plan.metrics, "wall, cpu");
			assert_null(plan.primary);
			store_plan_release(&plan);
		}
		assert_int_equal(store_profiles_of_revision(dst, "abc", "ingest", "vg-ir", &pl, &n),
				 0);
		assert_int_equal(n, 1);
		assert_int_equal(store_profile_value_get(dst, pl[0].id, "ir", &value), 0);
		assert_true(value == 123456789.0);
		store_profiles_free(pl, n);
		{
			/* the logs came along: the second run's output, the build's empty log */
			struct strbuf log = STRBUF_INIT;
			char *id = tmp_db_text(dst_path, "SELECT max(run_id) FROM run_logs");
			assert_non_null(id);
			assert_int_equal(store_run_log_get(dst, strtoll(id, NULL, 10), &log), 0);
			assert_string_equal(log.buf, "line one\nline two\n");
			free(id);
			strbuf_reset(&log);
			assert_int_equal(store_build_log_get(dst, tb, &log), 0);
			assert_int_equal(log.len, 0);
			assert_int_equal(store_run_log_get(dst, 999999, &log), 1);
			strbuf_release(&log);
		}
	}

	/* the running comparison ends: the next push takes it and its run */
	assert_int_equal(store_comparison_finish(src, running.id, "done"), 0);
	assert_int_equal(store_push(src, dst, &ps), 0);
	assert_int_equal(ps.comparisons_added, 1);
	assert_int_equal(ps.runs_added, 1);
	assert_int_equal(ps.runs_present, 3);

	store_build_release(&b);
	store_build_release(&cct);
	store_close(dst);
	store_close(src);
	tmp_db_remove(dst_path);
	{
		char *sqlite_path = src_path;
		struct strbuf sb = STRBUF_INIT;
		unlink(sqlite_path);
		strbuf_addf(&sb, "%s-wal", sqlite_path);
		unlink(sb.buf);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s-shm", sqlite_path);
		unlink(sb.buf);
		strbuf_release(&sb);
		free(sqlite_path);
	}
}


/*
 * The look-ups of show, gc and a run's output (store_show.c, store_gc.c, store_run_log.c,
 * store_run_values_ids(), store_run_ends()), on either engine.
 */
static void test_show_and_gc_lookups(void **state)
{
	char *path = tmp_db_path();
	struct store *st;
	struct machine_info m = { "host", "cpu", 4, "6.1", "performance" }, m2;
	struct store_build a = { 0 }, b = { 0 }, found = { 0 };
	struct store_comparison c = { 0 };
	struct store_comparison_info info;
	struct store_run_filter f = { 0 };
	struct store_run_end *ends;
	struct store_run_log log;
	struct store_gc_ref *refs;
	int64_t machine, rev_a, rev_b, bench, id, r1, r2, *ids;
	double *v;
	char **logs;
	size_t n, nr;
	bool worktree = false, runlog = false, buildlog = false;
	UNUSED(state);

	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_comparison_last(st, false, &id), 1);
	assert_int_equal(store_comparison_get(st, 1, &info), 1);
	assert_int_equal(store_machine(st, &m, &machine), 0);
	assert_int_equal(store_revision(st, "aaaa", "first", 10, &rev_a), 0);
	assert_int_equal(store_revision(st, "bbbb", "second", 20, &rev_b), 0);
	a.revision_id = rev_a;
	a.command = xstrdup("make");
	a.worktree = xstrdup("/w/a");
	a.log_path = xstrdup("/l/build-a.log");
	snprintf(a.status, sizeof(a.status), "ok");
	b.revision_id = rev_b;
	b.command = xstrdup("make");
	b.worktree = xstrdup("/w/b");
	snprintf(b.status, sizeof(b.status), "ok");
	assert_int_equal(store_build_save(st, &a), 0);
	assert_int_equal(store_build_save(st, &b), 0);
	assert_int_equal(store_benchmark(st, "ingest", "./x", &bench), 0);
	c.base_build = a.id;
	c.target_build = b.id;
	c.base_label = "base";
	c.target_label = "slow";
	c.seed = 42;
	c.alpha = 0.05;
	assert_int_equal(store_comparison_new(st, &c), 0);
	add_run(st, c.id, a.id, bench, machine, RUN_OK, true, 9.0); /* warm-up */
	r1 = add_run(st, c.id, a.id, bench, machine, RUN_OK, false, 1.0);
	add_run(st, c.id, a.id, bench, machine, RUN_FAILED, false, 5.0);
	r2 = add_run(st, c.id, a.id, bench, machine, RUN_OK, false, 2.0);
	assert_int_equal(store_comparison_finish(st, c.id, "done"), 0);

	assert_int_equal(store_comparison_last(st, false, &id), 0);
	assert_int_equal(id, c.id);
	/* of two commands (--cmd-a/--cmd-b): none here */
	assert_int_equal(store_comparison_last(st, true, &id), 1);
	assert_int_equal(store_comparison_newest(st, a.id, b.id, &id), 0);
	assert_int_equal(id, c.id);
	assert_int_equal(store_comparison_newest(st, b.id, a.id, &id), 1);
	assert_int_equal(store_comparison_get(st, c.id, &info), 0);
	assert_int_equal(info.base_build, a.id);
	assert_int_equal(info.target_build, b.id);
	assert_string_equal(info.base_label, "base");
	assert_string_equal(info.target_label, "slow");
	assert_string_equal(info.base_sha, "aaaa");
	assert_string_equal(info.target_sha, "bbbb");
	assert_string_equal(info.build_command, "make");
	assert_string_equal(info.status, "done");
	assert_true(info.seed == 42 && info.alpha == 0.05);
	assert_int_equal(info.machine_id, machine);
	store_comparison_info_release(&info);
	assert_int_equal(store_build_of_commit(st, "bbbb", "make", "", &found), 0);
	assert_int_equal(found.id, b.id);
	store_build_release(&found);
	assert_int_equal(store_build_of_commit(st, "cccc", "make", "", &found), 1);
	assert_int_equal(store_benchmark_find(st, "ingest", "./x", &id), 0);
	assert_int_equal(id, bench);
	assert_int_equal(store_benchmark_find(st, "ingest", "./y", &id), 1);
	assert_int_equal(store_machine_get(st, machine, &m2), 0);
	assert_string_equal(m2.hostname, "host");
	assert_string_equal(m2.governor, "performance");
	assert_int_equal(m2.cores, 4);
	assert_int_equal(store_machine_get(st, machine + 100, &m2), 1);
	assert_int_equal(store_count_runs(st, c.id, &n), 0);
	assert_int_equal(n, 4);

	f.base_build = a.id;
	f.target_build = b.id;
	f.side = 'A';
	f.benchmark_id = bench;
	f.machine_id = machine;
	assert_int_equal(store_run_values_ids(st, &f, "wall", &ids, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_true(ids[0] == r1 && ids[1] == r2 && v[0] == 1.0 && v[1] == 2.0);
	free(ids);
	free(v);
	assert_int_equal(store_run_ends(st, &f, &ends, &n), 0);
	assert_int_equal(n, 3); /* the failed run too, not the warm-up */
	assert_int_equal(ends[0].id, r1);
	assert_int_equal(ends[0].status, RUN_OK);
	assert_int_equal(ends[1].status, RUN_FAILED);
	assert_true(ends[1].exit_known);
	free(ends);
	assert_int_equal(store_run_first_log(st, &f, &log), 0);
	assert_int_equal(log.run_id, r1);
	assert_string_equal(log.path, "/tmp/x.log");
	store_run_log_release(&log);
	f.side = 'B';
	assert_int_equal(store_run_first_log(st, &f, &log), 1);

	assert_int_equal(store_gc_refs(st, &refs, &nr), 0);
	for (size_t i = 0; i < nr; i++) {
		worktree |= !strcmp(refs[i].path, "/w/a");
		buildlog |= !strcmp(refs[i].path, "/l/build-a.log");
		if (!strcmp(refs[i].path, "/tmp/x.log")) {
			runlog = true;
			assert_int_equal(refs[i].newest_s, 1); /* the runs' started_at */
		}
	}
	assert_true(worktree && buildlog && runlog);
	store_gc_refs_release(refs, nr);
	assert_int_equal(store_comparison_logs(st, c.id, &logs, &nr), 0);
	assert_int_equal(nr, 2);
	for (size_t i = 0; i < nr; i++) {
		assert_true(!strcmp(logs[i], "/tmp/x.log") || !strcmp(logs[i], "/l/build-a.log"));
		free(logs[i]);
	}
	free(logs);

	store_build_release(&a);
	store_build_release(&b);
	store_close(st);
	tmp_db_remove(path);
}

/*
 * A comparison whose process died without finishing it (SIGKILL) is marked abandoned by
 * the next open; one whose process still runs (this one) stays running.
 */
static void test_abandoned_comparison(void **state)
{
	char *path = tmp_db_path(), *status;
	struct store *st;
	struct store_comparison mine = { 0 };
	struct store_build b = { 0 };
	int pipefd[2], wstatus;
	int64_t theirs = 0;
	pid_t pid;
	UNUSED(state);

	assert_int_equal(store_open(path, 0, &st), 0);
	b.command = xstrdup("true"); /* a build of the --cmd-a/--cmd-b mode */
	snprintf(b.status, sizeof(b.status), "ok");
	assert_int_equal(store_build_save(st, &b), 0);
	mine.base_build = mine.target_build = b.id;
	mine.base_label = mine.target_label = "x";
	assert_int_equal(store_comparison_new(st, &mine), 0);
	store_close(st);

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store_comparison c = { 0 };
		struct store *cst;
		c.base_build = c.target_build = b.id;
		c.base_label = c.target_label = "killed";
		if (store_open(path, 0, &cst) || store_comparison_new(cst, &c))
			_exit(1);
		if (write(pipefd[1], &c.id, sizeof(c.id)) != sizeof(c.id))
			_exit(1);
		raise(SIGKILL); /* no store_comparison_finish(), no store_close() */
		_exit(1);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &theirs, sizeof(theirs)), sizeof(theirs));
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	assert_true(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL);
	status = comparison_status(path, theirs);
	assert_string_equal(status, "running"); /* nobody looked yet */
	free(status);

	assert_int_equal(store_open(path, 0, &st), 0);
	status = comparison_status(path, theirs);
	assert_string_equal(status, "abandoned");
	free(status);
	status = comparison_status(path, mine.id);
	assert_string_equal(status, "running"); /* this process still runs it */
	free(status);
	store_close(st);
	store_build_release(&b);
	tmp_db_remove(path);
}

/* The size of a file in bytes, 0 when it does not exist. */
static long long file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
}

/*
 * Thousands of runs stored one transaction each, as compare stores them: the WAL's
 * checkpoints (a thread of the store's, store_checkpoint.c) keep the WAL bounded and copy
 * the runs into the database file while the store is open; a process killed in the
 * middle loses none of the runs it committed.
 */
static void test_wal_checkpoints(void **state)
{
	enum { RUNS = 3000, KILLED_AFTER = 1500 };
	char *path, wal[4096];
	struct store *st;
	struct machine_info m = { "host", "cpu", 2, "6.1", "performance" };
	struct store_comparison c = { 0 };
	struct store_build b = { 0 };
	struct store_run_filter f = { 0 };
	int64_t machine, bench;
	size_t ok, failed;
	long long db_before, wal_max = 0;
	int pipefd[2], wstatus;
	pid_t pid;
	UNUSED(state);
	TMP_DB_SQLITE_ONLY();
	path = tmp_db_path();
	snprintf(wal, sizeof(wal), "%s-wal", path);

	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_machine(st, &m, &machine), 0);
	b.command = xstrdup("true");
	snprintf(b.status, sizeof(b.status), "ok");
	assert_int_equal(store_build_save(st, &b), 0);
	assert_int_equal(store_benchmark(st, "b", "true", &bench), 0);
	c.base_build = c.target_build = b.id;
	c.base_label = c.target_label = "x";
	assert_int_equal(store_comparison_new(st, &c), 0);
	db_before = file_size(path);
	for (int i = 0; i < RUNS; i++) {
		add_run(st, c.id, b.id, bench, machine, RUN_OK, false, 1.0 + i);
		/* As compare checks after each run: the thread's checkpoints are no damage. */
		assert_int_equal(store_check_files(st, "benchmark 'b'"), 0);
		if (file_size(wal) > wal_max)
			wal_max = file_size(wal);
	}
	/* Without checkpoints the WAL would hold every run: about 8.6 pages of 4 KiB each,
	 * over 100 MB here. Idle it stays near 11-14 MB (bench/RESULTS.md); the committing
	 * connection checkpoints itself from 10,000 frames (41 MB) on, but a PASSIVE
	 * checkpoint cannot restart a WAL the thread's checkpoint is still copying, and on a
	 * loaded machine (both CPUs busy: 5 of 40 runs) the WAL passed 43 MB before the thread
	 * caught up. Three quarters of the whole is what no checkpoint at all would pass. */
	assert_true(wal_max > 0);
	if (wal_max >= RUNS * 86LL / 10 * 4120 * 3 / 4)
		fail_msg("the WAL grew to %lld bytes: checkpoints did not keep up", wal_max);
	/* Copied into the database while it is open (before, only the schema was there). */
	assert_true(file_size(path) > db_before + 100000);
	assert_int_equal(store_verify(st), 0);
	store_close(st);

	/* A process storing runs, killed after KILLED_AFTER of them: all of those are there. */
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store *cst;
		char done = 1;
		close(pipefd[0]);
		if (store_open(path, 0, &cst))
			_exit(1);
		for (int i = 0; i < KILLED_AFTER; i++)
			add_run(cst, c.id, b.id, bench, machine, RUN_OK, false, 1.0);
		if (write(pipefd[1], &done, 1) != 1)
			_exit(1);
		for (;;) /* storing when killed */
			add_run(cst, c.id, b.id, bench, machine, RUN_OK, false, 1.0);
	}
	close(pipefd[1]);
	{
		char done = 0;
		assert_int_equal(read(pipefd[0], &done, 1), 1);
	}
	close(pipefd[0]);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	assert_true(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL);
	assert_int_equal(store_open(path, 0, &st), 0);
	f.base_build = f.target_build = b.id;
	f.side = 'A';
	f.benchmark_id = bench;
	f.machine_id = machine;
	assert_int_equal(store_run_counts(st, &f, &ok, &failed), 0);
	assert_true(ok >= RUNS + KILLED_AFTER);
	assert_int_equal(failed, 0);
	assert_int_equal(store_check_files(st, "benchmark 'b'"), 0);
	assert_int_equal(store_verify(st), 0);
	store_close(st);
	store_build_release(&b);
	tmp_db_remove(path);
}

/*
 * Several processes opening one new database at once: one creates the schema, the others
 * wait for it and see it done; none takes it for another program's database (the check
 * and the creation were not one transaction).
 */
static void test_concurrent_create(void **state)
{
	/* A new PostgreSQL database costs far more than a new file: fewer rounds there. */
	enum { PROCS = 8, ROUNDS = 60, PG_ROUNDS = 6 };
	UNUSED(state);
	for (int round = 0; round < (tmp_db_is_pg() ? PG_ROUNDS : ROUNDS); round++) {
		char *path = tmp_db_path();
		pid_t pids[PROCS];
		int gate[2];
		assert_int_equal(pipe(gate), 0);
		for (int i = 0; i < PROCS; i++) {
			pids[i] = fork();
			assert_true(pids[i] >= 0);
			if (pids[i] == 0) {
				struct store *cst;
				char c;
				int64_t id;
				struct machine_info m = { "host", "cpu", 2, "6.1", "x" };
				close(gate[1]);
				/* all start together, when the parent closes the gate */
				if (read(gate[0], &c, 1) != 0)
					_exit(3);
				if (store_open(path, 0, &cst) || store_machine(cst, &m, &id))
					_exit(1);
				store_close(cst);
				_exit(0);
			}
		}
		close(gate[0]);
		close(gate[1]);
		for (int i = 0; i < PROCS; i++) {
			int wstatus;
			assert_int_equal(waitpid(pids[i], &wstatus, 0), pids[i]);
			if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus))
				fail_msg("round %d: process %d of %d failed to open a new database",
					 round, i, PROCS);
		}
		tmp_db_remove(path);
	}
}

/* Writes n bytes of garbage at offset 0 of path. */
static void scribble(const char *path, size_t n)
{
	char junk[64];
	FILE *f = fopen(path, "r+");
	assert_non_null(f);
	memset(junk, 0x5a, sizeof(junk));
	assert_true(n <= sizeof(junk));
	assert_int_equal(fwrite(junk, 1, n, f), n);
	fclose(f);
}

/* The files behind the database: deleted, replaced or overwritten files are noticed. */
static void test_check_files(void **state)
{
	char *path;
	struct store *st;
	struct strbuf side = STRBUF_INIT;
	int64_t id;
	UNUSED(state);
	TMP_DB_SQLITE_ONLY();
	path = tmp_db_path();

	/* Intact: fine, also after writes and at the end (quick_check). */
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_verify(st), 0); /* nothing ran: nothing to check */
	assert_int_equal(store_benchmark(st, "b", "true", &id), 0);
	assert_int_equal(store_check_files(st, "test"), 0);
	assert_int_equal(store_benchmark(st, "c", "true", &id), 0);
	assert_int_equal(store_verify(st), 0);
	/* The database deleted, as `rm -f .revperf/revperf.db*` does. */
	unlink(path);
	assert_int_equal(store_check_files(st, "test"), RP_EINTERNAL);
	assert_int_equal(store_verify(st), RP_EINTERNAL);
	store_close(st);
	tmp_db_remove(path);

	/* Its write-ahead log overwritten with garbage. */
	path = tmp_db_path();
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_benchmark(st, "b", "true", &id), 0);
	strbuf_addf(&side, "%s-wal", path);
	scribble(side.buf, 32);
	assert_int_equal(store_check_files(st, "test"), RP_EINTERNAL);
	store_close(st);
	tmp_db_remove(path);

	/* The database truncated. */
	path = tmp_db_path();
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(store_check_files(st, "test"), RP_EINTERNAL);
	store_close(st);
	tmp_db_remove(path);

	/* The database replaced by another file (same name, new inode). */
	path = tmp_db_path();
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_benchmark(st, "b", "true", &id), 0);
	strbuf_reset(&side);
	strbuf_addf(&side, "%s.new", path);
	{
		FILE *f = fopen(side.buf, "w");
		assert_non_null(f);
		fclose(f);
	}
	assert_int_equal(rename(side.buf, path), 0);
	assert_int_equal(store_check_files(st, "test"), RP_EINTERNAL);
	store_close(st);
	tmp_db_remove(path);
	strbuf_release(&side);
}

/* The sum of the rows of stmt (one integer column), stepped to its end; -1 on an error. */
static int64_t sum_rows(struct db_stmt *stmt)
{
	int64_t sum = 0;
	int rc;
	while ((rc = db_step(stmt)) == DB_ROW)
		sum += db_column_int64(stmt, 0);
	return rc == DB_DONE ? sum : -1;
}

/*
 * db_prefetch() (PostgreSQL: read ahead on a connection of its own, one snapshot) and
 * db_stream() (single-row mode): the same rows as a plain read, other statements on the
 * handle meanwhile, a streamed read left early, a statement sent while one streams (it
 * fails on PostgreSQL, the stream goes on), a prefetched one bound again (run anew).
 */
static void test_prefetch_and_stream(void **state)
{
	char *path = tmp_db_path();
	struct store *st;
	struct db *db;
	struct db_stmt *a, *b, *c;
	UNUSED(state);

	assert_int_equal(store_open(path, 0, &st), 0);
	db = st->db;
	assert_int_equal(db_exec(db, "CREATE TABLE t(x INTEGER)"), 0);
	assert_int_equal(db_begin(db), 0);
	assert_int_equal(db_prepare(db, "INSERT INTO t VALUES(?1)", &a), 0);
	for (int i = 1; i <= 1000; i++) {
		db_bind_int64(a, 1, i);
		assert_int_equal(db_step(a), DB_DONE);
		db_reset(a);
	}
	db_finalize(a);
	assert_int_equal(db_commit(db), 0);

	/* two reads ahead in one thread; the main connection used meanwhile */
	assert_int_equal(db_prepare(db, "SELECT x FROM t ORDER BY x", &a), 0);
	assert_int_equal(db_prepare(db, "SELECT x FROM t WHERE x <= ?1", &b), 0);
	db_bind_int64(b, 1, 10);
	{
		struct db_stmt *both[] = {a, b};
		db_prefetch(both, 2);
	}
	assert_int_equal(db_prepare(db, "SELECT count(*) FROM t", &c), 0);
	assert_int_equal(sum_rows(c), 1000);
	db_finalize(c);
	assert_int_equal(sum_rows(b), 55);
	assert_int_equal(sum_rows(a), 500500);
	db_reset(a);
	assert_int_equal(sum_rows(a), 500500); /* run again, on the main connection */
	db_finalize(a);
	/* bound anew after the read ahead: the new binding's rows */
	db_reset(b);
	{
		struct db_stmt *one[] = {b};
		db_prefetch(one, 1);
	}
	db_bind_int64(b, 1, 3);
	assert_int_equal(sum_rows(b), 6);
	/* a read ahead never stepped: finalized (its thread waited for) */
	db_reset(b);
	{
		struct db_stmt *one[] = {b};
		db_prefetch(one, 1);
	}
	db_finalize(b);

	/* streamed: every row; then left after 10 rows, the handle free again */
	assert_int_equal(db_prepare(db, "SELECT x FROM t ORDER BY x", &a), 0);
	db_stream(a);
	assert_int_equal(sum_rows(a), 500500);
	db_reset(a);
	db_stream(a);
	for (int i = 1; i <= 10; i++) {
		assert_int_equal(db_step(a), DB_ROW);
		assert_int_equal(db_column_int64(a, 0), i);
	}
	if (tmp_db_is_pg()) { /* one connection, one statement at a time while it streams */
		assert_int_equal(db_prepare(db, "SELECT count(*) FROM t", &c), 0);
		assert_int_equal(db_step(c), DB_ERROR);
		assert_non_null(strstr(db_errmsg(db), "still being read"));
		db_finalize(c);
		assert_int_equal(db_step(a), DB_ROW);
		assert_int_equal(db_column_int64(a, 0), 11);
	}
	db_finalize(a);
	assert_int_equal(db_prepare(db, "SELECT count(*) FROM t", &c), 0);
	assert_int_equal(sum_rows(c), 1000);
	db_finalize(c);
	store_close(st);
	tmp_db_remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_and_reopen),
		cmocka_unit_test(test_foreign_and_corrupt),
		cmocka_unit_test(test_wal_mode),
		cmocka_unit_test(test_migrate_from_v1),
		cmocka_unit_test(test_build_generations),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_verdict_order),
		cmocka_unit_test(test_push),
		cmocka_unit_test(test_show_and_gc_lookups),
		cmocka_unit_test(test_abandoned_comparison),
		cmocka_unit_test(test_concurrent_create),
		cmocka_unit_test(test_check_files),
		cmocka_unit_test(test_prefetch_and_stream),
		cmocka_unit_test(test_wal_checkpoints),
		cmocka_unit_test(test_schema_version_is_last_migration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
