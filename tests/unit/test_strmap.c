/* Unit tests of the string map (util/strmap.h) that keeps readers of many names linear. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "util/common.h"
#include "util/strmap.h"

static void test_put_get(void **state)
{
	struct strmap m = STRMAP_INIT;
	bool added;
	UNUSED(state);

	assert_null(strmap_get(&m, "a"));
	assert_int_equal(*strmap_put(&m, "a", 7, &added), 7);
	assert_true(added);
	/* A second put keeps the first value and says so. */
	assert_int_equal(*strmap_put(&m, "a", 9, &added), 7);
	assert_false(added);
	*strmap_get(&m, "a") = 11;
	assert_int_equal(*strmap_get(&m, "a"), 11);
	assert_int_equal(*strmap_put(&m, "", 3, NULL), 3);
	assert_int_equal(*strmap_get(&m, ""), 3);
	assert_null(strmap_get(&m, "b"));
	assert_int_equal(m.nr, 2);
	strmap_release(&m);
	assert_int_equal(m.nr, 0);
	assert_null(strmap_get(&m, "a"));
	strmap_release(&m); /* twice is fine */
}

static void test_many_keys(void **state)
{
	struct strmap m;
	char key[32];
	UNUSED(state);

	strmap_init(&m);
	for (size_t i = 0; i < 100000; i++) {
		snprintf(key, sizeof(key), "counter%zu", i);
		strmap_put(&m, key, i, NULL);
	}
	assert_int_equal(m.nr, 100000);
	assert_true(m.cap >= 2 * m.nr); /* at most half full: probes stay short */
	for (size_t i = 0; i < 100000; i += 997) {
		snprintf(key, sizeof(key), "counter%zu", i);
		assert_non_null(strmap_get(&m, key));
		assert_int_equal(*strmap_get(&m, key), i);
	}
	assert_null(strmap_get(&m, "counter100000"));
	strmap_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_put_get),
	    cmocka_unit_test(test_many_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
