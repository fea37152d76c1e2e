#ifndef REVPERF_IMPORT_IMPORT_STORE_H
#define REVPERF_IMPORT_IMPORT_STORE_H

#include "collect/machine.h"
#include "import/import.h"
#include "core/revision.h"
#include "store/store.h"
#include "util/common.h"

/* What import_store() wrote. */
struct import_store_summary {
	int64_t build_id;
	size_t nr_benches;  /* benchmarks with at least one run stored */
	size_t nr_runs;     /* runs stored (one per kept sample) */
	size_t nr_excluded; /* runs the importer left out (not stored) */
	bool replaced;      /* an earlier import of the same file name was replaced */
};

/*
 * Stores set (read from set->origin) as results of the revision rev, measured on machine
 * (the machine row of `revperf import`; docs/import.md says the results were measured
 * elsewhere): a build row for (revision, "import:<format>:<file basename>"), a benchmark
 * row (name, "import:<format>") per bench with samples, and one run per kept sample
 * (status ok, side A, no warm-up, no comparison) with its metric values. Everything in one
 * transaction: on any error nothing of this file is stored. Importing a file of the same
 * name for the same revision again replaces the runs of the earlier import.
 * Returns 0 (filling *out) or RP_EINTERNAL after an error line. Not thread-safe (st).
 */
int import_store(struct store *st, const struct revision *rev, const struct import_set *set,
		 const struct machine_info *machine, struct import_store_summary *out);

#endif
