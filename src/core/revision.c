#include "core/revision.h"

#include <errno.h>
#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "util/common.h"

struct repo {
	git_repository *repo;
	char *workdir;
};

static const char *git_message(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

void revision_release(struct revision *rev)
{
	if (!rev)
		return;
	free(rev->expr);
	free(rev->summary);
	memset(rev, 0, sizeof(*rev));
}

/*
 * The environment variables with which a caller chooses git's repository, index or objects
 * (git exports GIT_DIR to its hooks; git's own list for entering another repository):
 * inherited by a build or a benchmark, they would point git in a worktree back at the
 * user's repository.
 */
static const char *const repo_env[] = {
	"GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_GRAFT_FILE",
	"GIT_SHALLOW_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_NAMESPACE",
	"GIT_PREFIX",
};

bool repo_dir_in_git(const char *dir)
{
	git_repository *repo = NULL;
	bool in;
	git_libgit2_init();
	in = git_repository_open_ext(&repo, dir, 0, NULL) == 0;
	git_repository_free(repo);
	git_libgit2_shutdown();
	return in;
}

int repo_open(const char *dir, struct repo **out)
{
	struct repo *r;
	git_repository *repo = NULL;
	const char *wd;
	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0) {
		error("%s is not inside a git repository (%s); run revperf in your project, or "
		      "compare commands with --cmd-a/--cmd-b",
		      dir, git_message());
		git_libgit2_shutdown();
		return RP_EINPUT;
	}
	wd = git_repository_workdir(repo);
	if (!wd) {
		error("%s is a bare repository; revperf needs a work tree", dir);
		git_repository_free(repo);
		git_libgit2_shutdown();
		return RP_EINPUT;
	}
	for (size_t i = 0; i < ARRAY_SIZE(repo_env); i++)
		unsetenv(repo_env[i]);
	r = xcalloc(1, sizeof(*r));
	r->repo = repo;
	r->workdir = xstrdup(wd);
	/* libgit2 ends the path with '/'; drop it for nicer joins. */
	if (strlen(r->workdir) > 1 && r->workdir[strlen(r->workdir) - 1] == '/')
		r->workdir[strlen(r->workdir) - 1] = '\0';
	*out = r;
	return 0;
}

const char *repo_library_version(void)
{
	static char buf[64];
	int major, minor, rev;
	if (!buf[0]) {
		git_libgit2_version(&major, &minor, &rev);
		snprintf(buf, sizeof(buf), "libgit2 %d.%d.%d", major, minor, rev);
	}
	return buf;
}

void repo_close(struct repo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	free(r->workdir);
	free(r);
	git_libgit2_shutdown();
}

const char *repo_workdir(const struct repo *r)
{
	return r->workdir;
}

int repo_resolve(struct repo *r, const char *expr, struct revision *out)
{
	git_object *obj = NULL;
	git_commit *commit = NULL;
	const char *summary;
	int ret = RP_EINPUT;

	memset(out, 0, sizeof(*out));
	if (git_revparse_single(&obj, r->repo, expr) < 0) {
		error("unknown revision '%s': %s; use a sha, branch, tag or expression such as "
		      "HEAD~1",
		      expr, git_message());
		goto out;
	}
	if (git_object_peel((git_object **)&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		error("revision '%s' does not name a commit: %s", expr, git_message());
		goto out;
	}
	git_oid_tostr(out->sha, sizeof(out->sha), git_commit_id(commit));
	summary = git_commit_summary(commit);
	out->summary = xstrdup(summary ? summary : "");
	out->commit_time = (int64_t)git_commit_time(commit);
	if (git_commit_parentcount(commit) > 0)
		git_oid_tostr(out->parent, sizeof(out->parent), git_commit_parent_id(commit, 0));
	out->expr = xstrdup(expr);
	ret = 0;
out:
	git_commit_free(commit);
	git_object_free(obj);
	return ret;
}

/* Writes len bytes of data to path (created or truncated). Returns 0 or -1 with an error. */
static int write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "we");
	bool ok = f && fwrite(data, 1, len, f) == len;
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok)
		return error("cannot write %s: %s", path, strerror(errno));
	return 0;
}

/*
 * Creates dir and the git directory gitdir of a private repository with HEAD detached at
 * rev: the few files git needs, written directly rather than by git_repository_init_ext(),
 * which writes three times as many (templates, probes, lock files), and creating files is
 * most of the cost of a checkout. Git's defaults apply to what the config leaves out (file
 * modes and symbolic links supported, as on the Linux file systems revperf runs on).
 * Returns 0 or -1 with an error.
 */
static int private_repo_init(const struct revision *rev, const char *dir, const char *gitdir)
{
	static const char *const dirs[] = { "", "/objects", "/objects/info", "/refs" };
	static const char config[] = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n";
	struct strbuf path = STRBUF_INIT, head = STRBUF_INIT;
	int ret = -1;
	if (mkdir(dir, 0777) < 0) {
		error("cannot create directory %s: %s", dir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s%s", gitdir, dirs[i]);
		if (mkdir(path.buf, 0777) < 0) {
			error("cannot create directory %s: %s", path.buf, strerror(errno));
			goto out;
		}
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/HEAD", gitdir);
	strbuf_addf(&head, "%s\n", rev->sha);
	if (write_file(path.buf, head.buf, head.len))
		goto out;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/config", gitdir);
	ret = write_file(path.buf, config, sizeof(config) - 1);
out:
	strbuf_release(&path);
	strbuf_release(&head);
	return ret;
}

/*
 * Writes gitdir/objects/info/alternates: the absolute path of the user's object directory,
 * unless the file says so already; common receives the user's common git directory.
 * Returns 0 or -1 with an error.
 */
static int private_repo_alternates(struct repo *r, const char *gitdir, char common[PATH_MAX])
{
	struct strbuf path = STRBUF_INIT, want = STRBUF_INIT, have = STRBUF_INIT;
	int ret = -1;
	if (!realpath(git_repository_commondir(r->repo), common)) {
		error("cannot resolve %s: %s", git_repository_commondir(r->repo), strerror(errno));
		goto out;
	}
	strbuf_addf(&path, "%s/objects/info/alternates", gitdir);
	strbuf_addf(&want, "%s/objects\n", common);
	if (strbuf_read_file(&have, path.buf, 1 << 20) == 0 && !strcmp(have.buf, want.buf))
		ret = 0;
	else
		ret = write_file(path.buf, want.buf, want.len);
out:
	strbuf_release(&path);
	strbuf_release(&want);
	strbuf_release(&have);
	return ret;
}

int repo_worktree_relink(struct repo *r, const char *dir)
{
	struct strbuf gitdir = STRBUF_INIT;
	char common[PATH_MAX];
	int ret;
	strbuf_addf(&gitdir, "%s/.git", dir);
	ret = private_repo_alternates(r, gitdir.buf, common) ? RP_EINTERNAL : 0;
	strbuf_release(&gitdir);
	return ret;
}

/*
 * Lets the private repository gitdir borrow the objects of the user's repository (an
 * absolute path in objects/info/alternates, as `git clone --shared` writes) and gives it
 * the user's tags (for `git describe`) in a packed-refs file, and the user's shallow file
 * if any. Returns 0 or -1 with an error.
 */
static int private_repo_link(struct repo *r, const char *gitdir)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	struct strbuf path = STRBUF_INIT, sb = STRBUF_INIT;
	char common[PATH_MAX], oid[GIT_OID_HEXSZ + 1];
	int rc, ret = -1;

	if (private_repo_alternates(r, gitdir, common))
		goto out;

	rc = git_reference_iterator_glob_new(&it, r->repo, "refs/tags/*");
	while (rc == 0 && (rc = git_reference_next(&ref, it)) == 0) {
		/* A symbolic tag is rare and has no packed form: left out. */
		if (git_reference_type(ref) == GIT_REFERENCE_DIRECT)
			strbuf_addf(&sb, "%s %s\n",
				    git_oid_tostr(oid, sizeof(oid), git_reference_target(ref)),
				    git_reference_name(ref));
		git_reference_free(ref);
	}
	if (rc != GIT_ITEROVER) {
		error("cannot read the tags of %s: %s", r->workdir, git_message());
		goto out;
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/packed-refs", gitdir);
	if (sb.len && write_file(path.buf, sb.buf, sb.len))
		goto out;

	/* A shallow clone's commits have parents it does not hold: git must know. */
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/shallow", common);
	strbuf_reset(&sb);
	if (path_exists(path.buf)) {
		if (strbuf_read_file(&sb, path.buf, 256 << 20) < 0)
			goto out;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/shallow", gitdir);
		if (write_file(path.buf, sb.buf, sb.len))
			goto out;
	}
	ret = 0;
out:
	git_reference_iterator_free(it);
	strbuf_release(&path);
	strbuf_release(&sb);
	return ret;
}

/* The first blob of a tree that the object database lacks (missing_blob()). */
struct missing_walk {
	git_odb *odb;
	git_oid oid;
	struct strbuf path;
	bool found;
};

static int missing_blob_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct missing_walk *w = payload;
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    git_odb_exists(w->odb, git_tree_entry_id(e)))
		return 0;
	git_oid_cpy(&w->oid, git_tree_entry_id(e));
	strbuf_addf(&w->path, "%s%s", root, git_tree_entry_name(e));
	w->found = true;
	return -1; /* stops the walk */
}

/*
 * After a failed checkout of commit in repo: when a blob of its tree is missing from the
 * object database (a partial clone, whose objects libgit2 does not fetch, or a damaged
 * repository), prints one error naming it and what to do, and returns true; else false.
 */
static bool missing_blob(git_repository *repo, git_commit *commit, const char *sha)
{
	struct missing_walk w = {NULL, {{0}}, STRBUF_INIT, false};
	git_tree *tree = NULL;
	char oid[GIT_OID_HEXSZ + 1];
	if (!git_repository_odb(&w.odb, repo) && !git_commit_tree(&tree, commit))
		git_tree_walk(tree, GIT_TREEWALK_PRE, missing_blob_cb, &w);
	if (w.found)
		error("cannot check out %.12s: the repository lacks object %s (%s) of that commit, "
		      "as a partial clone or a damaged repository does: `git fsck` lists what is "
		      "missing; fetch it, or compare in a full clone",
		      sha, git_oid_tostr(oid, sizeof(oid), &w.oid), w.path.buf);
	git_tree_free(tree);
	git_odb_free(w.odb);
	strbuf_release(&w.path);
	return w.found;
}

int repo_checkout(struct repo *r, const struct revision *rev, const char *dir)
{
	git_oid oid;
	git_repository *priv = NULL;
	git_commit *commit = NULL;
	git_checkout_options opts;
	struct strbuf tmp = STRBUF_INIT, gitdir = STRBUF_INIT;
	int ret = RP_EINTERNAL;

	strbuf_addf(&tmp, "%s.tmp-%ld", dir, (long)getpid());
	strbuf_addf(&gitdir, "%s/.git", tmp.buf);
	if (remove_tree(tmp.buf) < 0)
		goto out;
	if (git_oid_fromstr(&oid, rev->sha) < 0) {
		error("not a commit id: '%s'", rev->sha);
		goto out;
	}
	/* A repository of its own (tmp/.git, no absolute path in it, so that it can be
	 * renamed), which borrows the user's objects: git run by the build finds it first,
	 * and what it writes stays there. */
	if (private_repo_init(rev, tmp.buf, gitdir.buf) || private_repo_link(r, gitdir.buf))
		goto out;
	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_repository_open(&priv, gitdir.buf) < 0 ||
	    git_commit_lookup(&commit, priv, &oid) < 0 ||
	    git_checkout_tree(priv, (git_object *)commit, &opts) < 0) {
		char *why = xstrdup(git_message()); /* before the walk sets another */
		if (commit && missing_blob(priv, commit, rev->sha))
			ret = RP_EINPUT; /* the repository's state, not revperf's */
		else
			error("cannot check out %.12s into %s: %s", rev->sha, tmp.buf, why);
		free(why);
		goto out;
	}
	if (rename(tmp.buf, dir) < 0) {
		error("cannot move %s to %s: %s", tmp.buf, dir, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	git_commit_free(commit);
	git_repository_free(priv);
	if (ret)
		remove_tree(tmp.buf);
	strbuf_release(&tmp);
	strbuf_release(&gitdir);
	return ret;
}

void revisions_free(struct revision *revs, size_t n)
{
	for (size_t i = 0; revs && i < n; i++)
		revision_release(&revs[i]);
	free(revs);
}

/* Fills rev from the commit oid (expr = the short sha). Returns 0 or RP_EINTERNAL. */
static int revision_of_oid(struct repo *r, const git_oid *oid, struct revision *rev)
{
	git_commit *commit = NULL;
	const char *summary;
	char sha[41];
	memset(rev, 0, sizeof(*rev));
	if (git_commit_lookup(&commit, r->repo, oid) < 0) {
		error("cannot read commit %s: %s", git_oid_tostr(sha, sizeof(sha), oid),
		      git_message());
		return RP_EINTERNAL;
	}
	git_oid_tostr(rev->sha, sizeof(rev->sha), oid);
	summary = git_commit_summary(commit);
	rev->summary = xstrdup(summary ? summary : "");
	rev->commit_time = (int64_t)git_commit_time(commit);
	if (git_commit_parentcount(commit) > 0)
		git_oid_tostr(rev->parent, sizeof(rev->parent), git_commit_parent_id(commit, 0));
	rev->expr = xstrndup(rev->sha, 12);
	git_commit_free(commit);
	return 0;
}

/* Peels expr to a commit oid. Returns 0 or RP_EINPUT after an error naming expr. */
static int resolve_oid(struct repo *r, const char *expr, git_oid *oid)
{
	struct revision rev;
	if (repo_resolve(r, expr, &rev))
		return RP_EINPUT;
	git_oid_fromstr(oid, rev.sha);
	revision_release(&rev);
	return 0;
}

int repo_range(struct repo *r, const char *range, bool first_parent, size_t limit,
	       struct revision **out, size_t *n)
{
	git_revwalk *walk = NULL;
	git_oid oid, hide, *oids = NULL;
	size_t nr = 0, alloc = 0, first;
	const char *dots = strstr(range, "..");
	char *from = NULL, *to = NULL;
	int ret = RP_EINPUT, rc;

	*out = NULL;
	*n = 0;
	if (dots && dots[2] == '.') {
		error("range '%s': A...B (symmetric difference) is not a history; use A..B", range);
		return RP_EINPUT;
	}
	if (dots) {
		from = xstrndup(range, (size_t)(dots - range));
		to = xstrdup(*(dots + 2) ? dots + 2 : "HEAD");
		if (!*from) {
			error("range '%s': expected A..B with A a revision", range);
			goto out;
		}
	} else {
		to = xstrdup(range);
	}
	if (resolve_oid(r, to, &oid) || (from && resolve_oid(r, from, &hide)))
		goto out;
	ret = RP_EINTERNAL;
	if (git_revwalk_new(&walk, r->repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME) < 0) {
		error("cannot walk the history of '%s': %s", range, git_message());
		goto out;
	}
	if (first_parent)
		git_revwalk_simplify_first_parent(walk);
	if (git_revwalk_push(walk, &oid) < 0 || (from && git_revwalk_hide(walk, &hide) < 0)) {
		error("cannot walk the history of '%s': %s", range, git_message());
		goto out;
	}
	/* Newest first; a limit keeps the newest, so the walk can stop early. */
	while ((rc = git_revwalk_next(&oid, walk)) == 0) {
		ALLOC_GROW(oids, nr + 1, alloc);
		oids[nr++] = oid;
		if (limit && nr == limit)
			break;
	}
	if (rc < 0 && rc != GIT_ITEROVER) {
		error("cannot walk the history of '%s': %s", range, git_message());
		goto out;
	}
	*out = xcalloc(nr ? nr : 1, sizeof(**out));
	for (first = 0; first < nr; first++) {
		if (revision_of_oid(r, &oids[nr - 1 - first], &(*out)[first])) {
			revisions_free(*out, first);
			*out = NULL;
			goto out;
		}
	}
	*n = nr;
	ret = 0;
out:
	git_revwalk_free(walk);
	free(oids);
	free(from);
	free(to);
	return ret;
}

int repo_merge_base(struct repo *r, const char *a, const char *b, char out[41])
{
	git_oid oa, ob, base;
	if (git_oid_fromstr(&oa, a) < 0 || git_oid_fromstr(&ob, b) < 0) {
		error("not a commit id: '%s' or '%s'", a, b);
		return RP_EINPUT;
	}
	if (git_merge_base(&base, r->repo, &oa, &ob) < 0) {
		error("commits %.12s and %.12s have no common ancestor: %s", a, b, git_message());
		return RP_EINPUT;
	}
	git_oid_tostr(out, 41, &base);
	return 0;
}

int repo_diff_paths(struct repo *r, const char *a, const char *b, char ***out, size_t *n)
{
	git_oid oa, ob;
	git_commit *ca = NULL, *cb = NULL;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *diff = NULL;
	size_t alloc = 0;
	int ret = RP_EINPUT;

	*out = NULL;
	*n = 0;
	if (git_oid_fromstr(&oa, a) < 0 || git_oid_fromstr(&ob, b) < 0 ||
	    git_commit_lookup(&ca, r->repo, &oa) < 0 || git_commit_lookup(&cb, r->repo, &ob) < 0) {
		error("commit %.12s or %.12s is not in the repository %s: %s", a, b, r->workdir,
		      git_message());
		goto out;
	}
	ret = RP_EINTERNAL;
	if (git_commit_tree(&ta, ca) < 0 || git_commit_tree(&tb, cb) < 0 ||
	    git_diff_tree_to_tree(&diff, r->repo, ta, tb, NULL) < 0) {
		error("cannot diff the trees of %.12s and %.12s: %s", a, b, git_message());
		goto out;
	}
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *names[2] = { d->old_file.path, d->new_file.path };
		for (int k = 0; k < 2; k++) {
			if (!names[k] || (k && names[0] && !strcmp(names[0], names[1])))
				continue;
			ALLOC_GROW(*out, *n + 1, alloc);
			(*out)[(*n)++] = xstrdup(names[k]);
		}
	}
	ret = 0;
out:
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	git_commit_free(ca);
	git_commit_free(cb);
	return ret;
}

void repo_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

void repo_head_name(struct repo *r, struct strbuf *out)
{
	git_reference *head = NULL;
	const git_oid *oid;
	char sha[GIT_OID_HEXSZ + 1];

	if (git_repository_head(&head, r->repo) < 0) {
		strbuf_addstr(out, "HEAD");
		return;
	}
	if (git_reference_is_branch(head)) {
		strbuf_addstr(out, git_reference_shorthand(head));
	} else if ((oid = git_reference_target(head))) {
		git_oid_tostr(sha, sizeof(sha), oid);
		strbuf_addf(out, "HEAD (detached at %.12s)", sha);
	} else {
		strbuf_addstr(out, "HEAD");
	}
	git_reference_free(head);
}

bool repo_ref_exists(struct repo *r, const char *refname)
{
	git_reference *ref = NULL;
	bool found = git_reference_lookup(&ref, r->repo, refname) == 0;
	git_reference_free(ref);
	return found;
}

int repo_first_parent(struct repo *r, const char *sha, char parent[41], bool quiet)
{
	git_oid oid;
	git_commit *c = NULL;
	int ret;
	if (git_oid_fromstr(&oid, sha) < 0 || git_commit_lookup(&c, r->repo, &oid) < 0) {
		if (!quiet)
			error("commit %.40s is not in the repository %s", sha, r->workdir);
		return RP_EINPUT;
	}
	if (git_commit_parentcount(c) == 0) {
		ret = 1;
	} else {
		git_oid_tostr(parent, 41, git_commit_parent_id(c, 0));
		ret = 0;
	}
	git_commit_free(c);
	return ret;
}
