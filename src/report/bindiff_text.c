/* The text report of a binary diff: a summary, then a table of the functions that differ. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/bindiff_report.h"
#include "util/common.h"

/* Names wider than this make their row longer rather than every row. */
#define MAX_NAME_COLUMN 48

static void file_line(FILE *f, const char *label, const struct binfile *bf)
{
	fprintf_printable(f, "%s %s (%s %s, %zu function%s%s)\n", label, bf->path, bf->arch,
			  binfile_kind_name(bf->kind), bf->nr_funcs, bf->nr_funcs == 1 ? "" : "s",
			  bf->from_dynsym ? ", exported only: stripped" : "");
}

/* "name", or "name (unit.c)" for a local whose name another function shares. */
static void add_name(struct strbuf *sb, const struct binfunc *fn)
{
	strbuf_addstr(sb, fn->name);
	if (fn->dup_name && fn->cu)
		strbuf_addf(sb, " (%s)", fn->cu);
}

static void entry_name(struct strbuf *sb, const struct bindiff_entry *e)
{
	if (e->old_fn && e->new_fn && strcmp(e->old_fn->name, e->new_fn->name)) {
		add_name(sb, e->old_fn);
		strbuf_addstr(sb, " -> ");
	}
	add_name(sb, e->new_fn ? e->new_fn : e->old_fn);
}

static void count_cell(FILE *f, const struct binfunc *fn)
{
	if (fn)
		fprintf(f, "  %9u", (unsigned)fn->nr_insns);
	else
		fprintf(f, "  %9s", "-");
}

/* The first column: the class, or what the only change was ("line +2", "clone"). */
static void class_cell(char *buf, size_t size, const struct bindiff_entry *e)
{
	if (e->why == BINDIFF_WHY_LINE && e->line_shift)
		snprintf(buf, size, "line %+d", e->line_shift);
	else if (e->why == BINDIFF_WHY_LINE)
		snprintf(buf, size, "lines");
	else if (e->why == BINDIFF_WHY_CLONE)
		snprintf(buf, size, "clone");
	else
		snprintf(buf, size, "%s", bindiff_class_name(e->cls));
}

static void row(FILE *f, const struct bindiff_entry *e, int width)
{
	struct strbuf sb = STRBUF_INIT;
	const struct binfunc *src = e->new_fn ? e->new_fn : e->old_fn;
	char cls[32];
	entry_name(&sb, e);
	class_cell(cls, sizeof(cls), e);
	fprintf_printable(f, "%-9s  %-*s", cls, width, sb.buf);
	count_cell(f, e->old_fn);
	count_cell(f, e->new_fn);
	if (isnan(e->change_pct))
		fprintf(f, "  %8s", "-");
	else
		fprintf(f, "  %+7.1f%%", e->change_pct);
	if (src->src_file)
		fprintf_printable(f, "  %s:%u", src->src_file, src->src_line);
	for (size_t i = 0; i < e->nr_inlines; i++)
		fprintf_printable(f, "%s%s", i ? ", " : "  (inlines modified ", e->inlines[i]);
	if (e->nr_inlines)
		fputc(')', f);
	fputc('\n', f);
	strbuf_release(&sb);
}

/* "2 modified (1 only a line number)": a count and how many of it are not code. */
static void count_text(struct strbuf *sb, size_t n, const char *what, size_t only, const char *why)
{
	strbuf_addf(sb, "%s%zu %s", sb->len ? ", " : "", n, what);
	if (only)
		strbuf_addf(sb, " (%zu only %s)", only, why);
}

int report_bindiff_text(FILE *f, const struct bindiff *d, bool all)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, shown = 0, trivial = 0;
	int width = 8;
	file_line(f, "old:", d->old_file);
	file_line(f, "new:", d->new_file);
	count_text(&sb, d->count[BINDIFF_MODIFIED], "modified", d->nr_line_only,
		   "a line-number constant");
	count_text(&sb, d->count[BINDIFF_RENAMED], "renamed", d->nr_clone_only, "a clone suffix");
	count_text(&sb, d->count[BINDIFF_ADDED], "added", 0, NULL);
	count_text(&sb, d->count[BINDIFF_DELETED], "deleted", 0, NULL);
	count_text(&sb, d->count[BINDIFF_UNCHANGED], "unchanged", 0, NULL);
	fprintf_printable(f, "%s\n", sb.buf);
	strbuf_release(&sb);
	for (i = 0; i < d->nr_entries; i++) {
		if (!all && d->entries[i].cls == BINDIFF_UNCHANGED)
			continue;
		entry_name(&sb, &d->entries[i]);
		if ((int)sb.len > width)
			width = sb.len > MAX_NAME_COLUMN ? MAX_NAME_COLUMN : (int)sb.len;
		strbuf_reset(&sb);
		if (d->entries[i].why)
			trivial++;
		else
			shown++;
	}
	strbuf_release(&sb);
	if (bindiff_identical(d))
		fprintf(f, "identical: no function added, deleted, modified or renamed\n");
	if (shown) {
		fprintf_printable(f, "\n%-9s  %-*s  %9s  %9s  %8s  %s\n", "class", width,
				  "function", "insns old", "insns new", "change", "source");
		for (i = 0; i < d->nr_entries; i++)
			if ((all || d->entries[i].cls != BINDIFF_UNCHANGED) && !d->entries[i].why)
				row(f, &d->entries[i], width);
	}
	/* Apart: what the preprocessor or the compiler changed, not the code. */
	if (trivial) {
		fprintf(f,
			"\nNot changes of the code: only a line-number constant that moved with "
			"the source lines (line +N),\nor only the compiler's clone suffix (clone):"
			"\n%-9s  %-*s  %9s  %9s  %8s  %s\n",
			"why", width, "function", "insns old", "insns new", "change", "source");
		for (i = 0; i < d->nr_entries; i++)
			if (d->entries[i].why)
				row(f, &d->entries[i], width);
	}
	return fflush(f) || ferror(f) ? -1 : 0;
}
