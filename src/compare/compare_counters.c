/* profile = counters: control charts of the sampled timing runs (docs/counters.md). */
#include "compare/compare_counters.h"

#include <stdio.h>
#include <string.h>

#include "analysis/counters_chart.h"
#include "util/fsutil.h"
#include "util/common.h"
#include "util/units.h"

void counters_attribution_free(struct counters_attribution *a)
{
	if (!a)
		return;
	cchart_result_release(&a->res);
	cchart_input_release(&a->in);
	free(a->error);
	free(a->svg_dir);
	free(a->chart_dir);
	free(a);
}

int compare_counters(const struct compare_request *req, const struct bench_config *bench,
		     const struct store_run_filter filter[2], int64_t comparison_id,
		     struct counters_attribution **out)
{
	struct counters_attribution *a = xcalloc(1, sizeof(*a));
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	*out = a;
	a->labels[0] = req->a.label;
	a->labels[1] = req->b.label;
	cchart_input_init(&a->in);
	for (int side = 0; side < 2 && !a->error; side++) {
		struct store_counter_run *runs = NULL;
		size_t n = 0;
		if ((ret = store_run_counters(req->st, &filter[side], &runs, &n)))
			goto out;
		a->runs[side] = n;
		for (size_t i = 0; i < n && !a->error; i++) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "%s run %lld", side ? "target" : "baseline",
				    (long long)runs[i].run_id);
			if (counters_input_add(&a->in, side ? CCHART_TARGET : CCHART_BASELINE,
					       sb.buf, &runs[i].samples))
				a->error = xstrdup("a sampled series was refused (see the error "
						   "above)");
		}
		store_counter_runs_free(runs, n);
		if (!n && !a->error) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "no sampled run of side %c", side ? 'B' : 'A');
			a->error = strbuf_detach(&sb);
		}
	}
	if (a->error)
		goto out;
	if (cchart_analyze(&a->in, NULL, &a->res)) {
		a->error =
		    xstrdup("the control charts could not be computed (see the error above)");
		goto out;
	}
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s/%lld/", req->sd->profiles, (long long)comparison_id);
	fsutil_add_safe_name(&sb, bench->name);
	strbuf_addstr(&sb, "/charts");
	a->chart_dir = strbuf_detach(&sb);
	if (mkdir_own(req->sd->root, a->chart_dir))
		a->error = xstrdup("the control charts have no directory (see the error above)");
out:
	strbuf_release(&sb);
	return ret;
}

int compare_counters_of_revision(struct store *st, struct repo *repo, const char *expr,
				 const char *bench, struct cchart_input *in, enum cchart_side side,
				 struct strbuf *what)
{
	struct revision rev = {0};
	struct store_counter_run *runs = NULL;
	size_t n = 0;
	struct strbuf name = STRBUF_INIT;
	int err;

	if ((err = repo_resolve(repo, expr, &rev)))
		return err;
	err = store_counter_runs_of_revision(st, rev.sha, bench, &runs, &n);
	if (!err && !n) {
		error("no sampled run of benchmark '%s' at %s (%.12s): run `revperf compare` "
		      "with profile = counters first",
		      bench, expr, rev.sha);
		err = RP_EINPUT;
	}
	for (size_t i = 0; i < n && !err; i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "%s run %lld", expr, (long long)runs[i].run_id);
		err = counters_input_add(in, side, name.buf, &runs[i].samples);
	}
	strbuf_addf(what, "%s (%.12s, %zu %s)", expr, rev.sha, n, units_noun(n, "run", "runs"));
	strbuf_release(&name);
	store_counter_runs_free(runs, n);
	revision_release(&rev);
	return err;
}
