#ifndef REVPERF_HISTORY_HISTORY_H
#define REVPERF_HISTORY_HISTORY_H

/*
 * `revperf history`: every commit of a range compared with its first parent, oldest first
 * (compare/revcompare.h), reusing what is stored, then change points along each benchmark
 * and metric (METHODS.md section 9, analysis/changepoint.h). docs/history.md.
 */
#include <stdio.h>

#include "analysis/changepoint.h"
#include "compare/revcompare.h"
#include "store/store.h"

#define HISTORY_DEFAULT_COUNT 20
/* How far back history looks for a base that builds. */
#define HISTORY_MAX_BASE_HOPS 16

enum history_status {
	HISTORY_COMPARED = 0,	  /* measured now (stored runs of the pair reused) */
	HISTORY_REUSED,		  /* a finished comparison of the pair was stored: not run again */
	HISTORY_BUILD_FAILED,	  /* the commit does not build */
	HISTORY_NO_BASE,	  /* neither its parent nor an earlier commit of the range built */
	HISTORY_ROOT,		  /* a root commit: nothing to compare with */
	HISTORY_NOTHING_SELECTED, /* --select: the commit needs no benchmark */
	HISTORY_FAILED,		  /* the comparison could not be made (message printed) */
	HISTORY_INTERRUPTED,	  /* stopped here by the user */
	HISTORY_PENDING,	  /* not reached (after an interruption) */
};
const char *history_status_name(enum history_status s);

struct history_commit {
	struct revision rev; /* sha, first parent, summary; expr = short sha */
	char base[41];	     /* the commit it was compared with; "" when none */
	enum history_status status;
	int64_t comparison_id; /* 0 when none */
	int64_t build_id;      /* the commit's build; 0 when it has none */
	struct store_verdict *verdicts;
	size_t nr_verdicts;
	size_t selected, configured; /* benchmarks (--select) */
	double elapsed_s;	     /* spent on this commit */
};

/* One benchmark and metric along the commits: the median of the commit's runs. */
struct history_series {
	char *bench, *metric;
	size_t n;		      /* commits with a value */
	size_t *commit;		      /* their indexes in history_result.commits */
	double *median;		      /* the median of the successful runs of each commit's build */
	struct changepoint_result cp; /* indexes into median[] */
	bool cp_failed;
	double min_change; /* relative shifts below it are no change points (min_change.h) */
	double ci_alpha;   /* the change points' intervals are (1 - ci_alpha) intervals */
};

struct history_request {
	struct revcompare_ctx ctx;
	const char *range; /* "A..B" or a revision */
	bool first_parent;
	size_t limit;	    /* the newest `limit` commits; 0 = all */
	size_t min_segment; /* change points: 0 = the default */
	FILE *progress;	    /* one line per commit; NULL = silent */
};

struct history_result {
	struct history_commit *commits; /* oldest first */
	size_t nr_commits;
	struct history_series *series;
	size_t nr_series;
	bool interrupted;
	bool first_parent;
	char *range;
	int64_t machine_id;
	double elapsed_s;
};

/*
 * Runs the history. Returns 0 (also when interrupted: res->interrupted, the commits not
 * reached are HISTORY_PENDING), RP_EINPUT after an error (an empty range, a bad range or
 * configuration), RP_EINTERNAL (store). A commit that fails to build or to compare is
 * recorded in its entry, not an error. Release res with history_result_release().
 */
int history_run(const struct history_request *req, struct history_result *res);
void history_result_release(struct history_result *res);

/*
 * The series of res and their change points (called by history_run() at the end; also
 * for a report on stored data); cfg gives the count tolerances below which a change point
 * of a counted metric is dropped (history_min_change(); NULL = the default). Returns 0 or
 * RP_EINTERNAL.
 */
int history_series_compute(struct store *st, struct history_result *res, size_t min_segment,
			   struct config *cfg);

#endif
