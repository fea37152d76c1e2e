#include "compare/compare_profile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "binary/bindiff.h"
#include "binary/symbolize.h"
#include "collect/cct_run.h"
#include "util/fsutil.h"
#include "predict/predict.h"
#include "profile/profile_load.h"
#include "util/common.h"

/* Profiled runs are slower than timing runs (every call is hooked): a generous default. */
#define PROFILE_TIMEOUT_NS (600LL * 1000000000LL)

void cct_attribution_free(struct cct_attribution *a)
{
	if (!a)
		return;
	cct_diff_release(&a->diff);
	cct_release(&a->trees[0]);
	cct_release(&a->trees[1]);
	cct_changes_release(&a->changes);
	attribution_release(&a->absolute);
	free(a->absolute_note);
	free(a->error);
	free(a->bindiff_note);
	free(a->svg_path);
	free(a->dir);
	free(a->notes);
	free(a);
}

static const struct compare_side *side_of(const struct compare_request *req, int side)
{
	return side ? &req->b : &req->a;
}

/* One profiled run of a side into dir/<A|B>-<seq>/, recorded in the store. */
static int profile_once(const struct compare_request *req, const struct bench_config *bench,
			int side, size_t seq, const int64_t ids[3], const char *dir, void *arg,
			struct store_profile *p)
{
	const struct compare_side *s = side_of(req, side);
	(void)arg;
	struct strbuf run_dir = STRBUF_INIT, log = STRBUF_INIT;
	struct proc_spec spec = { 0 };
	struct proc_result res;
	int ret;

	strbuf_addf(&run_dir, "%s/%c-%zu", dir, side ? 'B' : 'A', seq);
	strbuf_addf(&log, "%s.log", run_dir.buf);
	if (remove_tree(run_dir.buf) || mkdir_own(req->sd->root, run_dir.buf)) {
		ret = RP_EINTERNAL;
		goto out;
	}
	spec.command = s->command ? s->command : bench->command;
	spec.cwd = s->profile_cwd;
	spec.log_path = log.buf;
	spec.log_limit_bytes = bench->log_limit_bytes;
	spec.discard_stdout = bench->discard_stdout;
	spec.timeout_ns = bench->timeout_ns ? bench->timeout_ns : PROFILE_TIMEOUT_NS;
	memset(p, 0, sizeof(*p));
	p->started_at = (int64_t)time(NULL);
	if ((ret = cct_run(&spec, run_dir.buf, &res)))
		goto out;
	if (res.status == RUN_INTERRUPTED) {
		ret = RP_EINTERRUPT;
		goto out;
	}
	ret = compare_profile_record(req, p, "cct", s->profile_build_id, ids, res.status,
				     res.detail, &run_dir, &log);
out:
	strbuf_release(&run_dir);
	strbuf_release(&log);
	return ret;
}

int compare_profile_record(const struct compare_request *req, struct store_profile *p,
			   const char *kind, int64_t build_id, const int64_t ids[3],
			   enum run_status status, const char *detail, struct strbuf *path,
			   struct strbuf *log)
{
	p->build_id = build_id;
	p->benchmark_id = ids[0];
	p->machine_id = ids[1];
	p->comparison_id = ids[2];
	snprintf(p->kind, sizeof(p->kind), "%s", kind);
	p->status = status;
	p->detail = status == RUN_OK ? NULL : xstrdup(detail);
	p->path = strbuf_detach(path);
	p->log_path = strbuf_detach(log);
	{
		/* The run may have deleted or overwritten the database. */
		struct strbuf what = STRBUF_INIT;
		int bad;
		strbuf_addf(&what, "a profiled run (%s) of %s", kind, p->path);
		bad = store_check_files(req->st, what.buf);
		strbuf_release(&what);
		if (bad)
			return RP_EINTERNAL;
	}
	return store_profile_add(req->st, p);
}

/* Drops from p[0..*n) the profiles of comparisons other than comparison_id. */
static void keep_own(struct store_profile *p, size_t *n, int64_t comparison_id)
{
	size_t kept = 0;
	for (size_t i = 0; i < *n; i++) {
		if (p[i].comparison_id == comparison_id) {
			p[kept++] = p[i];
			continue;
		}
		free(p[i].detail);
		free(p[i].path);
		free(p[i].log_path);
	}
	*n = kept;
}

int compare_collect_profiles(const struct compare_request *req, const struct bench_config *bench,
			     const char *kind, size_t want, const int64_t build_ids[2],
			     const int64_t ids[3], const char *dir, compare_profile_run_fn run,
			     void *arg, size_t reused[2], size_t failed[2],
			     struct store_profile *have[2], size_t nr[2])
{
	size_t seq[2] = { 0, 0 };
	bool more = true;
	int ret;

	for (int side = 0; side < 2; side++) {
		have[side] = NULL;
		nr[side] = 0;
		failed[side] = 0;
		if (store_profiles_find(req->st, build_ids[side], ids[0], ids[1], kind, &have[side],
					&nr[side]))
			return RP_EINTERNAL;
		if (req->fresh) /* this comparison's own only (a second look's first look) */
			keep_own(have[side], &nr[side], ids[2]);
		/* The newest ones when there are more than wanted. */
		if (nr[side] > want) {
			size_t drop = nr[side] - want;
			for (size_t i = 0; i < drop; i++) {
				free(have[side][i].detail);
				free(have[side][i].path);
				free(have[side][i].log_path);
			}
			memmove(have[side], have[side] + drop, want * sizeof(*have[side]));
			nr[side] = want;
		}
		reused[side] = 0;
		for (size_t i = 0; i < nr[side]; i++)
			reused[side] += have[side][i].comparison_id != ids[2];
	}
	while (more) {
		more = false;
		for (int side = 0; side < 2; side++) {
			struct store_profile p;
			/* A side that failed as often as it should run keeps failing: stop. */
			if (nr[side] >= want || failed[side] >= want)
				continue;
			ret = run(req, bench, side, seq[side]++, ids, dir, arg, &p);
			if (ret)
				return ret;
			more = true;
			if (p.status != RUN_OK) {
				failed[side]++;
				free(p.detail);
				free(p.path);
				free(p.log_path);
				continue;
			}
			have[side] = xrealloc(have[side], (nr[side] + 1) * sizeof(*have[side]));
			have[side][nr[side]++] = p;
		}
	}
	return 0;
}

/* Loads each run of a side; *src describes the first. Returns 0 or RP_EINPUT. */
static int load_runs(const struct store_profile *runs, size_t n, enum profile_format format,
		     struct symbolizer *sym, struct cct *trees, struct profile_source *src)
{
	struct profile_load_options lo = { .format = format, .sym = sym };
	for (size_t i = 0; i < n; i++) {
		struct profile_source s;
		int ret = profile_load(runs[i].path, &lo, &trees[i], i ? &s : src);
		if (ret) {
			for (size_t j = 0; j <= i; j++)
				cct_release(&trees[j]);
			return ret;
		}
	}
	return 0;
}

/* Stages 1 and 2 need the binary diff of the two programs that were profiled. */
static void add_bindiff(struct cct_attribution *a)
{
	struct bindiff bd;
	struct strbuf why = STRBUF_INIT;
	if (!a->exe[0][0] || !a->exe[1][0]) {
		a->bindiff_note = xstrdup("the profiles do not name their program");
		return;
	}
	if (!path_exists(a->exe[0]) || !path_exists(a->exe[1])) {
		strbuf_addf(&why, "%s no longer exists", path_exists(a->exe[0]) ? a->exe[1]
									 : a->exe[0]);
		a->bindiff_note = strbuf_detach(&why);
		return;
	}
	memset(&bd, 0, sizeof(bd));
	if (bindiff_files(a->exe[0], a->exe[1], 0, &bd)) {
		strbuf_addf(&why, "the binary diff of %s and %s failed (see the error above)",
			    a->exe[0], a->exe[1]);
		a->bindiff_note = strbuf_detach(&why);
		return;
	}
	cct_diff_changes_from_bindiff(&bd, &a->changes);
	bindiff_release(&bd);
	a->have_bindiff = true;
}

int compare_attribute(const struct compare_request *req, const struct bench_config *bench,
		      const int64_t ids[3], const struct compare_attribution_kind *k,
		      struct cct_attribution **out)
{
	struct cct_attribution *a = xcalloc(1, sizeof(*a));
	struct store_profile *have[2] = { NULL, NULL };
	size_t nr[2] = { 0, 0 };
	struct cct *runs[2] = { NULL, NULL };
	const struct cct **ptrs[2] = { NULL, NULL };
	struct symbolizer *sym = NULL;
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	*out = a;
	a->labels[0] = req->a.label;
	a->labels[1] = req->b.label;
	a->sampled = k->format == PROFILE_FORMAT_SAMPLE;
	cct_changes_init(&a->changes);
	strbuf_addf(&sb, "%s/%lld/", req->sd->profiles, (long long)ids[2]);
	fsutil_add_safe_name(&sb, bench->name);
	a->dir = strbuf_detach(&sb);
	if (mkdir_own(req->sd->root, a->dir)) {
		ret = RP_EINTERNAL;
		goto out;
	}
	ret = compare_collect_profiles(req, bench, k->kind, bench->profile_runs, k->builds, ids,
				       a->dir, k->run, k->arg, a->reused, a->failed, have, nr);
	if (ret == RP_EINPUT && k->refused) {
		/* Refused here (error printed): the verdict stands without the attribution. */
		a->error = xstrdup(k->refused);
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;
	if ((a->error = compare_profiles_missing(nr, a->failed, k->what, a->dir)))
		goto out;
	sym = symbolizer_new();
	for (int side = 0; side < 2; side++) {
		struct profile_source src;
		ptrs[side] = xcalloc(nr[side], sizeof(*ptrs[side]));
		runs[side] = xcalloc(nr[side], sizeof(*runs[side]));
		if (load_runs(have[side], nr[side], k->format, sym, runs[side], &src)) {
			free(runs[side]);
			runs[side] = NULL;
			strbuf_addf(&sb, "the profiles of side %c cannot be read (see the error "
					 "above)%s",
				    side ? 'B' : 'A', k->unreadable_hint);
			a->error = strbuf_detach(&sb);
			goto out;
		}
		snprintf(a->exe[side], sizeof(a->exe[side]), "%s", src.exe);
		if (runs[side][0].nr_nodes <= 1) {
			strbuf_addf(&sb, "%s in the %s runs of side %c: %s", k->empty_what,
				    k->what, side ? 'B' : 'A', k->empty_hint);
			a->error = strbuf_detach(&sb);
			goto out;
		}
		for (size_t i = 0; i < nr[side]; i++)
			ptrs[side][i] = &runs[side][i];
		/* The predictor's dynamic data of the (normal) build of a revision, unless stored
		 * already (callgrind data, an earlier compare): one run's calls and self time per
		 * function. Sampled runs are of that build itself; their trees count no calls
		 * (calls_known false): the predictor stores their self time alone and ranks
		 * its call templates by it (predict/predict_dynamic.c). */
		if (req->a.sha &&
		    predict_dynamic_save_cct(req->st, side ? req->b.build_id : req->a.build_id,
					     ids[0], &runs[side][0], src.calls_only, a->dir,
					     true) < 0)
			warning("the dynamic data of side %c was not stored for the predictor",
				side ? 'B' : 'A');
	}
	if (k->loaded)
		k->loaded(a, (const struct store_profile *const *)have, nr, k->arg);
	{
		const struct cct *const *view[2] = { ptrs[0], ptrs[1] };
		ret = compare_profile_attribute(req, a, view, nr);
	}
out:
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; runs[side] && i < nr[side]; i++)
			cct_release(&runs[side][i]);
		free(runs[side]);
		free(ptrs[side]);
		store_profiles_free(have[side], nr[side]);
	}
	symbolizer_free(sym);
	strbuf_release(&sb);
	return ret;
}

int compare_profile_attribute(const struct compare_request *req, struct cct_attribution *a,
			      const struct cct *const *runs[2], const size_t nr[2])
{
	struct cct_diff_options opts = { .threshold = 100, .max_pairs = 20 };
	struct strbuf sb = STRBUF_INIT;

	for (int side = 0; side < 2; side++) {
		if (cct_merge(runs[side], nr[side], &a->trees[side])) {
			a->error = xstrdup("the profiled runs cannot be merged (see the error above)");
			return 0;
		}
		a->runs[side] = nr[side];
	}
	/* The noise floor: how far two runs of the same target build already differ. */
	if (nr[1] >= 2) {
		opts.threshold = cct_overlap(runs[1][0], runs[1][1]);
		a->threshold_from_runs = true;
	}
	a->threshold = opts.threshold;
	add_bindiff(a);
	a->diffed = !cct_diff_compute(&a->trees[0], &a->trees[1],
				      a->have_bindiff ? &a->changes : NULL, &opts, &a->diff);
	/* The absolute change per function and call path, judged against the runs' spread. */
	if (!cct_same_weight(&a->trees[0], &a->trees[1])) {
		strbuf_addf(&sb, "side A weighs %s%s, side B %s%s",
			    cct_weight_name(a->trees[0].weight), a->trees[0].weight_event,
			    cct_weight_name(a->trees[1].weight), a->trees[1].weight_event);
		a->absolute_note = strbuf_detach(&sb);
	} else if (attribution_of_runs(runs, nr, req->cfg->alpha, ATTRIBUTION_TOP,
				       &a->absolute)) {
		a->absolute_note = xstrdup("the runs could not be added up (see the error above)");
	} else {
		a->have_absolute = true;
	}
	return 0;
}

int compare_profile_cct(const struct compare_request *req, const struct bench_config *bench,
			int64_t benchmark_id, int64_t machine_id, int64_t comparison_id,
			struct cct_attribution **out)
{
	const int64_t ids[3] = { benchmark_id, machine_id, comparison_id };
	const struct compare_attribution_kind k = {
		.kind = "cct",
		.format = PROFILE_FORMAT_CCT,
		.builds = { req->a.profile_build_id, req->b.profile_build_id },
		.run = profile_once,
		.what = "profiled",
		.unreadable_hint = "; is the profile build compiled with -finstrument-functions?",
		.empty_what = "no instrumented function ran",
		.empty_hint = "does [build] profile-command compile with -finstrument-functions?",
	};
	return compare_attribute(req, bench, ids, &k, out);
}

char *compare_profiles_missing(const size_t nr[2], const size_t failed[2], const char *what,
			       const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	for (int side = 0; side < 2; side++) {
		if (nr[side])
			continue;
		strbuf_addf(&sb, "no successful %s run of side %c (%zu failed; logs in %s)", what,
			    side ? 'B' : 'A', failed[side], dir);
		return strbuf_detach(&sb);
	}
	return NULL;
}
