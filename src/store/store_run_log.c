/* Where the output of a stored run is: its side's log, an offset and a length (store.h). */
#include <string.h>

#include "store/store.h"
#include "store/store_impl.h"
#include "util/common.h"

int store_run_first_log(struct store *st, const struct store_run_filter *f,
			struct store_run_log *out)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT r.id, r.log_path, r.log_offset,"
					       " r.log_length FROM runs r WHERE" STORE_FILTER_SQL
					       " AND r.status = 'ok' AND r.log_path IS NOT NULL"
					       " ORDER BY r.id LIMIT 1");
	int rc;
	memset(out, 0, sizeof(*out));
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, f);
	rc = db_step(stmt);
	if (rc == DB_ROW) {
		out->run_id = db_column_int64(stmt, 0);
		out->path = store_column_dup(stmt, 1);
		out->offset = db_column_int64(stmt, 2);
		out->length = db_column_int64(stmt, 3);
	}
	db_finalize(stmt);
	if (rc == DB_ROW)
		return 0;
	return rc == DB_DONE ? 1 : store_db_error(st, "cannot read the runs");
}

void store_run_log_release(struct store_run_log *log)
{
	if (!log)
		return;
	free(log->path);
	memset(log, 0, sizeof(*log));
}
