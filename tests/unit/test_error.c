/*
 * error() and warning() (util/error.h): the messages kept for a JSON error document, and
 * warnings silenced by -q.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/common.h"

static void test_record(void **state)
{
	(void)state;
	assert_null(error_recorded(0));
	assert_int_equal(error("not kept: recording is off"), -1);
	assert_null(error_recorded(0));
	error_record_start();
	assert_int_equal(error("revperf.ini:%d: invalid value '%s'", 3, "x"), -1);
	warning("a warning is no error");
	error_record_message("a usage error");
	error("escape \x1b[31m made visible");
	assert_string_equal(error_recorded(0), "revperf.ini:3: invalid value 'x'");
	assert_string_equal(error_recorded(1), "a usage error");
	assert_string_equal(error_recorded(2), "escape \\x1b[31m made visible");
	assert_null(error_recorded(3));
	error_record_stop();
	assert_null(error_recorded(0));
	error("not kept after stop");
	assert_null(error_recorded(0));
}

static void test_record_capped(void **state)
{
	size_t n = 0;
	(void)state;
	error_record_start();
	for (int i = 0; i < 1000; i++)
		error("message %d", i);
	while (error_recorded(n))
		n++;
	assert_true(n >= 1 && n < 1000); /* the first ones, not unbounded */
	assert_string_equal(error_recorded(0), "message 0");
	error_record_stop();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_record),
	    cmocka_unit_test(test_record_capped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
