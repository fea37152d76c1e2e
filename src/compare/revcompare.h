#ifndef REVPERF_COMPARE_REVCOMPARE_H
#define REVPERF_COMPARE_REVCOMPARE_H

/*
 * One comparison of two revisions, from revision expressions to verdicts: resolve, build
 * (cached), the instrumented builds of profiled runs, test suites expanded and --select
 * applied at the target, then compare_execute(). What `compare`, `history`, `bisect` and
 * `ci` share; each loads its configuration through a callback, once per comparison, since
 * suites and selection change the benchmark list.
 */
#include "core/build.h"
#include "compare/compare.h"
#include "core/config.h"
#include "core/revision.h"
#include "store/store.h"

/*
 * Reads and finishes the configuration into cfg (config_init()ed by the caller): the
 * file, the flag overrides, the benchmark filter, config_finish(). Returns 0 or an RP_E*
 * code after an error.
 */
typedef int (*revcompare_config_fn)(struct config *cfg, void *arg);

struct revcompare_ctx {
	struct repo *repo;
	struct store *st;
	const struct state_dir *sd;
	revcompare_config_fn load_config;
	void *config_arg;
	const char *select; /* NULL, "perphecy" (the trained predictor) or "tests" (PeASS) */
	bool fresh;	    /* ignore stored runs */
	bool more;	    /* continue a finished comparison with a new run budget */
	/* Build and run nothing: show the stored comparison `comparison_id` (0: the newest of
	 * the two revisions' stored builds), or fail with RP_EINPUT saying how to make one. */
	bool stored_only;
	int64_t comparison_id;
	bool quiet;	    /* no notes on stderr (--select) */
	compare_progress_fn progress; /* compare's progress reports; NULL: none */
	void *progress_arg;
	/* Called after compare_execute() filled res (also when interrupted), before
	 * revcompare_run() returns: where the command renders the graphics. NULL: nothing. */
	void (*executed)(struct compare_result *res, void *arg);
	void *executed_arg;
};

/* What one comparison did. Release with revcompare_release(). */
struct revcompare {
	struct config cfg;	 /* the configuration it ran with (res points into it) */
	struct revision revs[2]; /* base, target */
	struct store_build builds[2];
	struct store_build profile_builds[2];
	int failed_build;	     /* -1; 0 or 1: that side's build failed (RP_EBUILD) */
	size_t configured, selected; /* benchmarks before and after --select */
	bool executed;		     /* compare_execute() ran: res is filled */
	/* res is a finished stored comparison shown again (nothing ran): stored.id */
	bool replayed;
	struct store_comparison_info stored;
	/* stored_only: a worktree of its builds no longer holds it (built with another
	 * command since, or removed), so the binary diff of a benchmark's program is not
	 * redone: res has none */
	bool worktrees_replaced, bindiff_not_redone;
	struct compare_result res;
};

/*
 * Compares base with target (revision expressions). A finished comparison of the two
 * builds (every primary metric of every benchmark decided, or its run budget spent) is
 * shown again without running anything (rc->replayed) unless ctx->fresh or ctx->more; an
 * unfinished one continues. Returns what compare_execute()
 * returns (0 also when interrupted: rc->res.interrupted), RP_EINTERRUPT when interrupted
 * during a build, RP_EBUILD when a build fails (rc->failed_build says which side),
 * RP_EINPUT after another error (a revision that does not resolve or cannot be checked
 * out, a bad configuration), RP_EINTERNAL. With
 * nothing selected, nothing runs: rc->executed is false and 0 is returned.
 * rc is filled as far as it got; release it with revcompare_release() in every case.
 */
int revcompare_run(const struct revcompare_ctx *ctx, const char *base, const char *target,
		   struct revcompare *rc);
void revcompare_release(struct revcompare *rc);

/*
 * Whether the stored verdicts v (n, of one comparison) answer benchmark b as it asks now:
 * a verdict for every metric of b's metrics list, and for every metric of its primary
 * list one that is final (decided, or undecided after b's most runs on both sides). A
 * comparison of other metrics, or judged on another primary that left this one short of
 * its runs, does not; nor does one of b's command before it was changed (another
 * program measured). What compare and history both take a stored comparison by.
 */
bool revcompare_stored_answers(const struct store_verdict *v, size_t n,
			       const struct bench_config *b);

#endif
