#ifndef REVPERF_PROFILE_FOLDED_H
#define REVPERF_PROFILE_FOLDED_H

/*
 * Folded stacks ("a;b;c 123" per line: the frames from the outermost call down to the
 * sampled function, then the number of samples or any other weight), which perf script +
 * stackcollapse, and many profilers, produce. A line's weight is exclusive weight of its
 * last frame; inclusive weights are computed. The format has no call counts (they stay 0)
 * and no call sites (every site rank is 0).
 */
#include <stdio.h>

#include "profile/cct.h"

struct strbuf;

/*
 * Parses folded stacks from `text` (len bytes, need not be NUL-terminated) into `out`
 * (uninitialised or released), `origin` naming the input in errors ("file:12: ..."). Empty
 * lines are skipped; a frame may contain spaces (the weight follows the last space). Returns
 * 0, or RP_EINPUT after one error() naming the line (missing or non-numeric weight, empty
 * frame) or the input (no stack at all, every count 0: an empty profile is an error, not
 * a tree without differences); `out` then holds only the root. The caller releases `out` with cct_release().
 */
int folded_parse(const char *text, size_t len, const char *origin, struct cct *out);

/*
 * folded_parse() on the contents of `path`: a regular file, or standard input as "-", at
 * most the profile cap (util/input.h, docs/limits.md).
 */
int folded_read(const char *path, struct cct *out);

/*
 * Appends the tree to sb as folded stacks: one line per node with nonzero exclusive weight,
 * in node order (parents first, children in creation order), frames named as cct_path()
 * names them (a call site rank other than 0 as "name#rank", which reads back as its own
 * function: write cct_plain() of a tree with call sites for a faithful round trip).
 */
void folded_write(const struct cct *t, struct strbuf *sb);

#endif
