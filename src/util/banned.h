#ifndef REVPERF_UTIL_BANNED_H
#define REVPERF_UTIL_BANNED_H

/*
 * Functions that are too easy to misuse. Included (by util/common.h) after the system
 * headers, so that any use is a compile error.
 */
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
