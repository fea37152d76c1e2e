#ifndef REVPERF_UTIL_STRBUF_H
#define REVPERF_UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * A growable, always NUL-terminated string. Initialise with STRBUF_INIT or strbuf_init();
 * the owner calls strbuf_release() (or takes the buffer with strbuf_detach()).
 */
struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

extern char strbuf_empty[];
#define STRBUF_INIT { strbuf_empty, 0, 0 }

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
/* Returns the buffer (caller frees) and leaves sb empty. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
__attribute__((format(printf, 2, 3))) void strbuf_addf(struct strbuf *sb, const char *fmt, ...);
__attribute__((format(printf, 2, 0))) void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/*
 * Appends s escaped for XML and HTML text and attribute values: & < > " ' as character
 * references; control characters (other than tab and newline), which XML 1.0 cannot
 * carry at all, and bytes that are not valid UTF-8 become U+FFFD (&#xFFFD;).
 */
void strbuf_add_xml_escaped(struct strbuf *sb, const char *s);

#endif
