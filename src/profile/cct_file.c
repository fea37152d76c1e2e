/*
 * The CCT runtime's profile files (docs/cct-format.md): the reader, which trusts nothing,
 * and the conversion of raw per-thread trees into one symbolized struct cct.
 */
#include "profile/cct_file.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The runtime's directory is not on the include path: the one header shared with it. */
#include "../../runtime/cct/revperf_cct_format.h"
#include "util/common.h"
#include "util/input.h"

/* The shortest node line ("n 1 0 0x1 0x1 0 0 0\n"): caps what an announced count reserves. */
#define MIN_NODE_LINE 20
/* Longest piece of a bad field quoted in a message. */
#define QUOTE_MAX 40
/* The length to print of a quoted piece of n bytes. */
#define QUOTE_LEN(n) ((int)((n) < QUOTE_MAX ? (n) : QUOTE_MAX))

/* The record read last: what may come next follows from it. */
enum stage {
	ST_MAGIC,
	ST_PID,
	ST_PPID,
	ST_EXE,
	ST_CLOCK,
	ST_REASON,
	ST_MAPS,
	ST_THREADS,
	ST_END,
};

struct parser {
	const char *origin;
	size_t lineno;
	const char *line;  /* the current line, without its newline */
	size_t len, pos;   /* its length and the cursor of field() */
	const char *tag;   /* the current record's tag, for messages */
	size_t bytes_left; /* after the current line: caps reservations */
	enum stage stage;
	struct cct_profile *p;
	struct cct_file_thread *thread; /* the thread whose nodes are being read */
	size_t nodes_announced;
	size_t alloc_nodes;
};

#define parse_error(ps, ...) error_input_at((ps)->origin, (ps)->lineno, __VA_ARGS__)

/* The next space-separated field of the line; false at the end of the line. A field may be
 * empty (two spaces, or a space at the end): the callers reject that. */
static bool field(struct parser *ps, const char **f, size_t *n)
{
	if (ps->pos > ps->len || (ps->pos == ps->len && (!ps->len || ps->line[ps->len - 1] != ' ')))
		return false;
	const char *s = ps->line + ps->pos;
	const char *sp = memchr(s, ' ', ps->len - ps->pos);
	*f = s;
	*n = sp ? (size_t)(sp - s) : ps->len - ps->pos;
	ps->pos += *n + 1; /* past the space, or one past the end */
	return true;
}

/* Reads the next field as a decimal number in [lo, hi] into *out; RP_EINPUT after error(). */
static int field_u64(struct parser *ps, const char *what, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const char *f;
	size_t n;
	uint64_t v = 0;

	if (!field(ps, &f, &n))
		return parse_error(ps, "'%s' record: %s is missing", ps->tag, what);
	if (!n || n > 20)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		if (f[i] < '0' || f[i] > '9')
			goto bad;
		unsigned d = (unsigned)(f[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return parse_error(ps, "'%s' record: %s '%.*s' is too large", ps->tag, what,
					   QUOTE_LEN(n), f);
		v = v * 10 + d;
	}
	if (v < lo || v > hi)
		return parse_error(
		    ps, "'%s' record: %s %" PRIu64 " is out of range (%" PRIu64 " to %" PRIu64 ")",
		    ps->tag, what, v, lo, hi);
	*out = v;
	return 0;
bad:
	return parse_error(ps, "'%s' record: %s '%.*s' is not a decimal number", ps->tag, what,
			   QUOTE_LEN(n), f);
}

/* Reads the next field as an address ("0x" + 1 to 16 lower-case hex digits). */
static int field_addr(struct parser *ps, const char *what, uint64_t *out)
{
	const char *f;
	size_t n;
	uint64_t v = 0;

	if (!field(ps, &f, &n))
		return parse_error(ps, "'%s' record: %s is missing", ps->tag, what);
	if (n < 3 || n > 18 || f[0] != '0' || f[1] != 'x')
		goto bad;
	for (size_t i = 2; i < n; i++) {
		char c = f[i];
		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			goto bad;
	}
	*out = v;
	return 0;
bad:
	return parse_error(ps, "'%s' record: %s '%.*s' is not an address (0x and lower-case hex)",
			   ps->tag, what, QUOTE_LEN(n), f);
}

/* The rest of the line from the cursor, which must not be empty: exe paths, map lines. On
 * error, *f is NULL and *n 0. */
static int field_rest(struct parser *ps, const char *what, const char **f, size_t *n)
{
	*f = NULL;
	*n = 0;
	if (ps->pos >= ps->len)
		return parse_error(ps, "'%s' record: %s is missing", ps->tag, what);
	*f = ps->line + ps->pos;
	*n = ps->len - ps->pos;
	if (memchr(*f, '\0', *n))
		return parse_error(ps, "'%s' record: %s contains a NUL byte", ps->tag, what);
	ps->pos = ps->len + 1;
	return 0;
}

static int record_end(struct parser *ps)
{
	if (ps->pos <= ps->len) {
		const char *rest = ps->line + ps->pos;
		size_t n = ps->len - ps->pos;
		return parse_error(ps, "'%s' record: unexpected text after its fields: '%.*s'",
				   ps->tag, QUOTE_LEN(n), rest);
	}
	return 0;
}

/* What may come after `stage`, for messages. */
static const char *expected_after(const struct parser *ps)
{
	switch (ps->stage) {
	case ST_MAGIC: return "'pid'";
	case ST_PID: return "'ppid'";
	case ST_PPID: return "'exe' or 'clock'";
	case ST_EXE: return "'clock'";
	case ST_CLOCK: return "'reason'";
	case ST_REASON:
	case ST_MAPS: return "'map', 'thread' or 'end'";
	case ST_THREADS:
		return ps->thread && ps->thread->nr_nodes < ps->nodes_announced
			   ? "'n'"
			   : "'thread' or 'end'";
	case ST_END: break;
	}
	return "nothing";
}

static int out_of_order(struct parser *ps)
{
	if (ps->stage == ST_END)
		return parse_error(ps, "text after the 'end' line");
	if (ps->stage == ST_THREADS && ps->thread && ps->thread->nr_nodes < ps->nodes_announced)
		return parse_error(ps,
				   "'%s' record where an 'n' record was expected: thread %d "
				   "announced %zu nodes, %zu were read",
				   ps->tag, ps->thread->tid, ps->nodes_announced,
				   ps->thread->nr_nodes);
	return parse_error(ps, "'%s' record out of order: expected %s", ps->tag,
			   expected_after(ps));
}

static bool thread_complete(const struct parser *ps)
{
	return !ps->thread || ps->thread->nr_nodes == ps->nodes_announced;
}

static bool tag_is(const char *tag, size_t n, const char *want)
{
	return n == strlen(want) && !memcmp(tag, want, n);
}

static int parse_magic(struct parser *ps)
{
	static const char magic[] = CCT_FORMAT_MAGIC " ";
	size_t mn = sizeof(magic) - 1;
	char want[32];

	snprintf(want, sizeof(want), "%s %d", CCT_FORMAT_MAGIC, CCT_FORMAT_VERSION);
	if (ps->len == strlen(want) && !memcmp(ps->line, want, ps->len))
		return 0;
	if (ps->len > mn && !memcmp(ps->line, magic, mn))
		return parse_error(ps,
				   "CCT profile format version '%.*s' is not supported (this "
				   "revperf reads version %d)",
				   QUOTE_LEN(ps->len - mn), ps->line + mn, CCT_FORMAT_VERSION);
	return parse_error(ps, "not a revperf CCT profile: the first line must be '%s'", want);
}

static int parse_header(struct parser *ps, const char *tag, size_t tag_len)
{
	struct cct_profile *p = ps->p;
	uint64_t v;
	const char *f;
	size_t n;
	int ret;

#define TAG_IS(t) tag_is(tag, tag_len, t)
	if (TAG_IS(CCT_TAG_PID)) {
		if (ps->stage != ST_MAGIC)
			return out_of_order(ps);
		if ((ret = field_u64(ps, "the pid", 1, INT_MAX, &v)))
			return ret;
		p->pid = (int)v;
		ps->stage = ST_PID;
	} else if (TAG_IS(CCT_TAG_PPID)) {
		if (ps->stage != ST_PID)
			return out_of_order(ps);
		if ((ret = field_u64(ps, "the parent pid", 0, INT_MAX, &v)))
			return ret;
		p->ppid = (int)v;
		ps->stage = ST_PPID;
	} else if (TAG_IS(CCT_TAG_EXE)) {
		if (ps->stage != ST_PPID)
			return out_of_order(ps);
		if ((ret = field_rest(ps, "the executable's path", &f, &n)))
			return ret;
		p->exe = xstrndup(f, n);
		ps->stage = ST_EXE;
	} else if (TAG_IS(CCT_TAG_CLOCK)) {
		if (ps->stage != ST_PPID && ps->stage != ST_EXE)
			return out_of_order(ps);
		if (!field(ps, &f, &n))
			return parse_error(ps, "'clock' record: the clock is missing");
		if (tag_is(f, n, CCT_CLOCK_NAME_TSC))
			p->clock = CCT_CLOCK_TSC;
		else if (tag_is(f, n, CCT_CLOCK_NAME_MONOTONIC))
			p->clock = CCT_CLOCK_MONOTONIC;
		else if (tag_is(f, n, CCT_CLOCK_NAME_NONE))
			p->clock = CCT_CLOCK_NONE;
		else
			return parse_error(ps,
					   "'clock' record: unknown clock '%.*s' (tsc, monotonic "
					   "or none)",
					   QUOTE_LEN(n), f);
		ps->stage = ST_CLOCK;
	} else if (TAG_IS(CCT_TAG_REASON)) {
		if (ps->stage != ST_CLOCK)
			return out_of_order(ps);
		if (!field(ps, &f, &n))
			return parse_error(ps, "'reason' record: the reason is missing");
		if (n == 6 && !memcmp(f, "signal", 6)) {
			if ((ret = field_u64(ps, "the signal", 1, 64, &v)))
				return ret;
			p->signal = (int)v;
		} else if (!((n == 4 && !memcmp(f, "exit", 4)) ||
			     (n == 4 && !memcmp(f, "exec", 4)))) {
			return parse_error(ps,
					   "'reason' record: unknown reason '%.*s' (exit, exec "
					   "or signal N)",
					   QUOTE_LEN(n), f);
		}
		p->reason = xstrndup(f, n);
		ps->stage = ST_REASON;
	} else if (TAG_IS(CCT_TAG_MAP)) {
		if (ps->stage != ST_REASON && ps->stage != ST_MAPS)
			return out_of_order(ps);
		if ((ret = field_rest(ps, "the memory map line", &f, &n)))
			return ret;
		if (proc_maps_add_line(&p->maps, f, n))
			return parse_error(ps, "'map' record: not a /proc/PID/maps line "
					       "(START-END PERMS OFFSET DEV INODE [PATH])");
		ps->stage = ST_MAPS;
	} else {
		return parse_error(ps, "unknown record '%.*s'", QUOTE_LEN(tag_len), tag);
	}
#undef TAG_IS
	return record_end(ps);
}

static int parse_thread(struct parser *ps)
{
	struct cct_profile *p = ps->p;
	uint64_t tid, nodes, truncated, lost, depth;
	int ret;

	if (ps->stage < ST_REASON || ps->stage == ST_END || !thread_complete(ps))
		return out_of_order(ps);
	if ((ret = field_u64(ps, "the thread id", 1, INT_MAX, &tid)) ||
	    (ret = field_u64(ps, "the node count", 1, CCT_FILE_MAX_THREAD_NODES, &nodes)) ||
	    (ret = field_u64(ps, "the truncated flag", 0, 1, &truncated)) ||
	    (ret = field_u64(ps, "the lost call count", 0, UINT64_MAX, &lost)) ||
	    (ret = field_u64(ps, "the maximum depth", 0, CCT_FILE_MAX_DEPTH, &depth)) ||
	    (ret = record_end(ps)))
		return ret;
	ALLOC_GROW(p->threads, p->nr_threads + 1, p->alloc_threads);
	struct cct_file_thread *t = &p->threads[p->nr_threads++];
	memset(t, 0, sizeof(*t));
	t->tid = (int)tid;
	t->truncated = truncated;
	t->lost_calls = lost;
	t->max_depth = (uint32_t)depth;
	ps->thread = t;
	ps->nodes_announced = (size_t)nodes;
	/* Reserve what the rest of the file can hold at most, not what a bad count says. */
	size_t fits = ps->bytes_left / MIN_NODE_LINE + 1;
	ps->alloc_nodes = 0;
	ALLOC_GROW(t->nodes, nodes < fits ? nodes : fits, ps->alloc_nodes);
	ps->stage = ST_THREADS;
	return 0;
}

static int parse_node(struct parser *ps)
{
	struct cct_file_thread *t = ps->thread;
	uint64_t id, parent;
	struct cct_file_node n;
	int ret;

	if (ps->stage != ST_THREADS || t->nr_nodes >= ps->nodes_announced) {
		if (ps->stage == ST_THREADS)
			return parse_error(ps,
					   "'n' record beyond the %zu nodes thread %d announced",
					   ps->nodes_announced, t->tid);
		return out_of_order(ps);
	}
	if ((ret = field_u64(ps, "the node id", 0, UINT64_MAX, &id)))
		return ret;
	if (id != t->nr_nodes)
		return parse_error(ps, "node id %" PRIu64 " out of order: expected %zu", id,
				   t->nr_nodes);
	if ((ret = field_u64(ps, "the parent id", 0, UINT64_MAX, &parent)) ||
	    (ret = field_addr(ps, "the function address", &n.fn)) ||
	    (ret = field_addr(ps, "the call site address", &n.site)) ||
	    (ret = field_u64(ps, "the call count", 0, UINT64_MAX, &n.calls)) ||
	    (ret = field_u64(ps, "the inclusive time", 0, UINT64_MAX, &n.incl_ns)) ||
	    (ret = field_u64(ps, "the exclusive time", 0, UINT64_MAX, &n.excl_ns)) ||
	    (ret = record_end(ps)))
		return ret;
	if (id == CCT_ROOT_ID) {
		if (parent || n.fn || n.site || n.calls)
			return parse_error(ps, "node 0 is the thread's root: its parent, function, "
					       "call site and calls must be 0");
	} else {
		if (parent >= id)
			return parse_error(ps,
					   "node %" PRIu64 " has parent %" PRIu64
					   ", which is not a smaller id",
					   id, parent);
		if (!n.fn)
			return parse_error(ps, "node %" PRIu64 " has function address 0x0", id);
	}
	if (ps->p->clock == CCT_CLOCK_NONE && (n.incl_ns || n.excl_ns))
		return parse_error(ps,
				   "node %" PRIu64 ": the profile has no clock (calls only) but "
				   "times %" PRIu64 " and %" PRIu64 " ns",
				   id, n.incl_ns, n.excl_ns);
	if (n.incl_ns < n.excl_ns)
		return parse_error(ps,
				   "node %" PRIu64 ": inclusive time %" PRIu64
				   " ns is less than exclusive time %" PRIu64 " ns",
				   id, n.incl_ns, n.excl_ns);
	n.parent = (uint32_t)parent;
	ALLOC_GROW(t->nodes, t->nr_nodes + 1, ps->alloc_nodes);
	t->nodes[t->nr_nodes++] = n;
	return 0;
}

static int parse_end(struct parser *ps)
{
	if (ps->stage < ST_REASON || ps->stage == ST_END || !thread_complete(ps))
		return out_of_order(ps);
	ps->stage = ST_END;
	return record_end(ps);
}

static int parse_record(struct parser *ps)
{
	const char *tag;
	size_t n;
	char tag_buf[16];

	if (ps->stage == ST_END)
		return parse_error(ps, "text after the 'end' line");
	if (!ps->len)
		return parse_error(ps, "empty line");
	if (!field(ps, &tag, &n) || !n)
		return parse_error(ps, "a record starts with a space");
	/* The tag goes into messages through ps->tag, NUL-terminated. */
	if (n < sizeof(tag_buf)) {
		memcpy(tag_buf, tag, n);
		tag_buf[n] = '\0';
		ps->tag = tag_buf;
	} else {
		ps->tag = "?";
	}
	if (tag_is(tag, n, CCT_TAG_NODE))
		return parse_node(ps);
	if (tag_is(tag, n, CCT_TAG_THREAD))
		return parse_thread(ps);
	if (tag_is(tag, n, CCT_TAG_END))
		return parse_end(ps);
	return parse_header(ps, tag, n);
}

int cct_file_parse(const char *text, size_t len, const char *origin, struct cct_profile *out)
{
	struct parser ps;
	size_t pos = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	proc_maps_init(&out->maps);
	out->origin = xstrdup(origin);
	memset(&ps, 0, sizeof(ps));
	ps.origin = origin;
	ps.p = out;
	if (len > CCT_FILE_MAX_BYTES) {
		error("%s: CCT profile larger than %zu bytes", origin, CCT_FILE_MAX_BYTES);
		ret = RP_EINPUT;
		goto out;
	}
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		ps.line = text + pos;
		ps.len = nl ? (size_t)(nl - ps.line) : len - pos;
		pos += ps.len + (nl ? 1 : 0);
		ps.bytes_left = len - pos;
		ps.pos = 0;
		ps.lineno++;
		ret = ps.lineno == 1 ? parse_magic(&ps) : parse_record(&ps);
		if (ret)
			goto out;
	}
	if (ps.stage != ST_END) {
		ps.lineno++;
		if (ps.lineno == 1)
			ret = parse_error(&ps, "empty file, not a CCT profile");
		else if (!thread_complete(&ps))
			ret = parse_error(&ps,
					  "truncated profile: the file ends in thread %d after "
					  "%zu of its %zu nodes, without the 'end' line",
					  ps.thread->tid, ps.thread->nr_nodes, ps.nodes_announced);
		else
			ret = parse_error(&ps, "truncated profile: the file ends without the 'end' "
					       "line");
	}
out:
	if (ret)
		cct_profile_release(out);
	return ret;
}

int cct_file_read(const char *path, struct cct_profile *out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if ((ret = input_read(&sb, path, &input_profile))) {
		memset(out, 0, sizeof(*out));
		goto out;
	}
	ret = cct_file_parse(sb.buf, sb.len, path, out);
out:
	strbuf_release(&sb);
	return ret;
}

bool cct_file_sniff(const char *text, size_t len)
{
	static const char magic[] = CCT_FORMAT_MAGIC " ";
	return len >= sizeof(magic) - 1 && !memcmp(text, magic, sizeof(magic) - 1);
}

void cct_profile_release(struct cct_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_threads; i++)
		free(p->threads[i].nodes);
	free(p->threads);
	proc_maps_release(&p->maps);
	free(p->origin);
	free(p->exe);
	free(p->reason);
	memset(p, 0, sizeof(*p));
}

/* ---- conversion into a struct cct ------------------------------------------------------ */

#define NO_MODULE UINT32_MAX

/* A call site comparable across processes: (module, ELF virtual address of the return
 * address), or (NO_MODULE, run-time address) outside any file. */
struct site_key {
	uint32_t module; /* index into conv.modules, then its rank by path */
	uint64_t vaddr;
};

/* One raw node of a thread, numbered over all threads of all profiles. */
struct raw {
	size_t parent;	/* global index of the parent (roots: itself) */
	uint32_t depth; /* 0 for a thread root */
	uint32_t name;	/* the function's name id in the output tree */
	struct site_key site;
	uint32_t rank;
	uint32_t node; /* the output node */
	const struct cct_file_node *src;
};

/* One node of a depth level being ranked. */
struct level_entry {
	uint32_t parent, name;
	struct site_key site;
	size_t raw;
};

struct conv {
	struct symbolizer *sym;
	struct cct *out;
	char **modules; /* distinct module paths of call sites */
	size_t nr_modules, alloc_modules;
	char **checked; /* module paths already checked against the file system */
	size_t nr_checked, alloc_checked;
	struct strbuf name;
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

static bool path_seen(char ***list, size_t *nr, size_t *alloc, const char *path)
{
	for (size_t i = 0; i < *nr; i++)
		if (!strcmp((*list)[i], path))
			return true;
	ALLOC_GROW(*list, *nr + 1, *alloc);
	(*list)[(*nr)++] = xstrdup(path);
	return false;
}

/*
 * Warns once per file about code mappings whose file is gone or was replaced since the
 * run: names read from another build would be wrong.
 */
static void check_modules(struct conv *c, const struct cct_profile *p)
{
	for (size_t i = 0; i < p->maps.nr; i++) {
		const struct proc_map *m = &p->maps.maps[i];
		struct stat st;
		if (!m->path || m->path[0] != '/' || m->perms[2] != 'x' ||
		    path_seen(&c->checked, &c->nr_checked, &c->alloc_checked, m->path))
			continue;
		if (m->deleted)
			warning("%s: '%s' was deleted or replaced while the program ran; its "
				"frames are named by address",
				p->origin, m->path);
		else if (!stat(m->path, &st) && (uint64_t)st.st_ino != m->inode)
			warning("%s: '%s' changed since the run (inode %" PRIu64 ", now %" PRIu64
				"); names of its frames may be wrong",
				p->origin, m->path, m->inode, (uint64_t)st.st_ino);
	}
}

/* The name of the function at run-time address `addr` of profile `p`. */
static uint32_t function_name(struct conv *c, const struct cct_profile *p, uint64_t addr)
{
	const struct proc_map *m = proc_maps_find(&p->maps, addr);
	struct strbuf *sb = &c->name;
	struct sym_loc loc;
	uint64_t offset, vaddr;

	strbuf_reset(sb);
	if (!m || !m->path) {
		strbuf_addf(sb, "0x%" PRIx64, addr);
		goto out;
	}
	offset = addr - m->start + m->offset;
	if (!c->sym || m->deleted || symbolizer_file_vaddr(c->sym, m->path, offset, &vaddr)) {
		strbuf_addf(sb, "%s+0x%" PRIx64, base_name(m->path), offset);
		goto out;
	}
	symbolizer_lookup(c->sym, m->path, vaddr, &loc);
	if (!loc.function)
		strbuf_addf(sb, "%s+0x%" PRIx64, base_name(m->path), vaddr);
	else if (loc.fn_offset)
		strbuf_addf(sb, "%s+0x%" PRIx64, loc.function, loc.fn_offset);
	else
		strbuf_addstr(sb, loc.function);
out:
	return cct_intern_len(c->out, sb->buf, sb->len);
}

static uint32_t module_id(struct conv *c, const char *path)
{
	/* Call sites of one caller are mostly in one module: look at the last one first. */
	if (c->nr_modules && !strcmp(c->modules[c->nr_modules - 1], path))
		return (uint32_t)(c->nr_modules - 1);
	for (size_t i = 0; i < c->nr_modules; i++)
		if (!strcmp(c->modules[i], path))
			return (uint32_t)i;
	ALLOC_GROW(c->modules, c->nr_modules + 1, c->alloc_modules);
	c->modules[c->nr_modules] = xstrdup(path);
	return (uint32_t)c->nr_modules++;
}

static struct site_key site_key(struct conv *c, const struct cct_profile *p, uint64_t addr)
{
	const struct proc_map *m = proc_maps_find(&p->maps, addr);
	struct site_key k = {NO_MODULE, addr};
	if (!m || !m->path)
		return k;
	k.module = module_id(c, m->path);
	k.vaddr = addr - m->start + m->offset;
	if (c->sym && !m->deleted)
		symbolizer_file_vaddr(c->sym, m->path, k.vaddr, &k.vaddr);
	return k;
}

/* Module indices -> ranks by path, so that site order does not depend on reading order. */
static int cmp_module(const void *a, const void *b, void *arg)
{
	char **modules = arg;
	return strcmp(modules[*(const uint32_t *)a], modules[*(const uint32_t *)b]);
}

static void rank_modules(struct conv *c, struct raw *raw, size_t nr_raw)
{
	uint32_t *order = xmallocarray(c->nr_modules + 1, sizeof(*order));
	uint32_t *rank = xmallocarray(c->nr_modules + 1, sizeof(*rank));
	for (size_t i = 0; i < c->nr_modules; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, c->nr_modules, sizeof(*order), cmp_module, c->modules);
	for (size_t i = 0; i < c->nr_modules; i++)
		rank[order[i]] = (uint32_t)i;
	for (size_t i = 0; i < nr_raw; i++)
		if (raw[i].site.module != NO_MODULE)
			raw[i].site.module = rank[raw[i].site.module];
	free(rank);
	free(order);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct level_entry *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->site.module != y->site.module)
		return x->site.module < y->site.module ? -1 : 1;
	if (x->site.vaddr != y->site.vaddr)
		return x->site.vaddr < y->site.vaddr ? -1 : 1;
	return x->raw < y->raw ? -1 : x->raw > y->raw;
}

/* A profile's threads in conversion order: the main thread, then by tid. */
struct thread_ref {
	const struct cct_profile *p;
	const struct cct_file_thread *t;
};

static int cmp_thread(const void *a, const void *b)
{
	const struct thread_ref *x = a, *y = b;
	bool xm = x->t->tid == x->p->pid, ym = y->t->tid == y->p->pid;
	if (xm != ym)
		return xm ? -1 : 1;
	return (x->t->tid > y->t->tid) - (x->t->tid < y->t->tid);
}

/* Fills raw[] for every node of every thread; returns the number of raw nodes. */
static size_t collect(struct conv *c, const struct thread_ref *threads, size_t nr_threads,
		      struct raw *raw, uint32_t *max_depth)
{
	size_t g = 0;
	*max_depth = 0;
	for (size_t i = 0; i < nr_threads; i++) {
		const struct cct_file_thread *t = threads[i].t;
		const struct cct_profile *p = threads[i].p;
		size_t first = g;
		for (size_t id = 0; id < t->nr_nodes; id++, g++) {
			const struct cct_file_node *n = &t->nodes[id];
			struct raw *r = &raw[g];
			memset(r, 0, sizeof(*r));
			r->src = n;
			r->parent = first + n->parent;
			if (!id)
				continue;
			r->depth = raw[r->parent].depth + 1;
			if (r->depth > *max_depth)
				*max_depth = r->depth;
			r->name = function_name(c, p, n->fn);
			r->site = site_key(c, p, n->site);
		}
	}
	return g;
}

/* Creates the output nodes of one depth level: ranks first, then nodes in raw order. */
static int convert_level(struct conv *c, struct raw *raw, const size_t *level, size_t nr,
			 struct level_entry *e)
{
	for (size_t i = 0; i < nr; i++) {
		const struct raw *r = &raw[level[i]];
		e[i].parent = raw[r->parent].node;
		e[i].name = r->name;
		e[i].site = r->site;
		e[i].raw = level[i];
	}
	qsort(e, nr, sizeof(*e), cmp_entry);
	uint32_t rank = 0;
	for (size_t i = 0; i < nr; i++) {
		if (i && e[i].parent == e[i - 1].parent && e[i].name == e[i - 1].name) {
			if (e[i].site.module != e[i - 1].site.module ||
			    e[i].site.vaddr != e[i - 1].site.vaddr)
				rank++;
		} else {
			rank = 0;
		}
		raw[e[i].raw].rank = rank;
	}
	/* `level` is in raw order, which is the order of first calls. */
	for (size_t i = 0; i < nr; i++) {
		struct raw *r = &raw[level[i]];
		uint32_t node = cct_child(c->out, raw[r->parent].node, r->name, r->rank);
		if (node == CCT_NONE)
			return RP_EINPUT;
		r->node = node;
		struct cct_node *o = &c->out->nodes[node];
		o->calls += (double)r->src->calls;
		o->incl += (double)r->src->incl_ns;
		o->excl += (double)r->src->excl_ns;
	}
	return 0;
}

static const char *clock_name(enum cct_file_clock clock)
{
	switch (clock) {
	case CCT_CLOCK_TSC: return CCT_CLOCK_NAME_TSC;
	case CCT_CLOCK_MONOTONIC: return CCT_CLOCK_NAME_MONOTONIC;
	case CCT_CLOCK_NONE: break;
	}
	return CCT_CLOCK_NAME_NONE;
}

/* Sets *calls_only when every profile is calls-only; RP_EINPUT after error() when only
 * some are: call counts and times are not one weight. */
static int check_clocks(const struct cct_profile *const *profiles, size_t nr, bool *calls_only)
{
	const struct cct_profile *none = NULL, *timed = NULL;
	for (size_t i = 0; i < nr; i++) {
		if (profiles[i]->clock == CCT_CLOCK_NONE) {
			if (!none)
				none = profiles[i];
		} else if (!timed) {
			timed = profiles[i];
		}
	}
	*calls_only = !timed;
	if (none && timed) {
		error("%s: a calls-only profile (clock none) cannot be converted together with "
		      "%s, which has times (clock %s); profile them with the same "
		      "REVPERF_CCT_CLOCK",
		      none->origin, timed->origin, clock_name(timed->clock));
		return RP_EINPUT;
	}
	return 0;
}

int cct_profile_to_cct(const struct cct_profile *const *profiles, size_t nr, struct symbolizer *sym,
		       bool merge_threads, struct cct *out)
{
	struct conv c = {.sym = sym, .out = out, .name = STRBUF_INIT};
	struct thread_ref *threads = NULL;
	size_t nr_threads = 0, alloc_threads = 0, nr_raw = 0;
	struct raw *raw = NULL;
	size_t *count = NULL, *level = NULL;
	struct level_entry *entries = NULL;
	uint32_t max_depth = 0;
	bool calls_only;
	int ret = RP_EINPUT;

	cct_init(out);
	if (!nr) {
		error("cct: no profiles to convert");
		goto out;
	}
	if (check_clocks(profiles, nr, &calls_only))
		goto out;
	for (size_t i = 0; i < nr; i++) {
		const struct cct_profile *p = profiles[i];
		size_t first = nr_threads;
		if (sym)
			check_modules(&c, p);
		for (size_t j = 0; j < p->nr_threads; j++) {
			const struct cct_file_thread *t = &p->threads[j];
			if (t->truncated)
				warning(
				    "%s: thread %d was truncated (node pool full or stack deeper "
				    "than the limit, %" PRIu64 " calls lost): its tree is "
				    "incomplete; raise REVPERF_CCT_NODES or REVPERF_CCT_DEPTH",
				    p->origin, t->tid, t->lost_calls);
			ALLOC_GROW(threads, nr_threads + 1, alloc_threads);
			threads[nr_threads].p = p;
			threads[nr_threads++].t = t;
			nr_raw += t->nr_nodes;
		}
		if (nr_threads > first) /* a process may have no instrumented thread */
			qsort(threads + first, nr_threads - first, sizeof(*threads), cmp_thread);
	}

	raw = xmallocarray(nr_raw ? nr_raw : 1, sizeof(*raw));
	collect(&c, threads, nr_threads, raw, &max_depth);
	rank_modules(&c, raw, nr_raw);

	/* Thread roots: the output root, or a "[thread K]" node under it. */
	for (size_t i = 0, g = 0; i < nr_threads; g += threads[i++].t->nr_nodes) {
		struct raw *r = &raw[g];
		r->node = CCT_ROOT;
		if (!merge_threads) {
			strbuf_reset(&c.name);
			strbuf_addf(&c.name, "[thread %zu]", i);
			r->node = cct_child(out, CCT_ROOT, cct_intern(out, c.name.buf), 0);
			if (r->node == CCT_NONE)
				goto out;
			out->nodes[r->node].incl += (double)r->src->incl_ns;
		}
		out->nodes[CCT_ROOT].incl += (double)r->src->incl_ns;
	}

	/* Nodes by depth (a counting sort that keeps raw order within a depth): the ranks of
	 * a level need every node of the level, and the parents' output nodes. */
	count = xcalloc((size_t)max_depth + 2, sizeof(*count));
	for (size_t g = 0; g < nr_raw; g++)
		count[raw[g].depth + 1]++;
	for (size_t d = 1; d <= (size_t)max_depth + 1; d++)
		count[d] += count[d - 1];
	level = xmallocarray(nr_raw ? nr_raw : 1, sizeof(*level));
	{
		size_t *next = xmallocarray((size_t)max_depth + 1, sizeof(*next));
		memcpy(next, count, ((size_t)max_depth + 1) * sizeof(*next));
		for (size_t g = 0; g < nr_raw; g++)
			level[next[raw[g].depth]++] = g;
		free(next);
	}
	size_t widest = 0;
	for (size_t d = 1; d <= max_depth; d++)
		if (count[d + 1] - count[d] > widest)
			widest = count[d + 1] - count[d];
	entries = xmallocarray(widest ? widest : 1, sizeof(*entries));
	for (size_t d = 1; d <= max_depth; d++)
		if (convert_level(&c, raw, level + count[d], count[d + 1] - count[d], entries))
			goto out;
	if (calls_only) {
		for (size_t i = 0; i < out->nr_nodes; i++)
			out->nodes[i].excl = out->nodes[i].calls;
		cct_compute_inclusive(out);
	}
	cct_set_weight(out, calls_only ? CCT_WEIGHT_CALLS : CCT_WEIGHT_ELAPSED_NS, NULL);
	out->calls_known = true;
	ret = 0;
out:
	if (ret) {
		cct_release(out);
		cct_init(out);
	}
	free(entries);
	free(level);
	free(count);
	free(raw);
	free(threads);
	for (size_t i = 0; i < c.nr_modules; i++)
		free(c.modules[i]);
	free(c.modules);
	for (size_t i = 0; i < c.nr_checked; i++)
		free(c.checked[i]);
	free(c.checked);
	strbuf_release(&c.name);
	return ret;
}
