#include "util/strmap.h"

#include <string.h>

#include "util/common.h"

/* FNV-1a, 64 bits. */
static uint64_t hash_key(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

void strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof(*m));
}

void strmap_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	strmap_init(m);
}

/* The slot of key: where it is, or the empty one where it would go. */
static struct strmap_entry *find_slot(const struct strmap *m, const char *key, uint64_t h)
{
	size_t mask = m->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		struct strmap_entry *e = &m->slots[i];
		if (!e->key || (e->hash == h && !strcmp(e->key, key)))
			return e;
	}
}

size_t *strmap_get(const struct strmap *m, const char *key)
{
	if (!m->nr)
		return NULL;
	struct strmap_entry *e = find_slot(m, key, hash_key(key));
	return e->key ? &e->value : NULL;
}

/* Doubles the table (at most half full, so that probes stay short). */
static void grow(struct strmap *m)
{
	struct strmap old = *m;
	m->cap = old.cap ? old.cap * 2 : 16;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find_slot(m, old.slots[i].key, old.slots[i].hash) = old.slots[i];
	free(old.slots);
}

size_t *strmap_put(struct strmap *m, const char *key, size_t value, bool *added)
{
	uint64_t h = hash_key(key);
	struct strmap_entry *e;

	if (2 * (m->nr + 1) > m->cap)
		grow(m);
	e = find_slot(m, key, h);
	if (added)
		*added = !e->key;
	if (!e->key) {
		e->key = xstrdup(key);
		e->hash = h;
		e->value = value;
		m->nr++;
	}
	return &e->value;
}
