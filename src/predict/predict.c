/*
 * The benchmark predictor's integration (predict.h): the context, the closest ancestor with
 * dynamic data, the static data of (i, u) from the binary diff, what a prediction loads,
 * predictions and selection, sessions. Dynamic data is collected in predict_dynamic.c,
 * PeASS's rules are in predict_peass.c, training in predict_train.c, test suites and
 * programs in predict_suite.c; the analysis itself is analysis/perphecy.h.
 */
#include "predict/predict.h"
#include "predict/predict_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binary/bindiff.h"
#include "util/fsutil.h"
#include "store/store_dynamic.h"
#include "util/common.h"
#include "util/input.h"

/* A static-data cache file is small (changed functions only); refuse anything huge. */

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
	case PREDICT_TRACE_CHANGED: return "trace-changed";
	case PREDICT_MARKED_PATH: return "marked-path";
	}
	return "unknown";
}

const char *predict_trace_name(enum predict_trace t)
{
	switch (t) {
	case PREDICT_TRACE_NOT_COMPARED: return "not-compared";
	case PREDICT_TRACE_SAME: return "same";
	case PREDICT_TRACE_DIFFERS: return "differs";
	case PREDICT_TRACE_OTHER_SOURCE: return "other-source";
	}
	return "unknown";
}

/* ---- history ---- */

/* predict_first_parent(); quiet: no message when sha is not a commit of the repository. */
static int first_parent(struct predict_ctx *ctx, const char *sha, char parent[41], bool quiet)
{
	return repo_first_parent(ctx->repo, sha, parent, quiet);
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
int predict_ancestor_lookup(struct predict_ctx *ctx, const char *sha_u,
			    const struct bench_config *b, struct predict_ancestor *out, bool quiet)
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
	return predict_ancestor_lookup(ctx, sha_u, b, out, false);
}

int predict_dynamic_at(struct predict_ctx *ctx, const char *sha, const struct bench_config *b,
		       struct predict_ancestor *out)
{
	const struct predict_shas *s;
	struct store_dynamic_rev key, *hit;
	int ret;
	memset(out, 0, sizeof(*out));
	if ((ret = bench_shas(ctx, b, &s)))
		return ret;
	snprintf(key.sha, sizeof(key.sha), "%s", sha);
	hit = s->nr ? bsearch(&key, s->revs, s->nr, sizeof(*s->revs), cmp_rev_sha) : NULL;
	if (!hit)
		return 1;
	memcpy(out->sha, hit->sha, 41);
	out->profile_id = hit->profile_id;
	memcpy(out->cost, hit->cost, sizeof(out->cost));
	return 0;
}

/* Forgets the cached commits with dynamic data of b (after new data was stored). */
void predict_forget_dynamic(struct predict_ctx *ctx, const char *bench)
{
	for (size_t i = 0; i < ctx->nr_shas; i++)
		if (!strcmp(ctx->shas[i].name, bench)) {
			free(ctx->shas[i].name);
			free(ctx->shas[i].command);
			free(ctx->shas[i].revs);
			ctx->shas[i] = ctx->shas[--ctx->nr_shas];
			break;
		}
}

/* ---- static data ---- */

/*
 * 2: with the start-up line; 3: data that starts with a NUL byte is no longer taken for
 * an empty string by the binary diff (normalize.c), which changes which functions are
 * modified. A cache of an older format is computed again.
 */
#define CACHE_MAGIC "revperf-static 3"

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
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	size_t added = 0, deleted = 0, modified = 0, i;
	char *p, *line, *save = NULL;
	int ret = -1, err;

	err = input_read_why(&sb, path, &input_state, &why);
	strbuf_release(&why); /* a cache that is missing or unreadable is rebuilt */
	if (err)
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
	line = strtok_r(NULL, "\n", &save);
	if (!line)
		goto out;
	if (strcmp(line, "startup unknown")) {
		struct perphecy_startup st = {true, 0, 0, 0, 0};
		uint64_t v[4];
		if (sscanf(line, "startup %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &v[0],
			   &v[1], &v[2], &v[3]) != 4)
			goto out;
		st.relocs_i = v[0];
		st.relocs_u = v[1];
		st.imports_added = v[2];
		st.imports_removed = v[3];
		if (perphecy_static_set_startup(out, &st))
			goto out;
	}
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
	struct strbuf sb = STRBUF_INIT;
	struct whole_file w;
	strbuf_addf(&sb, "%s\n%s\ncounts %zu %zu %zu\n", CACHE_MAGIC, key, s->nr_added,
		    s->nr_deleted, s->nr_modified);
	if (s->startup.known)
		strbuf_addf(&sb, "startup %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			    s->startup.relocs_i, s->startup.relocs_u, s->startup.imports_added,
			    s->startup.imports_removed);
	else
		strbuf_addstr(&sb, "startup unknown\n");
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
	if (whole_file_open(&w, path))
		goto out;
	fwrite(sb.buf, 1, sb.len, w.f); /* a short write fails the commit: no cache */
	whole_file_commit(&w);
out:
	strbuf_release(&sb);
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
		if (mkdir_own(ctx->sd->root, path.buf)) {
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

void predict_work_release(struct predict_work *w)
{
	size_t i;
	for (i = 0; i < w->nr_builds; i++)
		store_build_release(&w->builds[i].build);
	for (i = 0; i < w->nr_profiles; i++) {
		perphecy_profile_release(&w->profiles[i]->p);
		free(w->profiles[i]);
	}
	for (i = 0; i < w->nr_paths; i++)
		repo_paths_free(w->paths[i].paths, w->paths[i].nr);
	free(w->paths);
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
void predict_work_add_build(struct predict_work *w, const char *sha, const struct store_build *b)
{
	struct predict_work_build *wb;
	ALLOC_GROW(w->builds, w->nr_builds + 1, w->alloc_builds);
	wb = &w->builds[w->nr_builds++];
	memcpy(wb->sha, sha, 41);
	wb->build = *b;
	wb->build.command = b->command ? xstrdup(b->command) : NULL;
	wb->build.worktree = b->worktree ? xstrdup(b->worktree) : NULL;
	wb->build.log_path = b->log_path ? xstrdup(b->log_path) : NULL;
	wb->build.fingerprint = b->fingerprint ? xstrdup(b->fingerprint) : NULL;
}

/* The build of sha with the configured command (build_ensure: cached when it was built). */
int predict_work_build(struct predict_work *w, const char *sha, const struct store_build **out)
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
	predict_work_add_build(w, sha, &b);
	store_build_release(&b);
	*out = &w->builds[w->nr_builds - 1].build;
	return 0;
}

int predict_work_profile(struct predict_work *w, int64_t profile_id, const char *cost,
			 const char *bench, const struct perphecy_profile **out)
{
	struct store_dynamic d;
	struct predict_work_profile *wp;
	int ret;
	for (size_t i = 0; i < w->nr_profiles; i++)
		if (w->profiles[i]->id == profile_id) {
			*out = &w->profiles[i]->p;
			return 0;
		}
	memset(&d, 0, sizeof(d));
	d.id = profile_id;
	snprintf(d.cost, sizeof(d.cost), "%s", cost);
	wp = xcalloc(1, sizeof(*wp));
	wp->id = profile_id;
	ret = store_dynamic_load(w->ctx->st, &d, bench, &wp->p);
	if (ret) {
		perphecy_profile_release(&wp->p);
		free(wp);
		return ret;
	}
	ALLOC_GROW(w->profiles, w->nr_profiles + 1, w->alloc_profiles);
	w->profiles[w->nr_profiles++] = wp;
	*out = &wp->p;
	return 0;
}

static int predict_work_static(struct predict_work *w, const char *bin_i, const char *bin_u,
			       const struct perphecy_static **out)
{
	struct predict_work_static *ws;
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
int predict_work_data(struct predict_work *w, const struct bench_config *b, const char *sha_u,
		      const struct predict_ancestor *a, const struct perphecy_static **s,
		      const struct perphecy_profile **p)
{
	const struct store_build *bi, *bu;
	struct strbuf pi = STRBUF_INIT, pu = STRBUF_INIT;
	int ret;
	/* Each build's program first: the second predict_work_build() may move w->builds. */
	if (!(ret = predict_work_build(w, a->sha, &bi)) &&
	    !(ret = predict_bench_binary(b, bi->worktree, &pi)) &&
	    !(ret = predict_work_build(w, sha_u, &bu)) &&
	    !(ret = predict_bench_binary(b, bu->worktree, &pu)) &&
	    !(ret = predict_work_static(w, pi.buf, pu.buf, s)))
		ret = predict_work_profile(w, a->profile_id, a->cost, b->name, p);
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
		strbuf_addf(&origin, "%s: predictor '%s'", store_name(ctx->st), rows[i].scope);
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

static int predict_one(struct predict_work *w, const struct bench_config *b, const char *sha_u,
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
	/* Checked first: a marked path needs neither i's build nor the binary diff. */
	if ((ret = predict_select_by_paths(w, b, sha_u, pb)) || pb->run)
		return ret;
	if ((ret = predict_work_data(w, b, sha_u, &pb->ancestor, &s, &p)))
		return ret;
	perphecy_compute(s, p, &pb->values);
	pb->has_values = true;
	if (mode == PREDICT_TESTS) {
		predict_select_by_tests(pb, s, p);
		if (!pb->run)
			ret = predict_select_by_trace(w, b, sha_u, p, pb);
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
	return ret;
}

int predict_revision(struct predict_ctx *ctx, const struct revision *u,
		     const struct store_build *build_u, enum predict_mode mode,
		     enum predict_scope scope, struct predict_result *out)
{
	struct predict_work w;
	struct loaded_predictor *lps = NULL;
	size_t nr_lps = 0, i;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	memcpy(out->sha, u->sha, 41);
	out->mode = mode;
	predict_work_add_build(&w, u->sha, build_u);
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
	predict_work_release(&w);
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
		free(r->benches[i].path);
		free(r->benches[i].glob);
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

/* ---- sessions ---- */

int predict_session_open(struct predict_session *s, struct repo *repo, const struct state_dir *sd,
			 struct store *st, const char *config_path, const char *bench)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	memset(s, 0, sizeof(*s));
	s->repo = repo;
	s->sd = sd;
	s->st = st;
	config_init(&s->cfg);
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
	predict_ctx_init(&s->ctx, &s->cfg, s->st, s->repo, s->sd);
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
	config_release(&s->cfg);
	memset(s, 0, sizeof(*s));
}
