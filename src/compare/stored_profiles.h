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

/* One side of a CCT diff: profile files, or the stored runs of a revision, merged. */
struct stored_cct {
	struct cct tree;
	bool loaded; /* tree must be released with cct_release() */
	struct profile_source src;
	char *label;		/* "REV (sha, N runs)"; NULL for a file; freed by the caller */
	double overlap_of_runs; /* two runs or more: overlap of the first two; else NAN */
};

/*
 * The stored CCT profiles of benchmark `bench` at revision `expr`, each loaded with `lo`,
 * then merged (mean and sd per node) into s->tree. s->overlap_of_runs must be set (NAN)
 * by the caller. Returns 0, or RP_EINPUT after error() (a revision that does not resolve,
 * no stored profile, one that does not load), RP_EINTERNAL.
 */
int stored_cct_load(struct store *st, struct repo *repo, const char *expr, const char *bench,
		    const struct profile_load_options *lo, struct stored_cct *s);

/*
 * The side of a diff given as profile files, one per run (`revperf diff --baseline F1 F2
 * --target ...`): each loaded with `lo` into s->tree, merged (mean and sd per node) when
 * there are several, the overlap of the first two in s->overlap_of_runs (set to NAN by
 * the caller), s->src from the first, s->label "F1 ... Fn (n runs)" (NULL for one file).
 * The runs of a side must be alike: one format, and for perf script one event. Returns 0
 * or RP_EINPUT after error() naming the file; s->tree is then to be released as well.
 */
int stored_cct_load_files(const char *const *paths, size_t n,
			  const struct profile_load_options *lo, struct stored_cct *s);

/*
 * The stored I/O profiles of benchmark `bench` at revision `expr` into *out (free with
 * io_profiles_free(*out, *nr), also after a failure), labelled "REV (sha)" in *label
 * (freed by the caller). Returns 0, or RP_EINPUT after error(), RP_EINTERNAL.
 */
int stored_io_load(struct store *st, struct repo *repo, const char *expr, const char *bench,
		   struct io_profile **out, size_t *nr, char **label);

#endif
