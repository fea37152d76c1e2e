#ifndef REVPERF_ANALYSIS_IO_SPECTRA_H
#define REVPERF_ANALYSIS_IO_SPECTRA_H

/*
 * The bridge from I/O profiles (profile/io_profile.h) to the spectrum analysis
 * (analysis/spectra.h, METHODS.md section 3): one spectra_run per profile, and the
 * similarity report of two sides' runs. Not thread-safe on shared objects; no global state.
 */
#include <stddef.h>

#include "analysis/spectra.h"
#include "profile/io_profile.h"

/*
 * One spectra_run of the profile's entries of direction `dir` (stack and file keys as
 * above), named `name` (NULL: the command). `run` is initialised here; release it with
 * spectra_run_release(). Returns RP_OK or RP_EINPUT after error() for an entry the
 * analysis refuses (bytes without calls).
 */
int io_profile_to_spectra(const struct io_profile *p, enum iotrace_dir dir, const char *name,
			  struct spectra_run *run);

/*
 * The similarity report of the target runs against the profile of the baseline runs
 * (analysis/spectra.h), direction `dir`. Runs that did not end well (status other than
 * RUN_OK) are left out and counted in excluded[side]; used[side] counts the others.
 * Returns RP_OK, or RP_EINPUT after error() when a side has no usable run or a record
 * is refused. `out` is released by the caller with spectra_report_release(), always.
 */
int io_profiles_compare(const struct io_profile *base, size_t nr_base,
			const struct io_profile *target, size_t nr_target, enum iotrace_dir dir,
			const struct spectra_opts *opts, struct spectra_report *out, size_t used[2],
			size_t excluded[2]);

#endif
