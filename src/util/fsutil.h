#ifndef REVPERF_UTIL_FSUTIL_H
#define REVPERF_UTIL_FSUTIL_H

/* Small file-system helpers of the engine. */

/* mkdir -p; returns 0 or -1 with an error printed naming the path and what to do. */
int mkdir_p(const char *path);
/* rm -rf of path (absent is fine); returns 0 or -1 with an error printed. */
int remove_tree(const char *path);
/* Whether path exists (any type). */
int path_exists(const char *path);

/* Appends name to sb as a file name: letters, digits, '-', '_', '.' kept, '_' for the rest
 * (benchmark names may hold '/', ':', and gbench cases '<', ','...). */
struct strbuf;
void fsutil_add_safe_name(struct strbuf *sb, const char *name);

#endif
