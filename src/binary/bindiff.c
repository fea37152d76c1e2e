/*
 * Matching the functions of two builds: by name (same-named locals by compilation unit),
 * then renames by unique identical bodies, iterated so that callers of a renamed function
 * are not counted as modified for calling it by its new name. Sorting and hashing only:
 * O(n log n) in the number of functions.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "binary/binfile_impl.h"
#include "binary/bindiff.h"
#include "util/common.h"

/* Rename rounds: each can only reveal renames hidden behind renames found before it. */
#define MAX_RENAME_ROUNDS 8

/* Per function of either side during matching. */
struct side {
	struct binfile *bf;
	struct binfunc **fn; /* sorted by (name, cu) */
	long *partner;	     /* index into the other side's bf->funcs, or -1 */
	bool *renamed;
};

static const char *const class_names[BINDIFF_NR_CLASSES] = {
    "modified", "renamed", "added", "deleted", "unchanged",
};

const char *bindiff_class_name(enum bindiff_class cls)
{
	return (unsigned)cls < BINDIFF_NR_CLASSES ? class_names[cls] : "?";
}

static int cmp_cu(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_name_cu(const void *a, const void *b)
{
	const struct binfunc *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);
	return c ? c : cmp_cu((*x)->cu, (*y)->cu);
}

static int cmp_hash(const void *a, const void *b)
{
	const struct binfunc *const *x = a, *const *y = b;
	if ((*x)->hash != (*y)->hash)
		return (*x)->hash < (*y)->hash ? -1 : 1;
	return cmp_name_cu(a, b);
}

static void side_init(struct side *s, struct binfile *bf)
{
	size_t i, n = bf->nr_funcs ? bf->nr_funcs : 1;
	s->bf = bf;
	s->fn = xmallocarray(n, sizeof(*s->fn));
	s->partner = xmallocarray(n, sizeof(*s->partner));
	s->renamed = xcalloc(n, sizeof(*s->renamed));
	for (i = 0; i < bf->nr_funcs; i++) {
		s->fn[i] = &bf->funcs[i];
		s->partner[i] = -1;
	}
	bin_sort(s->fn, bf->nr_funcs, sizeof(*s->fn), cmp_name_cu);
}

static void side_release(struct side *s)
{
	free(s->fn);
	free(s->partner);
	free(s->renamed);
}

static size_t idx(const struct side *s, const struct binfunc *f)
{
	return (size_t)(f - s->bf->funcs);
}

static void pair(struct side *o, struct binfunc *fo, struct side *n, struct binfunc *fn)
{
	o->partner[idx(o, fo)] = (long)idx(n, fn);
	n->partner[idx(n, fn)] = (long)idx(o, fo);
}

/*
 * Same-named functions: a single one on each side pairs up; otherwise those of the same
 * compilation unit do, and if one is left on each side, those two.
 */
static void match_group(struct side *o, size_t a, size_t b, struct side *n, size_t c, size_t d)
{
	size_t i = a, j = c, left_o = 0, left_n = 0;
	struct binfunc *lo = NULL, *ln = NULL;
	if (b - a == 1 && d - c == 1) {
		pair(o, o->fn[a], n, n->fn[c]);
		return;
	}
	while (i < b && j < d) {
		int cmp = cmp_cu(o->fn[i]->cu, n->fn[j]->cu);
		if (!cmp && o->fn[i]->cu) {
			pair(o, o->fn[i++], n, n->fn[j++]);
		} else if (cmp <= 0) {
			left_o++;
			lo = o->fn[i++];
		} else {
			left_n++;
			ln = n->fn[j++];
		}
	}
	for (; i < b; i++, left_o++)
		lo = o->fn[i];
	for (; j < d; j++, left_n++)
		ln = n->fn[j];
	if (left_o == 1 && left_n == 1)
		pair(o, lo, n, ln);
}

static void match_names(struct side *o, struct side *n)
{
	size_t i = 0, j = 0, no = o->bf->nr_funcs, nn = n->bf->nr_funcs;
	while (i < no && j < nn) {
		int c = strcmp(o->fn[i]->name, n->fn[j]->name);
		size_t b = i + 1, d = j + 1;
		if (c < 0) {
			i++;
			continue;
		}
		if (c > 0) {
			j++;
			continue;
		}
		while (b < no && !strcmp(o->fn[b]->name, o->fn[i]->name))
			b++;
		while (d < nn && !strcmp(n->fn[d]->name, n->fn[j]->name))
			d++;
		match_group(o, i, b, n, j, d);
		i = b;
		j = d;
	}
}

/* Unpaired functions of a side, sorted by hash. */
static struct binfunc **unpaired(const struct side *s, size_t *nr)
{
	struct binfunc **v = xmallocarray(s->bf->nr_funcs ? s->bf->nr_funcs : 1, sizeof(*v));
	size_t i;
	*nr = 0;
	for (i = 0; i < s->bf->nr_funcs; i++)
		if (s->partner[i] < 0)
			v[(*nr)++] = &s->bf->funcs[i];
	bin_sort(v, *nr, sizeof(*v), cmp_hash);
	return v;
}

/* Pairs unpaired functions whose body hash is unique on both sides; returns how many. */
static size_t match_renames(struct side *o, struct side *n)
{
	size_t no, nn, i = 0, j = 0, found = 0;
	struct binfunc **uo = unpaired(o, &no), **un = unpaired(n, &nn);
	while (i < no && j < nn) {
		size_t b = i + 1, d = j + 1;
		if (uo[i]->hash != un[j]->hash) {
			if (uo[i]->hash < un[j]->hash)
				i++;
			else
				j++;
			continue;
		}
		while (b < no && uo[b]->hash == uo[i]->hash)
			b++;
		while (d < nn && un[d]->hash == un[j]->hash)
			d++;
		if (b - i == 1 && d - j == 1) {
			pair(o, uo[i], n, un[j]);
			o->renamed[idx(o, uo[i])] = n->renamed[idx(n, un[j])] = true;
			/* Code referring to the new name hashes as if it named the old one. */
			un[j]->ref_hash = uo[i]->ref_hash;
			found++;
		}
		i = b;
		j = d;
	}
	free(uo);
	free(un);
	return found;
}

/* After renames: new functions that may refer to them are hashed again. */
static int rehash_candidates(struct side *o, struct side *n)
{
	size_t i;
	for (i = 0; i < n->bf->nr_funcs; i++) {
		long p = n->partner[i];
		struct binfunc *f = &n->bf->funcs[i];
		if (n->renamed[i] || (p >= 0 && o->bf->funcs[p].hash == f->hash))
			continue;
		if (binfile_rehash(n->bf, f))
			return -1;
	}
	return 0;
}

static void add_entry(struct bindiff *d, size_t *alloc, enum bindiff_class cls,
		      const struct binfunc *fo, const struct binfunc *fn)
{
	struct bindiff_entry *e;
	ALLOC_GROW(d->entries, d->nr_entries + 1, *alloc);
	e = &d->entries[d->nr_entries++];
	memset(e, 0, sizeof(*e));
	e->cls = cls;
	e->old_fn = fo;
	e->new_fn = fn;
	e->change_pct = NAN;
	if (fo && fn && fo->nr_insns)
		e->change_pct = ((double)fn->nr_insns - fo->nr_insns) * 100.0 / fo->nr_insns;
	d->count[cls]++;
}

static void collect_entries(struct bindiff *d, const struct side *o, const struct side *n)
{
	size_t i, alloc = 0;
	for (i = 0; i < o->bf->nr_funcs; i++) {
		const struct binfunc *fo = &o->bf->funcs[i], *fn;
		long p = o->partner[i];
		if (p < 0) {
			add_entry(d, &alloc, BINDIFF_DELETED, fo, NULL);
			continue;
		}
		fn = &n->bf->funcs[p];
		add_entry(d, &alloc,
			  o->renamed[i]		 ? BINDIFF_RENAMED
			  : fo->hash == fn->hash ? BINDIFF_UNCHANGED
						 : BINDIFF_MODIFIED,
			  fo, fn);
	}
	for (i = 0; i < n->bf->nr_funcs; i++)
		if (n->partner[i] < 0)
			add_entry(d, &alloc, BINDIFF_ADDED, NULL, &n->bf->funcs[i]);
}

static const struct binfunc *entry_fn(const struct bindiff_entry *e, bool new_side)
{
	return new_side ? e->new_fn : e->old_fn;
}

static const struct binfunc *entry_any(const struct bindiff_entry *e)
{
	return e->new_fn ? e->new_fn : e->old_fn;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct bindiff_entry *x = a, *y = b;
	const struct binfunc *fx = entry_any(x), *fy = entry_any(y);
	int c;
	if (x->cls != y->cls)
		return (int)x->cls - (int)y->cls;
	if ((c = strcmp(fx->name, fy->name)))
		return c;
	return cmp_cu(fx->cu, fy->cu);
}

struct index_sort {
	const struct bindiff *d;
	bool new_side;
};

static int cmp_index(const void *a, const void *b, void *arg)
{
	const struct index_sort *s = arg;
	const struct binfunc *x = entry_fn(&s->d->entries[*(const size_t *)a], s->new_side);
	const struct binfunc *y = entry_fn(&s->d->entries[*(const size_t *)b], s->new_side);
	int c = strcmp(x->name, y->name);
	return c ? c : cmp_cu(x->cu, y->cu);
}

static size_t *build_index(const struct bindiff *d, bool new_side, size_t *nr)
{
	size_t *v = xmallocarray(d->nr_entries ? d->nr_entries : 1, sizeof(*v)), i;
	struct index_sort s = {d, new_side};
	*nr = 0;
	for (i = 0; i < d->nr_entries; i++)
		if (entry_fn(&d->entries[i], new_side))
			v[(*nr)++] = i;
	bin_sort_r(v, *nr, sizeof(*v), cmp_index, &s);
	return v;
}

const struct bindiff_entry *bindiff_find(const struct bindiff *d, const char *name, const char *cu,
					 bool new_side)
{
	const size_t *v = new_side ? d->by_new : d->by_old;
	size_t lo = 0, hi = new_side ? d->nr_by_new : d->nr_by_old;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(entry_fn(&d->entries[v[mid]], new_side)->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < (new_side ? d->nr_by_new : d->nr_by_old); lo++) {
		const struct bindiff_entry *e = &d->entries[v[lo]];
		const struct binfunc *f = entry_fn(e, new_side);
		if (strcmp(f->name, name))
			break;
		if (!cu || (f->cu && !strcmp(f->cu, cu)))
			return e;
	}
	return NULL;
}

struct inline_collect {
	struct bindiff *d;
	struct bindiff_entry *e;
	size_t alloc;
};

static void collect_inline(const char *name, void *data)
{
	struct inline_collect *c = data;
	const struct bindiff_entry *m = bindiff_find(c->d, name, NULL, true);
	if (!m || m == c->e || m->cls != BINDIFF_MODIFIED)
		return;
	ALLOC_GROW(c->e->inlines, c->e->nr_inlines + 1, c->alloc);
	c->e->inlines[c->e->nr_inlines++] = m->new_fn->name;
}

static void find_inlines(struct bindiff *d)
{
	size_t i;
	if (!d->new_file->has_dwarf)
		return;
	for (i = 0; i < d->nr_entries && d->entries[i].cls == BINDIFF_MODIFIED; i++) {
		struct inline_collect c = {d, &d->entries[i], 0};
		binfile_inlined(d->new_file, d->entries[i].new_fn, collect_inline, &c);
	}
}

static int check_same_arch(const struct binfile *a, const struct binfile *b)
{
	if (a->machine == b->machine)
		return 0;
	return error("%s is %s but %s is %s: compare two builds for the same architecture", a->path,
		     a->arch, b->path, b->arch);
}

int bindiff_compute(struct binfile *old_file, struct binfile *new_file, struct bindiff *out)
{
	struct side o, n;
	int round, ret = 0;

	memset(out, 0, sizeof(*out));
	out->old_file = old_file;
	out->new_file = new_file;
	if (check_same_arch(old_file, new_file)) {
		bindiff_release(out);
		return RP_EINPUT;
	}
	side_init(&o, old_file);
	side_init(&n, new_file);
	match_names(&o, &n);
	for (round = 0; round < MAX_RENAME_ROUNDS && match_renames(&o, &n); round++)
		if (rehash_candidates(&o, &n))
			break; /* no disassembly: hashes cannot change */
	collect_entries(out, &o, &n);
	side_release(&o);
	side_release(&n);
	bin_sort(out->entries, out->nr_entries, sizeof(*out->entries), cmp_entry);
	out->by_old = build_index(out, false, &out->nr_by_old);
	out->by_new = build_index(out, true, &out->nr_by_new);
	find_inlines(out);
	return ret;
}

static void *analyze_thread(void *arg)
{
	struct binfile *bf = arg;
	bf->analyze_ret = binfile_analyze(bf);
	return NULL;
}

/* Analyses both files, in parallel when a thread can be had. */
static int analyze_both(struct binfile *a, struct binfile *b)
{
	pthread_t t;
	int ret;
	if (pthread_create(&t, NULL, analyze_thread, a)) {
		if ((ret = binfile_analyze(a)))
			return ret;
		return binfile_analyze(b);
	}
	ret = binfile_analyze(b);
	pthread_join(t, NULL);
	return a->analyze_ret ? a->analyze_ret : ret;
}

int bindiff_files(const char *old_path, const char *new_path, unsigned flags, struct bindiff *out)
{
	struct binfile *a = NULL, *b = NULL;
	int ret;
	memset(out, 0, sizeof(*out));
	/* Open both first, so that errors come in order and before the slow part. */
	if ((ret = binfile_open(old_path, flags, &a)) || (ret = binfile_open(new_path, flags, &b)))
		goto fail;
	if (check_same_arch(a, b)) {
		ret = RP_EINPUT;
		goto fail;
	}
	if ((ret = analyze_both(a, b)))
		goto fail;
	return bindiff_compute(a, b, out);
fail:
	binfile_free(a);
	binfile_free(b);
	return ret;
}

bool bindiff_identical(const struct bindiff *d)
{
	return d->count[BINDIFF_UNCHANGED] == d->nr_entries;
}

void bindiff_release(struct bindiff *d)
{
	size_t i;
	for (i = 0; i < d->nr_entries; i++)
		free(d->entries[i].inlines);
	free(d->entries);
	free(d->by_old);
	free(d->by_new);
	binfile_free(d->old_file);
	binfile_free(d->new_file);
	memset(d, 0, sizeof(*d));
}
