/*
 * profile = io: traced runs of both sides after the timing runs, and the similarity
 * report of their writes (docs/io-analysis.md).
 */
#include "compare/compare_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/cmdline.h"
#include "collect/iotrace.h"
#include "compare/compare_profile.h"
#include "util/fsutil.h"
#include "analysis/io_spectra.h"
#include "profile/io_profile.h"
#include "util/common.h"

/* Traced runs are slower than timing runs (two stops per write): a generous default. */
#define TRACE_TIMEOUT_S 600.0

void io_attribution_free(struct io_attribution *a)
{
	if (!a)
		return;
	spectra_report_release(&a->report);
	strmap_release(&a->frame_kinds);
	free(a->error);
	free(a->dir);
	free(a);
}

/* One traced run of a side: dir/<A|B>-<seq>.io.json and .log, recorded in the store. */
static int trace_once(const struct compare_request *req, const struct bench_config *bench, int side,
		      size_t seq, const int64_t ids[3], const char *dir, void *arg,
		      struct store_profile *p)
{
	const struct compare_side *s = side ? &req->b : &req->a;
	(void)arg;
	const char *command = s->command ? s->command : bench->command;
	/* Exec'd directly when it needs no shell, as the timing runs are (collect/cmdline.h). */
	char **split = cmdline_split(command);
	char *shell[] = {(char *)"/bin/sh", (char *)"-c", (char *)command, NULL};
	char **argv = split ? split : shell;
	struct strbuf path = STRBUF_INIT, log = STRBUF_INIT;
	struct iotrace_options opts;
	struct iotrace_result tr = {0};
	struct io_profile prof = {0};
	struct io_profile_meta meta = {0};
	int fd, ret;

	strbuf_addf(&path, "%s/%c-%zu.io.json", dir, side ? 'B' : 'A', seq);
	strbuf_addf(&log, "%s/%c-%zu.log", dir, side ? 'B' : 'A', seq);
	memset(p, 0, sizeof(*p));
	fd = open_own(log.buf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		error("cannot create the log %s: %s", log.buf, fs_strerror(errno));
		ret = RP_EINTERNAL;
		goto out;
	}
	iotrace_options_init(&opts);
	opts.cwd = s->cwd;
	opts.stdin_fd = -1;
	opts.out_fd = fd;
	opts.discard_stdout = bench->discard_stdout;
	opts.timeout_s = bench->timeout_ns ? (double)bench->timeout_ns / 1e9 : TRACE_TIMEOUT_S;
	meta.command = command;
	meta.cwd = s->cwd;
	meta.log = log.buf;
	meta.started_at = p->started_at = (int64_t)time(NULL);
	ret = iotrace_run(argv, &opts, &tr);
	close(fd);
	if (ret) {
		ret = RP_EINPUT; /* cannot trace here (printed): no report, the verdict stands */
		goto out;
	}
	if (tr.status == RUN_INTERRUPTED) {
		ret = RP_EINTERRUPT;
		goto out;
	}
	io_profile_from_trace(&tr, &meta, &prof);
	if ((ret = io_profile_write(&prof, path.buf)))
		goto out;
	ret = compare_profile_record(req, p, "io", s->build_id, ids, tr.status, tr.detail, &path,
				     &log);
out:
	cmdline_free(split);
	io_profile_release(&prof);
	iotrace_result_release(&tr);
	strbuf_release(&path);
	strbuf_release(&log);
	return ret;
}

/* Bytes (or calls) of one direction in a profile. */
static uint64_t iotrace_dir_total(const struct io_profile *p, enum iotrace_dir dir, bool calls)
{
	uint64_t t = 0;
	for (size_t e = 0; e < p->nr_entries; e++)
		if (p->entries[e].dir == dir)
			t += calls ? p->entries[e].calls : p->entries[e].bytes;
	return t;
}

/* Adds run i of n to a mean, min and max. */
static void per_run_add(struct io_per_run *r, double v, size_t i, size_t n)
{
	if (!i || v < r->min)
		r->min = v;
	if (!i || v > r->max)
		r->max = v;
	r->mean += v / (double)n;
}

/* Reads the profiles of a side; a stored profile that no longer reads is an error. */
static int read_side(const struct store_profile *have, size_t n, struct io_profile **out)
{
	*out = xcalloc(n ? n : 1, sizeof(**out));
	for (size_t i = 0; i < n; i++)
		if (io_profile_read(have[i].path, &(*out)[i]))
			return RP_EINPUT;
	return 0;
}

int compare_profile_io(const struct compare_request *req, const struct bench_config *bench,
		       int64_t benchmark_id, int64_t machine_id, int64_t comparison_id,
		       struct io_attribution **out)
{
	struct io_attribution *a = xcalloc(1, sizeof(*a));
	struct store_profile *have[2] = {NULL, NULL};
	struct io_profile *profs[2] = {NULL, NULL};
	size_t nr[2] = {0, 0}, used[2], excluded[2];
	int64_t ids[3] = {benchmark_id, machine_id, comparison_id};
	int64_t builds[2] = {req->a.build_id, req->b.build_id};
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	*out = a;
	a->labels[0] = req->a.label;
	a->labels[1] = req->b.label;
	strbuf_addf(&sb, "%s/%lld/", req->sd->profiles, (long long)comparison_id);
	fsutil_add_safe_name(&sb, bench->name);
	a->dir = strbuf_detach(&sb);
	if (mkdir_own(req->sd->root, a->dir)) {
		ret = RP_EINTERNAL;
		goto out;
	}
	ret = compare_collect_profiles(req, bench, "io", bench->profile_runs, builds, ids, a->dir,
				       trace_once, NULL, a->reused, a->failed, have, nr);
	if (ret == RP_EINPUT) {
		/* Tracing refused here (error printed): the verdict stands without the report. */
		a->error = xstrdup("the program could not be traced (see the error above)");
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;
	if ((a->error = compare_profiles_missing(nr, a->failed, "traced", a->dir)))
		goto out;
	if (read_side(have[0], nr[0], &profs[0]) || read_side(have[1], nr[1], &profs[1]) ||
	    io_profiles_compare(profs[0], nr[0], profs[1], nr[1], IOTRACE_WRITE, NULL, &a->report,
				used, excluded)) {
		a->error = xstrdup("the I/O profiles could not be compared (see the error above)");
		goto out;
	}
	for (int side = 0; side < 2; side++) {
		io_profiles_frame_kinds(profs[side], nr[side], &a->frame_kinds);
		a->runs[side] = used[side];
		for (size_t i = 0; i < nr[side]; i++) {
			double b = (double)iotrace_dir_total(&profs[side][i], IOTRACE_WRITE, false);
			double c = (double)iotrace_dir_total(&profs[side][i], IOTRACE_WRITE, true);
			per_run_add(&a->bytes[side], b, i, nr[side]);
			per_run_add(&a->calls[side], c, i, nr[side]);
		}
	}
out:
	for (int side = 0; side < 2; side++) {
		if (profs[side])
			io_profiles_free(profs[side], nr[side]);
		store_profiles_free(have[side], nr[side]);
	}
	strbuf_release(&sb);
	return ret;
}
