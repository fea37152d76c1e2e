/*
 * profile = sample: sampled runs of the timing builds after the timing runs, and the
 * attribution of their on-CPU time (compare/compare_sample.h, docs/sampling.md).
 */
#include "compare/compare_sample.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/perf_sample.h"
#include "profile/sample_build.h"
#include "profile/sample_file.h"
#include "util/fsutil.h"
#include "util/common.h"

/* Sampled runs are barely slower than timing runs; a generous default all the same. */
#define SAMPLE_TIMEOUT_NS (600LL * 1000000000LL)

/* One sampled run of a side: dir/<A|B>-<seq>.sample and .log, recorded in the store. */
static int sample_once(const struct compare_request *req, const struct bench_config *bench,
		       int side, size_t seq, const int64_t ids[3], const char *dir, void *arg,
		       struct store_profile *p)
{
	const struct compare_side *s = side ? &req->b : &req->a;
	struct strbuf path = STRBUF_INIT, log = STRBUF_INIT, raw = STRBUF_INIT, why = STRBUF_INIT;
	struct perf_sample_options so;
	struct perf_sample_stats st;
	struct proc_spec spec = {0};
	struct proc_result res;
	struct sample_build_options bo = {0};
	struct sample_profile prof = {0};
	int ret;

	UNUSED(arg);
	strbuf_addf(&path, "%s/%c-%zu.sample", dir, side ? 'B' : 'A', seq);
	strbuf_addf(&log, "%s/%c-%zu.log", dir, side ? 'B' : 'A', seq);
	strbuf_addf(&raw, "%s/%c-%zu.raw", dir, side ? 'B' : 'A', seq);
	memset(p, 0, sizeof(*p));
	spec.command = s->command ? s->command : bench->command;
	spec.cwd = s->cwd; /* the timing build: the build that is measured is profiled */
	spec.log_path = log.buf;
	spec.log_limit_bytes = bench->log_limit_bytes;
	spec.discard_stdout = bench->discard_stdout; /* output = discard, as its timing runs */
	spec.timeout_ns = bench->timeout_ns ? bench->timeout_ns : SAMPLE_TIMEOUT_NS;
	perf_sample_options_init(&so);
	so.frequency_hz = bench->sample_frequency_hz;
	so.callgraph = (enum perf_sample_callgraph)bench->sample_call_graph;
	if (so.callgraph == PERF_SAMPLE_CALLGRAPH_AUTO)
		so.callgraph = perf_sample_choose(spec.command, spec.cwd, &why);
	else
		strbuf_addstr(&why, "sample-call-graph");
	p->started_at = (int64_t)time(NULL);
	ret = perf_sample_run(&spec, &so, raw.buf, &res, &st);
	if (ret) {
		ret = ret == RP_EINPUT ? RP_EINPUT : RP_EINTERNAL;
		goto out;
	}
	if (res.status == RUN_INTERRUPTED) {
		ret = RP_EINTERRUPT;
		goto out;
	}
	if (res.status == RUN_OK) {
		bo.command = spec.command;
		bo.callgraph_why = why.buf;
		bo.wall_ns = (uint64_t)res.m.wall_ns;
		bo.user_ns = (uint64_t)res.m.user_ns;
		bo.sys_ns = (uint64_t)res.m.sys_ns;
		if ((ret = sample_build(raw.buf, &bo, &prof)) ||
		    (ret = sample_profile_save(&prof, path.buf))) {
			ret = RP_EINTERNAL;
			goto out;
		}
	}
	ret = compare_profile_record(req, p, "sample", s->build_id, ids, res.status, res.detail,
				     &path, &log);
out:
	unlink(raw.buf); /* the stack copies: large, and unwound now */
	sample_profile_release(&prof);
	strbuf_release(&path);
	strbuf_release(&log);
	strbuf_release(&raw);
	strbuf_release(&why);
	return ret;
}

/* The sampled runs' own account: on-CPU time per run, the call graph, and the notes. */
static void sample_loaded(struct cct_attribution *a, const struct store_profile *const have[2],
			  const size_t nr[2], void *arg)
{
	struct strbuf notes = STRBUF_INIT;

	UNUSED(arg);
	for (int side = 0; side < 2; side++) {
		struct strbuf seen = STRBUF_INIT;
		double sum = 0;

		for (size_t i = 0; i < nr[side]; i++) {
			struct sample_profile sp;
			struct strbuf n = STRBUF_INIT;

			if (sample_profile_read(have[side][i].path, &sp))
				continue; /* loaded once already: cannot fail but by a race */
			for (size_t t = 0; t < sp.nr_threads; t++)
				sum += sp.threads[t].weight;
			snprintf(a->callgraph[side], sizeof(a->callgraph[side]), "%s",
				 sp.callgraph);
			sample_profile_notes(&sp, &n);
			/* Each kind of note once per side, from its first run. */
			for (const char *l = n.buf; *l;) {
				const char *nl = strchr(l, '\n');
				struct strbuf one = STRBUF_INIT;
				strbuf_add(&one, l, (size_t)(nl - l));
				if (!strstr(seen.buf, one.buf)) {
					strbuf_addf(&notes, "side %c, run %zu: %s\n",
						    side ? 'B' : 'A', i + 1, one.buf);
					strbuf_addf(&seen, "%s\n", one.buf);
				}
				strbuf_release(&one);
				l = nl + 1;
			}
			strbuf_release(&n);
			sample_profile_release(&sp);
		}
		a->on_cpu_ns[side] = nr[side] ? sum / (double)nr[side] : 0;
		strbuf_release(&seen);
	}
	a->notes = notes.len ? strbuf_detach(&notes) : NULL;
	strbuf_release(&notes);
}

int compare_profile_sample(const struct compare_request *req, const struct bench_config *bench,
			   int64_t benchmark_id, int64_t machine_id, int64_t comparison_id,
			   struct cct_attribution **out)
{
	const int64_t ids[3] = {benchmark_id, machine_id, comparison_id};
	const struct compare_attribution_kind k = {
	    .kind = "sample",
	    .format = PROFILE_FORMAT_SAMPLE,
	    .builds = {req->a.build_id, req->b.build_id},
	    .run = sample_once,
	    .what = "sampled",
	    .refused = "sampling is refused here (see the error above); the verdict stands",
	    .unreadable_hint = "",
	    .empty_what = "no sample",
	    .empty_hint = "the benchmark ran less than one sampling period in user space; raise "
			  "sample-frequency",
	    .loaded = sample_loaded,
	};
	return compare_attribute(req, bench, ids, &k, out);
}
