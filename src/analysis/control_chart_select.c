/*
 * Control charts: order statistics of a multiset, each query possibly leaving one run out
 * (the limits of "the pool minus one run" for the leave-one-out thresholds). See
 * control_chart_limits.c for where it is used and docs/control-charts.md for the cost.
 *
 * A level maps the values to order-preserving 64-bit keys, splits the key range into at
 * most 4096 buckets, counts the elements per bucket (in total, and for each excluded run),
 * finds the bucket of every query from the prefix counts, gathers the needed buckets in one
 * pass and recurses into each; a set of at most SELECT_SMALL elements is sorted. Each level
 * narrows the key range by at least BUCKET_BITS_MIN bits, so there are at most 16 levels.
 * The answers are exactly the values that sorting would give.
 */
#include "analysis/control_chart.h"

#include <string.h>

#include "util/common.h"

#define SELECT_SMALL 128u
#define BUCKET_BITS_MAX 12
#define BUCKET_BITS_MIN 4

/* Order-preserving map of a non-NaN double to 64 bits (-0 maps below +0). */
static inline uint64_t key_of(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	return (u >> 63) ? ~u : u | (1ULL << 63);
}

static inline double val_of(uint64_t k)
{
	uint64_t u = (k >> 63) ? k & ~(1ULL << 63) : ~k;
	double d;
	memcpy(&d, &u, sizeof(d));
	return d;
}

struct pair {
	double v;
	uint32_t run;
};

static int cmp_pair(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;
	return (a->v > b->v) - (a->v < b->v);
}

static int cmp_query_bucket(const void *pa, const void *pb)
{
	const struct cchart_rank_query *a = *(const struct cchart_rank_query *const *)pa;
	const struct cchart_rank_query *b = *(const struct cchart_rank_query *const *)pb;
	return (a->bucket > b->bucket) - (a->bucket < b->bucket);
}

static void select_small(const double *vals, const struct cchart_seg *segs, size_t nsegs,
			 struct cchart_rank_query **qs, size_t nq)
{
	size_t n = segs[nsegs - 1].end, i = 0;
	struct pair *p = xmallocarray(n, sizeof(*p));

	for (size_t s = 0; s < nsegs; s++) {
		for (; i < segs[s].end; i++) {
			p[i].v = vals[i];
			p[i].run = segs[s].run;
		}
	}
	qsort(p, n, sizeof(*p), cmp_pair);
	for (size_t k = 0; k < nq; k++) {
		struct cchart_rank_query *q = qs[k];
		size_t seen = 0;
		for (i = 0; i < n; i++) {
			if (p[i].run == q->excl)
				continue;
			if (seen++ == q->rank) {
				q->answer = p[i].v;
				break;
			}
		}
	}
	free(p);
}

static int floor_log2(size_t x)
{
	int b = 0;
	while (x >>= 1)
		b++;
	return b;
}

/* Where a level gathers the elements of one needed bucket. */
struct group {
	size_t start, pos;	 /* in the gathered array */
	size_t first_query;	 /* its queries: qs[first_query ..] */
	uint64_t kmin, kmax;	 /* keys of its elements */
	struct cchart_seg *segs; /* runs of its elements, as positions from `start` */
	size_t nsegs;
};

void cchart_select(const double *vals, const struct cchart_seg *segs, size_t nsegs, size_t nr_runs,
		   double vmin, double vmax, struct cchart_rank_query **qs, size_t nq)
{
	uint64_t kmin = key_of(vmin), kmax = key_of(vmax), range;
	uint32_t *slot, *hist, *all;
	size_t n = nsegs ? segs[nsegs - 1].end : 0, nx = 0, nb, want, total = 0, ngroups = 0;
	size_t *group_of;
	struct group *grp;
	struct cchart_seg *seg_block;
	double *sub;
	int bits, shift;

	if (!nq || !n)
		return;
	if (n <= SELECT_SMALL) {
		select_small(vals, segs, nsegs, qs, nq);
		return;
	}
	if (kmin == kmax) {
		for (size_t k = 0; k < nq; k++)
			qs[k]->answer = vmin;
		return;
	}

	/*
	 * Histograms: row 0 for the runs no query leaves out, one row per run that some query
	 * leaves out, and their sum `all`. Each element is counted once, in its run's row.
	 */
	slot = xmallocarray(nr_runs, sizeof(*slot));
	memset(slot, 0xff, nr_runs * sizeof(*slot));
	for (size_t k = 0; k < nq; k++)
		if (qs[k]->excl != CCHART_NO_RUN && slot[qs[k]->excl] == CCHART_NO_RUN)
			slot[qs[k]->excl] = (uint32_t)++nx;
	/* about n / rows buckets: the histograms then cost no more than a pass */
	want = n / (nx + 1);
	bits = floor_log2(want ? want : 1);
	bits = bits < BUCKET_BITS_MIN	? BUCKET_BITS_MIN
	       : bits > BUCKET_BITS_MAX ? BUCKET_BITS_MAX
					: bits;
	range = kmax - kmin;
	shift = 64 - __builtin_clzll(range) - bits;
	shift = shift < 0 ? 0 : shift;
	nb = (size_t)(range >> shift) + 1;
	hist = xcalloc(xmallocarray_size(nx + 2, nb), sizeof(*hist));
	all = hist + (nx + 1) * nb;
	for (size_t s = 0, i = 0; s < nsegs; s++) {
		uint32_t row = slot[segs[s].run];
		uint32_t *h = hist + (row == CCHART_NO_RUN ? 0 : row) * nb;
		for (; i < segs[s].end; i++)
			h[(key_of(vals[i]) - kmin) >> shift]++;
	}
	for (size_t row = 0; row <= nx; row++) {
		uint32_t *h = hist + row * nb;
		for (size_t b = 0; b < nb; b++)
			all[b] += h[b];
	}
	for (size_t row = 1; row <= nx + 1; row++) {
		uint32_t *h = hist + row * nb;
		for (size_t b = 1; b < nb; b++)
			h[b] += h[b - 1]; /* inclusive prefix counts */
	}

	/* each query's bucket: the first whose prefix count without its run passes its rank */
	for (size_t k = 0; k < nq; k++) {
		struct cchart_rank_query *q = qs[k];
		const uint32_t *ex = q->excl == CCHART_NO_RUN ? NULL : hist + slot[q->excl] * nb;
		size_t lo = 0, hi = nb - 1;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			size_t cnt = all[mid] - (ex ? ex[mid] : 0);
			if (cnt > q->rank)
				hi = mid;
			else
				lo = mid + 1;
		}
		q->bucket = lo;
		if (lo)
			q->rank -= all[lo - 1] - (ex ? ex[lo - 1] : 0);
	}

	/* gather the needed buckets in one pass, keeping their runs as segments */
	qsort(qs, nq, sizeof(*qs), cmp_query_bucket);
	group_of = xmallocarray(nb, sizeof(*group_of));
	memset(group_of, 0xff, nb * sizeof(*group_of));
	grp = xcalloc(nq + 1, sizeof(*grp));
	seg_block = xmallocarray(xmallocarray_size(nq, nsegs), sizeof(*seg_block));
	for (size_t k = 0; k < nq; k++) {
		size_t b = qs[k]->bucket;
		struct group *g = &grp[ngroups];
		if (group_of[b] != SIZE_MAX)
			continue;
		group_of[b] = ngroups;
		g->first_query = k;
		g->start = g->pos = total;
		g->kmin = UINT64_MAX;
		g->segs = seg_block + ngroups * nsegs;
		total += all[b] - (b ? all[b - 1] : 0);
		ngroups++;
	}
	grp[ngroups].first_query = nq;
	sub = xmallocarray(total, sizeof(*sub));
	for (size_t s = 0, i = 0; s < nsegs; s++) {
		uint32_t run = segs[s].run;
		for (; i < segs[s].end; i++) {
			uint64_t key = key_of(vals[i]);
			size_t gi = group_of[(key - kmin) >> shift];
			struct group *g;
			if (gi == SIZE_MAX)
				continue;
			g = &grp[gi];
			sub[g->pos++] = vals[i];
			g->kmin = key < g->kmin ? key : g->kmin;
			g->kmax = key > g->kmax ? key : g->kmax;
			if (!g->nsegs || g->segs[g->nsegs - 1].run != run)
				g->segs[g->nsegs++].run = run;
			g->segs[g->nsegs - 1].end = g->pos - g->start;
		}
	}
	free(hist);
	free(slot);
	free(group_of);
	for (size_t gi = 0; gi < ngroups; gi++) {
		struct group *g = &grp[gi];
		cchart_select(sub + g->start, g->segs, g->nsegs, nr_runs, val_of(g->kmin),
			      val_of(g->kmax), qs + g->first_query,
			      grp[gi + 1].first_query - g->first_query);
	}
	free(sub);
	free(seg_block);
	free(grp);
}
