/* Read-only look-ups of stored comparisons (store_show.h). */
#include "store/store_show.h"

#include <stdio.h>
#include <string.h>

#include "store/store_impl.h"
#include "util/common.h"

void store_comparison_info_release(struct store_comparison_info *c)
{
	if (!c)
		return;
	free(c->base_label);
	free(c->target_label);
	free(c->build_command);
	free(c->target_command);
	memset(c, 0, sizeof(*c));
}

/* Column i as text, "" when it is NULL. */
static const char *column_or_empty(struct db_stmt *stmt, int i)
{
	const char *s = db_column_text(stmt, i);
	return s ? s : "";
}

static void copy_sha(char out[41], struct db_stmt *stmt, int i)
{
	const char *s = db_column_text(stmt, i);
	snprintf(out, 41, "%s", s ? s : "");
}

int store_comparison_get(struct store *st, int64_t id, struct store_comparison_info *out)
{
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT c.base_build, c.target_build, c.base_label, c.target_label, c.seed,"
		" c.alpha, c.status, ra.sha, rb.sha, ba.command,"
		/* the machine it recorded (schema 13); before, that of its runs; one that ran
		 * none (every run reused, no warm-up needed) was on the machine of its counted
		 * runs, else of the runs it reused */
		" coalesce(c.machine_id, (SELECT machine_id FROM runs WHERE comparison_id = c.id"
		"  ORDER BY id DESC LIMIT 1),"
		" (SELECT machine_id FROM profiles WHERE comparison_id = c.id"
		"  ORDER BY id DESC LIMIT 1),"
		" (SELECT machine_id FROM runs WHERE build_id IN (c.base_build, c.target_build)"
		"  AND comparison_id < c.id AND warmup = 0 ORDER BY id DESC LIMIT 1)),"
		" bb.command"
		" FROM comparisons c JOIN builds ba ON ba.id = c.base_build"
		" JOIN builds bb ON bb.id = c.target_build"
		" LEFT JOIN revisions ra ON ra.id = ba.revision_id"
		" LEFT JOIN revisions rb ON rb.id = bb.revision_id WHERE c.id = ?1");
	int rc, ret = 1;
	memset(out, 0, sizeof(*out));
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, id);
	rc = db_step(stmt);
	if (rc == DB_ROW) {
		out->id = id;
		out->base_build = db_column_int64(stmt, 0);
		out->target_build = db_column_int64(stmt, 1);
		out->base_label = store_column_dup(stmt, 2);
		out->target_label = store_column_dup(stmt, 3);
		out->seed = (uint64_t)db_column_int64(stmt, 4);
		out->alpha = db_column_double(stmt, 5);
		snprintf(out->status, sizeof(out->status), "%s",
			 db_column_text(stmt, 6) ? db_column_text(stmt, 6) : "");
		copy_sha(out->base_sha, stmt, 7);
		copy_sha(out->target_sha, stmt, 8);
		out->build_command = store_column_dup(stmt, 9);
		out->machine_id = db_column_int64(stmt, 10);
		out->target_command = store_column_dup(stmt, 11);
		ret = 0;
	} else if (rc != DB_DONE) {
		ret = store_db_error(st, "cannot read comparisons");
	}
	db_finalize(stmt);
	return ret;
}

/* One int64 from a statement whose ?1.. are bound by the caller: 0, 1 none, RP_EINTERNAL. */
static int step_id(struct store *st, struct db_stmt *stmt, int64_t *id, const char *what)
{
	int rc = db_step(stmt);
	int ret = 1;
	if (rc == DB_ROW && !db_column_null(stmt, 0)) {
		*id = db_column_int64(stmt, 0);
		ret = 0;
	} else if (rc != DB_ROW && rc != DB_DONE) {
		ret = store_db_error(st, what);
	}
	db_finalize(stmt);
	return ret;
}

int store_comparison_newest(struct store *st, int64_t base_build, int64_t target_build,
			    int64_t *id)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT id FROM comparisons WHERE base_build = ?1"
					       " AND target_build = ?2 ORDER BY id DESC LIMIT 1");
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, base_build);
	db_bind_int64(stmt, 2, target_build);
	return step_id(st, stmt, id, "cannot read comparisons");
}

int store_comparison_of_commits(struct store *st, const char *base_sha, const char *target_sha,
				int64_t *id)
{
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT c.id FROM comparisons c JOIN builds ba ON ba.id = c.base_build"
		" JOIN builds bb ON bb.id = c.target_build JOIN revisions ra ON ra.id ="
		" ba.revision_id JOIN revisions rb ON rb.id = bb.revision_id WHERE ra.sha = ?1"
		" AND rb.sha = ?2 AND ba.variant = '' AND bb.variant = '' ORDER BY c.id DESC"
		" LIMIT 1");
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, base_sha);
	store_bind_text(stmt, 2, target_sha);
	return step_id(st, stmt, id, "cannot read comparisons");
}

void store_benchmark_defs_free(struct store_benchmark_def *defs, size_t n)
{
	for (size_t i = 0; defs && i < n; i++) {
		free(defs[i].name);
		free(defs[i].command);
	}
	free(defs);
}

int store_comparison_benchmarks(struct store *st, int64_t id, struct store_benchmark_def **out,
				size_t *n)
{
	/* Planned (schema 10 on) or judged (verdicts, also before): either names it. */
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT id, name, command FROM benchmarks WHERE id IN (SELECT benchmark_id FROM"
		" comparison_plans WHERE comparison_id = ?1 UNION SELECT benchmark_id FROM"
		" verdicts WHERE comparison_id = ?1) ORDER BY id");
	size_t alloc = 0;
	int rc;
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, id);
	while ((rc = db_step(stmt)) == DB_ROW) {
		struct store_benchmark_def *d;
		ALLOC_GROW(*out, *n + 1, alloc);
		d = &(*out)[(*n)++];
		d->id = db_column_int64(stmt, 0);
		d->name = xstrdup(column_or_empty(stmt, 1));
		d->command = xstrdup(column_or_empty(stmt, 2));
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		store_benchmark_defs_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_db_error(st, "cannot read the benchmarks of a comparison");
	}
	return 0;
}

int store_build_get(struct store *st, int64_t id, struct store_build *out)
{
	struct db_stmt *stmt =
	    store_prepare(st, "SELECT " STORE_BUILD_COLUMNS " FROM builds WHERE id = ?1");
	int rc, ret = 1;
	memset(out, 0, sizeof(*out));
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, id);
	rc = db_step(stmt);
	if (rc == DB_ROW) {
		store_build_from_row(stmt, out);
		ret = 0;
	} else if (rc != DB_DONE) {
		ret = store_db_error(st, "cannot read builds");
	}
	db_finalize(stmt);
	return ret;
}

int store_build_of_commit(struct store *st, const char *sha, const char *command,
			  const char *variant, struct store_build *out)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT id FROM revisions WHERE sha = ?1");
	int64_t rev_id = 0;
	int ret;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, sha);
	if ((ret = step_id(st, stmt, &rev_id, "cannot read revisions")))
		return ret;
	return store_build_find(st, rev_id, command, variant, out);
}

int store_benchmark_find(struct store *st, const char *name, const char *command, int64_t *id)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT id FROM benchmarks WHERE name = ?1 AND"
					       " command = ?2");
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, name);
	store_bind_text(stmt, 2, command);
	return step_id(st, stmt, id, "cannot read benchmarks");
}

int store_machine_get(struct store *st, int64_t id, struct machine_info *m)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT hostname, cpu_model, cores, kernel,"
					       " governor FROM machines WHERE id = ?1");
	int rc, ret = 1;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, id);
	rc = db_step(stmt);
	if (rc == DB_ROW) {
		memset(m, 0, sizeof(*m));
		snprintf(m->hostname, sizeof(m->hostname), "%s", column_or_empty(stmt, 0));
		snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", column_or_empty(stmt, 1));
		m->cores = db_column_int(stmt, 2);
		snprintf(m->kernel, sizeof(m->kernel), "%s", column_or_empty(stmt, 3));
		snprintf(m->governor, sizeof(m->governor), "%s", column_or_empty(stmt, 4));
		ret = 0;
	} else if (rc != DB_DONE) {
		ret = store_db_error(st, "cannot read machines");
	}
	db_finalize(stmt);
	return ret;
}

int store_count_runs(struct store *st, int64_t comparison_id, size_t *runs)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT count(*) FROM runs WHERE comparison_id = ?1");
	int64_t n = 0;
	int ret;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, comparison_id);
	ret = step_id(st, stmt, &n, "cannot count runs");
	*runs = (size_t)n;
	return ret < 0 ? ret : 0;
}

int store_comparison_last(struct store *st, bool of_commands, int64_t *id)
{
	/* Builds of --cmd-a/--cmd-b have no revision (NULL, or 0 as they are saved). */
	struct db_stmt *stmt = store_prepare(st, "SELECT c.id FROM comparisons c JOIN builds b ON"
					       " b.id = c.base_build WHERE (coalesce(b.revision_id,"
					       " 0) = 0) = (?1 = 1) ORDER BY c.id DESC LIMIT 1");
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, of_commands);
	return step_id(st, stmt, id, "cannot read comparisons");
}
