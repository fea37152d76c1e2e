/*
 * A double as a JSON value (util/json_real.h): a finite one a number of that value, NaN and
 * both infinities null, so that a writer keeps the key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "util/common.h"
#include "util/json_real.h"

static void test_finite(void **state)
{
	static const double cases[] = {0.0, -0.0, 1.5, -2.25e-300, 1e308, 4503599627370497.0};
	UNUSED(state);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		json_t *j = json_real_or_null(cases[i]);
		assert_non_null(j);
		assert_true(json_is_real(j));
		assert_true(json_real_value(j) == cases[i]);
		json_decref(j);
	}
}

static void test_not_finite(void **state)
{
	static const double cases[] = {NAN, -NAN, INFINITY, -INFINITY};
	UNUSED(state);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		json_t *o = json_object(), *a = json_array();
		char *text;
		assert_int_equal(json_object_set_new(o, "v", json_real_or_null(cases[i])), 0);
		assert_int_equal(json_array_append_new(a, json_real_or_null(cases[i])), 0);
		assert_int_equal(json_object_set_new(o, "a", a), 0);
		text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
		assert_string_equal(text, "{\"a\":[null],\"v\":null}");
		free(text);
		json_decref(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_finite),
	    cmocka_unit_test(test_not_finite),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
