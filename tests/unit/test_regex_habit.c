/* Perl (PCRE) habits in POSIX regexes of metric.NAME, and the POSIX form named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/common.h"
#include "util/regex_habit.h"

static void test_habits(void **state)
{
	static const struct {
		const char *pattern;
		int found;
		const char *advice; /* a part of the advice, or NULL */
	} cases[] = {
	    {"speed: ([0-9.]+) MB\\/s", 0, NULL},
	    {"([[:digit:]]+)", 0, NULL},
	    {"(\\d+) MB", 1,
	     "\\d is Perl (PCRE) syntax that POSIX reads as the letter d; write [0-9]"},
	    {"([\\d.]+)", 1, "[0-9]"},		 /* in a bracket expression too */
	    {"\\s*(\\d+)\\s", 2, "[[:space:]]"}, /* each kind once */
	    {"(\\w+)=([0-9]+)", 1, "[[:alnum:]_]"},
	    {"(\\D)(\\S)(\\W)", 3, "[^0-9]"},
	    {"a\\\\d(1)", 0, NULL},	  /* an escaped backslash, then a letter d */
	    {"\\(([0-9.]+)\\)", 0, NULL}, /* escaped parentheses are POSIX */
	    {"trailing\\", 0, NULL},
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb = STRBUF_INIT;
		int found = regex_pcre_habits(cases[i].pattern, &sb);
		if (found != cases[i].found || (!found && sb.len) ||
		    (cases[i].advice && !strstr(sb.buf, cases[i].advice)))
			fail_msg("/%s/: %d habit(s), '%s'; expected %d with '%s'", cases[i].pattern,
				 found, sb.buf, cases[i].found,
				 cases[i].advice ? cases[i].advice : "");
		strbuf_release(&sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_habits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
