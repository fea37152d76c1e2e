#ifndef REVPERF_UTIL_ALLOC_H
#define REVPERF_UTIL_ALLOC_H

#include <stddef.h>

/*
 * The one allocation front door. Each returns memory the caller frees with free();
 * on out-of-memory it prints one line and aborts (there is no sensible recovery).
 */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Allocates nmemb * size bytes, aborting if the product overflows. */
void *xmallocarray(size_t nmemb, size_t size);

/* Next capacity for a growable array: at least `need`, growing by 3/2; aborts on overflow. */
size_t alloc_nr(size_t current, size_t need);

/*
 * Grow the array `x` (element type from *x) so that it holds at least `nr` elements;
 * `alloc` is its capacity variable and is updated. Overflow-checked.
 */
#define ALLOC_GROW(x, nr, alloc)                                                        \
	do {                                                                            \
		if ((size_t)(nr) > (size_t)(alloc)) {                                   \
			(alloc) = alloc_nr((alloc), (nr));                              \
			(x) = xrealloc((x), xmallocarray_size((alloc), sizeof(*(x))));  \
		}                                                                       \
	} while (0)

/* nmemb * size, aborting on overflow. */
size_t xmallocarray_size(size_t nmemb, size_t size);

#endif
