#ifndef REVPERF_COMPARE_STORED_PROFILES_H
#define REVPERF_COMPARE_STORED_PROFILES_H

/*
 * The profiles `compare` stored (profile = cct, profile = io) for a benchmark at a
 * revision, loaded from the store: what `revperf diff --bench NAME OLD NEW` differences.
 * Not thread-safe for the same output; no global state.
 */
#include <stdbool.h>
#include <stddef.h>

#include "analysis/cct_diff.h"
#include "core/revision.h"
#include "profile/cct.h"
#include "profile/io_profile.h"
#include "profile/profile_load.h"
#include "store/store.h"

/*
 * One side of a CCT diff: one or more profile files, or the stored runs of a revision. The
 * runs are kept (for the absolute attribution, analysis/profile_attribution.h) and merged
 * (mean and sd per node, for PARCS's differencing); a single file is its own tree.
 */
struct stored_cct {
	struct cct tree; /* the runs merged, or the one file's tree */
	bool loaded;	 /* tree must be released: stored_cct_release() */
	struct cct *runs; /* per-run trees (nr_runs of them; for a single file, NULL: tree) */
	size_t nr_runs;
	const struct cct **ptrs; /* the runs (or the tree of a single file), for the callers */
	struct profile_source src; /* what the first run's file was */
	char *label;		/* "REV (sha, N runs)", "a.folded + 2 more"; NULL for one file */
	double overlap_of_runs; /* two runs or more: overlap of the first two; else NAN */
};

/* Frees what s owns (zeroed or loaded, also after a failed load) and zeroes it. */
void stored_cct_release(struct stored_cct *s);

/* The per-run trees of a side (its tree alone for a single file), for the attribution. */
const struct cct *const *stored_cct_runs(const struct stored_cct *s, size_t *nr);

/*
 * The stored profiles of benchmark `bench` at revision `expr` whose kind holds a calling
 * context tree (profile = cct, and sampled trees), each loaded with `lo`, kept in s->runs
 * and merged into s->tree. Returns 0, or RP_EINPUT after error() (a revision that does not
 * resolve, no stored profile, one that does not load), RP_EINTERNAL. Release s with
 * stored_cct_release() either way.
 */
int stored_cct_load(struct store *st, struct repo *repo, const char *expr, const char *bench,
		    const struct profile_load_options *lo, struct stored_cct *s);

/*
 * The profiles paths[0..n) (n >= 1), each one run of the same side, loaded with `lo`: one
 * file is s->tree itself; several are kept in s->runs and merged. Returns 0 or RP_EINPUT
 * after error(); release s with stored_cct_release() either way.
 */
int stored_cct_from_files(const char *const *paths, size_t n,
			  const struct profile_load_options *lo, struct stored_cct *s);

/*
 * The stored I/O profiles of benchmark `bench` at revision `expr` into *out (free with
 * io_profiles_free(*out, *nr), also after a failure), labelled "REV (sha)" in *label
 * (freed by the caller). Returns 0, or RP_EINPUT after error(), RP_EINTERNAL.
 */
int stored_io_load(struct store *st, struct repo *repo, const char *expr, const char *bench,
		   struct io_profile **out, size_t *nr, char **label);

#endif
