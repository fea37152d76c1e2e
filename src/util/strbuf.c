#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
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

/* The length of the valid UTF-8 sequence at p (lead byte >= 0x80), or 0. */
static size_t utf8_seq_len(const unsigned char *p)
{
	size_t len = *p >= 0xf0 && *p <= 0xf4 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 && *p < 0xe0 ? 2 : 0;
	if (*p >= 0xf5)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

void strbuf_add_xml_escaped(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t len;
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
			if (*p >= 0x80 && (len = utf8_seq_len(p))) {
				strbuf_add(sb, p, len);
				p += len;
				continue;
			}
			if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p >= 0x7f)
				strbuf_addstr(sb, "&#xFFFD;");
			else
				strbuf_addch(sb, (char)*p);
		}
		p++;
	}
}
