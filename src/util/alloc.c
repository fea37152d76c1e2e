#include "util/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t size)
{
	fprintf(stderr, "revperf: fatal: out of memory allocating %zu bytes\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

size_t xmallocarray_size(size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size) {
		fprintf(stderr, "revperf: fatal: array size overflow (%zu x %zu)\n", nmemb, size);
		abort();
	}
	return nmemb * size;
}

void *xmallocarray(size_t nmemb, size_t size)
{
	return xmalloc(xmallocarray_size(nmemb, size));
}

size_t alloc_nr(size_t current, size_t need)
{
	size_t next;
	if (current > (SIZE_MAX - 16) / 3 * 2) {
		fprintf(stderr, "revperf: fatal: array capacity overflow\n");
		abort();
	}
	next = (current + 16) * 3 / 2;
	return next < need ? need : next;
}
