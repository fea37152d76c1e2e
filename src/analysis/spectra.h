#ifndef REVPERF_ANALYSIS_SPECTRA_H
#define REVPERF_ANALYSIS_SPECTRA_H

/*
 * I/O spectrum analysis (METHODS.md section 3, SPECTRAPERF): the profile of a revision
 * (per stack trace, the accepted range of bytes written per call over its runs), the
 * similarity report of a target revision against that profile (SC, Impact, TotalImpact,
 * RangeDiff, Runs, CallsDiff, stopped stack traces, ranking), and the top lists of one
 * run's test execution report. Pure analysis on in-memory data: docs/io-analysis.md
 * explains the choices (what a run without writes counts as, which means are per run).
 *
 * Nothing here is thread-safe on a shared object; distinct objects may be used from
 * distinct threads. No global state.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Input: one run's writes, aggregated per (stack trace, file). A tracer fills it with
 * spectra_run_add() after symbolizing; a reader does the same from a file. Records may
 * repeat a (stack, file) pair (two raw stacks that symbolize alike): the analyses add them.
 * A record with 0 calls and 0 bytes means nothing and is skipped; 0 calls with bytes > 0
 * is bad input. Callers may also fill `recs` directly: every analysis validates them.
 */
struct spectra_record {
	char *stack;	/* symbolized stack trace, frames joined by ';', outermost first */
	char *file;	/* what was written: a path, or a placeholder such as "[pipe]" */
	uint64_t calls; /* write-family system calls */
	uint64_t bytes; /* bytes they wrote */
};

struct spectra_run {
	char *name; /* names the run in messages: its file, or "target run 3" */
	struct spectra_record *recs;
	size_t nr, alloc;
};

/* Empty run named `name` (copied; NULL for "unnamed run"). Release with spectra_run_release(). */
void spectra_run_init(struct spectra_run *run, const char *name);
/* Frees the records, their strings and the name; accepts a zeroed or released run. */
void spectra_run_release(struct spectra_run *run);
/*
 * Appends a record (stack and file copied). Returns RP_EINPUT after error() for an empty or
 * NULL stack, an empty or NULL file, or calls == 0 with bytes > 0; a 0/0 record is ignored.
 */
int spectra_run_add(struct spectra_run *run, const char *stack, const char *file, uint64_t calls,
		    uint64_t bytes);

/* What identifies a row: the stack trace (its files added up), or (stack trace, file). */
enum spectra_group {
	SPECTRA_BY_STACK = 0,
	SPECTRA_BY_STACK_FILE,
};

/* How a profile's accepted range is made from the per-run bytes per call. */
enum spectra_range {
	SPECTRA_RANGE_MINMAX = 0, /* [min, max] (the paper) */
	SPECTRA_RANGE_SD,	  /* mean +/- k sd (sample sd), the low bound clamped at 0 */
};

struct spectra_opts {
	enum spectra_group group;
	enum spectra_range range;
	double k; /* for SPECTRA_RANGE_SD: finite, >= 0 */
	/*
	 * SC counts a target run in which the stack trace did not write as outside (n = all
	 * target runs). Default false: such a run has no bytes per call, so SC is over the runs
	 * where it wrote (the paper's implementation); Runs and CallsDiff show the absence.
	 */
	bool absent_as_outside;
};

/* Defaults: by stack trace, [min, max], k = 2, absent runs not counted. */
void spectra_opts_init(struct spectra_opts *opts);

/* Private: (stack, file) keys interned by a profile or report; strings owned here. */
struct spectra_keytab {
	char **stacks, **files; /* files[i] NULL when grouped by stack trace */
	size_t nr, alloc;
	uint32_t *slots; /* open addressing: index + 1, 0 = empty */
	size_t nr_slots;
};

/* One stack trace (or stack trace and file) of a revision's profile. */
struct spectra_entry {
	const char *stack; /* borrowed from the profile */
	const char *file;  /* borrowed; NULL when grouped by stack trace */
	double lo, hi;	   /* accepted range of bytes per call, bounds inclusive */
	double bpc_mean;   /* mean of the per-run bytes per call, over the runs where it wrote */
	double bpc_sd;	   /* their sample sd (0 with one run) */
	size_t runs_written;
	uint64_t calls_total, bytes_total; /* over all runs */
	double calls_mean, bytes_mean;	   /* per run, over all nr_runs runs (absent = 0) */
	const double *bpc;		   /* per run: bytes per call, NAN where it did not write */
};

struct spectra_profile {
	enum spectra_group group;
	enum spectra_range range;
	double k;
	size_t nr_runs;
	struct spectra_entry *entries; /* in order of first appearance */
	size_t nr_entries;
	/* private */
	struct spectra_keytab keys; /* entries[i] is key i */
	double *bpc_block;	    /* nr_entries x nr_runs */
};

/*
 * Builds the profile of a revision from its runs (nr_runs >= 1) into `out` (overwritten:
 * release a previous profile first), which the caller releases with
 * spectra_profile_release() (also after a failure: `out` is then empty). opts NULL means defaults.
 * Returns RP_OK, or RP_EINPUT after error() for no runs, a bad record (naming the run and record),
 * a byte or call count that overflows, or a bad k.
 */
int spectra_profile_build(const struct spectra_run *runs, size_t nr_runs,
			  const struct spectra_opts *opts, struct spectra_profile *out);
/* Frees what the profile owns; accepts a zeroed or released profile. */
void spectra_profile_release(struct spectra_profile *p);
/* The entry of (stack, file), or NULL; file is ignored when grouped by stack trace. */
const struct spectra_entry *spectra_profile_find(const struct spectra_profile *p, const char *stack,
						 const char *file);

/* Per target run and row: the paper's matrix cell. */
enum spectra_fit {
	SPECTRA_OUTSIDE = 0, /* wrote, bytes per call outside the range, or no range */
	SPECTRA_INSIDE = 1,  /* wrote, inside the baseline range (bounds inclusive) */
	SPECTRA_ABSENT = 2,  /* did not write in this run */
};

/* One row of the similarity report (Table III). */
struct spectra_row {
	const char *stack;   /* borrowed from the report */
	const char *file;    /* borrowed; NULL when grouped by stack trace */
	double sc;	     /* sqrt(a / n), 0 when a == 0 */
	size_t a;	     /* target runs inside the range */
	size_t n;	     /* runs SC is over: runs_written, or all runs (absent_as_outside) */
	size_t runs_written; /* "Runs": runs_written / report.nr_runs */
	size_t runs_outside; /* runs where it wrote outside the range (Impact is over these) */
	bool has_range;	     /* the baseline profile has a range for it */
	double lo, hi;	     /* that range; NAN without one */
	double range_diff;   /* hi - lo; NAN ("N/A") without a range */
	double impact;	     /* bytes per call; see spectra_compare() */
	double total_impact; /* calls_mean x impact */
	double calls_mean;   /* target calls per run, over all target runs (absent = 0) */
	double bytes_mean;   /* target bytes per run, likewise */
	double bpc_mean;     /* mean of the target's per-run bytes per call (runs where it wrote) */
	double base_calls_mean, base_bytes_mean; /* per baseline run; 0 when new */
	double calls_diff;			 /* calls_mean - base_calls_mean */
	const double *bpc;			 /* per target run, NAN where absent */
	const unsigned char *fit;		 /* per target run: enum spectra_fit */
};

/* A stack trace that wrote in the baseline and in no target run. */
struct spectra_stopped {
	const char *stack, *file; /* borrowed from the report */
	double lo, hi;		  /* its baseline range */
	size_t base_runs_written;
	double base_calls_mean, base_bytes_mean; /* per baseline run */
};

struct spectra_report {
	enum spectra_group group;
	bool absent_as_outside;
	size_t nr_runs;		  /* target runs */
	size_t nr_base_runs;	  /* runs of the baseline profile */
	struct spectra_row *rows; /* ranked: SC ascending, |TotalImpact| descending, key */
	size_t nr_rows;
	struct spectra_stopped *stopped; /* base bytes per run descending, then key */
	size_t nr_stopped;
	/* private */
	struct spectra_keytab keys;
	double *bpc_block;
	unsigned char *fit_block;
};

/*
 * The similarity report of the target runs (nr_target >= 1) against the baseline profile,
 * into `out` (release with spectra_report_release(), also after a failure). One row per
 * stack trace (or stack trace and file) that wrote in at least one target run. Per target
 * run it wrote in: inside if lo <= bytes per call <= hi; otherwise outside, at distance
 * bpc - hi above the range, bpc - lo below it (negative), or bpc itself with no range.
 * Impact = the mean distance over the outside runs (0 when none). opts NULL means
 * defaults; opts->group must be base->group (the range and k are the profile's).
 * Returns RP_OK, or RP_EINPUT after error() for no target runs, a group mismatch, or a bad
 * record. The report copies what it needs: base and target may be released afterwards.
 */
int spectra_compare(const struct spectra_profile *base, const struct spectra_run *target,
		    size_t nr_target, const struct spectra_opts *opts, struct spectra_report *out);
/* Frees what the report owns; accepts a zeroed or released report. */
void spectra_report_release(struct spectra_report *r);

/* One line of a test execution report's top lists. */
struct spectra_top {
	const char *stack; /* borrowed from the spectra_exec; NULL in the file list */
	const char *file;  /* borrowed; NULL in the stack lists when grouped by stack trace */
	uint64_t calls, bytes;
	double bpc; /* bytes / calls */
};

/* The top lists of one run's test execution report (METHODS.md section 3). */
struct spectra_exec {
	enum spectra_group group;
	uint64_t total_calls, total_bytes; /* the whole run */
	size_t nr_stacks, nr_files;	   /* distinct rows and files that wrote */
	struct spectra_top *by_bytes;	   /* bytes desc, calls desc, key */
	size_t nr_by_bytes;
	struct spectra_top *by_bpc; /* bytes per call desc, bytes desc, key */
	size_t nr_by_bpc;
	struct spectra_top *files; /* per file, bytes desc, calls desc, name */
	size_t nr_files_top;
	/* private */
	struct spectra_keytab keys, file_keys;
};

/*
 * Fills `out` (release with spectra_exec_release(), also after a failure) with one run's
 * top lists, each cut to `limit` lines (0 = all), rows grouped by `group`. Returns RP_OK,
 * or RP_EINPUT after error() for a bad record or a count that overflows.
 */
int spectra_exec_build(const struct spectra_run *run, enum spectra_group group, size_t limit,
		       struct spectra_exec *out);
/* Frees what `e` owns; accepts a zeroed or released struct. */
void spectra_exec_release(struct spectra_exec *e);

#endif
