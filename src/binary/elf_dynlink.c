/*
 * The dynamic loader's start-up work of a linked file (binfile.h, struct binfile_dynlink):
 * its dynamic relocations and imported symbols, from the sections elf_sections.c read.
 */
#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include "binary/elf_sections.h"
#include "util/common.h"

/* Packed relative relocations (binutils -z pack-relative-relocs); older elf.h lack it. */
#ifndef SHT_RELR
#define SHT_RELR 19
#endif

/*
 * The relocations an SHT_RELR section packs: an even word is one address, an odd word a
 * bitmap of the 63 words after the previous address (bit 0 marks it as a bitmap).
 */
static uint64_t relr_count(const struct bin_section *s)
{
	uint64_t n = 0;
	for (size_t off = 0; off + 8 <= s->data_size; off += 8) {
		uint64_t w;
		memcpy(&w, s->data + off, 8); /* little-endian, as elf_sections_read() checked */
		n += (w & 1) ? (uint64_t)__builtin_popcountll(w >> 1) : 1;
	}
	return n;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The undefined named symbols of the .dynsym at `index`, sorted and unique. */
static void read_imports(struct binfile *bf, size_t index)
{
	const struct bin_section *s = &bf->sections[index];
	struct binfile_dynlink *dl = &bf->dynlink;
	Elf_Data *d;
	size_t n, alloc = 0, w;

	if (s->link >= bf->nr_sections || bf->sections[s->link].type != SHT_STRTAB)
		return;
	d = elf_getdata(s->scn, NULL);
	n = d ? d->d_size / sizeof(Elf64_Sym) : 0;
	if (n > BINFILE_MAX_SYMBOLS)
		return;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx != SHN_UNDEF)
			continue;
		name = elf_strptr(bf->elf, s->link, sym.st_name);
		if (!name || !*name)
			continue;
		ALLOC_GROW(dl->imports, dl->nr_imports + 1, alloc);
		dl->imports[dl->nr_imports++] = name;
	}
	bin_sort(dl->imports, dl->nr_imports, sizeof(*dl->imports), cmp_name);
	/* A name imported at two versions (memcpy@GLIBC_2.2.5 and @GLIBC_2.14) counts once. */
	for (size_t i = w = 0; i < dl->nr_imports; i++)
		if (!w || strcmp(dl->imports[w - 1], dl->imports[i]))
			dl->imports[w++] = dl->imports[i];
	dl->nr_imports = w;
}

void elf_dynlink_read(struct binfile *bf)
{
	struct binfile_dynlink *dl = &bf->dynlink;
	size_t dynsym = 0;

	memset(dl, 0, sizeof(*dl));
	if (bf->kind == BINFILE_OBJECT)
		return;
	for (size_t i = 1; i < bf->nr_sections; i++) {
		const struct bin_section *s = &bf->sections[i];
		if (s->type == SHT_DYNAMIC)
			dl->dynamic = true;
		else if (s->type == SHT_DYNSYM && !dynsym)
			dynsym = i;
		/* Allocated: the loader's; a linked file's unallocated ones (-q) are not. */
		if (!(s->flags & SHF_ALLOC) || !s->data)
			continue;
		if (s->type == SHT_RELA)
			dl->nr_relocs += s->data_size / sizeof(Elf64_Rela);
		else if (s->type == SHT_REL)
			dl->nr_relocs += s->data_size / sizeof(Elf64_Rel);
		else if (s->type == SHT_RELR)
			dl->nr_relocs += relr_count(s);
	}
	if (!dl->dynamic) {
		dl->nr_relocs = 0;
		return;
	}
	if (dynsym)
		read_imports(bf, dynsym);
}

void binfile_dynlink_compare(const struct binfile_dynlink *i, const struct binfile_dynlink *u,
			     size_t *added, size_t *removed)
{
	size_t a = 0, b = 0;
	*added = *removed = 0;
	while (a < i->nr_imports || b < u->nr_imports) {
		int c = a == i->nr_imports   ? 1
			: b == u->nr_imports ? -1
					     : strcmp(i->imports[a], u->imports[b]);
		if (c < 0) {
			(*removed)++;
			a++;
		} else if (c > 0) {
			(*added)++;
			b++;
		} else {
			a++;
			b++;
		}
	}
}
