#include "util/fsutil.h"

#include <ctype.h>
#include <errno.h>
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
