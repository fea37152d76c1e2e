#include "store/store.h"
#include "store/store_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/common.h"

static int db_error(struct store *st, const char *what)
{
	return store_db_error(st, what);
}

static int exec_sql(struct store *st, const char *sql)
{
	return store_exec(st, sql);
}

static struct db_stmt *prepare(struct store *st, const char *sql)
{
	struct db_stmt *stmt = NULL;
	if (db_prepare(st->db, sql, &stmt)) {
		db_error(st, "cannot prepare a statement");
		return NULL;
	}
	return stmt;
}

static void bind_text(struct db_stmt *stmt, int i, const char *s)
{
	db_bind_text(stmt, i, s);
}

static void bind_real(struct db_stmt *stmt, int i, double v)
{
	if (isfinite(v))
		db_bind_double(stmt, i, v);
	else
		db_bind_null(stmt, i);
}

/*
 * Runs an INSERT ... ON CONFLICT DO NOTHING with the n texts bound, then a SELECT of the
 * id with the first n_select of them: the row's id whether this call or another process
 * created it.
 */
static int get_or_create(struct store *st, const char *insert, const char *select,
			 const char *const *texts, size_t n, size_t n_select, int64_t *id)
{
	struct db_stmt *stmt;
	size_t i;
	int rc;
	for (int pass = 0; pass < 2; pass++) {
		stmt = prepare(st, pass ? select : insert);
		if (!stmt)
			return RP_EINTERNAL;
		for (i = 0; i < (pass ? n_select : n); i++)
			bind_text(stmt, (int)i + 1, texts[i]);
		rc = db_step(stmt);
		if (pass && rc == DB_ROW)
			*id = db_column_int64(stmt, 0);
		db_finalize(stmt);
		if (rc != DB_DONE && rc != DB_ROW)
			return db_error(st, "cannot record");
		if (pass && rc != DB_ROW)
			return db_error(st, "a row vanished");
	}
	return 0;
}

int store_identity(struct store *st, bool make, char out[33])
{
	struct db_stmt *stmt;
	unsigned char raw[16];
	int rc, fd;
	for (int made = 0;; made++) {
		const char *id;
		out[0] = '\0';
		if (!(stmt = prepare(st, "SELECT min(id) FROM store_identity")))
			return RP_EINTERNAL;
		rc = db_step(stmt);
		id = rc == DB_ROW ? db_column_text(stmt, 0) : NULL;
		if (id)
			snprintf(out, 33, "%s", id);
		db_finalize(stmt);
		if (rc != DB_ROW)
			return db_error(st, "cannot read the store's identity");
		if (!out[0] && !make)
			return 0;
		if (out[0] || made)
			break;
		fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, raw, sizeof(raw)) != (ssize_t)sizeof(raw)) {
			if (fd >= 0)
				close(fd);
			error("cannot read /dev/urandom for the store's identity");
			return RP_EINTERNAL;
		}
		close(fd);
		for (size_t i = 0; i < sizeof(raw); i++)
			snprintf(out + 2 * i, 3, "%02x", raw[i]);
		if (!(stmt = prepare(st, "INSERT INTO store_identity(id) VALUES(?1)")))
			return RP_EINTERNAL;
		bind_text(stmt, 1, out);
		rc = store_step_done(st, stmt, "cannot record the store's identity");
		db_finalize(stmt);
		if (rc)
			return rc;
	}
	/* It names folders (core/build.h): hex digits only, never a path. */
	if (strlen(out) != 32 || strspn(out, "0123456789abcdef") != 32) {
		struct strbuf shown = STRBUF_INIT;
		strbuf_add_printable(&shown, out);
		error("the store's identity '%s' (table store_identity) is not 32 hex digits, "
		      "as revperf makes them: was the row edited? Restore it from a backup",
		      shown.buf);
		strbuf_release(&shown);
		return RP_EINPUT;
	}
	return 0;
}

int store_machine(struct store *st, const struct machine_info *m, int64_t *id)
{
	char cores[16];
	const char *texts[5];
	snprintf(cores, sizeof(cores), "%d", m->cores);
	texts[0] = m->hostname;
	texts[1] = m->cpu_model;
	texts[2] = cores;
	texts[3] = m->kernel;
	texts[4] = m->governor;
	return get_or_create(st,
			     "INSERT INTO machines(hostname, cpu_model, cores, kernel, governor)"
			     " VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
			     "SELECT id FROM machines WHERE hostname = ?1 AND cpu_model = ?2 AND"
			     " cores = ?3 AND kernel = ?4 AND governor = ?5",
			     texts, 5, 5, id);
}

int store_revision(struct store *st, const char *sha, const char *summary, int64_t commit_time,
		   int64_t *id)
{
	char when[32];
	const char *texts[3];
	snprintf(when, sizeof(when), "%lld", (long long)commit_time);
	texts[0] = sha;
	texts[1] = summary;
	texts[2] = when;
	return get_or_create(st,
			     "INSERT INTO revisions(sha, summary, commit_time) VALUES(?1, ?2, ?3)"
			     " ON CONFLICT DO NOTHING",
			     "SELECT id FROM revisions WHERE sha = ?1", texts, 3, 1, id);
}

int store_benchmark(struct store *st, const char *name, const char *command, int64_t *id)
{
	const char *texts[2] = { name, command };
	return get_or_create(st,
			     "INSERT INTO benchmarks(name, command) VALUES(?1, ?2)"
			     " ON CONFLICT DO NOTHING",
			     "SELECT id FROM benchmarks WHERE name = ?1 AND command = ?2", texts, 2,
			     2, id);
}

void store_build_release(struct store_build *b)
{
	if (!b)
		return;
	free(b->command);
	free(b->worktree);
	free(b->log_path);
	free(b->fingerprint);
	memset(b, 0, sizeof(*b));
}

static char *column_dup(struct db_stmt *stmt, int i)
{
	const char *s = db_column_text(stmt, i);
	return s ? xstrdup(s) : NULL;
}

void store_build_from_row(struct db_stmt *stmt, struct store_build *out)
{
	const char *variant = db_column_text(stmt, 3), *status = db_column_text(stmt, 6);
	memset(out, 0, sizeof(*out));
	out->id = db_column_int64(stmt, 0);
	out->revision_id = db_column_int64(stmt, 1);
	out->command = xstrdup(db_column_text(stmt, 2) ? db_column_text(stmt, 2) : "");
	snprintf(out->variant, sizeof(out->variant), "%s", variant ? variant : "");
	out->worktree = column_dup(stmt, 4);
	out->log_path = column_dup(stmt, 5);
	snprintf(out->status, sizeof(out->status), "%s", status ? status : "");
	out->duration_ns = db_column_int64(stmt, 7);
	out->generation = db_column_int64(stmt, 8);
	out->fingerprint = column_dup(stmt, 9);
}

int store_build_find(struct store *st, int64_t revision_id, const char *command,
		     const char *variant, struct store_build *out)
{
	struct db_stmt *stmt = prepare(st, "SELECT " STORE_BUILD_COLUMNS " FROM builds"
					 " WHERE revision_id = ?1 AND command = ?2 AND variant = ?3"
					 " ORDER BY generation DESC LIMIT 1");
	int rc, ret = 1;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, revision_id);
	bind_text(stmt, 2, command);
	bind_text(stmt, 3, variant ? variant : "");
	rc = db_step(stmt);
	if (rc == DB_ROW) {
		store_build_from_row(stmt, out);
		ret = 0;
	} else if (rc != DB_DONE) {
		ret = db_error(st, "cannot look up a build");
	}
	db_finalize(stmt);
	return ret;
}

int store_build_save(struct store *st, struct store_build *b)
{
	struct db_stmt *stmt;
	int rc;
	if (b->revision_id) {
		stmt = prepare(st, "INSERT INTO builds(revision_id, command, worktree, log_path,"
				   " status, duration_ns, created_at, variant, generation,"
				   " fingerprint) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
				   " ON CONFLICT(revision_id, command, variant, generation)"
				   " DO UPDATE SET worktree = ?3, log_path = ?4, status = ?5,"
				   " duration_ns = ?6, created_at = ?7,"
				   " fingerprint = COALESCE(?10, builds.fingerprint) RETURNING id");
	} else {
		stmt = prepare(st, "INSERT INTO builds(revision_id, command, worktree, log_path,"
				   " status, duration_ns, created_at, variant, generation,"
				   " fingerprint) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
				   " RETURNING id");
	}
	if (!stmt)
		return RP_EINTERNAL;
	if (b->revision_id)
		db_bind_int64(stmt, 1, b->revision_id);
	else
		db_bind_null(stmt, 1);
	bind_text(stmt, 2, b->command);
	bind_text(stmt, 3, b->worktree);
	bind_text(stmt, 4, b->log_path);
	bind_text(stmt, 5, b->status);
	db_bind_int64(stmt, 6, b->duration_ns);
	db_bind_int64(stmt, 7, (int64_t)time(NULL));
	bind_text(stmt, 8, b->variant);
	db_bind_int64(stmt, 9, b->generation);
	bind_text(stmt, 10, b->fingerprint);
	rc = db_step(stmt);
	if (rc == DB_ROW)
		b->id = db_column_int64(stmt, 0);
	db_finalize(stmt);
	if (rc != DB_ROW)
		return db_error(st, "cannot record a build");
	return 0;
}

int store_build_fingerprint_set(struct store *st, int64_t id, const char *fingerprint)
{
	struct db_stmt *stmt = prepare(st, "UPDATE builds SET fingerprint = ?2 WHERE id = ?1");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, id);
	bind_text(stmt, 2, fingerprint);
	rc = db_step(stmt);
	db_finalize(stmt);
	if (rc != DB_DONE)
		return db_error(st, "cannot record the fingerprint of a build");
	return 0;
}

int store_build_measured(struct store *st, int64_t id, size_t *runs, size_t *counted,
			 size_t *profiles)
{
	struct db_stmt *stmt = prepare(st, "SELECT (SELECT count(*) FROM runs WHERE build_id = ?1"
					 " AND warmup = 0), (SELECT count(*) FROM profiles WHERE"
					 " build_id = ?1 AND kind IN ('vg-ir', 'vg-cache')),"
					 " (SELECT count(*) FROM profiles WHERE build_id = ?1 AND"
					 " kind NOT IN ('vg-ir', 'vg-cache'))"
					 " + (SELECT count(*) FROM dynamic_profiles WHERE"
					 " build_id = ?1)");
	int rc;
	*runs = *counted = *profiles = 0;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, id);
	rc = db_step(stmt);
	if (rc == DB_ROW) {
		*runs = (size_t)db_column_int64(stmt, 0);
		*counted = (size_t)db_column_int64(stmt, 1);
		*profiles = (size_t)db_column_int64(stmt, 2);
	}
	db_finalize(stmt);
	if (rc != DB_ROW)
		return db_error(st, "cannot count what a build measured");
	return 0;
}

int store_comparison_new(struct store *st, struct store_comparison *c)
{
	struct db_stmt *stmt = prepare(st, "INSERT INTO comparisons(base_build, target_build,"
					 " base_label, target_label, seed, alpha, created_at,"
					 " status, host, boot_id, pid, pid_start, machine_id)"
					 " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running', ?8, ?9,"
					 " ?10, ?11, ?12) RETURNING id");
	char host[256], boot[64];
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, c->base_build);
	db_bind_int64(stmt, 2, c->target_build);
	bind_text(stmt, 3, c->base_label);
	bind_text(stmt, 4, c->target_label);
	/* Integers are signed in both engines: the seed is stored as its bit pattern. */
	db_bind_int64(stmt, 5, (int64_t)c->seed);
	db_bind_double(stmt, 6, c->alpha);
	db_bind_int64(stmt, 7, (int64_t)time(NULL));
	/* Who runs it: a later open marks it abandoned once this process is gone. */
	store_process_host(host, sizeof(host));
	machine_boot_id(boot, sizeof(boot));
	bind_text(stmt, 8, host);
	bind_text(stmt, 9, boot);
	db_bind_int64(stmt, 10, (int64_t)getpid());
	db_bind_int64(stmt, 11, machine_process_start(getpid()));
	if (c->machine_id > 0)
		db_bind_int64(stmt, 12, c->machine_id);
	else
		db_bind_null(stmt, 12);
	rc = db_step(stmt);
	if (rc == DB_ROW)
		c->id = db_column_int64(stmt, 0);
	db_finalize(stmt);
	return rc == DB_ROW ? 0 : db_error(st, "cannot record a comparison");
}

int store_comparison_finish(struct store *st, int64_t id, const char *status)
{
	struct db_stmt *stmt = prepare(st, "UPDATE comparisons SET status = ?2, finished_at = ?3"
					 " WHERE id = ?1");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, id);
	bind_text(stmt, 2, status);
	db_bind_int64(stmt, 3, (int64_t)time(NULL));
	rc = db_step(stmt);
	db_finalize(stmt);
	return rc == DB_DONE ? 0 : db_error(st, "cannot finish a comparison");
}

enum run_status run_status_parse(const char *s)
{
	int i;
	for (i = RUN_OK; s && i <= RUN_INTERRUPTED; i++)
		if (!strcmp(run_status_name((enum run_status)i), s))
			return (enum run_status)i;
	return RUN_FAILED;
}

#define RUN_INSERT_SQL                                                                             \
	"INSERT INTO runs(build_id, benchmark_id, machine_id, comparison_id, side, warmup,"        \
	" status, exit_code, signal, detail, log_path, started_at, loadavg, log_offset,"           \
	" log_length, pair_seq) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"    \
	" ?14, ?15, ?16) RETURNING id"

/* Binds the columns of RUN_INSERT_SQL. */
static void bind_run(struct db_stmt *stmt, const struct store_run *run)
{
	char side[2] = { run->side, 0 };
	db_bind_int64(stmt, 1, run->build_id);
	db_bind_int64(stmt, 2, run->benchmark_id);
	db_bind_int64(stmt, 3, run->machine_id);
	if (run->comparison_id)
		db_bind_int64(stmt, 4, run->comparison_id);
	else
		db_bind_null(stmt, 4);
	bind_text(stmt, 5, side);
	db_bind_int64(stmt, 6, run->warmup);
	bind_text(stmt, 7, run_status_name(run->status));
	db_bind_int64(stmt, 8, run->exit_code);
	db_bind_int64(stmt, 9, run->signal);
	bind_text(stmt, 10, run->detail && *run->detail ? run->detail : NULL);
	bind_text(stmt, 11, run->log_path);
	db_bind_int64(stmt, 12, run->started_at);
	bind_real(stmt, 13, run->loadavg);
	db_bind_int64(stmt, 14, run->log_offset);
	db_bind_int64(stmt, 15, run->log_length);
	if (run->pair_seq)
		db_bind_int64(stmt, 16, run->pair_seq);
	else
		db_bind_null(stmt, 16);
}

/*
 * One run: its row (run_stmt: RUN_INSERT_SQL), then its finite metric values (value_stmt);
 * *id is the new row's. Both statements are reset first, so that a loop reuses them.
 */
static int insert_run(struct store *st, struct db_stmt *run_stmt, struct db_stmt *value_stmt,
		      const struct store_run *run, const char *const *names, const double *values,
		      size_t n, int64_t *id)
{
	db_reset(run_stmt);
	bind_run(run_stmt, run);
	if (db_step(run_stmt) != DB_ROW)
		return db_error(st, "cannot record a run");
	*id = db_column_int64(run_stmt, 0);
	/* RETURNING: the statement finishes only when stepped to its end. */
	if (db_step(run_stmt) != DB_DONE)
		return db_error(st, "cannot record a run");
	for (size_t k = 0; k < n; k++) {
		if (!isfinite(values[k]))
			continue;
		db_reset(value_stmt);
		db_bind_int64(value_stmt, 1, *id);
		bind_text(value_stmt, 2, names[k]);
		db_bind_double(value_stmt, 3, values[k]);
		if (db_step(value_stmt) != DB_DONE)
			return db_error(st, "cannot record a metric value");
	}
	return 0;
}

#define VALUE_INSERT_SQL "INSERT INTO metric_values(run_id, metric, value) VALUES(?1, ?2, ?3)"

int store_run_insert(struct store *st, struct store_run *run, const char *const *names,
		     const double *values, size_t n)
{
	struct db_stmt *run_stmt = NULL, *value_stmt = NULL;
	int ret = RP_EINTERNAL;

	/* One transaction per run, of kept statements: a run is stored as it ends. */
	if (db_begin(st->db))
		return db_error(st, "cannot record a run");
	run_stmt = store_cached(st, STORE_STMT_RUN_INSERT, RUN_INSERT_SQL);
	value_stmt = run_stmt ? store_cached(st, STORE_STMT_VALUE_INSERT, VALUE_INSERT_SQL) : NULL;
	if (!value_stmt || insert_run(st, run_stmt, value_stmt, run, names, values, n, &run->id))
		goto out;
	if (run->log_data && store_run_log_save(st, run->id, run->log_data, run->log_data_len))
		goto out;
	if (store_transaction_commit(st))
		goto out;
	ret = 0;
out:
	/* Kept, not finalized (store_close() does): reset, so that they hold nothing open. */
	if (run_stmt)
		db_reset(run_stmt);
	if (value_stmt)
		db_reset(value_stmt);
	if (ret)
		store_transaction_rollback(st);
	return ret;
}

void store_bind_filter(struct db_stmt *stmt, const struct store_run_filter *f)
{
	char side[2] = { f->side, 0 };
	db_bind_int64(stmt, 1, f->side == 'A' ? f->base_build : f->target_build);
	db_bind_int64(stmt, 2, f->benchmark_id);
	db_bind_int64(stmt, 3, f->machine_id);
	db_bind_int64(stmt, 4, f->comparison_id);
	bind_text(stmt, 5, side);
	db_bind_int64(stmt, 6, f->base_build);
	db_bind_int64(stmt, 7, f->target_build);
	db_bind_int64(stmt, 8, f->since_comparison);
}

#define FILTER_SQL STORE_FILTER_SQL

int store_run_values(struct store *st, const struct store_run_filter *f, const char *metric,
		     double **values, size_t *n)
{
	int64_t *ids = NULL;
	int ret = store_run_values_ids(st, f, metric, &ids, values, n);
	free(ids);
	return ret;
}

int store_run_values_ids(struct store *st, const struct store_run_filter *f, const char *metric,
			 int64_t **run_ids, double **values, size_t *n)
{
	struct db_stmt *stmt = prepare(st, "SELECT r.id, v.value FROM runs r JOIN metric_values v"
					 " ON v.run_id = r.id AND v.metric = ?9 WHERE" FILTER_SQL
					 " AND r.status = 'ok' ORDER BY r.id");
	size_t alloc = 0, alloc_ids = 0;
	int rc;
	*run_ids = NULL;
	*values = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, f);
	bind_text(stmt, 9, metric);
	while ((rc = db_step(stmt)) == DB_ROW) {
		ALLOC_GROW(*run_ids, *n + 1, alloc_ids);
		ALLOC_GROW(*values, *n + 1, alloc);
		(*run_ids)[*n] = db_column_int64(stmt, 0);
		(*values)[(*n)++] = db_column_double(stmt, 1);
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		free(*run_ids);
		free(*values);
		*run_ids = NULL;
		*values = NULL;
		*n = 0;
		return db_error(st, "cannot read runs");
	}
	return 0;
}

int store_run_ends(struct store *st, const struct store_run_filter *f,
		   struct store_run_end **out, size_t *n)
{
	struct db_stmt *stmt = prepare(st, "SELECT r.id, r.status, r.exit_code, r.signal FROM runs r"
					 " WHERE" FILTER_SQL " ORDER BY r.id");
	size_t alloc = 0;
	int rc;
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, f);
	while ((rc = db_step(stmt)) == DB_ROW) {
		struct store_run_end *r;
		ALLOC_GROW(*out, *n + 1, alloc);
		r = &(*out)[(*n)++];
		r->id = db_column_int64(stmt, 0);
		r->status = run_status_parse(db_column_text(stmt, 1));
		r->exit_code = db_column_int(stmt, 2);
		r->signal = db_column_int(stmt, 3);
		r->exit_known = !db_column_null(stmt, 2);
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return db_error(st, "cannot read runs");
	}
	return 0;
}

int store_run_pairs(struct store *st, const struct store_run_filter *f, const char *metric,
		    double **a, double **b, size_t *n)
{
	struct store_run_filter fa = *f;
	struct db_stmt *stmt;
	size_t alloc = 0, alloc_b = 0;
	int rc;
	*a = *b = NULL;
	*n = 0;
	fa.side = 'A';
	stmt = prepare(st, "SELECT va.value, vb.value FROM runs r"
			   " JOIN runs rb ON rb.comparison_id = r.comparison_id"
			   "  AND rb.benchmark_id = r.benchmark_id AND rb.pair_seq = r.pair_seq"
			   "  AND rb.side = 'B' AND rb.build_id = ?7 AND rb.status = 'ok'"
			   "  AND rb.warmup = 0"
			   " JOIN metric_values va ON va.run_id = r.id AND va.metric = ?9"
			   " JOIN metric_values vb ON vb.run_id = rb.id AND vb.metric = ?9"
			   " WHERE" FILTER_SQL " AND r.status = 'ok' AND r.pair_seq IS NOT NULL"
			   " ORDER BY r.id");
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, &fa);
	bind_text(stmt, 9, metric);
	while ((rc = db_step(stmt)) == DB_ROW) {
		ALLOC_GROW(*a, *n + 1, alloc);
		ALLOC_GROW(*b, *n + 1, alloc_b);
		(*a)[*n] = db_column_double(stmt, 0);
		(*b)[(*n)++] = db_column_double(stmt, 1);
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		free(*a);
		free(*b);
		*a = *b = NULL;
		*n = 0;
		return db_error(st, "cannot read run pairs");
	}
	return 0;
}

int store_run_lacking(struct store *st, const struct store_run_filter *f, const char *metric,
		      int64_t *comparison_id)
{
	struct db_stmt *stmt = prepare(st, "SELECT coalesce(max(r.comparison_id), 0) FROM runs r"
					 " WHERE" FILTER_SQL " AND r.status = 'ok' AND NOT EXISTS"
					 " (SELECT 1 FROM metric_values v WHERE v.run_id = r.id"
					 " AND v.metric = ?9)");
	int rc;
	*comparison_id = 0;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, f);
	bind_text(stmt, 9, metric);
	rc = db_step(stmt);
	if (rc == DB_ROW)
		*comparison_id = db_column_int64(stmt, 0);
	db_finalize(stmt);
	return rc == DB_ROW ? 0 : db_error(st, "cannot read runs");
}

int store_plan_insert(struct store *st, int64_t comparison_id, int64_t benchmark_id,
		      const struct store_plan *p)
{
	struct db_stmt *stmt = prepare(st, "INSERT INTO comparison_plans(comparison_id,"
					 " benchmark_id, min_runs, max_runs, runs_since, fresh,"
					 " tolerance, count_tolerance, metrics, primary_metrics)"
					 " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
					 " ON CONFLICT(comparison_id, benchmark_id) DO NOTHING");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, comparison_id);
	db_bind_int64(stmt, 2, benchmark_id);
	db_bind_int64(stmt, 3, (int64_t)p->min_runs);
	db_bind_int64(stmt, 4, (int64_t)p->max_runs);
	db_bind_int64(stmt, 5, p->runs_since);
	db_bind_int64(stmt, 6, p->fresh);
	store_bind_real(stmt, 7, p->tolerance);
	store_bind_real(stmt, 8, p->count_tolerance);
	store_bind_text(stmt, 9, p->metrics);
	store_bind_text(stmt, 10, p->primary);
	rc = db_step(stmt);
	db_finalize(stmt);
	return rc == DB_DONE ? 0 : db_error(st, "cannot store the comparison's plan");
}

int store_plan_read(struct store *st, int64_t comparison_id, int64_t benchmark_id,
		    struct store_plan *p)
{
	struct db_stmt *stmt = prepare(st, "SELECT min_runs, max_runs, runs_since, fresh,"
					 " tolerance, count_tolerance, metrics, primary_metrics"
					 " FROM comparison_plans"
					 " WHERE comparison_id = ?1 AND benchmark_id = ?2");
	int rc;
	memset(p, 0, sizeof(*p));
	p->tolerance = p->count_tolerance = NAN;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, comparison_id);
	db_bind_int64(stmt, 2, benchmark_id);
	rc = db_step(stmt);
	if (rc == DB_ROW) {
		p->min_runs = (size_t)db_column_int64(stmt, 0);
		p->max_runs = (size_t)db_column_int64(stmt, 1);
		p->runs_since_known = !db_column_null(stmt, 2);
		p->runs_since = db_column_int64(stmt, 2);
		p->fresh = db_column_int64(stmt, 3) != 0;
		p->tolerance = store_column_real(stmt, 4);
		p->count_tolerance = store_column_real(stmt, 5);
		p->metrics = store_column_dup(stmt, 6);
		p->primary = store_column_dup(stmt, 7);
	}
	db_finalize(stmt);
	if (rc != DB_ROW && rc != DB_DONE)
		return db_error(st, "cannot read the comparison's plan");
	return rc == DB_ROW ? 0 : 1;
}

void store_plan_release(struct store_plan *p)
{
	free(p->metrics);
	free(p->primary);
	p->metrics = p->primary = NULL;
}

int store_comparison_plan_differs(struct store *st, int64_t comparison_id, const char *bench,
				  size_t min_runs, size_t max_runs, double alpha)
{
	struct db_stmt *stmt = prepare(
	    st, "SELECT count(*) FROM comparison_plans p JOIN comparisons c ON c.id ="
		" p.comparison_id JOIN benchmarks k ON k.id = p.benchmark_id WHERE c.id = ?1"
		" AND k.name = ?2 AND (p.min_runs <> ?3 OR p.max_runs <> ?4"
		" OR abs(c.alpha - ?5) > 1e-12 * ?5)");
	int rc, differs = 0;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, comparison_id);
	bind_text(stmt, 2, bench);
	db_bind_int64(stmt, 3, (int64_t)min_runs);
	db_bind_int64(stmt, 4, (int64_t)max_runs);
	bind_real(stmt, 5, alpha);
	rc = db_step(stmt);
	if (rc == DB_ROW)
		differs = db_column_int64(stmt, 0) > 0;
	db_finalize(stmt);
	return rc == DB_ROW ? differs : db_error(st, "cannot read the comparison's plan");
}

int store_run_newest_fresh(struct store *st, const struct store_run_filter *f,
			   int64_t *comparison_id)
{
	struct db_stmt *stmt = prepare(
	    st, "SELECT coalesce(max(r.comparison_id), 0) FROM runs r"
		" JOIN comparison_plans p ON p.comparison_id = r.comparison_id"
		" AND p.benchmark_id = r.benchmark_id WHERE" FILTER_SQL " AND p.fresh = 1");
	int rc;
	*comparison_id = 0;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, f);
	rc = db_step(stmt);
	if (rc == DB_ROW)
		*comparison_id = db_column_int64(stmt, 0);
	db_finalize(stmt);
	return rc == DB_ROW ? 0 : db_error(st, "cannot read the plans of stored runs");
}

int store_run_other_plan(struct store *st, const struct store_run_filter *f, size_t min_runs,
			 size_t max_runs, double alpha, int64_t *comparison_id)
{
	struct db_stmt *stmt = prepare(
	    st, "SELECT coalesce(max(r.comparison_id), 0) FROM runs r"
		" JOIN comparisons c ON c.id = r.comparison_id"
		" JOIN comparison_plans p ON p.comparison_id = r.comparison_id"
		" AND p.benchmark_id = r.benchmark_id WHERE" FILTER_SQL
		" AND (p.min_runs <> ?9 OR p.max_runs <> ?10 OR abs(c.alpha - ?11) > 1e-12 * ?11)");
	int rc;
	*comparison_id = 0;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, f);
	db_bind_int64(stmt, 9, (int64_t)min_runs);
	db_bind_int64(stmt, 10, (int64_t)max_runs);
	bind_real(stmt, 11, alpha);
	rc = db_step(stmt);
	if (rc == DB_ROW)
		*comparison_id = db_column_int64(stmt, 0);
	db_finalize(stmt);
	return rc == DB_ROW ? 0 : db_error(st, "cannot read the plans of stored runs");
}

int store_run_counts(struct store *st, const struct store_run_filter *f, size_t *ok,
		     size_t *failed)
{
	struct db_stmt *stmt = prepare(st, "SELECT coalesce(sum(CASE WHEN r.status = 'ok' THEN 1"
					 " ELSE 0 END), 0), coalesce(sum(CASE WHEN r.status <> 'ok'"
					 " THEN 1 ELSE 0 END), 0) FROM runs r WHERE" FILTER_SQL);
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, f);
	rc = db_step(stmt);
	if (rc == DB_ROW) {
		*ok = (size_t)db_column_int64(stmt, 0);
		*failed = (size_t)db_column_int64(stmt, 1);
	}
	db_finalize(stmt);
	return rc == DB_ROW ? 0 : db_error(st, "cannot count runs");
}

int store_run_issues(struct store *st, int64_t comparison_id, int64_t benchmark_id,
		      struct store_run_issue **out, size_t *n)
{
	struct db_stmt *stmt = prepare(st, "SELECT id, side, status, exit_code, signal, detail,"
					 " log_path, log_offset, warmup FROM runs WHERE comparison_id = ?1 AND"
					 " benchmark_id = ?2 AND (status <> 'ok' OR detail IS NOT NULL)"
					 " ORDER BY id");
	size_t alloc = 0;
	int rc;
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, comparison_id);
	db_bind_int64(stmt, 2, benchmark_id);
	while ((rc = db_step(stmt)) == DB_ROW) {
		struct store_run_issue *r;
		ALLOC_GROW(*out, *n + 1, alloc);
		r = &(*out)[(*n)++];
		r->id = db_column_int64(stmt, 0);
		r->side = db_column_text(stmt, 1) ? db_column_text(stmt, 1)[0] : 'A';
		r->status = run_status_parse(db_column_text(stmt, 2));
		r->exit_code = db_column_int(stmt, 3);
		r->signal = db_column_int(stmt, 4);
		r->detail = column_dup(stmt, 5);
		r->log_path = column_dup(stmt, 6);
		r->log_offset = db_column_int64(stmt, 7);
		r->warmup = db_column_int(stmt, 8) != 0;
	}
	db_finalize(stmt);
	if (rc != DB_DONE)
		return db_error(st, "cannot read the runs' notes");
	return 0;
}

void store_run_issues_free(struct store_run_issue *runs, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(runs[i].detail);
		free(runs[i].log_path);
	}
	free(runs);
}

int store_verdict_save(struct store *st, int64_t comparison_id, int64_t benchmark_id,
		       const char *metric, bool primary, const char *verdict,
		       const struct verdict_result *r, size_t n_pairs, double q_bh)
{
	/* A verdict saved again replaces the old one and moves to the end (seq): the order
	 * in which store_comparison_verdicts() reads them. */
	struct db_stmt *stmt = prepare(
	    st, "INSERT INTO verdicts(comparison_id, benchmark_id, metric, is_primary, verdict,"
		" ratio, ci_lo, ci_hi, p_welch, p_mw, p_tost, q_bh, n_a, n_b, mean_a, mean_b, sd_a,"
		" sd_b, method, n_pairs, p, seq) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
		" ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, (SELECT coalesce(max(seq),"
		" 0) + 1 FROM verdicts WHERE comparison_id = ?1))"
		" ON CONFLICT(comparison_id, benchmark_id, metric) DO UPDATE SET"
		" is_primary = excluded.is_primary, verdict = excluded.verdict,"
		" ratio = excluded.ratio, ci_lo = excluded.ci_lo, ci_hi = excluded.ci_hi,"
		" p_welch = excluded.p_welch, p_mw = excluded.p_mw, p_tost = excluded.p_tost,"
		" q_bh = excluded.q_bh, n_a = excluded.n_a, n_b = excluded.n_b,"
		" mean_a = excluded.mean_a, mean_b = excluded.mean_b, sd_a = excluded.sd_a,"
		" sd_b = excluded.sd_b, method = excluded.method, n_pairs = excluded.n_pairs,"
		" p = excluded.p, seq = excluded.seq");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, comparison_id);
	db_bind_int64(stmt, 2, benchmark_id);
	bind_text(stmt, 3, metric);
	db_bind_int64(stmt, 4, primary);
	bind_text(stmt, 5, verdict);
	bind_real(stmt, 6, r->ratio);
	bind_real(stmt, 7, r->ci_lo);
	bind_real(stmt, 8, r->ci_hi);
	bind_real(stmt, 9, r->p_welch);
	bind_real(stmt, 10, r->p_mw);
	bind_real(stmt, 11, r->p_tost);
	bind_real(stmt, 12, q_bh);
	db_bind_int64(stmt, 13, (int64_t)r->n_a);
	db_bind_int64(stmt, 14, (int64_t)r->n_b);
	bind_real(stmt, 15, r->mean_a);
	bind_real(stmt, 16, r->mean_b);
	bind_real(stmt, 17, r->sd_a);
	bind_real(stmt, 18, r->sd_b);
	/* the interval's method; none for a metric that was not measured */
	bind_text(stmt, 19, strcmp(verdict, "unmeasured") ? verdict_method_name(r->method) : NULL);
	db_bind_int64(stmt, 20, (int64_t)n_pairs);
	bind_real(stmt, 21, r->p);
	rc = db_step(stmt);
	db_finalize(stmt);
	return rc == DB_DONE ? 0 : db_error(st, "cannot record a verdict");
}

int store_transaction_begin(struct store *st)
{
	return db_begin(st->db) ? db_error(st, "cannot begin a transaction") : 0;
}

int store_transaction_commit(struct store *st)
{
	if (db_commit(st->db))
		return store_db_error(st, "cannot update");
	return 0;
}

void store_transaction_rollback(struct store *st)
{
	if (st)
		db_rollback(st->db);
}

int store_build_runs_delete(struct store *st, int64_t build_id)
{
	struct db_stmt *stmt = prepare(st, "DELETE FROM runs WHERE build_id = ?1");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, build_id);
	rc = db_step(stmt);
	db_finalize(stmt);
	return rc == DB_DONE ? 0 : db_error(st, "cannot delete the runs of a build");
}

int store_import_runs(struct store *st, const struct store_run *tmpl, const char *const *names,
		      const double *values, size_t nr_metrics, size_t nr_runs)
{
	struct db_stmt *run_stmt = NULL, *value_stmt = NULL;
	/* Inside a transaction, a savepoint undoes only this; else a transaction of its own. */
	bool nested = db_in_transaction(st->db);
	int ret = RP_EINTERNAL;

	if (nested ? exec_sql(st, "SAVEPOINT import_runs") : store_transaction_begin(st))
		return RP_EINTERNAL;
	run_stmt = prepare(st, RUN_INSERT_SQL);
	value_stmt = run_stmt ? prepare(st, VALUE_INSERT_SQL) : NULL;
	if (!value_stmt)
		goto out;
	for (size_t i = 0; i < nr_runs; i++) {
		int64_t id;
		if (insert_run(st, run_stmt, value_stmt, tmpl, names, values + i * nr_metrics,
			       nr_metrics, &id))
			goto out;
	}
	if (exec_sql(st, nested ? "RELEASE import_runs" : "COMMIT"))
		goto out;
	ret = 0;
out:
	db_finalize(run_stmt);
	db_finalize(value_stmt);
	if (ret && nested) {
		db_exec(st->db, "ROLLBACK TO import_runs");
		db_exec(st->db, "RELEASE import_runs");
	} else if (ret) {
		store_transaction_rollback(st);
	}
	return ret;
}

/* The helpers above, for the other files of the store (store_impl.h). */
void store_bind_real(struct db_stmt *stmt, int i, double v)
{
	bind_real(stmt, i, v);
}

double store_column_real(struct db_stmt *stmt, int i)
{
	return db_column_null(stmt, i) ? NAN : db_column_double(stmt, i);
}

int store_step_done(struct store *st, struct db_stmt *stmt, const char *what)
{
	int rc = db_step(stmt);
	db_reset(stmt);
	return rc == DB_DONE ? 0 : db_error(st, what);
}

struct db_stmt *store_prepare(struct store *st, const char *sql)
{
	return prepare(st, sql);
}

void store_bind_text(struct db_stmt *stmt, int i, const char *s)
{
	bind_text(stmt, i, s);
}

char *store_column_dup(struct db_stmt *stmt, int i)
{
	return column_dup(stmt, i);
}
