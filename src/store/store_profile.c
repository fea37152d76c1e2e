#include "store/store.h"
#include "store/store_impl.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/common.h"

int store_profile_add(struct store *st, struct store_profile *p)
{
	struct db_stmt *stmt = store_prepare(
	    st, "INSERT INTO profiles(build_id, benchmark_id, machine_id, comparison_id, kind,"
		" status, detail, path, log_path, started_at)"
		" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) RETURNING id");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, p->build_id);
	db_bind_int64(stmt, 2, p->benchmark_id);
	db_bind_int64(stmt, 3, p->machine_id);
	if (p->comparison_id)
		db_bind_int64(stmt, 4, p->comparison_id);
	else
		db_bind_null(stmt, 4);
	store_bind_text(stmt, 5, p->kind);
	store_bind_text(stmt, 6, run_status_name(p->status));
	store_bind_text(stmt, 7, p->detail);
	store_bind_text(stmt, 8, p->path);
	store_bind_text(stmt, 9, p->log_path);
	db_bind_int64(stmt, 10, p->started_at ? p->started_at : (int64_t)time(NULL));
	rc = db_step(stmt);
	if (rc == DB_ROW)
		p->id = db_column_int64(stmt, 0);
	db_finalize(stmt);
	if (rc != DB_ROW)
		return store_db_error(st, "cannot record a profiled run");
	return 0;
}

#define PROFILE_COLUMNS                                                                            \
	"p.id, p.build_id, p.benchmark_id, p.machine_id, p.comparison_id, p.kind, p.status,"       \
	" p.detail, p.path, p.log_path, p.started_at"

/* Collects the rows of stmt (PROFILE_COLUMNS) and finalizes it. */
static int collect(struct store *st, struct db_stmt *stmt, struct store_profile **out, size_t *n)
{
	size_t alloc = 0;
	int rc;
	*out = NULL;
	*n = 0;
	while ((rc = db_step(stmt)) == DB_ROW) {
		struct store_profile *p;
		ALLOC_GROW(*out, *n + 1, alloc);
		p = &(*out)[(*n)++];
		memset(p, 0, sizeof(*p));
		p->id = db_column_int64(stmt, 0);
		p->build_id = db_column_int64(stmt, 1);
		p->benchmark_id = db_column_int64(stmt, 2);
		p->machine_id = db_column_int64(stmt, 3);
		p->comparison_id = db_column_int64(stmt, 4);
		snprintf(p->kind, sizeof(p->kind), "%s",
			 db_column_text(stmt, 5) ? db_column_text(stmt, 5) : "");
		p->status = run_status_parse(db_column_text(stmt, 6));
		p->detail = store_column_dup(stmt, 7);
		p->path = store_column_dup(stmt, 8);
		p->log_path = store_column_dup(stmt, 9);
		p->started_at = db_column_int64(stmt, 10);
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		store_profiles_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_db_error(st, "cannot read profiled runs");
	}
	return 0;
}

int store_profiles_find(struct store *st, int64_t build_id, int64_t benchmark_id,
			int64_t machine_id, const char *kind, struct store_profile **out, size_t *n)
{
	struct db_stmt *stmt =
	    store_prepare(st, "SELECT " PROFILE_COLUMNS " FROM profiles p WHERE p.build_id = ?1 AND"
			      " p.benchmark_id = ?2 AND p.machine_id = ?3 AND p.kind = ?4 AND"
			      " p.status = 'ok' ORDER BY p.id");
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, build_id);
	db_bind_int64(stmt, 2, benchmark_id);
	db_bind_int64(stmt, 3, machine_id);
	store_bind_text(stmt, 4, kind);
	return collect(st, stmt, out, n);
}

int store_profiles_failed_of(struct store *st, int64_t comparison_id, int64_t benchmark_id,
			     const char *kind, struct store_profile **out, size_t *n)
{
	struct db_stmt *stmt =
	    store_prepare(st, "SELECT " PROFILE_COLUMNS " FROM profiles p WHERE"
			      " p.comparison_id = ?1 AND p.benchmark_id = ?2 AND p.kind = ?3 AND"
			      " p.status <> 'ok' ORDER BY p.id");
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, comparison_id);
	db_bind_int64(stmt, 2, benchmark_id);
	store_bind_text(stmt, 3, kind);
	return collect(st, stmt, out, n);
}

int store_profiles_of_revision(struct store *st, const char *sha, const char *bench,
			       const char *kind, struct store_profile **out, size_t *n)
{
	/* The build of the latest profile, then every good profile of that build. */
	struct db_stmt *stmt = store_prepare(
	    st, "WITH mine AS (SELECT p.* FROM profiles p JOIN builds b ON b.id = p.build_id"
		" JOIN revisions r ON r.id = b.revision_id JOIN benchmarks k ON"
		" k.id = p.benchmark_id WHERE r.sha = ?1 AND k.name = ?2 AND p.kind = ?3"
		" AND p.status = 'ok')"
		" SELECT " PROFILE_COLUMNS " FROM mine p WHERE p.build_id ="
		" (SELECT build_id FROM mine ORDER BY id DESC LIMIT 1) ORDER BY p.id");
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, sha);
	store_bind_text(stmt, 2, bench);
	store_bind_text(stmt, 3, kind);
	return collect(st, stmt, out, n);
}

void store_profiles_free(struct store_profile *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(p[i].detail);
		free(p[i].path);
		free(p[i].log_path);
	}
	free(p);
}

int store_profile_value_set(struct store *st, int64_t profile_id, const char *metric,
			    double value)
{
	struct db_stmt *stmt = store_prepare(
	    st, "INSERT INTO profile_values(profile_id, metric, value) VALUES(?1, ?2, ?3)"
		" ON CONFLICT(profile_id, metric) DO UPDATE SET value = excluded.value");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, profile_id);
	store_bind_text(stmt, 2, metric);
	db_bind_double(stmt, 3, value);
	rc = db_step(stmt);
	db_finalize(stmt);
	return rc == DB_DONE ? 0 : store_db_error(st, "cannot record a counted value");
}

int store_profile_value_get(struct store *st, int64_t profile_id, const char *metric,
			    double *value)
{
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT value FROM profile_values WHERE profile_id = ?1 AND metric = ?2");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, profile_id);
	store_bind_text(stmt, 2, metric);
	rc = db_step(stmt);
	if (rc == DB_ROW)
		*value = db_column_double(stmt, 0);
	db_finalize(stmt);
	if (rc == DB_ROW)
		return 0;
	return rc == DB_DONE ? 1 : store_db_error(st, "cannot read a counted value");
}
