/* Stored comparisons and their verdicts, read back (store.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "store/store.h"
#include "store/store_impl.h"
#include "util/common.h"

int store_comparison_latest(struct store *st, int64_t base_build, int64_t target_build,
			    const char *status, int64_t machine_id, int64_t *id)
{
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT c.id FROM comparisons c WHERE c.base_build = ?1 AND c.target_build = ?2"
		" AND c.status = ?3 AND coalesce(c.machine_id, (SELECT r.machine_id FROM runs r"
		" WHERE r.comparison_id = c.id ORDER BY r.id DESC LIMIT 1)) = ?4"
		" ORDER BY c.id DESC LIMIT 1");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, base_build);
	db_bind_int64(stmt, 2, target_build);
	store_bind_text(stmt, 3, status);
	db_bind_int64(stmt, 4, machine_id);
	rc = db_step(stmt);
	if (rc == DB_ROW)
		*id = db_column_int64(stmt, 0);
	db_finalize(stmt);
	if (rc == DB_ROW)
		return 0;
	return rc == DB_DONE ? 1 : store_db_error(st, "cannot read comparisons");
}

#define column_real store_column_real

int store_comparison_verdicts(struct store *st, int64_t comparison_id, struct store_verdict **out,
			      size_t *n)
{
	struct db_stmt *stmt =
	    store_prepare(st, "SELECT b.name, v.metric, v.is_primary, v.verdict,"
			      " v.ratio, v.ci_lo, v.ci_hi, v.p, v.n_a, v.n_b, b.command"
			      " FROM verdicts v JOIN benchmarks b"
			      " ON b.id = v.benchmark_id WHERE v.comparison_id = ?1"
			      " ORDER BY v.seq");
	size_t alloc = 0;
	int rc;
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, comparison_id);
	while ((rc = db_step(stmt)) == DB_ROW) {
		struct store_verdict *v;
		ALLOC_GROW(*out, *n + 1, alloc);
		v = &(*out)[(*n)++];
		memset(v, 0, sizeof(*v));
		v->bench = store_column_dup(stmt, 0);
		v->metric = store_column_dup(stmt, 1);
		v->primary = db_column_int(stmt, 2) != 0;
		if (db_column_text(stmt, 3))
			snprintf(v->verdict, sizeof(v->verdict), "%s", db_column_text(stmt, 3));
		v->ratio = column_real(stmt, 4);
		v->ci_lo = column_real(stmt, 5);
		v->ci_hi = column_real(stmt, 6);
		v->p = column_real(stmt, 7);
		v->n_a = (size_t)db_column_int64(stmt, 8);
		v->n_b = (size_t)db_column_int64(stmt, 9);
		v->command = store_column_dup(stmt, 10);
	}
	db_finalize(stmt);
	if (rc == DB_DONE)
		return 0;
	store_verdicts_free(*out, *n);
	*out = NULL;
	*n = 0;
	return store_db_error(st, "cannot read verdicts");
}

void store_verdicts_free(struct store_verdict *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].bench);
		free(v[i].metric);
		free(v[i].command);
	}
	free(v);
}

int store_build_metric_values(struct store *st, int64_t build_id, int64_t machine_id,
			      const char *bench, const char *command, const char *metric,
			      double **values, size_t *n)
{
	struct db_stmt *stmt =
	    store_prepare(st, "SELECT v.value FROM runs r"
			      " JOIN benchmarks b ON b.id = r.benchmark_id"
			      " JOIN metric_values v ON v.run_id = r.id"
			      " WHERE r.build_id = ?1 AND r.machine_id = ?2"
			      " AND b.name = ?3 AND v.metric = ?4"
			      " AND (CAST(?5 AS TEXT) IS NULL OR b.command = ?5)"
			      " AND r.warmup = 0 AND r.status = 'ok'"
			      /* counted metrics (ir, sim-cycles) live in the counted runs */
			      " UNION ALL SELECT pv.value FROM profiles p"
			      " JOIN benchmarks b ON b.id = p.benchmark_id"
			      " JOIN profile_values pv ON pv.profile_id = p.id"
			      " WHERE p.build_id = ?1 AND p.machine_id = ?2"
			      " AND b.name = ?3 AND pv.metric = ?4 AND p.status = 'ok'"
			      " AND (CAST(?5 AS TEXT) IS NULL OR b.command = ?5)"
			      " AND p.kind IN ('vg-ir', 'vg-cache')");
	size_t alloc = 0;
	int rc;
	*values = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, build_id);
	db_bind_int64(stmt, 2, machine_id);
	store_bind_text(stmt, 3, bench);
	store_bind_text(stmt, 4, metric);
	if (command)
		store_bind_text(stmt, 5, command);
	else
		db_bind_null(stmt, 5);
	while ((rc = db_step(stmt)) == DB_ROW) {
		ALLOC_GROW(*values, *n + 1, alloc);
		(*values)[(*n)++] = db_column_double(stmt, 0);
	}
	db_finalize(stmt);
	if (rc == DB_DONE)
		return 0;
	free(*values);
	*values = NULL;
	*n = 0;
	return store_db_error(st, "cannot read run values");
}
