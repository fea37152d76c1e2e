/* Loading a binfile: the ELF reader, the symbol reader, DWARF and the normaliser in order. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binary/binfile_impl.h"
#include "binary/elf_sections.h"
#include "util/common.h"
#include "util/input.h"

uint64_t binhash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x27D4EB2F165667C5ULL ^ len;
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = binhash_mix(h, w);
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t w = 0;
		memcpy(&w, p, len);
		h = binhash_mix(h, w);
	}
	return binhash_final(h);
}

uint64_t binhash_final(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDULL;
	h ^= h >> 33;
	h *= 0xC4CEB9FE1A85EC53ULL;
	h ^= h >> 33;
	return h;
}

const char *binfile_kind_name(enum binfile_kind kind)
{
	switch (kind) {
	case BINFILE_EXEC: return "executable";
	case BINFILE_PIE: return "pie";
	case BINFILE_SHARED: return "shared";
	default: return "object";
	}
}

static int cmp_section_addr(const void *a, const void *b, void *arg)
{
	const struct bin_section *s = arg;
	uint64_t x = s[*(const uint32_t *)a].addr, y = s[*(const uint32_t *)b].addr;
	return x < y ? -1 : x > y;
}

/* Allocated sections that occupy addresses (not .tbss, which overlaps what follows). */
static void index_sections(struct binfile *bf)
{
	size_t i;
	bf->alloc_sections = xmallocarray(bf->nr_sections, sizeof(*bf->alloc_sections));
	for (i = 1; i < bf->nr_sections; i++) {
		const struct bin_section *s = &bf->sections[i];
		if ((s->flags & SHF_ALLOC) && s->size &&
		    !((s->flags & SHF_TLS) && s->type == SHT_NOBITS))
			bf->alloc_sections[bf->nr_alloc_sections++] = (uint32_t)i;
	}
	bin_sort_r(bf->alloc_sections, bf->nr_alloc_sections, sizeof(*bf->alloc_sections),
		   cmp_section_addr, bf->sections);
}

const struct bin_section *binfile_section_at(const struct binfile *bf, uint64_t addr)
{
	size_t lo = 0, hi = bf->nr_alloc_sections;
	const struct bin_section *s;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bf->sections[bf->alloc_sections[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &bf->sections[bf->alloc_sections[lo - 1]];
	return addr - s->addr < s->size ? s : NULL;
}

struct binfunc *binfile_func_at(const struct binfile *bf, uint64_t addr)
{
	size_t lo = 0, hi = bf->nr_funcs;
	struct binfunc *f;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bf->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	f = &bf->funcs[lo - 1];
	return addr - f->addr < f->size ? f : NULL;
}

const struct bin_object *binfile_object_at(const struct binfile *bf, uint64_t addr)
{
	size_t lo = 0, hi = bf->nr_objects;
	const struct bin_object *o;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bf->objects[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	o = &bf->objects[lo - 1];
	return addr - o->addr < o->size ? o : NULL;
}

const struct bin_import *binfile_import_at(const struct binfile *bf, uint64_t addr)
{
	size_t lo = 0, hi = bf->nr_imports;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bf->imports[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < bf->nr_imports && bf->imports[lo].addr == addr ? &bf->imports[lo] : NULL;
}

/* The quick part: header, sections, symbols. Errors here are the ones users meet. */
static int load_symbols(struct binfile *bf)
{
	int ret;
	if (!bf->elf) {
		error("%s: truncated or corrupt ELF file (%s)", bf->path, elf_errmsg(-1));
		return RP_EINPUT;
	}
	if ((ret = elf_sections_read(bf)))
		return ret;
	index_sections(bf);
	elf_dynlink_read(bf);
	if ((ret = symbols_read(bf)))
		return ret;
	/* Capstone's first cs_open() initialises globals: here, not in parallel analyses. */
	if (!(bf->flags & BINFILE_NO_DISASM) && (ret = disasm_open(bf)))
		return ret;
	return 0;
}

int binfile_prepare(struct binfile *bf)
{
	int ret;
	if (!(bf->flags & BINFILE_NO_DISASM) &&
	    (ret = bf->kind == BINFILE_OBJECT ? relocs_read(bf) : imports_read(bf)))
		return ret;
	/* DWARF is optional: a file whose DWARF cannot be read is still compared. */
	if (!(bf->flags & BINFILE_NO_DWARF))
		dwarf_info_read(bf);
	return 0;
}

int binfile_analyze(struct binfile *bf)
{
	size_t i;
	int ret;
	if (bf->analyzed)
		return 0;
	bf->analyzed = true;
	if ((ret = binfile_prepare(bf)))
		return ret;
	if (bf->flags & BINFILE_NO_DISASM)
		return 0;
	for (i = 0; i < bf->nr_funcs; i++)
		if ((ret = disasm_function(bf, &bf->funcs[i])))
			return ret;
	return 0;
}

static struct binfile *binfile_new(const char *path, unsigned flags)
{
	struct binfile *bf = xcalloc(1, sizeof(*bf));
	bf->path = xstrdup(path);
	bf->fd = -1;
	bf->flags = flags;
	return bf;
}

int binfile_open(const char *path, unsigned flags, struct binfile **out)
{
	struct binfile *bf = binfile_new(path, flags);
	struct input in;
	int ret = RP_EINPUT;

	*out = NULL;
	elf_version(EV_CURRENT);
	/* A regular file only (libelf maps it), at most the binary cap. */
	if (input_open(&in, path, &input_binary))
		goto out;
	bf->fd = in.fd;
	if (in.size < EI_NIDENT) {
		error("%s: not an ELF file (%lld bytes); bindiff compares executables, shared "
		      "libraries and object files",
		      path, (long long)in.size);
		goto out;
	}
	bf->elf = elf_begin(bf->fd, ELF_C_READ_MMAP, NULL);
	ret = load_symbols(bf);
out:
	if (ret) {
		binfile_free(bf);
		return ret;
	}
	*out = bf;
	return 0;
}

int binfile_load_memory(const char *name, const void *data, size_t size, unsigned flags,
			struct binfile **out)
{
	struct binfile *bf = binfile_new(name, flags);
	int ret;

	*out = NULL;
	elf_version(EV_CURRENT);
	if (size > BINFILE_MAX_BYTES || size < EI_NIDENT) {
		error("%s: not an ELF file (%zu bytes); bindiff compares executables, shared "
		      "libraries and object files",
		      name, size);
		binfile_free(bf);
		return RP_EINPUT;
	}
	bf->image = xmalloc(size);
	bf->image_size = size;
	memcpy(bf->image, data, size);
	bf->elf = elf_memory((char *)bf->image, size);
	if (!(ret = load_symbols(bf)))
		ret = binfile_analyze(bf);
	if (ret) {
		binfile_free(bf);
		return ret;
	}
	*out = bf;
	return 0;
}

int binfile_load(const char *path, unsigned flags, struct binfile **out)
{
	int ret = binfile_open(path, flags, out);
	if (!ret && (ret = binfile_analyze(*out))) {
		binfile_free(*out);
		*out = NULL;
	}
	return ret;
}

int binfile_rehash(struct binfile *bf, struct binfunc *f)
{
	if (!bf->disasm)
		return -1;
	return disasm_function(bf, f);
}

int binfile_inlined(const struct binfile *bf, const struct binfunc *f,
		    void (*fn)(const char *name, void *data), void *data)
{
	return dwarf_info_inlined(bf, f, fn, data);
}

void binfile_free(struct binfile *bf)
{
	if (!bf)
		return;
	dwarf_info_close(bf);
	disasm_close(bf);
	free(bf->relsyms);
	free(bf->relocs);
	free(bf->imports);
	free(bf->unsized);
	free(bf->objects);
	free(bf->aliases);
	free(bf->funcs);
	free(bf->by_name);
	free(bf->alloc_sections);
	elf_sections_release(bf);
	if (bf->elf)
		elf_end(bf->elf);
	if (bf->fd >= 0)
		close(bf->fd);
	free(bf->image);
	free(bf->path);
	free(bf);
}

int binfile_plt_read(const char *path, struct binfile_plt *out)
{
	struct binfile *bf = NULL;
	size_t n = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	/* A stripped program without exported functions has no names to give: its caller
	 * (callgrind_plt.c) goes on without them, so that is not an error to print. */
	if ((ret = binfile_open(path, BINFILE_NO_DWARF | BINFILE_QUIET | BINFILE_ADVISORY, &bf)) ||
	    (ret = binfile_prepare(bf)))
		goto out;
	for (size_t i = 0; i < bf->nr_imports; i++)
		n += !bf->imports[i].got && bf->imports[i].name;
	out->entries = xcalloc(n ? n : 1, sizeof(*out->entries));
	/* imports are sorted by address, and so are the entries */
	for (size_t i = 0; i < bf->nr_imports; i++) {
		const struct bin_import *im = &bf->imports[i];
		if (im->got || !im->name)
			continue;
		out->entries[out->nr].addr = im->addr;
		out->entries[out->nr++].name = xstrdup(im->name);
	}
	out->unsized = xcalloc(bf->nr_unsized ? bf->nr_unsized : 1, sizeof(*out->unsized));
	for (size_t i = 0; i < bf->nr_unsized; i++) {
		out->unsized[i].addr = bf->unsized[i].addr;
		out->unsized[i].name = xstrdup(bf->unsized[i].name);
	}
	out->nr_unsized = bf->nr_unsized;
	out->entry = bf->kind == BINFILE_OBJECT ? 0 : bf->entry;
out:
	binfile_free(bf);
	return ret;
}

void binfile_plt_release(struct binfile_plt *plt)
{
	if (!plt)
		return;
	for (size_t i = 0; i < plt->nr; i++)
		free(plt->entries[i].name);
	for (size_t i = 0; i < plt->nr_unsized; i++)
		free(plt->unsized[i].name);
	free(plt->entries);
	free(plt->unsized);
	memset(plt, 0, sizeof(*plt));
}

/* The name of the entry at exactly addr among n sorted by address, or NULL. */
static const char *entry_at(const struct binfile_plt_entry *e, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo].addr == addr ? e[lo].name : NULL;
}

const char *binfile_plt_name(const struct binfile_plt *plt, uint64_t addr)
{
	return entry_at(plt->entries, plt->nr, addr);
}

const char *binfile_plt_unsized(const struct binfile_plt *plt, uint64_t addr)
{
	return entry_at(plt->unsized, plt->nr_unsized, addr);
}
