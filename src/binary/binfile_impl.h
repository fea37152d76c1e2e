#ifndef REVPERF_BINARY_BINFILE_IMPL_H
#define REVPERF_BINARY_BINFILE_IMPL_H

/*
 * Private to src/binary/: the parts of a binfile that the ELF reader, the symbol reader,
 * the normaliser and the DWARF reader share. Nothing outside src/binary/ includes this.
 */
#include <stdlib.h>
#include <string.h>

#include "binary/binfile.h"

/* Caps on untrusted input: larger files or tables are refused, never allocated blindly. */
#define BINFILE_MAX_BYTES ((uint64_t)4 << 30)
#define BINFILE_MAX_SYMBOLS ((size_t)1 << 24)
#define BINFILE_MAX_SECTIONS ((size_t)1 << 20)

struct bin_section {
	const char *name;
	uint64_t name_hash;
	uint64_t addr; /* object files: synthetic, see elf_read.c */
	uint64_t size;
	uint64_t flags; /* sh_flags */
	uint32_t type;	/* sh_type */
	uint32_t link, info;
	uint64_t entsize;
	const unsigned char *data; /* NULL for SHT_NOBITS or unreadable */
	size_t data_size;
	void *scn; /* Elf_Scn * */
};

/* A data symbol (STT_OBJECT, STT_TLS) with a size. */
struct bin_object {
	uint64_t addr, size;
	uint64_t name_hash; /* of the name, numbered local suffixes (".3") dropped */
};

/* An imported function's PLT entry, or a GOT slot, by address (linked files). */
struct bin_import {
	uint64_t addr;
	uint64_t name_hash;
	const char *name; /* the imported symbol (borrowed from the file's string table) */
	bool got;	  /* a GOT slot rather than a PLT entry */
};

/* A function symbol of size 0 (valgrind ignores them; profile/callgrind_plt.c names them). */
struct bin_unsized {
	uint64_t addr;
	const char *name; /* borrowed from the file's string table */
	int rank;	  /* 0 global, 1 weak, 2 local; + 3 with a leading '_' */
};

/* A relocation applied to code in an object file; pos in the synthetic layout. */
struct bin_reloc {
	uint64_t pos;
	int64_t addend;
	uint32_t type;
	uint32_t sym;
};

/* A symbol of an object file's symbol table, as relocations refer to it. */
struct bin_relsym {
	uint64_t addr; /* defined: synthetic address; else 0 */
	uint64_t name_hash;
	bool defined;
};

/* 64-bit hashing shared by the readers and the normaliser (not cryptographic). */
uint64_t binhash_bytes(const void *data, size_t len);
static inline uint64_t binhash_mix(uint64_t h, uint64_t v)
{
	v *= 0xC2B2AE3D27D4EB4FULL;
	v = (v << 31) | (v >> 33);
	v *= 0x9E3779B185EBCA87ULL;
	h ^= v;
	h = (h << 27) | (h >> 37);
	return h * 0x9E3779B185EBCA87ULL + 0x85EBCA77C2B2AE63ULL;
}
uint64_t binhash_final(uint64_t h);
static inline uint64_t binhash_str(const char *s)
{
	return binhash_bytes(s, strlen(s));
}

/* qsort() and qsort_r() that accept an empty (NULL) array. */
static inline void bin_sort(void *base, size_t nr, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (nr > 1)
		qsort(base, nr, size, cmp);
}
static inline void bin_sort_r(void *base, size_t nr, size_t size,
			      int (*cmp)(const void *, const void *, void *), void *arg)
{
	if (nr > 1)
		qsort_r(base, nr, size, cmp, arg);
}

/* The section containing addr (allocated sections only), or NULL. */
const struct bin_section *binfile_section_at(const struct binfile *bf, uint64_t addr);
/* The data symbol containing addr, or NULL. */
const struct bin_object *binfile_object_at(const struct binfile *bf, uint64_t addr);
/* The import at exactly addr, or NULL. */
const struct bin_import *binfile_import_at(const struct binfile *bf, uint64_t addr);

/*
 * binfile.c: what binfile_analyze() does before hashing functions: imports or relocations,
 * and DWARF unless BINFILE_NO_DWARF. Returns 0 or RP_EINPUT / RP_EINTERNAL.
 */
int binfile_prepare(struct binfile *bf);

/* elf_symbols.c: functions, aliases, data symbols; relocation symbols of object files. */
int symbols_read(struct binfile *bf);
/* elf_symbols.c: names of PLT entries and GOT slots (x86-64 linked files). */
int imports_read(struct binfile *bf);
/* elf_symbols.c: relocations of executable sections (object files). */
int relocs_read(struct binfile *bf);

/* normalize.c: a Capstone handle for the file's architecture; hashing one function. */
int disasm_open(struct binfile *bf);
int disasm_function(struct binfile *bf, struct binfunc *f);
/*
 * A handle of one's own, for hashing functions of bf (or of a file of the same
 * architecture) in another thread: NULL after error(); free it with disasm_free(). The
 * first handle of a process must be made before threads make theirs (disasm_open() is).
 */
struct bin_disasm *disasm_new(const struct binfile *bf);
void disasm_free(struct bin_disasm *d);
/*
 * disasm_function() with handle d. With keep (x86-64), d keeps f's decoding as a template
 * for disasm_replay() until the next call with d.
 */
int disasm_function_with(struct bin_disasm *d, struct binfile *bf, struct binfunc *f, bool keep);
/*
 * Hashes f of bf without disassembling it, from the template that d kept of tmpl (of
 * tbf), when f's bytes are tmpl's but for fields whose value the template finds again:
 * relative branch targets, displacements, immediates of 4 or 8 bytes. The hash and count
 * are then exactly disasm_function()'s, since x86 decoding does not depend on those
 * values. Returns false, f untouched, when the bytes differ otherwise or there is no
 * such template.
 */
bool disasm_replay(struct bin_disasm *d, struct binfile *bf, struct binfunc *f,
		   const struct binfile *tbf, const struct binfunc *tmpl);
/* Disassembles a PLT section linearly, calling fn for each rip-relative reference. */
int disasm_plt(struct binfile *bf, const struct bin_section *sec,
	       void (*fn)(struct binfile *bf, const struct bin_section *sec, uint64_t insn_addr,
			  uint64_t target));
void disasm_close(struct binfile *bf);
/*
 * x86-64: whether fo (of bo) and fn (of bn) differ only in immediate operands that hold
 * plain numbers (neither addresses nor branch targets), instruction for instruction and
 * with the same encodings: then 1, after calling accept(old value, new value, old and new
 * address of the instruction, arg) for each differing pair, which returns false to reject
 * it (then 0). 0 for any other difference, for no difference, and on aarch64.
 */
int disasm_immediates_only(const struct binfile *bo, const struct binfunc *fo,
			   const struct binfile *bn, const struct binfunc *fn,
			   bool (*accept)(int64_t old_v, int64_t new_v, uint64_t old_addr,
					  uint64_t new_addr, void *arg),
			   void *arg);

/* dwarf_info.c: file:line and DIEs of functions; CUs of locals lacking a file symbol. */
int dwarf_info_read(struct binfile *bf);
int dwarf_info_inlined(const struct binfile *bf, const struct binfunc *f,
		       void (*fn)(const char *name, void *data), void *data);
/* The source line of the instruction at addr (linked files' line tables), 0 if unknown. */
unsigned dwarf_info_line_at(const struct binfile *bf, uint64_t addr);
void dwarf_info_close(struct binfile *bf);

#endif
