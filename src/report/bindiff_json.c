/* The JSON report of a binary diff (schema in docs/bindiff.md). */
#include <jansson.h>
#include <stdio.h>

#include "report/bindiff_report.h"
#include "util/common.h"
#include "util/json_real.h"

/*
 * A JSON string, or null for NULL. Symbol names come from the file and need not be UTF-8:
 * bytes that are not become '?' so that the report is still written.
 */
static json_t *jstr(const char *s)
{
	json_t *j;
	char *copy;
	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	copy = xstrdup(s);
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

static void set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v);
}

static json_t *file_json(const struct binfile *bf)
{
	json_t *o = json_object();
	set(o, "path", jstr(bf->path));
	set(o, "arch", jstr(bf->arch));
	set(o, "type", jstr(binfile_kind_name(bf->kind)));
	set(o, "symbols", jstr(bf->from_dynsym ? "dynsym" : "symtab"));
	set(o, "functions", json_integer((json_int_t)bf->nr_funcs));
	set(o, "dwarf", json_boolean(bf->has_dwarf));
	return o;
}

static json_t *side_json(const struct binfile *bf, const struct binfunc *fn)
{
	json_t *o, *aliases;
	char hash[17];
	uint32_t i;
	if (!fn)
		return json_null();
	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)fn->hash);
	aliases = json_array();
	for (i = 0; i < fn->nr_aliases; i++)
		json_array_append_new(aliases, jstr(bf->aliases[fn->first_alias + i]));
	o = json_object();
	set(o, "name", jstr(fn->name));
	set(o, "cu", jstr(fn->cu));
	set(o, "local", json_boolean(fn->local));
	set(o, "address", json_integer((json_int_t)fn->addr));
	set(o, "size", json_integer((json_int_t)fn->size));
	set(o, "insns", json_integer((json_int_t)fn->nr_insns));
	set(o, "hash", json_string(hash));
	set(o, "file", jstr(fn->src_file));
	set(o, "line", fn->src_line ? json_integer(fn->src_line) : json_null());
	set(o, "aliases", aliases);
	return o;
}

static json_t *entry_json(const struct bindiff *d, const struct bindiff_entry *e)
{
	const struct binfunc *fn = e->new_fn ? e->new_fn : e->old_fn;
	json_t *o = json_object(), *inlines = json_array();
	size_t i;
	for (i = 0; i < e->nr_inlines; i++)
		json_array_append_new(inlines, jstr(e->inlines[i]));
	set(o, "class", jstr(bindiff_class_name(e->cls)));
	set(o, "name", jstr(fn->name));
	set(o, "cu", jstr(fn->cu));
	set(o, "old", side_json(d->old_file, e->old_fn));
	set(o, "new", side_json(d->new_file, e->new_fn));
	set(o, "change_pct", json_real_or_null(e->change_pct));
	set(o, "only",
	    e->why == BINDIFF_WHY_LINE	  ? json_string("line-number")
	    : e->why == BINDIFF_WHY_CLONE ? json_string("clone-suffix")
					  : json_null());
	set(o, "line_shift",
	    e->why == BINDIFF_WHY_LINE && e->line_shift ? json_integer(e->line_shift)
							: json_null());
	set(o, "inlines_modified", inlines);
	return o;
}

int report_bindiff_json(FILE *f, const struct bindiff *d, bool all)
{
	json_t *root = json_object(), *summary = json_object(), *fns = json_array();
	size_t i;
	int ret;
	for (i = 0; i < BINDIFF_NR_CLASSES; i++)
		set(summary, bindiff_class_name((enum bindiff_class)i),
		    json_integer((json_int_t)d->count[i]));
	for (i = 0; i < d->nr_entries; i++)
		if (all || d->entries[i].cls != BINDIFF_UNCHANGED)
			json_array_append_new(fns, entry_json(d, &d->entries[i]));
	set(root, "revperf_version", jstr(REVPERF_VERSION));
	set(root, "schema", jstr("revperf-bindiff/2"));
	set(root, "old", file_json(d->old_file));
	set(root, "new", file_json(d->new_file));
	set(root, "summary", summary);
	/* Of the modified and renamed functions: changed only in a line number, a suffix. */
	set(root, "only",
	    json_pack("{s:I, s:I}", "line_number", (json_int_t)d->nr_line_only, "clone_suffix",
		      (json_int_t)d->nr_clone_only));
	set(root, "identical", json_boolean(bindiff_identical(d)));
	set(root, "exit_code", json_integer(bindiff_identical(d) ? 0 : 1));
	set(root, "functions", fns);
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', f);
	json_decref(root);
	return ret || fflush(f) || ferror(f) ? -1 : 0;
}
