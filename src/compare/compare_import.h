#ifndef REVPERF_COMPARE_COMPARE_IMPORT_H
#define REVPERF_COMPARE_COMPARE_IMPORT_H

#include "compare/compare.h"
#include "import/import.h"
#include "util/common.h"

/*
 * Judges results imported from two files (baseline a, target b) with revperf's statistics
 * (METHODS.md 2): for each benchmark present in both (by name) and each metric present in
 * both with at least 2 samples per side, verdict_decide() — Welch on log values (with
 * zeros, the unpaired bootstrap), since imported samples were not measured in interleaved
 * pairs — at a single look with the
 * given alpha and tolerance, then Benjamini-Hochberg over every verdict of the report.
 * A benchmark or metric found on one side only, or with fewer than 2 samples on a side,
 * stays in the result as unmeasured (with a warning on stderr), never silently dropped.
 * Each bench's first metric (wall for hyperfine, real_time for Google Benchmark) is the
 * primary one, so compare_exit_code() applies. Labels are a->origin and b->origin; runs
 * excluded by the importer become the benches' run issues.
 *
 * Fills *out (metric definitions are copies owned by it; release it with
 * compare_result_release(), also after an error). Returns 0, or RP_EINPUT after one error
 * line when the two sets are of different formats or have no benchmark in common.
 */
int compare_imported(const struct import_set *a, const struct import_set *b, double alpha,
		     double tolerance, struct compare_result *out);

#endif
