#ifndef REVPERF_UTIL_STRMAP_H
#define REVPERF_UTIL_STRMAP_H

/*
 * A map from strings to numbers (an index into the caller's array, a line number), with
 * lookups in constant expected time: readers of untrusted files use it where a list of
 * names searched one by one would make the read quadratic in the number of names.
 * Keys are copied. Not thread-safe; initialise with STRMAP_INIT or strmap_init(), free
 * with strmap_release().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strmap_entry {
	char *key; /* owned; NULL: an empty slot */
	uint64_t hash;
	size_t value;
};

struct strmap {
	struct strmap_entry *slots;
	size_t cap; /* a power of two, or 0 */
	size_t nr;
};

#define STRMAP_INIT {NULL, 0, 0}

void strmap_init(struct strmap *m);
/* Frees the keys and the table and leaves m empty; accepts an empty map. */
void strmap_release(struct strmap *m);
/* The value of key, or NULL when absent; valid until the next strmap_put(). */
size_t *strmap_get(const struct strmap *m, const char *key);
/*
 * Adds key with value when absent and returns a pointer to the value stored for key (the
 * new one, or the one already there: *added says which, may be NULL). The pointer is
 * valid until the next strmap_put().
 */
size_t *strmap_put(struct strmap *m, const char *key, size_t value, bool *added);

#endif
