#ifndef REVPERF_COMPARE_REPLAY_CONFIG_H
#define REVPERF_COMPARE_REPLAY_CONFIG_H

/*
 * revperf show: the benchmarks of a stored comparison as it measured them. Its runs are
 * stored under the benchmark's command of that time (run_output_identity()), and its
 * builds under the build command of that time: a configuration changed since (another
 * command, a benchmark removed) would find none of them. Analyses the store only.
 */
#include "core/config.h"
#include "store/store.h"
#include "store/store_show.h"

/*
 * Defines in cfg (finished) the benchmarks comparison c planned or judged as it did: one
 * whose command changed since takes its stored command, one no longer configured is
 * defined again from it with cfg's defaults; test suites and Google Benchmark binaries
 * stay as configured. One warning line names what the configuration changed, the build
 * command included. Pointers into cfg->benches are invalidated. Returns 0, RP_EINPUT
 * when a benchmark defined again is not valid with today's defaults (said), or
 * RP_EINTERNAL.
 */
int replay_config_restore(struct store *st, const struct store_comparison_info *c,
			  struct config *cfg);

#endif
