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
	    {"ir", {6131234, 6191234}, {0, 0}, {"6.13M", "0", "6.19M", "0"}},
	    /* counts that vary: was "592M ± 1.23k" */
	    {"ir",
	     {592123456, 592133456},
	     {1234, 5678},
	     {"592.1235M", "0.0012M", "592.1335M", "0.0057M"}},
	    /* an sd below one count: never 0 */
	    {"ir", {6131234, 6131234}, {0.408, 0}, {"6.131234M", "<0.000001M", "6.131234M", "0"}},
	    {"minflt", {59.667, 60}, {2.08, 1.73}, {"59.67", "2.08", "60.00", "1.73"}},
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mean_sd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
