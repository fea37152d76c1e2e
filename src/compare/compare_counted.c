/*
 * Counted metrics under a benchmark's verdict (compare/compare_counted.h): runs under
 * callgrind, their exact or statistical verdicts, and the functions and call paths whose
 * instructions changed.
 */
#include "compare/compare_counted.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/verdict.h"
#include "collect/valgrind_run.h"
#include "compare/compare_profile.h"
#include "compare/compare_result.h"
#include "compare/compare_run.h"
#include "predict/predict.h"
#include "profile/callgrind.h"
#include "profile/callgrind_plt.h"
#include "profile/callgrind_totals.h"
#include "profile/cct.h"
#include "util/fsutil.h"
#include "util/common.h"

struct counted_run_ctx {
	const char *kind;
	bool cache_sim;
	ns_t timeout_ns;
	char *first_failure; /* what the first failed counted run said, with its log's last line */
	/* per side, the runs of the first look: the second look's are numbered after them,
	 * so that they do not take (and delete) the first look's directories */
	size_t first_look_runs[2];
	const struct counted_probe *probe; /* NULL: timeout_ns is known */
	bool probe_timed_out;
};

void counted_attribution_free(struct counted_attribution *a)
{
	if (!a)
		return;
	attribution_release(&a->abs);
	free(a->error);
	free(a->attribution_error);
	free(a->dir);
	free(a);
}

/* True for valgrind's own lines ("==123== ..."). */
static bool valgrind_line(const char *line)
{
	if (strncmp(line, "==", 2))
		return false;
	line += 2;
	while (*line >= '0' && *line <= '9')
		line++;
	return !strncmp(line, "==", 2);
}

/*
 * Appends to out the line of a failed counted run's log (its last 4 KiB) that says most
 * about why: valgrind's "unhandled instruction", else the program's own last line, else
 * valgrind's "Process terminating" line; nothing when the log holds only valgrind's other
 * lines (its summary of the instructions counted says nothing of why the run failed).
 */
static void failure_line(const char *path, struct strbuf *out)
{
	char buf[4097];
	const char *pick[3] = {NULL, NULL, NULL}; /* unhandled, plain, terminating */
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (n = pread(fd, buf, sizeof(buf) - 1, st.st_size > 4096 ? st.st_size - 4096 : 0)) <= 0) {
		close(fd);
		return;
	}
	close(fd);
	buf[n] = '\0';
	for (char *line = buf, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line || (line == buf && st.st_size > 4096))
			continue; /* empty, or the cut first line */
		if (!valgrind_line(line))
			pick[1] = line;
		else if (strstr(line, "unhandled instruction"))
			pick[0] = line;
		else if (strstr(line, "Process terminating"))
			pick[2] = line;
	}
	for (int i = 0; i < 3; i++)
		if (pick[i]) {
			strbuf_addstr(out, pick[i]);
			return;
		}
}

/* The counts of one run, from its callgrind files, recorded with its profile. */
static int record_counts(const struct compare_request *req, const struct store_profile *p,
			 const struct callgrind_run_totals *t, bool cache_sim)
{
	int ret = store_profile_value_set(req->st, p->id, "ir", t->events[CG_IR]);
	double cycles = callgrind_sim_cycles(t);
	if (!ret && cache_sim && isfinite(cycles))
		ret = store_profile_value_set(req->st, p->id, "sim-cycles", cycles);
	return ret;
}

/* Keeps what the first failed counted run said, with its log's telling line. */
static void note_failure(struct counted_run_ctx *ctx, int side, enum run_status status,
			 const char *detail, const char *log)
{
	struct strbuf why = STRBUF_INIT, line = STRBUF_INIT;
	if (ctx->first_failure)
		return;
	strbuf_addf(&why, "side %c %s (%s); %s", side ? 'B' : 'A', run_status_name(status),
		    detail ? detail : "no detail", log ? log : "no log");
	if (log)
		failure_line(log, &line);
	if (line.len)
		strbuf_addf(&why, ": '%s'", line.buf);
	strbuf_release(&line);
	ctx->first_failure = strbuf_detach(&why);
}

/*
 * show: the counted runs that failed in the comparison shown, per side (their directory
 * is dir/<A|B>-<seq>, count_once()), and what the first said.
 */
static int replay_failed(const struct compare_request *req, const char *kind, const int64_t ids[3],
			 struct counted_run_ctx *ctx, size_t failed[2])
{
	struct store_profile *p;
	size_t n;
	if (store_profiles_failed_of(req->st, req->replay->id, ids[0], kind, &p, &n))
		return RP_EINTERNAL;
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(p[i].path, '/');
		int side = base && base[1] == 'B';
		failed[side]++;
		note_failure(ctx, side, p[i].status, p[i].detail, p[i].log_path);
	}
	store_profiles_free(p, n);
	return 0;
}

/* One counted run of a side into dir/<A|B>-<seq>/ (compare_profile_run_fn). */
static int count_once(const struct compare_request *req, const struct bench_config *bench, int side,
		      size_t seq, const int64_t ids[3], const char *dir, void *arg,
		      struct store_profile *p)
{
	struct counted_run_ctx *ctx = arg;
	const struct compare_side *s = side ? &req->b : &req->a;
	struct strbuf run_dir = STRBUF_INIT, log = STRBUF_INIT, cmd = STRBUF_INIT;
	struct strbuf wrapper = STRBUF_INIT;
	const char *command = s->command ? s->command : bench->command;
	bool shell;
	struct callgrind_run_totals totals = {0};
	struct proc_spec spec = {0};
	struct proc_result res;
	const char *detail;
	int ret;

	if (ctx->probe) { /* the first counted run made: its timeout first */
		const struct counted_probe *probe = ctx->probe;
		ns_t t = 0;
		ctx->probe = NULL;
		if ((ret = probe->run(probe->arg, &ctx->probe_timed_out, &t)))
			return ret;
		if (ctx->probe_timed_out)
			return RP_EINPUT; /* compare_counted() says why */
		ctx->timeout_ns = t * (VALGRIND_SLOWDOWN / 10);
	}
	shell = valgrind_wrapper(&wrapper, command);

	strbuf_addf(&run_dir, "%s/%c-%zu", dir, side ? 'B' : 'A', ctx->first_look_runs[side] + seq);
	strbuf_addf(&log, "%s.log", run_dir.buf);
	if (remove_tree(run_dir.buf) || mkdir_p(run_dir.buf)) {
		ret = RP_EINTERNAL;
		goto out;
	}
	valgrind_command(&cmd, command, run_dir.buf, ctx->cache_sim);
	spec.command = cmd.buf;
	spec.cwd = s->cwd;
	spec.log_path = log.buf;
	spec.discard_stdout = bench->discard_stdout;
	spec.timeout_ns = ctx->timeout_ns;
	memset(p, 0, sizeof(*p));
	p->started_at = (int64_t)time(NULL);
	if ((ret = proc_run(&spec, &res)))
		goto out;
	if (res.status == RUN_INTERRUPTED) {
		ret = RP_EINTERRUPT;
		goto out;
	}
	detail = res.detail;
	if (res.status == RUN_OK &&
	    callgrind_run_totals_read(run_dir.buf, shell ? wrapper.buf : NULL, &totals)) {
		res.status = RUN_FAILED;
		detail = "valgrind left no complete callgrind file (see the error above)";
	}
	if (res.status != RUN_OK)
		note_failure(ctx, side, res.status, detail, log.buf);
	if ((ret = compare_profile_record(req, p, ctx->kind, s->build_id, ids, res.status, detail,
					  &run_dir, &log)))
		goto out;
	if (p->status == RUN_OK)
		ret = record_counts(req, p, &totals, ctx->cache_sim);
out:
	callgrind_run_totals_release(&totals);
	strbuf_release(&wrapper);
	strbuf_release(&run_dir);
	strbuf_release(&log);
	strbuf_release(&cmd);
	return ret;
}

/* The values of `metric` of the profiles of one side (those without it are skipped). */
static int side_values(const struct compare_request *req, const struct store_profile *p, size_t n,
		       const char *metric, double **out, size_t *nr)
{
	*out = xcalloc(n ? n : 1, sizeof(**out));
	*nr = 0;
	for (size_t i = 0; i < n; i++) {
		double v;
		int ret = store_profile_value_get(req->st, p[i].id, metric, &v);
		if (ret < 0)
			return ret;
		if (!ret)
			(*out)[(*nr)++] = v;
	}
	return 0;
}

/* Decides one counted metric from the runs of both sides. */
static int decide(const struct compare_request *req, const struct bench_config *bench,
		  struct store_profile *have[2], const size_t nr[2], size_t looks,
		  struct metric_outcome *m)
{
	double *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	struct verdict_opts opts;
	bool kept = false;
	int ret;

	if ((ret = side_values(req, have[0], nr[0], m->def->name, &a, &na)) ||
	    (ret = side_values(req, have[1], nr[1], m->def->name, &b, &nb)))
		goto out;
	metric_outcome_reset(m, na, nb, 0);
	kept = true;
	m->unmeasured = NULL;
	if (!m->measured) {
		m->unmeasured = na + nb ? "fewer than 2 successful counted runs on a side (see the "
					  "counted section)"
					: "no successful counted run (see the counted section)";
		goto out;
	}
	/* Two looks at most (MIN runs, then MAX): each at alpha / 2 (Bonferroni). */
	opts.alpha = req->cfg->alpha / (double)(looks ? looks : 1);
	opts.tolerance = bench->count_tolerance;
	opts.direction = m->def->direction;
	ret = verdict_decide_exact(a, na, b, nb, &opts, &m->r);
	if (ret == 0) {
		double sa = m->r.spread_a, sb = m->r.spread_b;
		ret = verdict_decide(a, na, b, nb, &opts, &m->r) < 0 ? RP_EINTERNAL : 0;
		m->r.spread_a = sa;
		m->r.spread_b = sb;
	} else {
		ret = ret < 0 ? RP_EINTERNAL : 0;
	}
out:
	if (kept) { /* m keeps them, for the report; counted runs are profiles, not runs */
		metric_outcome_set_values(m, 0, NULL, a, na);
		metric_outcome_set_values(m, 1, NULL, b, nb);
	} else {
		free(a);
		free(b);
	}
	return ret;
}

/* True when a side's counts of some metric disagree: more runs are needed. */
static int any_inexact(const struct compare_request *req, struct store_profile *have[2],
		       const size_t nr[2], const struct metric_outcome *metrics, size_t n,
		       bool *inexact)
{
	*inexact = false;
	for (size_t i = 0; i < n && !*inexact; i++) {
		if (!(metrics[i].def->flags & METRIC_COUNTED))
			continue;
		for (int side = 0; side < 2 && !*inexact; side++) {
			double *v;
			size_t nv;
			int ret =
			    side_values(req, have[side], nr[side], metrics[i].def->name, &v, &nv);
			if (ret) {
				free(v);
				return ret;
			}
			*inexact = nv >= 1 && verdict_spread(v, nv) > VERDICT_EXACT_SPREAD;
			free(v);
		}
	}
	return 0;
}

/*
 * True when the counts of a side disagree over every counted run stored for it, not only
 * the newest MIN that the first look takes: an earlier comparison of these builds may have
 * found them disagreeing and run more. Those newest MIN may agree by chance and would be
 * taken for exact; the runs are judged together again (the second look).
 */
static int stored_inexact(const struct compare_request *req, const char *kind,
			  const int64_t builds[2], const int64_t ids[3],
			  const struct metric_outcome *metrics, size_t nr_metrics, bool *inexact)
{
	struct store_profile *all[2] = {NULL, NULL};
	size_t n[2] = {0, 0};
	int ret = 0;
	*inexact = false;
	if (req->fresh)
		return 0;
	for (int side = 0; side < 2 && !ret; side++)
		if (store_profiles_find(req->st, builds[side], ids[0], ids[1], kind, &all[side],
					&n[side]))
			ret = RP_EINTERNAL;
	if (!ret)
		ret = any_inexact(req, all, n, metrics, nr_metrics, inexact);
	store_profiles_free(all[0], n[0]);
	store_profiles_free(all[1], n[1]);
	return ret;
}

/*
 * A replay (revperf show): the counted runs of a side stored up to the comparison shown
 * (its own and those it reused, none of a later comparison; own_only: its own, as under
 * --fresh), the newest `want`; nothing is run. reused: those taken before it.
 */
static int stored_up_to(const struct compare_request *req, const char *kind,
			const int64_t builds[2], const int64_t ids[3], size_t want, bool own_only,
			struct store_profile *have[2], size_t nr[2], size_t reused[2])
{
	for (int side = 0; side < 2; side++) {
		struct store_profile *all = NULL;
		size_t n = 0, keep = 0, first;
		have[side] = NULL;
		nr[side] = reused[side] = 0;
		if (store_profiles_find(req->st, builds[side], ids[0], ids[1], kind, &all, &n))
			return RP_EINTERNAL;
		for (size_t i = 0; i < n; i++) /* oldest first: keep the order */
			if (own_only ? all[i].comparison_id == req->replay->id
				     : all[i].comparison_id <= req->replay->id)
				all[keep++] = all[i];
			else {
				free(all[i].detail);
				free(all[i].path);
				free(all[i].log_path);
			}
		first = keep > want ? keep - want : 0;
		for (size_t i = 0; i < first; i++) {
			free(all[i].detail);
			free(all[i].path);
			free(all[i].log_path);
		}
		if (keep > first) /* all is NULL when none is stored */
			memmove(all, all + first, (keep - first) * sizeof(*all));
		have[side] = all;
		nr[side] = keep - first;
		for (size_t i = 0; i < nr[side]; i++)
			reused[side] += all[i].comparison_id != req->replay->id;
	}
	return 0;
}

/* The replay's runs: the newest MIN, or MAX when the side's stored counts disagree. */
static int replay_counted(const struct compare_request *req, const struct bench_config *bench,
			  const char *kind, const int64_t builds[2], const int64_t ids[3],
			  const struct metric_outcome *metrics, size_t nr_metrics,
			  struct store_profile *have[2], size_t nr[2], size_t reused[2],
			  size_t *looks)
{
	bool inexact = false;
	/* Under --fresh compare took only its own counted runs (compare_collect_profiles()),
	 * for the exactness too. */
	struct store_plan plan;
	int ret = store_plan_read(req->st, req->replay->id, ids[0], &plan);
	bool fresh = plan.fresh;
	store_plan_release(&plan);
	if (ret < 0)
		return RP_EINTERNAL;
	ret = stored_up_to(req, kind, builds, ids, (size_t)-1, fresh, have, nr, reused);
	if (!ret)
		ret = any_inexact(req, have, nr, metrics, nr_metrics, &inexact);
	store_profiles_free(have[0], nr[0]);
	store_profiles_free(have[1], nr[1]);
	have[0] = have[1] = NULL;
	nr[0] = nr[1] = 0;
	if (ret)
		return ret;
	*looks = inexact && bench->max_count_runs > bench->min_count_runs ? 2 : 1;
	return stored_up_to(req, kind, builds, ids,
			    *looks == 2 ? bench->max_count_runs : bench->min_count_runs, fresh, have,
			    nr, reused);
}

/* ---- Attribution: self instructions per function and per call path ---- */

/* How one side's function names are read: PLTs named, renamed functions paired. */
struct key_names {
	struct callgrind_plt plt;
	struct strmap renamed[2]; /* per side: the old (A) or new (B) name -> index */
	const struct renamed_fn *pairs;
	int side; /* of the run being read */
};

/*
 * The renamer of a counted run's callgrind files: PLT stubs as "memcpy@plt", and a function
 * the binary diff paired as renamed as "old -> new" on both sides, so that it is one entry.
 */
static void rename_counted(const struct callgrind_func_info *funcs, size_t nr_funcs,
			   const uint32_t (*calls)[2], size_t nr_calls, char **names, void *arg)
{
	struct key_names *kn = arg;
	const struct strmap *renamed = &kn->renamed[kn->side];

	callgrind_plt_rename(funcs, nr_funcs, calls, nr_calls, names, &kn->plt);
	for (size_t i = 0; renamed->nr && i < nr_funcs; i++) {
		const char *name = names[i] ? names[i] : funcs[i].name;
		size_t *k = strmap_get(renamed, name);
		struct strbuf sb = STRBUF_INIT;
		if (!k)
			continue;
		strbuf_addf(&sb, "%s -> %s", kn->pairs[*k].old_name, kn->pairs[*k].new_name);
		free(names[i]);
		names[i] = strbuf_detach(&sb);
	}
}

/* Adds one run's callgrind files (wrappers left out) to the attribution as one run. */
static int add_run(struct attribution_acc *acc, struct key_names *kn, int side, const char *dir,
		   const char *wrapper, size_t *wrappers, size_t *processes)
{
	struct callgrind_run_totals totals;
	struct cct *trees = NULL, *funcs = NULL;
	const struct cct **ptrs = NULL, **fptrs = NULL;
	size_t n = 0;
	int ret = callgrind_run_totals_read(dir, wrapper, &totals);

	*wrappers = *processes = 0;
	kn->side = side;
	if (!ret) {
		size_t k = totals.nr_procs ? totals.nr_procs : 1;
		trees = xcalloc(k, sizeof(*trees));
		funcs = xcalloc(k, sizeof(*funcs));
		ptrs = xcalloc(k, sizeof(*ptrs));
		fptrs = xcalloc(k, sizeof(*fptrs));
	}
	for (size_t i = 0; !ret && i < totals.nr_procs; i++) {
		if (totals.procs[i].wrapper) {
			(*wrappers)++;
			continue;
		}
		(*processes)++;
		/* Paths from the estimated call-path tree, functions as callgrind counted them. */
		ret = callgrind_read_renamed(totals.procs[i].file, "Ir", rename_counted, kn,
					     &trees[n], &funcs[n]);
		ptrs[n] = &trees[n];
		fptrs[n] = &funcs[n];
		n++;
	}
	if (!ret)
		ret = attribution_acc_add_run_funcs(acc, side, ptrs, n, fptrs, n);
	for (size_t i = 0; i < n; i++) {
		cct_release(&trees[i]);
		cct_release(&funcs[i]);
	}
	free(trees);
	free(funcs);
	free(ptrs);
	free(fptrs);
	callgrind_run_totals_release(&totals);
	return ret;
}

static void attribute(struct counted_attribution *a, const struct compare_request *req,
		      const struct bench_config *bench, struct store_profile *have[2],
		      const size_t nr[2], const struct renamed_fn *renamed, size_t nr_renamed)
{
	struct attribution_acc acc;
	struct key_names kn = {CALLGRIND_PLT_INIT, {STRMAP_INIT, STRMAP_INIT}, renamed, 0};
	bool added;
	int ret = 0;

	for (size_t i = 0; i < nr_renamed; i++) {
		strmap_put(&kn.renamed[0], renamed[i].old_name, i, &added);
		strmap_put(&kn.renamed[1], renamed[i].new_name, i, &added);
	}
	attribution_acc_init(&acc);
	for (int side = 0; side < 2 && !ret; side++) {
		const struct compare_side *s = side ? &req->b : &req->a;
		struct strbuf wrapper = STRBUF_INIT;
		bool shell = valgrind_wrapper(&wrapper, s->command ? s->command : bench->command);
		for (size_t i = 0; i < nr[side] && !ret; i++) {
			size_t wrappers, processes;
			ret = add_run(&acc, &kn, side, have[side][i].path,
				      shell ? wrapper.buf : NULL, &wrappers, &processes);
			if (!side && !i) {
				a->wrappers = wrappers;
				a->processes = processes;
			}
		}
		strbuf_release(&wrapper);
	}
	if (ret || attribution_acc_finish(&acc, req->cfg->alpha, COUNTED_TOP, &a->abs))
		a->attribution_error = xstrdup("the call graph of a counted run could not be read "
					       "(see the error above)");
	else
		a->have_abs = true;
	attribution_acc_release(&acc);
	callgrind_plt_release(&kn.plt);
	strmap_release(&kn.renamed[0]);
	strmap_release(&kn.renamed[1]);
}

int compare_counted(const struct compare_request *req, const struct bench_config *bench,
		    int64_t benchmark_id, int64_t machine_id, int64_t comparison_id,
		    ns_t timeout_ns, const struct counted_probe *probe,
		    struct metric_outcome *metrics, size_t nr_metrics,
		    const struct renamed_fn *renamed, size_t nr_renamed,
		    struct counted_attribution **out)
{
	struct counted_attribution *a = xcalloc(1, sizeof(*a));
	struct store_profile *have[2] = {NULL, NULL};
	size_t nr[2] = {0, 0}, looks = 1;
	int64_t ids[3] = {benchmark_id, machine_id, comparison_id};
	int64_t builds[2] = {req->a.build_id, req->b.build_id};
	struct counted_run_ctx ctx = {0};
	struct strbuf sb = STRBUF_INIT;
	struct timespec t0;
	bool inexact = false;
	int ret = 0;

	*out = a;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < nr_metrics; i++)
		if (metrics[i].def->flags & METRIC_CACHE_SIM)
			ctx.cache_sim = true;
	snprintf(a->kind, sizeof(a->kind), "%s", ctx.cache_sim ? "vg-cache" : "vg-ir");
	ctx.kind = a->kind;
	a->tolerance = bench->count_tolerance;
	ctx.timeout_ns = timeout_ns * (VALGRIND_SLOWDOWN / 10);
	ctx.probe = req->replay ? NULL : probe;
	strbuf_addf(&sb, "%s/%lld/", req->sd->profiles, (long long)comparison_id);
	fsutil_add_safe_name(&sb, bench->name);
	strbuf_addstr(&sb, "/counted");
	a->dir = strbuf_detach(&sb);
	if (req->replay) { /* revperf show: the stored runs judged again, nothing run */
		if ((ret = replay_counted(req, bench, a->kind, builds, ids, metrics, nr_metrics,
					  have, nr, a->reused, &looks)) ||
		    (ret = replay_failed(req, a->kind, ids, &ctx, a->failed)))
			goto out;
		goto judge;
	}
	if (mkdir_p(a->dir)) {
		ret = RP_EINTERNAL;
		goto out;
	}
	ret = compare_collect_profiles(req, bench, a->kind, bench->min_count_runs, builds, ids,
				       a->dir, count_once, &ctx, a->reused, a->failed, have, nr);
	if (ret == RP_EINPUT && ctx.probe_timed_out)
		goto probe_timed_out;
	if (ret || (ret = any_inexact(req, have, nr, metrics, nr_metrics, &inexact)))
		goto out;
	if (!inexact && (ret = stored_inexact(req, a->kind, builds, ids, metrics, nr_metrics,
					      &inexact)))
		goto out;
	if (inexact && bench->max_count_runs > bench->min_count_runs) {
		size_t failed[2] = {a->failed[0], a->failed[1]};
		for (int side = 0; side < 2; side++)
			ctx.first_look_runs[side] = nr[side] - a->reused[side] + failed[side];
		store_profiles_free(have[0], nr[0]);
		store_profiles_free(have[1], nr[1]);
		have[0] = have[1] = NULL;
		looks = 2;
		/* The first look's runs are stored: the second takes them again, and a->reused
		 * becomes what it takes from earlier comparisons (more than the first look's
		 * newest MIN when they ran more). */
		ret = compare_collect_profiles(req, bench, a->kind, bench->max_count_runs, builds,
					       ids, a->dir, count_once, &ctx, a->reused, a->failed,
					       have, nr);
		if (ret == RP_EINPUT && ctx.probe_timed_out)
			goto probe_timed_out;
		if (ret)
			goto out;
		a->failed[0] += failed[0];
		a->failed[1] += failed[1];
	}
judge:
	a->runs[0] = nr[0];
	a->runs[1] = nr[1];
	for (size_t i = 0; i < nr_metrics; i++)
		if ((metrics[i].def->flags & METRIC_COUNTED) &&
		    (ret = decide(req, bench, have, nr, looks, &metrics[i])))
			goto out;
	if (nr[0] < 2 || nr[1] < 2) {
		strbuf_addf(&sb, "too few successful counted runs (%zu + %zu, %zu + %zu failed)",
			    nr[0], nr[1], a->failed[0], a->failed[1]);
		if (ctx.first_failure)
			strbuf_addf(&sb, "; the first: %s", ctx.first_failure);
		else
			strbuf_addf(&sb, "; see the logs under %s", a->dir);
		strbuf_addstr(&sb,
			      "; if valgrind cannot run this program, drop the counted metrics "
			      "from its metrics and primary");
		a->error = strbuf_detach(&sb);
		goto out;
	}
	attribute(a, req, bench, have, nr, renamed, nr_renamed);
	/* The same runs serve the predictor (predict, train) when it has nothing yet. */
	for (int side = 0; req->a.sha && !req->replay && side < 2; side++)
		if (predict_dynamic_save_callgrind(req->st, builds[side], benchmark_id,
						   have[side][0].path, true) < 0)
			warning("the dynamic data of side %c was not stored for the predictor",
				side ? 'B' : 'A');
	goto out;
probe_timed_out:
	a->error = xstrdup("no counted run was made: the run without valgrind that sets their "
			   "timeout timed out (see the benchmark's error)");
	ret = 0;
out:
	if (!req->replay) /* what the counted phase took, runs and reading them */
		a->elapsed_s = bench_seconds_since(&t0);
	/* Stopped before the verdict (an interrupt): the runs made and stored so far, which
	 * the same command reuses (they said "0 + 0" where the next compare reused 1 + 0) */
	if (ret && !a->runs[0] && !a->runs[1]) {
		a->runs[0] = nr[0];
		a->runs[1] = nr[1];
	}
	free(ctx.first_failure);
	store_profiles_free(have[0], nr[0]);
	store_profiles_free(have[1], nr[1]);
	strbuf_release(&sb);
	return ret;
}
