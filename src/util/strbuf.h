#ifndef REVPERF_UTIL_STRBUF_H
#define REVPERF_UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

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
/*
 * Untrusted text for a terminal (benchmark output, commit subjects, names read from
 * profiles, ELF files and imported results): appends s with what could drive the terminal
 * made visible but harmless: control characters as \t, \n, \r or \xHH (ESC is \x1b,
 * DEL \x7f), bytes that are not valid UTF-8 as \xHH, and the C1 controls and the
 * bidirectional overrides and isolates (valid UTF-8 that reorders or drives the display)
 * as \uHHHH. Other text, valid UTF-8 included, is kept. s NULL appends nothing. The one
 * escape for all that revperf prints; error() and warning() apply it to their messages.
 */
void strbuf_add_printable(struct strbuf *sb, const char *s);
/* The same over len bytes (NUL bytes too), keeping newlines and tabs: a log's lines. */
void strbuf_add_printable_lines(struct strbuf *sb, const void *data, size_t len);
/* Resets sb to the printable form of s and returns sb->buf: a "%s" argument. */
const char *strbuf_printable(struct strbuf *sb, const char *s);
/* fputs() of the printable form of s. */
void fputs_printable(const char *s, FILE *f);
/*
 * fprintf() with all it prints made printable, newlines and tabs kept: for a line that
 * quotes untrusted text (not for one with revperf's own colour sequences).
 */
__attribute__((format(printf, 2, 3))) void fprintf_printable(FILE *f, const char *fmt, ...);
/*
 * Appends s as literal Markdown text (CommonMark, GitHub Flavored Markdown), in a paragraph,
 * a list item or a table cell: first made printable (one line, as above), then the
 * characters that open emphasis, code, links, images, strike-through or math (\ ` * _ [ ]
 * ! ~ $) backslash-escaped, & < > | as character references (no raw HTML, autolink or
 * extra table cell), and a leading # + - = or "1." escaped (no heading, list or rule).
 */
void strbuf_add_md_escaped(struct strbuf *sb, const char *s);
/*
 * The same for s after other text on its line ("kernel 6.18.44"): nothing there can open a
 * heading, list or rule, so a leading # + - = or "1." stays as it is.
 */
void strbuf_add_md_escaped_inline(struct strbuf *sb, const char *s);
/*
 * Appends s as a Markdown code span: a fence longer than any run of backticks in s, s made
 * printable. Not for table cells: a '|' there would end the cell.
 */
void strbuf_add_md_code(struct strbuf *sb, const char *s);
/* Reads a whole file (at most max_bytes) into sb; returns 0, or -1 with errno set. */
int strbuf_read_file(struct strbuf *sb, const char *path, size_t max_bytes);

#endif
