#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

char *strbuf_detach(struct strbuf *sb)
{
	char *res = sb->alloc ? sb->buf : xstrdup("");
	strbuf_init(sb);
	return res;
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need < sb->len) {
		fprintf(stderr, "revperf: fatal: string too long\n");
		abort();
	}
	if (!sb->alloc) {
		sb->buf = NULL;
	}
	if (need > sb->alloc) {
		size_t old = sb->alloc;
		sb->alloc = alloc_nr(sb->alloc, need);
		sb->buf = xrealloc(sb->buf, sb->alloc);
		if (!old)
			sb->buf[0] = '\0';
	}
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

int strbuf_read_file(struct strbuf *sb, const char *path, size_t max_bytes)
{
	char chunk[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		if (sb->len + (size_t)n > max_bytes) {
			close(fd);
			errno = EFBIG;
			return -1;
		}
		strbuf_add(sb, chunk, (size_t)n);
	}
	close(fd);
	return 0;
}

/*
 * The length of the valid UTF-8 sequence at p (at most avail bytes; lead byte >= 0x80) with
 * its code point in *cp, or 0: no overlong forms, no surrogates, nothing above U+10FFFF.
 */
static size_t utf8_decode(const unsigned char *p, size_t avail, uint32_t *cp)
{
	size_t len, i;
	uint32_t c, min;
	if (*p >= 0xc2 && *p <= 0xdf) {
		len = 2, c = *p & 0x1f, min = 0x80;
	} else if (*p >= 0xe0 && *p <= 0xef) {
		len = 3, c = *p & 0x0f, min = 0x800;
	} else if (*p >= 0xf0 && *p <= 0xf4) {
		len = 4, c = *p & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > avail)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

void strbuf_add_xml_escaped(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);
	while (*p) {
		size_t len;
		uint32_t cp;
		switch (*p) {
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '&':
			strbuf_addstr(sb, "&amp;");
			break;
		case '"':
			strbuf_addstr(sb, "&quot;");
			break;
		case '\'':
			strbuf_addstr(sb, "&#39;");
			break;
		default:
			if (*p >= 0x80 && (len = utf8_decode(p, left, &cp))) {
				strbuf_add(sb, p, len);
				p += len;
				left -= len;
				continue;
			}
			if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p >= 0x7f)
				strbuf_addstr(sb, "&#xFFFD;");
			else
				strbuf_addch(sb, (char)*p);
		}
		p++;
		left--;
	}
}

/*
 * Code points that change how a terminal shows what follows although they are valid UTF-8:
 * the C1 controls (U+009B is CSI, as ESC [ is) and the bidirectional embeddings, overrides
 * and isolates, which reorder the text around them.
 */
static bool unsafe_code_point(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

static void add_printable(struct strbuf *sb, const unsigned char *p, size_t len, bool lines)
{
	const unsigned char *end = p + len;
	while (p < end) {
		uint32_t cp;
		size_t n;
		if (*p >= 0x80) {
			n = utf8_decode(p, (size_t)(end - p), &cp);
			if (n && !unsafe_code_point(cp))
				strbuf_add(sb, p, n);
			else if (n)
				strbuf_addf(sb, "\\u%04x", (unsigned)cp);
			else
				strbuf_addf(sb, "\\x%02x", *p);
			p += n ? n : 1;
			continue;
		}
		if (lines && (*p == '\n' || *p == '\t'))
			strbuf_addch(sb, (char)*p);
		else if (*p == '\n')
			strbuf_addstr(sb, "\\n");
		else if (*p == '\t')
			strbuf_addstr(sb, "\\t");
		else if (*p == '\r')
			strbuf_addstr(sb, "\\r");
		else if (*p < 0x20 || *p == 0x7f)
			strbuf_addf(sb, "\\x%02x", *p);
		else
			strbuf_addch(sb, (char)*p);
		p++;
	}
}

void strbuf_add_printable(struct strbuf *sb, const char *s)
{
	if (s)
		add_printable(sb, (const unsigned char *)s, strlen(s), false);
}

void strbuf_add_printable_lines(struct strbuf *sb, const void *data, size_t len)
{
	add_printable(sb, data, len, true);
}

const char *strbuf_printable(struct strbuf *sb, const char *s)
{
	strbuf_reset(sb);
	strbuf_add_printable(sb, s);
	return sb->buf;
}

void fprintf_printable(FILE *f, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT, sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	add_printable(&sb, (const unsigned char *)msg.buf, msg.len, true);
	fputs(sb.buf, f);
	strbuf_release(&msg);
	strbuf_release(&sb);
}

void fputs_printable(const char *s, FILE *f)
{
	struct strbuf sb = STRBUF_INIT;
	fputs(strbuf_printable(&sb, s), f);
	strbuf_release(&sb);
}

/*
 * Markdown (CommonMark and GitHub's tables): the characters that open emphasis, code,
 * links, images, strike-through and math anywhere in a line (a link needs "](" or "[x]:",
 * so parentheses may stay); & < > | as character references, so that no HTML, autolink or
 * table cell can start.
 */
static bool md_inline_meta(char c)
{
	return strchr("\\`*_[]!~$", c) != NULL;
}

/* strbuf_add_md_escaped() of s, which starts a line (line_start) or follows text on it. */
static void md_escaped(struct strbuf *sb, const char *s, bool line_start)
{
	struct strbuf t = STRBUF_INIT;
	const char *p;
	size_t digits = 0;
	strbuf_add_printable(&t, s); /* one line: a newline would end a table row */
	for (p = t.buf; *p; p++) {
		/* At the start, # + - = and "1." or "1)" would make a heading, list or rule. */
		bool lead =
		    line_start && (strchr("#+-=", *p) || (digits && (*p == '.' || *p == ')')));
		switch (*p) {
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '|': strbuf_addstr(sb, "&#124;"); break;
		default:
			if (md_inline_meta(*p) || lead)
				strbuf_addch(sb, '\\');
			strbuf_addch(sb, *p);
		}
		if (*p >= '0' && *p <= '9' && line_start)
			digits++;
		else if (*p != ' ' || digits)
			line_start = false;
	}
	strbuf_release(&t);
}

void strbuf_add_md_escaped(struct strbuf *sb, const char *s)
{
	md_escaped(sb, s, true);
}

void strbuf_add_md_escaped_inline(struct strbuf *sb, const char *s)
{
	md_escaped(sb, s, false);
}

void strbuf_add_md_code(struct strbuf *sb, const char *s)
{
	struct strbuf t = STRBUF_INIT;
	size_t run = 0, longest = 0, i;
	bool pad;
	strbuf_add_printable(&t, s);
	for (i = 0; i < t.len; i++) {
		run = t.buf[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	/* A fence one backtick longer than any run inside; a space keeps an edge backtick
	 * apart from the fence (CommonMark strips one space on each side). */
	pad = !t.len || t.buf[0] == '`' || t.buf[t.len - 1] == '`';
	for (i = 0; i <= longest; i++)
		strbuf_addch(sb, '`');
	if (pad)
		strbuf_addch(sb, ' ');
	strbuf_addstr(sb, t.buf);
	if (pad)
		strbuf_addch(sb, ' ');
	for (i = 0; i <= longest; i++)
		strbuf_addch(sb, '`');
	strbuf_release(&t);
}
