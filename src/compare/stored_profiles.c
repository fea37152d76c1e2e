/*
 * The profiles `compare` stored for a revision's benchmark, loaded for `revperf diff
 * --bench` (compare/stored_profiles.h).
 */
#include "compare/stored_profiles.h"

#include <math.h>
#include <string.h>

#include "util/common.h"

int stored_cct_load(struct store *st, struct repo *repo, const char *expr, const char *bench,
		    const struct profile_load_options *lo, struct stored_cct *s)
{
	struct revision rev = { 0 };
	struct store_profile *runs = NULL;
	struct cct *trees = NULL;
	const struct cct **ptrs = NULL;
	size_t n = 0, loaded = 0;
	int err;

	if ((err = repo_resolve(repo, expr, &rev)))
		return err;
	if ((err = store_profiles_of_revision(st, rev.sha, bench, "cct", &runs, &n)))
		goto out;
	/* Sampled profiles when there are no instrumented ones. */
	if (!n && (err = store_profiles_of_revision(st, rev.sha, bench, "sample", &runs, &n)))
		goto out;
	if (!n) {
		error("no stored profile of benchmark '%s' at %s (%.12s): run `revperf compare` "
		      "with profile = cct or profile = sample for it first",
		      bench, expr, rev.sha);
		err = RP_EINPUT;
		goto out;
	}
	trees = xcalloc(n, sizeof(*trees));
	ptrs = xcalloc(n, sizeof(*ptrs));
	for (; loaded < n; loaded++) {
		if ((err = profile_load(runs[loaded].path, lo, &trees[loaded],
					loaded ? NULL : &s->src))) {
			cct_release(&trees[loaded]);
			goto out;
		}
		ptrs[loaded] = &trees[loaded];
	}
	if (n >= 2)
		s->overlap_of_runs = cct_overlap(&trees[0], &trees[1]);
	s->loaded = true; /* cct_merge() leaves a tree to release, also on failure */
	if ((err = cct_merge(ptrs, n, &s->tree)))
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
	free(ptrs);
	store_profiles_free(runs, n);
	revision_release(&rev);
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
