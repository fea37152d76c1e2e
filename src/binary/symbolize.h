#ifndef REVPERF_BINARY_SYMBOLIZE_H
#define REVPERF_BINARY_SYMBOLIZE_H

/*
 * Symbolization after the run: run-time addresses of a process that may have exited are
 * named from its memory map (/proc/PID/maps lines, kept by the profile) and the ELF files
 * that were mapped.
 *
 * 1. struct proc_maps turns a run-time address into (mapped file, offset in that file):
 *    the address minus the mapping's start plus the mapping's file offset. Pure data, no
 *    file is opened.
 * 2. struct symbolizer turns a file offset into the ELF virtual address of that file (its
 *    PT_LOAD program headers: p_vaddr + (offset - p_offset); vaddr == offset is never
 *    assumed), and a virtual address into the function that contains it (.symtab, or
 *    .dynsym when stripped; C++ names demangled) and the source file:line (the DWARF line
 *    table inside the file; separate debug files are not looked for).
 *
 * Each module is opened once (libdwfl) and kept open until symbolizer_free(); results are
 * cached per (module, address). A module that is missing, not a regular file or not ELF
 * is reported once with warning() and its addresses stay unnamed ("libfoo.so+0x1234"
 * is then the caller's to print). Neither structure is thread-safe; distinct instances
 * may be used from distinct threads.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One mapping: one line of /proc/PID/maps. */
struct proc_map {
	uint64_t start, end; /* [start, end): run-time addresses */
	uint64_t offset;     /* file offset mapped at `start` */
	uint64_t inode;
	unsigned dev_major, dev_minor;
	char perms[5]; /* "r-xp" */
	char *path;    /* NULL when anonymous; "[vdso]", "[stack]"... kept as they are */
	bool deleted;  /* the kernel said " (deleted)": the file was removed or replaced */
};

/* A process's memory map, sorted by start address. */
struct proc_maps {
	struct proc_map *maps;
	size_t nr, alloc;
};

/* Initialises an empty map. Release with proc_maps_release(). */
void proc_maps_init(struct proc_maps *m);

/* Frees the mappings and their paths; accepts a zeroed or released map. */
void proc_maps_release(struct proc_maps *m);

/*
 * Adds one /proc/PID/maps line ("START-END PERMS OFFSET MAJ:MIN INODE [PATH]"; `len`
 * bytes, no newline needed; PATH may contain spaces, a trailing " (deleted)" is removed
 * and sets `deleted`). Lines may come in any order. Returns 0, or -1 when the line is
 * malformed (nothing added, nothing printed: the caller names its file and line).
 */
int proc_maps_add_line(struct proc_maps *m, const char *line, size_t len);

/*
 * Adds a copy of `map` (its path copied) as mmap(MAP_FIXED) would: the parts of mappings
 * it overlaps are removed first (a mapping it splits becomes two). The sampling profiler
 * builds a process's map this way from the kernel's mmap records.
 */
void proc_maps_replace(struct proc_maps *m, const struct proc_map *map);

/* A deep copy of `from` into `to` (initialised by the caller, its old content kept). */
void proc_maps_copy(struct proc_maps *to, const struct proc_maps *from);

/*
 * Reads a maps file (e.g. "/proc/1234/maps") into `m` (initialised by the caller).
 * Returns 0, or RP_EINPUT after error() when it cannot be read or a line is malformed.
 */
int proc_maps_read(struct proc_maps *m, const char *path);

/* The mapping containing `addr`, or NULL. O(log n). */
const struct proc_map *proc_maps_find(const struct proc_maps *m, uint64_t addr);

/*
 * The file and file offset of the run-time address `addr`: *module is the mapping's path
 * (borrowed from `m`), *file_offset = addr - start + offset. Returns 0, or -1 when no
 * mapping contains `addr` or the mapping has no file (anonymous memory, JIT code); the
 * outputs are then NULL and addr. Convert the offset to an ELF virtual address with
 * symbolizer_file_vaddr() (or use symbolizer_lookup_runtime(), which does both).
 */
int proc_maps_resolve(const struct proc_maps *m, uint64_t addr, const char **module,
		      uint64_t *file_offset);

/* A function inlined at an address, and where its caller called it. */
struct sym_inline {
	const char *function;  /* demangled; "?" when the DWARF gives no name */
	const char *call_file; /* the call site in the function it was inlined into; NULL */
	unsigned call_line;    /* when the DWARF has no call site (then 0) */
};

/* Where an address is: all strings are owned by the symbolizer, valid until symbolizer_free(). */
struct sym_loc {
	const char *function;	/* demangled; NULL when no symbol covers the address */
	const char *src_file;	/* NULL when the module has no DWARF line for the address */
	unsigned line;		/* 0 when src_file is NULL */
	uint64_t fn_offset;	/* address - the function's start (0 at its entry) */
	const char *module;	/* the module's path; NULL for an address in no file */
	uint64_t module_offset; /* the ELF virtual address in `module` (run-time address if none) */
	/*
	 * With symbolizer_set_inlines(): the functions inlined at the address, innermost
	 * first. inlines[0] is the function whose code is at the address (src_file:line is in
	 * it), inlined into inlines[1] (at inlines[0].call_file:call_line) and so on; the last
	 * was inlined into `function`. NULL / 0 when nothing is inlined there, without DWARF,
	 * or without symbolizer_set_inlines().
	 */
	const struct sym_inline *inlines;
	size_t nr_inlines;
};

struct symbolizer;

/* A new symbolizer with no module open. Free with symbolizer_free(). */
struct symbolizer *symbolizer_new(void);

/*
 * Makes later lookups also report the chain of inlined functions at each address (DWARF
 * DW_TAG_inlined_subroutine scopes; costs a scope search per new address). Off by default.
 */
void symbolizer_set_inlines(struct symbolizer *sym, bool on);
/* Closes every module and frees every string handed out; accepts NULL. */
void symbolizer_free(struct symbolizer *sym);

/*
 * The ELF virtual address of byte `file_offset` of `module_path`, from the PT_LOAD segment
 * whose file range contains it. Returns 0, or -1 (then *vaddr = file_offset) when the
 * module cannot be read (warned once) or no segment maps that offset.
 */
int symbolizer_file_vaddr(struct symbolizer *sym, const char *module_path, uint64_t file_offset,
			  uint64_t *vaddr);

/*
 * The load bias (run-time address - ELF virtual address) of the segment of `module_path`
 * that a mapping of file offset `pgoff` at run-time address `start` holds (pgoff may be
 * the page-aligned start of a segment whose file offset is not). Returns 0, or -1 when the
 * module cannot be read or no segment is mapped there.
 */
int symbolizer_map_bias(struct symbolizer *sym, const char *module_path, uint64_t start,
			uint64_t pgoff, uint64_t *bias);

/*
 * The start of the function around `file_vaddr` of `module_path` by its call frame
 * information (the .eh_frame FDE that covers it), for code no symbol names (stripped
 * local functions): a name by that start stays the same for every address of the function.
 * Returns 0, or -1 when the module cannot be read or no FDE covers the address.
 */
int symbolizer_cfi_start(struct symbolizer *sym, const char *module_path, uint64_t file_vaddr,
			 uint64_t *start);

/*
 * Names the ELF virtual address `file_vaddr` of `module_path` into *out (see struct
 * sym_loc; module and module_offset are always set). For a return address, pass the
 * address minus 1 to get the line of the call. Returns 0 when the module was read (the
 * function may still be unknown: out->function NULL), or -1 when the module cannot be
 * read (a warning the first time).
 */
int symbolizer_lookup(struct symbolizer *sym, const char *module_path, uint64_t file_vaddr,
		      struct sym_loc *out);

/*
 * proc_maps_resolve(), symbolizer_file_vaddr() and symbolizer_lookup() in one call for a
 * run-time address of the process that `maps` describes. Returns 0 when the address is
 * in a readable module (out->function may still be NULL), or -1 when it is in no file
 * (out->module NULL, out->module_offset = addr) or its module cannot be read.
 */
int symbolizer_lookup_runtime(struct symbolizer *sym, const struct proc_maps *maps, uint64_t addr,
			      struct sym_loc *out);

#endif
