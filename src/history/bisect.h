#ifndef REVPERF_HISTORY_BISECT_H
#define REVPERF_HISTORY_BISECT_H

/*
 * `revperf bisect GOOD BAD --bench NAME [--metric M] [--better]` (METHODS.md section 9): the
 * first commit on the first-parent path from GOOD to BAD whose benchmark is `worse` than
 * GOOD (with better: `better` than GOOD, the commit that made it faster, as git bisect's
 * old/new terms allow),
 * by binary search, each step a comparison of GOOD with the candidate decided by the
 * verdict of METHODS.md section 2. An undecided step gets more runs (the run budget
 * doubled, up to BISECT_MAX_ESCALATIONS times); a candidate that stays undecided is not
 * shown worse and counts as good (the report marks it); a candidate that does not build
 * or cannot be compared is skipped like `git bisect skip`. docs/history.md.
 */
#include <stdio.h>

#include "compare/revcompare.h"

#define BISECT_MAX_ESCALATIONS 2

/* One comparison made by the search. */
struct bisect_step {
	size_t index;	  /* of the candidate in bisect_result.path */
	char verdict[16]; /* "worse", "equal", "better", "undecided", "build-failed",
			     "failed" */
	double ratio, ci_lo, ci_hi;
	size_t n_a, n_b; /* runs per side */
	size_t budget;	 /* the most runs per side it was allowed */
	int64_t comparison_id;
};

struct bisect_result;

struct bisect_request {
	struct revcompare_ctx ctx; /* load_config must honour bisect_budget_factor */
	const char *good, *bad;
	const char *bench, *metric;
	/* Look for the first commit better than GOOD (an improvement), not worse: BAD must be
	 * better; a candidate equal, worse or undecided is before it; one whose target breaks
	 * is skipped. */
	bool better;
	/* Set by bisect_run() before each comparison: the factor the configured maximum
	 * number of runs is multiplied by (1, 2, 4...). Read by the config callback. */
	size_t *budget_factor;
	/*
	 * Called once per step when it is decided (after its escalations): GOOD against BAD
	 * (s is &res->endpoint), then each step of the search (the last of res->steps); not
	 * for the culprit against its parent, which is part of the outcome. May be NULL.
	 */
	void (*on_step)(void *arg, const struct bisect_result *res, const char *what,
			const struct revision *rev, const struct bisect_step *s);
	void *on_step_arg;
};

enum bisect_outcome {
	BISECT_FOUND = 0, /* culprit = path[culprit] */
	BISECT_NOT_WORSE, /* BAD is not worse (better: not better) than GOOD: nothing to search */
	BISECT_AMBIGUOUS, /* skipped commits hide which of path[lo+1..hi] it is */
	BISECT_INTERRUPTED,
};

struct bisect_result {
	struct revision good, bad;
	struct revision *path; /* the first-parent commits after GOOD up to BAD, oldest first */
	size_t nr_path;
	struct bisect_step *steps;
	size_t nr_steps;
	enum bisect_outcome outcome;
	size_t culprit;	       /* BISECT_FOUND: index in path; AMBIGUOUS: the last candidate */
	size_t first_possible; /* AMBIGUOUS: the first candidate */
	struct bisect_step endpoint; /* GOOD against BAD */
	/* BISECT_FOUND: the culprit against its own parent, and the parent against GOOD
	 * (when the parent is not GOOD). */
	struct bisect_step culprit_vs_parent, parent_vs_good;
	bool have_parent_vs_good;
	char metric[64];
	bool better; /* the request's: the culprit is the commit that made it better */
};

/*
 * Runs the search. Returns 0 with res->outcome, RP_EINPUT after an error (GOOD not a
 * first-parent ancestor of BAD, an unknown benchmark or metric, GOOD or BAD not building),
 * RP_EINTERNAL. Release res with bisect_result_release().
 */
int bisect_run(const struct bisect_request *req, struct bisect_result *res);
void bisect_result_release(struct bisect_result *res);

#endif
