/* What stored results need of the state directory (store_gc.h). */
#include "store/store_gc.h"

#include "store/store_impl.h"
#include "util/common.h"
#include "util/strmap.h"

/* Every use of a path by a result, with the result's time; gathered per path in C. */
static const char gc_refs_sql[] =
	"WITH uses(build_id, t) AS ("
	"  SELECT build_id, started_at FROM runs"
	"  UNION ALL SELECT base_build, created_at FROM comparisons WHERE base_build IS NOT NULL"
	"  UNION ALL SELECT target_build, created_at FROM comparisons"
	"   WHERE target_build IS NOT NULL"
	"  UNION ALL SELECT build_id, started_at FROM profiles"
	"  UNION ALL SELECT build_id, created_at FROM dynamic_profiles),"
	" build_t(id, t) AS (SELECT build_id, max(t) FROM uses GROUP BY build_id)"
	" SELECT b.worktree, bt.t FROM builds b JOIN build_t bt ON bt.id = b.id"
	"  WHERE b.worktree IS NOT NULL"
	" UNION ALL SELECT b.log_path, bt.t FROM builds b JOIN build_t bt ON bt.id = b.id"
	"  WHERE b.log_path IS NOT NULL"
	" UNION ALL SELECT log_path, max(started_at) FROM runs WHERE log_path IS NOT NULL"
	"  GROUP BY log_path"
	" UNION ALL SELECT path, started_at FROM profiles"
	" UNION ALL SELECT log_path, started_at FROM profiles WHERE log_path IS NOT NULL"
	" UNION ALL SELECT path, created_at FROM dynamic_profiles WHERE path IS NOT NULL";

void store_gc_refs_release(struct store_gc_ref *refs, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(refs[i].path);
	free(refs);
}

int store_gc_refs(struct store *st, struct store_gc_ref **refs, size_t *nr)
{
	struct db_stmt *stmt = store_prepare(st, gc_refs_sql);
	struct store_gc_ref *v = NULL;
	struct strmap seen;
	size_t n = 0, alloc = 0;
	int rc;

	*refs = NULL;
	*nr = 0;
	if (!stmt)
		return RP_EINTERNAL;
	strmap_init(&seen);
	while ((rc = db_step(stmt)) == DB_ROW) {
		const char *path = db_column_text(stmt, 0);
		int64_t t = db_column_int64(stmt, 1);
		bool added;
		size_t *i;
		if (!path || !*path)
			continue;
		i = strmap_put(&seen, path, n, &added);
		if (!added) {
			if (t > v[*i].newest_s)
				v[*i].newest_s = t;
			continue;
		}
		ALLOC_GROW(v, n + 1, alloc);
		v[n].path = xstrdup(path);
		v[n].newest_s = t;
		n++;
	}
	db_finalize(stmt);
	strmap_release(&seen);
	if (rc != DB_DONE) {
		store_gc_refs_release(v, n);
		return store_db_error(st, "cannot read the paths of stored results");
	}
	*refs = v;
	*nr = n;
	return 0;
}

int store_gc_comparisons(struct store *st, int64_t **ids, size_t *nr)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT id FROM comparisons ORDER BY id");
	int64_t *v = NULL;
	size_t n = 0, alloc = 0;
	int rc;

	*ids = NULL;
	*nr = 0;
	if (!stmt)
		return RP_EINTERNAL;
	while ((rc = db_step(stmt)) == DB_ROW) {
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = db_column_int64(stmt, 0);
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		free(v);
		return store_db_error(st, "cannot read the ids of the comparisons");
	}
	*ids = v;
	*nr = n;
	return 0;
}

int store_comparison_logs(struct store *st, int64_t comparison_id, char ***paths, size_t *nr)
{
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT log_path FROM runs WHERE comparison_id = ?1 AND log_path IS NOT NULL"
		" UNION SELECT b.log_path FROM builds b JOIN comparisons c"
		"  ON b.id IN (c.base_build, c.target_build)"
		"  WHERE c.id = ?1 AND b.log_path IS NOT NULL");
	char **v = NULL;
	size_t n = 0, alloc = 0;
	int rc;

	*paths = NULL;
	*nr = 0;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, comparison_id);
	while ((rc = db_step(stmt)) == DB_ROW) {
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = store_column_dup(stmt, 0);
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return store_db_error(st, "cannot read the logs of a comparison");
	}
	*paths = v;
	*nr = n;
	return 0;
}
