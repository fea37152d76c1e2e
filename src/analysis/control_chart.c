/*
 * Control charts (METHODS.md section 4): the input (runs, series, samples), options and
 * names, the result's lookup and release, per-run verdicts and precision / recall. The
 * analysis itself is in control_chart_analyze.c. See control_chart.h and
 * docs/control-charts.md.
 */
#include "analysis/control_chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"

#define SERIES_MAX (UINT32_MAX - 1u)

static const char *side_name(enum cchart_side side)
{
	return side == CCHART_TARGET ? "target" : "baseline";
}

/* ---- input ---- */

void cchart_input_init(struct cchart_input *in)
{
	memset(in, 0, sizeof(*in));
}

static void series_free(struct cchart_series *s)
{
	if (!s)
		return;
	free(s->counter);
	free(s->t_s);
	free(s->value);
	free(s);
}

static void run_free(struct cchart_run *run)
{
	if (!run)
		return;
	for (size_t i = 0; i < run->nr; i++)
		series_free(run->series[i]);
	free(run->series);
	free(run->slots);
	free(run->name);
	free(run);
}

void cchart_input_release(struct cchart_input *in)
{
	for (int side = 0; side < 2; side++) {
		struct cchart_runs *rs = &in->side[side];
		for (size_t i = 0; i < rs->nr; i++)
			run_free(rs->runs[i]);
		free(rs->runs);
	}
	free(in->load_counter);
	for (size_t i = 0; i < in->nr_cpu_counters; i++)
		free(in->cpu_counters[i]);
	free(in->cpu_counters);
	memset(in, 0, sizeof(*in));
}

int cchart_input_set_load(struct cchart_input *in, const char *counter)
{
	if (counter && !*counter) {
		error("control chart: the load counter's name is empty");
		return RP_EINPUT;
	}
	free(in->load_counter);
	in->load_counter = counter ? xstrdup(counter) : NULL;
	return RP_OK;
}

#define CPU_COUNTERS_MAX 16

/* Splits a comma-separated list of names into *out (n of them). RP_EINPUT for a bad one. */
static int split_names(const char *list, char ***out, size_t *n)
{
	const char *p = list;
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	while (*list) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (!len || *n >= CPU_COUNTERS_MAX) {
			error("CPU counters '%s': %s", list,
			      len ? "more than 16 names" : "an empty name in the list");
			for (size_t i = 0; i < *n; i++)
				free((*out)[i]);
			free(*out);
			*out = NULL;
			*n = 0;
			return RP_EINPUT;
		}
		ALLOC_GROW(*out, *n + 1, alloc);
		(*out)[(*n)++] = xstrndup(p, len);
		if (!end)
			break;
		p = end + 1;
	}
	return RP_OK;
}

int cchart_input_set_cpu(struct cchart_input *in, const char *list)
{
	char **names;
	size_t n;
	int ret = split_names(list ? list : "", &names, &n);

	if (ret)
		return ret;
	for (size_t i = 0; i < in->nr_cpu_counters; i++)
		free(in->cpu_counters[i]);
	free(in->cpu_counters);
	in->cpu_counters = names;
	in->nr_cpu_counters = n;
	in->cpu_set = true;
	return RP_OK;
}

const char *const *cchart_input_cpu(const struct cchart_input *in, size_t *n)
{
	static const char *const def[] = {"cpu_user", "cpu_system"};

	if (!in->cpu_set) {
		*n = ARRAY_SIZE(def);
		return def;
	}
	*n = in->nr_cpu_counters;
	return (const char *const *)in->cpu_counters;
}

struct cchart_run *cchart_input_add_run(struct cchart_input *in, enum cchart_side side,
					const char *name)
{
	struct cchart_runs *rs = &in->side[side == CCHART_TARGET ? 1 : 0];
	struct cchart_run *run = xcalloc(1, sizeof(*run));
	char buf[64];

	if (!name) {
		snprintf(buf, sizeof(buf), "%s run %zu", side_name(side), rs->nr + 1);
		name = buf;
	}
	run->name = xstrdup(name);
	run->side = side == CCHART_TARGET ? CCHART_TARGET : CCHART_BASELINE;
	ALLOC_GROW(rs->runs, rs->nr + 1, rs->alloc);
	rs->runs[rs->nr++] = run;
	return run;
}

/* FNV-1a */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

/* The slot holding `counter`, or the empty slot where it would go. run->nr_slots > 0. */
static size_t run_slot(const struct cchart_run *run, const char *counter)
{
	size_t mask = run->nr_slots - 1;
	size_t s = (size_t)name_hash(counter) & mask;
	while (run->slots[s] && strcmp(run->series[run->slots[s] - 1]->counter, counter))
		s = (s + 1) & mask;
	return s;
}

static void run_rehash(struct cchart_run *run, size_t nr_slots)
{
	free(run->slots);
	run->slots = xcalloc(nr_slots, sizeof(*run->slots));
	run->nr_slots = nr_slots;
	for (size_t i = 0; i < run->nr; i++)
		run->slots[run_slot(run, run->series[i]->counter)] = (uint32_t)(i + 1);
}

struct cchart_series *cchart_run_find(const struct cchart_run *run, const char *counter)
{
	size_t s;

	if (!run->nr_slots || !counter)
		return NULL;
	s = run_slot(run, counter);
	return run->slots[s] ? run->series[run->slots[s] - 1] : NULL;
}

int cchart_run_series(struct cchart_run *run, const char *counter, struct cchart_series **out)
{
	struct cchart_series *s;

	*out = NULL;
	if (!counter || !*counter) {
		error("%s: a counter without a name", run->name);
		return RP_EINPUT;
	}
	s = cchart_run_find(run, counter);
	if (s) {
		*out = s;
		return RP_OK;
	}
	if (run->nr >= SERIES_MAX) {
		error("%s: more than %u counters", run->name, (unsigned)SERIES_MAX);
		return RP_EINPUT;
	}
	/* keep the load at most 1/2 */
	if ((run->nr + 1) * 2 > run->nr_slots)
		run_rehash(run, run->nr_slots ? run->nr_slots * 2 : 16);
	s = xcalloc(1, sizeof(*s));
	s->counter = xstrdup(counter);
	s->run = run;
	ALLOC_GROW(run->series, run->nr + 1, run->alloc);
	run->series[run->nr] = s;
	run->slots[run_slot(run, counter)] = (uint32_t)(run->nr + 1);
	run->nr++;
	*out = s;
	return RP_OK;
}

/* RP_EINPUT after error() when the sample numbered `nr` (1-based) is not finite. */
static int check_sample(const struct cchart_series *s, size_t nr, double t_s, double value)
{
	const char *run = s->run ? s->run->name : "unnamed run";
	if (!isfinite(value)) {
		error("%s, counter '%s', sample %zu: the value is %s", run, s->counter, nr,
		      isnan(value) ? "NaN" : "infinite");
		return RP_EINPUT;
	}
	if (!isfinite(t_s)) {
		error("%s, counter '%s', sample %zu: the timestamp is %s", run, s->counter, nr,
		      isnan(t_s) ? "NaN" : "infinite");
		return RP_EINPUT;
	}
	return RP_OK;
}

static void series_grow(struct cchart_series *s, size_t need)
{
	size_t alloc = s->alloc;
	if (need <= alloc)
		return;
	ALLOC_GROW(s->value, need, alloc);
	s->t_s = xrealloc(s->t_s, xmallocarray_size(alloc, sizeof(*s->t_s)));
	s->alloc = alloc;
}

int cchart_series_add(struct cchart_series *s, double t_s, double value)
{
	int ret = check_sample(s, s->nr + 1, t_s, value);
	if (ret)
		return ret;
	series_grow(s, s->nr + 1);
	if (s->nr && t_s < s->t_s[s->nr - 1])
		s->unordered = true;
	s->t_s[s->nr] = t_s;
	s->value[s->nr] = value;
	s->nr++;
	return RP_OK;
}

int cchart_series_add_many(struct cchart_series *s, const double *t_s, const double *values,
			   size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int ret = check_sample(s, s->nr + i + 1, t_s[i], values[i]);
		if (ret)
			return ret;
	}
	if (!n)
		return RP_OK;
	series_grow(s, s->nr + n);
	for (size_t i = 0; i < n; i++) {
		double prev = i ? t_s[i - 1] : s->nr ? s->t_s[s->nr - 1] : t_s[0];
		if (t_s[i] < prev)
			s->unordered = true;
	}
	memcpy(s->t_s + s->nr, t_s, n * sizeof(*t_s));
	memcpy(s->value + s->nr, values, n * sizeof(*values));
	s->nr += n;
	return RP_OK;
}

int cchart_run_add(struct cchart_run *run, const char *counter, double t_s, double value)
{
	struct cchart_series *s;
	int ret = cchart_run_series(run, counter, &s);
	if (ret)
		return ret;
	return cchart_series_add(s, t_s, value);
}

/* ---- options and names ---- */

static const char *const limits_names[] = {
    [CCHART_P5_95] = "5/95",
    [CCHART_P1_99] = "1/99",
    [CCHART_P10_90] = "10/90",
    [CCHART_MEAN_3SD] = "3sd",
};

const char *cchart_limits_name(enum cchart_limits limits)
{
	if ((unsigned)limits >= ARRAY_SIZE(limits_names))
		return NULL;
	return limits_names[limits];
}

int cchart_limits_parse(const char *s, enum cchart_limits *out)
{
	for (size_t i = 0; s && i < ARRAY_SIZE(limits_names); i++) {
		if (!strcmp(s, limits_names[i])) {
			*out = (enum cchart_limits)i;
			return RP_OK;
		}
	}
	error("control limits '%s': use 5/95, 1/99, 10/90 or 3sd", s ? s : "");
	return RP_EINPUT;
}

void cchart_opts_init(struct cchart_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->limits = CCHART_P5_95;
	opts->scale_load = true;
	opts->scale_baseline = true;
	opts->period_s = 1.0;
	opts->bimodal_filter = true;
	opts->mode_min_ratio = 0.05;
}

_Static_assert(CCHART_IDLE + 1 == CCHART_NR_STATUS, "CCHART_NR_STATUS counts the statuses");

const char *cchart_status_name(enum cchart_status status)
{
	switch (status) {
	case CCHART_CHARTED: return "charted";
	case CCHART_ONLY_BASELINE: return "only in baseline";
	case CCHART_ONLY_TARGET: return "only in target";
	case CCHART_NO_SAMPLES: return "no samples";
	case CCHART_IDLE: return "idle throughout a side";
	}
	return "?";
}

const char *cchart_scaling_name(enum cchart_scaling scaling)
{
	switch (scaling) {
	case CCHART_SCALE_OFF: return "off";
	case CCHART_SCALE_DONE: return "scaled";
	case CCHART_SCALE_IS_LOAD: return "load counter";
	case CCHART_SCALE_NO_FIT: return "no fit";
	case CCHART_SCALE_BAD_REF: return "fit <= 0 at the reference load";
	case CCHART_SCALE_FLAT: return "does not follow the load";
	}
	return "?";
}

/* ---- results ---- */

void cchart_result_release(struct cchart_result *r)
{
	for (size_t i = 0; i < r->nr_counters; i++)
		free(r->names[i]);
	free(r->names);
	free(r->counters);
	free(r->block);
	free(r->cpu_name);
	free(r->whole_name);
	free(r->target_whole_name);
	free(r->idle_block);
	memset(r, 0, sizeof(*r));
}

const struct cchart_counter *cchart_result_find(const struct cchart_result *r, const char *name)
{
	for (size_t i = 0; i < r->nr_counters; i++)
		if (!strcmp(r->counters[i].name, name))
			return &r->counters[i];
	return NULL;
}

/* ---- the counters of an input, and their order in a result ---- */

/* The scratch run that interns the counter names of every run (series stay empty). */
void cchart_names_release(struct cchart_run *names)
{
	for (size_t i = 0; i < names->nr; i++) {
		free(names->series[i]->counter);
		free(names->series[i]);
	}
	free(names->series);
	free(names->slots);
	free(names->name);
	memset(names, 0, sizeof(*names));
}

int cchart_names_collect(const struct cchart_input *in, struct cchart_run *names)
{
	memset(names, 0, sizeof(*names));
	names->name = xstrdup("control chart");
	for (int side = 0; side < 2; side++) {
		const struct cchart_runs *rs = &in->side[side];
		for (size_t i = 0; i < rs->nr; i++) {
			const struct cchart_run *run = rs->runs[i];
			for (size_t k = 0; k < run->nr; k++) {
				struct cchart_series *s;
				int ret = cchart_run_series(names, run->series[k]->counter, &s);
				if (ret)
					return ret;
			}
		}
	}
	return RP_OK;
}

static int cmp_counter(const void *pa, const void *pb)
{
	const struct cchart_counter *a = pa, *b = pb;
	bool ca = a->status == CCHART_CHARTED, cb = b->status == CCHART_CHARTED;

	if (ca != cb)
		return ca ? -1 : 1;
	if (ca && a->excess != b->excess)
		return a->excess > b->excess ? -1 : 1;
	return strcmp(a->name, b->name);
}

void cchart_rank(struct cchart_result *r)
{
	qsort(r->counters, r->nr_counters, sizeof(*r->counters), cmp_counter);
}

/* ---- per-run verdicts ---- */

int cchart_score_runs(const struct cchart_result *r, enum cchart_rule rule, double t,
		      struct cchart_run_score *out)
{
	if (rule != CCHART_RULE_THRESHOLD && rule != CCHART_RULE_RATIO) {
		error("control chart: unknown run rule %d", (int)rule);
		return RP_EINPUT;
	}
	if (rule == CCHART_RULE_RATIO && !(t >= 0 && t <= 1)) {
		error("control chart: the run threshold t must be in [0, 1], not %g", t);
		return RP_EINPUT;
	}
	for (size_t j = 0; j < r->nr_target_runs; j++) {
		struct cchart_run_score *s = &out[j];
		s->bad = false;
		s->nr_out = 0;
		s->max_ratio = NAN;
		s->max_counter = NULL;
		for (size_t i = 0; i < r->nr_counters; i++) {
			const struct cchart_counter *c = &r->counters[i];
			double v;
			if (c->status != CCHART_CHARTED)
				continue;
			v = c->run_ratio[j];
			if (isnan(v))
				continue;
			if (!c->no_headroom && v > c->threshold + r->margin)
				s->nr_out++;
			/* counters come ranked: the first of equal ratios wins */
			if (isnan(s->max_ratio) || v > s->max_ratio) {
				s->max_ratio = v;
				s->max_counter = c->name;
			}
		}
		if (rule == CCHART_RULE_THRESHOLD)
			s->bad = s->nr_out > 0;
		else
			s->bad = !isnan(s->max_ratio) && s->max_ratio > t;
	}
	return RP_OK;
}

int cchart_evaluate(const bool *predicted_bad, const bool *labelled_bad, size_t n,
		    struct cchart_eval *out)
{
	memset(out, 0, sizeof(*out));
	if (!n) {
		error("control chart: precision and recall of no runs");
		return RP_EINPUT;
	}
	for (size_t i = 0; i < n; i++) {
		if (predicted_bad[i])
			labelled_bad[i] ? out->tp++ : out->fp++;
		else
			labelled_bad[i] ? out->fn++ : out->tn++;
	}
	out->precision = out->tp + out->fp ? (double)out->tp / (double)(out->tp + out->fp) : NAN;
	out->recall = out->tp + out->fn ? (double)out->tp / (double)(out->tp + out->fn) : NAN;
	if (isnan(out->precision) || isnan(out->recall) || out->precision + out->recall == 0)
		out->f_measure = NAN;
	else
		out->f_measure = 2 * out->precision * out->recall / (out->precision + out->recall);
	return RP_OK;
}

void cchart_points_release(struct cchart_points *p)
{
	free(p->points);
	free(p->run_t0_s);
	memset(p, 0, sizeof(*p));
}
