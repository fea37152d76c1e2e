/*
 * Control charts: the bimodal filter's decision on the pooled baseline (METHODS.md section
 * 4, the paper's section 4.2). Shapiro-Wilk on a strided subsample; when it rejects, the
 * Gaussian KDE of a smaller one; with two or more modes, the cut is the lowest grid point
 * between the two highest, if it is a real valley. See docs/control-charts.md.
 */
#include "analysis/control_chart.h"

#include <math.h>

#include "analysis/stats.h"
#include "util/common.h"

/*
 * Shapiro-Wilk on at most this many baseline samples, at even strides (stats_shapiro_wilk
 * takes up to 5000; its sort of 5000 values would cost 0.5 ms per counter, and 2000 already
 * reject any mixture worth filtering).
 */
#define SW_MAX 2000u
#define SW_ALPHA 0.05
/* The KDE of the bimodal filter: points of the subsample, and points of the grid. */
#define KDE_POINTS 512u
#define KDE_GRID 128u
/*
 * The two highest modes must be separated by a valley at most this share of the lower
 * one: a flat-topped distribution (a uniform load times a slope, plus noise) has two
 * shoulders with a shallow dip between them, which is not two kinds of load.
 */
#define VALLEY_MAX 0.5

/* m values of x[0..n) at even strides (n >= m). */
static void stride_sample(const double *x, size_t n, double *out, size_t m)
{
	for (size_t i = 0; i < m; i++)
		out[i] = x[(size_t)((unsigned long long)i * n / m)];
}

void cchart_filter_decide(const double *vals, size_t n, double mode_min_ratio,
			  struct cchart_counter *c)
{
	size_t m, mk, a = SIZE_MAX, b = SIZE_MAX, v;
	double sub[SW_MAX], grid[KDE_GRID], dens[KDE_GRID], sw, p, lo, hi, h, sd, top = 0;

	if (n < 3)
		return;
	m = n < SW_MAX ? n : SW_MAX;
	stride_sample(vals, n, sub, m);
	if (stats_shapiro_wilk(sub, m, &sw, &p) < 0)
		return;
	c->sw_p = p;
	if (!(p < SW_ALPHA))
		return;
	mk = n < KDE_POINTS ? n : KDE_POINTS;
	stride_sample(vals, n, sub, mk);
	sd = stats_sd(sub, mk);
	if (!(sd > 0))
		return;
	lo = hi = sub[0];
	for (size_t i = 1; i < mk; i++) {
		lo = fmin(lo, sub[i]);
		hi = fmax(hi, sub[i]);
	}
	/* the kernel's sd; 3 of them past the extremes so that a mode at an end is a peak */
	h = sd * stats_kde_factor(mk, STATS_BW_SCOTT);
	lo -= 3 * h;
	hi += 3 * h;
	for (size_t g = 0; g < KDE_GRID; g++)
		grid[g] = lo + (hi - lo) * (double)g / (double)(KDE_GRID - 1);
	if (stats_gaussian_kde(sub, mk, STATS_BW_SCOTT, grid, KDE_GRID, dens) < 0)
		return;
	for (size_t g = 0; g < KDE_GRID; g++)
		top = fmax(top, dens[g]);
	for (size_t g = 1; g + 1 < KDE_GRID; g++) {
		if (!(dens[g] > dens[g - 1] && dens[g] >= dens[g + 1]))
			continue;
		if (dens[g] < mode_min_ratio * top)
			continue;
		c->nr_modes++;
		if (a == SIZE_MAX || dens[g] > dens[a]) {
			b = a;
			a = g;
		} else if (b == SIZE_MAX || dens[g] > dens[b]) {
			b = g;
		}
	}
	if (c->nr_modes < 2)
		return;
	if (a > b) {
		size_t t = a;
		a = b;
		b = t;
	}
	v = a;
	for (size_t g = a; g <= b; g++)
		if (dens[g] < dens[v])
			v = g;
	if (dens[v] > VALLEY_MAX * fmin(dens[a], dens[b]))
		return;
	c->filtered = true;
	c->cut = grid[v];
}
