#ifndef REVPERF_PROFILE_CALLGRIND_H
#define REVPERF_PROFILE_CALLGRIND_H

/*
 * Valgrind callgrind output (callgrind.out.PID, "Callgrind Format, Version 1") read into a
 * calling context tree. Callgrind records a call graph, not contexts: a self cost per function
 * and, per caller -> callee edge and call position, the number of calls and their inclusive
 * cost. The tree is reconstructed from the functions nobody calls (and the cost no caller
 * explains) down, each context of a function getting its self cost and callee edges scaled
 * by that context's share of the function's incoming inclusive cost; recursion is folded
 * into the outermost occurrence of the function on the path. Exact where the call graph is a
 * tree; docs/callgrind.md shows every approximation with an example.
 */
#include <stdbool.h>
#include <stddef.h>

#include "profile/cct.h"

/* Most contexts one profile expands into; more is an input error (see docs/callgrind.md). */
#define CALLGRIND_MAX_NODES ((size_t)1 << 21)

/*
 * A context whose estimated inclusive weight is below this fraction of the total is not
 * expanded: its calls' inclusive cost becomes its own weight (docs/callgrind.md, "Folding").
 */
#define CALLGRIND_FOLD_BELOW 1e-6

/*
 * Parses callgrind output from `text` (len bytes, need not be NUL-terminated) into `out`
 * (uninitialised or released), `origin` naming the input in errors ("file:12: ..."). The
 * weight is the event `event` of the events: line, or its first event (Ir normally) when
 * `event` is NULL; calls come from calls= lines (top frames have calls 0: callgrind does not
 * count them). Several parts, and several files concatenated, add up. Call sites are ranked
 * by the call's position (line or instruction address) among the caller's calls to the same
 * callee. Returns 0, or RP_EINPUT after one error() naming the line and what is wrong
 * (unknown line, bad number, missing events: line, event not recorded, calls= without its
 * cost line, cfn= or cost line before any fn=, totals: not matching, truncated file, more
 * than CALLGRIND_MAX_NODES contexts); `out` then holds only the root. The caller releases
 * `out` with cct_release().
 */
int callgrind_parse(const char *text, size_t len, const char *origin, const char *event,
		    struct cct *out);

/*
 * callgrind_parse() on the contents of `path`: a regular file, or standard input as "-",
 * at most the profile cap (util/input.h, docs/limits.md).
 */
int callgrind_read(const char *path, const char *event, struct cct *out);

/* What a renamer sees of one function of a profile. */
struct callgrind_func_info {
	const char *name;   /* as callgrind wrote it ("main", "0x000000000010b370") */
	const char *object; /* its ob=: a path, "???" when callgrind knew none, or "" */
};

/*
 * Names functions before the tree is built (profile/callgrind_plt.h names PLT entries):
 * called once per parse with every function and every caller -> callee edge (indexes
 * into funcs); names[] holds NULL on entry, and a function whose names[i] the callback
 * sets (xmalloc'd; the parser frees it) gets that name in the tree.
 */
typedef void (*callgrind_rename_fn)(const struct callgrind_func_info *funcs, size_t nr_funcs,
				    const uint32_t (*calls)[2], size_t nr_calls, char **names,
				    void *arg);

/* callgrind_parse() with a renamer (NULL: none). */
int callgrind_parse_renamed(const char *text, size_t len, const char *origin, const char *event,
			    callgrind_rename_fn rename, void *arg, struct cct *out);

/*
 * callgrind_read() with a renamer (NULL: none), and, when funcs is not NULL, the functions
 * exact: *funcs is a tree of depth 1, one node per function name of `out` with the
 * function's self cost (excl) and the calls to it (summed over its callers). The call-path
 * tree only estimates these where it splits a function over its contexts or folds light
 * contexts (docs/callgrind.md); callgrind counted them. Released by the caller as `out`.
 * With funcs, out may be NULL: the call-path tree is then not built at all.
 */
int callgrind_read_renamed(const char *path, const char *event, callgrind_rename_fn rename,
			   void *arg, struct cct *out, struct cct *funcs);

/*
 * True when `text` looks like callgrind (or cachegrind) output: a first line
 * "# callgrind format", or an events: line among the "key: value" lines that open the file.
 * Reads at most the first 64 KiB.
 */
bool callgrind_sniff(const char *text, size_t len);

#endif
