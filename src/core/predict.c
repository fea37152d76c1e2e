/*
 * The benchmark predictor's integration (predict.h): dynamic data from callgrind, the
 * closest ancestor with data, the static data of (i, u) from the binary diff, training
 * tuples from stored verdicts, predictions. The analysis itself is analysis/perphecy.h.
 */
#include "core/predict.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <git2.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "binary/bindiff.h"
#include "collect/cmdline.h"
#include "collect/proc.h"
#include "core/fsutil.h"
#include "core/store_dynamic.h"
#include "profile/callgrind.h"
#include "util/common.h"

/* Largest test list read from a suite's `tests` command. */
#define MAX_TESTS 100000
#define MAX_TEST_LIST_BYTES ((size_t)16 << 20)
/* A static-data cache file is small (changed functions only); refuse anything huge. */
#define MAX_CACHE_BYTES ((size_t)256 << 20)

/* The commits with dynamic data of one benchmark (a cache of store_dynamic_revisions()). */
struct predict_shas {
	char *name, *command;
	struct store_dynamic_rev *revs; /* sorted by sha for bsearch */
	size_t nr;
};

void predict_ctx_init(struct predict_ctx *ctx, struct config *cfg, struct store *st,
		      struct repo *repo, const struct state_dir *sd)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->cfg = cfg;
	ctx->st = st;
	ctx->repo = repo;
	ctx->sd = sd;
	ctx->max_ancestors = 1000;
	ctx->use_cache = true;
}

void predict_ctx_release(struct predict_ctx *ctx)
{
	if (!ctx)
		return;
	for (size_t i = 0; i < ctx->nr_shas; i++) {
		free(ctx->shas[i].name);
		free(ctx->shas[i].command);
		free(ctx->shas[i].revs);
	}
	free(ctx->shas);
	if (ctx->git) {
		git_repository_free(ctx->git);
		git_libgit2_shutdown();
	}
	memset(ctx, 0, sizeof(*ctx));
}

const char *predict_reason_name(enum predict_reason r)
{
	switch (r) {
	case PREDICT_FIRED: return "fired";
	case PREDICT_DISMISSED: return "dismissed";
	case PREDICT_NO_PREDICTOR: return "no-predictor";
	case PREDICT_NO_DATA: return "no-dynamic-data";
	case PREDICT_REACHED_CHANGED: return "reached-changed";
	case PREDICT_NOT_REACHED: return "not-reached";
	}
	return "unknown";
}

/* ---- history ---- */

static int open_git(struct predict_ctx *ctx)
{
	git_repository *repo = NULL;
	if (ctx->git)
		return 0;
	git_libgit2_init();
	if (git_repository_open(&repo, repo_workdir(ctx->repo)) < 0) {
		const git_error *e = git_error_last();
		error("cannot open the repository at %s: %s", repo_workdir(ctx->repo),
		      e && e->message ? e->message : "unknown libgit2 error");
		git_libgit2_shutdown();
		return RP_EINTERNAL;
	}
	ctx->git = repo;
	return 0;
}

/* predict_first_parent(); quiet: no message when sha is not a commit of the repository. */
static int first_parent(struct predict_ctx *ctx, const char *sha, char parent[41], bool quiet)
{
	git_oid oid;
	git_commit *c = NULL;
	int ret;
	if ((ret = open_git(ctx)))
		return ret;
	if (git_oid_fromstr(&oid, sha) < 0 || git_commit_lookup(&c, ctx->git, &oid) < 0) {
		if (!quiet)
			error("commit %.40s is not in the repository %s", sha,
			      repo_workdir(ctx->repo));
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

int predict_first_parent(struct predict_ctx *ctx, const char *sha, char parent[41])
{
	return first_parent(ctx, sha, parent, false);
}

static int cmp_rev_sha(const void *a, const void *b)
{
	return strcmp(((const struct store_dynamic_rev *)a)->sha,
		      ((const struct store_dynamic_rev *)b)->sha);
}

/* The commits with dynamic data of b, loaded once per context. */
static int bench_shas(struct predict_ctx *ctx, const struct bench_config *b,
		      const struct predict_shas **out)
{
	struct predict_shas *s;
	size_t i, w;
	int ret;
	for (i = 0; i < ctx->nr_shas; i++)
		if (!strcmp(ctx->shas[i].name, b->name) &&
		    !strcmp(ctx->shas[i].command, b->command)) {
			*out = &ctx->shas[i];
			return 0;
		}
	ALLOC_GROW(ctx->shas, ctx->nr_shas + 1, ctx->alloc_shas);
	s = &ctx->shas[ctx->nr_shas];
	memset(s, 0, sizeof(*s));
	ret = store_dynamic_revisions(ctx->st, b->name, b->command, ctx->cfg->build_command,
				      &s->revs, &s->nr);
	if (ret)
		return ret;
	/* One row per sha (a build per commit and command, data per build and benchmark);
	 * duplicates are dropped all the same. */
	if (s->nr)
		qsort(s->revs, s->nr, sizeof(*s->revs), cmp_rev_sha);
	for (i = 0, w = 0; i < s->nr; i++)
		if (!w || strcmp(s->revs[w - 1].sha, s->revs[i].sha))
			s->revs[w++] = s->revs[i];
	s->nr = w;
	s->name = xstrdup(b->name);
	s->command = xstrdup(b->command);
	ctx->nr_shas++;
	*out = s;
	return 0;
}

/* predict_find_ancestor(); quiet: no message when u is not a commit of the repository. */
static int find_ancestor(struct predict_ctx *ctx, const char *sha_u, const struct bench_config *b,
			 struct predict_ancestor *out, bool quiet)
{
	const struct predict_shas *s;
	char cur[41];
	unsigned depth;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = bench_shas(ctx, b, &s)))
		return ret;
	snprintf(cur, sizeof(cur), "%s", sha_u);
	for (depth = 1; depth <= ctx->max_ancestors; depth++) {
		struct store_dynamic_rev key, *hit;
		char parent[41];
		ret = first_parent(ctx, cur, parent, quiet);
		if (ret)
			return ret; /* 1: the root was reached */
		memcpy(key.sha, parent, 41);
		hit = s->nr ? bsearch(&key, s->revs, s->nr, sizeof(*s->revs), cmp_rev_sha) : NULL;
		if (hit) {
			memcpy(out->sha, parent, 41);
			out->profile_id = hit->profile_id;
			memcpy(out->cost, hit->cost, sizeof(out->cost));
			out->depth = depth;
			return 0;
		}
		memcpy(cur, parent, 41);
	}
	return 1;
}

int predict_find_ancestor(struct predict_ctx *ctx, const char *sha_u, const struct bench_config *b,
			  struct predict_ancestor *out)
{
	return find_ancestor(ctx, sha_u, b, out, false);
}

/* ---- test suites and binaries ---- */

/* Appends s to sb quoted for /bin/sh. */
static void add_shell_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

/* Runs one suite's `tests` in worktree and reads the names it prints. */
static int list_tests(struct predict_ctx *ctx, const struct bench_config *b, const char *worktree,
		      const char *label, struct strbuf *list)
{
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT, log = STRBUF_INIT;
	struct proc_spec spec = {0};
	struct proc_result res;
	int ret = RP_EINTERNAL;

	strbuf_addf(&out, "%s/tests-", ctx->sd->logs);
	fsutil_add_safe_name(&out, b->name);
	strbuf_addf(&out, "-%ld.txt", (long)getpid());
	strbuf_addf(&log, "%s.log", out.buf);
	/* stdout is the list; stderr goes to the log. */
	strbuf_addf(&cmd, "( %s ) > ", b->tests);
	add_shell_quoted(&cmd, out.buf);
	spec.command = cmd.buf;
	spec.cwd = worktree;
	spec.log_path = log.buf;
	spec.timeout_ns = b->timeout_ns ? b->timeout_ns : 600 * 1000000000LL;
	if (proc_run(&spec, &res))
		goto out;
	if (res.status == RUN_INTERRUPTED) {
		ret = RP_EINTERRUPT;
		goto out;
	}
	if (res.status != RUN_OK) {
		error("%s: test suite '%s': its tests command failed at %s (%s); see %s", b->origin,
		      b->name, label, res.detail, log.buf);
		ret = RP_EINPUT;
		goto out;
	}
	if (strbuf_read_file(list, out.buf, MAX_TEST_LIST_BYTES) < 0) {
		error("%s: test suite '%s': cannot read the test list %s: %s", b->origin, b->name,
		      out.buf, strerror(errno));
		ret = RP_EINPUT;
		goto out;
	}
	unlink(log.buf);
	ret = 0;
out:
	unlink(out.buf);
	strbuf_release(&cmd);
	strbuf_release(&out);
	strbuf_release(&log);
	return ret;
}

int predict_expand_suites(struct predict_ctx *ctx, const char *worktree, const char *label)
{
	size_t i = 0;
	while (i < ctx->cfg->nr_benches) {
		struct bench_config *b = &ctx->cfg->benches[i];
		struct strbuf list = STRBUF_INIT;
		const char **names = NULL;
		size_t nr = 0, alloc = 0;
		char *p, *save = NULL, *name;
		int ret;
		if (!b->tests) {
			i++;
			continue;
		}
		name = xstrdup(b->name);
		ret = list_tests(ctx, b, worktree, label, &list);
		for (p = ret ? NULL : strtok_r(list.buf, "\n", &save); p;
		     p = strtok_r(NULL, "\n", &save)) {
			size_t len;
			while (*p == ' ' || *p == '\t')
				p++;
			len = strlen(p);
			while (len &&
			       (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
				p[--len] = '\0';
			if (!len)
				continue;
			if (nr == MAX_TESTS) {
				error("%s: test suite '%s' lists more than %d tests", b->origin,
				      name, MAX_TESTS);
				ret = RP_EINPUT;
				break;
			}
			ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = p;
		}
		if (!ret && !nr) {
			error(
			    "%s: test suite '%s': its tests command (%s) listed no test at %s; it "
			    "must print one test name per line",
			    b->origin, name, b->tests, label);
			ret = RP_EINPUT;
		}
		if (!ret)
			ret = config_expand_suite(ctx->cfg, name, names, nr);
		free(names);
		free(name);
		strbuf_release(&list);
		if (ret)
			return ret;
		i += nr;
	}
	return 0;
}

int predict_bench_binary(const struct bench_config *b, const char *worktree, struct strbuf *out)
{
	char **argv = NULL;
	const char *word;
	char first[4096];
	int ret = RP_EINPUT;

	if (b->binary) {
		word = b->binary;
	} else {
		argv = cmdline_split(b->command);
		if (argv && argv[0]) {
			word = argv[0];
		} else {
			/* A shell command: its first blank-separated word, if it is plain. */
			size_t len = strcspn(b->command, " \t\n");
			snprintf(first, sizeof(first), "%.*s", (int)len, b->command);
			if (strpbrk(first, "'\"$`\\=(){}<>|;&*?[]~#!") || !*first) {
				error("%s: cannot tell which program benchmark '%s' runs (its "
				      "command "
				      "starts with shell syntax); add 'binary = PATH' (relative to "
				      "the "
				      "worktree) to its section",
				      b->origin, b->name);
				goto out;
			}
			word = first;
		}
	}
	if (word[0] == '/') {
		error("%s: benchmark '%s' runs %s, which is not built per revision; add 'binary = "
		      "PATH' (relative to the worktree) naming the program the commits change",
		      b->origin, b->name, word);
		goto out;
	}
	if (!strchr(word, '/') && !b->binary) {
		error("%s: benchmark '%s' runs '%s' from PATH, not a program of the worktree; add "
		      "'binary = PATH' (relative to the worktree, e.g. build/prog) to its section",
		      b->origin, b->name, word);
		goto out;
	}
	strbuf_addf(out, "%s/%s", worktree, word);
	ret = 0;
out:
	cmdline_free(argv);
	return ret;
}

/* ---- dynamic data ---- */

bool predict_have_valgrind(void)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;
	bool found = false;
	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (!found && *path) {
		size_t len = strcspn(path, ":");
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%.*s/valgrind", (int)len, len ? path : ".");
		found = access(sb.buf, X_OK) == 0;
		path += len + (path[len] == ':');
	}
	strbuf_release(&sb);
	return found;
}

/* A count from a tree (a double: callgrind's contexts are scaled shares) as an integer. */
static uint64_t to_count(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 1.8e19)
		return UINT64_MAX;
	return (uint64_t)llround(v);
}

/* Adds every context of one callgrind file to p, per function. */
static int add_callgrind_file(const char *path, struct perphecy_profile *p)
{
	struct cct t;
	int ret = callgrind_read(path, NULL, &t);
	for (size_t k = 1; !ret && k < t.nr_nodes; k++) {
		const struct cct_node *n = &t.nodes[k];
		ret = perphecy_profile_add(p, cct_name(&t, n->name), to_count(n->calls),
					   to_count(n->excl));
	}
	cct_release(&t);
	return ret;
}

/* Reads every callgrind.out.* of dir (one per process) into p. */
static int read_callgrind_dir(const char *dir, struct perphecy_profile *p, size_t *nr_files)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct strbuf path = STRBUF_INIT;
	int ret = 0;
	*nr_files = 0;
	if (!d) {
		error("cannot read %s: %s", dir, strerror(errno));
		return RP_EINTERNAL;
	}
	while (!ret && (e = readdir(d))) {
		if (strncmp(e->d_name, "callgrind.out.", 14))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		ret = add_callgrind_file(path.buf, p);
		(*nr_files)++;
	}
	closedir(d);
	strbuf_release(&path);
	return ret;
}

int predict_collect_dynamic(struct predict_ctx *ctx, const struct revision *rev,
			    const struct store_build *build, const struct bench_config *b,
			    struct predict_dynamic *out)
{
	struct strbuf dir = STRBUF_INIT, cmd = STRBUF_INIT, log = STRBUF_INIT, file = STRBUF_INIT;
	struct perphecy_profile prof;
	struct store_dynamic row;
	struct proc_spec spec = {0};
	struct proc_result res;
	struct timespec t0, t1;
	size_t nr_files = 0;
	int ret = RP_EINTERNAL;

	memset(out, 0, sizeof(*out));
	memset(&row, 0, sizeof(row));
	perphecy_profile_init(&prof, b->name, PERPHECY_COST_INSTRUCTIONS);
	if (!predict_have_valgrind()) {
		error("collecting dynamic data needs valgrind (callgrind counts each function's "
		      "calls and instructions) and it is not on PATH; install it, e.g. apt-get "
		      "install valgrind");
		ret = RP_EINPUT;
		goto out;
	}
	strbuf_addf(&dir, "%s/dynamic/%.12s/", ctx->sd->root, rev->sha);
	fsutil_add_safe_name(&dir, b->name);
	if (remove_tree(dir.buf) || mkdir_p(dir.buf))
		goto out;
	strbuf_addf(&log, "%s/run.log", dir.buf);
	strbuf_addf(&file, "--callgrind-out-file=%s/callgrind.out.%%p", dir.buf);
	strbuf_addstr(&cmd, "valgrind --tool=callgrind --trace-children=yes ");
	add_shell_quoted(&cmd, file.buf);
	strbuf_addch(&cmd, ' ');
	if (cmdline_needs_shell(b->command)) {
		strbuf_addstr(&cmd, "/bin/sh -c ");
		add_shell_quoted(&cmd, b->command);
	} else {
		strbuf_addstr(&cmd, b->command);
	}
	if (!ctx->quiet)
		fprintf(stderr, "revperf: dynamic data of %s at %.12s (%s) under callgrind\n",
			b->name, rev->sha, rev->expr ? rev->expr : rev->sha);
	spec.command = cmd.buf;
	spec.cwd = build->worktree;
	spec.log_path = log.buf;
	/* callgrind is some 50x slower than the program: a configured timeout scales. */
	spec.timeout_ns = b->timeout_ns ? b->timeout_ns * 100 : 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (proc_run(&spec, &res))
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->elapsed_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (res.status == RUN_INTERRUPTED) {
		ret = RP_EINTERRUPT;
		goto out;
	}
	if (res.status != RUN_OK) {
		error("benchmark '%s' failed under callgrind at %.12s (%s); see %s", b->name,
		      rev->sha, res.detail, log.buf);
		ret = RP_EINPUT;
		goto out;
	}
	if ((ret = read_callgrind_dir(dir.buf, &prof, &nr_files)))
		goto out;
	if (!nr_files || !prof.nr) {
		error("benchmark '%s' at %.12s: callgrind wrote no function data into %s; see %s",
		      b->name, rev->sha, dir.buf, log.buf);
		ret = RP_EINPUT;
		goto out;
	}
	if ((ret = store_benchmark(ctx->st, b->name, b->command, &row.benchmark_id)))
		goto out;
	row.build_id = build->id;
	snprintf(row.source, sizeof(row.source), "callgrind");
	snprintf(row.cost, sizeof(row.cost), "%s", store_dynamic_cost_name(prof.cost_unit));
	row.path = xstrdup(dir.buf);
	if ((ret = store_dynamic_save(ctx->st, &row, &prof)))
		goto out;
	/* The benchmark's set of commits changed: forget the cached one. */
	for (size_t i = 0; i < ctx->nr_shas; i++)
		if (!strcmp(ctx->shas[i].name, b->name)) {
			free(ctx->shas[i].name);
			free(ctx->shas[i].command);
			free(ctx->shas[i].revs);
			ctx->shas[i] = ctx->shas[--ctx->nr_shas];
			break;
		}
	out->nr_functions = prof.nr;
	for (size_t i = 0; i < prof.nr; i++) {
		out->instructions += prof.funcs[i].cost;
		out->calls += prof.funcs[i].calls;
	}
	out->path = strbuf_detach(&dir);
	ret = 0;
out:
	perphecy_profile_release(&prof);
	store_dynamic_release(&row);
	strbuf_release(&dir);
	strbuf_release(&cmd);
	strbuf_release(&log);
	strbuf_release(&file);
	return ret;
}

/* ---- static data ---- */

#define CACHE_MAGIC "revperf-static 1"

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull;
}

/* "path size mtime_ns" of a file, the cache key of its side; -1 when it cannot be read. */
static int file_stamp(const char *path, struct strbuf *sb)
{
	struct stat st;
	if (stat(path, &st))
		return -1;
	strbuf_addf(sb, "%s\t%lld\t%lld", path, (long long)st.st_size,
		    (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec);
	return 0;
}

/* Reads a cache file written by cache_write(); -1 (and out empty) when it does not match. */
static int cache_read(const char *path, const char *key, struct perphecy_static *out)
{
	struct strbuf sb = STRBUF_INIT;
	size_t added = 0, deleted = 0, modified = 0, i;
	char *p, *line, *save = NULL;
	int ret = -1;

	if (strbuf_read_file(&sb, path, MAX_CACHE_BYTES) < 0)
		goto out;
	p = sb.buf;
	line = strtok_r(p, "\n", &save);
	if (!line || strcmp(line, CACHE_MAGIC))
		goto out;
	line = strtok_r(NULL, "\n", &save);
	if (!line || strcmp(line, key))
		goto out;
	line = strtok_r(NULL, "\n", &save);
	if (!line || sscanf(line, "counts %zu %zu %zu", &added, &deleted, &modified) != 3 ||
	    added > 10000000)
		goto out;
	for (i = 0; i < added; i++)
		perphecy_static_add(out, PERPHECY_ADDED, NULL, 0);
	while ((line = strtok_r(NULL, "\n", &save))) {
		if (line[0] == 'D' && line[1] == ' ') {
			if (perphecy_static_add(out, PERPHECY_DELETED, line + 2, 0))
				goto out;
		} else if (line[0] == 'M' && line[1] == ' ') {
			char *end;
			double pct = strtod(line + 2, &end);
			if (end == line + 2 || *end != ' ' ||
			    perphecy_static_add(out, PERPHECY_MODIFIED, end + 1, pct))
				goto out;
		} else if (strcmp(line, "end")) {
			goto out;
		} else {
			ret = out->nr_deleted == deleted && out->nr_modified == modified ? 0 : -1;
			break;
		}
	}
out:
	if (ret) {
		perphecy_static_release(out);
		perphecy_static_init(out);
	}
	strbuf_release(&sb);
	return ret;
}

/* Writes s to path atomically (a temporary file renamed); failures only skip the cache. */
static void cache_write(const char *path, const char *key, const struct perphecy_static *s)
{
	struct strbuf sb = STRBUF_INIT, tmp = STRBUF_INIT;
	FILE *f;
	strbuf_addf(&sb, "%s\n%s\ncounts %zu %zu %zu\n", CACHE_MAGIC, key, s->nr_added,
		    s->nr_deleted, s->nr_modified);
	for (size_t i = 0; i < s->nr_funcs; i++) {
		const struct perphecy_changed_func *f = &s->funcs[i];
		if (strchr(f->name, '\n'))
			goto out; /* cannot be written as a line: no cache */
		if (f->deleted)
			strbuf_addf(&sb, "D %s\n", f->name);
		else
			strbuf_addf(&sb, "M %.17g %s\n", f->len_pct, f->name);
	}
	strbuf_addstr(&sb, "end\n");
	strbuf_addf(&tmp, "%s.tmp-%ld", path, (long)getpid());
	f = fopen(tmp.buf, "w");
	if (!f)
		goto out;
	if (fwrite(sb.buf, 1, sb.len, f) != sb.len) {
		fclose(f);
		unlink(tmp.buf);
		goto out;
	}
	if (fclose(f) || rename(tmp.buf, path))
		unlink(tmp.buf);
out:
	strbuf_release(&sb);
	strbuf_release(&tmp);
}

int predict_static(struct predict_ctx *ctx, const char *bin_i, const char *bin_u,
		   struct perphecy_static *out)
{
	struct strbuf key = STRBUF_INIT, path = STRBUF_INIT;
	struct bindiff d;
	bool cache = ctx->use_cache;
	int ret;

	perphecy_static_init(out);
	memset(&d, 0, sizeof(d));
	if (cache) {
		strbuf_addstr(&key, "i ");
		if (file_stamp(bin_i, &key) == 0) {
			strbuf_addstr(&key, "\tu ");
			cache = file_stamp(bin_u, &key) == 0;
		} else {
			cache = false;
		}
	}
	if (cache) {
		strbuf_addf(&path, "%s/predict", ctx->sd->root);
		if (mkdir_p(path.buf)) {
			cache = false;
		} else {
			strbuf_addf(&path, "/static-%016" PRIx64 ".txt",
				    fnv1a(fnv1a(0xcbf29ce484222325ull, bin_i), bin_u));
			if (cache_read(path.buf, key.buf, out) == 0) {
				ret = 0;
				goto out;
			}
		}
	}
	/* No DWARF: the predictor needs names, bodies and lengths, not file:line. */
	ret = bindiff_files(bin_i, bin_u, BINFILE_NO_DWARF, &d);
	if (ret)
		goto out;
	ret = perphecy_static_from_bindiff(&d, out);
	if (!ret && cache)
		cache_write(path.buf, key.buf, out);
out:
	bindiff_release(&d);
	strbuf_release(&key);
	strbuf_release(&path);
	return ret;
}

/* ---- what one prediction or training loads, once ---- */

struct work_build {
	char sha[41];
	struct store_build build;
};

struct work_profile {
	int64_t id;
	struct perphecy_profile p;
};

struct work_static {
	char *bin_i, *bin_u;
	struct perphecy_static s;
};

struct work {
	struct predict_ctx *ctx;
	struct work_build *builds;
	size_t nr_builds, alloc_builds;
	struct work_profile *profiles;
	size_t nr_profiles, alloc_profiles;
	struct work_static *statics;
	size_t nr_statics, alloc_statics;
};

static void work_release(struct work *w)
{
	size_t i;
	for (i = 0; i < w->nr_builds; i++)
		store_build_release(&w->builds[i].build);
	for (i = 0; i < w->nr_profiles; i++)
		perphecy_profile_release(&w->profiles[i].p);
	for (i = 0; i < w->nr_statics; i++) {
		free(w->statics[i].bin_i);
		free(w->statics[i].bin_u);
		perphecy_static_release(&w->statics[i].s);
	}
	free(w->builds);
	free(w->profiles);
	free(w->statics);
	memset(w, 0, sizeof(*w));
}

/* Hands a build (already made) to w, e.g. u's. */
static void work_add_build(struct work *w, const char *sha, const struct store_build *b)
{
	struct work_build *wb;
	ALLOC_GROW(w->builds, w->nr_builds + 1, w->alloc_builds);
	wb = &w->builds[w->nr_builds++];
	memcpy(wb->sha, sha, 41);
	wb->build = *b;
	wb->build.command = b->command ? xstrdup(b->command) : NULL;
	wb->build.worktree = b->worktree ? xstrdup(b->worktree) : NULL;
	wb->build.log_path = b->log_path ? xstrdup(b->log_path) : NULL;
}

/* The build of sha with the configured command (build_ensure: cached when it was built). */
static int work_build(struct work *w, const char *sha, const struct store_build **out)
{
	struct revision rev;
	struct store_build b;
	int ret;
	for (size_t i = 0; i < w->nr_builds; i++)
		if (!strcmp(w->builds[i].sha, sha)) {
			*out = &w->builds[i].build;
			return 0;
		}
	if ((ret = repo_resolve(w->ctx->repo, sha, &rev)))
		return ret;
	ret = build_ensure(w->ctx->st, w->ctx->repo, w->ctx->sd, &rev, w->ctx->cfg->build_command,
			   NULL, &b);
	revision_release(&rev);
	if (ret)
		return ret;
	work_add_build(w, sha, &b);
	store_build_release(&b);
	*out = &w->builds[w->nr_builds - 1].build;
	return 0;
}

static int work_profile(struct work *w, const struct predict_ancestor *a, const char *bench,
			const struct perphecy_profile **out)
{
	struct store_dynamic d;
	struct work_profile *wp;
	int ret;
	for (size_t i = 0; i < w->nr_profiles; i++)
		if (w->profiles[i].id == a->profile_id) {
			*out = &w->profiles[i].p;
			return 0;
		}
	memset(&d, 0, sizeof(d));
	d.id = a->profile_id;
	memcpy(d.cost, a->cost, sizeof(d.cost));
	ALLOC_GROW(w->profiles, w->nr_profiles + 1, w->alloc_profiles);
	wp = &w->profiles[w->nr_profiles];
	wp->id = a->profile_id;
	ret = store_dynamic_load(w->ctx->st, &d, bench, &wp->p);
	if (ret) {
		perphecy_profile_release(&wp->p);
		return ret;
	}
	w->nr_profiles++;
	*out = &wp->p;
	return 0;
}

static int work_static(struct work *w, const char *bin_i, const char *bin_u,
		       const struct perphecy_static **out)
{
	struct work_static *ws;
	int ret;
	for (size_t i = 0; i < w->nr_statics; i++)
		if (!strcmp(w->statics[i].bin_i, bin_i) && !strcmp(w->statics[i].bin_u, bin_u)) {
			*out = &w->statics[i].s;
			return 0;
		}
	ALLOC_GROW(w->statics, w->nr_statics + 1, w->alloc_statics);
	ws = &w->statics[w->nr_statics];
	ret = predict_static(w->ctx, bin_i, bin_u, &ws->s);
	if (ret) {
		perphecy_static_release(&ws->s);
		return ret;
	}
	ws->bin_i = xstrdup(bin_i);
	ws->bin_u = xstrdup(bin_u);
	w->nr_statics++;
	*out = &ws->s;
	return 0;
}

/* The static data of (i, u) for the program b runs, and b's profile at i. */
static int work_data(struct work *w, const struct bench_config *b, const char *sha_u,
		     const struct predict_ancestor *a, const struct perphecy_static **s,
		     const struct perphecy_profile **p)
{
	const struct store_build *bi, *bu;
	struct strbuf pi = STRBUF_INIT, pu = STRBUF_INIT;
	int ret;
	/* Each build's program first: the second work_build() may move w->builds. */
	if (!(ret = work_build(w, a->sha, &bi)) &&
	    !(ret = predict_bench_binary(b, bi->worktree, &pi)) &&
	    !(ret = work_build(w, sha_u, &bu)) &&
	    !(ret = predict_bench_binary(b, bu->worktree, &pu)) &&
	    !(ret = work_static(w, pi.buf, pu.buf, s)))
		ret = work_profile(w, a, b->name, p);
	strbuf_release(&pi);
	strbuf_release(&pu);
	return ret;
}

/* ---- predictions ---- */

struct loaded_predictor {
	char *scope;
	struct perphecy_predictor p;
	int64_t trained_at;
	size_t nr_tuples, nr_hits;
};

static int load_predictors(struct predict_ctx *ctx, struct loaded_predictor **out, size_t *n)
{
	struct store_predictor *rows = NULL;
	struct strbuf origin = STRBUF_INIT;
	size_t nr = 0, i;
	int ret = store_predictors_load(ctx->st, &rows, &nr);
	*out = NULL;
	*n = 0;
	if (ret)
		return ret;
	*out = xcalloc(nr + 1, sizeof(**out));
	for (i = 0; i < nr; i++) {
		struct loaded_predictor *lp = &(*out)[i];
		strbuf_reset(&origin);
		strbuf_addf(&origin, "%s: predictor '%s'", ctx->sd->db_path, rows[i].scope);
		if ((ret = perphecy_predictor_from_json(rows[i].model, origin.buf, &lp->p))) {
			error("%s: retrain with revperf train", origin.buf);
			break;
		}
		lp->scope = rows[i].scope;
		rows[i].scope = NULL;
		lp->trained_at = rows[i].trained_at;
		lp->nr_tuples = rows[i].nr_tuples;
		lp->nr_hits = rows[i].nr_hits;
		(*n)++;
	}
	store_predictors_free(rows, nr);
	strbuf_release(&origin);
	return ret;
}

static void free_predictors(struct loaded_predictor *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i].scope);
	free(p);
}

static const struct loaded_predictor *choose_predictor(const struct loaded_predictor *p, size_t n,
						       const char *bench, enum predict_scope scope)
{
	const struct loaded_predictor *common = NULL;
	for (size_t i = 0; i < n; i++) {
		if (scope == PREDICT_SCOPE_BENCH && !strcmp(p[i].scope, bench))
			return &p[i];
		if (!strcmp(p[i].scope, "common"))
			common = &p[i];
	}
	return common;
}

/* PeASS (METHODS.md section 8): b runs when a function it reached at i changed. */
static void select_by_tests(struct predict_bench *pb, const struct perphecy_static *s,
			    const struct perphecy_profile *p)
{
	const struct perphecy_func_dyn *hottest = NULL;
	for (size_t k = 0; k < s->nr_funcs; k++) {
		const struct perphecy_func_dyn *f = perphecy_profile_find(p, s->funcs[k].name);
		if (!f)
			continue;
		pb->nr_reached_changed++;
		if (!hottest || f->cost > hottest->cost ||
		    (f->cost == hottest->cost && f->calls > hottest->calls))
			hottest = f;
	}
	pb->run = hottest != NULL;
	pb->reason = hottest ? PREDICT_REACHED_CHANGED : PREDICT_NOT_REACHED;
	if (hottest)
		pb->function = xstrdup(hottest->name);
}

static int predict_one(struct work *w, const struct bench_config *b, const char *sha_u,
		       enum predict_mode mode, const struct loaded_predictor *lp,
		       struct predict_bench *pb)
{
	const struct perphecy_static *s;
	const struct perphecy_profile *p;
	int ret = predict_find_ancestor(w->ctx, sha_u, b, &pb->ancestor);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		pb->run = true;
		pb->reason = PREDICT_NO_DATA;
		return 0;
	}
	if ((ret = work_data(w, b, sha_u, &pb->ancestor, &s, &p)))
		return ret;
	perphecy_compute(s, p, &pb->values);
	pb->has_values = true;
	if (mode == PREDICT_TESTS) {
		select_by_tests(pb, s, p);
	} else if (!lp) {
		pb->run = true;
		pb->reason = PREDICT_NO_PREDICTOR;
	} else {
		size_t fired;
		pb->scope = strcmp(lp->scope, "common") ? pb->name : "common";
		pb->run = perphecy_predict(&lp->p, &pb->values, &fired);
		pb->reason = pb->run ? PREDICT_FIRED : PREDICT_DISMISSED;
		if (pb->run) {
			struct strbuf sb = STRBUF_INIT;
			perphecy_indicator_format(&lp->p.ind[fired], &sb);
			pb->indicator = strbuf_detach(&sb);
		}
	}
	return 0;
}

int predict_revision(struct predict_ctx *ctx, const struct revision *u,
		     const struct store_build *build_u, enum predict_mode mode,
		     enum predict_scope scope, struct predict_result *out)
{
	struct work w;
	struct loaded_predictor *lps = NULL;
	size_t nr_lps = 0, i;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	memcpy(out->sha, u->sha, 41);
	out->mode = mode;
	work_add_build(&w, u->sha, build_u);
	if (mode == PREDICT_PERPHECY && (ret = load_predictors(ctx, &lps, &nr_lps)))
		goto out;
	for (i = 0; i < nr_lps; i++)
		if (!strcmp(lps[i].scope, "common")) {
			out->trained_at = lps[i].trained_at;
			out->train_tuples = lps[i].nr_tuples;
			out->train_hits = lps[i].nr_hits;
		}
	out->no_predictor = mode == PREDICT_PERPHECY && !nr_lps;
	out->benches = xcalloc(ctx->cfg->nr_benches + 1, sizeof(*out->benches));
	for (i = 0; i < ctx->cfg->nr_benches; i++) {
		const struct bench_config *b = &ctx->cfg->benches[i];
		const struct loaded_predictor *lp = choose_predictor(lps, nr_lps, b->name, scope);
		struct predict_bench *pb = &out->benches[out->nr_benches++];
		pb->name = xstrdup(b->name);
		if ((ret = predict_one(&w, b, u->sha, mode, lp, pb)))
			goto out;
		if (pb->run)
			out->nr_run++;
		if (lp && lp->p.no_hits && pb->reason == PREDICT_DISMISSED)
			out->trivial = true;
	}
out:
	free_predictors(lps, nr_lps);
	work_release(&w);
	return ret;
}

void predict_result_release(struct predict_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr_benches; i++) {
		free(r->benches[i].name);
		free(r->benches[i].indicator);
		free(r->benches[i].function);
	}
	free(r->benches);
	memset(r, 0, sizeof(*r));
}

int predict_select(struct config *cfg, const struct predict_result *r)
{
	struct strbuf names = STRBUF_INIT;
	int ret;
	for (size_t i = 0; i < r->nr_benches; i++)
		if (r->benches[i].run)
			strbuf_addf(&names, "%s%s", names.len ? "," : "", r->benches[i].name);
	ret = config_select(cfg, names.buf);
	strbuf_release(&names);
	return ret;
}

/* ---- training ---- */

void predict_train_opts_init(struct predict_train_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->k = 10;
	o->seed = 1;
	o->save = true;
}

void predict_training_release(struct predict_training *t)
{
	if (!t)
		return;
	free(t->tuples);
	free(t->sources);
	for (size_t i = 0; i < t->nr_bench; i++)
		free(t->bench_names[i]);
	free(t->bench_names);
	free(t->per_bench);
	perphecy_cv_result_release(&t->cv_common);
	perphecy_cv_result_release(&t->cv_bench);
	memset(t, 0, sizeof(*t));
}

/* Labelled verdicts by (target, benchmark name, command), the latest comparison first. */
static int cmp_labelled(const void *a, const void *b)
{
	const struct store_labelled *x = *(const struct store_labelled *const *)a;
	const struct store_labelled *y = *(const struct store_labelled *const *)b;
	int c = strcmp(x->target_sha, y->target_sha);
	if (!c)
		c = strcmp(x->bench_name, y->bench_name);
	if (!c)
		c = strcmp(x->bench_command, y->bench_command);
	if (!c)
		c = x->comparison_id < y->comparison_id ? 1 : x->comparison_id > y->comparison_id;
	return c;
}

static int cmp_sha(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* Whether labelled verdict l can label (u, i, b): its base is u's first parent or i. */
static int eligible(struct predict_ctx *ctx, const struct store_labelled *l,
		    const struct predict_ancestor *a)
{
	char parent[41];
	int ret;
	if (!strcmp(l->base_sha, a->sha))
		return 1;
	ret = predict_first_parent(ctx, l->target_sha, parent);
	if (ret < 0)
		return ret;
	return ret == 0 && !strcmp(parent, l->base_sha);
}

static size_t bench_index(struct predict_training *t, const char *name)
{
	size_t j;
	for (j = 0; j < t->nr_bench; j++)
		if (!strcmp(t->bench_names[j], name))
			return j;
	t->bench_names = xrealloc(t->bench_names, (t->nr_bench + 1) * sizeof(*t->bench_names));
	t->bench_names[t->nr_bench] = xstrdup(name);
	return t->nr_bench++;
}

/*
 * Whether the stored benchmark (name, command) is a test of suite s ("SUITE/TEST" run by
 * its test-command); then *out is s with that name and command (borrowed, shallow).
 */
static bool suite_test(const struct bench_config *s, const char *name, const char *command,
		       struct bench_config *out)
{
	size_t len = strlen(s->name);
	const char *test, *p = s->test_command, *hole;
	struct strbuf cmd = STRBUF_INIT;
	bool same;
	if (strncmp(name, s->name, len) || name[len] != '/' || !name[len + 1])
		return false;
	test = name + len + 1;
	while ((hole = strstr(p, "{test}"))) {
		strbuf_add(&cmd, p, (size_t)(hole - p));
		strbuf_addstr(&cmd, test);
		p = hole + 6;
	}
	strbuf_addstr(&cmd, p);
	same = !strcmp(cmd.buf, command);
	strbuf_release(&cmd);
	if (!same)
		return false;
	*out = *s;
	out->name = (char *)name;
	out->command = (char *)command;
	out->tests = NULL;
	out->test_command = NULL;
	return true;
}

/*
 * One group of labelled verdicts of the same (u, b), latest first: the first eligible one
 * labels the tuple; earlier ones are superseded.
 */
static int collect_group(struct work *w, struct predict_training *t,
			 const struct store_labelled *const *g, size_t n)
{
	const struct bench_config *b = NULL;
	struct predict_ancestor a;
	const struct perphecy_static *s;
	const struct perphecy_profile *p;
	struct perphecy_tuple *tu;
	size_t k;
	int ret;

	struct bench_config test;
	for (k = 0; k < w->ctx->cfg->nr_benches; k++) {
		const struct bench_config *c = &w->ctx->cfg->benches[k];
		if (c->command && !strcmp(c->name, g[0]->bench_name) &&
		    !strcmp(c->command, g[0]->bench_command))
			b = c;
		else if (c->tests && suite_test(c, g[0]->bench_name, g[0]->bench_command, &test))
			b = &test;
	}
	if (!b) {
		t->nr_unconfigured += n;
		return 0;
	}
	ret = find_ancestor(w->ctx, g[0]->target_sha, b, &a, true);
	if (ret == RP_EINPUT) { /* a commit no longer in the repository */
		t->nr_no_ancestor += n;
		return 0;
	}
	if (ret < 0)
		return ret;
	if (ret == 1) {
		t->nr_no_ancestor += n;
		return 0;
	}
	for (k = 0; k < n; k++) {
		if ((ret = eligible(w->ctx, g[k], &a)) < 0)
			return ret;
		if (ret)
			break;
		t->nr_not_parent++;
	}
	if (k == n)
		return 0;
	t->nr_superseded += n - k - 1;
	if (g[k]->label == STORE_LABEL_UNDECIDED) {
		t->nr_undecided++;
		return 0;
	}
	if ((ret = work_data(w, b, g[k]->target_sha, &a, &s, &p)))
		return ret;
	ALLOC_GROW(t->tuples, t->nr_tuples + 1, t->alloc_tuples);
	t->sources = xrealloc(t->sources, t->alloc_tuples * sizeof(*t->sources));
	tu = &t->tuples[t->nr_tuples];
	memset(tu, 0, sizeof(*tu));
	perphecy_compute(s, p, &tu->values);
	tu->hit = g[k]->label == STORE_LABEL_HIT;
	tu->bench = (uint32_t)bench_index(t, b->name);
	memcpy(t->sources[t->nr_tuples].commit, g[k]->target_sha, 41);
	memcpy(t->sources[t->nr_tuples].ancestor, a.sha, 41);
	t->sources[t->nr_tuples].comparison_id = g[k]->comparison_id;
	t->nr_tuples++;
	if (tu->hit)
		t->nr_hits++;
	else
		t->nr_misses++;
	return 0;
}

static int collect_tuples(struct predict_ctx *ctx, struct predict_training *t)
{
	struct store_labelled *l = NULL;
	const struct store_labelled **group = NULL, **order = NULL;
	size_t nr = 0, i, j;
	char(*commits)[41] = NULL;
	struct work w;
	int ret;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	if ((ret = store_labelled_verdicts(
		 ctx->st, ctx->cfg->build_command ? ctx->cfg->build_command : "", &l, &nr)))
		return ret;
	order = xcalloc(nr + 1, sizeof(*order));
	group = xcalloc(nr + 1, sizeof(*group));
	for (i = 0; i < nr; i++)
		order[i] = &l[i];
	if (nr)
		qsort(order, nr, sizeof(*order), cmp_labelled);
	for (i = 0; i < nr; i = j) {
		size_t n = 0;
		for (j = i; j < nr && !strcmp(order[j]->target_sha, order[i]->target_sha) &&
			    !strcmp(order[j]->bench_name, order[i]->bench_name) &&
			    !strcmp(order[j]->bench_command, order[i]->bench_command);
		     j++)
			group[n++] = order[j];
		if ((ret = collect_group(&w, t, group, n)))
			goto out;
	}
	/* Commit keys for the folds: the index of u among the distinct commits, sorted. */
	commits = xcalloc(t->nr_tuples + 1, sizeof(*commits));
	for (i = 0; i < t->nr_tuples; i++)
		memcpy(commits[i], t->sources[i].commit, 41);
	if (t->nr_tuples)
		qsort(commits, t->nr_tuples, sizeof(*commits), cmp_sha);
	for (i = 0, j = 0; i < t->nr_tuples; i++)
		if (!j || strcmp(commits[j - 1], commits[i]))
			memcpy(commits[j++], commits[i], 41);
	t->nr_commits = j;
	for (i = 0; i < t->nr_tuples; i++) {
		char(*hit)[41] =
		    bsearch(t->sources[i].commit, commits, j, sizeof(*commits), cmp_sha);
		t->tuples[i].commit = (uint64_t)(hit - commits);
	}
out:
	free(commits);
	free(order);
	free(group);
	store_labelled_free(l, nr);
	work_release(&w);
	return ret;
}

/* A value as JSON: null for NaN (the indicator could not be computed). */
static json_t *value_json(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

char *predict_tuples_json(const struct predict_training *t, long bench)
{
	json_t *a = json_array();
	char *text;
	for (size_t i = 0; i < t->nr_tuples; i++) {
		const struct perphecy_tuple *tu = &t->tuples[i];
		json_t *values;
		if (bench >= 0 && tu->bench != (uint32_t)bench)
			continue;
		values = json_object();
		for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++)
			json_object_set_new(values, perphecy_template_id((enum perphecy_template)k),
					    value_json(tu->values.v[k]));
		json_array_append_new(
		    a, json_pack("{s:s, s:s, s:s, s:I, s:b, s:o}", "commit", t->sources[i].commit,
				 "ancestor", t->sources[i].ancestor, "bench",
				 t->bench_names[tu->bench], "comparison",
				 (json_int_t)t->sources[i].comparison_id, "hit", tu->hit, "values",
				 values));
	}
	text = json_dumps(a, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(a);
	return text ? text : xstrdup("[]");
}

/* The tuples of benchmark j, copied. */
static struct perphecy_tuple *bench_tuples(const struct predict_training *t, size_t j, size_t *n)
{
	struct perphecy_tuple *sub = xcalloc(t->nr_tuples + 1, sizeof(*sub));
	*n = 0;
	for (size_t i = 0; i < t->nr_tuples; i++)
		if (t->tuples[i].bench == j)
			sub[(*n)++] = t->tuples[i];
	return sub;
}

static int save_predictors(struct predict_ctx *ctx, const struct predict_training *t)
{
	struct store_predictor *rows = xcalloc(t->nr_bench + 1, sizeof(*rows));
	size_t n = 0, j;
	int ret;
	rows[n].scope = xstrdup("common");
	rows[n].model = perphecy_predictor_to_json(&t->common);
	rows[n].tuples = predict_tuples_json(t, -1);
	rows[n].nr_tuples = t->nr_tuples;
	rows[n++].nr_hits = t->nr_hits;
	for (j = 0; j < t->nr_bench; j++) {
		rows[n].scope = xstrdup(t->bench_names[j]);
		rows[n].model = perphecy_predictor_to_json(&t->per_bench[j]);
		rows[n].tuples = predict_tuples_json(t, (long)j);
		rows[n].nr_tuples = t->per_bench[j].nr_hits + t->per_bench[j].nr_misses;
		rows[n++].nr_hits = t->per_bench[j].nr_hits;
	}
	ret = store_predictors_replace(ctx->st, rows, n);
	store_predictors_free(rows, n);
	return ret;
}

int predict_train(struct predict_ctx *ctx, const struct predict_train_opts *o,
		  struct predict_training *out)
{
	int ret;
	memset(out, 0, sizeof(*out));
	perphecy_predictor_init(&out->common);
	if ((ret = collect_tuples(ctx, out)))
		return ret;
	if (!out->nr_tuples) {
		error("no training data: no stored comparison of a commit with its parent has a "
		      "decided verdict on a benchmark with dynamic data at an ancestor "
		      "(%zu undecided, %zu without dynamic data at an ancestor, %zu not against "
		      "the parent); run `revperf run --dynamic REV` and `revperf compare REV~1 "
		      "REV` on a few commits first",
		      out->nr_undecided, out->nr_no_ancestor, out->nr_not_parent);
		return RP_EINPUT;
	}
	if ((ret =
		 perphecy_train(out->tuples, out->nr_tuples, PERPHECY_ALL_TEMPLATES, &out->common)))
		return ret;
	perphecy_evaluate(&out->common, out->tuples, out->nr_tuples, &out->full);
	out->per_bench = xcalloc(out->nr_bench + 1, sizeof(*out->per_bench));
	for (size_t j = 0; j < out->nr_bench; j++) {
		size_t n;
		struct perphecy_tuple *sub = bench_tuples(out, j, &n);
		ret = perphecy_train(sub, n, PERPHECY_ALL_TEMPLATES, &out->per_bench[j]);
		free(sub);
		if (ret)
			return ret;
	}
	if (o->evaluate) {
		struct perphecy_cv_opts cv;
		perphecy_cv_opts_init(&cv);
		cv.k = o->k;
		cv.seed = o->seed;
		if (out->nr_commits < 2) {
			error(
			    "cannot cross-validate: the training data has %zu commit; it needs at "
			    "least 2 (compare more commits with their parents)",
			    out->nr_commits);
			return RP_EINPUT;
		}
		if ((ret = perphecy_cross_validate(out->tuples, out->nr_tuples, &cv,
						   &out->cv_common)))
			return ret;
		cv.scope = PERPHECY_PER_BENCH;
		if ((ret =
			 perphecy_cross_validate(out->tuples, out->nr_tuples, &cv, &out->cv_bench)))
			return ret;
		out->evaluated = true;
	}
	if (o->save && (ret = save_predictors(ctx, out)))
		return ret;
	return 0;
}

/* ---- sessions ---- */

int predict_session_open(struct predict_session *s, const char *config_path, const char *state_dir,
			 const char *bench)
{
	struct strbuf path = STRBUF_INIT;
	char cwd[4096];
	int ret;

	memset(s, 0, sizeof(*s));
	config_init(&s->cfg);
	if (!getcwd(cwd, sizeof(cwd))) {
		error("cannot read the current directory: %s", strerror(errno));
		return RP_EINTERNAL;
	}
	if ((ret = repo_open(cwd, &s->repo)))
		goto out;
	if (config_path)
		strbuf_addstr(&path, config_path);
	else
		strbuf_addf(&path, "%s/revperf.ini", repo_workdir(s->repo));
	if ((ret = config_read(&s->cfg, path.buf)))
		goto out;
	ret = RP_EINPUT;
	if (!s->cfg.nr_benches) {
		error("%s defines no benchmark; add a [benchmark \"NAME\"] section with a command",
		      path.buf);
		goto out;
	}
	if (bench && config_select(&s->cfg, bench))
		goto out;
	if (config_finish(&s->cfg))
		goto out;
	if ((ret = state_dir_open(repo_workdir(s->repo), state_dir, &s->sd)) ||
	    (ret = store_open(s->sd.db_path, &s->st)))
		goto out;
	predict_ctx_init(&s->ctx, &s->cfg, s->st, s->repo, &s->sd);
	ret = 0;
out:
	strbuf_release(&path);
	return ret;
}

void predict_session_close(struct predict_session *s)
{
	if (!s)
		return;
	predict_ctx_release(&s->ctx);
	store_close(s->st);
	state_dir_release(&s->sd);
	config_release(&s->cfg);
	repo_close(s->repo);
	memset(s, 0, sizeof(*s));
}
