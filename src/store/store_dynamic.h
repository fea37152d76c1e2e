#ifndef REVPERF_STORE_STORE_DYNAMIC_H
#define REVPERF_STORE_STORE_DYNAMIC_H

/*
 * The store's tables of the benchmark predictor (docs/store.md, docs/prediction.md):
 * dynamic data per (build, benchmark) (`dynamic_profiles`, `dynamic_functions`), the
 * primary verdicts that label training tuples, and trained predictors (`predictors`).
 * Same rules as store.h: every write that belongs together is one transaction; a handle
 * is not thread-safe.
 */
#include "analysis/perphecy.h"
#include "store/store.h"
#include "util/common.h"

/* One row of dynamic_profiles. */
struct store_dynamic {
	int64_t id;
	int64_t build_id, benchmark_id;
	char source[16]; /* "callgrind" or "cct" */
	char cost[16];	 /* "instructions" or "self_ns" */
	char *path;	 /* where the profile that was read lives; may be NULL */
	int64_t created_at;
};
void store_dynamic_release(struct store_dynamic *d);

/* "instructions" / "self_ns" for a cost unit, and back (-1 for an unknown name). */
const char *store_dynamic_cost_name(enum perphecy_cost c);
int store_dynamic_cost_parse(const char *s, enum perphecy_cost *out);

/*
 * Stores the dynamic data of (d->build_id, d->benchmark_id): the row (d->source, d->cost,
 * d->path) and one row per function of p, replacing what that pair had, in one
 * transaction; sets d->id and d->created_at. Returns 0 or RP_EINTERNAL.
 */
int store_dynamic_save(struct store *st, struct store_dynamic *d, const struct perphecy_profile *p);

/*
 * The dynamic data row of (build, benchmark) into *out (release it with
 * store_dynamic_release()). Returns 0 when found, 1 when there is none, RP_EINTERNAL.
 */
int store_dynamic_find(struct store *st, int64_t build_id, int64_t benchmark_id,
		       struct store_dynamic *out);

/*
 * Reads the functions of dynamic profile d into `out` (initialised here with `bench` as
 * its name and d's cost unit; release with perphecy_profile_release()). Returns 0,
 * RP_EINPUT when a stored row is bad (an unknown cost unit, a negative count: the
 * database was edited), RP_EINTERNAL on a database failure.
 */
int store_dynamic_load(struct store *st, const struct store_dynamic *d, const char *bench,
		       struct perphecy_profile *out);

/* A commit with dynamic data of a benchmark (store_dynamic_revisions()). */
struct store_dynamic_rev {
	char sha[41];
	int64_t profile_id;
	char cost[16]; /* the row's cost unit */
};

/*
 * The commits whose build with build_command (variant '') has dynamic data of the
 * benchmark (name, command), newest data first, in an array the caller frees. Returns 0
 * or RP_EINTERNAL.
 */
int store_dynamic_revisions(struct store *st, const char *bench_name, const char *bench_command,
			    const char *build_command, struct store_dynamic_rev **out, size_t *n);

/*
 * One comparison and benchmark with at least one primary verdict: the two commits
 * compared and the verdicts of the primary metrics folded into one label.
 */
enum store_label {
	STORE_LABEL_MISS = 0,  /* every primary metric equal */
	STORE_LABEL_HIT,       /* a primary metric worse or better */
	STORE_LABEL_UNDECIDED, /* neither: left out of training */
};

struct store_labelled {
	int64_t comparison_id;
	char base_sha[41], target_sha[41];
	char *bench_name, *bench_command;
	enum store_label label;
};

/*
 * Every (comparison of two revisions, benchmark) with primary verdicts, oldest comparison
 * first, on builds of build_command (variant ''; NULL: any command). The caller frees the
 * array with store_labelled_free(). Returns 0 or RP_EINTERNAL.
 */
int store_labelled_verdicts(struct store *st, const char *build_command,
			    struct store_labelled **out, size_t *n);
void store_labelled_free(struct store_labelled *l, size_t n);

/* One row of predictors. */
struct store_predictor {
	int64_t id;
	char *scope;  /* "common" or a benchmark name */
	char *model;  /* perphecy_predictor_to_json() */
	char *tuples; /* the training data, JSON (docs/prediction.md) */
	size_t nr_tuples, nr_hits;
	int64_t trained_at;
};

/*
 * Replaces every stored predictor by the n given ones (their ids are ignored, then set;
 * trained_at 0 = now), in one transaction. Returns 0 or RP_EINTERNAL.
 */
int store_predictors_replace(struct store *st, struct store_predictor *p, size_t n);

/*
 * The stored predictors, common first, then by scope, in an array the caller frees with
 * store_predictors_free(). *n = 0 when none was trained. Returns 0 or RP_EINTERNAL.
 */
int store_predictors_load(struct store *st, struct store_predictor **out, size_t *n);
void store_predictors_free(struct store_predictor *p, size_t n);

#endif
