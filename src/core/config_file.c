/*
 * revperf.ini on disk -> config_set() calls (config.h): the file read whole through the
 * input front door (a regular file, at most 1 MiB: util/input.h), then parsed by libinih
 * line by line from memory, so that each value knows its file:line. A section given twice,
 * a key set twice in one section and a NUL byte are errors naming the line: each would
 * otherwise silently drop or cut a value.
 */
#include "core/config.h"

#include <ini.h>
#include <string.h>

#include "util/common.h"
#include "util/input.h"
#include "util/strmap.h"

struct file_parse {
	struct config *cfg;
	const char *path;
	const char *text; /* the whole file, NUL-terminated */
	size_t len, pos;
	int line;		/* of the line inih is at */
	bool at_line_start;	/* the reader's next byte begins a line */
	int err;		/* set by the reader or the handler; stops the parse */
	struct strmap sections; /* canonical section name -> its line */
	struct strmap keys;	/* key of the current section -> its line */
};

/* "benchmark \"x\"" for [benchmark "x"] and [benchmark"x"] alike (config.c reads both as
 * the benchmark x); other sections as written. */
static void canonical_section(struct strbuf *sb, const char *s, size_t len)
{
	if (len >= 9 && !memcmp(s, "benchmark", 9)) {
		strbuf_addstr(sb, "benchmark ");
		s += 9;
		len -= 9;
		while (len && *s == ' ') {
			s++;
			len--;
		}
	}
	strbuf_add(sb, s, len);
}

/* A line that starts a section: checked against the sections seen. */
static int section_line(struct file_parse *fp, const char *line, size_t len)
{
	const char *p = line, *end = line + len, *close;
	struct strbuf name = STRBUF_INIT;
	bool added;
	size_t *first;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p != '[' || !(close = memchr(p, ']', (size_t)(end - p))))
		return 0; /* not a section header (inih reports what it is) */
	canonical_section(&name, p + 1, (size_t)(close - p - 1));
	first = strmap_put(&fp->sections, name.buf, (size_t)fp->line, &added);
	if (!added) {
		error("%s:%d: section [%.*s] appears a second time (first at line %zu); merge the "
		      "two: options given twice would silently replace each other",
		      fp->path, fp->line, (int)(close - p - 1), p + 1, *first);
		strbuf_release(&name);
		return RP_EINPUT;
	}
	strbuf_release(&name);
	strmap_release(&fp->keys);
	return 0;
}

/* Checks the line that begins at fp->pos: NUL bytes, a repeated section. */
static int check_line(struct file_parse *fp)
{
	const char *line = fp->text + fp->pos;
	const char *nl = memchr(line, '\n', fp->len - fp->pos);
	size_t len = nl ? (size_t)(nl - line) : fp->len - fp->pos;

	if (memchr(line, '\0', len)) {
		error("%s:%d: a NUL byte: the configuration is text, and a value would end at "
		      "it; remove it",
		      fp->path, fp->line);
		return RP_EINPUT;
	}
	return section_line(fp, line, len);
}

/* inih's line reader (fgets-like) over the text in memory; counts lines as it goes. */
static char *read_line(char *str, int num, void *stream)
{
	struct file_parse *fp = stream;
	size_t n = 0, max = num > 1 ? (size_t)num - 1 : 0;

	if (fp->err || fp->pos >= fp->len || !max)
		return NULL;
	if (fp->at_line_start) {
		fp->line++;
		if ((fp->err = check_line(fp)))
			return NULL;
	}
	while (n < max && fp->pos < fp->len) {
		char c = fp->text[fp->pos++];
		str[n++] = c;
		if (c == '\n')
			break;
	}
	str[n] = '\0';
	/* A line longer than the buffer comes in pieces: only its first starts a line. */
	fp->at_line_start = str[n - 1] == '\n' || fp->pos >= fp->len;
	return str;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct file_parse *fp = user;
	char origin[4096 + 32];
	bool added;
	size_t *first;

	snprintf(origin, sizeof(origin), "%s:%d", fp->path, fp->line);
	first = strmap_put(&fp->keys, name, (size_t)fp->line, &added);
	if (!added) {
		error("%s: '%s' is set a second time in [%s] (first at line %zu); keep one", origin,
		      name, section, *first);
		fp->err = RP_EINPUT;
		return 0;
	}
	fp->err = config_set(fp->cfg, section, name, value ? value : "", origin);
	return fp->err == 0;
}

int config_read(struct config *cfg, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct file_parse fp;
	int line, ret;

	/* Heap line buffer that grows: long commands must not be truncated. A line that is
	 * indented is a line of its own, not the continuation of the value above (which
	 * would replace that value). */
	ini_use_stack = false;
	ini_allow_realloc = true;
	ini_max_line = 1 << 16;
	ini_stop_on_first_error = true;
	ini_allow_multiline = false;

	if ((ret = input_read(&sb, path, &input_config))) {
		strbuf_release(&sb);
		return ret == RP_EINTERRUPT ? ret : RP_EINPUT;
	}
	memset(&fp, 0, sizeof(fp));
	fp.cfg = cfg;
	fp.path = path;
	fp.text = sb.buf;
	fp.len = sb.len;
	fp.at_line_start = true;
	free(cfg->path);
	cfg->path = xstrdup(path);
	line = ini_parse_stream(read_line, &fp, handler, &fp);
	if (fp.err) {
		ret = RP_EINPUT; /* the reader or the handler said why */
	} else if (line < 0) {
		ret = error("cannot parse config %s: out of memory", path);
	} else if (line > 0) {
		ret = error("%s:%d: syntax error: expected [section], 'key = value' or a comment",
			    path, line);
	}
	if (ret)
		ret = RP_EINPUT;
	strmap_release(&fp.sections);
	strmap_release(&fp.keys);
	strbuf_release(&sb);
	return ret;
}
