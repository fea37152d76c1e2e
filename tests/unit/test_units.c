/*
 * util/units: byte sizes in one unit system (IEC) and counts with their noun, as every
 * report prints them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/common.h"
#include "util/units.h"

static void test_bytes(void **state)
{
	static const struct {
		double in;
		const char *want;
	} cases[] = {
	    {0, "0 B"},
	    {1, "1 B"},
	    {812, "812 B"},
	    {1000, "1000 B"}, /* below 1 KiB: whole bytes, never "1 kB" */
	    {1023, "1023 B"},
	    {1024, "1 KiB"},
	    {4096, "4 KiB"},
	    {4200, "4.1 KiB"},
	    {1536, "1.5 KiB"},
	    {123456, "121 KiB"},
	    {1023.0 * 1024, "0.999 MiB"}, /* 1023 KiB: not "1.02e+03 KiB" */
	    {1024.0 * 1024 - 1, "1 MiB"},
	    {1048576, "1 MiB"},
	    {16.0 * 1048576, "16 MiB"},
	    {11.0 * 1048576 + 5000, "11 MiB"},
	    {1.5 * 1073741824, "1.5 GiB"},
	    {3.0 * 1099511627776, "3 TiB"},
	    {-812, "-812 B"},
	    {-12.3 * 1024, "-12.3 KiB"},
	    {NAN, "n/a"},
	    {INFINITY, "n/a"},
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb = STRBUF_INIT;
		char buf[32];
		units_bytes_format(cases[i].in, buf, sizeof(buf));
		units_bytes_add(&sb, cases[i].in);
		if (strcmp(buf, cases[i].want) || strcmp(sb.buf, cases[i].want))
			fail_msg("%.17g: got '%s' and '%s', want '%s'", cases[i].in, buf, sb.buf,
				 cases[i].want);
		strbuf_release(&sb);
	}
}

static void test_bytes_truncated(void **state)
{
	char buf[4];
	(void)state;
	units_bytes_format(4096, buf, sizeof(buf));
	assert_string_equal(buf, "4 K");
}

static void test_counts(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	units_count_add(&sb, 0, "call", "calls");
	strbuf_addstr(&sb, ", ");
	units_count_add(&sb, 1, "call", "calls");
	strbuf_addstr(&sb, ", ");
	units_count_add(&sb, 2, "process", "processes");
	assert_string_equal(sb.buf, "0 calls, 1 call, 2 processes");
	assert_string_equal(units_noun(1, "run", "runs"), "run");
	assert_string_equal(units_noun(UINT64_MAX, "run", "runs"), "runs");
	strbuf_release(&sb);
}

static void test_ranges(void **state)
{
	static const struct {
		const char *value, *lo, *hi;
		enum units_range_style style;
		const char *want;
	} cases[] = {
	    {"123", "120", "130", UNITS_RANGE_DOTS, "123 (120..130)"},
	    {"123", "123", "123", UNITS_RANGE_DOTS, "123"},
	    {"123.0", "123", "123", UNITS_RANGE_DOTS, "123.0 (123..123)"}, /* not the same print */
	    {NULL, "100.0", "100.0", UNITS_RANGE_DOTS, "100.0"},
	    {NULL, "90.0", "100.0", UNITS_RANGE_DOTS, "90.0..100.0"},
	    {"1.000", "1.000", "1.000", UNITS_RANGE_BRACKETS, "1.000"},
	    {"1.023", "1.010", "1.040", UNITS_RANGE_BRACKETS, "1.023 [1.010, 1.040]"},
	    {NULL, "1.010", "1.040", UNITS_RANGE_BRACKETS, "[1.010, 1.040]"},
	    {NULL, "1.010", "1.010", UNITS_RANGE_BRACKETS, "1.010"},
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb = STRBUF_INIT;
		units_range_add(&sb, cases[i].value, cases[i].lo, cases[i].hi, cases[i].style);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("case %zu: got '%s', want '%s'", i, sb.buf, cases[i].want);
		strbuf_release(&sb);
	}
}

/*
 * Ratios: three decimals, more only for an interval and a change below 0.001, so that an
 * exact count's change inside a 0.1% tolerance and one beyond it never print alike.
 */
static void test_ratios(void **state)
{
	static const struct {
		double value, lo, hi;
		const char *want;
	} cases[] = {
	    {1.000791066, 1.000791066, 1.000791066, "1.00079"}, /* the TinyCC pair: equal ... */
	    {1.001412, 1.001412, 1.001412, "1.0014"},		/* ... and worse, at 0.1% */
	    {1, 1, 1, "1.000"},					/* exact and unchanged */
	    {0.68, 0.68, 0.68, "0.680"},			/* a large exact change */
	    {1.023, 1.010, 1.040, "1.023 [1.010, 1.040]"},	/* a timed interval */
	    {1.0021, 1.0012, 1.0030, "1.0021 [1.0012, 1.0030]"}, /* a narrow one */
	    {1.5, 1.4998, 1.5002, "1.500"},			/* narrow, far from 1 */
	    {1.0002, 1.0002, 1.0002, "1.00020"},		/* at most five decimals */
	    {1, 0.999995, 1.000005, "1.000"},			/* below 0.01%: none */
	    {0, 0, INFINITY, "0.000 [0.000, inf]"},		/* an infinite end */
	    {NAN, 1.0004, 1.0006, "[1.00040, 1.00060]"},	/* no value: the interval */
	    {1.01, NAN, NAN, "1.010"},				/* no interval */
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb = STRBUF_INIT;
		units_ratio_add(&sb, cases[i].value, cases[i].lo, cases[i].hi, UNITS_RANGE_BRACKETS);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("case %zu: got '%s', want '%s'", i, sb.buf, cases[i].want);
		strbuf_release(&sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bytes),
	    cmocka_unit_test(test_bytes_truncated),
	    cmocka_unit_test(test_counts),
	    cmocka_unit_test(test_ranges),
	    cmocka_unit_test(test_ratios),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
