/*
 * Matching the functions of two builds: by name (same-named locals by compilation unit),
 * then renames by unique identical bodies, iterated so that callers of a renamed function
 * are not counted as modified for calling it by its new name. Merges of the files' name
 * orders and hashing only: O(n log n) in the number of functions. bindiff_files() hashes
 * both files' functions together, in threads, so that a new function can reuse the
 * decoding of its old namesake (docs/bindiff.md, "Speed").
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

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
	bool *clone; /* paired with a function of the same base whose clone suffix differs */
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
	size_t i, j, n = bf->nr_funcs ? bf->nr_funcs : 1;
	s->bf = bf;
	s->fn = xmallocarray(n, sizeof(*s->fn));
	s->partner = xmallocarray(n, sizeof(*s->partner));
	s->renamed = xcalloc(n, sizeof(*s->renamed));
	s->clone = xcalloc(n, sizeof(*s->clone));
	for (i = 0; i < bf->nr_funcs; i++) {
		s->fn[i] = &bf->funcs[bf->by_name[i]];
		s->partner[i] = -1;
	}
	/* The file sorted them by name; same-named ones (locals) go by compilation unit. */
	for (i = 0; i < bf->nr_funcs; i = j) {
		for (j = i + 1; j < bf->nr_funcs && s->fn[i]->dup_name &&
				!strcmp(s->fn[j]->name, s->fn[i]->name);
		     j++)
			;
		bin_sort(s->fn + i, j - i, sizeof(*s->fn), cmp_name_cu);
	}
}

static void side_release(struct side *s)
{
	free(s->fn);
	free(s->partner);
	free(s->renamed);
	free(s->clone);
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

/* An unpaired function by the base of its name (bindiff_clone_base()). */
struct based {
	struct binfunc *f;
	size_t len;
};

static int cmp_based(const void *a, const void *b)
{
	const struct based *x = a, *y = b;
	int c = strncmp(x->f->name, y->f->name, x->len < y->len ? x->len : y->len);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return cmp_cu(x->f->cu, y->f->cu);
}

static struct based *unpaired_based(const struct side *s, size_t *nr)
{
	struct based *v = xmallocarray(s->bf->nr_funcs ? s->bf->nr_funcs : 1, sizeof(*v));
	*nr = 0;
	for (size_t i = 0; i < s->bf->nr_funcs; i++)
		if (s->partner[i] < 0) {
			v[*nr].f = &s->bf->funcs[i];
			v[(*nr)++].len = bindiff_clone_base(s->bf->funcs[i].name);
		}
	bin_sort(v, *nr, sizeof(*v), cmp_based);
	return v;
}

/*
 * Pairs unpaired functions whose names differ only in clone suffixes (foo.part.0 and
 * foo.isra.0), when the base (and compilation unit) is unique among the unpaired of both
 * sides; returns how many. Code calling the new clone hashes as if it called the old one.
 */
static size_t match_clones(struct side *o, struct side *n)
{
	size_t no, nn, i = 0, j = 0, found = 0;
	struct based *uo = unpaired_based(o, &no), *un = unpaired_based(n, &nn);
	while (i < no && j < nn) {
		int c = cmp_based(&uo[i], &un[j]);
		size_t b = i + 1, d = j + 1;
		if (c) {
			i += c < 0;
			j += c > 0;
			continue;
		}
		while (b < no && !cmp_based(&uo[b], &uo[i]))
			b++;
		while (d < nn && !cmp_based(&un[d], &un[j]))
			d++;
		if (b - i == 1 && d - j == 1 && strcmp(uo[i].f->name, un[j].f->name)) {
			pair(o, uo[i].f, n, un[j].f);
			o->clone[idx(o, uo[i].f)] = n->clone[idx(n, un[j].f)] = true;
			un[j].f->ref_hash = uo[i].f->ref_hash;
			found++;
		}
		i = b;
		j = d;
	}
	free(uo);
	free(un);
	return found;
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

static enum bindiff_class class_of(const struct side *o, const struct side *n, size_t i)
{
	long p = n->partner[i];
	if (p < 0)
		return BINDIFF_ADDED;
	if (n->renamed[i])
		return BINDIFF_RENAMED;
	if (n->clone[i] && o->bf->funcs[p].hash == n->bf->funcs[i].hash)
		return BINDIFF_RENAMED; /* only the name's clone suffix changed */
	return o->bf->funcs[p].hash == n->bf->funcs[i].hash ? BINDIFF_UNCHANGED : BINDIFF_MODIFIED;
}

static void entry_init(struct bindiff_entry *e, enum bindiff_class cls, const struct binfunc *fo,
		       const struct binfunc *fn)
{
	e->cls = cls;
	e->old_fn = fo;
	e->new_fn = fn;
	e->change_pct = NAN;
	if (fo && fn && fo->nr_insns)
		e->change_pct = ((double)fn->nr_insns - fo->nr_insns) * 100.0 / fo->nr_insns;
}

/*
 * The entries, by class and then by (name, cu) of the new function (deleted ones: the
 * old), and both indices by name, from the sides' name orders: no sorting.
 */
static void collect_entries(struct bindiff *d, const struct side *o, const struct side *n)
{
	size_t no = o->bf->nr_funcs, nn = n->bf->nr_funcs, i, k, pos[BINDIFF_NR_CLASSES];
	size_t *of_old = xmallocarray(no ? no : 1, sizeof(*of_old));
	size_t *of_new = xmallocarray(nn ? nn : 1, sizeof(*of_new));

	for (i = 0; i < nn; i++)
		d->count[class_of(o, n, i)]++;
	for (i = 0; i < no; i++)
		d->count[BINDIFF_DELETED] += o->partner[i] < 0;
	for (k = 0, d->nr_entries = 0; k < BINDIFF_NR_CLASSES; k++) {
		pos[k] = d->nr_entries;
		d->nr_entries += d->count[k];
	}
	d->entries = xcalloc(d->nr_entries ? d->nr_entries : 1, sizeof(*d->entries));
	for (k = 0; k < nn; k++) {
		const struct binfunc *fn = n->fn[k];
		size_t j = idx(n, fn);
		long p = n->partner[j];
		enum bindiff_class cls = class_of(o, n, j);
		of_new[j] = pos[cls]++;
		if (p >= 0)
			of_old[p] = of_new[j];
		entry_init(&d->entries[of_new[j]], cls, p >= 0 ? &o->bf->funcs[p] : NULL, fn);
	}
	for (k = 0; k < no; k++) {
		size_t j = idx(o, o->fn[k]);
		if (o->partner[j] >= 0)
			continue;
		of_old[j] = pos[BINDIFF_DELETED]++;
		entry_init(&d->entries[of_old[j]], BINDIFF_DELETED, o->fn[k], NULL);
	}
	d->by_old = xmallocarray(no ? no : 1, sizeof(*d->by_old));
	d->by_new = xmallocarray(nn ? nn : 1, sizeof(*d->by_new));
	for (k = 0; k < no; k++)
		d->by_old[k] = of_old[idx(o, o->fn[k])];
	for (k = 0; k < nn; k++)
		d->by_new[k] = of_new[idx(n, n->fn[k])];
	d->nr_by_old = no;
	d->nr_by_new = nn;
	free(of_old);
	free(of_new);
}

static const struct binfunc *entry_fn(const struct bindiff_entry *e, bool new_side)
{
	return new_side ? e->new_fn : e->old_fn;
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
	if (match_clones(&o, &n))
		rehash_candidates(&o, &n); /* fails only without disassembly: nothing to redo */
	for (round = 0; round < MAX_RENAME_ROUNDS && match_renames(&o, &n); round++)
		if (rehash_candidates(&o, &n))
			break; /* no disassembly: hashes cannot change */
	collect_entries(out, &o, &n);
	side_release(&o);
	side_release(&n);
	find_inlines(out);
	bindiff_explain(out);
	return ret;
}

/* ---- analysing both files: functions hashed in threads, twins decoded once ---- */

/* Threads that hash functions, at most, and functions per task. */
#define MAX_THREADS 8
#define CHUNK 16

/*
 * The functions of both files to hash. Task i < nr_old hashes old function i and then its
 * twin (a new function of the same name and size, or -1), which can reuse its decoding
 * when only address fields differ (disasm_replay()); the other tasks hash the new
 * functions without a twin.
 */
struct hash_job {
	struct binfile *old_file, *new_file;
	long *twin;
	size_t *lone, nr_lone;
	size_t nr_tasks;
	atomic_size_t next;
};

struct hash_worker {
	struct hash_job *job;
	struct bin_disasm *d;
	size_t nr_reused;
	int ret;
};

static void hash_task(struct hash_worker *w, size_t i)
{
	struct hash_job *job = w->job;
	size_t nr_old = job->old_file->nr_funcs;
	struct binfunc *fo, *fn;
	int ret;
	if (i >= nr_old) {
		fn = &job->new_file->funcs[job->lone[i - nr_old]];
		ret = disasm_function_with(w->d, job->new_file, fn, false);
	} else {
		fo = &job->old_file->funcs[i];
		fn = job->twin[i] >= 0 ? &job->new_file->funcs[job->twin[i]] : NULL;
		ret = disasm_function_with(w->d, job->old_file, fo, fn != NULL);
		if (!ret && fn) {
			if (disasm_replay(w->d, job->new_file, fn, job->old_file, fo))
				w->nr_reused++;
			else
				ret = disasm_function_with(w->d, job->new_file, fn, false);
		}
	}
	if (ret && !w->ret)
		w->ret = ret;
}

static void *hash_thread(void *arg)
{
	struct hash_worker *w = arg;
	struct hash_job *job = w->job;
	size_t i, start;
	while ((start = atomic_fetch_add(&job->next, CHUNK)) < job->nr_tasks)
		for (i = start; i < job->nr_tasks && i < start + CHUNK; i++)
			hash_task(w, i);
	return NULL;
}

/*
 * Twins among the functions of one name, by_name[i..b) of the old file and [j..d) of the
 * new: each old one takes the first untaken new one of its size. A huge group (of a
 * hostile file) is paired by position, in linear time.
 */
static void twin_group(struct hash_job *job, size_t i, size_t b, size_t j, size_t d, bool *taken)
{
	const struct binfile *o = job->old_file, *n = job->new_file;
	bool huge = (b - i) * (d - j) > 4096;
	size_t k, l;
	for (k = i; k < b; k++) {
		const struct binfunc *x = &o->funcs[o->by_name[k]];
		size_t from = huge ? j + (k - i) : j, to = huge ? from + 1 : d;
		for (l = from; l < to && l < d; l++) {
			uint32_t y = n->by_name[l];
			if (!taken[y] && x->size == n->funcs[y].size) {
				job->twin[o->by_name[k]] = (long)y;
				taken[y] = true;
				break;
			}
		}
	}
}

/*
 * Twins: functions of the same name and size, one to one (same-named locals in address
 * order), found by merging the files' name orders; none without reuse.
 */
static void find_twins(struct hash_job *job, bool reuse)
{
	const struct binfile *o = job->old_file, *n = job->new_file;
	size_t i = 0, j = 0, k;
	bool *taken = xcalloc(n->nr_funcs ? n->nr_funcs : 1, sizeof(*taken));

	job->twin = xmallocarray(o->nr_funcs ? o->nr_funcs : 1, sizeof(*job->twin));
	for (k = 0; k < o->nr_funcs; k++)
		job->twin[k] = -1;
	while (reuse && i < o->nr_funcs && j < n->nr_funcs) {
		const char *name = o->funcs[o->by_name[i]].name;
		int c = strcmp(name, n->funcs[n->by_name[j]].name);
		size_t b = i + 1, d = j + 1;
		if (c) {
			i += c < 0;
			j += c > 0;
			continue;
		}
		while (b < o->nr_funcs && !strcmp(o->funcs[o->by_name[b]].name, name))
			b++;
		while (d < n->nr_funcs && !strcmp(n->funcs[n->by_name[d]].name, name))
			d++;
		twin_group(job, i, b, j, d, taken);
		i = b;
		j = d;
	}
	job->lone = xmallocarray(n->nr_funcs ? n->nr_funcs : 1, sizeof(*job->lone));
	for (j = 0; j < n->nr_funcs; j++)
		if (!taken[j])
			job->lone[job->nr_lone++] = j;
	free(taken);
}

static size_t nr_threads(size_t nr_tasks)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = (nr_tasks + CHUNK - 1) / CHUNK;
	if (cpus < 1)
		cpus = 1;
	if (n > (size_t)cpus)
		n = (size_t)cpus;
	return n > MAX_THREADS ? MAX_THREADS : n ? n : 1;
}

/* Hashes the functions of both files, in threads; the main thread is one of them. */
static int hash_both(struct binfile *a, struct binfile *b)
{
	struct hash_job job;
	struct hash_worker w[MAX_THREADS];
	pthread_t t[MAX_THREADS];
	size_t i, nr, started = 1;
	int ret = 0;

	memset(&job, 0, sizeof(job));
	job.old_file = a;
	job.new_file = b;
	find_twins(&job, !(a->flags & BINFILE_NO_REUSE));
	job.nr_tasks = a->nr_funcs + job.nr_lone;
	atomic_init(&job.next, 0);
	nr = nr_threads(job.nr_tasks);
	memset(w, 0, sizeof(w));
	w[0].job = &job;
	w[0].d = a->disasm;
	for (i = 1; i < nr; i++, started++) {
		w[i].job = &job;
		if (!(w[i].d = disasm_new(a)) || pthread_create(&t[i], NULL, hash_thread, &w[i])) {
			/* Fewer threads then: the tasks are shared, none is lost. */
			disasm_free(w[i].d);
			break;
		}
	}
	hash_thread(&w[0]);
	for (i = 1; i < started; i++) {
		pthread_join(t[i], NULL);
		disasm_free(w[i].d);
	}
	for (i = 0; i < started; i++) {
		b->nr_reused += w[i].nr_reused;
		if (w[i].ret && !ret)
			ret = w[i].ret;
	}
	free(job.twin);
	free(job.lone);
	return ret;
}

static void *prepare_thread(void *arg)
{
	struct binfile *bf = arg;
	bf->analyze_ret = binfile_prepare(bf);
	return NULL;
}

/* binfile_analyze() of both files: DWARF and imports in parallel, then hash_both(). */
static int analyze_both(struct binfile *a, struct binfile *b)
{
	pthread_t t;
	int ret;
	a->analyzed = b->analyzed = true;
	if (pthread_create(&t, NULL, prepare_thread, a)) {
		a->analyze_ret = binfile_prepare(a);
		ret = binfile_prepare(b);
	} else {
		ret = binfile_prepare(b);
		pthread_join(t, NULL);
	}
	if (a->analyze_ret || ret)
		return a->analyze_ret ? a->analyze_ret : ret;
	if (!a->disasm || !b->disasm)
		return 0; /* BINFILE_NO_DISASM */
	return hash_both(a, b);
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
