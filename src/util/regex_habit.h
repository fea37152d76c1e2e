#ifndef REVPERF_UTIL_REGEX_HABIT_H
#define REVPERF_UTIL_REGEX_HABIT_H

/*
 * Perl (PCRE) habits in a POSIX extended regular expression: \d, \s, \w and their
 * negations are no POSIX classes. glibc reads \d as a plain "d" (so /(\d+) MB/ never
 * reads a number) and \s, \w as GNU extensions other libraries lack.
 */
#include "util/strbuf.h"

/*
 * Appends to advice, for each habit in the ERE pattern (once per kind, in order of first
 * appearance), "\d is Perl syntax: POSIX reads it as the letter d; write [0-9]" and the
 * like, separated by "; ". Returns the number of habits found (0: nothing appended).
 */
int regex_pcre_habits(const char *pattern, struct strbuf *advice);

#endif
