/*
 * The I/O tracer's tables: interned strings (module paths and file names, so that keys
 * compare by pointer), the aggregation of calls per (direction, call, file, stack), and
 * the result that holds them.
 * Both are open-addressing hash tables with linear probing, grown at half load.
 */
#include "collect/iotrace_impl.h"

#include <string.h>

#include "util/common.h"

#define MIN_SLOTS 64

struct iotrace_strings {
	char **slots;
	uint64_t *hashes;
	size_t nr, nr_slots;
};

/* FNV-1a, then a final mix so that the low bits (the slot) depend on every byte. */
static uint64_t hash_bytes(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

static uint64_t hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return h;
}

#define HASH_SEED UINT64_C(0xcbf29ce484222325)

struct iotrace_strings *iotrace_strings_new(void)
{
	struct iotrace_strings *s = xcalloc(1, sizeof(*s));

	s->nr_slots = MIN_SLOTS;
	s->slots = xcalloc(s->nr_slots, sizeof(*s->slots));
	s->hashes = xcalloc(s->nr_slots, sizeof(*s->hashes));
	return s;
}

void iotrace_strings_free(struct iotrace_strings *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_slots; i++)
		free(s->slots[i]);
	free(s->slots);
	free(s->hashes);
	free(s);
}

static void strings_grow(struct iotrace_strings *s)
{
	size_t n = s->nr_slots * 2;
	char **slots = xcalloc(n, sizeof(*slots));
	uint64_t *hashes = xcalloc(n, sizeof(*hashes));

	for (size_t i = 0; i < s->nr_slots; i++) {
		size_t j;

		if (!s->slots[i])
			continue;
		for (j = s->hashes[i] & (n - 1); slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = s->slots[i];
		hashes[j] = s->hashes[i];
	}
	free(s->slots);
	free(s->hashes);
	s->slots = slots;
	s->hashes = hashes;
	s->nr_slots = n;
}

const char *iotrace_strings_intern(struct iotrace_strings *s, const char *str, size_t len)
{
	uint64_t h = hash_mix(hash_bytes(HASH_SEED, str, len));
	size_t i;
	char *copy;

	for (i = h & (s->nr_slots - 1); s->slots[i]; i = (i + 1) & (s->nr_slots - 1))
		if (s->hashes[i] == h && !strncmp(s->slots[i], str, len) && !s->slots[i][len])
			return s->slots[i];
	copy = xstrndup(str, len);
	s->slots[i] = copy;
	s->hashes[i] = h;
	if (++s->nr * 2 > s->nr_slots)
		strings_grow(s);
	return copy;
}

/* ---- aggregation ---- */

void iotrace_table_init(struct iotrace_table *t)
{
	memset(t, 0, sizeof(*t));
}

void iotrace_table_release(struct iotrace_table *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->entries[i].frames);
	free(t->entries);
	free(t->hashes);
	free(t->slots);
	iotrace_table_init(t);
}

static uint64_t key_hash(const struct iotrace_key *k)
{
	uintptr_t head[4] = {(uintptr_t)k->dir, (uintptr_t)k->syscall, (uintptr_t)k->file,
			     (uintptr_t)k->truncated};
	uint64_t h = hash_bytes(HASH_SEED, head, sizeof(head));

	/* Modules are interned: their pointers stand for them. */
	for (size_t i = 0; i < k->nr_frames; i++) {
		uintptr_t m = (uintptr_t)k->frames[i].module;

		h = hash_bytes(h, &m, sizeof(m));
		h = hash_bytes(h, &k->frames[i].file_vaddr, sizeof(k->frames[i].file_vaddr));
	}
	return hash_mix(h);
}

static bool key_equal(const struct iotrace_entry *e, const struct iotrace_key *k)
{
	if (e->dir != k->dir || e->syscall != k->syscall || e->file != k->file ||
	    e->nr_frames != k->nr_frames || e->truncated != k->truncated)
		return false;
	for (size_t i = 0; i < k->nr_frames; i++)
		if (e->frames[i].module != k->frames[i].module ||
		    e->frames[i].file_vaddr != k->frames[i].file_vaddr)
			return false;
	return true;
}

static void table_rehash(struct iotrace_table *t, size_t nr_slots)
{
	free(t->slots);
	t->slots = xcalloc(nr_slots, sizeof(*t->slots));
	t->nr_slots = nr_slots;
	for (size_t e = 0; e < t->nr; e++) {
		size_t i;

		for (i = t->hashes[e] & (nr_slots - 1); t->slots[i]; i = (i + 1) & (nr_slots - 1))
			;
		t->slots[i] = (uint32_t)(e + 1);
	}
}

size_t iotrace_table_get(struct iotrace_table *t, const struct iotrace_key *key)
{
	uint64_t h = key_hash(key);
	struct iotrace_entry *e;
	size_t i;

	if (!t->nr_slots)
		table_rehash(t, MIN_SLOTS);
	for (i = h & (t->nr_slots - 1); t->slots[i]; i = (i + 1) & (t->nr_slots - 1)) {
		size_t idx = t->slots[i] - 1;

		if (t->hashes[idx] == h && key_equal(&t->entries[idx], key))
			return idx;
	}
	if (t->nr >= UINT32_MAX - 1)
		return t->nr - 1; /* 4 billion stacks: the rest is folded into the last one */
	ALLOC_GROW(t->entries, t->nr + 1, t->alloc);
	ALLOC_GROW(t->hashes, t->nr + 1, t->alloc_hashes);
	e = &t->entries[t->nr];
	memset(e, 0, sizeof(*e));
	e->dir = key->dir;
	e->syscall = key->syscall;
	e->file = key->file;
	e->truncated = key->truncated;
	e->nr_frames = key->nr_frames;
	if (key->nr_frames) {
		e->frames = xmallocarray(key->nr_frames, sizeof(*e->frames));
		memcpy(e->frames, key->frames, key->nr_frames * sizeof(*e->frames));
	}
	t->hashes[t->nr] = h;
	t->slots[i] = (uint32_t)(t->nr + 1);
	t->nr++;
	if (t->nr * 2 > t->nr_slots)
		table_rehash(t, t->nr_slots * 2);
	return t->nr - 1;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct iotrace_entry *x = a, *y = b;
	int d;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	d = strcmp(x->file, y->file);
	if (d)
		return d;
	d = strcmp(x->syscall, y->syscall);
	if (d)
		return d;
	for (size_t i = 0; i < x->nr_frames && i < y->nr_frames; i++) {
		d = strcmp(x->frames[i].module, y->frames[i].module);
		if (d)
			return d;
		if (x->frames[i].file_vaddr != y->frames[i].file_vaddr)
			return x->frames[i].file_vaddr < y->frames[i].file_vaddr ? -1 : 1;
	}
	return x->nr_frames < y->nr_frames ? -1 : x->nr_frames > y->nr_frames;
}

void iotrace_table_take(struct iotrace_table *t, struct iotrace_entry **entries, size_t *nr)
{
	if (t->nr > 1)
		qsort(t->entries, t->nr, sizeof(*t->entries), entry_cmp);
	*entries = t->entries;
	*nr = t->nr;
	t->entries = NULL;
	t->nr = 0;
	iotrace_table_release(t);
}

/* ---- results (collect/iotrace.h) ---- */

void iotrace_result_release(struct iotrace_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->nr_entries; i++)
		free(res->entries[i].frames);
	free(res->entries);
	for (size_t i = 0; i < res->nr_procs; i++)
		free(res->procs[i].exe);
	free(res->procs);
	iotrace_strings_free(res->strings);
	memset(res, 0, sizeof(*res));
}

uint64_t iotrace_total_bytes(const struct iotrace_result *res, enum iotrace_dir dir)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < res->nr_entries; i++)
		if (res->entries[i].dir == dir)
			sum += res->entries[i].bytes;
	return sum;
}
