#ifndef REVPERF_COLLECT_CCT_RUN_H
#define REVPERF_COLLECT_CCT_RUN_H

/*
 * Profiled runs with the CCT runtime (runtime/cct, docs/cct-format.md): the program under
 * test, built with -finstrument-functions, runs with librevperf_cct.so preloaded and
 * writes one profile per process image into a directory of its own.
 */
#include "collect/proc.h"

struct strbuf;

/*
 * Appends the path of librevperf_cct.so to `out`: $REVPERF_CCT_RUNTIME when set, else
 * runtime/librevperf_cct.so in the directory of the running executable or its parent
 * (the build tree: BUILD/revperf and BUILD/tests/... both find BUILD/runtime/), else
 * ../lib/revperf/ beside it (installed; collect/helper_path.h). Returns 0, or RP_EINPUT
 * after an error naming where it looked and what to set.
 */
int cct_runtime_path(struct strbuf *out);

/*
 * Runs spec->command once as proc_run() does, with the runtime preloaded (before any
 * LD_PRELOAD of the caller's environment) and its profiles written into `dir`, an existing
 * directory that should be empty: every profile in it counts as this run's. Other spec fields are used as they are (spec->env_set is replaced). Returns as proc_run(), or RP_EINPUT when
 * the runtime cannot be found or `dir` does not exist.
 */
int cct_run(const struct proc_spec *spec, const char *dir, struct proc_result *res);

#endif
