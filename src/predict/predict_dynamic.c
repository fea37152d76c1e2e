/*
 * Dynamic data of a benchmark at a commit (predict.h): one run under valgrind's callgrind
 * (calls and instructions per function), or with the CCT runtime in the instrumented build
 * (calls and self time per function), stored per (build, benchmark).
 */
#include "predict/predict.h"
#include "predict/predict_impl.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/cct_run.h"
#include "collect/cmdline.h"
#include "collect/proc.h"
#include "collect/valgrind_run.h"
#include "util/fsutil.h"
#include "store/store_dynamic.h"
#include "profile/callgrind.h"
#include "profile/profile_load.h"
#include "util/common.h"

/* ---- dynamic data ---- */

bool predict_have_valgrind(void)
{
	return valgrind_available();
}

int predict_dynamic_source_parse(const char *s, enum predict_dynamic_source *out)
{
	if (!strcmp(s, "auto"))
		*out = PREDICT_DYNAMIC_AUTO;
	else if (!strcmp(s, "callgrind"))
		*out = PREDICT_DYNAMIC_CALLGRIND;
	else if (!strcmp(s, "cct"))
		*out = PREDICT_DYNAMIC_CCT;
	else
		return -1;
	return 0;
}

int predict_dynamic_choose(const struct config *cfg, enum predict_dynamic_source want,
			   enum predict_dynamic_source *out)
{
	const char *ini = cfg->path ? cfg->path : "revperf.ini";
	bool valgrind = predict_have_valgrind(), cct = cfg->profile_build_command != NULL;
	if (want == PREDICT_DYNAMIC_AUTO && valgrind)
		want = PREDICT_DYNAMIC_CALLGRIND;
	else if (want == PREDICT_DYNAMIC_AUTO && cct)
		want = PREDICT_DYNAMIC_CCT;
	*out = want;
	if (want == PREDICT_DYNAMIC_AUTO) {
		error("collecting dynamic data needs valgrind (callgrind counts each function's "
		      "calls and instructions), which is not on PATH, or a build for the CCT "
		      "runtime (calls and self time), which %s does not configure: install "
		      "valgrind, or add to [build] profile-command = make CFLAGS='-O2 -g "
		      "-finstrument-functions'",
		      ini);
		return RP_EINPUT;
	}
	if (want == PREDICT_DYNAMIC_CALLGRIND && !valgrind) {
		error("--dynamic=callgrind needs valgrind and it is not on PATH; install it, e.g. "
		      "apt-get install valgrind, or use --dynamic=cct");
		return RP_EINPUT;
	}
	if (want == PREDICT_DYNAMIC_CCT && !cct) {
		error("--dynamic=cct runs the benchmarks with the CCT runtime in a build compiled "
		      "with -finstrument-functions, and %s has no [build] profile-command; add "
		      "one, e.g. profile-command = make CFLAGS='-O2 -g -finstrument-functions'",
		      ini);
		return RP_EINPUT;
	}
	return 0;
}

/* A count from callgrind's function table (whole numbers, summed in a double). */
static uint64_t to_count(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 1.8e19)
		return UINT64_MAX;
	return (uint64_t)llround(v);
}

/*
 * Adds the functions of one callgrind file to p, as callgrind counted them (the call-path
 * tree only estimates a function's calls and cost per context).
 */
static int add_callgrind_file(const char *path, struct perphecy_profile *p)
{
	struct cct f;
	int ret = callgrind_read_renamed(path, NULL, NULL, NULL, NULL, &f);
	for (size_t k = 1; !ret && k < f.nr_nodes; k++) {
		const struct cct_node *n = &f.nodes[k];
		ret = perphecy_profile_add(p, cct_name(&f, n->name), to_count(n->calls),
					   to_count(n->excl));
	}
	cct_release(&f);
	return ret;
}

/* Reads every callgrind.out.* of dir (one per process) into p. */
static int read_callgrind_dir(const char *dir, struct perphecy_profile *p, size_t *nr_files)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct strbuf path = STRBUF_INIT;
	int ret = 0;
	*nr_files = 0;
	if (!d) {
		error("cannot read %s: %s", dir, strerror(errno));
		return RP_EINTERNAL;
	}
	while (!ret && (e = readdir(d))) {
		if (strncmp(e->d_name, "callgrind.out.", 14))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		ret = add_callgrind_file(path.buf, p);
		(*nr_files)++;
	}
	closedir(d);
	strbuf_release(&path);
	return ret;
}

/* The directory of one benchmark's dynamic data at rev, emptied. */
static int dynamic_dir(struct predict_ctx *ctx, const struct revision *rev,
		       const struct bench_config *b, struct strbuf *dir)
{
	strbuf_addf(dir, "%s/dynamic/%.12s/", ctx->sd->root, rev->sha);
	fsutil_add_safe_name(dir, b->name);
	if (remove_tree(dir->buf) || mkdir_own(ctx->sd->root, dir->buf))
		return RP_EINTERNAL;
	return 0;
}

/*
 * The timeout of a run under callgrind or the CCT runtime, up to `scale` times slower than
 * the program: the configured timeout times scale; without one, one run of the program in
 * cwd without them (its log dir/probe.log), with 600 s, gives 10 x its time, at least 60 s,
 * times scale / 10 (as compare's counted runs: 10 x the timing runs' timeout under
 * callgrind). Before, such a run had no timeout unless one was configured: a benchmark
 * that hangs held `run --dynamic` forever. Returns 0, RP_EINPUT after an error line when
 * that run timed out, RP_EINTERRUPT or RP_EINTERNAL.
 */
static int dynamic_timeout(struct predict_ctx *ctx, const struct revision *rev,
			   const struct bench_config *b, const char *cwd, const char *dir,
			   ns_t scale, ns_t *out)
{
	struct strbuf log = STRBUF_INIT;
	struct proc_spec spec = {0};
	struct proc_result res;
	int ret;
	if (b->timeout_ns) {
		*out = b->timeout_ns * scale;
		return 0;
	}
	strbuf_addf(&log, "%s/probe.log", dir);
	spec.command = b->command;
	spec.cwd = cwd;
	spec.log_path = log.buf;
	spec.log_limit_bytes = b->log_limit_bytes;
	spec.discard_stdout = b->discard_stdout;
	spec.timeout_ns = RUN_TIMEOUT_FIRST_NS; /* as compare's first run */
	if ((ret = proc_run(&spec, &res)))
		goto out;
	if (store_check_files(ctx->st, "a run for dynamic data's timeout")) {
		ret = RP_EINTERNAL;
		goto out;
	}
	if (res.status == RUN_INTERRUPTED) {
		ret = RP_EINTERRUPT;
		goto out;
	}
	if (res.status == RUN_TIMEOUT) {
		error("benchmark '%s' at %.12s: its run without instrumentation, which sets the "
		      "timeout of the instrumented one, timed out (%s); see %s, or set `timeout` "
		      "if it is this slow",
		      b->name, rev->sha, res.detail, log.buf);
		ret = RP_EINPUT;
		goto out;
	}
	*out = run_timeout_from(res.m.wall_ns) * (scale / 10);
out:
	strbuf_release(&log);
	return ret;
}

/* The benchmark's run (under callgrind or with the CCT runtime): status checked. */
static int run_bench(struct predict_ctx *ctx, const struct revision *rev,
		     const struct bench_config *b, const struct proc_spec *spec, const char *dir,
		     const char *how, struct predict_dynamic *out)
{
	struct proc_result res;
	struct timespec t0, t1;
	int ret;
	if (!ctx->quiet)
		fprintf_printable(stderr, "revperf: dynamic data of %s at %.12s (%s) %s\n", b->name,
				  rev->sha, rev->expr ? rev->expr : rev->sha, how);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = dir ? cct_run(spec, dir, &res) : proc_run(spec, &res);
	if (ret)
		return ret;
	if (store_check_files(ctx->st, "a run for dynamic data"))
		return RP_EINTERNAL;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out->elapsed_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (res.status == RUN_INTERRUPTED)
		return RP_EINTERRUPT;
	if (res.status != RUN_OK) {
		error("benchmark '%s' failed %s at %.12s (%s); see %s", b->name, how, rev->sha,
		      res.detail, spec->log_path);
		return RP_EINPUT;
	}
	return 0;
}

/* Stores prof as the dynamic data of (build, b) and fills the summary in *out. */
static int save_profile(struct predict_ctx *ctx, const struct store_build *build,
			const struct bench_config *b, const char *source,
			const struct perphecy_profile *prof, struct strbuf *dir,
			struct predict_dynamic *out)
{
	struct store_dynamic row;
	int ret;
	memset(&row, 0, sizeof(row));
	if ((ret = store_benchmark(ctx->st, b->name, b->command, &row.benchmark_id)))
		return ret;
	row.build_id = build->id;
	snprintf(row.source, sizeof(row.source), "%s", source);
	snprintf(row.cost, sizeof(row.cost), "%s", store_dynamic_cost_name(prof->cost_unit));
	row.path = xstrdup(dir->buf);
	ret = store_dynamic_save(ctx->st, &row, prof);
	store_dynamic_release(&row);
	if (ret)
		return ret;
	/* The benchmark's set of commits with data changed: forget the cached one. */
	predict_forget_dynamic(ctx, b->name);
	out->source = source;
	out->cost_unit = prof->cost_unit;
	out->nr_functions = prof->nr;
	for (size_t i = 0; i < prof->nr; i++) {
		out->cost += prof->funcs[i].cost;
		out->calls += prof->funcs[i].calls;
	}
	out->path = strbuf_detach(dir);
	return 0;
}

int predict_collect_dynamic(struct predict_ctx *ctx, const struct revision *rev,
			    const struct store_build *build, const struct bench_config *b,
			    struct predict_dynamic *out)
{
	struct strbuf dir = STRBUF_INIT, cmd = STRBUF_INIT, log = STRBUF_INIT;
	struct perphecy_profile prof;
	struct proc_spec spec = {0};
	size_t nr_files = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	perphecy_profile_init(&prof, b->name, PERPHECY_COST_INSTRUCTIONS);
	if (!predict_have_valgrind()) {
		error("collecting dynamic data under callgrind needs valgrind and it is not on "
		      "PATH; install it, e.g. apt-get install valgrind");
		ret = RP_EINPUT;
		goto out;
	}
	if ((ret = dynamic_dir(ctx, rev, b, &dir)))
		goto out;
	strbuf_addf(&log, "%s/run.log", dir.buf);
	valgrind_command(&cmd, b->command, dir.buf, false);
	spec.command = cmd.buf;
	spec.cwd = build->worktree;
	spec.log_path = log.buf;
	spec.log_limit_bytes = b->log_limit_bytes;
	spec.discard_stdout = b->discard_stdout;
	/* callgrind is some 50x slower than the program: the timeout scales. */
	if ((ret = dynamic_timeout(ctx, rev, b, build->worktree, dir.buf, 100, &spec.timeout_ns)))
		goto out;
	if ((ret = run_bench(ctx, rev, b, &spec, NULL, "under callgrind", out)))
		goto out;
	if ((ret = read_callgrind_dir(dir.buf, &prof, &nr_files)))
		goto out;
	if (!nr_files || !prof.nr) {
		error("benchmark '%s' at %.12s: callgrind wrote no function data into %s; see %s",
		      b->name, rev->sha, dir.buf, log.buf);
		ret = RP_EINPUT;
		goto out;
	}
	ret = save_profile(ctx, build, b, "callgrind", &prof, &dir, out);
out:
	perphecy_profile_release(&prof);
	strbuf_release(&dir);
	strbuf_release(&cmd);
	strbuf_release(&log);
	return ret;
}

/* ---- self time from the CCT runtime ---- */

int predict_profile_from_cct(const struct cct *tree, bool calls_only, struct perphecy_profile *out)
{
	for (size_t k = 1; k < tree->nr_nodes; k++) {
		const struct cct_node *n = &tree->nodes[k];
		const char *name = cct_name(tree, n->name);
		int ret;
		/* "[thread K]" nodes (threads kept apart) are not functions. */
		if (name[0] == '[')
			continue;
		/* Calls-only profiles weigh nodes by calls: there is no time to store. */
		/* A tree without call counts (sampled) stores none: calls are absent, not 0,
		 * and the call templates rank by self time (analysis/perphecy.c). */
		ret = perphecy_profile_add(out, name, tree->calls_known ? to_count(n->calls) : 0,
					   calls_only ? 0 : to_count(n->excl));
		if (ret)
			return ret;
	}
	return 0;
}

int predict_collect_dynamic_cct(struct predict_ctx *ctx, const struct revision *rev,
				const struct store_build *build,
				const struct store_build *profile_build,
				const struct bench_config *b, struct predict_dynamic *out)
{
	struct strbuf dir = STRBUF_INIT, log = STRBUF_INIT;
	struct profile_load_options lo = {.format = PROFILE_FORMAT_CCT};
	struct profile_source src;
	struct perphecy_profile prof;
	struct proc_spec spec = {0};
	struct cct tree;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&tree, 0, sizeof(tree));
	perphecy_profile_init(&prof, b->name, PERPHECY_COST_SELF_NS);
	if ((ret = dynamic_dir(ctx, rev, b, &dir)))
		goto out;
	/* Only *.cct files are profiles: the log can live beside them. */
	strbuf_addf(&log, "%s/run.log", dir.buf);
	spec.command = b->command;
	spec.cwd = profile_build->worktree;
	spec.log_path = log.buf;
	spec.log_limit_bytes = b->log_limit_bytes;
	spec.discard_stdout = b->discard_stdout;
	/* Every call is hooked: the timeout scales, as callgrind's does. */
	if ((ret = dynamic_timeout(ctx, rev, b, profile_build->worktree, dir.buf, 10,
				   &spec.timeout_ns)))
		goto out;
	if ((ret = run_bench(ctx, rev, b, &spec, dir.buf, "with the CCT runtime", out)))
		goto out;
	if (profile_load(dir.buf, &lo, &tree, &src)) {
		error("benchmark '%s' at %.12s: the CCT runtime wrote no readable profile into %s "
		      "(see the error above); does [build] profile-command compile with "
		      "-finstrument-functions? Log: %s",
		      b->name, rev->sha, dir.buf, log.buf);
		ret = RP_EINPUT;
		goto out;
	}
	if ((ret = predict_profile_from_cct(&tree, src.calls_only, &prof)))
		goto out;
	if (!prof.nr) {
		error("benchmark '%s' at %.12s: no instrumented function ran (%s); does [build] "
		      "profile-command compile with -finstrument-functions?",
		      b->name, rev->sha, dir.buf);
		ret = RP_EINPUT;
		goto out;
	}
	ret = save_profile(ctx, build, b, "cct", &prof, &dir, out);
out:
	cct_release(&tree);
	perphecy_profile_release(&prof);
	strbuf_release(&dir);
	strbuf_release(&log);
	return ret;
}

/* 1 when (build_id, benchmark_id) already has dynamic data, 0 when not, or an error. */
static int have_dynamic(struct store *st, int64_t build_id, int64_t benchmark_id)
{
	struct store_dynamic row;
	int ret;
	memset(&row, 0, sizeof(row));
	ret = store_dynamic_find(st, build_id, benchmark_id, &row);
	store_dynamic_release(&row);
	return ret < 0 ? ret : ret == 0;
}

/* Stores prof (filled, ret == 0) as the dynamic data of the pair; 1 when it is empty. */
static int store_prof(struct store *st, int64_t build_id, int64_t benchmark_id, const char *source,
		      const struct perphecy_profile *prof, const char *path)
{
	struct store_dynamic row;
	int ret;
	if (!prof->nr)
		return 1; /* no function ran: nothing to store */
	memset(&row, 0, sizeof(row));
	row.build_id = build_id;
	row.benchmark_id = benchmark_id;
	snprintf(row.source, sizeof(row.source), "%s", source);
	snprintf(row.cost, sizeof(row.cost), "%s", store_dynamic_cost_name(prof->cost_unit));
	row.path = path ? xstrdup(path) : NULL;
	ret = store_dynamic_save(st, &row, prof);
	store_dynamic_release(&row);
	return ret;
}

int predict_dynamic_save_cct(struct store *st, int64_t build_id, int64_t benchmark_id,
			     const struct cct *tree, bool calls_only, const char *path,
			     bool keep_existing)
{
	struct perphecy_profile prof;
	int ret = keep_existing ? have_dynamic(st, build_id, benchmark_id) : 0;
	if (ret)
		return ret; /* 1: data is there, kept */
	perphecy_profile_init(&prof, NULL, PERPHECY_COST_SELF_NS);
	if (!(ret = predict_profile_from_cct(tree, calls_only, &prof)))
		ret = store_prof(st, build_id, benchmark_id, "cct", &prof, path);
	perphecy_profile_release(&prof);
	return ret;
}

int predict_dynamic_save_callgrind(struct store *st, int64_t build_id, int64_t benchmark_id,
				   const char *dir, bool keep_existing)
{
	struct perphecy_profile prof;
	size_t nr_files = 0;
	int ret = keep_existing ? have_dynamic(st, build_id, benchmark_id) : 0;
	if (ret)
		return ret;
	perphecy_profile_init(&prof, NULL, PERPHECY_COST_INSTRUCTIONS);
	if (!(ret = read_callgrind_dir(dir, &prof, &nr_files)))
		ret = store_prof(st, build_id, benchmark_id, "callgrind", &prof, dir);
	perphecy_profile_release(&prof);
	return ret;
}
