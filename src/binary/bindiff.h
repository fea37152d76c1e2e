#ifndef REVPERF_BINARY_BINDIFF_H
#define REVPERF_BINARY_BINDIFF_H

/*
 * The function-level binary diff (METHODS.md section 6): which functions two builds added,
 * deleted, modified or renamed, judged on normalised machine code so that a function that
 * merely moved, or a changed comment, is no change. Used by `revperf bindiff`, the CCT
 * differencing (stages 1 and 2) and the benchmark predictor.
 */
#include <stdbool.h>
#include <stddef.h>

#include "binary/binfile.h"

enum bindiff_class {
	BINDIFF_MODIFIED,  /* same name, different normalised body */
	BINDIFF_RENAMED,   /* different name, identical body, the only such pair */
	BINDIFF_ADDED,	   /* only in the new file */
	BINDIFF_DELETED,   /* only in the old file */
	BINDIFF_UNCHANGED, /* same name, same body */
	BINDIFF_NR_CLASSES
};

/*
 * Why a paired function differs, when the difference is one of the compiler's or the
 * preprocessor's rather than a change of the code (bindiff_why.c, docs/bindiff.md).
 */
enum bindiff_why {
	BINDIFF_WHY_CODE = 0, /* a change of the code, or no change */
	/* modified: only immediates changed, each by as many lines as its instruction's
	 * source line moved (a __LINE__ after lines were added or removed above it) */
	BINDIFF_WHY_LINE,
	/* renamed, identical body: only the compiler's clone suffix changed (.part.0 ->
	 * .isra.0, .constprop.0 -> .constprop.1) */
	BINDIFF_WHY_CLONE,
};

struct bindiff_entry {
	enum bindiff_class cls;
	enum bindiff_why why;
	/* BINDIFF_WHY_LINE: new - old of the immediates when they all moved alike, else 0 */
	int line_shift;
	const struct binfunc *old_fn; /* NULL when added */
	const struct binfunc *new_fn; /* NULL when deleted */
	/* (new - old) / old instructions in %; NAN when added, deleted or old is empty. */
	double change_pct;
	/*
	 * Modified functions only: other modified functions that the new build inlined into
	 * this one (from DWARF; empty without it), i.e. this one may have changed because of
	 * them. Names are borrowed from the new file.
	 */
	const char **inlines;
	size_t nr_inlines;
};

struct bindiff {
	struct binfile *old_file, *new_file; /* owned by the bindiff */
	/* Sorted by class (in enum order), then by name. */
	struct bindiff_entry *entries;
	size_t nr_entries;
	size_t count[BINDIFF_NR_CLASSES];
	/* Of count[BINDIFF_MODIFIED] and count[BINDIFF_RENAMED]: how many have why set. */
	size_t nr_line_only, nr_clone_only;
	/* private: indices into entries by old and by new name, for bindiff_find() */
	size_t *by_old, *by_new;
	size_t nr_by_old, nr_by_new;
};

/*
 * Loads both files (binfile_load() with `flags`) and differences them. On success fills
 * *out, which the caller releases with bindiff_release(). On failure prints one error()
 * line and returns RP_EINPUT (a file is missing, not ELF, corrupt, of an unsupported
 * architecture, or the two architectures differ) or RP_EINTERNAL; *out is then empty.
 * Not thread-safe for the same bindiff; independent diffs may run in parallel.
 */
int bindiff_files(const char *old_path, const char *new_path, unsigned flags, struct bindiff *out);

/*
 * Differences two loaded files, taking ownership of both (also on failure). Recomputes
 * hashes of the new file's functions so that references to a renamed function compare
 * equal to references to its old name. Returns 0, or RP_EINPUT when the architectures
 * differ.
 */
int bindiff_compute(struct binfile *old_file, struct binfile *new_file, struct bindiff *out);

/* Frees the entries and both files; accepts a zeroed or released bindiff. */
void bindiff_release(struct bindiff *d);

/*
 * The length of `name` without GCC's clone and split suffixes (".part.0", ".isra.0",
 * ".constprop.1", ".cold", ".lto_priv.0", ... and chains of them): 3 for
 * "foo.constprop.0.isra.0"; strlen(name) when it has none. Functions of one base whose
 * suffix changed pair up as one function (docs/bindiff.md).
 */
size_t bindiff_clone_base(const char *name);

/*
 * Sets `why` of the entries of d whose change is only a clone suffix or a line-number
 * constant, and d's counts of them (bindiff_why.c; bindiff_compute() calls it). Needs the
 * files' disassembly and, for line numbers, their DWARF line tables.
 */
void bindiff_explain(struct bindiff *d);

/* True when no function was added, deleted, modified or renamed. */
bool bindiff_identical(const struct bindiff *d);

/* "modified", "renamed", "added", "deleted", "unchanged". */
const char *bindiff_class_name(enum bindiff_class cls);

/*
 * The entry of the function called `name` in the new build (new_side) or the old one;
 * `cu` picks among same-named local functions (NULL: the first). NULL when there is none.
 * O(log n).
 */
const struct bindiff_entry *bindiff_find(const struct bindiff *d, const char *name, const char *cu,
					 bool new_side);

#endif
