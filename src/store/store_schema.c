/*
 * The schema of the store: one list of forward migrations for both engines. A database at
 * version v takes every step whose `to` is above v, in order, in one transaction
 * (store_open.c). The SQL is SQLite's; for PostgreSQL db_ddl() rewrites its types, and
 * the few steps PostgreSQL cannot take as written have their own text (pg_sql). A new
 * PostgreSQL database takes the same steps as a new SQLite file, so that both end with
 * the same tables, columns and keys. Schema: docs/store.md.
 */
#include "store/store.h"
#include "store/store_impl.h"

#include "util/common.h"

const struct store_migration store_migrations[] = {
	/* 0 -> 1 */
	{1,
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
	 NULL},
	/* 1 -> 2: build variants (the instrumented build of profiled runs) and profiles.
	 * SQLite cannot change a UNIQUE constraint: the table is rebuilt, ids kept (foreign
	 * keys are off while migrating, see store_open()). */
	{2,
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
		"ALTER TABLE builds_v2 RENAME TO builds;",
	 /* PostgreSQL changes the UNIQUE constraint in place (its default name). */
	 "ALTER TABLE builds ADD COLUMN variant TEXT NOT NULL DEFAULT '';"
	 "ALTER TABLE builds DROP CONSTRAINT builds_revision_id_command_key;"
	 "ALTER TABLE builds ADD UNIQUE(revision_id, command, variant);"},
	/* 1 -> 2 (both engines): profiled runs. */
	{2,
		"CREATE TABLE profiles("
		"  id INTEGER PRIMARY KEY,"
		"  build_id INTEGER NOT NULL REFERENCES builds(id),"
		"  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),"
		"  machine_id INTEGER NOT NULL REFERENCES machines(id),"
		"  comparison_id INTEGER REFERENCES comparisons(id),"
		"  kind TEXT NOT NULL, status TEXT NOT NULL, detail TEXT,"
		"  path TEXT NOT NULL, log_path TEXT, started_at INTEGER NOT NULL);"
		"CREATE INDEX profiles_by_build ON profiles(build_id, benchmark_id, machine_id, kind);",
	 NULL},
	/* 2 -> 3: counter series of runs (profile = counters), dynamic data per (build,
	 * benchmark) for the predictor, and trained predictors. */
	{3,
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
	 NULL},
	/* 3 -> 4: who runs a comparison, so that one whose process is gone (SIGKILL, a
	 * crash, a reboot) is marked abandoned instead of staying 'running' forever. */
	{4,
		"ALTER TABLE comparisons ADD COLUMN host TEXT;"
		"ALTER TABLE comparisons ADD COLUMN boot_id TEXT;"
		"ALTER TABLE comparisons ADD COLUMN pid INTEGER;"
		"ALTER TABLE comparisons ADD COLUMN pid_start INTEGER;",
	 NULL},
	/* 4 -> 5: the counts of a counted run (kinds vg-ir, vg-cache: ir, sim-cycles). */
	{5,
		"CREATE TABLE profile_values("
		"  profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,"
		"  metric TEXT NOT NULL, value REAL NOT NULL,"
		"  PRIMARY KEY(profile_id, metric)) WITHOUT ROWID;",
	 NULL},
	/* 5 -> 6: the order of a comparison's verdicts as a column (PostgreSQL has no rowid;
	 * SQLite's INSERT OR REPLACE moved a verdict saved again to the end, seq does now). */
	{6,
	 "ALTER TABLE verdicts ADD COLUMN seq INTEGER;"
	 "UPDATE verdicts SET seq = rowid;",
	 "ALTER TABLE verdicts ADD COLUMN seq INTEGER;"},
	/* 6 -> 7: revperf push (store_push.c): this store's own random id (made by its first
	 * push), and in a store pushed into, which row of which store each pushed row was, so
	 * that a second push adds nothing. */
	{7,
	 "CREATE TABLE store_identity(id TEXT NOT NULL);"
	 "CREATE TABLE pushed("
	 "  origin TEXT NOT NULL, kind TEXT NOT NULL, local_id INTEGER NOT NULL,"
	 "  id INTEGER NOT NULL, PRIMARY KEY(origin, kind, local_id)) WITHOUT ROWID;",
	 NULL},
	/* 7 -> 8: the output of runs and builds, zstd-compressed (store_logs.c), for reports
	 * built away from the machine that measured. */
	{8,
	 "CREATE TABLE run_logs("
	 "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	 "  length INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(run_id));"
	 "CREATE TABLE build_logs("
	 "  build_id INTEGER NOT NULL REFERENCES builds(id) ON DELETE CASCADE,"
	 "  length INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(build_id));",
	 NULL},
	/* 8 -> 9: the queue (store_jobs.c): work submitted for workers to claim, each job
	 * one command line (a comparison, one commit of a history, a bisection) with the
	 * machine tag it wants, its state, the worker holding it and the lease it holds until
	 * (seconds since the epoch on the database's clock, never the worker's). */
	{9,
	 "CREATE TABLE jobs("
	 "  id INTEGER PRIMARY KEY,"
	 "  kind TEXT NOT NULL CHECK(kind IN ('compare', 'history-commit', 'bisect')),"
	 "  args TEXT NOT NULL, label TEXT NOT NULL, machine_tag TEXT,"
	 "  state TEXT NOT NULL CHECK(state IN ('queued', 'running', 'done', 'failed')),"
	 "  worker TEXT, machine TEXT, lease_until INTEGER,"
	 "  attempts INTEGER NOT NULL DEFAULT 0, progress TEXT, error TEXT, exit_code INTEGER,"
	 "  submitted_at INTEGER NOT NULL, started_at INTEGER, finished_at INTEGER);"
	 "CREATE INDEX jobs_by_state ON jobs(state, id);"
	 /* What a claim looks at: the open jobs only, however many ended. */
	 "CREATE INDEX jobs_open ON jobs(id) WHERE state IN ('queued', 'running');",
	 NULL},
	/* 9 -> 10: the looks a comparison planned for each benchmark (runs MIN..MAX at its
	 * alpha), written before its first run: runs looked at under another plan are not
	 * reused (compare.c, stored_runs_complete()), since their alpha is spent. Stores made
	 * while STORE_SCHEMA_VERSION still said 9 have the table at version 9 (a new store
	 * took every step) or lack it (made before): IF NOT EXISTS serves both. */
	{10,
	 "CREATE TABLE IF NOT EXISTS comparison_plans("
	 "  comparison_id INTEGER NOT NULL REFERENCES comparisons(id),"
	 "  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),"
	 "  min_runs INTEGER NOT NULL, max_runs INTEGER NOT NULL,"
	 "  PRIMARY KEY(comparison_id, benchmark_id));",
	 NULL},
	/* 10 -> 11: the first comparison whose runs the measurement took (runs_since: its own
	 * id under --fresh, later than the first stored run when runs were left out for
	 * another plan or a missing metric), so that a replay judges exactly those runs. NULL
	 * before schema 11: a replay then works it out again, but for --fresh. And whether it
	 * was made with --fresh: the runs before it are set aside for the comparisons that
	 * continue it too. */
	{11,
	 "ALTER TABLE comparison_plans ADD COLUMN runs_since INTEGER;"
	 "ALTER TABLE comparison_plans ADD COLUMN fresh INTEGER NOT NULL DEFAULT 0;",
	 NULL},
	/* 11 -> 12: what a comparison judged each benchmark with (tolerance, count-tolerance,
	 * the metrics and primary lists), so that a replay (revperf show) judges as it did
	 * after the configuration changed. NULL before: the configuration's, as before. */
	{12,
	 "ALTER TABLE comparison_plans ADD COLUMN tolerance REAL;"
	 "ALTER TABLE comparison_plans ADD COLUMN count_tolerance REAL;"
	 "ALTER TABLE comparison_plans ADD COLUMN metrics TEXT;"
	 "ALTER TABLE comparison_plans ADD COLUMN primary_metrics TEXT;",
	 NULL},
	/* 12 -> 13: the machine a comparison was made on, recorded when it starts. A
	 * comparison whose every run was reused has no run of its own to tell it, and the
	 * newest run of its builds may be another machine's on a shared store. NULL before:
	 * its runs tell, as before (store_show.c). */
	{13, "ALTER TABLE comparisons ADD COLUMN machine_id INTEGER REFERENCES machines(id);",
	 NULL},
	/* 13 -> 14: the fingerprint of what a build produced (binary/fingerprint.h; NULL: not
	 * recorded yet, a build made before) and its generation: a build of (revision,
	 * command, variant) whose programs came out different from those its stored runs
	 * measured (a worktree removed and built again, not reproducibly) is a new row, one
	 * generation up, so that the runs of two programs are never pooled (core/build.c).
	 * SQLite cannot change a UNIQUE constraint: the table is rebuilt, ids kept, as in
	 * 1 -> 2. */
	{14,
		"CREATE TABLE builds_v14("
		"  id INTEGER PRIMARY KEY, revision_id INTEGER REFERENCES revisions(id),"
		"  command TEXT NOT NULL, variant TEXT NOT NULL DEFAULT '', worktree TEXT,"
		"  log_path TEXT, status TEXT NOT NULL CHECK(status IN ('ok', 'failed')),"
		"  duration_ns INTEGER, created_at INTEGER NOT NULL,"
		"  generation INTEGER NOT NULL DEFAULT 0, fingerprint TEXT,"
		"  UNIQUE(revision_id, command, variant, generation));"
		"INSERT INTO builds_v14(id, revision_id, command, variant, worktree, log_path,"
		"  status, duration_ns, created_at) SELECT id, revision_id, command, variant,"
		"  worktree, log_path, status, duration_ns, created_at FROM builds;"
		"DROP TABLE builds;"
		"ALTER TABLE builds_v14 RENAME TO builds;",
	 /* PostgreSQL changes the UNIQUE constraint in place (the name 1 -> 2 gave it). */
	 "ALTER TABLE builds ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;"
	 "ALTER TABLE builds ADD COLUMN fingerprint TEXT;"
	 "ALTER TABLE builds DROP CONSTRAINT builds_revision_id_command_variant_key;"
	 "ALTER TABLE builds ADD UNIQUE(revision_id, command, variant, generation);"},
};

const size_t store_nr_migrations = ARRAY_SIZE(store_migrations);
