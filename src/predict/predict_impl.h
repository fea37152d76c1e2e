#ifndef REVPERF_PREDICT_PREDICT_IMPL_H
#define REVPERF_PREDICT_PREDICT_IMPL_H

/*
 * What the predictor's files (predict.c, predict_dynamic.c, predict_peass.c,
 * predict_suite.c, predict_train.c) share; not for use outside them. Not thread-safe, as predict.h.
 */
#include "predict/predict.h"
#include "util/strbuf.h"

/* What one prediction or training loads, once: builds, profiles at i, static data. */
struct predict_work_build {
	char sha[41];
	struct store_build build;
};

struct predict_work_profile {
	int64_t id;
	struct perphecy_profile p;
};

struct predict_work_static {
	char *bin_i, *bin_u;
	struct perphecy_static s;
};

/* The paths that differ between the trees of i and u (repo_diff_paths()). */
struct predict_work_paths {
	char sha_i[41], sha_u[41];
	char **paths;
	size_t nr;
};

struct predict_work {
	struct predict_ctx *ctx;
	struct predict_work_paths *paths;
	size_t nr_paths, alloc_paths;
	struct predict_work_build *builds;
	size_t nr_builds, alloc_builds;
	struct predict_work_profile **profiles; /* each allocated: pointers stay valid */
	size_t nr_profiles, alloc_profiles;
	struct predict_work_static *statics;
	size_t nr_statics, alloc_statics;
};

/* Frees everything w loaded (not w->ctx). */
void predict_work_release(struct predict_work *w);

/* Hands a build (already made, e.g. u's) to w, copied. */
void predict_work_add_build(struct predict_work *w, const char *sha, const struct store_build *b);

/* The build of sha with the configured command (build_ensure: cached when it was built);
 * *out points into w and is valid until the next predict_work_build(). */
int predict_work_build(struct predict_work *w, const char *sha, const struct store_build **out);

/* The static data of (i, u) for the program b runs, and b's profile at i (owned by w). */
int predict_work_data(struct predict_work *w, const struct bench_config *b, const char *sha_u,
		      const struct predict_ancestor *a, const struct perphecy_static **s,
		      const struct perphecy_profile **p);

/* b's profile with id profile_id and cost unit `cost` (owned by w). */
int predict_work_profile(struct predict_work *w, int64_t profile_id, const char *cost,
			 const char *bench, const struct perphecy_profile **out);

/* predict_find_ancestor(); quiet: no message when u is not a commit of the repository. */
int predict_ancestor_lookup(struct predict_ctx *ctx, const char *sha_u,
			    const struct bench_config *b, struct predict_ancestor *out, bool quiet);

/* PeASS: pb runs (PREDICT_REACHED_CHANGED) when a function b reached at i (profile p) was
 * modified or deleted in s, else skips (PREDICT_NOT_REACHED). */
void predict_select_by_tests(struct predict_bench *pb, const struct perphecy_static *s,
			     const struct perphecy_profile *p);

/*
 * PeASS's trace rule: when b has dynamic data at u itself, its call trace there (the
 * functions reached, each with its calls) against the one at i (profile pi); pb runs
 * (PREDICT_TRACE_CHANGED, the first differing function by name) when they differ.
 * Sets pb->trace. Returns 0 or an error from the store.
 */
int predict_select_by_trace(struct predict_work *w, const struct bench_config *b, const char *sha_u,
			    const struct perphecy_profile *pi, struct predict_bench *pb);

/*
 * A path that the user marks always selects: pb runs (PREDICT_MARKED_PATH) when a path
 * that differs between the trees of pb->ancestor and u matches b's select-paths.
 * Returns 0 or an error from the repository.
 */
int predict_select_by_paths(struct predict_work *w, const struct bench_config *b, const char *sha_u,
			    struct predict_bench *pb);

/* Forgets the cached commits with dynamic data of `bench` (after new data was stored). */
void predict_forget_dynamic(struct predict_ctx *ctx, const char *bench);


/*
 * Whether the stored benchmark (name, command) is a test of suite s ("SUITE/TEST" run by
 * its test-command); then *out is s with that name and command (borrowed, shallow).
 */
bool predict_suite_test(const struct bench_config *s, const char *name, const char *command,
			struct bench_config *out);

#endif
