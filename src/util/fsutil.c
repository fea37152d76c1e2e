#include "util/fsutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/common.h"

int mkdir_p(const char *path)
{
	char *p = xstrdup(path), *s;
	int ret = 0;
	for (s = p + 1; ; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0777) < 0 && errno != EEXIST) {
				ret = error("cannot create directory %s: %s; check the permissions "
					    "of its parent or choose another --state-dir",
					    p, strerror(errno));
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return ret;
}

int mkdir_own(const char *root, const char *path)
{
	size_t n = strlen(root);
	char *p;
	int ret = 0;
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (strncmp(path, root, n) || path[n] != '/')
		return mkdir_p(path);
	if (mkdir_p(root))
		return -1;
	p = xstrdup(path);
	for (char *s = p + n + 1;; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			struct stat st;
			*s = '\0';
			if (s > p && s[-1] != '/' && mkdir(p, 0777) < 0 && errno != EEXIST) {
				ret = error("cannot create directory %s: %s; check the permissions "
					    "of its parent or choose another --state-dir",
					    p, strerror(errno));
				break;
			}
			if (s > p && s[-1] != '/' && lstat(p, &st) == 0 && !S_ISDIR(st.st_mode)) {
				ret = error(
				    "%s is %s, not a directory: revperf does not follow links "
				    "inside %.*s; remove it",
				    p, S_ISLNK(st.st_mode) ? "a symbolic link" : "a file", (int)n,
				    root);
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return ret;
}

int open_own(const char *path, int flags, unsigned mode)
{
	return open(path, flags | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
}

FILE *fopen_own(const char *path, const char *mode)
{
	int flags = O_WRONLY | O_CREAT, fd;
	FILE *f;
	if (!strcmp(mode, "a"))
		flags |= O_APPEND;
	else if (!strcmp(mode, "wx"))
		flags |= O_EXCL;
	else
		flags |= O_TRUNC;
	if ((fd = open_own(path, flags, 0644)) < 0)
		return NULL;
	if (!(f = fdopen(fd, *mode == 'a' ? "a" : "w"))) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return f;
}

int whole_file_open(struct whole_file *w, const char *path)
{
	struct stat sb;

	memset(w, 0, sizeof(*w));
	w->path = xstrdup(path);
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
		/* a device or a fifo: the user's, written through as named */
		if ((w->f = fopen(path, "w")))
			return 0;
	} else {
		struct strbuf tmp = STRBUF_INIT;
		strbuf_addf(&tmp, "%s.tmp-%ld", path, (long)getpid());
		w->tmp = strbuf_detach(&tmp);
		if ((w->f = fopen_own(w->tmp, "w")))
			return 0;
	}
	int saved = errno;
	free(w->path);
	free(w->tmp);
	memset(w, 0, sizeof(*w));
	errno = saved;
	return -1;
}

static void whole_file_free(struct whole_file *w)
{
	free(w->path);
	free(w->tmp);
	memset(w, 0, sizeof(*w));
}

int whole_file_commit(struct whole_file *w)
{
	int bad = ferror(w->f), saved;

	errno = 0;
	if (fclose(w->f) || bad) {
		saved = errno ? errno : EIO;
		goto fail;
	}
	if (!w->tmp || !rename(w->tmp, w->path)) {
		whole_file_free(w);
		return 0;
	}
	saved = errno;
fail:
	if (w->tmp)
		unlink(w->tmp);
	whole_file_free(w);
	errno = saved ? saved : EIO;
	return -1;
}

void whole_file_abort(struct whole_file *w)
{
	fclose(w->f);
	if (w->tmp)
		unlink(w->tmp);
	whole_file_free(w);
}

const char *fs_strerror(int err)
{
	if (err == ELOOP)
		return "it is a symbolic link, which revperf does not follow in its own "
		       "directories (remove it)";
	return strerror(err);
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	UNUSED(sb);
	UNUSED(ftw);
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT) {
		error("cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : error("cannot stat %s: %s", path, strerror(errno));
	return nftw(path, remove_entry, 32, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

int path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

void fsutil_add_safe_name(struct strbuf *sb, const char *name)
{
	for (; *name; name++)
		strbuf_addch(sb, (isalnum((unsigned char)*name) || strchr("-_.", *name)) ? *name
											: '_');
}
