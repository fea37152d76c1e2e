/*
 * Counter series of runs (profile = counters, docs/counters.md): one row per (run,
 * counter), the samples as a zstd-compressed array of little-endian (t, v) double pairs.
 */
#include "store/store.h"
#include "store/store_impl.h"

#include <stdio.h>
#include <string.h>

#include "util/common.h"

/* Packs a series as (t, v) pairs of little-endian IEEE doubles (x86-64 is little-endian;
 * other hosts swap the bytes). */
static void pack(const struct sample_series *s, unsigned char *out)
{
	for (size_t i = 0; i < s->n; i++) {
		double pair[2] = {s->t[i], s->v[i]};
		for (int k = 0; k < 2; k++) {
			uint64_t bits;
			memcpy(&bits, &pair[k], sizeof(bits));
			for (int b = 0; b < 8; b++)
				out[i * 16 + (size_t)k * 8 + (size_t)b] =
				    (unsigned char)(bits >> (8 * b));
		}
	}
}

static void unpack(const unsigned char *in, size_t n, double *t, double *v)
{
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < 2; k++) {
			uint64_t bits = 0;
			double d;
			for (int b = 0; b < 8; b++)
				bits |= (uint64_t)in[i * 16 + (size_t)k * 8 + (size_t)b] << (8 * b);
			memcpy(&d, &bits, sizeof(d));
			if (k)
				v[i] = d;
			else
				t[i] = d;
		}
	}
}

int store_run_counters_save(struct store *st, int64_t run_id, const struct run_samples *rs)
{
	struct db_stmt *stmt = store_prepare(
	    st, "INSERT INTO run_counters(run_id, counter, unit, n, samples)"
		" VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(run_id, counter) DO UPDATE SET"
		" unit = excluded.unit, n = excluded.n, samples = excluded.samples");
	int ret = 0;

	if (!stmt)
		return RP_EINTERNAL;
	for (size_t i = 0; i < rs->nr && !ret; i++) {
		const struct sample_series *s = &rs->series[i];
		size_t raw_len = s->n * 16, len;
		unsigned char *raw = xmalloc(raw_len ? raw_len : 1);
		void *z;

		pack(s, raw);
		z = store_compress(st, raw, raw_len, &len);
		if (!z) {
			ret = RP_EINTERNAL; /* store_compress() said why */
		} else {
			db_bind_int64(stmt, 1, run_id);
			store_bind_text(stmt, 2, s->name);
			store_bind_text(stmt, 3, s->unit);
			db_bind_int64(stmt, 4, (int64_t)s->n);
			db_bind_blob(stmt, 5, z, len);
			ret = store_step_done(st, stmt, "cannot save a counter series");
		}
		free(raw);
		free(z);
	}
	db_finalize(stmt);
	return ret;
}

/* Appends the series of one row to the run at the end of *out (or a new run). */
static int read_row(struct store *st, struct db_stmt *stmt, struct store_counter_run **out, size_t *n,
		    size_t *alloc)
{
	int64_t run_id = db_column_int64(stmt, 0);
	const char *name = db_column_text(stmt, 3);
	const char *unit = db_column_text(stmt, 4);
	int64_t count = db_column_int64(stmt, 5);
	size_t blob_len, raw_len;
	const void *blob = db_column_blob(stmt, 6, &blob_len);
	struct store_counter_run *r;
	unsigned char *raw;

	if (!*n || (*out)[*n - 1].run_id != run_id) {
		ALLOC_GROW(*out, *n + 1, *alloc);
		r = &(*out)[(*n)++];
		memset(r, 0, sizeof(*r));
		r->run_id = run_id;
		r->side = db_column_text(stmt, 1) ? *db_column_text(stmt, 1) : 'A';
		r->comparison_id = db_column_int64(stmt, 2);
		run_samples_init(&r->samples);
	}
	r = &(*out)[*n - 1];
	if (count < 0 || count > (int64_t)(SIZE_MAX / 16) || !name) {
		error("database %s: run %lld: a corrupt counter series", st->path,
		      (long long)run_id);
		return RP_EINTERNAL;
	}
	raw_len = (size_t)count * 16;
	raw = xmalloc(raw_len ? raw_len : 1);
	if (store_decompress(st, raw, raw_len, blob, blob_len)) {
		free(raw);
		error("database %s: run %lld: the series %s does not decompress", st->path,
		      (long long)run_id, name);
		return RP_EINTERNAL;
	}
	{
		double *t = xcalloc((size_t)count ? (size_t)count : 1, sizeof(double));
		double *v = xcalloc((size_t)count ? (size_t)count : 1, sizeof(double));
		unpack(raw, (size_t)count, t, v);
		for (int64_t i = 0; i < count; i++)
			run_samples_add(&r->samples, name, unit, t[i], v[i]);
		free(t);
		free(v);
	}
	free(raw);
	return 0;
}

static int collect_rows(struct store *st, struct db_stmt *stmt, struct store_counter_run **out,
			size_t *n)
{
	size_t alloc = 0;
	int rc, ret = 0;

	*out = NULL;
	*n = 0;
	while (!ret && (rc = db_step(stmt)) == DB_ROW)
		ret = read_row(st, stmt, out, n, &alloc);
	if (!ret && rc != DB_DONE)
		ret = store_db_error(st, "cannot read counter series");
	db_finalize(stmt);
	return ret;
}

#define COUNTER_COLUMNS "r.id, r.side, r.comparison_id, c.counter, c.unit, c.n, c.samples"

int store_run_counters(struct store *st, const struct store_run_filter *f,
		       struct store_counter_run **out, size_t *n)
{
	struct db_stmt *stmt =
	    store_prepare(st, "SELECT " COUNTER_COLUMNS " FROM runs r JOIN"
			      " run_counters c ON c.run_id = r.id WHERE" STORE_FILTER_SQL
			      " AND r.status = 'ok' ORDER BY r.id, c.counter");
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_filter(stmt, f);
	return collect_rows(st, stmt, out, n);
}

int store_counter_runs_of_revision(struct store *st, const char *sha, const char *bench,
				   struct store_counter_run **out, size_t *n)
{
	/* The runs of the build of the latest run with counters (one build command). */
	struct db_stmt *stmt = store_prepare(
	    st, "WITH mine AS (SELECT r.* FROM runs r JOIN builds b ON b.id = r.build_id"
		" JOIN revisions v ON v.id = b.revision_id JOIN benchmarks k ON"
		" k.id = r.benchmark_id WHERE v.sha = ?1 AND k.name = ?2 AND r.status = 'ok'"
		" AND r.warmup = 0 AND EXISTS (SELECT 1 FROM run_counters c WHERE"
		" c.run_id = r.id))"
		" SELECT " COUNTER_COLUMNS " FROM mine r JOIN run_counters c ON c.run_id = r.id"
		" WHERE r.build_id = (SELECT build_id FROM mine ORDER BY id DESC LIMIT 1)"
		" ORDER BY r.id, c.counter");
	if (!stmt)
		return RP_EINTERNAL;
	store_bind_text(stmt, 1, sha);
	store_bind_text(stmt, 2, bench);
	return collect_rows(st, stmt, out, n);
}

void store_counter_runs_free(struct store_counter_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_samples_release(&runs[i].samples);
	free(runs);
}
