#ifndef REVPERF_PROFILE_CALLGRIND_TOTALS_H
#define REVPERF_PROFILE_CALLGRIND_TOTALS_H

/*
 * The event totals of a counted run (collect/valgrind_run.h): each callgrind file of the
 * run's directory (one per process) gives its command and the totals of its events (Ir,
 * and with the cache simulation Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim), read
 * from the file's header and its `totals:` line without parsing the body. Not
 * thread-safe for the same object; no global state.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum callgrind_event {
	CG_IR, CG_DR, CG_DW, CG_I1MR, CG_D1MR, CG_D1MW, CG_ILMR, CG_DLMR, CG_DLMW,
	CG_BC, CG_BCM, CG_BI, CG_BIM, CG_NR_EVENTS
};

struct callgrind_process {
	char *file;    /* the callgrind file */
	char *command; /* its `cmd:` line; "" when absent */
	bool wrapper;  /* the wrapper shell that only started the others: left out */
	double events[CG_NR_EVENTS];
};

struct callgrind_run_totals {
	struct callgrind_process *procs; /* by file name */
	size_t nr_procs;
	bool have[CG_NR_EVENTS]; /* every counted process has the event */
	double events[CG_NR_EVENTS]; /* summed over the processes that are not wrappers */
};

/*
 * Reads every "callgrind.out.*" file of dir into *out (release with
 * callgrind_run_totals_release(), also after a failure). The process whose command line
 * is `wrapper` (the "/bin/sh -c COMMAND" that ran a benchmark command needing a shell;
 * NULL: none) is left out of the totals when the run has other processes: it only
 * started them, and its instructions are the shell's, not the benchmark's
 * (docs/counted.md). Returns 0, or RP_EINPUT after error() (no callgrind file, a file
 * without events: or totals:, a malformed number).
 */
int callgrind_run_totals_read(const char *dir, const char *wrapper,
			      struct callgrind_run_totals *out);
void callgrind_run_totals_release(struct callgrind_run_totals *t);

/*
 * The estimated cycles of the fixed model (docs/counted.md): L1 hits x 1, last-level hits
 * x 5, memory accesses x 35, mispredicted branches x 10. NAN without the cache events.
 */
double callgrind_sim_cycles(const struct callgrind_run_totals *t);

#endif
