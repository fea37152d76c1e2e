#ifndef REVPERF_BINARY_FINGERPRINT_H
#define REVPERF_BINARY_FINGERPRINT_H

#include <stdbool.h>

#include "util/strbuf.h"

/*
 * The fingerprint of what a build produced that its benchmarks run (docs/store.md
 * "Build fingerprints"): every ELF executable and shared object under a build's worktree
 * (ET_EXEC or ET_DYN: programs, PIE programs and libraries; object files and archives are
 * not run), each with a 64-bit hash of what the loader maps: the contents, names, types,
 * flags, addresses and sizes of its allocated sections, notes left out (the build-id note
 * hashes the debug information too, which a benchmark does not run). A file without
 * section headers is hashed whole. Not a cryptographic hash: it tells a changed program,
 * it does not resist one made to collide.
 *
 * As text, one line per file sorted by path: "HASH16 PATH\n" (16 hex digits, the path
 * relative to the worktree, a newline in it shown as '?'). The empty text: no ELF file (a
 * build of scripts).
 */

/*
 * Appends the fingerprint of the tree dir to out. Skips dir/.git and symbolic links (not
 * followed). Returns 0, or -1 with an error printed (a directory or an ELF file that cannot
 * be read).
 */
int fingerprint_tree(const char *dir, struct strbuf *out);

/*
 * What differs between two fingerprint texts, for one line: "PATH: OLD12 -> NEW12" of the
 * first file that changed (a file only in one: "(none)" on the other side), with ", and N
 * more files" when more did. Appends to what; false (nothing appended) when they are equal.
 */
bool fingerprint_describe_change(const char *old_fp, const char *new_fp, struct strbuf *what);

#endif
