/*
 * The profiles `compare` stored for a revision's benchmark, loaded for `revperf diff
 * --bench` (compare/stored_profiles.h).
 */
#include "compare/stored_profiles.h"

#include <math.h>
#include <string.h>

#include "util/common.h"

/*
 * Merges the n loaded trees of one side into s->tree (mean and sd per node), the overlap
 * of the first two runs in s->overlap_of_runs. The trees stay the caller's.
 */
static int merge_runs(const struct cct *trees, size_t n, struct stored_cct *s)
{
	const struct cct **ptrs = xcalloc(n, sizeof(*ptrs));
	int err;

	for (size_t i = 0; i < n; i++)
		ptrs[i] = &trees[i];
	if (n >= 2)
		s->overlap_of_runs = cct_overlap(&trees[0], &trees[1]);
	s->loaded = true; /* cct_merge() leaves a tree to release, also on failure */
	err = cct_merge(ptrs, n, &s->tree);
	free(ptrs);
	return err;
}

int stored_cct_load(struct store *st, struct repo *repo, const char *expr, const char *bench,
		    const struct profile_load_options *lo, struct stored_cct *s)
{
	struct revision rev = { 0 };
	struct store_profile *runs = NULL;
	struct cct *trees = NULL;
	size_t n = 0, loaded = 0;
	int err;

	if ((err = repo_resolve(repo, expr, &rev)))
		return err;
	if ((err = store_profiles_of_revision(st, rev.sha, bench, "cct", &runs, &n)))
		goto out;
	if (!n) {
		error("no stored profile of benchmark '%s' at %s (%.12s): run `revperf compare` "
		      "with profile = cct for it first",
		      bench, expr, rev.sha);
		err = RP_EINPUT;
		goto out;
	}
	trees = xcalloc(n, sizeof(*trees));
	for (; loaded < n; loaded++) {
		if ((err = profile_load(runs[loaded].path, lo, &trees[loaded],
					loaded ? NULL : &s->src))) {
			cct_release(&trees[loaded]);
			goto out;
		}
	}
	if ((err = merge_runs(trees, n, s)))
		goto out;
	{
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s (%.12s, %zu run%s)", expr, rev.sha, n, n == 1 ? "" : "s");
		s->label = strbuf_detach(&sb);
	}
out:
	while (loaded-- > 0)
		cct_release(&trees[loaded]);
	free(trees);
	store_profiles_free(runs, n);
	revision_release(&rev);
	return err;
}

/* Whether the runs of one side are alike: one format, and for perf one event. */
static int check_alike(const char *const *paths, size_t i, const struct profile_source *first,
		       const struct profile_source *src)
{
	if (src->format != first->format)
		return error("%s is a %s profile and %s a %s profile: the runs of one side are "
			     "profiles of one kind",
			     paths[i], profile_format_name(src->format), paths[0],
			     profile_format_name(first->format));
	if (src->format == PROFILE_FORMAT_PERF && strcmp(src->perf.event, first->perf.event))
		return error("%s weighs the event %s and %s the event %s: record every run of a "
			     "side with the same event, or choose one with --event",
			     paths[i], src->perf.event, paths[0], first->perf.event);
	return 0;
}

int stored_cct_load_files(const char *const *paths, size_t n,
			  const struct profile_load_options *lo, struct stored_cct *s)
{
	struct cct *trees;
	struct profile_source src;
	size_t loaded = 0;
	int err = 0;

	if (n == 1) {
		s->loaded = true; /* a tree to release, also on failure */
		return profile_load(paths[0], lo, &s->tree, &s->src);
	}
	trees = xcalloc(n, sizeof(*trees));
	for (; loaded < n; loaded++) {
		if ((err = profile_load(paths[loaded], lo, &trees[loaded],
					loaded ? &src : &s->src))) {
			cct_release(&trees[loaded]);
			goto out;
		}
		if (loaded && (err = check_alike(paths, loaded, &s->src, &src))) {
			cct_release(&trees[loaded]);
			err = RP_EINPUT;
			goto out;
		}
	}
	if ((err = merge_runs(trees, n, s)))
		goto out;
	{
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s %s %s (%zu runs)", paths[0], n == 2 ? "and" : "...",
			    paths[n - 1], n);
		s->label = strbuf_detach(&sb);
	}
out:
	while (loaded-- > 0)
		cct_release(&trees[loaded]);
	free(trees);
	return err;
}

int stored_io_load(struct store *st, struct repo *repo, const char *expr, const char *bench,
		   struct io_profile **out, size_t *nr, char **label)
{
	struct revision rev = { 0 };
	struct store_profile *runs = NULL;
	size_t n = 0;
	int err;

	*out = NULL;
	*nr = 0;
	if ((err = repo_resolve(repo, expr, &rev)))
		return err;
	if ((err = store_profiles_of_revision(st, rev.sha, bench, "io", &runs, &n)))
		goto out;
	if (!n) {
		error("no stored I/O profile of benchmark '%s' at %s (%.12s): run `revperf compare` "
		      "with profile = io for it first",
		      bench, expr, rev.sha);
		err = RP_EINPUT;
		goto out;
	}
	*out = xcalloc(n, sizeof(**out));
	for (size_t i = 0; i < n && !err; i++) {
		err = io_profile_read(runs[i].path, &(*out)[i]);
		*nr = i + 1;
	}
	{
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s (%.12s)", expr, rev.sha);
		*label = strbuf_detach(&sb);
	}
out:
	store_profiles_free(runs, n);
	revision_release(&rev);
	return err;
}
