#ifndef REVPERF_ANALYSIS_CONTROL_CHART_H
#define REVPERF_ANALYSIS_CONTROL_CHART_H

/*
 * Control charts over counters sampled during runs (METHODS.md section 4, seed
 * 001_adcee3df91799acf.txt): control limits from the pooled baseline samples, the violation
 * ratio of the target, a threshold per counter by leave-one-out over the baseline runs, load
 * scaling, the bimodal filter, the ranking of out-of-control counters, per-run verdicts and
 * their precision and recall. Pure analysis on in-memory data: a sampler, a CSV importer and
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

/* The whole input of an analysis: the runs of both sides and the optional load counter. */
struct cchart_input {
	struct cchart_runs side[2]; /* indexed by enum cchart_side */
	char *load_counter;	    /* owned; NULL = no load scaling */
};

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
	 * either (default false: METHODS scales the target only; docs/control-charts.md).
	 */
	bool scale_baseline;
	/* Length of a load-scaling period: windows [k p, (k + 1) p) of the timestamps (1 s). */
	double period_s;
	/* Bimodal filter (default true). */
	bool bimodal_filter;
	/* A KDE maximum is a mode when its density is >= this share of the highest (0.05). */
	double mode_min_ratio;
	/*
	 * A counter is out of control when its ratio exceeds its threshold by more than this
	 * (0 .. 1; default 0, METHODS). The threshold is the largest of n leave-one-out ratios,
	 * which a good run beats by chance with probability about 1 / (n + 1) per counter
	 * (docs/control-charts.md): with many counters a margin keeps good runs in control.
	 */
	double margin;
	/* Threads charting counters in parallel: 0 = one per online CPU (at most 8), 1 = none. */
	size_t threads;
};

/* Defaults: 5/95 limits, scaling on with 1 s periods, bimodal filter on, 0.05, threads 0. */
void cchart_opts_init(struct cchart_opts *opts);

/* What became of a counter. Only CCHART_CHARTED counters have limits and ratios. */
enum cchart_status {
	CCHART_CHARTED = 0,
	CCHART_ONLY_BASELINE, /* no target sample (absent from every target run, or empty) */
	CCHART_ONLY_TARGET,   /* no baseline sample */
	CCHART_NO_SAMPLES,    /* named on some side, no sample on either */
};

/* "charted", "only in baseline", "only in target", "no samples". */
const char *cchart_status_name(enum cchart_status status);

/* Load scaling of one counter. */
enum cchart_scaling {
	CCHART_SCALE_OFF = 0, /* no load counter, or scaling turned off */
	CCHART_SCALE_DONE,    /* target samples scaled with the fit */
	CCHART_SCALE_IS_LOAD, /* the load counter itself: charted unscaled */
	CCHART_SCALE_NO_FIT, /* fewer than 2 baseline periods with both means, or a constant load */
	CCHART_SCALE_BAD_REF, /* alpha * l_ref + beta <= 0: nothing to scale to */
};

/* "off", "scaled", "load counter", "no fit", "fit <= 0 at the reference load". */
const char *cchart_scaling_name(enum cchart_scaling scaling);

/* One counter of an analysis. */
struct cchart_counter {
	const char *name; /* owned by the result */
	enum cchart_status status;
	bool out_of_control;  /* ratio > threshold + the options' margin */
	double ratio;	      /* target violation ratio, 0..1: nr_violations / nr_target */
	double threshold;     /* max leave-one-out ratio of the baseline runs (see fallback) */
	double excess;	      /* ratio - threshold: the ranking key */
	double lcl, cl, ucl;  /* control limits; CL is the median */
	size_t nr_base;	      /* baseline samples charted (after the filter) */
	size_t nr_target;     /* target samples scored (after the filter) */
	size_t nr_violations; /* target samples strictly outside [lcl, ucl] */
	size_t nr_base_runs;  /* baseline runs with samples (after the filter) */
	/*
	 * Fewer than 2 baseline runs with samples: no leave-one-out. The threshold is then the
	 * baseline's violation ratio against its own limits (the "normally expected" ratio of
	 * the paper's section 2.2, about 10% for 5/95).
	 */
	bool threshold_fallback;
	/* bimodal filter */
	double sw_p;	 /* Shapiro-Wilk p of the baseline (subsample); NAN when not tested */
	size_t nr_modes; /* modes of the baseline KDE; 0 when not computed (sw_p >= 0.05) */
	bool filtered;	 /* samples below `cut` were dropped on both sides */
	double cut;	 /* the local minimum between the two highest modes; NAN if not filtered */
	size_t dropped_base, dropped_target;
	/* load scaling: target c' = c * (alpha * l_ref + beta) / (alpha * l + beta) per period */
	enum cchart_scaling scaling;
	double alpha, beta, fit_r; /* least squares over the baseline's per-period means */
	double l_ref;		   /* the baseline's mean load per period */
	size_t nr_fit_periods;
	size_t nr_unscaled; /* target samples left as they were: no load in their period, or
			       alpha * l + beta <= 0 there */
	/* per run */
	const double *run_ratio; /* per target run: its violation ratio; NAN without samples */
	const double *loo_ratio; /* per baseline run: scored against the others; NAN if not */
	const double *loo_lcl, *loo_ucl; /* per baseline run: the others' limits; NAN if not */
};

struct cchart_result {
	enum cchart_limits limits;
	double period_s;
	double margin; /* of the options: out of control = ratio > threshold + margin */
	size_t nr_base_runs, nr_target_runs; /* runs of the input */
	/*
	 * Charted counters first, by excess descending then name, so that the nr_out
	 * out-of-control counters (excess > 0) lead; then the others by name.
	 */
	struct cchart_counter *counters;
	size_t nr_counters;
	size_t nr_charted, nr_out;
	/* private */
	char **names;
	double *block;
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
	CCHART_POINT_DROPPED,	/* below the bimodal filter's cut: not scored */
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
 * The bimodal filter's decision on the n pooled baseline values: sets c->sw_p, nr_modes,
 * and filtered and cut when the samples below the cut are to be dropped. Never fails.
 */
void cchart_filter_decide(const double *vals, size_t n, double mode_min_ratio,
			  struct cchart_counter *c);

/* One run's load, per period [k p, (k + 1) p): periods k0 .. k0 + np - 1. */
struct cchart_load {
	double k0;
	size_t np;
	double *mean; /* NAN where the period has no load sample; the caller frees it */
};

/* Fills `out` from the load series s (NULL or empty: no periods). RP_EINPUT after error(). */
int cchart_load_prepare(const struct cchart_series *s, double period_s, struct cchart_load *out);
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

/* Per period of `l`: c's scaling factor, NAN where the period stays unscaled. */
void cchart_load_factors(const struct cchart_counter *c, const struct cchart_load *l, double *f);
/* error() naming the run, the counter and sample i + 1 (not finite); returns RP_EINPUT. */
int cchart_bad_sample(const struct cchart_series *s, size_t i);
/* RP_EINPUT after cchart_bad_sample() for the first sample that is not finite. */
int cchart_check_series(const struct cchart_series *s);

#endif
