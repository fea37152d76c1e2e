/*
 * Sampled profiles on disk (profile/sample_file.h): the writer, the reader that trusts
 * nothing, and the calling context tree of a profile.
 */
#include "profile/sample_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "util/input.h"
#include "util/common.h"

/* Longest piece of a bad field quoted in a message. */
#define QUOTE_MAX 40
#define QUOTE_LEN(n) ((int)((n) < QUOTE_MAX ? (n) : QUOTE_MAX))
/* More threads than any process tree has: a bound on what a number may announce. */
#define MAX_THREADS (1u << 22)

void sample_profile_release(struct sample_profile *p)
{
	free(p->command);
	free(p->exe);
	free(p->event);
	free(p->unit);
	free(p->callgraph);
	free(p->callgraph_why);
	for (size_t i = 0; i < p->nr_threads; i++)
		free(p->threads[i].comm);
	free(p->threads);
	for (size_t i = 0; i < p->nr_modules; i++) {
		free(p->modules[i].path);
		free(p->modules[i].unwind);
	}
	free(p->modules);
	for (size_t i = 0; i < p->nr_stacks; i++)
		free(p->stacks[i].frames);
	free(p->stacks);
	memset(p, 0, sizeof(*p));
}

/* ---- writing ------------------------------------------------------------------------ */

static void add_line_text(struct strbuf *sb, const char *s)
{
	/* One line each: a newline in a command or a thread name would start a record. */
	for (; s && *s; s++)
		strbuf_addch(sb, *s == '\n' || *s == '\r' ? ' ' : *s);
}

void sample_profile_write(const struct sample_profile *p, struct strbuf *sb)
{
	strbuf_addstr(sb, SAMPLE_FILE_MAGIC "\ncommand ");
	add_line_text(sb, p->command);
	strbuf_addstr(sb, "\nexe ");
	add_line_text(sb, p->exe);
	strbuf_addf(sb, "\nevent %s\nunit %s\nfrequency %u\nperiod %" PRIu64 "\ncallgraph %s",
		    p->event, p->unit, p->frequency_hz, p->period, p->callgraph);
	if (p->callgraph_why && *p->callgraph_why) {
		strbuf_addch(sb, ' ');
		add_line_text(sb, p->callgraph_why);
	}
	strbuf_addf(sb,
		    "\nrun %" PRIu64 " %" PRIu64 " %" PRIu64 "\nsamples %" PRIu64 "\nlost %" PRIu64
		    "\nthrottled %" PRIu64 "\ntruncated %" PRIu64 "\nspliced %" PRIu64
		    "\ncomplete %" PRIu64 "\n",
		    p->wall_ns, p->user_ns, p->sys_ns, p->samples, p->lost, p->throttled,
		    p->truncated, p->spliced, p->complete);
	for (size_t i = 0; i < p->nr_modules; i++) {
		strbuf_addf(sb, "module %s %" PRIu64 " ", p->modules[i].unwind,
			    p->modules[i].frames);
		add_line_text(sb, p->modules[i].path);
		strbuf_addch(sb, '\n');
	}
	for (size_t i = 0; i < p->nr_threads; i++) {
		const struct sample_thread *t = &p->threads[i];
		strbuf_addf(sb, "thread %zu %u %u %" PRIu64 " %.0f ", i, t->pid, t->tid, t->samples,
			    t->weight);
		add_line_text(sb, t->comm && *t->comm ? t->comm : "?");
		strbuf_addch(sb, '\n');
	}
	for (size_t i = 0; i < p->nr_stacks; i++) {
		const struct sample_stack *s = &p->stacks[i];
		strbuf_addf(sb, "s %" PRIu32 " %" PRIu64 " %.0f ", s->thread, s->samples,
			    s->weight);
		add_line_text(sb, s->frames);
		strbuf_addch(sb, '\n');
	}
	strbuf_addstr(sb, "end\n");
}

int sample_profile_save(const struct sample_profile *p, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int fd, ret = 0;
	size_t off = 0;

	sample_profile_write(p, &sb);
	fd = open_own(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		ret = error("cannot create %s: %s", path, fs_strerror(errno));
		goto out;
	}
	while (off < sb.len) {
		ssize_t n = write(fd, sb.buf + off, sb.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = error("cannot write %s: %s", path, strerror(errno));
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) && !ret)
		ret = error("cannot write %s: %s", path, strerror(errno));
out:
	strbuf_release(&sb);
	return ret ? RP_EINTERNAL : 0;
}

/* ---- reading ------------------------------------------------------------------------ */

enum {
	H_COMMAND,
	H_EXE,
	H_EVENT,
	H_UNIT,
	H_FREQUENCY,
	H_PERIOD,
	H_CALLGRAPH,
	H_RUN,
	H_SAMPLES,
	H_LOST,
	H_THROTTLED,
	H_TRUNCATED,
	H_SPLICED,
	H_COMPLETE,
	H_COUNT
};
static const char *const header_tags[H_COUNT] = {
    "command", "exe",	  "event", "unit",	"frequency", "period",	"callgraph",
    "run",     "samples", "lost",  "throttled", "truncated", "spliced", "complete",
};

struct parser {
	const char *origin;
	size_t lineno;
	const char *line;
	size_t len, pos;
	const char *tag;
	unsigned seen; /* header tags read, bit per H_* */
	struct sample_profile *p;
};

#define parse_error(ps, ...) error_input_at((ps)->origin, (ps)->lineno, __VA_ARGS__)

/* The next space-separated field; false at the end of the line or on an empty field. */
static bool field(struct parser *ps, const char **f, size_t *n)
{
	const char *s, *sp;

	if (ps->pos >= ps->len)
		return false;
	s = ps->line + ps->pos;
	sp = memchr(s, ' ', ps->len - ps->pos);
	*f = s;
	*n = sp ? (size_t)(sp - s) : ps->len - ps->pos;
	ps->pos += *n + 1;
	return *n > 0;
}

/* The rest of the line (may be empty). */
static void rest(struct parser *ps, const char **f, size_t *n)
{
	*f = ps->line + (ps->pos < ps->len ? ps->pos : ps->len);
	*n = ps->pos < ps->len ? ps->len - ps->pos : 0;
	ps->pos = ps->len;
}

static int field_u64(struct parser *ps, const char *what, uint64_t max, uint64_t *out)
{
	const char *f;
	size_t n;
	uint64_t v = 0;

	if (!field(ps, &f, &n))
		return parse_error(ps, "'%s' record: %s is missing", ps->tag, what);
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(f[i] - '0');
		if (f[i] < '0' || f[i] > '9')
			return parse_error(ps, "'%s' record: %s '%.*s' is not a decimal number",
					   ps->tag, what, QUOTE_LEN(n), f);
		if (n > 20 || v > (UINT64_MAX - d) / 10)
			return parse_error(ps, "'%s' record: %s '%.*s' is too large", ps->tag, what,
					   QUOTE_LEN(n), f);
		v = v * 10 + d;
	}
	if (v > max)
		return parse_error(
		    ps, "'%s' record: %s %" PRIu64 " is out of range (at most %" PRIu64 ")",
		    ps->tag, what, v, max);
	*out = v;
	return 0;
}

static int field_str(struct parser *ps, const char *what, char **out)
{
	const char *f;
	size_t n;

	if (!field(ps, &f, &n))
		return parse_error(ps, "'%s' record: %s is missing", ps->tag, what);
	*out = xstrndup(f, n);
	return 0;
}

static int line_end(struct parser *ps)
{
	if (ps->pos < ps->len)
		return parse_error(ps, "'%s' record: unexpected '%.*s' at the end", ps->tag,
				   QUOTE_LEN(ps->len - ps->pos), ps->line + ps->pos);
	return 0;
}

static int parse_header(struct parser *ps, int h)
{
	struct sample_profile *p = ps->p;
	const char *f;
	size_t n;
	uint64_t v;
	int ret;

	if (ps->seen & (1u << h))
		return parse_error(ps, "a second '%s' record", ps->tag);
	if (p->nr_modules || p->nr_threads || p->nr_stacks)
		return parse_error(ps, "'%s' record after the modules, threads or stacks", ps->tag);
	ps->seen |= 1u << h;
	switch (h) {
	case H_COMMAND:
		rest(ps, &f, &n);
		p->command = xstrndup(f, n);
		return 0;
	case H_EXE:
		rest(ps, &f, &n);
		p->exe = xstrndup(f, n);
		return 0;
	case H_EVENT:
		if ((ret = field_str(ps, "the event", &p->event)))
			return ret;
		break;
	case H_UNIT:
		if ((ret = field_str(ps, "the unit", &p->unit)))
			return ret;
		break;
	case H_FREQUENCY:
		if ((ret = field_u64(ps, "the frequency", 1000000, &v)))
			return ret;
		if (!v)
			return parse_error(ps, "'frequency' record: the frequency is 0");
		p->frequency_hz = (unsigned)v;
		break;
	case H_PERIOD: ret = field_u64(ps, "the period", UINT64_MAX, &p->period); break;
	case H_CALLGRAPH:
		if ((ret = field_str(ps, "the call graph", &p->callgraph)))
			return ret;
		if (strcmp(p->callgraph, "fp") && strcmp(p->callgraph, "dwarf"))
			return parse_error(ps, "'callgraph' record: '%s' is neither fp nor dwarf",
					   p->callgraph);
		rest(ps, &f, &n);
		p->callgraph_why = xstrndup(f, n);
		return 0;
	case H_RUN:
		if ((ret = field_u64(ps, "the wall time", UINT64_MAX, &p->wall_ns)) ||
		    (ret = field_u64(ps, "the user time", UINT64_MAX, &p->user_ns)) ||
		    (ret = field_u64(ps, "the system time", UINT64_MAX, &p->sys_ns)))
			return ret;
		break;
	default: {
		uint64_t *slot[] = {[H_SAMPLES] = &p->samples,	   [H_LOST] = &p->lost,
				    [H_THROTTLED] = &p->throttled, [H_TRUNCATED] = &p->truncated,
				    [H_SPLICED] = &p->spliced,	   [H_COMPLETE] = &p->complete};
		ret = field_u64(ps, "the count", UINT64_MAX, slot[h]);
		break;
	}
	}
	return ret ? ret : line_end(ps);
}

static int headers_complete(struct parser *ps)
{
	for (int h = 0; h < H_COUNT; h++)
		if (!(ps->seen & (1u << h)))
			return parse_error(ps, "'%s' record before the header's '%s' record",
					   ps->tag, header_tags[h]);
	return 0;
}

static int parse_module(struct parser *ps)
{
	struct sample_profile *p = ps->p;
	struct sample_module m = {0};
	const char *f;
	size_t n;
	int ret;

	if ((ret = headers_complete(ps)))
		return ret;
	if (p->nr_threads || p->nr_stacks)
		return parse_error(ps, "'module' record after the threads or stacks");
	if ((ret = field_str(ps, "the unwinding", &m.unwind)))
		return ret;
	if (strcmp(m.unwind, "fp") && strcmp(m.unwind, "cfi") && strcmp(m.unwind, "nocfi")) {
		ret = parse_error(ps, "'module' record: unwinding '%s' is not fp, cfi or nocfi",
				  m.unwind);
		free(m.unwind);
		return ret;
	}
	if ((ret = field_u64(ps, "the frame count", UINT64_MAX, &m.frames))) {
		free(m.unwind);
		return ret;
	}
	rest(ps, &f, &n);
	if (!n) {
		free(m.unwind);
		return parse_error(ps, "'module' record: the path is missing");
	}
	m.path = xstrndup(f, n);
	ALLOC_GROW(p->modules, p->nr_modules + 1, p->alloc_modules);
	p->modules[p->nr_modules++] = m;
	return 0;
}

static int parse_thread(struct parser *ps)
{
	struct sample_profile *p = ps->p;
	struct sample_thread t = {0};
	uint64_t k, pid, tid, w;
	const char *f;
	size_t n;
	int ret;

	if ((ret = headers_complete(ps)))
		return ret;
	if (p->nr_stacks)
		return parse_error(ps, "'thread' record after the stacks");
	if ((ret = field_u64(ps, "the thread number", MAX_THREADS, &k)) ||
	    (ret = field_u64(ps, "the process id", INT32_MAX, &pid)) ||
	    (ret = field_u64(ps, "the thread id", INT32_MAX, &tid)) ||
	    (ret = field_u64(ps, "the sample count", UINT64_MAX, &t.samples)) ||
	    (ret = field_u64(ps, "the weight", UINT64_MAX, &w)))
		return ret;
	if (k != p->nr_threads)
		return parse_error(ps, "'thread' record: thread %" PRIu64 " where %zu was expected",
				   k, p->nr_threads);
	rest(ps, &f, &n);
	t.pid = (unsigned)pid;
	t.tid = (unsigned)tid;
	t.weight = (double)w;
	t.comm = xstrndup(f, n);
	ALLOC_GROW(p->threads, p->nr_threads + 1, p->alloc_threads);
	p->threads[p->nr_threads++] = t;
	return 0;
}

static int parse_stack(struct parser *ps)
{
	struct sample_profile *p = ps->p;
	struct sample_stack s = {0};
	uint64_t k, w;
	const char *f;
	size_t n;
	int ret;

	if ((ret = headers_complete(ps)))
		return ret;
	if ((ret = field_u64(ps, "the thread number", MAX_THREADS, &k)) ||
	    (ret = field_u64(ps, "the sample count", UINT64_MAX, &s.samples)) ||
	    (ret = field_u64(ps, "the weight", UINT64_MAX, &w)))
		return ret;
	if (k >= p->nr_threads)
		return parse_error(ps, "'s' record: thread %" PRIu64 " has no 'thread' record", k);
	rest(ps, &f, &n);
	if (!n)
		return parse_error(ps, "'s' record: the stack is missing");
	for (size_t i = 0; i <= n; i++)
		if (i == n || f[i] == ';')
			if (!i || f[i - 1] == ';')
				return parse_error(ps, "'s' record: an empty frame in the stack");
	s.thread = (uint32_t)k;
	s.weight = (double)w;
	s.frames = xstrndup(f, n);
	ALLOC_GROW(p->stacks, p->nr_stacks + 1, p->alloc_stacks);
	p->stacks[p->nr_stacks++] = s;
	return 0;
}

static bool tag_is(const char *tag, size_t n, const char *want)
{
	return strlen(want) == n && !memcmp(tag, want, n);
}

int sample_profile_parse(const char *text, size_t len, const char *origin,
			 struct sample_profile *out)
{
	struct parser ps = {.origin = origin, .p = out};
	size_t pos = 0;
	bool ended = false;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	while (pos < len && !ret) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos), *tag;
		size_t n = nl ? (size_t)(nl - line) : len - pos, tag_len;
		char tagbuf[16];

		pos += n + (nl ? 1 : 0);
		ps.lineno++;
		ps.line = line;
		ps.len = n;
		ps.pos = 0;
		if (memchr(line, '\0', n)) {
			ret = parse_error(&ps, "a NUL byte: sampled profiles are text");
			break;
		}
		if (ps.lineno == 1) {
			if (!tag_is(line, n, SAMPLE_FILE_MAGIC))
				ret = parse_error(&ps, "not a sampled profile (expected '%s')",
						  SAMPLE_FILE_MAGIC);
			continue;
		}
		if (ended) {
			ret = parse_error(&ps, "text after 'end'");
			break;
		}
		if (!field(&ps, &tag, &tag_len)) {
			ret = parse_error(&ps, "an empty line or a line starting with a space");
			break;
		}
		snprintf(tagbuf, sizeof(tagbuf), "%.*s", (int)(tag_len < 15 ? tag_len : 15), tag);
		ps.tag = tagbuf;
		if (tag_is(tag, tag_len, "end")) {
			if (!(ret = headers_complete(&ps)))
				ret = line_end(&ps);
			ended = true;
		} else if (tag_is(tag, tag_len, "module")) {
			ret = parse_module(&ps);
		} else if (tag_is(tag, tag_len, "thread")) {
			ret = parse_thread(&ps);
		} else if (tag_is(tag, tag_len, "s")) {
			ret = parse_stack(&ps);
		} else {
			int h;
			for (h = 0; h < H_COUNT && !tag_is(tag, tag_len, header_tags[h]); h++)
				;
			ret = h < H_COUNT ? parse_header(&ps, h)
					  : parse_error(&ps, "unknown record '%.*s'",
							QUOTE_LEN(tag_len), tag);
		}
	}
	if (!ret && ps.lineno == 0)
		ret = error("%s: empty: not a sampled profile", origin);
	else if (!ret && !ended)
		ret = error("%s: truncated profile: no 'end' record after line %zu", origin,
			    ps.lineno);
	if (ret) {
		sample_profile_release(out);
		return RP_EINPUT;
	}
	return 0;
}

int sample_profile_read(const char *path, struct sample_profile *out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!(ret = input_read(&sb, path, &input_profile)))
		ret = sample_profile_parse(sb.buf, sb.len, path, out);
	strbuf_release(&sb);
	return ret;
}

bool sample_profile_sniff(const char *text, size_t len)
{
	size_t n = strlen(SAMPLE_FILE_MAGIC);
	return len >= n && !memcmp(text, SAMPLE_FILE_MAGIC, n) && (len == n || text[n] == '\n');
}

/* ---- notes -------------------------------------------------------------------------- */

/* Fewer samples than this make every share in the profile a rough one. */
#define FEW_SAMPLES 100
/* Below this share of complete stacks, the callers in the tree are doubtful. */
#define COMPLETE_WARN 0.9

static bool is_time(const struct sample_profile *p)
{
	return p->unit && !strcmp(p->unit, "ns");
}

/* A weight in the profile's unit: ns as ms, anything else as a count. */
static void weight_text(char *buf, size_t size, const struct sample_profile *p, double w)
{
	if (is_time(p))
		snprintf(buf, size, "%.3f ms", w / 1e6);
	else
		snprintf(buf, size, "%.0f %s", w, p->unit);
}

void sample_profile_period_text(const struct sample_profile *p, struct strbuf *sb)
{
	if (is_time(p) && p->period)
		strbuf_addf(sb, "one sample per %.3f ms of CPU time in user space",
			    (double)p->period / 1e6);
	else
		strbuf_addf(sb, "%u samples per second of %s", p->frequency_hz, p->event);
}

void sample_profile_notes(const struct sample_profile *p, struct strbuf *sb)
{
	double total = 0;

	for (size_t i = 0; i < p->nr_threads; i++)
		total += p->threads[i].weight;
	if (!p->samples) {
		strbuf_addf(sb,
			    "no sample: the program spent less than one sampling period in user "
			    "space (");
		sample_profile_period_text(p, sb);
		strbuf_addstr(sb,
			      "); nothing can be said of where its time went: raise the "
			      "sampling frequency (-F, sample-frequency) or make it run longer\n");
	} else if (p->samples < FEW_SAMPLES) {
		char w[64];
		weight_text(w, sizeof(w), p, total);
		strbuf_addf(sb,
			    "only %" PRIu64 " samples (%s): a context of k samples is uncertain by "
			    "about +-sqrt(k) samples (%.0f%% of the total at best), so small "
			    "shares are noise; raise the sampling frequency (-F, sample-frequency) "
			    "or make the program run longer\n",
			    p->samples, w, 100.0 / sqrt((double)p->samples));
	}
	if (p->lost)
		strbuf_addf(sb,
			    "%" PRIu64 " samples lost: the kernel's ring buffer was full; "
			    "lower the sampling frequency (or use the fp call graph instead of "
			    "dwarf)\n",
			    p->lost);
	if (p->throttled)
		strbuf_addf(sb,
			    "the kernel throttled sampling %" PRIu64 " times "
			    "(kernel.perf_event_max_sample_rate): fewer samples than asked\n",
			    p->throttled);
	if (p->truncated)
		strbuf_addf(sb,
			    "%" PRIu64 " stacks were deeper than the stack copied per sample "
			    "(large local arrays fill it): their outermost callers are missing; "
			    "frame pointers keep them (build with -fno-omit-frame-pointer, "
			    "--call-graph fp)\n",
			    p->truncated);
	if (p->samples && (double)p->complete < COMPLETE_WARN * (double)p->samples) {
		uint64_t incomplete = p->samples - p->complete;
		strbuf_addf(sb,
			    "only %.1f%% of the stacks reach the program's or a thread's entry: "
			    "callers are missing",
			    100.0 * (double)p->complete / (double)p->samples);
		/* every incomplete stack a truncated one: the copy, not the code */
		if (incomplete <= p->truncated)
			strbuf_addstr(sb, ", as the stacks were deeper than the copy (above)\n");
		/* most of them: say both (a sample in libc beside 71 truncated ones) */
		else if (2 * p->truncated > incomplete)
			strbuf_addf(sb,
				    ", %" PRIu64 " of the %" PRIu64 " as the stacks were deeper "
				    "than the copy (above), the others above code that could not "
				    "be unwound\n",
				    p->truncated, incomplete);
		else
			strbuf_addf(sb, "%s\n",
				    strcmp(p->callgraph, "fp")
					? " above code without frame pointers"
					: " above code without frame pointers (try the dwarf call "
					  "graph)");
	}
}

/* ---- the tree ----------------------------------------------------------------------- */

/* Stacks frame by frame (';' below every other byte: a caller before its callees). */
static int cmp_frames(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned char x = *a == ';' ? 1 : (unsigned char)*a;
		unsigned char y = *b == ';' ? 1 : (unsigned char)*b;
		if (x != y || !x)
			return (x > y) - (x < y);
	}
}

static int cmp_stack_index(const void *a, const void *b, void *arg)
{
	const struct sample_stack *s = arg;
	const struct sample_stack *x = &s[*(const size_t *)a], *y = &s[*(const size_t *)b];
	int c = cmp_frames(x->frames, y->frames);

	if (c)
		return c;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

int sample_profile_cct(const struct sample_profile *p, bool separate_threads, struct cct *out)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t *thread_node = NULL;
	size_t *order = NULL;
	int ret = 0;

	cct_init(out);
	/* What the tree weighs (profile/cct.h): cpu-clock samples are on-CPU ns; another event
	 * (cycles) is that event. Sampling counts no calls: calls_known stays false. */
	if (p->unit && !strcmp(p->unit, "ns"))
		cct_set_weight(out, CCT_WEIGHT_CPU_NS, NULL);
	else
		cct_set_weight(out, CCT_WEIGHT_EVENT, p->event ? p->event : "samples");
	out->calls_known = false;
	if (separate_threads) {
		thread_node = xcalloc(p->nr_threads ? p->nr_threads : 1, sizeof(*thread_node));
		for (size_t i = 0; i < p->nr_threads; i++) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "[thread %zu %s]", i, p->threads[i].comm);
			thread_node[i] = cct_child(out, CCT_ROOT, cct_intern(out, sb.buf), 0);
			if (thread_node[i] == CCT_NONE) {
				ret = RP_EINPUT;
				goto out;
			}
		}
	}
	/*
	 * Children in the order of their names, not of the first sample that hit them (which
	 * is chance): the trees of two runs, or of two versions, list a caller's callees in
	 * the same order, as the matching of trees expects (METHODS.md section 5).
	 */
	order = xmallocarray(p->nr_stacks ? p->nr_stacks : 1, sizeof(*order));
	for (size_t i = 0; i < p->nr_stacks; i++)
		order[i] = i;
	qsort_r(order, p->nr_stacks, sizeof(*order), cmp_stack_index, p->stacks);
	for (size_t i = 0; i < p->nr_stacks; i++) {
		const struct sample_stack *s = &p->stacks[order[i]];
		uint32_t node = thread_node ? thread_node[s->thread] : CCT_ROOT;
		const char *f = s->frames;

		for (;;) {
			const char *semi = strchr(f, ';');
			size_t n = semi ? (size_t)(semi - f) : strlen(f);

			node = cct_child(out, node, cct_intern_len(out, f, n), 0);
			if (node == CCT_NONE) {
				ret = RP_EINPUT;
				goto out;
			}
			if (!semi)
				break;
			f = semi + 1;
		}
		out->nodes[node].excl += s->weight;
	}
	cct_compute_inclusive(out);
out:
	if (ret) {
		cct_release(out);
		cct_init(out);
	}
	free(thread_node);
	free(order);
	strbuf_release(&sb);
	return ret;
}
