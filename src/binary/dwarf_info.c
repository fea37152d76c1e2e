/*
 * DWARF (libdw) for the binary diff: the declaration file:line of each function, the
 * compilation unit of locals that have no file symbol, and the functions inlined into a
 * function. DWARF is optional: without it (or when it is unreadable) these stay unknown.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <string.h>
#include <unistd.h>

#include "binary/binfile_impl.h"
#include "binary/dwfl_nodebug.h"
#include "util/common.h"

/* Nesting deeper than this (corrupt or adversarial DWARF) is not followed. */
#define MAX_DEPTH 64

struct bin_dwarf {
	Dwarf *dw;
	Dwfl *dwfl;		  /* object files: owns dw, relocated by libdwfl */
	char *image;		  /* in-memory object files: libdwfl's copy, which it relocates */
	struct binfunc **by_name; /* object files: DIEs are matched to functions by name */
	size_t nr_by_name;
};

static int cmp_func_name(const void *a, const void *b)
{
	const struct binfunc *const *x = a, *const *y = b;
	return strcmp((*x)->name, (*y)->name);
}

static struct binfunc *func_by_name(const struct bin_dwarf *d, const char *name)
{
	size_t lo = 0, hi = d->nr_by_name;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(d->by_name[mid]->name, name);
		if (!c)
			return d->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void describe(struct binfunc *f, Dwarf_Die *die, const char *cu_name)
{
	int line = 0;
	if (f->die)
		return; /* the first DIE found for an address wins */
	f->die = dwarf_dieoffset(die);
	f->src_file = dwarf_decl_file(die);
	if (!dwarf_decl_line(die, &line) && line > 0)
		f->src_line = (unsigned)line;
	if (f->local && !f->cu)
		f->cu = cu_name;
}

/* A subprogram with code: tie it to the functions at the starts of its ranges. */
static void visit_subprogram(struct binfile *bf, Dwarf_Die *die, const char *cu_name)
{
	struct bin_dwarf *d = bf->dwarf;
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	int guard = 0;

	if (d->by_name) {
		Dwarf_Attribute attr;
		const char *name =
		    dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
		struct binfunc *f;
		if (!name)
			name = dwarf_diename(die);
		if (name &&
		    (dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges)) &&
		    (f = func_by_name(d, name)))
			describe(f, die, cu_name);
		return;
	}
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0 && guard++ < 1024) {
		struct binfunc *f = binfile_func_at(bf, start);
		if (f && f->addr == start)
			describe(f, die, cu_name);
	}
}

static void visit_children(struct binfile *bf, Dwarf_Die *parent, const char *cu_name, int depth)
{
	Dwarf_Die child;
	if (depth > MAX_DEPTH || dwarf_child(parent, &child))
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram: visit_subprogram(bf, &child, cu_name); break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type: visit_children(bf, &child, cu_name, depth + 1); break;
		default: break;
		}
	} while (!dwarf_siblingof(&child, &child));
}

static void index_by_name(struct binfile *bf)
{
	struct bin_dwarf *d = bf->dwarf;
	size_t i;
	d->by_name = xmallocarray(bf->nr_funcs ? bf->nr_funcs : 1, sizeof(*d->by_name));
	for (i = 0; i < bf->nr_funcs; i++)
		d->by_name[i] = &bf->funcs[i];
	d->nr_by_name = bf->nr_funcs;
	bin_sort(d->by_name, d->nr_by_name, sizeof(*d->by_name), cmp_func_name);
}

static const Dwfl_Callbacks offline_callbacks = {
    .find_debuginfo = dwfl_no_debuginfo, /* DWARF in the files only */
    .section_address = dwfl_offline_section_address,
};

/*
 * The DWARF of an object file refers to its strings and code through relocations, which
 * libdw alone does not apply: libdwfl does, on its own copy of the file.
 */
static Dwarf *open_relocated(struct binfile *bf, Dwfl **out, char **image)
{
	Dwfl *dwfl;
	Dwfl_Module *mod = NULL;
	Dwarf_Addr bias;
	Dwarf *dw;
	int fd;
	*out = NULL;
	*image = NULL;
	if (!(dwfl = dwfl_begin(&offline_callbacks)))
		return NULL;
	if (bf->image) {
		*image = xmalloc(bf->image_size);
		memcpy(*image, bf->image, bf->image_size);
		mod = dwfl_report_offline_memory(dwfl, bf->path, bf->path, *image, bf->image_size);
	} else if ((fd = dup(bf->fd)) >= 0) {
		/* dwfl_report_offline() takes the descriptor. */
		mod = dwfl_report_offline(dwfl, bf->path, bf->path, fd);
	}
	if (!mod || dwfl_report_end(dwfl, NULL, NULL) || !(dw = dwfl_module_getdwarf(mod, &bias))) {
		dwfl_end(dwfl);
		free(*image);
		*image = NULL;
		return NULL;
	}
	*out = dwfl;
	return dw;
}

int dwarf_info_read(struct binfile *bf)
{
	Dwfl *dwfl = NULL;
	char *image = NULL;
	Dwarf *dw = bf->kind == BINFILE_OBJECT ? open_relocated(bf, &dwfl, &image)
					       : dwarf_begin_elf(bf->elf, DWARF_C_READ, NULL);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;

	if (!dw)
		return 0;
	bf->dwarf = xcalloc(1, sizeof(*bf->dwarf));
	bf->dwarf->dw = dw;
	bf->dwarf->dwfl = dwfl;
	bf->dwarf->image = image;
	bf->has_dwarf = true;
	/* Object files: every function's DIE says address 0 in its own section. */
	if (bf->kind == BINFILE_OBJECT)
		index_by_name(bf);
	while (dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, &subdie) == 0) {
		const char *cu_name = dwarf_diename(&cudie);
		if (unit_type == DW_UT_skeleton)
			continue;
		visit_children(bf, &cudie, cu_name, 0);
	}
	free(bf->dwarf->by_name);
	bf->dwarf->by_name = NULL;
	return 0;
}

struct inline_walk {
	void (*fn)(const char *name, void *data);
	void *data;
	const char *seen[256];
	size_t nr_seen;
};

static void report_inlined(struct inline_walk *w, const char *name)
{
	size_t i;
	for (i = 0; i < w->nr_seen; i++)
		if (!strcmp(w->seen[i], name))
			return;
	if (w->nr_seen < ARRAY_SIZE(w->seen))
		w->seen[w->nr_seen++] = name;
	w->fn(name, w->data);
}

static void walk_inlined(struct inline_walk *w, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;
	if (depth > MAX_DEPTH || dwarf_child(parent, &child))
		return;
	do {
		if (dwarf_tag(&child) == DW_TAG_inlined_subroutine) {
			const char *name = dwarf_diename(&child);
			if (name)
				report_inlined(w, name);
		}
		walk_inlined(w, &child, depth + 1);
	} while (!dwarf_siblingof(&child, &child));
}

int dwarf_info_inlined(const struct binfile *bf, const struct binfunc *f,
		       void (*fn)(const char *name, void *data), void *data)
{
	struct inline_walk *w;
	Dwarf_Die die;
	if (!bf->dwarf || !f->die)
		return 0;
	if (!dwarf_offdie(bf->dwarf->dw, f->die, &die))
		return -1;
	w = xcalloc(1, sizeof(*w));
	w->fn = fn;
	w->data = data;
	walk_inlined(w, &die, 0);
	free(w);
	return 0;
}

unsigned dwarf_info_line_at(const struct binfile *bf, uint64_t addr)
{
	Dwarf_Die cudie;
	Dwarf_Line *line;
	int lineno = 0;
	/* Object files: the DWARF's addresses are not the synthetic layout's. */
	if (!bf->dwarf || bf->kind == BINFILE_OBJECT || !dwarf_addrdie(bf->dwarf->dw, addr, &cudie))
		return 0;
	if (!(line = dwarf_getsrc_die(&cudie, addr)) || dwarf_lineno(line, &lineno) || lineno < 0)
		return 0;
	return (unsigned)lineno;
}

void dwarf_info_close(struct binfile *bf)
{
	if (!bf->dwarf)
		return;
	if (bf->dwarf->dwfl)
		dwfl_end(bf->dwarf->dwfl);
	else
		dwarf_end(bf->dwarf->dw);
	free(bf->dwarf->image);
	free(bf->dwarf->by_name);
	free(bf->dwarf);
	bf->dwarf = NULL;
}
