#ifndef REVPERF_HISTORY_HISTORY_DATA_H
#define REVPERF_HISTORY_HISTORY_DATA_H

/*
 * The measured history of a project as the store holds it (docs/report.md): the commits
 * that were measured, in history order; per (benchmark name, metric) a series of one point
 * per commit (median of the successful runs and its distribution-free 95% interval, the
 * failed runs counted) with its change points (analysis/changepoint.h); per benchmark the
 * bytes written by its traced runs (profile = io); per commit the latest finished
 * comparison that measured it as target, with its verdicts and runs. Everything comes
 * from the store in a few set-based queries (store_history.c); nothing here renders.
 *
 * A struct history is read-only once loaded; not thread-safe while loading.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/spectra.h"
#include "history/min_change.h"
#include "core/metric.h"
#include "store/store_history.h"
#include "util/common.h"

struct history_opts {
	size_t min_segment; /* change points: fewest commits in a segment (>= 2); 0 = default 3 */
	uint64_t seed;	    /* change points: permutation seed; 0 = default 1 */
	struct config *cfg; /* count tolerances (history/min_change.h); NULL = the default */
	/*
	 * The history the charts follow: its commits' full shas, oldest first (a branch's
	 * first parents), and its name ("main"). Measured commits not on it come after it in
	 * history.commits (by commit time) and take no part in series' trends and change
	 * points. NULL: every measured commit, by commit time. Either way it spans the
	 * measured commits only: a failed build before the first or after the last of them
	 * is off it too (a failed build between two is on it, marked).
	 */
	const char *const *line;
	size_t nr_line;
	const char *line_name;
	/* The machine whose runs make the series (its name as stored); NULL: the one with
	 * the most runs. */
	const char *machine;
};

/* Whether a commit of the history was measured: its build has runs (a failed one has none). */
static inline bool history_measured(const struct history_commit *c)
{
	return !c->build_failed;
}

/*
 * Loads the history from the store into *h (zeroed first; release with history_release(),
 * also after a failure): the machine with the most runs, the commits, the series with
 * their points and change points, the bytes written (reading the I/O profiles; one that
 * does not load is skipped with a warning), the comparisons with verdicts and runs.
 * An empty history (no commit measured) is not an error: h->nr_commits == 0. The change
 * points are computed on up to 4 threads (the result does not depend on their number).
 * Returns 0, RP_EINPUT after error() for bad options, or RP_EINTERNAL (database).
 */
int history_load(struct store *st, const struct history_opts *o, struct history *h);
void history_release(struct history *h);

/*
 * The I/O similarity report of comparison `cmp`, benchmark `bench`: the stored I/O
 * profiles of its target build against those of its base build (on its machine), write
 * direction. Returns 1 and fills *out (release with spectra_report_release()) and
 * used[2], and adds the names of the profiles' frames to frame_kinds unless NULL
 * (io_profiles_frame_kinds()); 0 when either side has no profile (nothing printed);
 * RP_EINPUT after error() when a profile does not load or the analysis refuses it.
 */
struct strmap;
int history_io_compare(const struct history *h, size_t cmp, size_t bench,
		       struct spectra_report *out, size_t used[2], struct strmap *frame_kinds);

#endif
