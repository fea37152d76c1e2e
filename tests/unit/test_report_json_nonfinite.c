/*
 * Unit tests of the JSON writers with a value that is not a number (src/report): json_real()
 * of NaN or infinity is NULL in Jansson, and json_object_set_new() then drops the key
 * silently. Each such value is written as null instead, its key kept: the control charts'
 * period_s, margin and chance_any, the profile comparison's threshold, the attribution's
 * alpha.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/control_chart.h"
#include "analysis/profile_attribution.h"
#include "compare/compare_profile.h"
#include "report/attribution_report.h"
#include "report/chart_report.h"
#include "report/report.h"
#include "util/common.h"

/* `key` is in `o`, and null. */
static void assert_null_key(const json_t *o, const char *key)
{
	const json_t *j = json_object_get(o, key);
	if (!j)
		fail_msg("key \"%s\" missing", key);
	assert_true(json_is_null(j));
}

static void test_chart_nan(void **state)
{
	struct cchart_result r;
	json_t *o;
	UNUSED(state);

	memset(&r, 0, sizeof(r));
	r.period_s = NAN;
	r.margin = INFINITY;
	r.chance_any = NAN;
	r.filter.sw_p = NAN;
	o = chart_report_json(NULL, &r, NULL, NULL);
	assert_non_null(o);
	assert_null_key(o, "period_s");
	assert_null_key(o, "margin");
	assert_null_key(o, "chance_any");
	json_decref(o);

	r.period_s = 0.1;
	r.chance_any = 0.25;
	o = chart_report_json(NULL, &r, NULL, NULL);
	assert_true(json_real_value(json_object_get(o, "period_s")) == 0.1);
	assert_true(json_real_value(json_object_get(o, "chance_any")) == 0.25);
	json_decref(o);
}

static void test_profile_threshold_nan(void **state)
{
	struct cct_attribution a;
	json_t *o;
	char err[] = "no profile";
	UNUSED(state);

	memset(&a, 0, sizeof(a));
	a.error = err;
	a.threshold = NAN;
	o = report_attribution_json(&a);
	assert_non_null(o);
	assert_null_key(o, "threshold");
	json_decref(o);
}

static void test_attribution_alpha_nan(void **state)
{
	struct attribution a;
	json_t *o;
	UNUSED(state);

	memset(&a, 0, sizeof(a));
	a.alpha = NAN;
	o = attribution_json(&a);
	assert_non_null(o);
	assert_null_key(o, "alpha");
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chart_nan),
	    cmocka_unit_test(test_profile_threshold_nan),
	    cmocka_unit_test(test_attribution_alpha_nan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
