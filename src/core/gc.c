/*
 * revperf gc (gc.h): the state directory's worktrees and logs set against what the store
 * needs. Files are told apart by device and inode, not by name, so that a state directory
 * named through another path (--state-dir with a link, a relative name) still matches the
 * paths the rows hold.
 */
#include "core/gc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/worktree.h"
#include "store/store_gc.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

struct gc_need {
	dev_t dev;
	ino_t ino;
	int64_t newest_s;
};

struct gc_ctx {
	const struct gc_options *opt;
	struct gc_result *res;
	struct gc_need *needs;
	size_t nr_needs;
	int64_t now_s;
	int ret;
};

void gc_result_release(struct gc_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->nr; i++)
		free(res->items[i].path);
	free(res->items);
	memset(res, 0, sizeof(*res));
}

/* The identities of what the stored results point to (paths gone are left out). */
static int gc_needs_load(struct store *st, struct gc_ctx *c)
{
	struct store_gc_ref *refs;
	size_t nr, alloc = 0;
	struct stat sb;
	if (store_gc_refs(st, &refs, &nr))
		return -1;
	for (size_t i = 0; i < nr; i++) {
		if (lstat(refs[i].path, &sb) < 0)
			continue;
		ALLOC_GROW(c->needs, c->nr_needs + 1, alloc);
		c->needs[c->nr_needs].dev = sb.st_dev;
		c->needs[c->nr_needs].ino = sb.st_ino;
		c->needs[c->nr_needs].newest_s = refs[i].newest_s;
		c->nr_needs++;
	}
	store_gc_refs_release(refs, nr);
	return 0;
}

/* Whether sb is needed: 1 kept, 0 unused, -1 needed only by results older than the age. */
static int gc_needed(const struct gc_ctx *c, const struct stat *sb)
{
	int64_t newest = INT64_MIN;
	bool found = false;
	for (size_t i = 0; i < c->nr_needs; i++) {
		if (c->needs[i].dev != sb->st_dev || c->needs[i].ino != sb->st_ino)
			continue;
		found = true;
		if (c->needs[i].newest_s > newest)
			newest = c->needs[i].newest_s;
	}
	if (!found)
		return 0;
	if (c->opt->older_than && c->now_s - newest >= c->opt->older_than_ns / 1000000000LL)
		return -1;
	return 1;
}

/* Adds up the regular files and directories below the open directory fd (closed here),
 * never following a link. */
static void gc_measure_dir(int fd, struct gc_item *it)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	struct stat sb;
	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		int sub;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			it->dirs++;
			sub = openat(dirfd(d), e->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				gc_measure_dir(sub, it);
		} else {
			it->files++;
			if (S_ISREG(sb.st_mode))
				it->bytes += (uint64_t)sb.st_size;
		}
	}
	closedir(d);
}

static struct gc_item *gc_item_add(struct gc_ctx *c, const char *path, enum gc_kind kind,
				   int need)
{
	struct gc_result *res = c->res;
	struct gc_item *it;
	ALLOC_GROW(res->items, res->nr + 1, res->alloc);
	it = &res->items[res->nr++];
	memset(it, 0, sizeof(*it));
	it->path = xstrdup(path);
	it->kind = kind;
	it->reason = need < 0 ? GC_OLD : GC_UNUSED;
	return it;
}

static void gc_item_count(struct gc_result *res, const struct gc_item *it)
{
	res->bytes += it->bytes;
	res->files += it->files;
	res->dirs += it->dirs;
}

static void gc_worktree(struct gc_ctx *c, const char *path, const struct stat *sb)
{
	int need = gc_needed(c, sb), lock = -1, fd, locked;
	struct gc_item *it;
	if (need > 0)
		return;
	/* A worktree a comparison checks out or builds now is locked (build_ensure()). */
	locked = worktree_trylock(path, !c->opt->dry_run, &lock);
	if (locked) {
		if (locked > 0)
			c->res->in_use++;
		else
			c->ret = RP_EINTERNAL;
		return;
	}
	it = gc_item_add(c, path, GC_WORKTREE, need);
	it->dirs = 1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		gc_measure_dir(fd, it);
	if (!c->opt->dry_run && remove_tree(path)) {
		c->res->failed++;
		c->ret = RP_EINTERNAL;
		free(it->path);
		c->res->nr--;
	} else {
		gc_item_count(c->res, it);
	}
	worktree_unlock(lock);
}

static void gc_log(struct gc_ctx *c, const char *path, const struct stat *sb)
{
	int need = gc_needed(c, sb);
	struct gc_item *it;
	if (need > 0)
		return;
	if (need == 0 && c->opt->grace_ns > 0 &&
	    (int64_t)sb->st_mtime * 1000000000LL > (int64_t)c->now_s * 1000000000LL -
							   (int64_t)c->opt->grace_ns) {
		c->res->recent++;
		return;
	}
	it = gc_item_add(c, path, GC_LOG, need);
	it->files = 1;
	it->bytes = (uint64_t)sb->st_size;
	if (!c->opt->dry_run && unlink(path) < 0 && errno != ENOENT) {
		error("cannot remove %s: %s", path, strerror(errno));
		c->res->failed++;
		c->ret = RP_EINTERNAL;
		free(it->path);
		c->res->nr--;
	} else {
		gc_item_count(c->res, it);
	}
}

/* Whether dir is a real directory (1), absent (0), or a link or something else (-1, error). */
static int gc_dir_check(const char *dir)
{
	struct stat sb;
	if (lstat(dir, &sb) < 0) {
		if (errno == ENOENT)
			return 0;
		return error("cannot stat %s: %s", dir, strerror(errno));
	}
	if (!S_ISDIR(sb.st_mode))
		return error("%s is not a directory (a symbolic link?); gc does not follow links "
			     "out of the state directory: remove it",
			     dir);
	return 1;
}

/* Each worktree of dir (directories, not lock files or interrupted checkouts). Links and
 * anything else are left alone. */
static void gc_scan_worktrees(struct gc_ctx *c, const char *dir)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int ok = gc_dir_check(dir);
	if (ok <= 0) {
		if (ok < 0)
			c->ret = RP_EINTERNAL;
		return;
	}
	if (!(d = opendir(dir))) {
		error("cannot read %s: %s", dir, strerror(errno));
		c->ret = RP_EINTERNAL;
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		/* NAME.tmp-PID: a checkout in progress, or one worktree_remove_stale() removes;
		 * NAME.lock: kept (worktree_lock()). */
		if (lstat(path.buf, &sb) < 0 || !S_ISDIR(sb.st_mode) || strstr(e->d_name, ".tmp-"))
			continue;
		gc_worktree(c, path.buf, &sb);
	}
	closedir(d);
	strbuf_release(&path);
}

/*
 * The log files below dir (logs/, and its runs/<comparison>/ folders), each one a regular
 * file; links and anything else are left alone. A folder all of whose entries go goes too
 * (top: logs/ itself stays). Returns whether everything in dir went (or would go).
 */
static bool gc_scan_logs(struct gc_ctx *c, const char *dir, bool top)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *e;
	struct stat sb;
	bool all = true, any = false;
	DIR *d;
	if (!(d = opendir(dir))) {
		error("cannot read %s: %s", dir, strerror(errno));
		c->ret = RP_EINTERNAL;
		return false;
	}
	while ((e = readdir(d))) {
		size_t before = c->res->nr;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		if (lstat(path.buf, &sb) < 0) {
			all = false;
			continue;
		}
		if (S_ISDIR(sb.st_mode)) {
			if (gc_scan_logs(c, path.buf, false))
				any = true;
			else
				all = false;
		} else if (S_ISREG(sb.st_mode) && e->d_name[0] != '.') {
			gc_log(c, path.buf, &sb);
			if (c->res->nr > before)
				any = true;
			else
				all = false;
		} else {
			all = false;
		}
	}
	closedir(d);
	/* An empty folder is kept: a running comparison may just have made it. */
	if (!top && all && any) {
		struct gc_item *it;
		if (!c->opt->dry_run && rmdir(dir) < 0) {
			error("cannot remove %s: %s", dir, strerror(errno));
			c->res->failed++;
			c->ret = RP_EINTERNAL;
			all = false;
		} else {
			it = gc_item_add(c, dir, GC_LOG, 0);
			it->kind = GC_LOG_DIR;
			it->dirs = 1;
			gc_item_count(c->res, it);
		}
	}
	strbuf_release(&path);
	return all && any;
}

static int gc_item_cmp(const void *a, const void *b)
{
	const struct gc_item *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->path, y->path);
}

int gc_collect(struct store *st, const struct state_dir *sd, const struct gc_options *opt,
	       struct gc_result *res)
{
	struct gc_ctx c = { opt, res, NULL, 0, (int64_t)time(NULL), 0 };
	int ok;

	memset(res, 0, sizeof(*res));
	if (gc_needs_load(st, &c)) {
		free(c.needs);
		return RP_EINTERNAL;
	}
	gc_scan_worktrees(&c, sd->worktrees);
	ok = gc_dir_check(sd->logs);
	if (ok < 0)
		c.ret = RP_EINTERNAL;
	else if (ok > 0)
		gc_scan_logs(&c, sd->logs, true);
	if (res->nr)
		qsort(res->items, res->nr, sizeof(*res->items), gc_item_cmp);
	free(c.needs);
	return c.ret;
}

int gc_comparison_logs_missing(struct store *st, int64_t comparison_id, size_t *missing,
			       size_t *total)
{
	char **paths;
	size_t nr;
	*missing = *total = 0;
	if (store_comparison_logs(st, comparison_id, &paths, &nr))
		return RP_EINTERNAL;
	for (size_t i = 0; i < nr; i++) {
		if (!path_exists(paths[i]))
			(*missing)++;
		free(paths[i]);
	}
	free(paths);
	*total = nr;
	return 0;
}
