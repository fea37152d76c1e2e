#ifndef REVPERF_COMPARE_GBENCH_H
#define REVPERF_COMPARE_GBENCH_H

#include "compare/compare.h"
#include "core/config.h"
#include "import/import.h"
#include "util/common.h"

/*
 * The discovery run of a Google Benchmark binary b: once, in the target's worktree, every
 * case with one repetition, JSON into the comparison's log directory. Fills *cases (release
 * with import_set_release()). Returns 0, RP_EINPUT with an error naming the log, or
 * RP_EINTERNAL.
 */
int gbench_discover(const struct compare_request *req, const struct bench_config *b,
		    int64_t comparison_id, struct import_set *cases);

/*
 * Fills cb as the revperf benchmark of one case: the parent's options (shallow copy), the
 * name PARENT/CASE, the command restricted to the case, the case's metrics (owned by res).
 * Release with gbench_case_release() (never with the config's release).
 */
void gbench_case_init(struct bench_config *cb, const struct bench_config *parent,
		      const struct import_bench *ib, struct compare_result *res);
void gbench_case_release(struct bench_config *cb);

/*
 * A case's values from the JSON its run wrote at path: for each case metric the mean over
 * the run's repetitions, appended to names/values (*nv grows); missing values become notes.
 */
void gbench_values(const struct bench_config *b, const char *path, const char **names,
		   double *values, size_t *nv, struct strbuf *note);

#endif
