#ifndef REVPERF_BINARY_BINFILE_H
#define REVPERF_BINARY_BINFILE_H

/*
 * One ELF file (executable, PIE, shared library or object file) as the binary diff sees
 * it: its functions, each disassembled and normalised into a hash of its body (see
 * docs/bindiff.md). Read with libelf, disassembled with Capstone, file:line from libdw.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

enum binfile_kind {
	BINFILE_EXEC,	/* ET_EXEC: a non-PIE executable */
	BINFILE_PIE,	/* ET_DYN with an interpreter */
	BINFILE_SHARED, /* ET_DYN without one: a shared library */
	BINFILE_OBJECT, /* ET_REL: an object file */
};

/* binfile_load() flags. */
enum {
	BINFILE_NO_DWARF = 1 << 0,  /* skip file:line and inline information */
	BINFILE_NO_DISASM = 1 << 1, /* symbols only: no hash, no instruction count */
	/*
	 * Decode every instruction with Capstone: no reuse of decodings between instructions
	 * of the same shape or functions of the same name (the same hashes, slower; tests).
	 */
	BINFILE_NO_REUSE = 1 << 2,
	/* No warnings (a stripped file read from .dynsym): for readers of many files. */
	BINFILE_QUIET = 1 << 3,
	/*
	 * The caller goes on without the file (compare's binary diff): a stripped program
	 * without exported functions is a warning, not an error; with BINFILE_QUIET, not
	 * said at all (binfile_plt_read(): the PLT names of a callgrind profile, a nicety
	 * that compare's own binary diff of the program has already warned about).
	 */
	BINFILE_ADVISORY = 1 << 4,
};

/* One function: a symbol with a size in an executable section, aliases folded. */
struct binfunc {
	const char *name;     /* canonical name among the aliases (borrowed from the file) */
	const char *cu;	      /* a local's compilation unit (file symbol or DWARF), or NULL */
	const char *src_file; /* from DWARF, or NULL */
	unsigned src_line;    /* 0 when unknown */
	uint64_t addr;	      /* address (object files: a synthetic layout of the sections) */
	uint64_t size;	      /* bytes */
	uint64_t hash;	      /* hash of the normalised body */
	uint64_t name_hash;   /* hash of `name` */
	uint64_t ref_hash;    /* what references to this function hash as (name, or renamed) */
	uint64_t die;	      /* DWARF DIE offset of its subprogram; 0 when unknown */
	uint32_t nr_insns;    /* static instruction count */
	uint32_t section;     /* section index */
	uint32_t first_alias; /* aliases: binfile.aliases[first_alias .. + nr_aliases) */
	uint32_t nr_aliases;
	bool local;    /* STB_LOCAL */
	bool dup_name; /* another function of this file has the same name */
};

/*
 * What the dynamic loader works on before main() for a linked file (docs/prediction.md,
 * "Start-up work"): the dynamic relocations it applies and the symbols it must look up.
 * Read from the section table and .dynsym with libelf; an object file, a statically
 * linked file or a file whose dynamic tables cannot be read has dynamic false.
 */
struct binfile_dynlink {
	bool dynamic; /* a dynamic section (SHT_DYNAMIC) was found; else the rest is 0 */
	/* Entries of the allocated SHT_RELA and SHT_REL sections (.rela.dyn, .rela.plt) and
	 * the relocations packed in SHT_RELR sections. */
	uint64_t nr_relocs;
	/* The names of the undefined symbols of .dynsym, sorted by strcmp, each once
	 * (borrowed from the file; the array is owned by the binfile). */
	const char **imports;
	size_t nr_imports;
};

/*
 * How many imports `u` has that `i` has not (*added), and the reverse (*removed), by name.
 * O(n + m).
 */
void binfile_dynlink_compare(const struct binfile_dynlink *i, const struct binfile_dynlink *u,
			     size_t *added, size_t *removed);

struct bin_section;
struct bin_object;
struct bin_import;
struct bin_unsized;
struct bin_reloc;
struct bin_relsym;
struct bin_dwarf;
struct bin_disasm;

struct binfile {
	char *path;
	const char *arch; /* "x86-64", "aarch64" */
	uint16_t machine; /* EM_* */
	uint64_t entry;	  /* the ELF header's entry point (e_entry), 0 when none */
	enum binfile_kind kind;
	bool from_dynsym; /* no .symtab: only exported functions */
	bool has_dwarf;

	struct binfunc *funcs; /* sorted by address */
	size_t nr_funcs;
	uint32_t *by_name;    /* indices into funcs, sorted by name (strcmp), then address */
	const char **aliases; /* other names of folded functions (borrowed) */
	size_t nr_aliases;
	struct binfile_dynlink dynlink; /* read by binfile_open() */

	/* The rest is private to src/binary/. */
	unsigned flags;
	bool analyzed;
	int analyze_ret;  /* binfile_analyze()'s result, when run in a thread */
	size_t nr_reused; /* functions hashed from the other file's decoding (bindiff_files()) */
	int fd;
	void *elf;	      /* Elf * */
	unsigned char *image; /* owned copy of an in-memory file */
	size_t image_size;
	struct bin_section *sections;
	size_t nr_sections;
	uint32_t *alloc_sections; /* allocated sections by address, for binfile_section_at() */
	size_t nr_alloc_sections;
	struct bin_object *objects; /* data symbols, sorted by address */
	size_t nr_objects;
	struct bin_import *imports; /* PLT entries and GOT slots, sorted by address */
	struct bin_unsized *unsized; /* function symbols of size 0, by address, one per address */
	size_t nr_unsized;
	size_t nr_imports, alloc_imports;
	size_t nr_got_slots; /* while the PLT is read: imports[0 .. this) are the sorted slots */
	struct bin_reloc *relocs; /* object files: relocations of code, sorted */
	size_t nr_relocs;
	struct bin_relsym *relsyms; /* object files: the symbol table, by index */
	size_t nr_relsyms;
	struct bin_dwarf *dwarf;
	struct bin_disasm *disasm;
};

/*
 * Reads the ELF file at `path`: functions, their normalised hashes and instruction counts,
 * and (unless BINFILE_NO_DWARF) their file:line. On success *out is a new binfile the
 * caller frees with binfile_free(). On failure prints one line with error() and returns
 * RP_EINPUT (missing, not ELF, truncated, unsupported architecture, no function symbols)
 * or RP_EINTERNAL. Falls back to .dynsym with a warning when there is no .symtab.
 * Not thread-safe per binfile; distinct binfiles may be loaded in distinct threads.
 */
int binfile_load(const char *path, unsigned flags, struct binfile **out);

/*
 * binfile_load() in two steps, so that two files can be analysed in parallel after their
 * errors (missing, not ELF, corrupt headers or symbols) were reported in order.
 * binfile_open() reads the header, sections and symbols (quick; same results and
 * ownership as binfile_load(), but no hashes, counts or DWARF yet); binfile_analyze() does
 * the rest (slow) and returns 0 or RP_EINPUT / RP_EINTERNAL, the caller still freeing bf.
 * binfile_analyze() may run on distinct binfiles in distinct threads at the same time.
 */
int binfile_open(const char *path, unsigned flags, struct binfile **out);
int binfile_analyze(struct binfile *bf);

/*
 * The same for a file already in memory (the fuzz target, tests). The bytes are copied;
 * `name` is used in messages.
 */
int binfile_load_memory(const char *name, const void *data, size_t size, unsigned flags,
			struct binfile **out);

/* Frees everything a binfile owns; accepts NULL. */
void binfile_free(struct binfile *bf);

/* "executable", "pie", "shared" or "object". */
const char *binfile_kind_name(enum binfile_kind kind);

/*
 * Recomputes the hash of one function (after ref_hash of others changed, see bindiff).
 * Returns 0, or -1 when the file was loaded with BINFILE_NO_DISASM.
 */
int binfile_rehash(struct binfile *bf, struct binfunc *f);

/* The function containing addr, or NULL. O(log n). */
struct binfunc *binfile_func_at(const struct binfile *bf, uint64_t addr);

/* One PLT entry: its address (the file's virtual address) and the function it calls. */
struct binfile_plt_entry {
	uint64_t addr;
	char *name; /* the imported symbol, "memcpy" (no version, no "@plt") */
};

/* The PLT entries of one linked file, sorted by address. */
struct binfile_plt {
	struct binfile_plt_entry *entries;
	size_t nr;
	/* Its function symbols of size 0, which valgrind does not use and callgrind shows by
	 * address: _init, _fini, functions written in assembly without .size. By address,
	 * one per address (global before weak before local, then without a leading '_'). */
	struct binfile_plt_entry *unsized;
	size_t nr_unsized;
	/* The entry point (e_entry) of an executable or shared object, 0 when none: the
	 * dynamic loader's `_start`, which has no symbol in a stripped ld.so. */
	uint64_t entry;
};

/*
 * The PLT entries of the linked ELF file at `path` (x86-64: .plt, .plt.sec and .plt.got),
 * each named after the symbol of the GOT slot it jumps through (the JUMP_SLOT or GLOB_DAT
 * relocation of that slot), as binutils names its synthetic "memcpy@plt" symbols. Reads
 * the header, sections, symbols and dynamic relocations, and decodes only the PLT
 * sections. Entries whose slot has no symbol (IRELATIVE) are left out. Also the function
 * symbols of size 0. Fills *out (release
 * with binfile_plt_release()); returns 0, or RP_EINPUT / RP_EINTERNAL after one error()
 * (missing, not ELF, corrupt), or silently (stripped, no exported function: no names to
 * give); no warnings. Another architecture: 0 and no entry.
 */
int binfile_plt_read(const char *path, struct binfile_plt *out);
void binfile_plt_release(struct binfile_plt *plt);

/* The name of the PLT entry at exactly addr, or NULL. O(log n). */
const char *binfile_plt_name(const struct binfile_plt *plt, uint64_t addr);

/* The name of the function symbol of size 0 at exactly addr, or NULL. O(log n). */
const char *binfile_plt_unsized(const struct binfile_plt *plt, uint64_t addr);

/*
 * Calls fn(name, data) for each function inlined into f (DWARF inlined subroutines, each
 * name once). Returns 0 (also when there is no DWARF), or -1 on corrupt DWARF.
 */
int binfile_inlined(const struct binfile *bf, const struct binfunc *f,
		    void (*fn)(const char *name, void *data), void *data);

#endif
