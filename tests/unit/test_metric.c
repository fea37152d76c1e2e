/*
 * core/metric: a report row's means and sds in one unit and with as many digits after the
 * point (metric_format_mean_sd()), an sd of exactly 0 as 0 and a nonzero one never as 0.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/metric.h"
#include "util/common.h"

static void test_mean_sd(void **state)
{
	static const struct metric_def reported = {"v", UNIT_CUSTOM, LOWER_IS_BETTER, "", NULL, 0};
	static const struct {
		const char *metric; /* NULL: the reported metric v, without a unit */
		double mean[2], sd[2];
		const char *want[4]; /* mean and sd of each side */
	} cases[] = {
	    /* wall: was "1.25 ms ± 39.1 us" */
	    {"wall",
	     {1.25e-3, 1.27e-3},
	     {39.1e-6, 46.9e-6},
	     {"1.250 ms", "0.039 ms", "1.270 ms", "0.047 ms"}},
	    /* one unit for the row, the largest mean's */
	    {"wall",
	     {948e-6, 1.592e-3},
	     {133e-6, 1.101e-3},
	     {"0.948 ms", "0.133 ms", "1.592 ms", "1.101 ms"}},
	    {"wall", {2.5, 2.6}, {0.25, 0.125}, {"2.50 s", "0.25 s", "2.60 s", "0.12 s"}},
	    {"wall", {0, 0}, {0, 0}, {"0 s", "0", "0 s", "0"}},
	    /* exact counts: sd 0 reads 0, the mean as before */
	    {"ir", {6131234, 6191234}, {0, 0}, {"6.13 M Ir", "0", "6.19 M Ir", "0"}},
	    /* counts that vary: was "592M ± 1.23k" */
	    {"ir",
	     {592123456, 592133456},
	     {1234, 5678},
	     {"592.1235 M Ir", "0.0012 M Ir", "592.1335 M Ir", "0.0057 M Ir"}},
	    /* an sd below one count: never 0 */
	    {"ir", {6131234, 6131234}, {0.408, 0}, {"6.131234 M Ir", "<0.000001 M Ir", "6.131234 M Ir", "0"}},
	    /* counts with a unit name it as the attribution does ("1.25 G Ir" was "1.25G"):
	     * ir, sim-cycles, instructions, cycles; below 10000 unscaled */
	    {"ir", {1.25e9, 1.3e9}, {0, 0}, {"1.25 G Ir", "0", "1.30 G Ir", "0"}},
	    {"sim-cycles", {2.5e9, 2.5e9}, {0, 0}, {"2.5 G cycles", "0", "2.5 G cycles", "0"}},
	    /* means that round apart by more than they differ get the digits that show it
	     * (jq trial: "1.30G -> 1.31G" for an exact ratio of 1.00021) */
	    {"ir", {1304900000, 1305170000}, {0, 0}, {"1.305 G Ir", "0", "1.305 G Ir", "0"}},
	    {"ir", {1304490000, 1305510000}, {0, 0}, {"1.3045 G Ir", "0", "1.3055 G Ir", "0"}},
	    {"wall", {1.0049, 1.0051}, {0, 0}, {"1.005 s", "0", "1.005 s", "0"}},
	    {"instructions", {4.2e6, 4.3e6}, {1e4, 2e4}, {"4.20 M insns", "0.01 M insns",
	     "4.30 M insns", "0.02 M insns"}},
	    {"cycles", {5000, 5100}, {0, 0}, {"5000 cycles", "0", "5100 cycles", "0"}},
	    /* other counts have no unit */
	    {"minflt", {59.667, 60}, {2.08, 1.73}, {"59.67", "2.08", "60.00", "1.73"}},
	    {"nvcsw", {2.5e6, 2.5e6}, {0, 0}, {"2.5M", "0", "2.5M", "0"}},
	    {"maxrss",
	     {1400000, 1500000},
	     {98000, 80000},
	     {"1.335 MiB", "0.093 MiB", "1.431 MiB", "0.076 MiB"}},
	    {"maxrss", {800, 900}, {12.5, 0}, {"800 B", "12 B", "900 B", "0"}},
	    /* reported: was "1033 ± 57.74" */
	    {NULL, {1033.333, 1066.667}, {57.735, 57.735}, {"1033", "58", "1067", "58"}},
	    {NULL, {500, 500}, {0, 0}, {"500", "0", "500", "0"}},
	    {NULL, {NAN, 2}, {NAN, 0.5}, {"n/a", "n/a", "2.0", "0.5"}},
	};
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct metric_def *def =
		    cases[i].metric ? metric_find(cases[i].metric) : &reported;
		struct metric_mean_sd out[2];
		assert_non_null(def);
		metric_format_mean_sd(def, 2, cases[i].mean, cases[i].sd, out);
		for (size_t side = 0; side < 2; side++)
			if (strcmp(out[side].mean, cases[i].want[2 * side]) ||
			    strcmp(out[side].sd, cases[i].want[2 * side + 1]))
				fail_msg("case %zu side %zu: got '%s ± %s', want '%s ± %s'", i,
					 side, out[side].mean, out[side].sd,
					 cases[i].want[2 * side], cases[i].want[2 * side + 1]);
	}
}

/* One value alone (history's change points, the site): the same units. */
static void test_format(void **state)
{
	static const struct {
		const char *metric;
		double value;
		const char *want;
	} cases[] = {
	    {"ir", 1.25e9, "1.25 G Ir"},	 {"ir", 27.1e6, "27.1 M Ir"},
	    {"ir", 12345, "12.3 k Ir"},		 {"ir", 950, "950 Ir"},
	    {"ir", 0, "0 Ir"},			 {"sim-cycles", 3e9, "3 G cycles"},
	    {"instructions", 4.5e6, "4.5 M insns"}, {"cycles", 7e6, "7 M cycles"},
	    {"minflt", 2.5e6, "2.5M"},		 {"wall", 0.00125, "1.25 ms"},
	};
	char buf[64];
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		metric_format(metric_find(cases[i].metric), cases[i].value, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want))
			fail_msg("case %zu: got '%s', want '%s'", i, buf, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mean_sd),
	    cmocka_unit_test(test_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
