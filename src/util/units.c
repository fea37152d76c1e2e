/*
 * Quantities written for a person (util/units.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/common.h"
#include "util/units.h"

void units_bytes_format(double bytes, char *buf, size_t size)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = fabs(bytes);
	size_t u = 0;

	if (!size)
		return;
	if (!isfinite(bytes)) {
		snprintf(buf, size, "n/a");
		return;
	}
	/* Whole bytes below 1 KiB; above, the unit in which three significant digits do not
	 * round up to 1000 (%.3g would then switch to an exponent). */
	if (v < 1024) {
		snprintf(buf, size, "%.0f B", bytes);
		return;
	}
	while (u + 1 < ARRAY_SIZE(units) && v >= 999.5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%s%.3g %s", bytes < 0 ? "-" : "", v, units[u]);
}

void units_bytes_add(struct strbuf *sb, double bytes)
{
	char buf[32];
	units_bytes_format(bytes, buf, sizeof(buf));
	strbuf_addstr(sb, buf);
}

const char *units_noun(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void units_count_add(struct strbuf *sb, uint64_t n, const char *one, const char *many)
{
	strbuf_addf(sb, "%llu %s", (unsigned long long)n, units_noun(n, one, many));
}

void units_range_add(struct strbuf *sb, const char *value, const char *lo, const char *hi,
		     enum units_range_style style)
{
	bool point = !strcmp(lo, hi) && (!value || !strcmp(value, lo));

	if (value)
		strbuf_addstr(sb, value);
	if (point) {
		if (!value)
			strbuf_addstr(sb, lo);
		return;
	}
	if (style == UNITS_RANGE_BRACKETS)
		strbuf_addf(sb, "%s[%s, %s]", value ? " " : "", lo, hi);
	else if (value)
		strbuf_addf(sb, " (%s..%s)", lo, hi);
	else
		strbuf_addf(sb, "%s..%s", lo, hi);
}

void units_range_addf(struct strbuf *sb, double value, double lo, double hi, int decimals,
		      enum units_range_style style)
{
	char v[64], l[64], h[64];
	snprintf(v, sizeof(v), "%.*f", decimals, value);
	snprintf(l, sizeof(l), "%.*f", decimals, lo);
	snprintf(h, sizeof(h), "%.*f", decimals, hi);
	units_range_add(sb, isnan(value) ? NULL : v, l, h, style);
}

int units_ratio_decimals(double value, double lo, double hi)
{
	double scale = 0;
	int decimals = 3;

	if (isfinite(lo) && isfinite(hi))
		scale = hi - lo;
	if (isfinite(value))
		scale = fmax(scale, fabs(value - 1));
	else if (isfinite(lo) && isfinite(hi))
		scale = fmax(scale, fmax(fabs(lo - 1), fabs(hi - 1)));
	/* below 0.01% (what counts as exact: docs/counted.md), none is shown: 1.000 */
	while (scale >= 1e-4 && decimals < 6 && pow(10, -decimals) > scale / 10 * (1 + 1e-9))
		decimals++;
	return decimals;
}

void units_ratio_add(struct strbuf *sb, double value, double lo, double hi,
		     enum units_range_style style)
{
	int decimals = units_ratio_decimals(value, lo, hi);

	if (!isnan(lo) && !isnan(hi)) /* an infinite end is printed: [0.000, inf] */
		units_range_addf(sb, value, lo, hi, decimals, style);
	else if (!isnan(value))
		strbuf_addf(sb, "%.*f", decimals, value); /* no interval */
}
