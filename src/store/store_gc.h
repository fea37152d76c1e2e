#ifndef REVPERF_STORE_STORE_GC_H
#define REVPERF_STORE_STORE_GC_H

/*
 * What stored results need of the state directory, for `revperf gc` (core/gc.h): every
 * file or directory a row points to (a build's worktree and build log, a run's log, a
 * profile's files), with the time of the newest result that needs it. Read-only.
 */
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct store_gc_ref {
	char *path;
	int64_t newest_s; /* seconds since the epoch of the newest run, comparison or profile */
};
/*
 * The paths rows point to, each once. A build is needed by the runs, comparisons and
 * profiles made with it; a build nothing refers to is not listed. Returns 0 with *refs
 * (release with store_gc_refs_release()) and *nr, or RP_EINTERNAL after an error.
 */
int store_gc_refs(struct store *st, struct store_gc_ref **refs, size_t *nr);
void store_gc_refs_release(struct store_gc_ref *refs, size_t nr);
/*
 * The ids of the stored comparisons (every status), ascending: the owners of the state
 * directory's profiles/<id>/. Returns 0 with *ids (free()) and *nr, or RP_EINTERNAL after
 * an error.
 */
int store_gc_comparisons(struct store *st, int64_t **ids, size_t *nr);
/*
 * The distinct log files of a comparison (its runs' logs, its builds' build logs), for
 * saying which of them gc removed. Returns 0 with *paths (free each, then the array) and
 * *nr, or RP_EINTERNAL after an error.
 */
int store_comparison_logs(struct store *st, int64_t comparison_id, char ***paths, size_t *nr);

#endif
