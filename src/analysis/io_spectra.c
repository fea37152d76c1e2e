/*
 * I/O profiles as spectra runs (analysis/io_spectra.h).
 */
#include "analysis/io_spectra.h"

#include <string.h>

#include "util/common.h"

int io_profile_to_spectra(const struct io_profile *p, enum iotrace_dir dir, const char *name,
			  struct spectra_run *run)
{
	struct strbuf stack = STRBUF_INIT, file = STRBUF_INIT;
	int err = RP_OK;

	spectra_run_init(run, name ? name : p->command);
	for (size_t i = 0; i < p->nr_entries && !err; i++) {
		const struct io_entry *e = &p->entries[i];
		if (e->dir != dir)
			continue;
		strbuf_reset(&stack);
		strbuf_reset(&file);
		io_entry_stack_key(e, &stack);
		io_entry_file_key(p, e, &file);
		err = spectra_run_add(run, stack.buf, file.buf, e->calls, e->bytes);
	}
	strbuf_release(&stack);
	strbuf_release(&file);
	return err;
}

/* The spectra runs of the profiles that ended well. */
static int usable_runs(const struct io_profile *p, size_t n, enum iotrace_dir dir, const char *side,
		       struct spectra_run **runs, size_t *used, size_t *excluded)
{
	struct strbuf name = STRBUF_INIT;
	int err = RP_OK;

	*runs = xcalloc(n ? n : 1, sizeof(**runs));
	*used = *excluded = 0;
	for (size_t i = 0; i < n && !err; i++) {
		if (p[i].status != RUN_OK) {
			(*excluded)++;
			continue;
		}
		strbuf_reset(&name);
		strbuf_addf(&name, "%s run %zu", side, i + 1);
		err = io_profile_to_spectra(&p[i], dir, name.buf, &(*runs)[(*used)++]);
	}
	strbuf_release(&name);
	if (!err && !*used) {
		error("no %s run ended well (%zu crashed, failed or timed out): nothing to compare",
		      side, *excluded);
		err = RP_EINPUT;
	}
	return err;
}

int io_profiles_compare(const struct io_profile *base, size_t nr_base,
			const struct io_profile *target, size_t nr_target, enum iotrace_dir dir,
			const struct spectra_opts *opts, struct spectra_report *out, size_t used[2],
			size_t excluded[2])
{
	struct spectra_run *runs[2] = {NULL, NULL};
	struct spectra_profile prof = {0};
	int err;

	memset(out, 0, sizeof(*out));
	used[0] = used[1] = excluded[0] = excluded[1] = 0;
	if (!(err =
		  usable_runs(base, nr_base, dir, "baseline", &runs[0], &used[0], &excluded[0])) &&
	    !(err = usable_runs(target, nr_target, dir, "target", &runs[1], &used[1],
				&excluded[1])) &&
	    !(err = spectra_profile_build(runs[0], used[0], opts, &prof)))
		err = spectra_compare(&prof, runs[1], used[1], opts, out);
	spectra_profile_release(&prof);
	for (int s = 0; s < 2; s++) {
		size_t n = s ? nr_target : nr_base;
		for (size_t i = 0; runs[s] && i < n; i++)
			spectra_run_release(&runs[s][i]);
		free(runs[s]);
	}
	return err;
}
