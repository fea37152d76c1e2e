/* Perl (PCRE) escapes in a POSIX regex, and what to write instead. */
#include "util/regex_habit.h"

#include <string.h>

#include "util/common.h"

static const struct {
	char escape;
	const char *posix, *reading;
} habits[] = {
    {'d', "[0-9]", "as the letter d"},
    {'D', "[^0-9]", "as the letter D"},
    {'s', "[[:space:]]", "only as a GNU extension"},
    {'S', "[^[:space:]]", "only as a GNU extension"},
    {'w', "[[:alnum:]_]", "only as a GNU extension"},
    {'W', "[^[:alnum:]_]", "only as a GNU extension"},
};

int regex_pcre_habits(const char *pattern, struct strbuf *advice)
{
	bool seen[ARRAY_SIZE(habits)] = {false};
	int found = 0;
	for (const char *p = pattern; *p; p++) {
		if (*p != '\\')
			continue;
		if (!p[1])
			break;
		p++; /* the escaped character: "\\d" is a backslash and a d */
		for (size_t i = 0; i < ARRAY_SIZE(habits); i++) {
			if (*p != habits[i].escape || seen[i])
				continue;
			seen[i] = true;
			strbuf_addf(advice,
				    "%s\\%c is Perl (PCRE) syntax that POSIX reads %s; write %s",
				    found ? "; " : "", habits[i].escape, habits[i].reading,
				    habits[i].posix);
			found++;
		}
	}
	return found;
}
