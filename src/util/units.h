#ifndef REVPERF_UTIL_UNITS_H
#define REVPERF_UTIL_UNITS_H

/*
 * How quantities are written for a person: byte sizes in one unit system everywhere
 * (binary multiples, IEC names: B, KiB, MiB, GiB, TiB, as `log-limit` and the caps are
 * given), and counts with their noun in the singular or the plural. No global state.
 */
#include <stddef.h>
#include <stdint.h>

struct strbuf;

/*
 * A byte size: whole bytes below 1 KiB ("0 B", "1023 B"), else three significant digits
 * in the largest unit that keeps the number below 1000 ("1 KiB", "4.5 KiB", "0.977 MiB"
 * for 1000 KiB, "-12.3 KiB"); NaN and infinities as "n/a". Written into buf (always
 * terminated, truncated to size).
 */
void units_bytes_format(double bytes, char *buf, size_t size);
/* The same, appended to sb. */
void units_bytes_add(struct strbuf *sb, double bytes);

/* "call" when n is 1, else "calls": the word a count of n takes (`one`, or `many`). */
const char *units_noun(uint64_t n, const char *one, const char *many);
/* "1 call", "0 calls", "12 calls": n and its noun, appended to sb. */
void units_count_add(struct strbuf *sb, uint64_t n, const char *one, const char *many);

/* How a range follows its value. */
enum units_range_style {
	UNITS_RANGE_DOTS,     /* "123 (120..130)"; without a value "120..130" */
	UNITS_RANGE_BRACKETS, /* "1.023 [1.010, 1.040]"; without a value "[1.010, 1.040]" */
};
/*
 * A value and its range [lo, hi], each already printed, appended to sb; the range is left
 * out when it is a point that prints as the value does ("123", never "123 (123..123)").
 * value may be NULL: the range alone, one number when lo and hi print alike.
 */
void units_range_add(struct strbuf *sb, const char *value, const char *lo, const char *hi,
		     enum units_range_style style);
/*
 * A ratio B/A and its interval (lo, hi NaN: none) with three decimals, or more (up to five)
 * when the larger of the interval's width and the change |ratio - 1| is below 0.01: then the
 * last digit shown is at most a tenth of it, so that an exact count's 1.00079 (equal at a
 * 0.1% tolerance) and 1.0014 (worse) do not both read 1.001. Below 0.01% (the spread of
 * counts that still counts as exact) it shows none: 1.000. Style as units_range_add(); value NaN: the interval alone; lo or
 * hi NaN: the value alone (an infinite end is printed).
 */
void units_ratio_add(struct strbuf *sb, double value, double lo, double hi,
		     enum units_range_style style);
/* The decimals units_ratio_add() prints with. */
int units_ratio_decimals(double value, double lo, double hi);
/* The same for numbers printed with `decimals` decimals ("%.*f"); value NaN: no value. */
void units_range_addf(struct strbuf *sb, double value, double lo, double hi, int decimals,
		      enum units_range_style style);

#endif
