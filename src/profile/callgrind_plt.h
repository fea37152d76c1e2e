#ifndef REVPERF_PROFILE_CALLGRIND_PLT_H
#define REVPERF_PROFILE_CALLGRIND_PLT_H

/*
 * Names for the PLT entries that callgrind shows as addresses (docs/callgrind.md, "PLT
 * entries"). Callgrind names a function without a symbol by its address; PLT entries have
 * none, and those valgrind does not skip (.plt.sec, .plt.got) appear so: as an address in
 * their object when valgrind knows the object, else, in the object "???", as the run-time
 * address. This renamer (a callgrind_rename_fn) gives them the name binutils gives them,
 * "memcpy@plt", from the object's PLT and dynamic relocations (binary/binfile.h):
 *
 * - in a known object, the address is the object's own: the PLT entry there, if any;
 * - in "???", the entry is looked for in the PLTs of the objects that call the address.
 *   An object is loaded at a page-aligned offset, so the address and its PLT entry agree
 *   on their low 12 bits; of the offsets that make the object's callees PLT entries, the
 *   one that makes the most (and no other as many) is taken. An address with no such
 *   entry, or callers in several objects that disagree, keeps callgrind's name;
 * - function symbols of size 0, which valgrind ignores (_init, _fini, code in assembly
 *   without .size), are named from the object's symbol table: at the object's own
 *   address, or in "???" at the offset found as above.
 *
 * Each object's PLT is read once per struct callgrind_plt (objects that are not regular
 * ELF files are skipped silently). Not thread-safe.
 */
#include <stddef.h>

#include "profile/callgrind.h"
#include "util/strmap.h"

struct binfile_plt;

struct callgrind_plt {
	struct strmap ids;	   /* object path -> index into plts */
	struct binfile_plt *plts; /* empty when the object could not be read */
	size_t nr, alloc;
};

#define CALLGRIND_PLT_INIT {STRMAP_INIT, NULL, 0, 0}

/* Frees the PLTs read; accepts a released one. */
void callgrind_plt_release(struct callgrind_plt *c);

/* The renamer: arg is a struct callgrind_plt (callgrind_read_renamed()). */
void callgrind_plt_rename(const struct callgrind_func_info *funcs, size_t nr_funcs,
			  const uint32_t (*calls)[2], size_t nr_calls, char **names, void *arg);

#endif
