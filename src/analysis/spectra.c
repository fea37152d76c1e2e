/*
 * I/O spectrum analysis (METHODS.md section 3); see spectra.h and docs/io-analysis.md.
 *
 * Every analysis first aggregates its runs per key into a matrix of (calls, bytes) cells,
 * one row per key and one column per run, keys interned in the result's own key table so
 * that the result owns its strings. A key is (stack) or (stack, file); the file top list
 * uses (file) alone. A cell with 0 calls means the key did not write in that run.
 */
#include "analysis/spectra.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "util/common.h"

enum key_mode {
	KEY_STACK,
	KEY_STACK_FILE,
	KEY_FILE,
};

#define KEYTAB_MAX (UINT32_MAX - 1u)
#define NOT_FOUND SIZE_MAX

/* ---- the key table ---- */

static void keytab_release(struct spectra_keytab *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->stacks[i]);
		free(t->files[i]);
	}
	free(t->stacks);
	free(t->files);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* FNV-1a over the stack, a separator, and the file when there is one. */
static uint64_t key_hash(const char *stack, const char *file)
{
	const uint64_t prime = 1099511628211ULL;
	uint64_t h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)stack; *p; p++)
		h = (h ^ *p) * prime;
	h = (h ^ (file ? 0x01u : 0xffu)) * prime;
	if (file)
		for (const unsigned char *p = (const unsigned char *)file; *p; p++)
			h = (h ^ *p) * prime;
	return h;
}

static bool key_eq(const char *s1, const char *f1, const char *s2, const char *f2)
{
	if (strcmp(s1, s2))
		return false;
	if (!f1 || !f2)
		return f1 == f2;
	return !strcmp(f1, f2);
}

/* The slot holding the key, or the empty slot where it would go. nr_slots > 0. */
static size_t keytab_slot(const struct spectra_keytab *t, const char *stack, const char *file)
{
	size_t mask = t->nr_slots - 1;
	size_t s = (size_t)key_hash(stack, file) & mask;
	while (t->slots[s]) {
		size_t i = t->slots[s] - 1;
		if (key_eq(t->stacks[i], t->files[i], stack, file))
			break;
		s = (s + 1) & mask;
	}
	return s;
}

static size_t keytab_find(const struct spectra_keytab *t, const char *stack, const char *file)
{
	size_t s;
	if (!t->nr_slots)
		return NOT_FOUND;
	s = keytab_slot(t, stack, file);
	return t->slots[s] ? t->slots[s] - 1 : NOT_FOUND;
}

static void keytab_rehash(struct spectra_keytab *t, size_t nr_slots)
{
	free(t->slots);
	t->slots = xcalloc(nr_slots, sizeof(*t->slots));
	t->nr_slots = nr_slots;
	for (size_t i = 0; i < t->nr; i++)
		t->slots[keytab_slot(t, t->stacks[i], t->files[i])] = (uint32_t)(i + 1);
}

/* Sets *idx to the key's index, adding a copy of it when new. */
static int keytab_intern(struct spectra_keytab *t, const char *stack, const char *file, size_t *idx)
{
	size_t s;
	if (t->nr_slots) {
		s = keytab_slot(t, stack, file);
		if (t->slots[s]) {
			*idx = t->slots[s] - 1;
			return RP_OK;
		}
	}
	if (t->nr >= KEYTAB_MAX) {
		error("I/O spectrum: more than %u distinct stack traces", (unsigned)KEYTAB_MAX);
		return RP_EINPUT;
	}
	/* keep the load at most 1/2 */
	if ((t->nr + 1) * 2 > t->nr_slots)
		keytab_rehash(t, t->nr_slots ? t->nr_slots * 2 : 64);
	if (t->nr + 1 > t->alloc) {
		ALLOC_GROW(t->stacks, t->nr + 1, t->alloc);
		t->files = xrealloc(t->files, xmallocarray_size(t->alloc, sizeof(*t->files)));
	}
	t->stacks[t->nr] = xstrdup(stack);
	t->files[t->nr] = file ? xstrdup(file) : NULL;
	s = keytab_slot(t, stack, file);
	t->slots[s] = (uint32_t)(t->nr + 1);
	*idx = t->nr++;
	return RP_OK;
}

/* Deterministic order of keys: stack, then file (NULL first). */
static int key_cmp(const char *s1, const char *f1, const char *s2, const char *f2)
{
	int c = strcmp(s1, s2);
	if (c)
		return c;
	if (!f1 || !f2)
		return (f1 != NULL) - (f2 != NULL);
	return strcmp(f1, f2);
}

/* ---- runs ---- */

static const char *run_name(const struct spectra_run *run)
{
	return run->name ? run->name : "unnamed run";
}

static int check_fields(const char *name, size_t i, const char *stack, const char *file,
			uint64_t calls, uint64_t bytes)
{
	if (!stack || !*stack) {
		error("%s: record %zu: empty stack trace", name, i + 1);
		return RP_EINPUT;
	}
	if (!file || !*file) {
		error("%s: record %zu (stack trace '%.200s'): no file name (use a placeholder such "
		      "as [unknown])",
		      name, i + 1, stack);
		return RP_EINPUT;
	}
	if (!calls && bytes) {
		error("%s: record %zu (stack trace '%.200s', file '%.200s'): %" PRIu64
		      " bytes written by 0 calls",
		      name, i + 1, stack, file, bytes);
		return RP_EINPUT;
	}
	return RP_OK;
}

void spectra_run_init(struct spectra_run *run, const char *name)
{
	memset(run, 0, sizeof(*run));
	run->name = name ? xstrdup(name) : NULL;
}

void spectra_run_release(struct spectra_run *run)
{
	for (size_t i = 0; i < run->nr; i++) {
		free(run->recs[i].stack);
		free(run->recs[i].file);
	}
	free(run->recs);
	free(run->name);
	memset(run, 0, sizeof(*run));
}

int spectra_run_add(struct spectra_run *run, const char *stack, const char *file, uint64_t calls,
		    uint64_t bytes)
{
	struct spectra_record *r;
	int ret = check_fields(run_name(run), run->nr, stack, file, calls, bytes);
	if (ret || (!calls && !bytes))
		return ret;
	ALLOC_GROW(run->recs, run->nr + 1, run->alloc);
	r = &run->recs[run->nr++];
	r->stack = xstrdup(stack);
	r->file = xstrdup(file);
	r->calls = calls;
	r->bytes = bytes;
	return RP_OK;
}

void spectra_opts_init(struct spectra_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->group = SPECTRA_BY_STACK;
	opts->range = SPECTRA_RANGE_MINMAX;
	opts->k = 2.0;
	opts->absent_as_outside = false;
}

static int check_group(enum spectra_group group)
{
	if (group != SPECTRA_BY_STACK && group != SPECTRA_BY_STACK_FILE) {
		error("I/O spectrum: unknown grouping %d", (int)group);
		return RP_EINPUT;
	}
	return RP_OK;
}

static int check_opts(const struct spectra_opts *opts)
{
	int ret = check_group(opts->group);
	if (ret)
		return ret;
	if (opts->range != SPECTRA_RANGE_MINMAX && opts->range != SPECTRA_RANGE_SD) {
		error("I/O spectrum: unknown range kind %d", (int)opts->range);
		return RP_EINPUT;
	}
	if (opts->range == SPECTRA_RANGE_SD && !(isfinite(opts->k) && opts->k >= 0)) {
		error("I/O spectrum: the range's k must be a finite number >= 0, not %g", opts->k);
		return RP_EINPUT;
	}
	return RP_OK;
}

static enum key_mode mode_of(enum spectra_group group)
{
	return group == SPECTRA_BY_STACK_FILE ? KEY_STACK_FILE : KEY_STACK;
}

/* ---- aggregation: keys x runs ---- */

struct cell {
	uint64_t calls, bytes;
};

struct agg {
	struct spectra_keytab *keys; /* borrowed: the result's */
	enum key_mode mode;
	size_t nr_runs;
	struct cell **cells; /* per key: nr_runs cells */
	struct cell *totals; /* per key: over all runs (bounds every cell) */
	size_t nr, alloc;
};

static void agg_init(struct agg *g, struct spectra_keytab *keys, enum key_mode mode, size_t nr_runs)
{
	memset(g, 0, sizeof(*g));
	g->keys = keys;
	g->mode = mode;
	g->nr_runs = nr_runs;
}

static void agg_release(struct agg *g)
{
	for (size_t i = 0; i < g->nr; i++)
		free(g->cells[i]);
	free(g->cells);
	free(g->totals);
	memset(g, 0, sizeof(*g));
}

static int overflow(const struct agg *g, const struct spectra_run *run, size_t i, const char *what)
{
	const struct spectra_record *r = &run->recs[i];
	error("%s: record %zu: the %s count of %s '%.200s' overflows 64 bits", run_name(run), i + 1,
	      what, g->mode == KEY_FILE ? "file" : "stack trace",
	      g->mode == KEY_FILE ? r->file : r->stack);
	return RP_EINPUT;
}

static int agg_add(struct agg *g, const struct spectra_run *run, size_t col)
{
	if (run->nr && !run->recs) {
		error("%s: %zu records but no record array", run_name(run), run->nr);
		return RP_EINPUT;
	}
	for (size_t i = 0; i < run->nr; i++) {
		const struct spectra_record *r = &run->recs[i];
		const char *stack = r->stack, *file = NULL;
		size_t idx;
		int ret = check_fields(run_name(run), i, r->stack, r->file, r->calls, r->bytes);
		if (ret)
			return ret;
		if (!r->calls && !r->bytes)
			continue;
		if (g->mode == KEY_STACK_FILE)
			file = r->file;
		else if (g->mode == KEY_FILE)
			stack = r->file;
		ret = keytab_intern(g->keys, stack, file, &idx);
		if (ret)
			return ret;
		while (g->nr <= idx) {
			if (g->nr + 1 > g->alloc) {
				ALLOC_GROW(g->cells, g->nr + 1, g->alloc);
				g->totals = xrealloc(
				    g->totals, xmallocarray_size(g->alloc, sizeof(*g->totals)));
			}
			g->cells[g->nr] = xcalloc(g->nr_runs, sizeof(struct cell));
			g->totals[g->nr].calls = g->totals[g->nr].bytes = 0;
			g->nr++;
		}
		if (__builtin_add_overflow(g->totals[idx].calls, r->calls, &g->totals[idx].calls))
			return overflow(g, run, i, "call");
		if (__builtin_add_overflow(g->totals[idx].bytes, r->bytes, &g->totals[idx].bytes))
			return overflow(g, run, i, "byte");
		g->cells[idx][col].calls += r->calls;
		g->cells[idx][col].bytes += r->bytes;
	}
	return RP_OK;
}

static int agg_runs(struct agg *g, const struct spectra_run *runs, size_t nr_runs)
{
	for (size_t j = 0; j < nr_runs; j++) {
		int ret = agg_add(g, &runs[j], j);
		if (ret)
			return ret;
	}
	return RP_OK;
}

static double cell_bpc(const struct cell *c)
{
	return c->calls ? (double)c->bytes / (double)c->calls : NAN;
}

/* ---- profile ---- */

static void fill_entry(struct spectra_entry *e, const struct cell *cells, const struct cell *total,
		       size_t nr_runs, const struct spectra_opts *opts, double *bpc)
{
	double sum = 0, ss = 0, lo = INFINITY, hi = -INFINITY;
	size_t n = 0;
	for (size_t j = 0; j < nr_runs; j++) {
		bpc[j] = cell_bpc(&cells[j]);
		if (isnan(bpc[j]))
			continue;
		n++;
		sum += bpc[j];
		lo = fmin(lo, bpc[j]);
		hi = fmax(hi, bpc[j]);
	}
	e->runs_written = n;
	e->bpc_mean = sum / (double)n; /* n >= 1: a key exists only if it wrote */
	for (size_t j = 0; j < nr_runs; j++)
		if (!isnan(bpc[j]))
			ss += (bpc[j] - e->bpc_mean) * (bpc[j] - e->bpc_mean);
	e->bpc_sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	if (opts->range == SPECTRA_RANGE_SD) {
		/* bytes per call are never negative: a bound below 0 admits nothing more */
		e->lo = fmax(0, e->bpc_mean - opts->k * e->bpc_sd);
		e->hi = e->bpc_mean + opts->k * e->bpc_sd;
	} else {
		e->lo = lo;
		e->hi = hi;
	}
	e->calls_total = total->calls;
	e->bytes_total = total->bytes;
	e->calls_mean = (double)total->calls / (double)nr_runs;
	e->bytes_mean = (double)total->bytes / (double)nr_runs;
	e->bpc = bpc;
}

int spectra_profile_build(const struct spectra_run *runs, size_t nr_runs,
			  const struct spectra_opts *opts, struct spectra_profile *out)
{
	struct spectra_opts def;
	struct agg g;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!opts) {
		spectra_opts_init(&def);
		opts = &def;
	}
	ret = check_opts(opts);
	if (ret)
		return ret;
	if (!nr_runs) {
		error("I/O spectrum profile: no runs (a profile needs at least one run)");
		return RP_EINPUT;
	}
	out->group = opts->group;
	out->range = opts->range;
	out->k = opts->k;
	out->nr_runs = nr_runs;

	agg_init(&g, &out->keys, mode_of(opts->group), nr_runs);
	ret = agg_runs(&g, runs, nr_runs);
	if (ret)
		goto out;
	out->entries = xcalloc(g.nr, sizeof(*out->entries));
	out->bpc_block = xmallocarray(xmallocarray_size(g.nr, nr_runs), sizeof(double));
	for (size_t i = 0; i < g.nr; i++) {
		struct spectra_entry *e = &out->entries[i];
		e->stack = out->keys.stacks[i];
		e->file = out->keys.files[i];
		fill_entry(e, g.cells[i], &g.totals[i], nr_runs, opts,
			   out->bpc_block + i * nr_runs);
	}
	out->nr_entries = g.nr;
out:
	agg_release(&g);
	if (ret)
		spectra_profile_release(out);
	return ret;
}

void spectra_profile_release(struct spectra_profile *p)
{
	keytab_release(&p->keys);
	free(p->entries);
	free(p->bpc_block);
	memset(p, 0, sizeof(*p));
}

const struct spectra_entry *spectra_profile_find(const struct spectra_profile *p, const char *stack,
						 const char *file)
{
	size_t i;
	if (p->group == SPECTRA_BY_STACK)
		file = NULL;
	else if (!file)
		return NULL;
	i = keytab_find(&p->keys, stack, file);
	return i == NOT_FOUND ? NULL : &p->entries[i];
}

/* ---- similarity report ---- */

static void fill_row(struct spectra_row *row, const struct spectra_entry *base,
		     const struct cell *cells, const struct cell *total, size_t nr_runs,
		     bool absent_as_outside, double *bpc, unsigned char *fit)
{
	double sum_bpc = 0, sum_dist = 0;
	size_t written = 0;

	row->has_range = base != NULL;
	row->lo = base ? base->lo : NAN;
	row->hi = base ? base->hi : NAN;
	row->range_diff = base ? base->hi - base->lo : NAN;
	for (size_t j = 0; j < nr_runs; j++) {
		double v = cell_bpc(&cells[j]);
		bpc[j] = v;
		if (isnan(v)) {
			fit[j] = SPECTRA_ABSENT;
			continue;
		}
		written++;
		sum_bpc += v;
		if (base && v >= base->lo && v <= base->hi) {
			fit[j] = SPECTRA_INSIDE;
			row->a++;
			continue;
		}
		fit[j] = SPECTRA_OUTSIDE;
		row->runs_outside++;
		/* without a range, the whole value is new */
		if (!base)
			sum_dist += v;
		else if (v > base->hi)
			sum_dist += v - base->hi;
		else
			sum_dist += v - base->lo;
	}
	row->runs_written = written;
	row->n = absent_as_outside ? nr_runs : written;
	row->sc = row->a ? sqrt((double)row->a / (double)row->n) : 0;
	row->impact = row->runs_outside ? sum_dist / (double)row->runs_outside : 0;
	row->calls_mean = (double)total->calls / (double)nr_runs;
	row->bytes_mean = (double)total->bytes / (double)nr_runs;
	row->total_impact = row->calls_mean * row->impact;
	row->bpc_mean = sum_bpc / (double)written;
	row->base_calls_mean = base ? base->calls_mean : 0;
	row->base_bytes_mean = base ? base->bytes_mean : 0;
	row->calls_diff = row->calls_mean - row->base_calls_mean;
	row->bpc = bpc;
	row->fit = fit;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct spectra_row *a = pa, *b = pb;
	double ia = fabs(a->total_impact), ib = fabs(b->total_impact);
	if (a->sc != b->sc)
		return a->sc < b->sc ? -1 : 1;
	if (ia != ib)
		return ia > ib ? -1 : 1;
	return key_cmp(a->stack, a->file, b->stack, b->file);
}

static int stopped_cmp(const void *pa, const void *pb)
{
	const struct spectra_stopped *a = pa, *b = pb;
	if (a->base_bytes_mean != b->base_bytes_mean)
		return a->base_bytes_mean > b->base_bytes_mean ? -1 : 1;
	return key_cmp(a->stack, a->file, b->stack, b->file);
}

/* Base entries with no row in the report: they wrote in no target run. */
static int add_stopped(struct spectra_report *r, const struct spectra_profile *base)
{
	size_t alloc = 0;
	for (size_t i = 0; i < base->nr_entries; i++) {
		const struct spectra_entry *e = &base->entries[i];
		struct spectra_stopped *s;
		size_t idx;
		int ret;
		if (keytab_find(&r->keys, e->stack, e->file) != NOT_FOUND)
			continue;
		ret = keytab_intern(&r->keys, e->stack, e->file, &idx);
		if (ret)
			return ret;
		ALLOC_GROW(r->stopped, r->nr_stopped + 1, alloc);
		s = &r->stopped[r->nr_stopped++];
		s->stack = r->keys.stacks[idx];
		s->file = r->keys.files[idx];
		s->lo = e->lo;
		s->hi = e->hi;
		s->base_runs_written = e->runs_written;
		s->base_calls_mean = e->calls_mean;
		s->base_bytes_mean = e->bytes_mean;
	}
	if (r->nr_stopped)
		qsort(r->stopped, r->nr_stopped, sizeof(*r->stopped), stopped_cmp);
	return RP_OK;
}

int spectra_compare(const struct spectra_profile *base, const struct spectra_run *target,
		    size_t nr_target, const struct spectra_opts *opts, struct spectra_report *out)
{
	struct spectra_opts def;
	struct agg g;
	size_t cells;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!opts) {
		spectra_opts_init(&def);
		def.group = base->group;
		opts = &def;
	}
	ret = check_group(opts->group);
	if (ret)
		return ret;
	if (opts->group != base->group) {
		error("I/O spectrum: the baseline profile is grouped by %s, the comparison by %s",
		      base->group == SPECTRA_BY_STACK ? "stack trace" : "stack trace and file",
		      opts->group == SPECTRA_BY_STACK ? "stack trace" : "stack trace and file");
		return RP_EINPUT;
	}
	if (!nr_target) {
		error("I/O spectrum similarity report: no target runs");
		return RP_EINPUT;
	}
	out->group = base->group;
	out->absent_as_outside = opts->absent_as_outside;
	out->nr_runs = nr_target;
	out->nr_base_runs = base->nr_runs;

	agg_init(&g, &out->keys, mode_of(base->group), nr_target);
	ret = agg_runs(&g, target, nr_target);
	if (ret)
		goto out;
	cells = xmallocarray_size(g.nr, nr_target);
	out->rows = xcalloc(g.nr, sizeof(*out->rows));
	out->bpc_block = xmallocarray(cells, sizeof(double));
	out->fit_block = xmalloc(cells);
	for (size_t i = 0; i < g.nr; i++) {
		struct spectra_row *row = &out->rows[i];
		row->stack = out->keys.stacks[i];
		row->file = out->keys.files[i];
		fill_row(row, spectra_profile_find(base, row->stack, row->file), g.cells[i],
			 &g.totals[i], nr_target, opts->absent_as_outside,
			 out->bpc_block + i * nr_target, out->fit_block + i * nr_target);
	}
	out->nr_rows = g.nr;
	if (out->nr_rows)
		qsort(out->rows, out->nr_rows, sizeof(*out->rows), row_cmp);
	ret = add_stopped(out, base);
out:
	agg_release(&g);
	if (ret)
		spectra_report_release(out);
	return ret;
}

void spectra_report_release(struct spectra_report *r)
{
	keytab_release(&r->keys);
	free(r->rows);
	free(r->stopped);
	free(r->bpc_block);
	free(r->fit_block);
	memset(r, 0, sizeof(*r));
}

/* ---- test execution report ---- */

static int top_bytes_cmp(const void *pa, const void *pb)
{
	const struct spectra_top *a = pa, *b = pb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return key_cmp(a->stack ? a->stack : a->file, a->stack ? a->file : NULL,
		       b->stack ? b->stack : b->file, b->stack ? b->file : NULL);
}

static int top_bpc_cmp(const void *pa, const void *pb)
{
	const struct spectra_top *a = pa, *b = pb;
	if (a->bpc != b->bpc)
		return a->bpc > b->bpc ? -1 : 1;
	return top_bytes_cmp(pa, pb);
}

/* One top list from an aggregation of one run: sorted, cut to limit. */
static struct spectra_top *top_list(const struct agg *g, bool files, size_t limit,
				    int (*cmp)(const void *, const void *), size_t *nr)
{
	struct spectra_top *t = xcalloc(g->nr, sizeof(*t));
	for (size_t i = 0; i < g->nr; i++) {
		t[i].stack = files ? NULL : g->keys->stacks[i];
		t[i].file = files ? g->keys->stacks[i] : g->keys->files[i];
		t[i].calls = g->totals[i].calls;
		t[i].bytes = g->totals[i].bytes;
		t[i].bpc = (double)t[i].bytes / (double)t[i].calls;
	}
	if (g->nr)
		qsort(t, g->nr, sizeof(*t), cmp);
	*nr = limit && limit < g->nr ? limit : g->nr;
	return t;
}

int spectra_exec_build(const struct spectra_run *run, enum spectra_group group, size_t limit,
		       struct spectra_exec *out)
{
	struct agg stacks, files;
	int ret;

	memset(out, 0, sizeof(*out));
	agg_init(&stacks, &out->keys, mode_of(group), 1);
	agg_init(&files, &out->file_keys, KEY_FILE, 1);
	ret = check_group(group);
	if (ret)
		goto out;
	out->group = group;
	ret = agg_add(&stacks, run, 0);
	if (ret)
		goto out;
	ret = agg_add(&files, run, 0);
	if (ret)
		goto out;
	for (size_t i = 0; i < files.nr; i++) {
		if (__builtin_add_overflow(out->total_calls, files.totals[i].calls,
					   &out->total_calls) ||
		    __builtin_add_overflow(out->total_bytes, files.totals[i].bytes,
					   &out->total_bytes)) {
			error("%s: the run's total write count overflows 64 bits", run_name(run));
			ret = RP_EINPUT;
			goto out;
		}
	}
	out->nr_stacks = stacks.nr;
	out->nr_files = files.nr;
	out->by_bytes = top_list(&stacks, false, limit, top_bytes_cmp, &out->nr_by_bytes);
	out->by_bpc = top_list(&stacks, false, limit, top_bpc_cmp, &out->nr_by_bpc);
	out->files = top_list(&files, true, limit, top_bytes_cmp, &out->nr_files_top);
out:
	agg_release(&stacks);
	agg_release(&files);
	if (ret)
		spectra_exec_release(out);
	return ret;
}

void spectra_exec_release(struct spectra_exec *e)
{
	keytab_release(&e->keys);
	keytab_release(&e->file_keys);
	free(e->by_bytes);
	free(e->by_bpc);
	free(e->files);
	memset(e, 0, sizeof(*e));
}
