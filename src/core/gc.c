/*
 * revperf gc (gc.h): the state directory's worktrees, logs, profiles and dynamic data set
 * against what the store needs. Files are told apart by device and inode, not by name,
 * so that a state directory named through another path (--state-dir with a link, a
 * relative name) still matches the paths the rows hold.
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
	int64_t *comparisons; /* the stored comparisons' ids, ascending */
	size_t nr_comparisons;
	int64_t now_s;
	int ret;
	/* logs/runs of the state directory, and the store's own folder in it (struct
	 * state_dir's run_logs): another store's logs/runs/store-<id>/ is left alone */
	const char *runs, *own_runs;
};

/* What a folder holds, all the way down. */
struct gc_tree {
	uint64_t bytes, files, dirs; /* sizes of the regular files; dirs below the folder */
	bool needed;		     /* a stored row points to something in it */
	int64_t newest_s;	     /* the newest change (mtime) in it */
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

/*
 * Adds up into t the regular files and directories below the open directory fd (closed
 * here), never following a link; with c, also whether a stored row points to any of them
 * and their newest change.
 */
static void gc_walk(const struct gc_ctx *c, int fd, struct gc_tree *t)
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
		if (c && gc_needed(c, &sb))
			t->needed = true;
		if ((int64_t)sb.st_mtime > t->newest_s)
			t->newest_s = (int64_t)sb.st_mtime;
		if (S_ISDIR(sb.st_mode)) {
			t->dirs++;
			sub = openat(dirfd(d), e->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				gc_walk(c, sub, t);
		} else {
			t->files++;
			if (S_ISREG(sb.st_mode))
				t->bytes += (uint64_t)sb.st_size;
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

/* The last item added could not be removed (its error said why): dropped, counted. */
static void gc_item_failed(struct gc_ctx *c)
{
	c->res->failed++;
	c->ret = RP_EINTERNAL;
	free(c->res->items[--c->res->nr].path);
}

static void gc_item_count(struct gc_result *res, const struct gc_item *it)
{
	res->bytes += it->bytes;
	res->files += it->files;
	res->dirs += it->dirs;
}

/*
 * A worktree of worktrees/ (a directory: lock files and links are left alone), removed
 * unless a stored result needs it or another revperf holds its lock. Returns whether it
 * went (or would go).
 */
static bool gc_visit_worktree(struct gc_ctx *c, const char *path, const struct stat *sb)
{
	int need = gc_needed(c, sb), lock = -1, fd, locked;
	struct gc_tree t = {0};
	struct gc_item *it;
	bool gone = true;
	/* NAME.tmp-PID: a checkout in progress, or one worktree_remove_stale() removes. */
	if (need > 0 || strstr(strrchr(path, '/'), ".tmp-"))
		return false;
	/* A worktree a comparison checks out or builds now is locked (build_ensure()). */
	locked = worktree_trylock(path, !c->opt->dry_run, &lock);
	if (locked) {
		if (locked > 0)
			c->res->in_use++;
		else
			c->ret = RP_EINTERNAL;
		return false;
	}
	it = gc_item_add(c, path, GC_WORKTREE, need);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		gc_walk(NULL, fd, &t);
	it->bytes = t.bytes;
	it->files = t.files;
	it->dirs = 1 + t.dirs;
	if (!c->opt->dry_run && remove_tree(path)) {
		gc_item_failed(c);
		gone = false;
	} else {
		gc_item_count(c->res, it);
	}
	worktree_unlock(lock);
	return gone;
}

/* Whether a change at mtime_s is within the grace period (a running command's file). */
static bool gc_recent(const struct gc_ctx *c, int64_t mtime_s)
{
	return c->opt->grace_ns > 0 &&
	       mtime_s * 1000000000LL > c->now_s * 1000000000LL - (int64_t)c->opt->grace_ns;
}

static void gc_log(struct gc_ctx *c, const char *path, const struct stat *sb)
{
	int need = gc_needed(c, sb);
	struct gc_item *it;
	if (need > 0)
		return;
	if (need == 0 && gc_recent(c, (int64_t)sb->st_mtime)) {
		c->res->recent++;
		return;
	}
	it = gc_item_add(c, path, GC_LOG, need);
	it->files = 1;
	it->bytes = (uint64_t)sb->st_size;
	if (!c->opt->dry_run && unlink(path) < 0 && errno != ENOENT) {
		error("cannot remove %s: %s", path, strerror(errno));
		gc_item_failed(c);
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

/* Removes dir, whose every entry gc removed (or would), as an item of kind. Returns 0, or
 * -1 after an error (counted as failed). */
static int gc_remove_emptied(struct gc_ctx *c, const char *dir, enum gc_kind kind)
{
	struct gc_item *it;
	if (!c->opt->dry_run && rmdir(dir) < 0) {
		error("cannot remove %s: %s", dir, strerror(errno));
		c->res->failed++;
		c->ret = RP_EINTERNAL;
		return -1;
	}
	it = gc_item_add(c, dir, kind, 0);
	it->dirs = 1;
	gc_item_count(c->res, it);
	return 0;
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
		if (S_ISDIR(sb.st_mode) && !strcmp(dir, c->runs) && strcmp(path.buf, c->own_runs) &&
		    (!strncmp(e->d_name, "store-", 6) || strcmp(c->runs, c->own_runs))) {
			/* another store's run logs (store-<id>/, or the state directory's own
			 * store's <comparison>/ when this one is not it): its own gc's */
			all = false;
		} else if (S_ISDIR(sb.st_mode)) {
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
	if (!top && all && any && gc_remove_emptied(c, dir, GC_LOG_DIR))
		all = false;
	strbuf_release(&path);
	return all && any;
}

/*
 * The folder path (profiles/<id>, dynamic/<sha12>/<benchmark>), whose owner is not in the
 * store, removed as an item of kind unless a stored row points into it or something in it
 * changed within the grace period (a running command's). Returns whether it went (or, with
 * dry_run, would go).
 */
static bool gc_orphan_dir(struct gc_ctx *c, const char *path, const struct stat *sb,
			  enum gc_kind kind)
{
	struct gc_tree t = {0};
	struct gc_item *it;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		error("cannot read %s: %s", path, strerror(errno));
		c->ret = RP_EINTERNAL;
		return false;
	}
	t.newest_s = (int64_t)sb->st_mtime;
	gc_walk(c, fd, &t);
	if (t.needed)
		return false;
	if (gc_recent(c, t.newest_s)) {
		c->res->recent_dirs++;
		return false;
	}
	it = gc_item_add(c, path, kind, 0);
	it->bytes = t.bytes;
	it->files = t.files;
	it->dirs = 1 + t.dirs;
	if (!c->opt->dry_run && remove_tree(path)) {
		gc_item_failed(c);
		return false;
	}
	gc_item_count(c->res, it);
	return true;
}

/* Whether name is a stored comparison's id (profiles/<id>); other names are not gc's. */
static bool gc_profiles_kept(const struct gc_ctx *c, const char *name)
{
	int64_t id = 0;
	size_t lo = 0, hi = c->nr_comparisons;
	if (!*name || strlen(name) > 18 || strspn(name, "0123456789") != strlen(name))
		return true;
	for (const char *p = name; *p; p++)
		id = id * 10 + (*p - '0');
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->comparisons[mid] == id)
			return true;
		if (c->comparisons[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * Calls visit on each real directory in dir (not dot-named, no link); dir absent is
 * nothing to do, a link or a file in its place an error. Returns whether every entry of
 * dir was visited and went (visit returned true), at least one.
 */
static bool gc_each_dir(struct gc_ctx *c, const char *dir,
			bool (*visit)(struct gc_ctx *c, const char *path, const struct stat *sb))
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *e;
	struct stat sb;
	bool all = true, any = false;
	DIR *d;
	int ok = gc_dir_check(dir);
	if (ok <= 0) {
		if (ok < 0)
			c->ret = RP_EINTERNAL;
		return false;
	}
	if (!(d = opendir(dir))) {
		error("cannot read %s: %s", dir, strerror(errno));
		c->ret = RP_EINTERNAL;
		return false;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || lstat(path.buf, &sb) < 0 || !S_ISDIR(sb.st_mode) ||
		    !visit(c, path.buf, &sb))
			all = false;
		else
			any = true;
	}
	closedir(d);
	strbuf_release(&path);
	return all && any;
}

static bool gc_visit_profiles(struct gc_ctx *c, const char *path, const struct stat *sb)
{
	const char *name = strrchr(path, '/') + 1;
	return !gc_profiles_kept(c, name) && gc_orphan_dir(c, path, sb, GC_PROFILES);
}

/* dynamic/<sha12>/<benchmark>: its owner is the row of dynamic data that points to it. */
static bool gc_visit_dynamic(struct gc_ctx *c, const char *path, const struct stat *sb)
{
	return !gc_needed(c, sb) && gc_orphan_dir(c, path, sb, GC_DYNAMIC);
}

/* dynamic/<sha12>: removed too when gc emptied it (an empty one is kept, as in logs/). */
static bool gc_visit_dynamic_rev(struct gc_ctx *c, const char *path, const struct stat *sb)
{
	UNUSED(sb);
	return gc_each_dir(c, path, gc_visit_dynamic) &&
	       !gc_remove_emptied(c, path, GC_DYNAMIC_DIR);
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
	struct gc_ctx c = {opt, res, NULL, 0, NULL, 0, (int64_t)time(NULL), 0, NULL, NULL};
	struct strbuf dir = STRBUF_INIT, runs = STRBUF_INIT;
	int ok;

	memset(res, 0, sizeof(*res));
	if (gc_needs_load(st, &c) || store_gc_comparisons(st, &c.comparisons, &c.nr_comparisons)) {
		free(c.needs);
		return RP_EINTERNAL;
	}
	gc_each_dir(&c, sd->worktrees, gc_visit_worktree);
	ok = gc_dir_check(sd->logs);
	if (ok < 0)
		c.ret = RP_EINTERNAL;
	else if (ok > 0) {
		strbuf_addf(&runs, "%s/runs", sd->logs);
		c.runs = runs.buf;
		c.own_runs = sd->run_logs;
		gc_scan_logs(&c, sd->logs, true);
	}
	strbuf_release(&runs);
	/* the store's own folder of profiles (state_dir_bind_store): another store's
	 * store-<id>/ in profiles/ is not a comparison number, and is left alone */
	gc_each_dir(&c, sd->profiles, gc_visit_profiles);
	strbuf_addf(&dir, "%s/dynamic", sd->root);
	gc_each_dir(&c, dir.buf, gc_visit_dynamic_rev);
	strbuf_release(&dir);
	if (res->nr)
		qsort(res->items, res->nr, sizeof(*res->items), gc_item_cmp);
	free(c.needs);
	free(c.comparisons);
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
