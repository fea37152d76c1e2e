/*
 * The profiles `compare` stored for a revision's benchmark, loaded for `revperf diff
 * --bench` (compare/stored_profiles.h).
 */
#include "compare/stored_profiles.h"

#include <math.h>
#include <string.h>

#include "util/common.h"

/*
 * The kinds of stored profile that hold one calling context tree per run, as `compare`
 * records them: the CCT runtime's ("cct") and sampled trees ("sample"). The first kind a
 * revision has runs of is diffed.
 */
static const char *const tree_kinds[] = {"cct", "sample"};

void stored_cct_release(struct stored_cct *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_runs; i++)
		cct_release(&s->runs[i]);
	free(s->runs);
	free(s->ptrs);
	if (s->loaded)
		cct_release(&s->tree);
	free(s->label);
	memset(s, 0, sizeof(*s));
	s->overlap_of_runs = NAN;
}

const struct cct *const *stored_cct_runs(const struct stored_cct *s, size_t *nr)
{
	*nr = s->ptrs ? (s->nr_runs ? s->nr_runs : 1) : 0;
	return s->ptrs;
}

/* Merges the loaded s->runs into s->tree; the overlap of the first two target runs. */
static int merge_runs(struct stored_cct *s)
{
	int err;
	s->ptrs = xcalloc(s->nr_runs, sizeof(*s->ptrs));
	for (size_t i = 0; i < s->nr_runs; i++)
		s->ptrs[i] = &s->runs[i];
	if (s->nr_runs >= 2)
		s->overlap_of_runs = cct_overlap(&s->runs[0], &s->runs[1]);
	s->loaded = true; /* cct_merge() leaves a tree to release, also on failure */
	err = cct_merge((const struct cct *const *)s->ptrs, s->nr_runs, &s->tree);
	return err;
}

int stored_cct_load(struct store *st, struct repo *repo, const char *expr, const char *bench,
		    const struct profile_load_options *lo, struct stored_cct *s)
{
	struct revision rev = {0};
	struct store_profile *runs = NULL;
	size_t n = 0;
	const char *kind = tree_kinds[0];
	int err;

	s->overlap_of_runs = NAN;
	if ((err = repo_resolve(repo, expr, &rev)))
		return err;
	for (size_t k = 0; k < ARRAY_SIZE(tree_kinds) && !n; k++) {
		kind = tree_kinds[k];
		store_profiles_free(runs, n);
		runs = NULL;
		if ((err = store_profiles_of_revision(st, rev.sha, bench, kind, &runs, &n)))
			goto out;
	}
	if (!n) {
		error("no stored profile of benchmark '%s' at %s (%.12s): run `revperf compare` "
		      "with profile = cct or profile = sample for it first",
		      bench, expr, rev.sha);
		err = RP_EINPUT;
		goto out;
	}
	s->runs = xcalloc(n, sizeof(*s->runs));
	for (; s->nr_runs < n; s->nr_runs++) {
		if ((err = profile_load(runs[s->nr_runs].path, lo, &s->runs[s->nr_runs],
					s->nr_runs ? NULL : &s->src))) {
			cct_release(&s->runs[s->nr_runs]);
			goto out;
		}
	}
	if ((err = merge_runs(s)))
		goto out;
	{
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s (%.12s, %zu %s run%s)", expr, rev.sha, n, kind,
			    n == 1 ? "" : "s");
		s->label = strbuf_detach(&sb);
	}
out:
	store_profiles_free(runs, n);
	revision_release(&rev);
	return err;
}

/* The runs of one side are profiles of one kind (and, for perf, of one event). */
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

int stored_cct_from_files(const char *const *paths, size_t n,
			  const struct profile_load_options *lo, struct stored_cct *s)
{
	int err;

	s->overlap_of_runs = NAN;
	if (n == 1) {
		s->loaded = true; /* a tree to release, also on failure */
		if ((err = profile_load(paths[0], lo, &s->tree, &s->src)))
			return err;
		s->ptrs = xcalloc(1, sizeof(*s->ptrs));
		s->ptrs[0] = &s->tree;
		return 0;
	}
	s->runs = xcalloc(n, sizeof(*s->runs));
	for (; s->nr_runs < n; s->nr_runs++) {
		struct profile_source src;
		size_t i = s->nr_runs;
		if ((err = profile_load(paths[i], lo, &s->runs[i], i ? &src : &s->src))) {
			cct_release(&s->runs[i]);
			return err;
		}
		if (i && check_alike(paths, i, &s->src, &src)) {
			cct_release(&s->runs[i]);
			return RP_EINPUT;
		}
	}
	if ((err = merge_runs(s)))
		return err;
	{
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s + %zu more (%zu runs)", paths[0], n - 1, n);
		s->label = strbuf_detach(&sb);
	}
	return 0;
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
