/*
 * `perf script` text -> a calling context tree (profile/perf_script.h, docs/perf-script.md).
 * One pass over the lines; a sample's frames are kept (names in one buffer) until its blank
 * line, then added to the tree from the outermost frame in.
 */
#include "profile/perf_script.h"

#include <errno.h>
#include <string.h>

#include "util/common.h"
#include "util/input.h"
#include "util/strmap.h"

/* Header tokens looked at: a comm has at most 15 bytes, so its tokens come first. */
#define MAX_HEADER_TOKENS 24
#define MAX_COMM_TOKENS 12
/* Lines quoted in messages are cut here. */
#define QUOTE_BYTES 80
#define SNIFF_BYTES ((size_t)64 << 10)

struct span {
	const char *s;
	size_t len;
};

struct header {
	struct span comm, tid, event;
	bool has_period;
	double period;
	struct span rest; /* what follows the event, trimmed (an address, a payload) */
};

/* A parsed frame line: "addr sym+off (dso)". */
struct frame {
	unsigned long long addr;
	struct span sym, dso; /* dso.len 0: none given */
};

struct parser {
	const char *origin;
	const struct perf_script_options *o;
	struct perf_script_info *info;
	struct cct *t;
	struct strmap tids, comms;
	struct strbuf names, key;
	size_t *frame_end; /* frame k's name is names[frame_end[k-1] .. frame_end[k]) */
	size_t nr_frames, alloc_frames;
	/* the sample being read */
	bool in_sample, weighed, have_header_ip;
	struct header h;
	size_t header_line;
	struct frame header_ip; /* the address on the header line (no call chain), if any */
	bool event_chosen;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static bool all_digits(struct span t)
{
	if (!t.len)
		return false;
	for (size_t i = 0; i < t.len; i++)
		if (t.s[i] < '0' || t.s[i] > '9')
			return false;
	return true;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "1234" or "1234/1240" (pid/tid). */
static bool pid_like(struct span t)
{
	const char *slash = memchr(t.s, '/', t.len);
	if (!slash)
		return all_digits(t);
	struct span a = {t.s, (size_t)(slash - t.s)};
	struct span b = {slash + 1, t.len - a.len - 1};
	return all_digits(a) && all_digits(b);
}

/* "[001]" */
static bool cpu_like(struct span t)
{
	return t.len >= 3 && t.s[0] == '[' && t.s[t.len - 1] == ']' &&
	       all_digits((struct span){t.s + 1, t.len - 2});
}

/* "10939.479533:" */
static bool time_like(struct span t)
{
	const char *dot;
	if (t.len < 2 || t.s[t.len - 1] != ':')
		return false;
	dot = memchr(t.s, '.', t.len - 1);
	if (!dot)
		return all_digits((struct span){t.s, t.len - 1});
	return all_digits((struct span){t.s, (size_t)(dot - t.s)}) &&
	       all_digits((struct span){dot + 1, (size_t)(t.s + t.len - 1 - dot - 1)});
}

/* "cpu-clock:u:", "cycles:", "sched:sched_switch:": ends in ':' and has a letter. */
static bool event_like(struct span t)
{
	if (t.len < 2 || t.s[t.len - 1] != ':')
		return false;
	for (size_t i = 0; i + 1 < t.len; i++)
		if ((t.s[i] >= 'a' && t.s[i] <= 'z') || (t.s[i] >= 'A' && t.s[i] <= 'Z'))
			return true;
	return false;
}

static size_t tokenize(const char *line, size_t len, struct span *tok, size_t max)
{
	size_t n = 0, i = 0;
	while (n < max) {
		while (i < len && is_space(line[i]))
			i++;
		if (i == len)
			break;
		tok[n].s = line + i;
		while (i < len && !is_space(line[i]))
			i++;
		tok[n].len = (size_t)(line + i - tok[n].s);
		n++;
	}
	return n;
}

static struct span trim(const char *s, size_t len)
{
	while (len && is_space(*s)) {
		s++;
		len--;
	}
	while (len && is_space(s[len - 1]))
		len--;
	return (struct span){s, len};
}

/*
 * A header line: `comm [pid/]tid [[cpu]] [time:] [period] event:` and maybe more. The comm
 * is everything before the first token from which the rest reads as a header.
 */
static bool parse_header(const char *line, size_t len, struct header *h)
{
	struct span tok[MAX_HEADER_TOKENS];
	size_t n;

	/* Without call chains perf pads the comm to 16 columns; frames start with a tab. */
	if (!len || line[0] == '\t')
		return false;
	n = tokenize(line, len, tok, MAX_HEADER_TOKENS);
	for (size_t i = 1; i < n && i <= MAX_COMM_TOKENS; i++) {
		size_t j = i + 1;
		if (!pid_like(tok[i]))
			continue;
		if (j < n && cpu_like(tok[j]))
			j++;
		if (j < n && time_like(tok[j]))
			j++;
		h->has_period = false;
		if (j < n && all_digits(tok[j]) && tok[j].len <= 20) {
			char buf[24];
			memcpy(buf, tok[j].s, tok[j].len);
			buf[tok[j].len] = '\0';
			errno = 0;
			h->period = (double)strtoull(buf, NULL, 10);
			if (errno)
				continue;
			h->has_period = true;
			j++;
		}
		if (j >= n || !event_like(tok[j]))
			continue;
		h->comm = trim(line, (size_t)(tok[i].s - line));
		if (!h->comm.len)
			continue;
		h->tid = tok[i];
		{
			const char *slash = memchr(tok[i].s, '/', tok[i].len);
			if (slash) /* pid/tid: the thread is the tid */
				h->tid = (struct span){slash + 1,
						       (size_t)(tok[i].s + tok[i].len - slash - 1)};
		}
		h->event = (struct span){tok[j].s, tok[j].len - 1};
		h->rest = trim(tok[j].s + tok[j].len, (size_t)(line + len - tok[j].s - tok[j].len));
		return true;
	}
	return false;
}

/* "addr sym+off (dso)", "addr sym", "addr": the text of a frame line without its indent. */
static bool parse_frame(const char *s, size_t len, struct frame *f)
{
	struct span r = trim(s, len);
	size_t i = 0;

	f->addr = 0;
	while (i < r.len && is_hex(r.s[i])) {
		unsigned c = (unsigned char)r.s[i];
		unsigned v = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
		if (i >= 16) /* more than 64 bits */
			return false;
		f->addr = f->addr << 4 | v;
		i++;
	}
	if (!i || (i < r.len && !is_space(r.s[i])))
		return false;
	r = trim(r.s + i, r.len - i);
	f->dso = (struct span){NULL, 0};
	if (r.len && r.s[r.len - 1] == ')') {
		/* The dso is in the last " (": a path rarely holds one, a C++ name may. */
		for (size_t k = r.len - 1; k-- > 0;)
			if (r.s[k] == '(' && k > 0 && is_space(r.s[k - 1])) {
				f->dso = (struct span){r.s + k + 1, r.len - k - 2};
				r = trim(r.s, k);
				break;
			}
	}
	f->sym = r;
	return true;
}

/*
 * "  w.c:5", "  ??:0": what -F +srcline adds under a frame; "  w.c:26 (inlined)" under an
 * inlined frame (*inlined set).
 */
static bool srcline_like(const char *s, size_t len, bool *inlined)
{
	static const char suffix[] = " (inlined)";
	struct span r = trim(s, len);
	const char *colon;

	*inlined = r.len > sizeof(suffix) - 1 &&
		   !memcmp(r.s + r.len - (sizeof(suffix) - 1), suffix, sizeof(suffix) - 1);
	if (*inlined)
		r.len -= sizeof(suffix) - 1;
	if (!r.len || memchr(r.s, ' ', r.len) || memchr(r.s, '\t', r.len))
		return false;
	colon = memrchr(r.s, ':', r.len);
	if (!colon || colon == r.s + r.len - 1)
		return false;
	for (const char *p = colon + 1; p < r.s + r.len; p++)
		if ((*p < '0' || *p > '9') && *p != '?')
			return false;
	return true;
}

static bool span_eq(struct span a, const char *s)
{
	return a.len == strlen(s) && !memcmp(a.s, s, a.len);
}

static bool span_starts(struct span a, const char *s)
{
	size_t n = strlen(s);
	return a.len >= n && !memcmp(a.s, s, n);
}

/* Appends the name of frame f to sb (see perf_script.h for the naming). */
static void add_frame_name(struct parser *p, const struct frame *f, struct strbuf *sb)
{
	struct span sym = f->sym;
	bool kernel = f->addr >> 63 || span_starts(f->dso, "[kernel.") ||
		      span_starts(f->dso, "[guest.kernel");

	if (!sym.len || span_eq(sym, "[unknown]")) {
		struct span dso = f->dso;
		const char *slash = dso.len ? memrchr(dso.s, '/', dso.len) : NULL;
		if (slash)
			dso = (struct span){slash + 1, (size_t)(dso.s + dso.len - slash - 1)};
		if (dso.len && !span_eq(dso, "[unknown]") && !kernel) {
			strbuf_addstr(sb, "[unknown in ");
			strbuf_add(sb, dso.s, dso.len);
			strbuf_addch(sb, ']');
		} else {
			strbuf_addstr(sb, "[unknown]");
		}
		p->info->nr_unknown++;
	} else {
		/* "main+0x44" -> "main" */
		const char *plus = memrchr(sym.s, '+', sym.len);
		if (plus && plus + 2 < sym.s + sym.len && plus[1] == '0' && plus[2] == 'x') {
			const char *q = plus + 3;
			while (q < sym.s + sym.len && is_hex(*q))
				q++;
			if (q == sym.s + sym.len && q > plus + 3 && plus > sym.s)
				sym.len = (size_t)(plus - sym.s);
		}
		strbuf_add(sb, sym.s, sym.len);
		if (span_eq(f->dso, "inlined"))
			p->info->nr_inlined++;
	}
	if (kernel) {
		strbuf_addstr(sb, " [k]");
		p->info->nr_kernel++;
	}
}

static int line_error(struct parser *p, size_t lineno, const char *what, const char *line,
		      size_t len)
{
	int quote = len > QUOTE_BYTES ? QUOTE_BYTES : (int)len;
	return error("%s:%zu: %s, found '%.*s%s'; is it the output of `perf script` of a "
		     "recording with -g or --call-graph dwarf?",
		     p->origin, lineno, what, quote, line, len > (size_t)quote ? "..." : "");
}

/* Is this the event the tree weighs? The first sample's, or the one asked for. */
static bool event_wanted(struct parser *p)
{
	struct span e = p->h.event;
	const char *want = p->o->event;

	if (p->event_chosen)
		return span_eq(e, p->info->event);
	if (want && !span_eq(e, want) &&
	    !(span_starts(e, want) && e.len > strlen(want) && e.s[strlen(want)] == ':'))
		return false;
	snprintf(p->info->event, sizeof(p->info->event), "%.*s", (int)e.len, e.s);
	p->info->has_period = p->h.has_period;
	p->event_chosen = true;
	return true;
}

static void count_key(struct strmap *m, struct strbuf *key, struct span s, size_t *nr)
{
	bool added = false;
	strbuf_reset(key);
	strbuf_add(key, s.s, s.len);
	strmap_put(m, key->buf, 0, &added);
	*nr += added;
}

/* The sample read so far goes into the tree (or is counted as another event's). */
static int end_sample(struct parser *p)
{
	uint32_t node = CCT_ROOT;
	size_t nr = p->nr_frames;

	if (!p->in_sample)
		return 0;
	p->in_sample = false;
	if (!p->weighed) {
		p->info->nr_other_events++;
		return 0;
	}
	if (p->o->separate_threads) {
		strbuf_reset(&p->key);
		strbuf_addstr(&p->key, "[thread ");
		strbuf_add(&p->key, p->h.comm.s, p->h.comm.len);
		strbuf_addch(&p->key, ']');
		node = cct_child(p->t, node, cct_intern_len(p->t, p->key.buf, p->key.len), 0);
		if (node == CCT_NONE)
			return RP_EINPUT;
	}
	if (!nr) {
		/* No call chain: the address on the header line, else nothing known. */
		strbuf_reset(&p->key);
		if (p->have_header_ip)
			add_frame_name(p, &p->header_ip, &p->key);
		else
			strbuf_addstr(&p->key, "[unknown]");
		p->info->nr_no_callchain++;
		node = cct_child(p->t, node, cct_intern_len(p->t, p->key.buf, p->key.len), 0);
		if (node == CCT_NONE)
			return RP_EINPUT;
	}
	for (size_t k = nr; k-- > 0;) {
		size_t start = k ? p->frame_end[k - 1] : 0;
		uint32_t name = cct_intern_len(p->t, p->names.buf + start, p->frame_end[k] - start);
		node = cct_child(p->t, node, name, 0);
		if (node == CCT_NONE)
			return RP_EINPUT;
	}
	p->t->nodes[node].excl += p->h.has_period ? p->h.period : 1.0;
	p->info->nr_samples++;
	count_key(&p->tids, &p->key, p->h.tid, &p->info->nr_threads);
	count_key(&p->comms, &p->key, p->h.comm, &p->info->nr_comms);
	return 0;
}

static int start_sample(struct parser *p, size_t lineno)
{
	p->in_sample = true;
	p->nr_frames = 0;
	p->header_line = lineno;
	strbuf_reset(&p->names);
	p->have_header_ip = false;
	p->weighed = event_wanted(p);
	if (!p->weighed)
		return 0;
	if (p->h.has_period != p->info->has_period)
		return error("%s:%zu: a sample %s a period where the first sample of %s %s; "
			     "print the same fields for every sample",
			     p->origin, lineno, p->h.has_period ? "with" : "without",
			     p->info->event, p->info->has_period ? "had one" : "had none");
	/* A recording without call chains prints the sampled address on the header line
	 * (a tracepoint prints its payload there instead, which is no frame). */
	p->have_header_ip = p->h.rest.len && parse_frame(p->h.rest.s, p->h.rest.len, &p->header_ip);
	return 0;
}

static int add_frame(struct parser *p, const struct frame *f, size_t lineno)
{
	size_t before = p->names.len;

	if (!p->weighed)
		return 0;
	if (p->nr_frames >= PERF_SCRIPT_MAX_FRAMES)
		return error("%s:%zu: the sample of line %zu has more than %d frames; is the "
			     "file damaged?",
			     p->origin, lineno, p->header_line, PERF_SCRIPT_MAX_FRAMES);
	if (f->sym.len > PERF_SCRIPT_MAX_NAME)
		return error("%s:%zu: a symbol name of %zu bytes, more than the %zu allowed; is "
			     "the file damaged?",
			     p->origin, lineno, f->sym.len, PERF_SCRIPT_MAX_NAME);
	add_frame_name(p, f, &p->names);
	if (p->names.len == before) /* an empty name cannot be, add_frame_name() names all */
		strbuf_addstr(&p->names, "[unknown]");
	ALLOC_GROW(p->frame_end, p->nr_frames + 1, p->alloc_frames);
	p->frame_end[p->nr_frames++] = p->names.len;
	return 0;
}

static int parse_line(struct parser *p, const char *line, size_t len, size_t lineno)
{
	struct header h;
	struct frame f;
	bool inlined;

	if (memchr(line, '\0', len))
		return error("%s:%zu: a NUL byte: `perf script` output is text", p->origin, lineno);
	if (!trim(line, len).len)
		return end_sample(p);
	if (line[0] == '#' && !p->in_sample)
		return 0; /* perf script --header */
	if (line[0] != '\t' && parse_header(line, len, &h)) {
		/* Without call chains no blank line ends a sample: the previous one ends here,
		 * with its own header. */
		if (end_sample(p))
			return RP_EINPUT;
		p->h = h;
		return start_sample(p, lineno);
	}
	if (!is_space(line[0]))
		return line_error(p, lineno,
				  "expected a sample header 'comm tid time: period event:'", line,
				  len);
	if (!p->in_sample)
		return line_error(p, lineno, "a frame before any sample header", line, len);
	if (parse_frame(line, len, &f))
		return add_frame(p, &f, lineno);
	if (srcline_like(line, len, &inlined)) {
		/* With srcline, perf marks an inlined frame on its source line. */
		if (inlined && p->weighed && p->nr_frames)
			p->info->nr_inlined++;
		return 0;
	}
	return line_error(p, lineno, "expected a frame 'address symbol (module)'", line, len);
}

/*
 * What the tree weighs: the periods of cpu-clock and task-clock are nanoseconds on a CPU,
 * another event's are counts of it (named without its modifiers: "cycles"); without
 * periods each sample weighs 1.
 */
static void set_weight(struct cct *t, const struct perf_script_info *info)
{
	char event[sizeof(info->event)];
	snprintf(event, sizeof(event), "%.*s", (int)strcspn(info->event, ":"), info->event);
	if (!info->has_period)
		cct_set_weight(t, CCT_WEIGHT_EVENT, "samples");
	else if (!strcmp(event, "cpu-clock") || !strcmp(event, "task-clock"))
		cct_set_weight(t, CCT_WEIGHT_CPU_NS, NULL);
	else
		cct_set_weight(t, CCT_WEIGHT_EVENT, event);
}

int perf_script_parse(const char *text, size_t len, const char *origin,
		      const struct perf_script_options *o, struct cct *out,
		      struct perf_script_info *info)
{
	static const struct perf_script_options defaults;
	struct perf_script_info scratch;
	struct parser p = {
	    .origin = origin,
	    .o = o ? o : &defaults,
	    .info = info ? info : &scratch,
	    .t = out,
	    .tids = STRMAP_INIT,
	    .comms = STRMAP_INIT,
	    .names = STRBUF_INIT,
	    .key = STRBUF_INIT,
	};
	struct cct sorted;
	size_t pos = 0, lineno = 0;
	int ret = 0;

	memset(p.info, 0, sizeof(*p.info));
	cct_init(out);
	const char *line;
	size_t line_len;
	while (input_next_line(text, len, &pos, &line, &line_len)) {
		lineno++;
		if ((ret = parse_line(&p, line, line_len, lineno)))
			goto out;
	}
	if ((ret = end_sample(&p)))
		goto out;
	if (!p.info->nr_samples) {
		if (p.o->event && p.info->nr_other_events)
			ret = error("%s: no sample of the event '%s' (%zu samples of others); "
				    "choose one of the file's events with --event",
				    origin, p.o->event, p.info->nr_other_events);
		else
			ret = error("%s: empty: no sample; record with `perf record -g` and give "
				    "the output of `perf script`",
				    origin);
		goto out;
	}
	cct_compute_inclusive(out);
	if (!cct_total(out)) {
		ret = error("%s: every period is 0: the profile weighs nothing", origin);
		goto out;
	}
	/* Children were made in the order of the samples, which says nothing. */
	cct_sort_children(out, &sorted);
	cct_release(out);
	*out = sorted;
	set_weight(out, p.info);
out:
	if (ret) {
		ret = RP_EINPUT;
		cct_release(out);
		cct_init(out);
	}
	strmap_release(&p.tids);
	strmap_release(&p.comms);
	strbuf_release(&p.names);
	strbuf_release(&p.key);
	free(p.frame_end);
	return ret;
}

bool perf_script_sniff(const char *text, size_t len)
{
	struct header h;
	struct frame f;
	size_t pos = 0;
	bool header = false;

	if (len > SNIFF_BYTES)
		len = SNIFF_BYTES;
	const char *line;
	size_t line_len;
	while (input_next_line(text, len, &pos, &line, &line_len)) {
		if (memchr(line, '\0', line_len))
			return false;
		if (!trim(line, line_len).len || (!header && line[0] == '#'))
			continue;
		if (!header) {
			if (line[0] == '\t' || !parse_header(line, line_len, &h))
				return false;
			if (h.rest.len && parse_frame(h.rest.s, h.rest.len, &f))
				return true;
			header = true;
			continue;
		}
		return is_space(line[0]) && parse_frame(line, line_len, &f);
	}
	return false;
}
