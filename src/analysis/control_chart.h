#ifndef REVPERF_ANALYSIS_CONTROL_CHART_H
#define REVPERF_ANALYSIS_CONTROL_CHART_H

/*
 * Control charts over counters sampled during runs (METHODS.md section 4, seed
 * 001_adcee3df91799acf.txt): control limits from the pooled baseline samples, the violation
 * ratio of the target, a threshold per counter by leave-one-out over the baseline runs with
 * the probability that a good run exceeds it by chance, load scaling of both sides, the
 * bimodal filter decided on the CPU utilisation (its idle periods dropped from every
 * counter), the ranking of out-of-control counters, per-run verdicts and their precision
 * and recall. Pure analysis on in-memory data: a sampler, a CSV importer and
 * a store reader fill a struct cchart_input; docs/control-charts.md explains the choices
 * (periods, what a degenerate fit or a lone baseline run gives, bad input).
 *
 * Nothing here is thread-safe on a shared object; distinct objects may be used from
 * distinct threads. No global state. cchart_analyze() runs worker threads of its own.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cchart_side {
	CCHART_BASELINE = 0,
	CCHART_TARGET = 1,
};

struct cchart_run;

/*
 * One counter's samples in one run, in the order they were added. Timestamps are seconds
 * on any scale (since the run's start, or since the epoch), finite; values are finite.
 * Fill it with cchart_series_add() / cchart_series_add_many(), which check both.
 */
struct cchart_series {
	char *counter; /* owned */
	double *t_s;   /* timestamps, seconds */
	double *value; /* samples */
	size_t nr, alloc;
	bool unordered;		/* some timestamp is smaller than the one added before it */
	struct cchart_run *run; /* the run it belongs to (for messages) */
};

/* One run: its counters' series, each counter at most once. */
struct cchart_run {
	char *name; /* owned; names the run in messages ("baseline run 3", a file) */
	enum cchart_side side;
	struct cchart_series **series; /* owned; pointers stay valid while the run lives */
	size_t nr, alloc;
	/* private: counter name -> index (open addressing: index + 1, 0 = empty) */
	uint32_t *slots;
	size_t nr_slots;
};

struct cchart_runs {
	struct cchart_run **runs; /* owned; pointers stay valid while the input lives */
	size_t nr, alloc;
};

/*
 * The whole input of an analysis: the runs of both sides, the optional load counter and the
 * counters whose sum is the CPU utilisation (the bimodal filter's).
 */
struct cchart_input {
	struct cchart_runs side[2]; /* indexed by enum cchart_side */
	char *load_counter;	    /* owned; NULL = no load scaling */
	/* owned; NULL (cpu_set false) = CCHART_CPU_DEFAULT; set with cchart_input_set_cpu() */
	char **cpu_counters;
	size_t nr_cpu_counters;
	bool cpu_set;
};

/* The CPU utilisation of revperf's sampler (docs/counters.md): user plus system, in cores. */
#define CCHART_CPU_DEFAULT "cpu_user,cpu_system"

/* Empty input. Release with cchart_input_release(). */
void cchart_input_init(struct cchart_input *in);
/* Frees the runs, their series and names; accepts a zeroed or released input. */
void cchart_input_release(struct cchart_input *in);
/*
 * Names the load counter (copied; NULL clears it): a level or rate such as requests per
 * second, not a cumulative total. Returns RP_EINPUT after error() for an empty name.
 */
int cchart_input_set_load(struct cchart_input *in, const char *counter);
/*
 * Names the counters whose sum, at the timestamps they share within a run, is the CPU
 * utilisation on which the bimodal filter decides: a comma-separated list (copied), such as
 * "cpu_user,cpu_system" (the default) or "cpu_percent"; "" names none (no filter can be
 * decided). Returns RP_EINPUT after error() for an empty name in the list or more than 16.
 */
int cchart_input_set_cpu(struct cchart_input *in, const char *list);
/* The CPU counters in effect: n names (the default's when none were set). */
const char *const *cchart_input_cpu(const struct cchart_input *in, size_t *n);
/*
 * Adds an empty run to a side and returns it (owned by the input; valid until
 * cchart_input_release()). name is copied; NULL gives "baseline run 1", "target run 1"...
 * Runs are numbered in the order they are added, from 0 (the index used by the results).
 */
struct cchart_run *cchart_input_add_run(struct cchart_input *in, enum cchart_side side,
					const char *name);
/*
 * The series of `counter` in `run`, created empty when new (name copied); *out stays valid
 * while the run lives. Returns RP_EINPUT after error() for a NULL or empty name, or more
 * than UINT32_MAX - 1 counters in a run.
 */
int cchart_run_series(struct cchart_run *run, const char *counter, struct cchart_series **out);
/*
 * Appends one sample. Returns RP_EINPUT after error() naming the run, the counter and the
 * sample's number (1-based, its position in the series) when t_s or value is NaN or
 * infinite; the series is then unchanged. Out-of-order timestamps are accepted (see
 * docs/control-charts.md) and set s->unordered.
 */
int cchart_series_add(struct cchart_series *s, double t_s, double value);
/* Appends n samples, all or none: RP_EINPUT as cchart_series_add() for the first bad one. */
int cchart_series_add_many(struct cchart_series *s, const double *t_s, const double *values,
			   size_t n);
/* cchart_run_series() then cchart_series_add(): convenient, one hash lookup per sample. */
int cchart_run_add(struct cchart_run *run, const char *counter, double t_s, double value);
/* The series of `counter` in `run`, or NULL when the run has none. */
struct cchart_series *cchart_run_find(const struct cchart_run *run, const char *counter);

/* How the control limits are made from the pooled baseline samples. */
enum cchart_limits {
	CCHART_P5_95 = 0, /* 5th / 95th percentiles (default) */
	CCHART_P1_99,	  /* 1st / 99th */
	CCHART_P10_90,	  /* 10th / 90th */
	CCHART_MEAN_3SD,  /* mean -/+ 3 sample standard deviations */
};

/* "5/95", "1/99", "10/90", "3sd"; NULL for a bad value. */
const char *cchart_limits_name(enum cchart_limits limits);
/* Parses the names above. Returns RP_EINPUT after error() for anything else. */
int cchart_limits_parse(const char *s, enum cchart_limits *out);

struct cchart_opts {
	enum cchart_limits limits;
	/* Load scaling, when the input names a load counter (default true). */
	bool scale_load;
	/*
	 * Scale the baseline's samples to l_ref too, so that the limits hold no load variation
	 * either (default true, METHODS section 4's decision; false is the paper's rule, the
	 * target only; docs/control-charts.md).
	 */
	bool scale_baseline;
	/* Length of a load-scaling period: windows [k p, (k + 1) p) of the timestamps (1 s). */
	double period_s;
	/*
	 * Bimodal filter (default true): decided on the CPU utilisation of the baseline; the
	 * periods where it is below the cut are dropped from every counter, on both sides.
	 */
	bool bimodal_filter;
	/* A KDE maximum is a mode when its density is >= this share of the highest (0.05). */
	double mode_min_ratio;
	/*
	 * A counter is out of control when its ratio exceeds its threshold by more than this
	 * (0 .. 1; default 0, METHODS). The threshold is the largest of n leave-one-out ratios,
	 * which a good run beats by chance with probability about 1 / (n + 1) per counter
	 * (cchart_counter.chance, docs/control-charts.md); a margin makes that rarer, by an
	 * amount no formula gives.
	 */
	double margin;
	/* Threads charting counters in parallel: 0 = one per online CPU (at most 8), 1 = none. */
	size_t threads;
};

/*
 * Defaults: 5/95 limits, scaling of both sides on with 1 s periods, bimodal filter on, 0.05,
 * margin 0, threads 0.
 */
void cchart_opts_init(struct cchart_opts *opts);

/* What became of a counter. Only CCHART_CHARTED counters have limits and ratios. */
enum cchart_status {
	CCHART_CHARTED = 0,
	CCHART_ONLY_BASELINE, /* no target sample (absent from every target run, or empty) */
	CCHART_ONLY_TARGET,   /* no baseline sample */
	CCHART_NO_SAMPLES,    /* named on some side, no sample on either */
	CCHART_IDLE, /* every sample of one side lies in an idle period (the bimodal filter) */
};
/* The number of statuses: cchart_result.nr_status has one count per status. */
#define CCHART_NR_STATUS 5

/* "charted", "only in baseline", "only in target", "no samples", "idle throughout a side". */
const char *cchart_status_name(enum cchart_status status);

/* Load scaling of one counter. */
enum cchart_scaling {
	CCHART_SCALE_OFF = 0, /* no load counter, or scaling turned off */
	CCHART_SCALE_DONE,    /* target samples scaled with the fit */
	CCHART_SCALE_IS_LOAD, /* the load counter itself: charted unscaled */
	CCHART_SCALE_NO_FIT, /* fewer than 2 baseline periods with both means, or a constant load */
	CCHART_SCALE_BAD_REF, /* alpha * l_ref + beta <= 0: nothing to scale to */
	/*
	 * The slope is not significant (p >= CCHART_SLOPE_ALPHA): the counter does not follow
	 * the load, and a factor from a slope fitted to noise would only add the load's noise
	 * to it (a gauge such as RSS or the number of threads). Charted unscaled.
	 */
	CCHART_SCALE_FLAT,
};

/* Significance of the fit's slope below which a counter is scaled. */
#define CCHART_SLOPE_ALPHA 0.05

/*
 * "off", "scaled", "load counter", "no fit", "fit <= 0 at the reference load", "does not
 * follow the load".
 */
const char *cchart_scaling_name(enum cchart_scaling scaling);

/* One counter of an analysis. */
struct cchart_counter {
	const char *name; /* owned by the result */
	enum cchart_status status;
	bool out_of_control; /* judged, and ratio > threshold + the options' margin */
	double ratio;	     /* target violation ratio, 0..1: nr_violations / nr_target */
	double threshold;    /* max leave-one-out ratio of the baseline runs (see fallback) */
	/*
	 * The probability that a good target exceeds the threshold by chance, 1 / (n + 1) with
	 * n = nr_base_runs (METHODS section 4): the target is the (n + 1)-th draw of the runs'
	 * ratios, and each of them is the largest with the same probability. NAN if not charted.
	 */
	double chance;
	/*
	 * The threshold is 100%: some baseline run lies entirely outside the limits of the
	 * others (the runs never overlap). Reported, not judged: never out of control.
	 */
	bool no_headroom;
	double excess;	      /* ratio - threshold: the ranking key */
	double lcl, cl, ucl;  /* control limits; CL is the median */
	size_t nr_base;	      /* baseline samples charted (outside idle periods) */
	size_t nr_target;     /* target samples scored (outside idle periods) */
	size_t nr_violations; /* target samples strictly outside [lcl, ucl] */
	size_t nr_base_runs;  /* baseline runs with samples (after the filter) */
	/*
	 * Fewer than 2 baseline runs with samples: no leave-one-out. The threshold is then the
	 * baseline's violation ratio against its own limits (the "normally expected" ratio of
	 * the paper's section 2.2, about 10% for 5/95).
	 */
	bool threshold_fallback;
	/* bimodal filter: samples in the idle periods of their run (cchart_result.filter) */
	size_t dropped_base, dropped_target;
	/*
	 * load scaling: c' = c * (alpha * l_ref + beta) / (alpha * l + beta) per period, on
	 * the target and (opts.scale_baseline) the baseline
	 */
	enum cchart_scaling scaling;
	double alpha, beta, fit_r; /* least squares over the baseline's per-period means */
	double fit_p;		   /* two-sided p of the slope (t test, n - 2 df); NAN if no fit */
	double l_ref;		   /* the baseline's mean load per period */
	size_t nr_fit_periods;
	size_t nr_unscaled; /* target samples left as they were: no load in their period, or
			       alpha * l + beta <= 0 there */
	/* per run */
	const double *run_ratio; /* per target run: its violation ratio; NAN without samples */
	const double *loo_ratio; /* per baseline run: scored against the others; NAN if not */
	const double *loo_lcl, *loo_ucl; /* per baseline run: the others' limits; NAN if not */
};

/*
 * The bimodal filter (METHODS section 4): decided once, on the CPU utilisation (the sum of
 * the input's CPU counters at each timestamp they share), after load scaling as any counter
 * (the paper's Scale, then Filter). When Shapiro-Wilk rejects normality of the baseline's
 * CPU samples and their KDE has two modes with a valley between them, the CPU samples
 * below the valley are idle: the interval each of them covers, (previous timestamp, its
 * timestamp], is an idle period of its run (the first sample's reaches back to the run's
 * start, the last one's on to its end), and every counter's samples in those periods are
 * dropped, on both sides.
 */
struct cchart_filter {
	bool on;	    /* asked for (opts.bimodal_filter) */
	const char *cpu;    /* the CPU counters, "cpu_user + cpu_system"; owned by the result */
	size_t nr_base_cpu; /* baseline CPU samples; 0: no CPU counter, nothing decided */
	double sw_p;	    /* Shapiro-Wilk p of the baseline's CPU (subsample); NAN: not tested */
	size_t nr_modes;    /* modes of its KDE; 0 when not computed (sw_p >= 0.05) */
	bool active;	    /* a cut was found: idle periods are dropped */
	double cut;	    /* CPU utilisation below which a sample's period is idle; NAN if not */
	/*
	 * A cut was found but refused, this baseline run (index) being below it throughout: a
	 * load test idles between bursts of load, so a mode that holds whole runs is not idle
	 * time but runs that got less CPU (other jobs on the machine). SIZE_MAX: none.
	 */
	size_t whole_run;
	const char *whole_run_name; /* its name, owned by the result; NULL if none */
	double refused_cut;	    /* the cut refused; NAN if none */
	/*
	 * Target runs below the cut throughout, with the cut kept: for the same reason, not
	 * idle time but runs that got less CPU (a loaded machine) or used less (a slower
	 * program), so they have no idle period and are scored whole; dropping them would
	 * leave the target nothing to score, every counter "idle throughout a side". Their
	 * number, and the first one's index (SIZE_MAX: none) and name (owned by the result).
	 */
	size_t nr_target_whole;
	size_t target_whole;
	const char *target_whole_name;
	/* the CPU utilisation's own load scaling (as a counter's), before the decision */
	enum cchart_scaling scaling;
	double alpha, beta;
	size_t nr_cpu[2];  /* CPU samples per side */
	size_t nr_idle[2]; /* of which below the cut */
	/* per run of each side: the share of its CPU samples below the cut; NAN without any */
	const double *run_idle[2];
};

struct cchart_result {
	enum cchart_limits limits;
	double period_s;
	double margin;	     /* of the options: out of control = ratio > threshold + margin */
	bool scale_baseline; /* of the options */
	size_t nr_base_runs, nr_target_runs; /* runs of the input */
	struct cchart_filter filter;
	/*
	 * Charted counters first, by excess descending then name, so that the nr_out
	 * out-of-control counters (excess > 0) lead; then the others by name.
	 */
	struct cchart_counter *counters;
	size_t nr_counters;
	size_t nr_charted, nr_out;
	size_t nr_no_headroom; /* charted, not judged (threshold 100%) */
	/*
	 * Charted with headroom: nr_charted - nr_no_headroom. 0 means nothing was decided:
	 * no counter could be out of control, and "none is" would be no finding (a filter that
	 * dropped a side, counters that never overlap); nr_status and nr_no_headroom say why.
	 */
	size_t nr_judged;
	size_t nr_status[CCHART_NR_STATUS]; /* counters per enum cchart_status */
	/*
	 * 1 - prod(1 - chance) over the judged counters: the probability that a good target
	 * shows at least one of them out of control, were the counters independent (counters
	 * that move together make it smaller). 0 when none is judged.
	 */
	double chance_any;
	/* private */
	char **names;
	double *block;
	char *cpu_name, *whole_name, *target_whole_name;
	double *idle_block;
};

/*
 * Charts every counter of the input into `out` (overwritten: release a previous result
 * first), which the caller releases with cchart_result_release() (also after a failure:
 * `out` is then empty). opts NULL means defaults. Returns RP_OK, or RP_EINPUT after error()
 * for a side without runs, a NaN or infinite sample (naming the run, the counter and the
 * sample's number), bad options, or a load counter whose timestamps span more than
 * CCHART_MAX_PERIODS periods. The result copies what it needs; the input may be released,
 * except that cchart_chart_points() reads it again. Reads the input from opts->threads
 * threads at once (it must not change meanwhile); the result does not depend on their
 * number, nor does the message about bad input (the first counter's, in input order).
 */
int cchart_analyze(const struct cchart_input *in, const struct cchart_opts *opts,
		   struct cchart_result *out);
/* Frees what the result owns; accepts a zeroed or released result. */
void cchart_result_release(struct cchart_result *r);
/* The counter named `name`, or NULL. */
const struct cchart_counter *cchart_result_find(const struct cchart_result *r, const char *name);

/* Most periods a load counter may span in one run (1 s periods: 11 days). */
#define CCHART_MAX_PERIODS 1000000u

/* ---- per-run verdicts and their evaluation ---- */

enum cchart_rule {
	/* A run is bad when any counter's violation ratio in it exceeds that counter's threshold.
	 */
	CCHART_RULE_THRESHOLD = 0,
	/* A run is bad when its largest violation ratio (any counter) exceeds t (the paper's V_x >
	   t). */
	CCHART_RULE_RATIO,
};

struct cchart_run_score {
	bool bad;
	size_t nr_out;		 /* counters whose ratio in this run exceeds their threshold */
	double max_ratio;	 /* largest ratio of a charted counter in this run; NAN if none */
	const char *max_counter; /* borrowed from the result; NULL if none */
};

/*
 * Scores each target run on its own: out[i] for target run i (r->nr_target_runs entries).
 * t is used by CCHART_RULE_RATIO only and must be in [0, 1]. A run without samples of any
 * charted counter is not bad. Returns RP_EINPUT after error() for a bad rule or t.
 */
int cchart_score_runs(const struct cchart_result *r, enum cchart_rule rule, double t,
		      struct cchart_run_score *out);

/* Precision and recall of run verdicts against labels (the paper's equations 3 and 4). */
struct cchart_eval {
	size_t tp, fp, fn, tn;
	double precision; /* tp / (tp + fp); NAN when no run was classified bad */
	double recall;	  /* tp / (tp + fn); NAN when no run is labelled bad */
	double f_measure; /* harmonic mean of both; NAN when either is NAN or both are 0 */
};

/* Compares predicted_bad[i] with labelled_bad[i] for n >= 1 runs. RP_EINPUT for n == 0. */
int cchart_evaluate(const bool *predicted_bad, const bool *labelled_bad, size_t n,
		    struct cchart_eval *out);

/* ---- what an SVG chart draws ---- */

enum cchart_point_kind {
	CCHART_POINT_IN = 0,	/* inside [lcl, ucl] */
	CCHART_POINT_VIOLATION, /* strictly outside */
	CCHART_POINT_DROPPED,	/* in an idle period of the bimodal filter: not scored */
};

struct cchart_point {
	double t_s;   /* as given */
	double value; /* after load scaling */
	uint32_t run; /* target run index */
	uint8_t kind; /* enum cchart_point_kind */
};

struct cchart_points {
	double lcl, cl, ucl;
	struct cchart_point *points; /* by run, then timestamp (stable) */
	size_t nr;
	double *run_t0_s; /* per target run: its first timestamp of this counter; NAN if none */
	size_t nr_runs;
};

/*
 * The target samples of counter r->counters[idx] as the analysis scored them, into `out`
 * (release with cchart_points_release(), also after a failure). `in` must be the input
 * `r` was computed from, unchanged. Returns RP_EINPUT after error() for an idx out of
 * range, a counter that was not charted, or an input that does not match the result.
 */
int cchart_chart_points(const struct cchart_input *in, const struct cchart_result *r, size_t idx,
			struct cchart_points *out);
/* Frees what `p` owns; accepts a zeroed or released struct. */
void cchart_points_release(struct cchart_points *p);

/*
 * ---- private: shared by src/analysis/control_chart_*.c, not for other callers ----
 */

#define CCHART_NO_RUN UINT32_MAX

/* An order statistic of a multiset, with one run possibly left out. */
struct cchart_rank_query {
	uint32_t excl; /* run left out, or CCHART_NO_RUN */
	size_t rank;   /* 0-based, among the set's elements not in `excl` */
	size_t bucket; /* scratch */
	double answer;
};

/* A run's elements in a set: positions [end of the previous segment, end). */
struct cchart_seg {
	uint32_t run; /* < nr_runs */
	size_t end;
};

/*
 * Sets qs[k]->answer to the element of rank qs[k]->rank among the values whose run is not
 * qs[k]->excl; each rank must be below that count. The values come in segments of one run
 * each (vals[0 .. segs[nsegs - 1].end)); none is NaN or -0, and vmin and vmax are their
 * smallest and largest. Reorders qs; never fails (aborts on out-of-memory like xmalloc).
 */
void cchart_select(const double *vals, const struct cchart_seg *segs, size_t nsegs, size_t nr_runs,
		   double vmin, double vmax, struct cchart_rank_query **qs, size_t nq);

/* A pooled baseline: runs as slices vals[off[r] .. off[r + 1]), r < nc (nc >= 1, none empty). */
struct cchart_pool {
	const double *vals; /* none NaN or -0 */
	const size_t *off;
	size_t nc;
	double vmin, vmax;
};

/*
 * c's lcl, cl and ucl from the pool, and when nc >= 2 each run's leave-one-out limits in
 * lcl_r[r], ucl_r[r] (nc entries each). Never fails.
 */
void cchart_limits(const struct cchart_pool *pool, enum cchart_limits limits,
		   struct cchart_counter *c, double *lcl_r, double *ucl_r);

/*
 * The bimodal filter's decision on the n pooled baseline CPU values: sets f->sw_p,
 * nr_modes, and active and cut when the samples below the cut are idle. Never fails.
 */
void cchart_filter_decide(const double *vals, size_t n, double mode_min_ratio,
			  struct cchart_filter *f);

/* A run's idle periods: intervals (lo[i], hi[i]], sorted and disjoint. */
struct cchart_idle {
	double *lo, *hi; /* owned */
	size_t nr;
	size_t nr_cpu, nr_below; /* the run's CPU samples, and those below the cut */
};

/* Frees what `d` owns; accepts a zeroed or released struct. */
void cchart_idle_release(struct cchart_idle *d);

/*
 * The CPU utilisation of `run`: the sum of the input's CPU counters at each timestamp that
 * every one of them present in the run has (a counter with several samples at one
 * timestamp gives their mean), by time, into *t and *v (n entries; the caller frees both;
 * NULL and 0 without any). RP_EINPUT after error() for a sample that is not finite.
 */
int cchart_cpu_series(const struct cchart_input *in, const struct cchart_run *run, double **t,
		      double **v, size_t *n);

/*
 * The idle periods of a CPU series (by time): the intervals of its samples below `cut`,
 * (previous timestamp, timestamp]; the first reaches back to -inf, the last on to +inf.
 */
void cchart_idle_build(const double *t, const double *v, size_t n, double cut,
		       struct cchart_idle *out);

/* The first interval of d whose hi >= t (d->nr when none). */
size_t cchart_idle_search(const struct cchart_idle *d, double t);

/*
 * Whether t lies in an idle period of d. *cur carries the position between calls (start
 * at 0): increasing timestamps cost O(1) each, a step back a binary search.
 */
static inline bool cchart_idle_at(const struct cchart_idle *d, size_t *cur, double t)
{
	size_t i = *cur;
	if (i > 0 && t <= d->hi[i - 1])
		i = cchart_idle_search(d, t);
	while (i < d->nr && d->hi[i] < t)
		i++;
	*cur = i;
	return i < d->nr && t > d->lo[i];
}

/*
 * Interns the names of every counter of the input into `names` (a scratch run whose series
 * stay empty), in input order. RP_EINPUT after error() as cchart_run_series().
 */
int cchart_names_collect(const struct cchart_input *in, struct cchart_run *names);
/* Frees what cchart_names_collect() filled. */
void cchart_names_release(struct cchart_run *names);
/* Orders r's counters: charted first by excess descending then name; then by name. */
void cchart_rank(struct cchart_result *r);

/* One run's load, per period [k p, (k + 1) p): periods k0 .. k0 + np - 1. */
struct cchart_load {
	double k0;
	size_t np;
	double *mean; /* NAN where the period has no load sample; the caller frees it */
};

/* Fills `out` from the load series s (NULL or empty: no periods). RP_EINPUT after error(). */
int cchart_load_prepare(const struct cchart_series *s, double period_s, struct cchart_load *out);

/* What the filter needs besides the input: the options and, when scaling, the loads. */
struct cchart_filter_ctx {
	const struct cchart_input *in;
	double mode_min_ratio, period_s;
	const struct cchart_load *load[2]; /* per run of each side; NULL: no load scaling */
	double l_ref;			   /* the baseline's mean load per period */
	bool scale_baseline;
	double cut; /* NAN: decide; else the cut of an earlier decision on the same input */
};

/*
 * The filter over the whole input: the CPU utilisation of every run, load-scaled as any
 * counter (the paper's Scale, then Filter), the decision on the pooled baseline into f, and
 * when a cut is found idle[side][i] for every run (arrays of in->side[side].nr zeroed
 * entries from the caller; release each) and run_idle[side][i] (likewise; NAN for a run
 * without CPU samples), except that a target run below the cut throughout has no idle
 * period (f->nr_target_whole). RP_EINPUT after error() for a CPU sample that is not finite.
 */
int cchart_filter_prepare(const struct cchart_filter_ctx *x, struct cchart_filter *f,
			  struct cchart_idle *idle[2], double *run_idle[2]);

/*
 * Sets up r's filter report (r->filter, the CPU counters' names, the per-run idle shares)
 * and allocates idle[side] for the runs of each side (zeroed; the caller releases each
 * entry and frees both, also after a failure); when opts->bimodal_filter, decides and fills
 * them (cchart_filter_prepare). load: each side's loads when scaling, else NULL.
 * RP_EINPUT after error() for a CPU sample that is not finite.
 */
int cchart_filter_setup(const struct cchart_input *in, const struct cchart_opts *opts,
			struct cchart_load *const *load, double l_ref, struct cchart_result *r,
			struct cchart_idle *idle[2]);
/* The period k of t_s: k * period_s <= t_s < (k + 1) * period_s (as a double). */
double cchart_period_of(double t_s, double period_s);

/* The last period looked up: consecutive samples mostly fall in the same one, or the next. */
struct cchart_cursor {
	double lo, hi; /* [lo, hi) = [k p, (k + 1) p): the period; +inf at first (none) */
	double k;
	size_t idx; /* its index in the load, or SIZE_MAX outside */
};
#define CCHART_CURSOR_INIT                                                                         \
	{                                                                                          \
		HUGE_VAL, HUGE_VAL, 0, SIZE_MAX                                                    \
	}

/*
 * The index in `l` of the period of t_s, or SIZE_MAX outside the load's periods: the same
 * period as cchart_period_of(t_s), which is the only k with k p <= t_s < (k + 1) p.
 */
static inline size_t cchart_load_at(const struct cchart_load *l, struct cchart_cursor *cur,
				    double t_s, double period_s)
{
	if (!(t_s >= cur->lo && t_s < cur->hi)) {
		double k, i;
		if (t_s >= cur->hi && t_s < (cur->k + 2) * period_s)
			k = cur->k + 1; /* the next period: no division */
		else
			k = cchart_period_of(t_s, period_s);
		i = k - l->k0;
		cur->k = k;
		cur->lo = k * period_s;
		cur->hi = (k + 1) * period_s;
		cur->idx = i >= 0 && i < (double)l->np ? (size_t)i : SIZE_MAX;
	}
	return cur->idx;
}

/*
 * The two-sided p-value of a least-squares slope with correlation r over n points: Student's
 * t = r sqrt((n - 2) / (1 - r^2)) with n - 2 degrees of freedom (scipy.stats.linregress's
 * pvalue). 1 for n < 3 or r NaN.
 */
double cchart_slope_p(double r, size_t n);

/* Per period of `l`: c's scaling factor, NAN where the period stays unscaled. */
void cchart_load_factors(const struct cchart_counter *c, const struct cchart_load *l, double *f);
/* error() naming the run, the counter and sample i + 1 (not finite); returns RP_EINPUT. */
int cchart_bad_sample(const struct cchart_series *s, size_t i);
/* RP_EINPUT after cchart_bad_sample() for the first sample that is not finite. */
int cchart_check_series(const struct cchart_series *s);

#endif
