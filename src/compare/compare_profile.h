#ifndef REVPERF_COMPARE_COMPARE_PROFILE_H
#define REVPERF_COMPARE_COMPARE_PROFILE_H

/*
 * The attribution under a benchmark's verdict: extra runs of each side after the timing
 * runs, their calling context trees merged per side and differenced (METHODS.md section
 * 5). `profile = cct`: runs with the CCT runtime, in builds of their own (the timing runs
 * never carry the instrumentation). `profile = sample` (compare/compare_sample.h): runs of
 * the timing builds themselves, sampled with perf_event_open.
 */
#include "analysis/cct_diff.h"
#include "analysis/profile_attribution.h"
#include "compare/compare.h"
#include "profile/cct.h"
#include "profile/profile_load.h"

struct cct_attribution {
	char *error;		   /* why there is no diff (NULL when there is one) */
	size_t runs[2];		   /* profiled runs used per side (A, B) */
	size_t reused[2];	   /* of which were stored before this comparison */
	size_t failed[2];	   /* profiled runs that failed in this comparison */
	struct cct trees[2];	   /* per side: the runs merged (mean and sd per node) */
	struct cct_changes changes;
	bool have_bindiff;	   /* stages 1 and 2 use a binary diff of the two programs */
	char *bindiff_note;	   /* why not, when not */
	char exe[2][4096];	   /* the programs differenced by the binary diff */
	struct cct_diff diff;	   /* borrows trees[] */
	double threshold;	   /* the overlap the weight adjustment stops at, % */
	bool threshold_from_runs;  /* ... measured between two runs of the target */
	bool diffed;		   /* diff is computed (error is NULL) */
	char *svg_path;		   /* the differential flame graph, NULL until the command
				      writes it (report/compare_graphics.h) */
	char *dir;		   /* where the profiles of this comparison are */
	const char *labels[2];	   /* the sides' labels (borrowed from the request) */
	bool sampled;		   /* profile = sample: on-CPU time, no call counts */
	char *notes;		   /* sample: what to know before trusting it, one line each
				      ("side A: only 40 samples ..."); NULL when nothing */
	double on_cpu_ns[2];	   /* sample: mean sampled on-CPU time per run, per side */
	char callgraph[2][16];	   /* sample: "fp" or "dwarf", per side */
	/* The absolute change per function and call path (docs/attribution.md), from the
	 * runs of both sides; when have_absolute is false, absolute_note says why. */
	struct attribution absolute;
	bool have_absolute;
	char *absolute_note;
};

/*
 * Takes bench->profile_runs profiled runs per side (reusing stored successful profiles of
 * the same instrumented builds, benchmark and machine unless req->fresh), records them in
 * the store, and differences the merged trees. Fills a new *out (free it with
 * cct_attribution_free()); a problem that leaves no diff (no profile written, every run
 * failed) is out->error, not a failure. Returns 0, RP_EINTERRUPT when the user
 * interrupted, RP_EINTERNAL on a store failure.
 */
int compare_profile_cct(const struct compare_request *req, const struct bench_config *bench,
			int64_t benchmark_id, int64_t machine_id, int64_t comparison_id,
			struct cct_attribution **out);

void cct_attribution_free(struct cct_attribution *a);

/*
 * The attribution of the loaded per-run trees of both sides (runs[side][0..nr[side]),
 * nr >= 1 each, any kind that holds a calling context tree: the CCT runtime's, sampled
 * ones): merged into a->trees (mean and sd per node), differenced by PARCS (a->diff,
 * threshold from two target runs, a->exe's binary diff for stages 1 and 2), and the
 * absolute change with its noise rule at req->cfg->alpha (a->absolute). The runs are only
 * read; a problem is a->error or a->absolute_note. Returns 0.
 */
int compare_profile_attribute(const struct compare_request *req, struct cct_attribution *a,
			      const struct cct *const *runs[2], const size_t nr[2]);

struct store_profile;
/*
 * A compare_profile_run_fn: one profiled run of `side` (0 = A, 1 = B), the seq-th of this
 * comparison, with its files under `dir` (`arg` passed through from
 * compare_collect_profiles()): fills *p (kind, status, paths, ids from ids[] = {benchmark,
 * machine, comparison}) and records it in the store. Returns 0, RP_EINTERRUPT, or an error.
 */
typedef int (*compare_profile_run_fn)(const struct compare_request *req,
				      const struct bench_config *bench, int side, size_t seq,
				      const int64_t ids[3], const char *dir, void *arg,
				      struct store_profile *p);
/* How one kind of attribution takes and reads its runs (compare_attribute()). */
struct compare_attribution_kind {
	const char *kind;	    /* the stored profiles' kind: "cct", "sample" */
	enum profile_format format; /* of their files */
	int64_t builds[2];	    /* the builds whose runs are profiled, per side */
	compare_profile_run_fn run;
	void *arg;
	const char *what; /* "profiled", "sampled": in messages */
	/* When `run` returns RP_EINPUT (refused here, printed): the attribution's error, and
	 * the verdict stands. NULL: RP_EINPUT is returned. */
	const char *refused;
	const char *unreadable_hint; /* appended to "cannot be read" */
	/* A side's tree is empty: "<empty_what> in the <what> runs of side A: <empty_hint>". */
	const char *empty_what, *empty_hint;
	/* Called once both sides are loaded (may be NULL): the kind's own fields of a. */
	void (*loaded)(struct cct_attribution *a, const struct store_profile *const have[2],
		       const size_t nr[2], void *arg);
};

/*
 * The attribution of kind k: stored runs reused (unless req->fresh), new ones taken with
 * k->run until each side has bench->profile_runs, each side's per-run trees loaded and
 * handed to compare_profile_attribute() (merged, differenced, the absolute change with
 * its noise rule: one attribution for every kind). ids = {benchmark, machine,
 * comparison}. Fills a new *out as compare_profile_cct() does.
 */
int compare_attribute(const struct compare_request *req, const struct bench_config *bench,
		      const int64_t ids[3], const struct compare_attribution_kind *k,
		      struct cct_attribution **out);

/*
 * Fills the rest of *p (started_at set by the caller) for a profiled run of `build_id`
 * (ids[] = {benchmark, machine, comparison}) that ended with `status` (`detail` copied
 * unless RUN_OK), takes the strings of `path` and `log`, and records it in the store.
 * Returns 0 or RP_EINTERNAL.
 */
struct strbuf;
int compare_profile_record(const struct compare_request *req, struct store_profile *p,
			   const char *kind, int64_t build_id, const int64_t ids[3],
			   enum run_status status, const char *detail, struct strbuf *path,
			   struct strbuf *log);

/*
 * The profiles of kind `kind` of both sides: the stored successful ones of build_ids[side]
 * (the newest `want`; under req->fresh only those of this comparison, ids[2], which a first
 * look made), topped up with new runs by `run`, A and B alternating, until each side has
 * `want` successful ones or has failed that many times. have[side] (free with
 * store_profiles_free()) and nr[side] get the successful profiles, reused[side] how many
 * of them earlier comparisons made, failed[side] the failed new runs. Returns 0, or what
 * `run` or the store returned.
 */
int compare_collect_profiles(const struct compare_request *req, const struct bench_config *bench,
			     const char *kind, size_t want, const int64_t build_ids[2],
			     const int64_t ids[3], const char *dir, compare_profile_run_fn run,
			     void *arg, size_t reused[2], size_t failed[2],
			     struct store_profile *have[2], size_t nr[2]);

/*
 * After compare_collect_profiles(): why the runs of `what` kind ("profiled", "traced") are
 * not enough, "no successful traced run of side B (3 failed; logs in DIR)", as a new
 * string (freed by the caller); NULL when each side has at least one.
 */
char *compare_profiles_missing(const size_t nr[2], const size_t failed[2], const char *what,
			       const char *dir);

#endif
