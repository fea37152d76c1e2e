/*
 * Changes of a function that are not changes of its code (bindiff.h, enum bindiff_why):
 * a compiler clone suffix that changed (GCC names the clones it makes after the
 * optimisation that made them, and numbers them: foo.part.0, foo.isra.0, foo.constprop.1),
 * and a line-number constant that moved with the source lines (__LINE__ in a log call or
 * an assert() after lines were added above it). A person reading a binary diff looks for
 * the changes of the code; these are listed apart (docs/bindiff.md).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "binary/binfile_impl.h"
#include "binary/bindiff.h"
#include "util/common.h"

/* The suffixes GCC gives clones and split parts, each followed by ".N" except "cold". */
static const char *const clone_words[] = {
    "part", "isra", "constprop", "cold", "lto_priv", "localalias", "clone", "specialized",
};

/* The length of a clone suffix at s (".isra.0", ".cold"), or 0. */
static size_t clone_suffix(const char *s)
{
	if (*s != '.')
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(clone_words); i++) {
		size_t n = strlen(clone_words[i]), k;
		if (strncmp(s + 1, clone_words[i], n) || (s[1 + n] && s[1 + n] != '.'))
			continue;
		k = 1 + n;
		/* ".N": a number after the word (not after "cold" necessarily) */
		if (s[k] == '.' && isdigit((unsigned char)s[k + 1])) {
			k++;
			while (isdigit((unsigned char)s[k]))
				k++;
		}
		if (!s[k] || s[k] == '.')
			return k;
	}
	return 0;
}

size_t bindiff_clone_base(const char *name)
{
	/* The first '.' from which everything is clone suffixes. */
	for (const char *p = strchr(name, '.'); p; p = strchr(p + 1, '.')) {
		const char *q = p;
		size_t k;
		while ((k = clone_suffix(q)))
			q += k;
		if (!*q && p > name)
			return (size_t)(p - name);
	}
	return strlen(name);
}

static bool same_base(const char *a, const char *b)
{
	size_t la = bindiff_clone_base(a), lb = bindiff_clone_base(b);
	return la == lb && !strncmp(a, b, la);
}

/* How the immediates of a pair moved, against the lines of their instructions. */
struct line_check {
	const struct binfile *old_file, *new_file;
	const struct binfunc *old_fn, *new_fn;
	int shift; /* the common shift so far */
	bool first, mixed;
};

/* Line numbers above this are not taken for line numbers. */
#define MAX_LINE 10000000

static bool accept_line(int64_t old_v, int64_t new_v, uint64_t old_addr, uint64_t new_addr,
			void *arg)
{
	struct line_check *c = arg;
	unsigned lo = dwarf_info_line_at(c->old_file, old_addr);
	unsigned ln = dwarf_info_line_at(c->new_file, new_addr);
	int64_t lines;

	if (old_v < 1 || new_v < 1 || old_v > MAX_LINE || new_v > MAX_LINE)
		return false;
	/* The instruction's own line; without a line table, the function's declaration. */
	if (lo && ln)
		lines = (int64_t)ln - (int64_t)lo;
	else if (c->old_fn->src_line && c->new_fn->src_line)
		lines = (int64_t)c->new_fn->src_line - (int64_t)c->old_fn->src_line;
	else
		return false;
	if (new_v - old_v != lines)
		return false;
	if (c->first)
		c->shift = (int)lines;
	else if (c->shift != (int)lines)
		c->mixed = true;
	c->first = false;
	return true;
}

void bindiff_explain(struct bindiff *d)
{
	d->nr_line_only = d->nr_clone_only = 0;
	for (size_t i = 0; i < d->nr_entries; i++) {
		struct bindiff_entry *e = &d->entries[i];
		e->why = BINDIFF_WHY_CODE;
		e->line_shift = 0;
		if (e->cls == BINDIFF_RENAMED && same_base(e->old_fn->name, e->new_fn->name)) {
			e->why = BINDIFF_WHY_CLONE;
			d->nr_clone_only++;
		} else if (e->cls == BINDIFF_MODIFIED && d->old_file->has_dwarf &&
			   d->new_file->has_dwarf && d->old_file->disasm && d->new_file->disasm) {
			struct line_check c = {.old_file = d->old_file,
					       .new_file = d->new_file,
					       .old_fn = e->old_fn,
					       .new_fn = e->new_fn,
					       .first = true};
			if (disasm_immediates_only(d->old_file, e->old_fn, d->new_file, e->new_fn,
						   accept_line, &c)) {
				e->why = BINDIFF_WHY_LINE;
				e->line_shift = c.mixed ? 0 : c.shift;
				d->nr_line_only++;
			}
		}
	}
}
