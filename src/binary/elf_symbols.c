/*
 * Symbols of a binfile: functions (aliases folded, locals tied to their compilation unit),
 * data symbols, the names behind PLT entries and GOT slots, and the relocations of an
 * object file's code. All of it is untrusted input: indices and ranges are checked.
 */
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>

#include "binary/binfile_impl.h"
#include "util/common.h"

/* A function symbol before aliases are folded. */
struct fsym {
	const char *name;
	const char *file;
	uint64_t addr, size;
	uint32_t section;
	int rank; /* 0 global, 1 weak, 2 local: the canonical name is the lowest */
};

struct symtab {
	Elf_Data *data, *xndx;
	size_t nr, strndx, index;
};

static int symtab_open(struct binfile *bf, size_t index, struct symtab *st)
{
	const struct bin_section *s = &bf->sections[index];
	size_t i;
	memset(st, 0, sizeof(*st));
	st->index = index;
	st->data = elf_getdata(s->scn, NULL);
	if (!st->data || s->link >= bf->nr_sections || bf->sections[s->link].type != SHT_STRTAB)
		return error("%s: corrupt ELF symbol table %s", bf->path, s->name);
	st->strndx = s->link;
	st->nr = st->data->d_size / sizeof(Elf64_Sym);
	if (st->nr > BINFILE_MAX_SYMBOLS)
		return error("%s: corrupt ELF: %zu symbols in %s", bf->path, st->nr, s->name);
	for (i = 1; i < bf->nr_sections; i++)
		if (bf->sections[i].type == SHT_SYMTAB_SHNDX && bf->sections[i].link == index)
			st->xndx = elf_getdata(bf->sections[i].scn, NULL);
	return 0;
}

/* Symbol i; its section index in *shndx (0 when undefined or special). */
static bool symtab_get(const struct binfile *bf, const struct symtab *st, size_t i, GElf_Sym *sym,
		       const char **name, uint32_t *shndx)
{
	Elf32_Word x = 0;
	if (!gelf_getsymshndx(st->data, st->xndx, (int)i, sym, &x))
		return false;
	*name = elf_strptr(bf->elf, st->strndx, sym->st_name);
	if (!*name)
		*name = "";
	if (sym->st_shndx == SHN_XINDEX)
		*shndx = x;
	else if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		*shndx = 0;
	else
		*shndx = sym->st_shndx;
	if (*shndx >= bf->nr_sections)
		*shndx = 0;
	return true;
}

/* The address of a symbol defined in section shndx (object files: synthetic layout). */
static uint64_t sym_addr(const struct binfile *bf, const GElf_Sym *sym, uint32_t shndx)
{
	if (bf->kind == BINFILE_OBJECT)
		return bf->sections[shndx].addr + sym->st_value;
	return sym->st_value;
}

/* Does [addr, addr + size) lie inside section s? */
static bool in_section(const struct bin_section *s, uint64_t addr, uint64_t size)
{
	return addr >= s->addr && size <= s->size && addr - s->addr <= s->size - size;
}

/* "counter.3" -> hash of "counter.": GCC numbers function-local statics per file. */
static uint64_t object_name_hash(const char *name, bool local)
{
	size_t len = strlen(name), n = len;
	if (local) {
		while (n && name[n - 1] >= '0' && name[n - 1] <= '9')
			n--;
		if (n == len || !n || name[n - 1] != '.')
			n = len;
	}
	return binhash_bytes(name, n);
}

static int leading_underscores(const char *s)
{
	int n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* Order of alias candidates: address, then the preferred name first. */
static int cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;
	int ux, uy;
	size_t lx, ly;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	ux = leading_underscores(x->name);
	uy = leading_underscores(y->name);
	if (ux != uy)
		return ux - uy;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_object(const void *a, const void *b)
{
	const struct bin_object *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/*
 * Sorting by a 64-bit key first: most comparisons are of two integers in a small array,
 * and only ties look at the elements (keys are an order-preserving prefix of the order).
 */
struct sort_key {
	uint64_t key;
	uint32_t idx;
};

/* The first 8 bytes of s, big-endian: ordered as strcmp() orders the strings. */
static uint64_t name_prefix(const char *s)
{
	uint64_t k = 0;
	for (int i = 0; i < 8 && s[i]; i++)
		k |= (uint64_t)(unsigned char)s[i] << (56 - 8 * i);
	return k;
}

static int cmp_key_fsym(const void *a, const void *b, void *arg)
{
	const struct sort_key *x = a, *y = b;
	const struct fsym *c = arg;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return cmp_fsym(&c[x->idx], &c[y->idx]);
}

static int cmp_key_name(const void *a, const void *b, void *arg)
{
	const struct sort_key *x = a, *y = b;
	const struct binfunc *f = arg, *fx = &f[x->idx], *fy = &f[y->idx];
	int c;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	c = strcmp(fx->name, fy->name);
	return c ? c : fx->addr < fy->addr ? -1 : fx->addr > fy->addr;
}

/*
 * Sorts k by key (a radix sort: linear in nr), then each run of equal keys by cmp, which
 * must order by key first.
 */
static void sort_keys(struct sort_key *k, size_t nr, int (*cmp)(const void *, const void *, void *),
		      void *arg)
{
	struct sort_key *tmp = xmallocarray(nr ? nr : 1, sizeof(*tmp)), *from = k, *to = tmp, *t;
	size_t count[256], i, j;
	unsigned shift;

	for (shift = 0; shift < 64; shift += 8) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < nr; i++)
			count[(from[i].key >> shift) & 0xff]++;
		if (nr && count[(from[0].key >> shift) & 0xff] == nr)
			continue; /* one digit for all: nothing to move */
		for (i = 0, j = 0; i < 256; i++) {
			size_t c = count[i];
			count[i] = j;
			j += c;
		}
		for (i = 0; i < nr; i++)
			to[count[(from[i].key >> shift) & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	if (from != k)
		memcpy(k, from, nr * sizeof(*k));
	free(tmp);
	for (i = 0; i < nr; i = j) {
		for (j = i + 1; j < nr && k[j].key == k[i].key; j++)
			;
		bin_sort_r(k + i, j - i, sizeof(*k), cmp, arg);
	}
}

/* Candidates by cmp_fsym(), into a new array (the old one is freed). */
static struct fsym *sort_candidates(struct fsym *c, size_t nr)
{
	struct sort_key *k = xmallocarray(nr ? nr : 1, sizeof(*k));
	struct fsym *out = xmallocarray(nr ? nr : 1, sizeof(*out));
	size_t i;
	for (i = 0; i < nr; i++) {
		k[i].key = c[i].addr;
		k[i].idx = (uint32_t)i;
	}
	sort_keys(k, nr, cmp_key_fsym, c);
	for (i = 0; i < nr; i++)
		out[i] = c[k[i].idx];
	free(k);
	free(c);
	return out;
}

/* Folds candidates at the same address into one function each, with aliases. */
static void fold_aliases(struct binfile *bf, struct fsym *c, size_t nr)
{
	size_t i = 0, alloc_aliases = 0;
	bf->funcs = xcalloc(nr ? nr : 1, sizeof(*bf->funcs));
	while (i < nr) {
		struct binfunc *f = &bf->funcs[bf->nr_funcs++];
		size_t j = i + 1;
		const struct bin_section *s = &bf->sections[c[i].section];
		f->name = c[i].name;
		f->cu = c[i].rank == 2 ? c[i].file : NULL;
		f->local = c[i].rank == 2;
		f->addr = c[i].addr;
		f->size = c[i].size;
		f->section = c[i].section;
		f->first_alias = (uint32_t)bf->nr_aliases;
		for (; j < nr && c[j].addr == c[i].addr; j++) {
			size_t k;
			bool seen = !strcmp(c[j].name, f->name);
			for (k = f->first_alias; !seen && k < bf->nr_aliases; k++)
				seen = !strcmp(bf->aliases[k], c[j].name);
			if (c[j].size > f->size && in_section(s, f->addr, c[j].size))
				f->size = c[j].size;
			if (seen)
				continue;
			ALLOC_GROW(bf->aliases, bf->nr_aliases + 1, alloc_aliases);
			bf->aliases[bf->nr_aliases++] = c[j].name;
			f->nr_aliases++;
		}
		f->name_hash = binhash_str(f->name);
		f->ref_hash = f->name_hash;
		i = j;
	}
}

/*
 * Sorts the functions by name (bf->by_name, which matching and lookups by name use), and
 * marks those whose name another function of the file shares (locals of two CUs).
 */
static void sort_by_name(struct binfile *bf)
{
	struct binfunc *f = bf->funcs;
	struct sort_key *k = xmallocarray(bf->nr_funcs ? bf->nr_funcs : 1, sizeof(*k));
	uint32_t *v;
	size_t i;
	for (i = 0; i < bf->nr_funcs; i++) {
		k[i].key = name_prefix(f[i].name);
		k[i].idx = (uint32_t)i;
	}
	sort_keys(k, bf->nr_funcs, cmp_key_name, f);
	v = bf->by_name = xmallocarray(bf->nr_funcs ? bf->nr_funcs : 1, sizeof(*bf->by_name));
	for (i = 0; i < bf->nr_funcs; i++)
		v[i] = k[i].idx;
	free(k);
	for (i = 1; i < bf->nr_funcs; i++)
		if (f[v[i - 1]].name_hash == f[v[i]].name_hash &&
		    !strcmp(f[v[i - 1]].name, f[v[i]].name))
			f[v[i - 1]].dup_name = f[v[i]].dup_name = true;
}

/* Chooses .symtab, or .dynsym with a warning; returns its section index or 0. */
static size_t choose_symtab(struct binfile *bf)
{
	size_t i, dynsym = 0;
	for (i = 1; i < bf->nr_sections; i++) {
		if (bf->sections[i].type == SHT_SYMTAB)
			return i;
		if (bf->sections[i].type == SHT_DYNSYM && !dynsym)
			dynsym = i;
	}
	if (dynsym) {
		bf->from_dynsym = true;
		if (!(bf->flags & BINFILE_QUIET))
			warning("%s has no .symtab (stripped); using .dynsym: only exported functions "
			"are compared",
			bf->path);
	}
	return dynsym;
}

static void add_relsym(struct binfile *bf, size_t i, const GElf_Sym *sym, const char *name,
		       uint32_t shndx)
{
	struct bin_relsym *r = &bf->relsyms[i];
	if (GELF_ST_TYPE(sym->st_info) == STT_SECTION && shndx) {
		r->name_hash = bf->sections[shndx].name_hash;
	} else {
		r->name_hash = binhash_str(name);
	}
	if (shndx && (bf->sections[shndx].flags & SHF_ALLOC)) {
		r->defined = true;
		r->addr = sym_addr(bf, sym, shndx);
	} else if (sym->st_shndx == SHN_ABS) {
		r->defined = true;
		r->addr = sym->st_value;
	}
}

static int cmp_unsized(const void *a, const void *b)
{
	const struct bin_unsized *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
}

/* Sorts the symbols of size 0 by address and keeps the first of each address. */
static void unsized_sort(struct binfile *bf)
{
	size_t k = 0;
	bin_sort(bf->unsized, bf->nr_unsized, sizeof(*bf->unsized), cmp_unsized);
	for (size_t i = 0; i < bf->nr_unsized; i++)
		if (!k || bf->unsized[k - 1].addr != bf->unsized[i].addr)
			bf->unsized[k++] = bf->unsized[i];
	bf->nr_unsized = k;
}

int symbols_read(struct binfile *bf)
{
	struct symtab st;
	struct fsym *cand = NULL;
	size_t nr_cand = 0, alloc_cand = 0, alloc_objects = 0, alloc_unsized = 0, i, outside = 0;
	const char *file = NULL;
	size_t index = choose_symtab(bf);
	int ret = RP_EINPUT;

	if (!index) {
		error("%s: no symbol table: the file is fully stripped; rebuild it without "
		      "stripping",
		      bf->path);
		goto out;
	}
	if (symtab_open(bf, index, &st))
		goto out;
	if (bf->kind == BINFILE_OBJECT) {
		bf->relsyms = xcalloc(st.nr ? st.nr : 1, sizeof(*bf->relsyms));
		bf->nr_relsyms = st.nr;
	}
	for (i = 0; i < st.nr; i++) {
		GElf_Sym sym;
		const char *name;
		uint32_t shndx;
		int type, bind;
		const struct bin_section *s;
		if (!symtab_get(bf, &st, i, &sym, &name, &shndx)) {
			error("%s: corrupt ELF symbol %zu (%s)", bf->path, i, elf_errmsg(-1));
			goto out;
		}
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (bf->relsyms)
			add_relsym(bf, i, &sym, name, shndx);
		if (type == STT_FILE) {
			file = *name ? name : NULL;
			continue;
		}
		s = &bf->sections[shndx];
		if (shndx && !sym.st_size && *name && *name != '.' && *name != '$' &&
		    (type == STT_FUNC || type == STT_NOTYPE) && (s->flags & SHF_EXECINSTR) &&
		    s->type != SHT_NOBITS && in_section(s, sym_addr(bf, &sym, shndx), 0)) {
			struct bin_unsized *u;
			ALLOC_GROW(bf->unsized, bf->nr_unsized + 1, alloc_unsized);
			u = &bf->unsized[bf->nr_unsized++];
			u->addr = sym_addr(bf, &sym, shndx);
			u->name = name;
			u->rank = (bind == STB_LOCAL ? 2 : bind == STB_WEAK ? 1 : 0) +
				  (*name == '_' ? 3 : 0);
		}
		if (!shndx || !sym.st_size || !*name || s->type == SHT_NOBITS)
			continue;
		if (type == STT_FUNC || type == STT_GNU_IFUNC) {
			uint64_t addr = sym_addr(bf, &sym, shndx);
			if (!(s->flags & SHF_EXECINSTR))
				continue;
			if (!in_section(s, addr, sym.st_size) || !s->data) {
				outside++;
				continue;
			}
			ALLOC_GROW(cand, nr_cand + 1, alloc_cand);
			cand[nr_cand].name = name;
			cand[nr_cand].file = bind == STB_LOCAL ? file : NULL;
			cand[nr_cand].addr = addr;
			cand[nr_cand].size = sym.st_size;
			cand[nr_cand].section = shndx;
			cand[nr_cand].rank = bind == STB_LOCAL ? 2 : bind == STB_WEAK ? 1 : 0;
			nr_cand++;
		} else if (type == STT_OBJECT && (s->flags & SHF_ALLOC) && strncmp(name, ".L", 2)) {
			/* (".L" names are the compiler's anonymous constants: by contents.) */
			struct bin_object *o;
			ALLOC_GROW(bf->objects, bf->nr_objects + 1, alloc_objects);
			o = &bf->objects[bf->nr_objects++];
			o->addr = sym_addr(bf, &sym, shndx);
			o->size = sym.st_size;
			o->name_hash = object_name_hash(name, bind == STB_LOCAL);
		}
	}
	if (outside && !(bf->flags & BINFILE_QUIET))
		warning("%s: %zu function symbol%s outside %s section ignored (corrupt symbol "
			"table?)",
			bf->path, outside, outside == 1 ? "" : "s", outside == 1 ? "its" : "their");
	if (bf->from_dynsym && !nr_cand) {
		if ((bf->flags & BINFILE_ADVISORY) && (bf->flags & BINFILE_QUIET))
			; /* the caller goes on without the file and says nothing either */
		else if (bf->flags & BINFILE_ADVISORY)
			warning("%s: stripped, and it exports no functions: no binary diff of the "
				"two builds; rebuild it without stripping",
				bf->path);
		else
			error("%s: stripped, and it exports no functions: nothing to compare; "
			      "rebuild it without stripping",
			      bf->path);
		goto out;
	}
	cand = sort_candidates(cand, nr_cand);
	fold_aliases(bf, cand, nr_cand);
	sort_by_name(bf);
	bin_sort(bf->objects, bf->nr_objects, sizeof(*bf->objects), cmp_object);
	unsized_sort(bf);
	ret = 0;
out:
	free(cand);
	return ret;
}

static int cmp_import(const void *a, const void *b)
{
	const struct bin_import *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->got - (int)y->got;
}

static bool is_got_reloc(unsigned machine, uint32_t type)
{
	if (machine == EM_X86_64)
		return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT ||
		       type == R_X86_64_64;
	return type == R_AARCH64_JUMP_SLOT || type == R_AARCH64_GLOB_DAT || type == R_AARCH64_ABS64;
}

/* GOT slots named by the dynamic relocations that fill them. */
static int read_got_slots(struct binfile *bf, size_t dynsym)
{
	struct symtab st;
	size_t i, j;
	if (symtab_open(bf, dynsym, &st))
		return -1;
	for (i = 1; i < bf->nr_sections; i++) {
		const struct bin_section *s = &bf->sections[i];
		Elf_Data *d;
		size_t n;
		if (s->type != SHT_RELA || s->link != dynsym || !s->data)
			continue;
		d = elf_getdata(s->scn, NULL);
		n = d ? d->d_size / sizeof(Elf64_Rela) : 0;
		for (j = 0; j < n; j++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;
			uint32_t shndx;
			size_t symi;
			if (!gelf_getrela(d, (int)j, &r))
				break;
			symi = GELF_R_SYM(r.r_info);
			if (!symi || symi >= st.nr ||
			    !is_got_reloc(bf->machine, (uint32_t)GELF_R_TYPE(r.r_info)) ||
			    !symtab_get(bf, &st, symi, &sym, &name, &shndx) || !*name)
				continue;
			ALLOC_GROW(bf->imports, bf->nr_imports + 1, bf->alloc_imports);
			bf->imports[bf->nr_imports].addr = r.r_offset;
			bf->imports[bf->nr_imports].name_hash = binhash_str(name);
			bf->imports[bf->nr_imports].name = name;
			bf->imports[bf->nr_imports].got = true;
			bf->nr_imports++;
		}
	}
	bin_sort(bf->imports, bf->nr_imports, sizeof(*bf->imports), cmp_import);
	return 0;
}

/* The GOT slot at addr, among the sorted slots that precede the PLT entries appended. */
static const struct bin_import *slot_at(const struct binfile *bf, uint64_t addr)
{
	size_t lo = 0, hi = bf->nr_got_slots;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bf->imports[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < bf->nr_got_slots && bf->imports[lo].addr == addr ? &bf->imports[lo] : NULL;
}

/*
 * A PLT entry that jumps through a named GOT slot takes the slot's name. (The entries are
 * appended after the slots, so the search must not see them: with binfile_import_at() over
 * the whole array, every entry after the first few went unnamed.)
 */
static void plt_reference(struct binfile *bf, const struct bin_section *sec, uint64_t insn_addr,
			  uint64_t target)
{
	const struct bin_import *slot = slot_at(bf, target);
	uint64_t entsize = sec->entsize >= 4 && sec->entsize <= 64 ? sec->entsize : 16;
	uint64_t entry = sec->addr + (insn_addr - sec->addr) / entsize * entsize;
	uint64_t name_hash;
	const char *name;
	if (!slot || !slot->got)
		return;
	/* slot points into bf->imports, which ALLOC_GROW may move. */
	name_hash = slot->name_hash;
	name = slot->name;
	ALLOC_GROW(bf->imports, bf->nr_imports + 1, bf->alloc_imports);
	bf->imports[bf->nr_imports].addr = entry;
	bf->imports[bf->nr_imports].name_hash = name_hash;
	bf->imports[bf->nr_imports].name = name;
	bf->imports[bf->nr_imports].got = false;
	bf->nr_imports++;
}

int imports_read(struct binfile *bf)
{
	size_t i, dynsym = 0, nr_slots, w;
	for (i = 1; i < bf->nr_sections && !dynsym; i++)
		if (bf->sections[i].type == SHT_DYNSYM)
			dynsym = i;
	if (!dynsym)
		return 0;
	if (read_got_slots(bf, dynsym))
		return RP_EINPUT;
	nr_slots = bf->nr_imports;
	if (!nr_slots || bf->machine != EM_X86_64)
		return 0;
	bf->nr_got_slots = nr_slots;
	for (i = 1; i < bf->nr_sections; i++) {
		const struct bin_section *s = &bf->sections[i];
		if ((s->flags & SHF_EXECINSTR) && s->data &&
		    (!strcmp(s->name, ".plt") || !strcmp(s->name, ".plt.sec") ||
		     !strcmp(s->name, ".plt.got")) &&
		    disasm_plt(bf, s, plt_reference))
			return RP_EINTERNAL;
	}
	/* binfile_import_at() needs the slots sorted while the entries are appended. */
	bin_sort(bf->imports, bf->nr_imports, sizeof(*bf->imports), cmp_import);
	for (i = w = 0; i < bf->nr_imports; i++)
		if (!w || bf->imports[w - 1].addr != bf->imports[i].addr)
			bf->imports[w++] = bf->imports[i];
	bf->nr_imports = w;
	return 0;
}

static int cmp_reloc(const void *a, const void *b)
{
	const struct bin_reloc *x = a, *y = b;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return 0;
}

int relocs_read(struct binfile *bf)
{
	size_t i, j, alloc = 0;
	for (i = 1; i < bf->nr_sections; i++) {
		const struct bin_section *s = &bf->sections[i], *t;
		Elf_Data *d;
		size_t n;
		if (s->type != SHT_RELA || !s->data || s->info >= bf->nr_sections ||
		    s->link >= bf->nr_sections || bf->sections[s->link].type != SHT_SYMTAB)
			continue;
		t = &bf->sections[s->info];
		if (!(t->flags & SHF_EXECINSTR) || !(t->flags & SHF_ALLOC))
			continue;
		d = elf_getdata(s->scn, NULL);
		n = d ? d->d_size / sizeof(Elf64_Rela) : 0;
		for (j = 0; j < n; j++) {
			GElf_Rela r;
			struct bin_reloc *br;
			if (!gelf_getrela(d, (int)j, &r))
				break;
			if (r.r_offset >= t->size || GELF_R_SYM(r.r_info) >= bf->nr_relsyms)
				continue;
			ALLOC_GROW(bf->relocs, bf->nr_relocs + 1, alloc);
			br = &bf->relocs[bf->nr_relocs++];
			br->pos = t->addr + r.r_offset;
			br->addend = r.r_addend;
			br->type = (uint32_t)GELF_R_TYPE(r.r_info);
			br->sym = (uint32_t)GELF_R_SYM(r.r_info);
		}
	}
	bin_sort(bf->relocs, bf->nr_relocs, sizeof(*bf->relocs), cmp_reloc);
	return 0;
}
