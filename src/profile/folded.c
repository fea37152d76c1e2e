#include "profile/folded.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "util/common.h"
#include "util/input.h"

/* Parses the weight token [s, s + len) into *out; false when it is not a finite number >= 0. */
static bool parse_weight(const char *s, size_t len, double *out)
{
	char buf[64];
	char *end;

	if (!len || len >= sizeof(buf))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr("0123456789.eE+-", s[i]))
			return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	double v = strtod(buf, &end);
	if (errno || *end || !isfinite(v) || v < 0)
		return false;
	*out = v;
	return true;
}

/* Adds one line [line, line + len) to the tree; 0, or RP_EINPUT after error(). */
static int parse_line(struct cct *t, const char *line, size_t len, const char *origin,
		      size_t lineno)
{
	const char *space = NULL;
	double weight;

	/* Names are C strings: a NUL would cut a frame short (and this is not text). */
	if (memchr(line, '\0', len)) {
		error("%s:%zu: a NUL byte: folded stacks are text", origin, lineno);
		return RP_EINPUT;
	}
	for (size_t i = len; i-- > 0;)
		if (line[i] == ' ' || line[i] == '\t') {
			space = line + i;
			break;
		}
	if (!space || space == line) {
		error("%s:%zu: expected 'frame;frame count', found no count", origin, lineno);
		return RP_EINPUT;
	}
	const char *num = space + 1;
	if (!parse_weight(num, (size_t)(line + len - num), &weight)) {
		error("%s:%zu: expected 'frame;frame count', the count '%.*s' is not a number >= 0",
		      origin, lineno, (int)(line + len - num), num);
		return RP_EINPUT;
	}
	/* Spaces between the frames and the count are not part of the last frame. */
	const char *stack_end = space;
	while (stack_end > line && (stack_end[-1] == ' ' || stack_end[-1] == '\t'))
		stack_end--;

	uint32_t node = CCT_ROOT;
	const char *frame = line;
	for (;;) {
		const char *semi = memchr(frame, ';', (size_t)(stack_end - frame));
		const char *frame_end = semi ? semi : stack_end;
		if (frame_end == frame) {
			error("%s:%zu: expected 'frame;frame count', found an empty frame", origin,
			      lineno);
			return RP_EINPUT;
		}
		uint32_t name = cct_intern_len(t, frame, (size_t)(frame_end - frame));
		node = cct_child(t, node, name, 0);
		if (node == CCT_NONE)
			return RP_EINPUT;
		if (!semi)
			break;
		frame = semi + 1;
	}
	t->nodes[node].excl += weight;
	return 0;
}

int folded_parse(const char *text, size_t len, const char *origin, struct cct *out)
{
	size_t lineno = 0;
	size_t pos = 0, nr_stacks = 0;
	int ret = 0;

	cct_init(out);
	const char *line;
	size_t line_len;
	while (input_next_line(text, len, &pos, &line, &line_len)) {
		lineno++;
		if (!line_len)
			continue;
		ret = parse_line(out, line, line_len, origin, lineno);
		if (ret)
			goto out;
		nr_stacks++;
	}
	/* Nothing to compare is not a profile that says "no difference". */
	if (!nr_stacks) {
		ret = error("%s: empty: no 'frame;frame count' line; is it the right file?", origin);
		goto out;
	}
	cct_compute_inclusive(out);
	if (!cct_total(out)) {
		ret = error("%s: every count is 0: the profile holds no samples", origin);
		goto out;
	}
out:
	if (ret) {
		ret = RP_EINPUT;
		cct_release(out);
		cct_init(out);
	}
	return ret;
}

int folded_read(const char *path, struct cct *out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if ((ret = input_read(&sb, path, &input_profile))) {
		cct_init(out);
		goto out;
	}
	ret = folded_parse(sb.buf, sb.len, path, out);
out:
	strbuf_release(&sb);
	return ret;
}

void folded_write(const struct cct *t, struct strbuf *sb)
{
	for (size_t i = 1; i < t->nr_nodes; i++) {
		if (t->nodes[i].excl == 0.0)
			continue;
		cct_path(t, (uint32_t)i, sb);
		/* %.17g writes integral weights as integers and keeps others exact. */
		strbuf_addf(sb, " %.17g\n", t->nodes[i].excl);
	}
}
