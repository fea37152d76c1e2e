/*
 * E-divisive means (Matteson & James 2014) with a permutation test, hierarchical: split the
 * segment whose best split has the largest q, test it against R permutations within every
 * current segment, stop at the first candidate that is not significant. docs/change-points.md
 * explains the choices; this file is the arithmetic.
 *
 * For a segment s[0..m) and a split tau (X = s[0..tau), Y = s[tau..m), n1 = tau, n2 = m - tau):
 *
 *   q(tau) = n1 n2 / (n1 + n2) * (2 C / (n1 n2) - WX / C(n1, 2) - WY / C(n2, 2))
 *
 * where C sums |x - y|^alpha over the cross pairs, WX and WY over the pairs within X and Y.
 * Moving s[t] from Y to X changes the three sums by col = sum_{i<t} d(s_i, s_t) and the
 * rest of its row, row(s_t) - col, where row(s_t) = sum_j d(s_t, s_j) over the whole
 * segment does not depend on the order. For alpha = 1 col is found in O(log m) with two
 * Fenwick trees over the ranks of the values (count and sum of the values inserted so far
 * below a rank), so one scan costs O(m log m); for other alphas col is a sum over a row of
 * the segment's distance matrix, O(m) per step. The KAPPA split also tries Y = s[tau..kappa)
 * for every kappa (scan_kappa(), O(m^2)).
 */
#include "analysis/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "analysis/stats.h"
#include "util/rng.h"
#include "util/common.h"

/* Segments up to this length keep their m x m distance matrix (32 MB) for alpha != 1. */
#define DIST_MATRIX_MAX_LEN 2048u

struct sort_item {
	double v;
	uint32_t i;
};

/* Per-segment working data, sized once for the whole series. */
struct cp_scan {
	size_t m; /* length of the prepared segment */
	size_t min_size;
	bool kappa; /* also Y = s[tau..kappa) for kappa < m */
	double alpha;
	bool fast;	  /* alpha == 1: Fenwick trees */
	const double *x;  /* the segment's values, original order */
	double *row;	  /* row[i]: sum over the segment of d(x_i, x_j) */
	double total;	  /* sum of d over the pairs i < j */
	double *inv;	  /* inv[j] = 1 / j, j = 1..n */
	double *pfx;	  /* pfx[t]: sum of d over the pairs within the first t values scanned */
	double *diag[3];  /* kappa search: pair sums of the windows of 3 successive lengths */
	double *tau_best; /* kappa search: best q of each tau */
	uint32_t *rank;	  /* fast: rank of x_i in the segment (ties by position) */
	double *v;	  /* fast: x_i minus the segment's minimum (so that sums do not cancel) */
	double *y;	  /* fast, kappa search: v in the order scanned */
	uint32_t *fcnt;	  /* fast: Fenwick tree of counts, 1-based, m + 1 */
	double *fsum;	  /* fast: Fenwick tree of values, 1-based, m + 1 */
	struct sort_item *sorted;
	double *dist;  /* slow: m x m matrix, or NULL when m > DIST_MATRIX_MAX_LEN */
	uint32_t *idx; /* the order being scanned */
};

/* A segment during the search: its best split is computed once. */
struct cp_seg {
	size_t start, end;
	bool splittable;
	size_t best_tau; /* absolute index */
	double best_q;
	double *null_q; /* R largest q of random permutations of the segment, or NULL */
};

void changepoint_opts_init(struct changepoint_opts *opts)
{
	opts->sig_level = CHANGEPOINT_DEFAULT_SIG_LEVEL;
	opts->permutations = CHANGEPOINT_DEFAULT_PERMUTATIONS;
	opts->min_size = CHANGEPOINT_DEFAULT_MIN_SIZE;
	opts->alpha = CHANGEPOINT_DEFAULT_ALPHA;
	opts->seed = CHANGEPOINT_DEFAULT_SEED;
	opts->max_points = 0;
	opts->split = CHANGEPOINT_SPLIT_TAIL;
	opts->min_rel_change = 0.0;
	opts->ci_alpha = CHANGEPOINT_DEFAULT_CI_ALPHA;
	opts->name = NULL;
}

void changepoint_result_release(struct changepoint_result *res)
{
	if (!res)
		return;
	free(res->points);
	free(res->segments);
	memset(res, 0, sizeof(*res));
}

/* ---- random permutations ---- */

/* splitmix64's finaliser: turns small or similar seeds into unrelated xorshift states. */
static uint64_t mix_seed(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Fisher-Yates; applied again to an already shuffled array it stays uniform. */
static void shuffle(struct rng *r, uint32_t *a, size_t m)
{
	for (size_t i = m; i > 1; i--) {
		uint32_t j = rng_below(r, (uint32_t)i);
		uint32_t tmp = a[i - 1];
		a[i - 1] = a[j];
		a[j] = tmp;
	}
}

/* ---- one segment ---- */

static void scan_init(struct cp_scan *sc, size_t n, const struct changepoint_opts *o)
{
	memset(sc, 0, sizeof(*sc));
	sc->min_size = o->min_size;
	sc->kappa = o->split == CHANGEPOINT_SPLIT_KAPPA;
	sc->alpha = o->alpha;
	sc->fast = o->alpha == 1.0;
	sc->row = xmallocarray(n, sizeof(*sc->row));
	sc->idx = xmallocarray(n, sizeof(*sc->idx));
	sc->pfx = xmallocarray(n + 1, sizeof(*sc->pfx));
	sc->inv = xmallocarray(n + 1, sizeof(*sc->inv));
	sc->inv[0] = NAN;
	for (size_t j = 1; j <= n; j++)
		sc->inv[j] = 1.0 / (double)j;
	if (sc->kappa) {
		for (size_t k = 0; k < 3; k++)
			sc->diag[k] = xmallocarray(n + 1, sizeof(*sc->diag[k]));
		sc->tau_best = xmallocarray(n + 1, sizeof(*sc->tau_best));
	}
	if (sc->fast) {
		sc->sorted = xmallocarray(n, sizeof(*sc->sorted));
		sc->rank = xmallocarray(n, sizeof(*sc->rank));
		sc->v = xmallocarray(n, sizeof(*sc->v));
		sc->fcnt = xmallocarray(n + 1, sizeof(*sc->fcnt));
		sc->fsum = xmallocarray(n + 1, sizeof(*sc->fsum));
		if (sc->kappa)
			sc->y = xmallocarray(n, sizeof(*sc->y));
	} else if (n <= DIST_MATRIX_MAX_LEN) {
		sc->dist = xmallocarray(xmallocarray_size(n, n), sizeof(*sc->dist));
	}
}

static void scan_release(struct cp_scan *sc)
{
	free(sc->row);
	free(sc->idx);
	free(sc->pfx);
	free(sc->inv);
	for (size_t k = 0; k < 3; k++)
		free(sc->diag[k]);
	free(sc->tau_best);
	free(sc->sorted);
	free(sc->rank);
	free(sc->v);
	free(sc->y);
	free(sc->fcnt);
	free(sc->fsum);
	free(sc->dist);
}

static int cmp_sort_item(const void *pa, const void *pb)
{
	const struct sort_item *a = pa, *b = pb;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static double dist_pow(double a, double b, double alpha)
{
	return pow(fabs(a - b), alpha);
}

/* alpha = 1: ranks, shifted values and row sums from the sorted segment, O(m log m). */
static void prepare_fast(struct cp_scan *sc)
{
	size_t m = sc->m;
	double lo, below = 0.0, above = 0.0;

	for (size_t i = 0; i < m; i++) {
		sc->sorted[i].v = sc->x[i];
		sc->sorted[i].i = (uint32_t)i;
	}
	qsort(sc->sorted, m, sizeof(*sc->sorted), cmp_sort_item);
	lo = sc->sorted[0].v;
	for (size_t r = 0; r < m; r++) {
		uint32_t i = sc->sorted[r].i;
		sc->rank[i] = (uint32_t)r;
		sc->v[i] = sc->x[i] - lo;
		above += sc->v[i];
	}
	/* row(s_r) = sum over lower ranks of (s_r - s) + sum over higher ranks of (s - s_r) */
	sc->total = 0.0;
	for (size_t r = 0; r < m; r++) {
		uint32_t i = sc->sorted[r].i;
		double s = sc->v[i];
		above -= s;
		sc->row[i] = ((double)r * s - below) + (above - (double)(m - 1 - r) * s);
		if (sc->row[i] < 0.0)
			sc->row[i] = 0.0; /* rounding of a sum of non-negative terms */
		below += s;
		sc->total += sc->row[i];
	}
	sc->total /= 2.0;
}

/* alpha != 1: the distance matrix when it fits, and the row sums, O(m^2). */
static void prepare_slow(struct cp_scan *sc)
{
	size_t m = sc->m;

	for (size_t i = 0; i < m; i++)
		sc->row[i] = 0.0;
	for (size_t i = 0; i < m; i++) {
		if (sc->dist)
			sc->dist[i * m + i] = 0.0;
		for (size_t j = i + 1; j < m; j++) {
			double d = dist_pow(sc->x[i], sc->x[j], sc->alpha);
			if (sc->dist) {
				sc->dist[i * m + j] = d;
				sc->dist[j * m + i] = d;
			}
			sc->row[i] += d;
			sc->row[j] += d;
		}
	}
	sc->total = 0.0;
	for (size_t i = 0; i < m; i++)
		sc->total += sc->row[i];
	sc->total /= 2.0;
}

static void scan_prepare(struct cp_scan *sc, const double *x, size_t m)
{
	sc->x = x;
	sc->m = m;
	if (sc->fast)
		prepare_fast(sc);
	else
		prepare_slow(sc);
}

/*
 * q for n1 = a values in X and n2 = b in Y, written so that the divisions are table
 * look-ups: q = (2 C - 2 WX b / (a - 1) - 2 WY a / (b - 1)) / (a + b).
 */
static double q_stat(const struct cp_scan *sc, double wx, double cross, double wy, size_t a,
		     size_t b)
{
	return (2.0 * cross - 2.0 * wx * (double)b * sc->inv[a - 1] -
		2.0 * wy * (double)a * sc->inv[b - 1]) *
	       sc->inv[a + b];
}

/* sum_{i<t} d(s_idx[i], s_idx[t]) with s_idx[0..t) in the Fenwick trees; inserts s_idx[t]. */
static double col_fast(struct cp_scan *sc, uint32_t e, size_t t, double *inserted)
{
	uint32_t r = sc->rank[e];
	double val = sc->v[e], sum_below = 0.0, col;
	size_t cnt_below = 0;

	for (size_t k = r; k > 0; k &= k - 1) {
		cnt_below += sc->fcnt[k];
		sum_below += sc->fsum[k];
	}
	col = ((double)cnt_below * val - sum_below) +
	      ((*inserted - sum_below) - (double)(t - cnt_below) * val);
	for (size_t k = (size_t)r + 1; k <= sc->m; k += k & (0 - k)) {
		sc->fcnt[k]++;
		sc->fsum[k] += val;
	}
	*inserted += val;
	return col;
}

static double col_slow(const struct cp_scan *sc, size_t t)
{
	uint32_t e = sc->idx[t];
	double col = 0.0;

	if (sc->dist) {
		const double *drow = sc->dist + (size_t)e * sc->m;
		for (size_t i = 0; i < t; i++)
			col += drow[sc->idx[i]];
	} else {
		for (size_t i = 0; i < t; i++)
			col += dist_pow(sc->x[sc->idx[i]], sc->x[e], sc->alpha);
	}
	return col;
}

/*
 * kappa = m: Y runs to the end of the segment. One pass in the order sc->idx; records
 * pfx[t] = sum of d over the pairs of the first t values (the kappa search needs them).
 */
static double scan_tail(struct cp_scan *sc, size_t *best_tau, double *q_out)
{
	size_t m = sc->m, min = sc->min_size, stop = sc->kappa ? m : m - min;
	double wx = 0.0, cross = 0.0, wy = sc->total, inserted = 0.0, best = -INFINITY;

	if (sc->fast) {
		memset(sc->fcnt, 0, (m + 1) * sizeof(*sc->fcnt));
		memset(sc->fsum, 0, (m + 1) * sizeof(*sc->fsum));
	}
	sc->pfx[0] = 0.0;
	*best_tau = min;
	for (size_t t = 0; t < stop; t++) {
		uint32_t e = sc->idx[t];
		double col = sc->fast ? col_fast(sc, e, t, &inserted) : col_slow(sc, t);
		double rest = sc->row[e] - col;
		size_t tau = t + 1;
		double q;

		wx += col;
		cross += rest - col;
		wy -= rest;
		sc->pfx[tau] = wx;
		if (tau < min || tau > m - min)
			continue;
		q = q_stat(sc, wx, cross, wy, tau, m - tau);
		if (q_out)
			q_out[tau] = q;
		if (q > best) {
			best = q;
			*best_tau = tau;
		}
	}
	return best;
}

/* d(s_idx[i], s_idx[i + lag]) for i in [0, count): one diagonal of the distance matrix. */
static void diag_dist(const struct cp_scan *sc, size_t lag, size_t count, double *restrict out)
{
	if (sc->fast) {
		const double *restrict y = sc->y;
		for (size_t i = 0; i < count; i++)
			out[i] = fabs(y[i] - y[i + lag]);
	} else if (sc->dist) {
		for (size_t i = 0; i < count; i++)
			out[i] = sc->dist[(size_t)sc->idx[i] * sc->m + sc->idx[i + lag]];
	} else {
		for (size_t i = 0; i < count; i++)
			out[i] = dist_pow(sc->x[sc->idx[i]], sc->x[sc->idx[i + lag]], sc->alpha);
	}
}

/*
 * kappa < m (ecp's extension): Y = s[tau..kappa) for every L = kappa - tau. The pair sums
 * W(tau, L) of the windows s[tau..tau+L) come one diagonal at a time, by inclusion and
 * exclusion: W(tau, L) = W(tau, L-1) + W(tau+1, L-1) - W(tau+1, L-2) + d(s_tau, s_tau+L-1),
 * so that no loop carries a dependency; then WX = pfx[tau], WY = W(tau, L) and
 * C = pfx[tau+L] - WX - WY. O(m^2).
 */
static double scan_kappa(struct cp_scan *sc, double best, size_t *best_tau, double *q_out)
{
	size_t m = sc->m, min = sc->min_size;
	double *w0 = sc->diag[0], *w1 = sc->diag[1], *w2 = sc->diag[2], *tb = sc->tau_best;
	const double *restrict pfx = sc->pfx, *restrict inv = sc->inv;

	if (sc->fast) {
		for (size_t j = 0; j < m; j++)
			sc->y[j] = sc->v[sc->idx[j]];
	}
	for (size_t t = 0; t <= m; t++) {
		w0[t] = 0.0; /* L = 0 */
		w1[t] = 0.0; /* L = 1 */
		tb[t] = -INFINITY;
	}
	for (size_t len = 2; len + min <= m; len++) {
		size_t count = m - len + 1; /* tau in [0, m - len] */
		double *restrict wn = w2;
		const double *restrict a = w1, *restrict c = w0;
		double *tmp;

		diag_dist(sc, len - 1, count, wn);
		for (size_t t = 0; t < count; t++)
			wn[t] += a[t] + a[t + 1] - c[t + 1];
		if (len >= min) {
			double *restrict qb = tb;
			double l2 = 2.0 * (double)len, inv_l = 2.0 * inv[len - 1];
			for (size_t t = min; t < count; t++) {
				double wy = wn[t], wx = pfx[t];
				double q = (2.0 * (pfx[t + len] - wx - wy) - l2 * wx * inv[t - 1] -
					    inv_l * (double)t * wy) *
					   inv[t + len];
				qb[t] = q > qb[t] ? q : qb[t];
			}
		}
		tmp = w0;
		w0 = w1;
		w1 = w2;
		w2 = tmp;
	}
	for (size_t t = min; t + min <= m; t++) {
		if (q_out && tb[t] > q_out[t])
			q_out[t] = tb[t];
		/* ties go to the smaller tau, as in scan_tail */
		if (tb[t] > best || (tb[t] == best && t < *best_tau)) {
			best = tb[t];
			*best_tau = t;
		}
	}
	return best;
}

/*
 * The largest q over the allowed splits of the prepared segment in the order sc->idx, and
 * its tau (the smallest on ties) in *best_tau; q_out[tau] gets the best q of each tau when
 * non-NULL (NaN-filled by the caller). The segment has at least 2 * min_size values.
 */
static double scan_best(struct cp_scan *sc, size_t *best_tau, double *q_out)
{
	double best = scan_tail(sc, best_tau, q_out);

	if (sc->kappa)
		best = scan_kappa(sc, best, best_tau, q_out);
	return best;
}

static void identity(uint32_t *idx, size_t m)
{
	for (size_t i = 0; i < m; i++)
		idx[i] = (uint32_t)i;
}

/* ---- validation ---- */

static int check_values(const double *x, size_t n, const char *name)
{
	if (n > 0 && !x)
		return error("change points of %s: no values (NULL array of %zu)", name, n);
	if (n > CHANGEPOINT_MAX_LEN)
		return error("change points of %s: %zu values, more than the %zu accepted", name, n,
			     CHANGEPOINT_MAX_LEN);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return error("change points of %s: value at index %zu is %s; every value "
				     "must be a finite number",
				     name, i, isnan(x[i]) ? "NaN" : "infinite");
		/* |x - y|^2 summed over a million pairs must stay finite */
		if (fabs(x[i]) > CHANGEPOINT_MAX_ABS)
			return error("change points of %s: value at index %zu (%g) is beyond "
				     "+-%g",
				     name, i, x[i], CHANGEPOINT_MAX_ABS);
	}
	return 0;
}

static int check_shape(size_t min_size, double alpha, const char *name)
{
	if (min_size < 2)
		return error("change points of %s: minimum segment size %zu is below 2 (a "
			     "segment's mean distance needs two values)",
			     name, min_size);
	if (!(alpha > 0.0 && alpha <= 2.0))
		return error("change points of %s: alpha %g is not in (0, 2]", name, alpha);
	return 0;
}

static int check_opts(const struct changepoint_opts *o, const char *name)
{
	if (check_shape(o->min_size, o->alpha, name))
		return -1;
	if (!(o->sig_level > 0.0 && o->sig_level < 1.0))
		return error("change points of %s: significance level %g is not in (0, 1)", name,
			     o->sig_level);
	if (!(o->min_rel_change >= 0.0 && o->min_rel_change <= 1.0))
		return error("change points of %s: smallest relative change %g is not in [0, 1]",
			     name, o->min_rel_change);
	if (!(o->ci_alpha >= 0.0 && o->ci_alpha < 1.0))
		return error("change points of %s: interval alpha %g is not in [0, 1)", name,
			     o->ci_alpha);
	if (o->permutations < 1 || o->permutations > CHANGEPOINT_MAX_PERMUTATIONS)
		return error("change points of %s: %u permutations; use 1 to %u", name,
			     o->permutations, CHANGEPOINT_MAX_PERMUTATIONS);
	if (1.0 / ((double)o->permutations + 1.0) > o->sig_level)
		return error("change points of %s: with %u permutations the smallest p-value is "
			     "%g, above the significance level %g; use at least %.0f permutations",
			     name, o->permutations, 1.0 / ((double)o->permutations + 1.0),
			     o->sig_level, ceil(1.0 / o->sig_level - 1.0 - 1e-9));
	return 0;
}

/* ---- the search ---- */

struct cp_search {
	const double *x;
	size_t n;
	const struct changepoint_opts *opts;
	struct cp_scan scan;
	struct cp_seg *segs;
	size_t nr_segs, alloc_segs;
};

static void seg_evaluate(struct cp_search *s, struct cp_seg *seg)
{
	size_t m = seg->end - seg->start, tau;

	seg->splittable = m >= 2 * s->opts->min_size;
	seg->best_q = -INFINITY;
	seg->null_q = NULL;
	if (!seg->splittable)
		return;
	scan_prepare(&s->scan, s->x + seg->start, m);
	identity(s->scan.idx, m);
	seg->best_q = scan_best(&s->scan, &tau, NULL);
	seg->best_tau = seg->start + tau;
}

/*
 * The null sample of a segment: the largest q of R random permutations of its values. It
 * depends only on the segment's values, so it is drawn once per segment and reused by
 * every later test; the stream is seeded from (seed, start, end), so that it does not
 * depend on the order in which segments appear either.
 */
static void seg_null_sample(struct cp_search *s, struct cp_seg *seg)
{
	unsigned nperm = s->opts->permutations;
	size_t m = seg->end - seg->start, tau;
	struct rng rng;

	rng_seed(&rng, mix_seed(mix_seed(s->opts->seed) ^ ((uint64_t)seg->start << 32 | seg->end)));
	seg->null_q = xmallocarray(nperm, sizeof(*seg->null_q));
	scan_prepare(&s->scan, s->x + seg->start, m);
	identity(s->scan.idx, m);
	for (unsigned r = 0; r < nperm; r++) {
		shuffle(&rng, s->scan.idx, m);
		seg->null_q[r] = scan_best(&s->scan, &tau, NULL);
	}
}

/*
 * The permutation test of a candidate with statistic q_obs (ecp's): permutation r
 * permutes every splittable segment at once and its statistic is the largest q over all of
 * them; p = (1 + #{r: that q >= q_obs}) / (R + 1).
 */
static double permutation_test(struct cp_search *s, double q_obs)
{
	unsigned nperm = s->opts->permutations, over = 0;

	for (size_t k = 0; k < s->nr_segs; k++) {
		if (s->segs[k].splittable && !s->segs[k].null_q)
			seg_null_sample(s, &s->segs[k]);
	}
	for (unsigned r = 0; r < nperm; r++) {
		for (size_t k = 0; k < s->nr_segs; k++) {
			if (s->segs[k].splittable && s->segs[k].null_q[r] >= q_obs) {
				over++;
				break;
			}
		}
	}
	return (1.0 + over) / (1.0 + nperm);
}

/* Index of the segment with the largest best q (the first on ties), or nr_segs if none. */
static size_t best_segment(const struct cp_search *s)
{
	size_t best = s->nr_segs;

	for (size_t k = 0; k < s->nr_segs; k++) {
		if (!s->segs[k].splittable)
			continue;
		if (best == s->nr_segs || s->segs[k].best_q > s->segs[best].best_q)
			best = k;
	}
	return best;
}

static void split_segment(struct cp_search *s, size_t k)
{
	size_t tau = s->segs[k].best_tau;

	free(s->segs[k].null_q);
	ALLOC_GROW(s->segs, s->nr_segs + 1, s->alloc_segs);
	memmove(&s->segs[k + 2], &s->segs[k + 1], (s->nr_segs - k - 1) * sizeof(*s->segs));
	s->nr_segs++;
	s->segs[k + 1].start = tau;
	s->segs[k + 1].end = s->segs[k].end;
	s->segs[k].end = tau;
	seg_evaluate(s, &s->segs[k]);
	seg_evaluate(s, &s->segs[k + 1]);
}

static int cmp_point(const void *pa, const void *pb)
{
	const struct changepoint *a = pa, *b = pb;

	return a->index < b->index ? -1 : a->index > b->index;
}

/* |after - before| / |before| of two medians; infinite when before is 0 (never dropped). */
static double shift_of(double before, double after)
{
	return before != 0.0 ? fabs(after - before) / fabs(before) : INFINITY;
}

/*
 * min_rel_change: drops the change point whose medians differ least, while that is below
 * the option, merging its two segments; med[] holds the segments' medians. Points are
 * sorted, and point k separates segments k and k + 1.
 */
static void drop_small_changes(struct cp_search *s, struct changepoint_result *res)
{
	double min = s->opts->min_rel_change;
	double *med;

	if (!(min > 0.0) || !res->nr_points)
		return;
	med = xmallocarray(s->nr_segs, sizeof(*med));
	for (size_t k = 0; k < s->nr_segs; k++)
		med[k] = stats_percentile(s->x + s->segs[k].start,
					  s->segs[k].end - s->segs[k].start, 50.0);
	for (;;) {
		size_t drop = res->nr_points;
		double least = min;
		for (size_t k = 0; k < res->nr_points; k++) {
			double shift = shift_of(med[k], med[k + 1]);
			if (shift < least) {
				least = shift;
				drop = k;
			}
		}
		if (drop == res->nr_points)
			break;
		/* segment drop absorbs drop + 1; the point between them goes */
		s->segs[drop].end = s->segs[drop + 1].end;
		free(s->segs[drop + 1].null_q);
		memmove(&s->segs[drop + 1], &s->segs[drop + 2],
			(s->nr_segs - drop - 2) * sizeof(*s->segs));
		memmove(&med[drop + 1], &med[drop + 2], (s->nr_segs - drop - 2) * sizeof(*med));
		s->nr_segs--;
		med[drop] = stats_percentile(s->x + s->segs[drop].start,
					     s->segs[drop].end - s->segs[drop].start, 50.0);
		memmove(&res->points[drop], &res->points[drop + 1],
			(res->nr_points - drop - 1) * sizeof(*res->points));
		res->nr_points--;
		res->nr_below_min_change++;
	}
	free(med);
	/* order: 1, 2... among the points kept, in the order they were accepted */
	for (size_t k = 0; k < res->nr_points; k++) {
		size_t before = 0;
		for (size_t j = 0; j < res->nr_points; j++)
			before += res->points[j].order < res->points[k].order;
		res->points[k].order = before + 1;
	}
}

/*
 * The interval of p's rel_change: the segments a (before) and b (after) resampled
 * independently, commits within each (bootstrap_median_shift()). Its own stream per change
 * point, from (seed, index), apart from the permutations' (seeded from start << 32 | end).
 */
static void shift_interval(const struct cp_search *s, const struct changepoint_segment *a,
			   const struct changepoint_segment *b, struct changepoint *p)
{
	struct bootstrap_shift bs;
	uint64_t seed = mix_seed(mix_seed(s->opts->seed ^ 0x626f6f7473747261ULL) ^ p->index);

	/* cannot fail: segments of >= 2 finite values, median before != 0 */
	if (bootstrap_median_shift(s->x + a->start, a->end - a->start, s->x + b->start,
				   b->end - b->start, s->opts->ci_alpha, seed, 0, &bs) < 0)
		return;
	p->rel_change_lo = bs.ci_lo;
	p->rel_change_hi = bs.ci_hi;
}

/* Segments and the before/after summaries, once all change points are known. */
static void summarise(struct cp_search *s, struct changepoint_result *res)
{
	if (res->nr_points > 1)
		qsort(res->points, res->nr_points, sizeof(*res->points), cmp_point);
	drop_small_changes(s, res);
	res->nr_segments = s->nr_segs;
	res->segments = xcalloc(s->nr_segs, sizeof(*res->segments));
	for (size_t k = 0; k < s->nr_segs; k++) {
		struct changepoint_segment *out = &res->segments[k];
		size_t m = s->segs[k].end - s->segs[k].start;
		out->start = s->segs[k].start;
		out->end = s->segs[k].end;
		out->mean = stats_mean(s->x + out->start, m);
		out->median = stats_percentile(s->x + out->start, m, 50.0);
	}
	/* segments are sorted and change point k separates segments k and k + 1 */
	for (size_t k = 0; k < res->nr_points; k++) {
		struct changepoint *p = &res->points[k];
		const struct changepoint_segment *a = &res->segments[k], *b = &res->segments[k + 1];
		p->mean_before = a->mean;
		p->mean_after = b->mean;
		p->median_before = a->median;
		p->median_after = b->median;
		p->n_before = a->end - a->start;
		p->n_after = b->end - b->start;
		p->rel_change = a->median != 0.0 ? (b->median - a->median) / fabs(a->median) : NAN;
		p->rel_change_lo = p->rel_change_hi = NAN;
		if (isfinite(p->rel_change) && s->opts->ci_alpha > 0.0)
			shift_interval(s, a, b, p);
	}
}

static void search(struct cp_search *s, struct changepoint_result *res)
{
	const struct changepoint_opts *o = s->opts;
	size_t alloc_points = 0;

	for (;;) {
		size_t k;
		double p;
		struct changepoint *cp;

		if (o->max_points && res->nr_points >= o->max_points) {
			res->stop = CHANGEPOINT_STOP_MAX_POINTS;
			break;
		}
		k = best_segment(s);
		if (k == s->nr_segs) {
			res->stop = CHANGEPOINT_STOP_TOO_SHORT;
			break;
		}
		p = permutation_test(s, s->segs[k].best_q);
		res->nr_tests++;
		if (p > o->sig_level) {
			res->stop = CHANGEPOINT_STOP_NOT_SIGNIFICANT;
			res->has_rejected = true;
			res->rejected.index = s->segs[k].best_tau;
			res->rejected.q = s->segs[k].best_q;
			res->rejected.p_value = p;
			break;
		}
		ALLOC_GROW(res->points, res->nr_points + 1, alloc_points);
		cp = &res->points[res->nr_points++];
		memset(cp, 0, sizeof(*cp));
		cp->index = s->segs[k].best_tau;
		cp->order = res->nr_points;
		cp->q = s->segs[k].best_q;
		cp->p_value = p;
		split_segment(s, k);
	}
}

int changepoint_detect(const double *x, size_t n, const struct changepoint_opts *opts,
		       struct changepoint_result *res)
{
	struct changepoint_opts defaults;
	struct cp_search s;
	const char *name;

	memset(res, 0, sizeof(*res));
	if (!opts) {
		changepoint_opts_init(&defaults);
		opts = &defaults;
	}
	name = opts->name ? opts->name : "series";
	if (check_opts(opts, name) || check_values(x, n, name))
		return RP_EINPUT;
	if (n == 0) {
		res->stop = CHANGEPOINT_STOP_TOO_SHORT;
		return RP_OK;
	}

	memset(&s, 0, sizeof(s));
	s.x = x;
	s.n = n;
	s.opts = opts;
	scan_init(&s.scan, n, opts);
	ALLOC_GROW(s.segs, 1, s.alloc_segs);
	s.nr_segs = 1;
	s.segs[0].start = 0;
	s.segs[0].end = n;
	seg_evaluate(&s, &s.segs[0]);

	search(&s, res);
	summarise(&s, res);

	for (size_t k = 0; k < s.nr_segs; k++)
		free(s.segs[k].null_q);
	free(s.segs);
	scan_release(&s.scan);
	return RP_OK;
}

int changepoint_qcurve(const double *x, size_t n, const struct changepoint_opts *opts, double *q)
{
	struct changepoint_opts defaults;
	struct cp_scan sc;
	const char *name;
	size_t tau;

	if (!opts) {
		changepoint_opts_init(&defaults);
		opts = &defaults;
	}
	name = opts->name ? opts->name : "series";
	if (check_shape(opts->min_size, opts->alpha, name) || check_values(x, n, name))
		return RP_EINPUT;
	for (size_t i = 0; i < n; i++)
		q[i] = NAN;
	if (n < 2 * opts->min_size)
		return RP_OK;
	scan_init(&sc, n, opts);
	scan_prepare(&sc, x, n);
	identity(sc.idx, n);
	scan_best(&sc, &tau, q);
	scan_release(&sc);
	return RP_OK;
}
