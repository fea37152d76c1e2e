#ifndef REVPERF_UTIL_BANNED_H
#define REVPERF_UTIL_BANNED_H

/*
 * Functions that are too easy to misuse: any use is a compile error. Included by
 * util/common.h. The headers that declare them come first, whatever the includer's order:
 * with _FORTIFY_SOURCE (Debian's packaging flags) glibc defines inline wrappers named
 * strcpy, sprintf, ..., which these macros would break if <string.h> or <stdio.h> came
 * after them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BANNED(func) sorry_##func##_is_banned_use_strbuf_or_snprintf

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef gets
#define gets(x) BANNED(gets)
#undef atoi
#define atoi(x) BANNED(atoi)

#endif
