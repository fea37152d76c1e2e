/* One run of a benchmark's side: submitted to the spawner, measured, stored as it ends. */
#include "compare/compare_run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "collect/machine.h"
#include "collect/proc.h"
#include "collect/sampler.h"
#include "compare/gbench.h"
#include "compare/run_output.h"
#include "util/common.h"

/* A run from its submission to its storing. */
struct run_slot {
	int side;
	bool warmup;
	bool sampled;
	size_t seq;	  /* of its side, for the log header and messages */
	int64_t pair_seq; /* 0 for warm-ups */
	struct strbuf log, header, gbench_out, command;
	struct proc_spec spec;
	struct proc_handle *h; /* NULL once finished */
	struct run_samples samples;
	int64_t started_at;
	double loadavg;
};

double bench_seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void progress(const struct bench_ctx *c, int side, bool warmup)
{
	struct compare_progress ev = {0};
	size_t done, total;
	if (!c->req->progress)
		return;
	ev.phase = warmup ? COMPARE_WARMUP : COMPARE_RUN;
	ev.bench = c->out->name;
	ev.side = side ? 'B' : 'A';
	ev.elapsed_s = bench_seconds_since(&c->started);
	ev.run = bench_planned_ok(c, side) + 1; /* the one in flight counted */
	ev.max_runs = c->planned_max;
	done = c->out->ok_a + c->out->ok_b + c->out->failed_a + c->out->failed_b;
	total = 2 * c->planned_max;
	ev.eta_s =
	    done > 0 ? ev.elapsed_s / (double)done * (double)(total > done ? total - done : 0) : -1;
	c->req->progress(c->req->progress_arg, &ev);
}

void compare_progress_phase(const struct compare_request *req, enum compare_phase phase,
			    const char *bench, size_t runs)
{
	struct compare_progress ev = {0};
	if (!req->progress)
		return;
	ev.phase = phase;
	ev.bench = bench;
	ev.max_runs = runs;
	ev.eta_s = -1;
	req->progress(req->progress_arg, &ev);
}

ns_t bench_run_timeout(struct bench_ctx *c)
{
	double *v = NULL, med;
	size_t n = 0;
	if (c->bench->timeout_ns)
		return c->bench->timeout_ns;
	if (store_run_values(c->req->st, &c->filter[0], "wall", &v, &n) || n == 0) {
		free(v);
		return FIRST_RUN_TIMEOUT_NS;
	}
	med = stats_percentile(v, n, 50.0);
	free(v);
	return run_timeout_from((ns_t)(med * 1e9));
}

size_t bench_planned_ok(const struct bench_ctx *c, int side)
{
	size_t ok = side ? c->out->ok_b : c->out->ok_a;
	const struct run_slot *f = c->inflight;
	return ok + (f && !f->warmup && f->side == side);
}

static void slot_free(struct run_slot *r)
{
	if (!r)
		return;
	proc_abandon(r->h);
	run_samples_release(&r->samples);
	strbuf_release(&r->log);
	strbuf_release(&r->header);
	strbuf_release(&r->gbench_out);
	strbuf_release(&r->command);
	free(r);
}

/* Builds a run of side and submits it. Returns the slot, or NULL after an error line. */
static struct run_slot *run_submit(struct bench_ctx *c, int side, bool warmup)
{
	const struct compare_side *s = bench_side(c, side);
	struct run_slot *r = xcalloc(1, sizeof(*r));

	r->side = side;
	r->warmup = warmup;
	r->sampled = (c->bench->profiles & PROFILE_COUNTERS) && !warmup;
	r->seq = ++c->seq[side];
	r->pair_seq = warmup ? 0 : c->pair_seq;
	strbuf_init(&r->log);
	strbuf_init(&r->header);
	strbuf_init(&r->gbench_out);
	strbuf_init(&r->command);
	run_samples_init(&r->samples);
	strbuf_addf(&r->log, "%s%c.log", c->log_prefix, side ? 'B' : 'A');
	strbuf_addf(&r->header, "==> %s run %zu%s (%s) <==\n", side ? "target" : "baseline", r->seq,
		    warmup ? ", warm-up" : "", s->label);
	r->spec.command = s->command ? s->command : c->bench->command;
	if (c->bench->nr_case_defs) {
		/* a Google Benchmark case: its JSON next to the side's log, read after the run */
		strbuf_addf(&r->gbench_out, "%sgbench.json", c->log_prefix);
		unlink(r->gbench_out.buf);
		strbuf_addf(&r->command, "%s --benchmark_out='%s' --benchmark_out_format=json",
			    r->spec.command, r->gbench_out.buf);
		r->spec.command = r->command.buf;
	}
	r->spec.cwd = s->cwd;
	r->spec.log_path = r->log.buf;
	r->spec.log_header = r->header.buf;
	r->spec.log_limit_bytes = c->bench->log_limit_bytes;
	r->spec.discard_stdout = c->bench->discard_stdout;
	r->spec.timeout_ns = c->timeout_ns;
	r->spec.perf_counters = c->want_perf;
	r->spec.no_io = !c->want_io;
	if (r->sampled) {
		/* profile = counters: the timing runs themselves are sampled (a /proc scan per
		 * interval, docs/counters.md), so the charts describe the runs the verdict uses. */
		r->spec.sample_interval_ns = c->bench->sample_interval_ns;
		r->spec.samples = &r->samples;
	}
	progress(c, side, warmup);
	r->started_at = (int64_t)time(NULL);
	r->loadavg = machine_loadavg1_fd(c->loadavg_fd);
	r->h = proc_submit(&r->spec);
	if (!r->h) {
		slot_free(r);
		return NULL;
	}
	return r;
}

/* Why a side keeps failing, for the benchmark's error message. */
static void set_failure(struct bench_ctx *c, int side)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb,
		    "%zu consecutive runs failed on side %c (%s); see the logs under %s/%lld/",
		    c->consecutive_failures[side], side ? 'B' : 'A', bench_side(c, side)->label,
		    c->req->sd->run_logs, (long long)c->comparison_id);
	free(c->out->error);
	c->out->error = strbuf_detach(&sb);
	/*
	 * The target breaking where the baseline works is itself a regression: the baseline's
	 * last run in this comparison succeeded, not merely none failed (it may not have run:
	 * the run behind a failed one is cancelled; both sides failing read as a broken target
	 * in 1 of 12 `--cmd-a false --cmd-b false` before bench_run_next() stopped looking
	 * ahead behind failures).
	 */
	c->out->target_broken =
	    side == 1 && c->consecutive_failures[0] == 0 && c->have_ok_output[0];
}

/*
 * The metrics of a successful run, from its measurements and its output (have_output: read
 * into output).
 */
static void run_values(struct bench_ctx *c, struct run_slot *r, const struct proc_result *res,
		       const struct strbuf *output, bool have_output, const char **names,
		       double *values, size_t *nv, struct strbuf *detail)
{
	size_t i;
	for (i = 0; i < c->nr_defs; i++) {
		double v;
		if (!strcmp(c->defs[i]->name, "iteration"))
			continue;
		if (metric_value(c->defs[i], &res->m, &v)) {
			names[*nv] = c->defs[i]->name;
			values[(*nv)++] = v;
		}
	}
	if (c->bench->nr_case_defs)
		gbench_values(c->bench, r->gbench_out.buf, names, values, nv, detail);
	for (i = 0; have_output && i < c->bench->nr_reported; i++) {
		double v;
		if (run_output_reported(&c->bench->reported[i], output->buf, &v, detail)) {
			names[*nv] = c->bench->reported[i].def->name;
			values[(*nv)++] = v;
		}
	}
	if (c->want_iterations) {
		double v;
		bool steady;
		bool found = have_output && run_output_iterations(output->buf, &v, &steady);
		if (found) {
			names[*nv] = "iteration";
			values[(*nv)++] = v;
			if (!steady)
				strbuf_addf(detail,
					    "%siterations never reached a steady "
					    "state (CV of 5 consecutive >= 2%%)",
					    detail->len ? "; " : "");
		} else {
			strbuf_addf(detail, "%sno revperf-iteration lines in its output",
				    detail->len ? "; " : "");
		}
	}
}

/*
 * Finishes the run r and stores it (a cancelled run is dropped: it never happened), then
 * frees r. behind: a run was submitted behind r (lookahead), which the spawner starts when
 * r exits with status 0. Returns as bench_run_next().
 */
static int run_complete(struct bench_ctx *c, struct run_slot *r, bool behind, bool *stop)
{
	const struct compare_side *s = bench_side(c, r->side);
	struct proc_result res;
	struct store_run run = {0};
	struct strbuf detail = STRBUF_INIT, what = STRBUF_INIT;
	struct strbuf output = STRBUF_INIT; /* the run's output: its slice of the side's log */
	bool have_output;
	const char **names = xcalloc(c->nr_defs, sizeof(*names));
	double *values = xcalloc(c->nr_defs, sizeof(*values));
	int64_t log_length;
	size_t nv = 0;
	int side = r->side, ret = RP_EINTERNAL, finished = proc_finish(r->h, &res);

	r->h = NULL;
	if (finished)
		goto out;
	if (res.cancelled) {
		/* Its number goes to the next run of the side (nothing was submitted since). */
		c->seq[side]--;
		ret = 0;
		goto out;
	}
	/*
	 * The run may have deleted or overwritten the database: then nothing more is stored
	 * in a file that is gone. The run behind it runs by now (it started at this one's
	 * exit 0), so it may have been that one.
	 */
	strbuf_addf(&what, "run %zu of benchmark '%s' (side %c)%s", r->seq, c->bench->name,
		    side ? 'B' : 'A',
		    behind && res.status == RUN_OK ? " or the run that started at its end" : "");
	if (store_check_files(c->req->st, what.buf))
		goto out;
	if (res.status == RUN_INTERRUPTED) {
		ret = RP_EINTERRUPT;
		goto out;
	}
	if (res.log_offset < 0) {
		error("run %zu of benchmark '%s' (side %c) has no log %s", r->seq, c->bench->name,
		      side ? 'B' : 'A', r->log.buf);
		goto out;
	}
	log_length = run_log_size(r->log.buf) - res.log_offset;
	/*
	 * Read once: for the metrics it reports, and stored with the run (run_logs). No output
	 * (most runs of most benchmarks) is the empty text without opening the log: its size
	 * says so (run_log_size() is -1 unless it is a regular file, then read as before).
	 */
	have_output = log_length == 0 || !run_log_read(r->log.buf, res.log_offset,
						       log_length < 0 ? 0 : log_length, &output);
	if (log_length < 0)
		log_length = 0;
	strbuf_addstr(&detail, res.detail);
	proc_result_notes(&res, &detail);
	run_output_note_dropped(&detail, &res);
	if (res.status == RUN_OK) {
		run_values(c, r, &res, &output, have_output, names, values, &nv, &detail);
		c->last_ok_offset[side] = res.log_offset;
		c->last_ok_length[side] = log_length;
		c->have_ok_output[side] = true;
	}
	run.build_id = s->build_id;
	run.benchmark_id = c->out->benchmark_id;
	run.machine_id = c->machine_id;
	run.comparison_id = c->comparison_id;
	run.side = side ? 'B' : 'A';
	run.warmup = r->warmup;
	run.pair_seq = r->pair_seq;
	run.status = res.status;
	run.exit_code = res.exit_code;
	run.signal = res.signal;
	run.detail = detail.buf;
	run.log_path = r->log.buf;
	run.log_offset = res.log_offset;
	run.log_length = log_length;
	run.started_at = r->started_at;
	run.loadavg = r->loadavg;
	/*
	 * A successful run without output keeps no copy: its log_length of 0 is what a report
	 * shows ("no output"). A failure's is kept whatever it is.
	 */
	if (have_output && (log_length > 0 || res.status != RUN_OK)) {
		run.log_data = output.buf;
		run.log_data_len = output.len;
	}
	if (store_run_insert(c->req->st, &run, names, values, nv) ||
	    (r->sampled && r->samples.nr &&
	     store_run_counters_save(c->req->st, run.id, &r->samples))) {
		/* The run behind this one may have damaged the database while it was stored:
		 * then say so, and which runs, after SQLite's line. */
		store_check_files(c->req->st, what.buf);
		goto out;
	}
	/*
	 * The first baseline value replaces the provisional 600 s timeout. A baseline warm-up
	 * that succeeded is a baseline run too: 10 x its wall time (at least 60 s) bounds the
	 * target's warm-up and first runs, which took 600 s each before, so that a target
	 * that hangs held a machine (a worker of the fleet) 21 minutes, not three. So does
	 * the warm-up that sets a counted-only benchmark's timeout when it failed (it took
	 * its time too: its counted runs will fail as fast); not one that timed out.
	 */
	if (side == 0 && c->timeout_ns == FIRST_RUN_TIMEOUT_NS && !c->bench->timeout_ns &&
	    (res.status == RUN_OK || (r->warmup && c->timeout_probe && res.status != RUN_TIMEOUT))) {
		if (!r->warmup) {
			c->timeout_ns = bench_run_timeout(c);
		} else {
			c->timeout_ns = run_timeout_from(res.m.wall_ns);
		}
	}
	if (r->warmup && side == 0 && c->timeout_probe)
		c->probe_status = res.status;
	if (!r->warmup) {
		if (res.status == RUN_OK)
			*(side ? &c->out->ok_b : &c->out->ok_a) += 1;
		else
			*(side ? &c->out->failed_b : &c->out->failed_a) += 1;
	}
	c->consecutive_failures[side] =
	    res.status == RUN_OK ? 0 : c->consecutive_failures[side] + 1;
	if (res.status == RUN_NOT_STARTED) {
		compare_progress_phase(c->req, COMPARE_BENCH_DONE, c->out->name, 0);
		error("benchmark '%s' cannot be started on side %c (%s): %s; check its command "
		      "(%s)",
		      c->out->name, side ? 'B' : 'A', s->label, res.detail,
		      c->bench->origin[0] ? c->bench->origin : "--cmd-a/--cmd-b");
		ret = RP_EINPUT;
		goto out;
	}
	if (!r->warmup && c->consecutive_failures[side] >= MAX_CONSECUTIVE_FAILURES) {
		set_failure(c, side);
		*stop = true;
	}
	ret = 0;
out:
	slot_free(r);
	free(names);
	free(values);
	strbuf_release(&detail);
	strbuf_release(&what);
	strbuf_release(&output);
	return ret;
}

/* The run in flight finished and stored; behind: as run_complete()'s. */
static int drain(struct bench_ctx *c, bool behind, bool *stop)
{
	struct run_slot *r = c->inflight;
	c->inflight = NULL;
	return r ? run_complete(c, r, behind, stop) : 0;
}

int bench_run_drain(struct bench_ctx *c, bool *stop)
{
	return drain(c, false, stop);
}

int bench_run_next(struct bench_ctx *c, int side, bool warmup, bool *stop)
{
	/*
	 * Not behind a failure: a run submitted behind a failed one is cancelled, so with a
	 * side failing the other side's runs would be dropped at random (a comparison of two
	 * failing sides could stop on the target's failures before the baseline had run once
	 * and call the target broken). Until both sides' last runs succeeded again, one run
	 * at a time, both sides in every round, as without lookahead.
	 */
	bool ahead =
	    c->lookahead && !c->consecutive_failures[0] && !c->consecutive_failures[1];
	/* Nor a warm-up while the timeout is the provisional one: the target's warm-up behind
	 * the baseline's would keep it, not the one the baseline's warm-up is about to give.
	 * (Timed runs look ahead from the first: without a warm-up, a target run first has the
	 * provisional timeout anyway.) */
	if (warmup && c->timeout_ns == FIRST_RUN_TIMEOUT_NS && !c->bench->timeout_ns)
		ahead = false;
	struct run_slot *r;
	int ret = 0;
	if (!ahead && (ret = bench_run_drain(c, stop)))
		return ret;
	if (*stop)
		return 0;
	r = run_submit(c, side, warmup);
	if (!r)
		return RP_EINTERNAL;
	if (!ahead)
		return run_complete(c, r, false, stop);
	/* Submitted behind the run in flight: the spawner starts it when that one ends. */
	ret = drain(c, true, stop);
	c->inflight = r;
	return ret;
}

void bench_run_abandon(struct bench_ctx *c)
{
	slot_free(c->inflight);
	c->inflight = NULL;
}
