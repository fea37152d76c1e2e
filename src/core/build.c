#include "core/build.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "binary/fingerprint.h"
#include "collect/proc.h"
#include "core/worktree.h"
#include "util/fsutil.h"
#include "util/common.h"
#include "util/input.h"

static char *join(const char *a, const char *b)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/%s", a, b);
	return strbuf_detach(&sb);
}

void state_dir_locate(const char *project_root, const char *dir, struct state_dir *out)
{
	memset(out, 0, sizeof(*out));
	out->root = dir ? xstrdup(dir) : join(project_root, ".revperf");
	out->db_path = join(out->root, "revperf.db");
	out->worktrees = join(out->root, "worktrees");
	out->logs = join(out->root, "logs");
	out->profiles = join(out->root, "profiles");
	out->run_logs = join(out->logs, "runs");
}

/* Whether path names the file at own (the same inode; a path that does not exist, not). */
static bool same_file(const char *path, const char *own)
{
	struct stat a, b;
	return !stat(path, &a) && !stat(own, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int state_dir_bind_store(struct state_dir *sd, struct store *st, const char *location,
			 bool read_only)
{
	char id[33];
	int ret;
	if (!store_location_is_postgres(location) && same_file(location, sd->db_path))
		return 0;
	if ((ret = store_identity(st, !read_only, id)) || !id[0])
		return ret;
	free(sd->profiles);
	free(sd->run_logs);
	{
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s/profiles/store-%.12s", sd->root, id);
		sd->profiles = strbuf_detach(&sb);
		strbuf_addf(&sb, "%s/runs/store-%.12s", sd->logs, id);
		sd->run_logs = strbuf_detach(&sb);
	}
	return 0;
}

bool state_dir_store_apart(const struct state_dir *sd)
{
	size_t n = strlen(sd->root);
	return strncmp(sd->profiles, sd->root, n) || strcmp(sd->profiles + n, "/profiles");
}

int state_dir_open(const char *project_root, const char *dir, struct state_dir *out)
{
	struct strbuf probe = STRBUF_INIT;
	struct stat st;
	int fd, ret = RP_EINPUT;
	state_dir_locate(project_root, dir, out);
	/* The default .revperf lies in the project, where a repository could plant a link;
	 * a --state-dir DIR is the user's choice. */
	if (!dir && lstat(out->root, &st) == 0 && S_ISLNK(st.st_mode)) {
		error("%s is a symbolic link; revperf does not follow it: remove it, or pass "
		      "--state-dir DIR to keep the results elsewhere",
		      out->root);
		goto out;
	}
	if (mkdir_p(out->root) || mkdir_own(out->root, out->worktrees) ||
	    mkdir_own(out->root, out->logs))
		goto out;
	strbuf_addf(&probe, "%s/.write-test-%ld", out->root, (long)getpid());
	fd = open_own(probe.buf, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		error("state directory %s is not writable (%s); fix its permissions or pass "
		      "--state-dir DIR",
		      out->root, strerror(errno));
		goto out;
	}
	close(fd);
	unlink(probe.buf);
	/* The state directory ignores itself: nested worktree repositories, logs, results. */
	strbuf_reset(&probe);
	strbuf_addf(&probe, "%s/.gitignore", out->root);
	fd = open_own(probe.buf, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd >= 0) {
		static const char ignore[] = "# written by revperf: nothing here belongs in git\n*\n";
		if (write(fd, ignore, sizeof(ignore) - 1) < 0)
			warning("cannot write %s: %s", probe.buf, strerror(errno));
		close(fd);
	}
	ret = 0;
out:
	strbuf_release(&probe);
	if (ret)
		state_dir_release(out);
	return ret;
}

void state_dir_release(struct state_dir *sd)
{
	if (!sd)
		return;
	free(sd->root);
	free(sd->db_path);
	free(sd->worktrees);
	free(sd->logs);
	free(sd->profiles);
	free(sd->run_logs);
	memset(sd, 0, sizeof(*sd));
}

/* The most of a build's output kept in the database: its first and last halves. */
#define BUILD_LOG_KEEP_BYTES ((size_t)16 << 20)

/*
 * Keeps the build's log in the store (build_logs), for reports built elsewhere: all of it,
 * or its first and last BUILD_LOG_KEEP_BYTES / 2 with a line saying what was left out.
 * A log that cannot be read is not an error (the build's status says what matters).
 */
static int build_log_store(struct store *st, const struct store_build *b)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat sbuf;
	int fd = open(b->log_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), ret = 0;
	if (fd < 0)
		return 0;
	if (fstat(fd, &sbuf) == 0 && S_ISREG(sbuf.st_mode)) {
		size_t size = (size_t)sbuf.st_size, half = BUILD_LOG_KEEP_BYTES / 2;
		size_t head = size > BUILD_LOG_KEEP_BYTES ? half : size;
		ssize_t n;
		strbuf_grow(&sb, head + 128 + (size > BUILD_LOG_KEEP_BYTES ? half : 0));
		n = pread(fd, sb.buf, head, 0);
		if (n > 0)
			sb.len = (size_t)n;
		if (size > BUILD_LOG_KEEP_BYTES) {
			strbuf_addf(&sb, "\n[revperf: %zu bytes of the build's output left out]\n",
				    size - 2 * half);
			strbuf_grow(&sb, half);
			n = pread(fd, sb.buf + sb.len, half, (off_t)(size - half));
			if (n > 0)
				sb.len += (size_t)n;
		}
		sb.buf[sb.len] = '\0';
		ret = store_build_log_save(st, b->id, sb.buf, sb.len);
	}
	close(fd);
	strbuf_release(&sb);
	return ret;
}

/* Prints one line of a log, indented; what could drive the terminal as escapes (\x1b). */
static void print_log_line(const char *line, size_t len)
{
	fprintf_printable(stderr, "    | %.*s\n", (int)len, line);
}

/*
 * The first line of `log` (up to `end`) that says error the way compilers, linkers and
 * CMake do ("file.c:3:1: error: ...", "collect2: error: ...", "CMake Error at ..."), or
 * NULL. Flags such as -Werror in an echoed command line do not match.
 */
static const char *first_error_line(const char *log, const char *end)
{
	for (const char *line = log; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
		for (size_t i = 0; i + 6 <= len; i++)
			if (!strncasecmp(line + i, "error:", 6) ||
			    (i + 11 <= len && !strncmp(line + i, "CMake Error", 11)))
				return line;
		line += len + 1;
	}
	return NULL;
}

/*
 * Prints the last lines of a log, indented, so that a failed build shows its cause; when
 * the first error line (a compiler's) is above them, it comes first, with its line number,
 * since make's lines after it fill the tail.
 */
static void print_log_tail(const char *path, size_t lines)
{
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	const char *p, *first;
	size_t seen = 0;
	/* No tail, no harm: the log's path is printed. */
	int err = input_read_why(&sb, path, &input_log, &why);
	strbuf_release(&why);
	if (err || !sb.len)
		goto out;
	p = sb.buf + sb.len;
	if (p > sb.buf && p[-1] == '\n')
		p--;
	while (p > sb.buf && seen < lines) {
		p--;
		if (*p == '\n')
			seen++;
	}
	if (*p == '\n')
		p++;
	first = first_error_line(sb.buf, p);
	if (first) {
		const char *nl = strchr(first, '\n');
		size_t lineno = 1;
		for (const char *c = sb.buf; c < first; c++)
			lineno += *c == '\n';
		fprintf(stderr, "    the first error, line %zu of the log:\n", lineno);
		print_log_line(first, nl ? (size_t)(nl - first) : strlen(first));
		fprintf(stderr, "    its last lines:\n");
	}
	for (const char *line = p; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		print_log_line(line, len);
		line += len + (nl ? 1 : 0);
	}
out:
	strbuf_release(&sb);
}

/*
 * Whether the worktree's stamp says its last finished build ran `cmd`. One worktree serves
 * every build command of its commit: after `make A` then `make B` there, the files are B's,
 * and the store's record of A must not take them for its own (a revperf.ini tried with
 * another build command, then put back, ran and bindiffed the other command's program).
 */
static bool stamp_says(const char *stamp, const char *cmd)
{
	struct strbuf sb = STRBUF_INIT;
	bool same = !strbuf_read_file(&sb, stamp, 1 << 20) && !strcmp(sb.buf, cmd);
	strbuf_release(&sb);
	return same;
}

bool build_worktree_holds(const struct store_build *b)
{
	struct strbuf stamp = STRBUF_INIT;
	bool holds;
	if (!b->worktree || !b->command)
		return false;
	strbuf_addf(&stamp, "%s/.git/revperf-built", b->worktree);
	holds = stamp_says(stamp.buf, b->command);
	strbuf_release(&stamp);
	/* and the programs it recorded: an older generation's were built over since */
	if (holds && b->fingerprint) {
		struct strbuf fp = STRBUF_INIT;
		holds = !fingerprint_tree(b->worktree, &fp) && !strcmp(fp.buf, b->fingerprint);
		strbuf_release(&fp);
	}
	return holds;
}

/* "1a2b3c4d5e6f (base)": the revision as the building line names it. */
static void rev_label(struct strbuf *sb, const struct revision *rev)
{
	bool named = rev->expr && *rev->expr && strncmp(rev->sha, rev->expr, strlen(rev->expr));
	strbuf_addf(sb, "%.12s%s%s%s", rev->sha, named ? " (" : "", named ? rev->expr : "",
		    named ? ")" : "");
}

/*
 * The fingerprint of what the worktree holds now (binary/fingerprint.h): 0 with *fp set
 * (caller frees), or 1 with *fp NULL when it cannot be read: said in a warning, the check
 * is then skipped (nothing recorded), the build goes on.
 */
static int worktree_fingerprint(const char *worktree, char **fp)
{
	struct strbuf sb = STRBUF_INIT;
	*fp = NULL;
	if (fingerprint_tree(worktree, &sb)) {
		warning("%s: no fingerprint of its programs, so whether they are those its "
			"stored runs measured is not checked",
			worktree);
		strbuf_release(&sb);
		return 1;
	}
	*fp = strbuf_detach(&sb);
	return 0;
}

/*
 * Whether programs with fingerprint fp may take the place of build `old` (its id, its
 * recorded fingerprint): true when nothing was recorded (a build made before schema 14:
 * recorded now, silently), when they are the same, or when nothing is stored of the old
 * programs (no run, no profile: nothing to pool). Otherwise false, after one warning line
 * saying which revision and what changed: the caller makes a new generation, so that the
 * runs of two programs are never pooled. *err is set on a store error.
 */
static bool fingerprint_may_replace(struct store *st, const struct revision *rev,
				    const struct store_build *old, const char *fp, bool rebuilt,
				    int *err)
{
	struct strbuf what = STRBUF_INIT, label = STRBUF_INIT;
	size_t n[3];
	static const char *const what_n[3] = { "run", "counted run", "profile" };
	size_t left;
	*err = 0;
	if (!fp || !old->fingerprint || !strcmp(old->fingerprint, fp))
		return true;
	if (store_build_measured(st, old->id, &n[0], &n[1], &n[2])) {
		*err = RP_EINTERNAL;
		return true;
	}
	if (!n[0] && !n[1] && !n[2])
		return true;
	rev_label(&label, rev);
	strbuf_addstr(&label, rebuilt ? ": built again into other programs than those its"
				      : ": its worktree holds other programs than those its");
	left = (n[0] != 0) + (n[1] != 0) + (n[2] != 0);
	for (int i = 0, first = 1; i < 3; i++) {
		if (!n[i])
			continue;
		left--;
		strbuf_addf(&label, " %zu%s %s%s%s", n[i], first ? " stored" : "", what_n[i],
			    n[i] == 1 ? "" : "s", left > 1 ? "," : left ? " and" : "");
		first = 0;
	}
	fingerprint_describe_change(old->fingerprint, fp, &what);
	warning("%s measured (%s): not pooled with them, measured apart as build generation "
		"%lld; the old ones stay stored for show and report",
		label.buf, what.buf, (long long)old->generation + 1);
	strbuf_release(&what);
	strbuf_release(&label);
	return false;
}

int build_ensure(struct store *st, struct repo *repo, const struct state_dir *sd,
		 const struct revision *rev, const char *command, const char *variant,
		 ns_t timeout_ns, struct store_build *out)
{
	int64_t rev_id;
	struct strbuf worktree = STRBUF_INIT, stamp = STRBUF_INIT, log = STRBUF_INIT;
	struct strbuf gitdir = STRBUF_INIT, what = STRBUF_INIT;
	struct proc_spec spec = { 0 };
	struct proc_result res;
	struct timespec t0, t1;
	struct stat wst;
	int found, lock = -1, ret = RP_EINTERNAL;
	const char *cmd = command ? command : "";
	bool clean = false;
	/* The build found, when built again: its id, generation and fingerprint. */
	struct store_build prev = { 0 };
	char *fp = NULL;

	memset(out, 0, sizeof(*out));
	memset(&res, 0, sizeof(res));
	if (store_revision(st, rev->sha, rev->summary, rev->commit_time, &rev_id))
		goto out;
	if (!variant)
		variant = "";
	strbuf_addf(&worktree, "%s/%s%s%s", sd->worktrees, rev->sha, *variant ? "-" : "",
		    variant);
	strbuf_addf(&gitdir, "%s/.git", worktree.buf);
	/* In the private repository, so that the work tree holds only the commit's files and
	 * what the build makes. */
	strbuf_addf(&stamp, "%s/revperf-built", gitdir.buf);

	/* One process at a time checks out and builds a worktree; the others wait, then find
	 * the build in the store (read after the wait) and reuse it. */
	strbuf_addf(&what, "checking out or building %.12s", rev->sha);
	if ((ret = worktree_lock(worktree.buf, what.buf, &lock)))
		goto out;
	ret = RP_EINTERNAL;
	if (path_exists(gitdir.buf) && repo_worktree_relink(repo, worktree.buf))
		goto out;
	found = store_build_find(st, rev_id, cmd, variant, out);
	if (found < 0)
		goto out;
	if (found == 0 && !strcmp(out->status, "ok") && stamp_says(stamp.buf, cmd) &&
	    path_exists(gitdir.buf)) {
		/* cached: unless its programs changed since (rebuilt by hand in the worktree) */
		int err;
		if (worktree_fingerprint(worktree.buf, &fp)) {
			ret = 0;
			goto out;
		}
		if (fingerprint_may_replace(st, rev, out, fp, false, &err)) {
			if (!err && (!out->fingerprint || strcmp(out->fingerprint, fp)))
				err = store_build_fingerprint_set(st, out->id, fp);
			ret = err;
			goto out;
		}
		if (err)
			goto out;
		/* the same build, one generation up, with the programs it holds now */
		free(out->fingerprint);
		out->fingerprint = fp;
		fp = NULL;
		out->generation++;
		out->id = 0;
		if (store_build_save(st, out))
			goto out;
		ret = 0;
		goto out;
	}
	if (found == 0) { /* built again: what its stored runs measured, to check against */
		prev.id = out->id;
		prev.generation = out->generation;
		prev.fingerprint = out->fingerprint;
		out->fingerprint = NULL;
	}
	store_build_release(out);

	if (!lstat(worktree.buf, &wst) && !S_ISDIR(wst.st_mode)) {
		error("%s is not a directory (a symbolic link?); revperf does not build through "
		      "one: remove it",
		      worktree.buf);
		ret = RP_EINPUT;
		goto out;
	}
	/*
	 * A worktree without its repository is the export of an older revperf, in which git
	 * found the user's repository: checked out again. So is one that another build
	 * command built last (its stamp names it): the new command builds from a clean
	 * checkout, not on the other's files, which make and friends take for up to date
	 * (`make tcc CONFIG_strip=no` after `make tcc` left the stripped program).
	 */
	if (path_exists(gitdir.buf) && path_exists(stamp.buf) && !stamp_says(stamp.buf, cmd)) {
		if (remove_tree(worktree.buf))
			goto out;
		clean = true; /* said on the building line */
	}
	if (!path_exists(gitdir.buf)) {
		worktree_remove_stale(sd->worktrees);
		if (remove_tree(worktree.buf))
			goto out;
		if ((ret = repo_checkout(repo, rev, worktree.buf)))
			goto out;
		ret = RP_EINTERNAL;
	}
	unlink(stamp.buf);

	memset(out, 0, sizeof(*out));
	out->revision_id = rev_id;
	out->generation = prev.generation; /* one up below when its programs differ */
	out->command = xstrdup(cmd);
	snprintf(out->variant, sizeof(out->variant), "%s", variant);
	out->worktree = xstrdup(worktree.buf);
	if (!*cmd) {
		snprintf(out->status, sizeof(out->status), "ok");
	} else {
		strbuf_addf(&log, "%s/build-%.12s%s%s-%ld.log", sd->logs, rev->sha,
			    *variant ? "-" : "", variant, (long)time(NULL));
		out->log_path = xstrdup(log.buf);
		/* The expression, unless it is the sha itself (history's, bisect's). */
		bool named = rev->expr && *rev->expr &&
			     strncmp(rev->sha, rev->expr, strlen(rev->expr));
		fprintf_printable(stderr, "revperf: building %.12s%s%s%s%s%s: %s%s\n", rev->sha,
				  named ? " (" : "", named ? rev->expr : "", named ? ")" : "",
				  *variant ? ", variant " : "", variant, cmd,
				  clean ? " (checked out clean: another build command built it "
					  "last)"
					: "");
		spec.command = cmd;
		spec.cwd = worktree.buf;
		spec.log_path = log.buf;
		spec.timeout_ns = timeout_ns;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (proc_run(&spec, &res) || store_check_files(st, "the build"))
			goto out;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		out->duration_ns = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
		if (res.escaped_killed) {
			struct strbuf notes = STRBUF_INIT;
			proc_result_notes(&res, &notes);
			warning("build of %.12s (%s): %s; see %s", rev->sha, rev->expr, notes.buf,
				out->log_path);
			strbuf_release(&notes);
		}
		if (res.status == RUN_INTERRUPTED) {
			ret = RP_EINTERRUPT;
			goto out;
		}
		snprintf(out->status, sizeof(out->status), "%s",
			 res.status == RUN_OK ? "ok" : "failed");
	}
	/* A failed build records none: the one recorded stays, that of the programs its
	 * stored runs measured, to check the next successful build against. */
	if (!strcmp(out->status, "ok") && !worktree_fingerprint(worktree.buf, &out->fingerprint) &&
	    prev.id) {
		int err;
		if (!fingerprint_may_replace(st, rev, &prev, out->fingerprint, true, &err))
			out->generation = prev.generation + 1;
		if (err)
			goto out;
	}
	if (store_build_save(st, out))
		goto out;
	if (out->log_path && build_log_store(st, out))
		goto out;
	if (strcmp(out->status, "ok")) {
		error("build of %.12s (%s) failed: %s; see %s%s", rev->sha, rev->expr, res.detail,
		      out->log_path,
		      res.status == RUN_TIMEOUT ? " (a build that takes this long: raise [build] "
						  "timeout in revperf.ini)"
						: "");
		print_log_tail(out->log_path, 8);
		ret = RP_EBUILD;
		goto out;
	}
	{
		/* In the checked-out tree: a link committed there is not followed. The stamp
		 * holds the command that built these files. */
		FILE *f = fopen_own(stamp.buf, "w");
		bool written = f && fputs(cmd, f) != EOF;
		if (f && fclose(f))
			written = false;
		if (!written) {
			error("cannot write %s: %s", stamp.buf, fs_strerror(errno));
			goto out;
		}
	}
	ret = 0;
out:
	worktree_unlock(lock);
	if (ret)
		store_build_release(out);
	free(prev.fingerprint);
	free(fp);
	strbuf_release(&what);
	strbuf_release(&gitdir);
	strbuf_release(&worktree);
	strbuf_release(&stamp);
	strbuf_release(&log);
	return ret;
}
