/* The predictor's tables of the store: dynamic data, labelled verdicts, predictors. */
#include "store/store_dynamic.h"
#include "store/store_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/common.h"

void store_dynamic_release(struct store_dynamic *d)
{
	if (!d)
		return;
	free(d->path);
	memset(d, 0, sizeof(*d));
}

const char *store_dynamic_cost_name(enum perphecy_cost c)
{
	return c == PERPHECY_COST_SELF_NS ? "self_ns" : "instructions";
}

int store_dynamic_cost_parse(const char *s, enum perphecy_cost *out)
{
	if (s && !strcmp(s, "instructions"))
		*out = PERPHECY_COST_INSTRUCTIONS;
	else if (s && !strcmp(s, "self_ns"))
		*out = PERPHECY_COST_SELF_NS;
	else
		return -1;
	return 0;
}

/* Runs a statement without results (no binds). */
static int exec_simple(struct store *st, const char *sql, const char *what)
{
	struct db_stmt *stmt = store_prepare(st, sql);
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	rc = db_step(stmt);
	db_finalize(stmt);
	return rc == DB_DONE ? 0 : store_db_error(st, what);
}

/* The profile row of store_dynamic_save(), the old one (and its functions) replaced. */
static int dynamic_row(struct store *st, struct store_dynamic *d)
{
	struct db_stmt *stmt = store_prepare(st, "DELETE FROM dynamic_profiles WHERE build_id = ?1"
					       " AND benchmark_id = ?2");
	int rc;
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, d->build_id);
	db_bind_int64(stmt, 2, d->benchmark_id);
	rc = db_step(stmt);
	db_finalize(stmt);
	if (rc != DB_DONE)
		return store_db_error(st, "cannot replace dynamic data");
	stmt = store_prepare(st, "INSERT INTO dynamic_profiles(build_id, benchmark_id, source,"
				 " cost, path, created_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
				 " RETURNING id");
	if (!stmt)
		return RP_EINTERNAL;
	if (!d->created_at)
		d->created_at = (int64_t)time(NULL);
	db_bind_int64(stmt, 1, d->build_id);
	db_bind_int64(stmt, 2, d->benchmark_id);
	store_bind_text(stmt, 3, d->source);
	store_bind_text(stmt, 4, d->cost);
	store_bind_text(stmt, 5, d->path);
	db_bind_int64(stmt, 6, d->created_at);
	rc = db_step(stmt);
	if (rc == DB_ROW)
		d->id = db_column_int64(stmt, 0);
	db_finalize(stmt);
	return rc == DB_ROW ? 0 : store_db_error(st, "cannot record dynamic data");
}

/* Integers are signed in both engines: counts above INT64_MAX are stored as INT64_MAX. */
static int64_t clamp_count(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

int store_dynamic_save(struct store *st, struct store_dynamic *d, const struct perphecy_profile *p)
{
	struct db_stmt *stmt = NULL;
	int ret = RP_EINTERNAL;
	size_t i;

	if (store_transaction_begin(st))
		return RP_EINTERNAL;
	if (dynamic_row(st, d))
		goto out;
	stmt = store_prepare(st, "INSERT INTO dynamic_functions(profile_id, name, calls, cost)"
				 " VALUES(?1, ?2, ?3, ?4)");
	if (!stmt)
		goto out;
	for (i = 0; i < p->nr; i++) {
		db_reset(stmt);
		db_bind_int64(stmt, 1, d->id);
		db_bind_text(stmt, 2, p->funcs[i].name);
		db_bind_int64(stmt, 3, clamp_count(p->funcs[i].calls));
		/* The column is REAL (self time may be fractional elsewhere); a double holds
		 * every count up to 2^53 exactly, far beyond one run's instructions. */
		db_bind_double(stmt, 4, (double)p->funcs[i].cost);
		if (db_step(stmt) != DB_DONE) {
			store_db_error(st, "cannot record a function's dynamic data");
			goto out;
		}
	}
	if (store_transaction_commit(st))
		goto out;
	ret = 0;
out:
	db_finalize(stmt);
	if (ret)
		store_transaction_rollback(st);
	return ret;
}

int store_dynamic_find(struct store *st, int64_t build_id, int64_t benchmark_id,
		       struct store_dynamic *out)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT id, source, cost, path, created_at FROM"
					       " dynamic_profiles WHERE build_id = ?1 AND"
					       " benchmark_id = ?2");
	int rc, ret = 1;
	memset(out, 0, sizeof(*out));
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, build_id);
	db_bind_int64(stmt, 2, benchmark_id);
	rc = db_step(stmt);
	if (rc == DB_ROW) {
		out->id = db_column_int64(stmt, 0);
		out->build_id = build_id;
		out->benchmark_id = benchmark_id;
		snprintf(out->source, sizeof(out->source), "%s",
			 db_column_text(stmt, 1) ? db_column_text(stmt, 1) : "");
		snprintf(out->cost, sizeof(out->cost), "%s",
			 db_column_text(stmt, 2) ? db_column_text(stmt, 2) : "");
		out->path = store_column_dup(stmt, 3);
		out->created_at = db_column_int64(stmt, 4);
		ret = 0;
	} else if (rc != DB_DONE) {
		ret = store_db_error(st, "cannot look up dynamic data");
	}
	db_finalize(stmt);
	return ret;
}

int store_dynamic_load(struct store *st, const struct store_dynamic *d, const char *bench,
		       struct perphecy_profile *out)
{
	struct db_stmt *stmt = NULL;
	enum perphecy_cost unit;
	int rc, ret = RP_EINTERNAL;

	if (store_dynamic_cost_parse(d->cost, &unit)) {
		perphecy_profile_init(out, bench, PERPHECY_COST_INSTRUCTIONS);
		error("database %s: dynamic data %" PRId64 " has an unknown cost unit '%s'"
		      " (expected instructions or self_ns); collect it again with revperf run"
		      " --dynamic",
		      st->path, d->id, d->cost);
		return RP_EINPUT;
	}
	perphecy_profile_init(out, bench, unit);
	stmt = store_prepare(st, "SELECT name, calls, cost FROM dynamic_functions WHERE"
				 " profile_id = ?1");
	if (!stmt)
		return RP_EINTERNAL;
	db_bind_int64(stmt, 1, d->id);
	while ((rc = db_step(stmt)) == DB_ROW) {
		const char *name = db_column_text(stmt, 0);
		int64_t calls = db_column_int64(stmt, 1);
		double cost = db_column_double(stmt, 2);
		if (calls < 0 || !(cost >= 0) || cost > 1.8e19) {
			error("database %s: dynamic data %" PRId64 ": function '%s' has a negative "
			      "or invalid count; collect it again with revperf run --dynamic",
			      st->path, d->id, name ? name : "");
			ret = RP_EINPUT;
			goto out;
		}
		if (perphecy_profile_add(out, name, (uint64_t)calls, (uint64_t)llround(cost))) {
			ret = RP_EINPUT;
			goto out;
		}
	}
	if (rc != DB_DONE) {
		store_db_error(st, "cannot read dynamic data");
		goto out;
	}
	ret = 0;
out:
	db_finalize(stmt);
	return ret;
}

int store_dynamic_revisions(struct store *st, const char *bench_name, const char *bench_command,
			    const char *build_command, struct store_dynamic_rev **out, size_t *n)
{
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT r.sha, d.id, d.cost FROM dynamic_profiles d JOIN builds b ON"
		" b.id = d.build_id JOIN revisions r ON r.id = b.revision_id JOIN benchmarks k ON"
		" k.id = d.benchmark_id WHERE k.name = ?1 AND k.command = ?2 AND"
		" b.command = ?3 AND b.variant = '' AND b.status = 'ok'"
		" ORDER BY d.created_at DESC, d.id DESC");
	size_t alloc = 0;
	int rc;
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, bench_name);
	store_bind_text(stmt, 2, bench_command);
	store_bind_text(stmt, 3, build_command ? build_command : "");
	while ((rc = db_step(stmt)) == DB_ROW) {
		const char *sha = db_column_text(stmt, 0);
		const char *cost = db_column_text(stmt, 2);
		struct store_dynamic_rev *r;
		if (!sha || strlen(sha) != 40)
			continue;
		ALLOC_GROW(*out, *n + 1, alloc);
		r = &(*out)[(*n)++];
		memcpy(r->sha, sha, 41);
		r->profile_id = db_column_int64(stmt, 1);
		snprintf(r->cost, sizeof(r->cost), "%s", cost ? cost : "");
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return store_db_error(st, "cannot list dynamic data");
	}
	return 0;
}

/* Folds one primary verdict into a label: any worse/better is a hit, all equal a miss. */
static void fold_label(enum store_label *l, const char *verdict, bool first)
{
	bool hit = verdict && (!strcmp(verdict, "worse") || !strcmp(verdict, "better"));
	bool equal = verdict && !strcmp(verdict, "equal");
	if (first)
		*l = hit ? STORE_LABEL_HIT : equal ? STORE_LABEL_MISS : STORE_LABEL_UNDECIDED;
	else if (hit)
		*l = STORE_LABEL_HIT;
	else if (!equal && *l == STORE_LABEL_MISS)
		*l = STORE_LABEL_UNDECIDED;
}

int store_labelled_verdicts(struct store *st, const char *build_command,
			    struct store_labelled **out, size_t *n)
{
	struct db_stmt *stmt = store_prepare(
	    st, "SELECT c.id, ra.sha, rb.sha, k.name, k.command, v.verdict FROM verdicts v"
		" JOIN comparisons c ON c.id = v.comparison_id"
		" JOIN builds ba ON ba.id = c.base_build JOIN builds bb ON bb.id = c.target_build"
		" JOIN revisions ra ON ra.id = ba.revision_id"
		" JOIN revisions rb ON rb.id = bb.revision_id"
		" JOIN benchmarks k ON k.id = v.benchmark_id"
		" WHERE v.is_primary = 1 AND ba.variant = '' AND bb.variant = ''"
		" AND (CAST(?1 AS TEXT) IS NULL OR (ba.command = ?1 AND bb.command = ?1))"
		" ORDER BY c.id, v.benchmark_id, v.metric");
	size_t alloc = 0;
	int64_t last_cmp = -1, last_bench_row = -1;
	int rc;
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, build_command);
	while ((rc = db_step(stmt)) == DB_ROW) {
		int64_t cmp = db_column_int64(stmt, 0);
		const char *a = db_column_text(stmt, 1);
		const char *b = db_column_text(stmt, 2);
		const char *name = db_column_text(stmt, 3);
		const char *command = db_column_text(stmt, 4);
		const char *verdict = db_column_text(stmt, 5);
		struct store_labelled *l;
		if (!a || !b || !name || !command || strlen(a) != 40 || strlen(b) != 40)
			continue;
		if (cmp == last_cmp && last_bench_row >= 0 &&
		    !strcmp((*out)[last_bench_row].bench_name, name) &&
		    !strcmp((*out)[last_bench_row].bench_command, command)) {
			fold_label(&(*out)[last_bench_row].label, verdict, false);
			continue;
		}
		ALLOC_GROW(*out, *n + 1, alloc);
		l = &(*out)[*n];
		memset(l, 0, sizeof(*l));
		l->comparison_id = cmp;
		memcpy(l->base_sha, a, 41);
		memcpy(l->target_sha, b, 41);
		l->bench_name = xstrdup(name);
		l->bench_command = xstrdup(command);
		fold_label(&l->label, verdict, true);
		last_cmp = cmp;
		last_bench_row = (int64_t)(*n)++;
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		store_labelled_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_db_error(st, "cannot read verdicts");
	}
	return 0;
}

void store_labelled_free(struct store_labelled *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].bench_name);
		free(l[i].bench_command);
	}
	free(l);
}

int store_predictors_replace(struct store *st, struct store_predictor *p, size_t n)
{
	struct db_stmt *stmt = NULL;
	int ret = RP_EINTERNAL;
	size_t i;

	if (store_transaction_begin(st))
		return RP_EINTERNAL;
	if (exec_simple(st, "DELETE FROM predictors", "cannot replace the predictors"))
		goto out;
	stmt = store_prepare(st, "INSERT INTO predictors(scope, model, nr_tuples, nr_hits,"
				 " tuples, trained_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
				 " RETURNING id");
	if (!stmt)
		goto out;
	for (i = 0; i < n; i++) {
		int rc;
		if (!p[i].trained_at)
			p[i].trained_at = (int64_t)time(NULL);
		db_reset(stmt);
		store_bind_text(stmt, 1, p[i].scope);
		store_bind_text(stmt, 2, p[i].model);
		db_bind_int64(stmt, 3, (int64_t)p[i].nr_tuples);
		db_bind_int64(stmt, 4, (int64_t)p[i].nr_hits);
		store_bind_text(stmt, 5, p[i].tuples);
		db_bind_int64(stmt, 6, p[i].trained_at);
		rc = db_step(stmt);
		if (rc == DB_ROW) {
			p[i].id = db_column_int64(stmt, 0);
			rc = db_step(stmt);
		}
		if (rc != DB_DONE) {
			store_db_error(st, "cannot record a predictor");
			goto out;
		}
	}
	if (store_transaction_commit(st))
		goto out;
	ret = 0;
out:
	db_finalize(stmt);
	if (ret)
		store_transaction_rollback(st);
	return ret;
}

int store_predictors_load(struct store *st, struct store_predictor **out, size_t *n)
{
	struct db_stmt *stmt = store_prepare(st, "SELECT id, scope, model, nr_tuples, nr_hits,"
					       " tuples, trained_at FROM predictors"
					       " ORDER BY scope <> 'common', scope, id");
	size_t alloc = 0;
	int rc;
	*out = NULL;
	*n = 0;
	if (!stmt)
		return RP_EINTERNAL;
	while ((rc = db_step(stmt)) == DB_ROW) {
		struct store_predictor *p;
		ALLOC_GROW(*out, *n + 1, alloc);
		p = &(*out)[(*n)++];
		memset(p, 0, sizeof(*p));
		p->id = db_column_int64(stmt, 0);
		p->scope = store_column_dup(stmt, 1);
		p->model = store_column_dup(stmt, 2);
		p->nr_tuples = (size_t)db_column_int64(stmt, 3);
		p->nr_hits = (size_t)db_column_int64(stmt, 4);
		p->tuples = store_column_dup(stmt, 5);
		p->trained_at = db_column_int64(stmt, 6);
		if (!p->scope)
			p->scope = xstrdup("");
		if (!p->model)
			p->model = xstrdup("");
	}
	db_finalize(stmt);
	if (rc != DB_DONE) {
		store_predictors_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_db_error(st, "cannot read the predictors");
	}
	return 0;
}

void store_predictors_free(struct store_predictor *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].scope);
		free(p[i].model);
		free(p[i].tuples);
	}
	free(p);
}
