#ifndef REVPERF_UTIL_FSUTIL_H
#define REVPERF_UTIL_FSUTIL_H

/* Small file-system helpers of the engine. */

#include <stdio.h>

/* mkdir -p; returns 0 or -1 with an error printed naming the path and what to do. */
int mkdir_p(const char *path);
/* rm -rf of path (absent is fine); returns 0 or -1 with an error printed. */
int remove_tree(const char *path);
/*
 * revperf's own files (docs/store.md "Symbolic links"): what revperf creates in its state
 * directory, or in a directory it created for itself, is never written through a symbolic
 * link, so that a link planted there (a repository can commit .revperf/ci/junit.xml ->
 * ~/.bashrc) cannot redirect a write. Paths the user names (--junit FILE, --out DIR,
 * --state-dir DIR) are followed: the user chose them.
 *
 * mkdir_own: mkdir -p of path; when path is below root ("root/..."), every directory after
 * root must be a real directory, not a link (root itself and paths elsewhere are the
 * user's: followed). Returns 0, or -1 with an error printed naming the link.
 */
int mkdir_own(const char *root, const char *path);
/* open(2) with O_NOFOLLOW and O_CLOEXEC added: -1 with errno ELOOP when path is a link. */
int open_own(const char *path, int flags, unsigned mode);
/* fopen() of a file of revperf's own: mode "w" (truncate), "a" (append) or "wx" (new). */
FILE *fopen_own(const char *path, const char *mode);
/* strerror(err), but for ELOOP a sentence saying why a link is refused and what to do. */
const char *fs_strerror(int err);
/* Whether path exists (any type). */
int path_exists(const char *path);

/*
 * A file written whole: to "path.tmp-PID" (fopen_own), renamed over path at the end, so
 * that a reader never sees half of it and a failure leaves the old file. When path exists
 * and is neither a regular file nor a directory (a device such as /dev/null or
 * /dev/stdout, a fifo), it is written in place instead: renaming over a device replaces it
 * with a regular file, and as root that breaks /dev/null for every process.
 */
struct whole_file {
	FILE *f;
	char *path, *tmp; /* tmp NULL: written in place */
};
/* Opens w for path. Returns 0, or -1 with errno set (nothing printed, nothing left). */
int whole_file_open(struct whole_file *w, const char *path);
/*
 * Closes w's stream and renames the temporary over path. Returns 0, or -1 with errno set
 * after a write error (ferror), a failed close or rename; the temporary is then removed.
 * Frees what w holds either way.
 */
int whole_file_commit(struct whole_file *w);
/* Closes w's stream and removes the temporary (path is left as it was); frees w's. */
void whole_file_abort(struct whole_file *w);

/* Appends name to sb as a file name: letters, digits, '-', '_', '.' kept, '_' for the rest
 * (benchmark names may hold '/', ':', and gbench cases '<', ','...). */
struct strbuf;
void fsutil_add_safe_name(struct strbuf *sb, const char *name);

#endif
