#include "profile/callgrind.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "util/common.h"
#include "util/input.h"

/* positions: lists at most instr, bb and line. */
#define MAX_POSITIONS 3
/* Longest excerpt of a bad line quoted in an error. */
#define QUOTE_MAX 60

/* A map from 64-bit keys to 32-bit values, open addressing; value + 1 stored, 0 = empty. */
struct idmap {
	uint64_t *keys;
	uint32_t *vals;
	size_t size, nr;
};

/* Name compression: callgrind shares ids among the specs naming one kind of thing. */
enum name_space { NS_FILE, NS_OBJECT, NS_FUNCTION };

/* What the next cost line is: self cost, the cost of a call, or a jump's source position. */
enum expect { EXPECT_COST, EXPECT_CALL, EXPECT_JUMP };

struct cg_func {
	uint32_t name;	  /* full name ("f'2'caller"), in the parser's string table */
	uint32_t object;  /* object (ob=) name, in the string table */
	uint32_t display; /* the name in the output tree: the full name up to its first ' */
	uint32_t order;	  /* rank of the function sorted by names */
	uint32_t first_edge, nr_edges; /* its calls, a range of the sorted call array */
	bool has_callers;
	double self;	 /* self cost of the chosen event */
	double in_incl;	 /* inclusive cost of all calls to it */
	double in_calls; /* number of calls to it */
	double denom;	 /* in_incl, or its own total when larger (the rest is a top frame) */
};

/* One call edge: calls= and its cost line, identical ones added up. */
struct cg_call {
	uint32_t caller, callee;
	uint32_t callee_order; /* callee's cg_func.order, to sort without a context pointer */
	uint32_t site;	       /* rank of pos among the caller's positions calling callee */
	uint64_t pos[MAX_POSITIONS];
	double calls, incl;
};

struct parser {
	const char *origin;
	size_t lineno;
	struct cct *out;
	struct cct strings;    /* only its interner is used: names of functions, objects, files */
	struct idmap ids;      /* (name space << 32 | compressed id) -> string */
	struct idmap func_ids; /* (object << 32 | full name) -> function */
	struct cg_func *funcs;
	size_t nr_funcs, alloc_funcs;
	struct cg_call *calls;
	size_t nr_calls, alloc_calls;

	const char *want_event; /* the caller's choice, or NULL */
	char *event;		/* the chosen event's name, once known */
	size_t nr_events, event_col;
	bool have_events, saw_events, saw_text;
	size_t nr_pos;
	uint64_t last[MAX_POSITIONS];

	uint32_t no_object;	       /* string id of "", the object before any ob= */
	uint32_t object, fn, cob, cfn; /* current ob=, fn=, cob= and cfn=; CCT_NONE unset */
	enum expect expect;
	size_t spec_line; /* line of the pending calls= or jump */
	uint32_t call_callee;
	double call_count;

	bool in_body, from_callgrind, totals_due;
	double part_sum, file_sum; /* self costs since the part's and the last totals: start */
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static size_t idmap_slot(const struct idmap *m, uint64_t key)
{
	size_t mask = m->size - 1;
	size_t i = (size_t)mix64(key) & mask;
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & mask;
	return i;
}

/* The value of `key`, or CCT_NONE. */
static uint32_t idmap_get(const struct idmap *m, uint64_t key)
{
	if (!m->size)
		return CCT_NONE;
	size_t i = idmap_slot(m, key);
	return m->vals[i] ? m->vals[i] - 1 : CCT_NONE;
}

static void idmap_put(struct idmap *m, uint64_t key, uint32_t val)
{
	/* Keep the load at most 1/2 so that probes stay short. */
	if ((m->nr + 1) * 2 > m->size) {
		struct idmap old = *m;
		m->size = old.size ? old.size * 2 : 64;
		m->keys = xcalloc(m->size, sizeof(*m->keys));
		m->vals = xcalloc(m->size, sizeof(*m->vals));
		for (size_t i = 0; i < old.size; i++) {
			if (!old.vals[i])
				continue;
			size_t j = idmap_slot(m, old.keys[i]);
			m->keys[j] = old.keys[i];
			m->vals[j] = old.vals[i];
		}
		free(old.keys);
		free(old.vals);
	}
	size_t i = idmap_slot(m, key);
	if (!m->vals[i])
		m->nr++;
	m->keys[i] = key;
	m->vals[i] = val + 1;
}

static void idmap_release(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

#define bad(p, ...) error_input_at((p)->origin, (p)->lineno, __VA_ARGS__)

/* The length of `len` bytes shown in an error. */
static int quoted(size_t len)
{
	return len > QUOTE_MAX ? QUOTE_MAX : (int)len;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* The next space-separated token of [*cur, end) in *tok, *tok_len; false at the end. */
static bool next_token(const char **cur, const char *end, const char **tok, size_t *tok_len)
{
	const char *s = *cur;
	while (s < end && is_space(*s))
		s++;
	if (s == end)
		return false;
	*tok = s;
	while (s < end && !is_space(*s))
		s++;
	*tok_len = (size_t)(s - *tok);
	*cur = s;
	return true;
}

static bool token_is(const char *tok, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(tok, word, len);
}

/* A Number of the format: decimal digits, or 0x and hex digits; false on overflow. */
static bool parse_u64(const char *s, size_t len, uint64_t *out)
{
	unsigned base = 10;
	size_t i = 0;
	uint64_t v = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		char c = s[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/* A subposition: a Number, +Number or -Number relative to `last`, or * for `last`. */
static bool parse_subposition(const char *s, size_t len, uint64_t last, uint64_t *out)
{
	uint64_t v;

	if (len == 1 && s[0] == '*') {
		*out = last;
		return true;
	}
	if (s[0] == '+' || s[0] == '-') {
		if (!parse_u64(s + 1, len - 1, &v))
			return false;
		/* Unsigned wrap-around is harmless: positions only order call sites. */
		*out = s[0] == '+' ? last + v : last - v;
		return true;
	}
	return parse_u64(s, len, out);
}

/*
 * Parses the cost numbers of [cur, end) (after the positions): *value gets the chosen
 * event's column, 0 when the line is shorter. Returns 0 or RP_EINPUT after bad().
 */
static int parse_costs(const struct parser *p, const char *cur, const char *end, double *value)
{
	const char *tok;
	size_t tok_len, n = 0;

	*value = 0;
	while (next_token(&cur, end, &tok, &tok_len)) {
		uint64_t v;
		if (!parse_u64(tok, tok_len, &v))
			return bad(p, "bad cost '%.*s': expected an unsigned integer",
				   quoted(tok_len), tok);
		if (n == p->nr_events)
			return bad(p, "more costs than the %zu event(s) of the events: line",
				   p->nr_events);
		if (n == p->event_col)
			*value = (double)v;
		n++;
	}
	return 0;
}

/* The string id of [s, s + len) in the parser's string table. */
static uint32_t string_id(struct parser *p, const char *s, size_t len)
{
	return cct_intern_len(&p->strings, s, len);
}

/* The function (object, name), created on first sight. */
static uint32_t func_get(struct parser *p, uint32_t object, uint32_t name)
{
	uint64_t key = (uint64_t)object << 32 | name;
	uint32_t f = idmap_get(&p->func_ids, key);
	if (f != CCT_NONE)
		return f;
	ALLOC_GROW(p->funcs, p->nr_funcs + 1, p->alloc_funcs);
	f = (uint32_t)p->nr_funcs++;
	struct cg_func *fn = &p->funcs[f];
	memset(fn, 0, sizeof(*fn));
	fn->name = name;
	fn->object = object;
	/* f'2 is recursion depth 2 of f, f'g'h is f called from g from h: the tree names f. */
	const char *full = cct_name(&p->strings, name);
	const char *tick = strchr(full, '\'');
	size_t base = tick && tick != full ? (size_t)(tick - full) : strlen(full);
	fn->display = cct_intern_len(p->out, full, base);
	idmap_put(&p->func_ids, key, f);
	return f;
}

/*
 * Resolves the value of a position spec ("(12) name", "(12)" or "name") in name space `ns`
 * into *id, defining a compressed id on first use. Returns 0 or RP_EINPUT after bad().
 */
static int resolve_name(struct parser *p, enum name_space ns, const char *key, const char *s,
			size_t len, uint32_t *id)
{
	while (len && is_space(*s)) {
		s++;
		len--;
	}
	if (len >= 2 && s[0] == '(' && s[1] >= '0' && s[1] <= '9') {
		const char *close = memchr(s, ')', len);
		uint64_t num;
		if (!close || !parse_u64(s + 1, (size_t)(close - s - 1), &num) || num > UINT32_MAX)
			return bad(p, "%s=: bad name id '%.*s'", key, quoted(len), s);
		uint64_t map_key = (uint64_t)ns << 32 | num;
		const char *name = close + 1;
		size_t name_len = len - (size_t)(name - s);
		while (name_len && is_space(*name)) {
			name++;
			name_len--;
		}
		uint32_t known = idmap_get(&p->ids, map_key);
		if (!name_len) {
			if (known == CCT_NONE)
				return bad(p,
					   "%s=(%llu) refers to an id that no earlier line defined",
					   key, (unsigned long long)num);
			*id = known;
			return 0;
		}
		*id = string_id(p, name, name_len);
		if (known != CCT_NONE && known != *id)
			return bad(p, "%s=(%llu) is redefined as '%.*s'; it was '%s'", key,
				   (unsigned long long)num, quoted(name_len), name,
				   cct_name(&p->strings, known));
		idmap_put(&p->ids, map_key, *id);
		return 0;
	}
	if (!len)
		return bad(p, "%s= without a name", key);
	*id = string_id(p, s, len);
	return 0;
}

/* Forgets what one file defined, when a second file is concatenated after the first. */
static void start_file(struct parser *p)
{
	idmap_release(&p->ids);
	p->have_events = false;
	p->nr_events = 0;
	p->nr_pos = 1;
	memset(p->last, 0, sizeof(p->last));
	p->object = p->no_object;
	p->fn = p->cob = p->cfn = CCT_NONE;
	p->in_body = p->from_callgrind = p->totals_due = false;
	p->part_sum = p->file_sum = 0;
}

/* A cost line: self cost, the call's inclusive cost after calls=, or a jump's source. */
static int cost_line(struct parser *p, const char *s, size_t len)
{
	const char *cur = s, *end = s + len, *tok;
	uint64_t pos[MAX_POSITIONS] = {0};
	size_t tok_len;
	double value;
	int ret;

	if (!p->have_events)
		return bad(p, "a cost line before the events: line");
	if (p->fn == CCT_NONE)
		return bad(p, "a cost line before any fn= line");
	for (size_t i = 0; i < p->nr_pos; i++) {
		if (!next_token(&cur, end, &tok, &tok_len))
			return bad(
			    p, "expected %zu position(s) as the positions: line says, found %zu",
			    p->nr_pos, i);
		if (!parse_subposition(tok, tok_len, p->last[i], &pos[i]))
			return bad(p, "bad position '%.*s': expected a number, +N, -N or *",
				   quoted(tok_len), tok);
	}
	memcpy(p->last, pos, sizeof(pos));
	ret = parse_costs(p, cur, end, &value);
	if (ret)
		return ret;
	p->in_body = true;
	switch (p->expect) {
	case EXPECT_CALL: {
		ALLOC_GROW(p->calls, p->nr_calls + 1, p->alloc_calls);
		struct cg_call *c = &p->calls[p->nr_calls++];
		memset(c, 0, sizeof(*c));
		c->caller = p->fn;
		c->callee = p->call_callee;
		memcpy(c->pos, pos, sizeof(pos));
		c->calls = p->call_count;
		c->incl = value;
		/* cob= (and cfi=) name the target of one call only. */
		p->cob = CCT_NONE;
		break;
	}
	case EXPECT_JUMP: break; /* the jump's source position: jumps are not calls */
	case EXPECT_COST:
		p->funcs[p->fn].self += value;
		p->part_sum += value;
		p->file_sum += value;
		p->totals_due = true;
		break;
	}
	p->expect = EXPECT_COST;
	return 0;
}

/* calls=COUNT TARGET: the next cost line is the call's position and inclusive cost. */
static int calls_line(struct parser *p, const char *s, size_t len)
{
	const char *cur = s, *end = s + len, *tok;
	size_t tok_len, n = 0;
	uint64_t count, target;

	if (p->fn == CCT_NONE)
		return bad(p, "calls= before any fn= line");
	if (p->cfn == CCT_NONE)
		return bad(p, "calls= without a cfn= line naming the called function");
	if (!next_token(&cur, end, &tok, &tok_len) || !parse_u64(tok, tok_len, &count))
		return bad(p, "bad calls= line '%.*s': expected a call count and a position",
			   quoted(len), s);
	while (next_token(&cur, end, &tok, &tok_len)) {
		/* The target is relative to the last position but does not move it. */
		if (n == p->nr_pos || !parse_subposition(tok, tok_len, p->last[n], &target))
			return bad(p, "bad calls= target position '%.*s'", quoted(len), s);
		n++;
	}
	p->call_callee = func_get(p, p->cob != CCT_NONE ? p->cob : p->object, p->cfn);
	p->call_count = (double)count;
	p->spec_line = p->lineno;
	p->expect = EXPECT_CALL;
	return 0;
}

/* A position spec (fn=, cfn=, ob=, fl=...) or an association (calls=, jump=, jcnd=). */
static int spec_line(struct parser *p, const char *key, size_t key_len, const char *val,
		     size_t val_len)
{
	static const struct {
		const char *key;
		enum name_space ns;
	} specs[] = {
	    {"ob", NS_OBJECT},	  {"cob", NS_OBJECT}, {"fn", NS_FUNCTION}, {"cfn", NS_FUNCTION},
	    {"jfn", NS_FUNCTION}, {"fl", NS_FILE},    {"fi", NS_FILE},	   {"fe", NS_FILE},
	    {"cfi", NS_FILE},	  {"cfl", NS_FILE},   {"jfi", NS_FILE},
	};
	uint32_t id = CCT_NONE;
	int ret;

	p->in_body = true;
	if (token_is(key, key_len, "calls"))
		return calls_line(p, val, val_len);
	if (token_is(key, key_len, "jump") || token_is(key, key_len, "jcnd")) {
		/* Jumps (--collect-jumps) are not calls; only their source line follows. */
		p->spec_line = p->lineno;
		p->expect = EXPECT_JUMP;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
		const char *k = specs[i].key;
		if (!token_is(key, key_len, k))
			continue;
		ret = resolve_name(p, specs[i].ns, k, val, val_len, &id);
		if (ret)
			return ret;
		if (!strcmp(k, "ob")) {
			p->object = id;
		} else if (!strcmp(k, "cob")) {
			p->cob = id;
		} else if (!strcmp(k, "fn")) {
			p->fn = func_get(p, p->object, id);
			p->cfn = p->cob = CCT_NONE;
		} else if (!strcmp(k, "cfn")) {
			if (p->fn == CCT_NONE)
				return bad(p, "cfn= before any fn= line: no caller");
			p->cfn = id;
		}
		/* Files do not identify functions here (see docs/callgrind.md). */
		return 0;
	}
	return bad(p, "unknown line '%.*s=...'", quoted(key_len), key);
}

/* events: NAME...: picks the chosen event's column. */
static int events_line(struct parser *p, const char *s, size_t len)
{
	const char *cur = s, *end = s + len, *tok;
	size_t tok_len, n = 0;

	p->event_col = SIZE_MAX;
	while (next_token(&cur, end, &tok, &tok_len)) {
		if (!p->event)
			p->event = xstrndup(p->want_event ? p->want_event : tok,
					    p->want_event ? strlen(p->want_event) : tok_len);
		if (p->event_col == SIZE_MAX && token_is(tok, tok_len, p->event))
			p->event_col = n;
		n++;
	}
	if (!n)
		return bad(p, "an events: line without event names");
	if (p->event_col == SIZE_MAX)
		return bad(p, "no event '%s' in 'events: %.*s'", p->event, quoted(len), s);
	p->nr_events = n;
	p->have_events = p->saw_events = true;
	return 0;
}

/* positions: any of instr, bb, line (in that order in cost lines). */
static int positions_line(struct parser *p, const char *s, size_t len)
{
	const char *cur = s, *end = s + len, *tok;
	size_t tok_len, n = 0;

	while (next_token(&cur, end, &tok, &tok_len)) {
		if (n == MAX_POSITIONS ||
		    !(token_is(tok, tok_len, "instr") || token_is(tok, tok_len, "bb") ||
		      token_is(tok, tok_len, "line")))
			return bad(p, "bad 'positions: %.*s': expected instr, bb and/or line",
				   quoted(len), s);
		n++;
	}
	if (!n)
		return bad(p, "a positions: line without positions");
	p->nr_pos = n;
	memset(p->last, 0, sizeof(p->last));
	return 0;
}

/* totals: the sum of the self costs since the part or the last totals: began. */
static int totals_line(struct parser *p, const char *s, size_t len)
{
	double total;
	int ret;

	if (!p->have_events)
		return bad(p, "totals: before the events: line");
	ret = parse_costs(p, s, s + len, &total);
	if (ret)
		return ret;
	if (total != p->part_sum && total != p->file_sum)
		return bad(p,
			   "totals: says %.17g %s but the cost lines add up to %.17g (a truncated "
			   "or edited file?)",
			   total, p->event, p->part_sum);
	p->part_sum = p->file_sum = 0;
	p->totals_due = false;
	return 0;
}

/* A "key: value" line (header, or totals: at the end). Unknown keys are ignored. */
static int header_line(struct parser *p, const char *key, size_t key_len, const char *val,
		       size_t val_len)
{
	while (val_len && is_space(*val)) {
		val++;
		val_len--;
	}
	if (token_is(key, key_len, "version") || token_is(key, key_len, "creator")) {
		if (p->in_body) {
			/* Another file concatenated: its compressed ids start afresh. */
			if (p->from_callgrind && p->totals_due)
				return bad(p, "a new file starts but the one before has no totals: "
					      "line (truncated?)");
			start_file(p);
		}
		if (token_is(key, key_len, "creator"))
			p->from_callgrind = val_len >= 9 && !memcmp(val, "callgrind", 9);
		return 0;
	}
	if (token_is(key, key_len, "events"))
		return events_line(p, val, val_len);
	if (token_is(key, key_len, "positions"))
		return positions_line(p, val, val_len);
	if (token_is(key, key_len, "totals"))
		return totals_line(p, val, val_len);
	if (token_is(key, key_len, "summary")) {
		double unused;
		if (!p->have_events)
			return 0; /* no events to match its numbers to yet: ignored */
		return parse_costs(p, val, val + val_len, &unused);
	}
	if (token_is(key, key_len, "part") && p->in_body)
		p->part_sum = 0;
	return 0;
}

static bool starts_cost_line(char c)
{
	return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*';
}

static int parse_line(struct parser *p, const char *s, size_t len)
{
	size_t k = 0;

	if (memchr(s, '\0', len))
		return bad(p, "a NUL byte: not a text file");
	while (k < len && is_space(s[k]))
		k++;
	if (k == len || s[0] == '#')
		return 0;
	p->saw_text = true;
	if (starts_cost_line(s[0]))
		return cost_line(p, s, len);
	if (p->expect == EXPECT_CALL)
		return bad(p, "expected the cost line of the calls= on line %zu, found '%.*s'",
			   p->spec_line, quoted(len), s);
	if (p->expect == EXPECT_JUMP)
		return bad(p, "expected the source line of the jump on line %zu, found '%.*s'",
			   p->spec_line, quoted(len), s);
	for (k = 0; k < len && s[k] >= 'a' && s[k] <= 'z';)
		k++;
	if (k && k < len && s[k] == ':')
		return header_line(p, s, k, s + k + 1, len - k - 1);
	if (k && k < len && s[k] == '=')
		return spec_line(p, s, k, s + k + 1, len - k - 1);
	return bad(p, "unknown line '%.*s'", quoted(len), s);
}

/* Checks the end of the input. Returns 0 or RP_EINPUT after error(). */
static int parse_end(struct parser *p)
{
	if (p->expect == EXPECT_CALL)
		return bad(p,
			   "the file ends after the calls= on line %zu, without its cost line "
			   "(truncated file?)",
			   p->spec_line);
	if (!p->saw_text) {
		error("%s: empty file, not callgrind output", p->origin);
		return RP_EINPUT;
	}
	if (!p->saw_events)
		return bad(p, "the file ends without an events: line: not callgrind output");
	if (p->from_callgrind && p->totals_due)
		return bad(p, "the file ends without the totals: line that callgrind writes last "
			      "(truncated file?)");
	return 0;
}

/* ---- The call graph: calls merged, ranked and sorted; functions' totals. ---- */

struct name_key {
	const char *display, *full, *object;
	uint32_t func;
};

static int cmp_name_key(const void *a, const void *b)
{
	const struct name_key *x = a, *y = b;
	int c = strcmp(x->display, y->display);
	if (!c)
		c = strcmp(x->full, y->full);
	return c ? c : strcmp(x->object, y->object);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_pos(const struct cg_call *x, const struct cg_call *y)
{
	for (size_t i = 0; i < MAX_POSITIONS; i++)
		if (x->pos[i] != y->pos[i])
			return cmp_u64(x->pos[i], y->pos[i]);
	return 0;
}

/* By caller, callee, then position: identical calls adjacent, sites in order. */
static int cmp_call_site(const void *a, const void *b)
{
	const struct cg_call *x = a, *y = b;
	if (x->caller != y->caller)
		return cmp_u64(x->caller, y->caller);
	if (x->callee != y->callee)
		return cmp_u64(x->callee, y->callee);
	return cmp_pos(x, y);
}

/* By caller, then position (program order), then callee name: the children's order. */
static int cmp_call_order(const void *a, const void *b)
{
	const struct cg_call *x = a, *y = b;
	int c;
	if (x->caller != y->caller)
		return cmp_u64(x->caller, y->caller);
	c = cmp_pos(x, y);
	return c ? c : cmp_u64(x->callee_order, y->callee_order);
}

/* The function's own total: self cost plus the inclusive cost of its calls. */
static double func_total(const struct parser *p, const struct cg_func *f)
{
	double total = f->self;
	for (uint32_t e = 0; e < f->nr_edges; e++)
		total += p->calls[f->first_edge + e].incl;
	return total;
}

/* Ranks the functions by name (for a deterministic order), merges and sorts the calls. */
static void build_graph(struct parser *p)
{
	struct name_key *keys = xmallocarray(p->nr_funcs ? p->nr_funcs : 1, sizeof(*keys));
	size_t i, w = 0;

	for (i = 0; i < p->nr_funcs; i++) {
		keys[i].display = cct_name(p->out, p->funcs[i].display);
		keys[i].full = cct_name(&p->strings, p->funcs[i].name);
		keys[i].object = cct_name(&p->strings, p->funcs[i].object);
		keys[i].func = (uint32_t)i;
	}
	if (p->nr_funcs)
		qsort(keys, p->nr_funcs, sizeof(*keys), cmp_name_key);
	for (i = 0; i < p->nr_funcs; i++)
		p->funcs[keys[i].func].order = (uint32_t)i;
	free(keys);

	if (p->nr_calls)
		qsort(p->calls, p->nr_calls, sizeof(*p->calls), cmp_call_site);
	for (i = 0; i < p->nr_calls; i++) {
		struct cg_call *c = &p->calls[i];
		struct cg_call *prev = w ? &p->calls[w - 1] : NULL;
		if (prev && prev->caller == c->caller && prev->callee == c->callee) {
			if (!cmp_pos(prev, c)) {
				prev->calls += c->calls;
				prev->incl += c->incl;
				continue;
			}
			c->site = prev->site + 1;
		} else {
			c->site = 0;
		}
		c->callee_order = p->funcs[c->callee].order;
		p->calls[w++] = *c;
	}
	p->nr_calls = w;
	if (p->nr_calls)
		qsort(p->calls, p->nr_calls, sizeof(*p->calls), cmp_call_order);

	for (i = 0; i < p->nr_calls; i++) {
		const struct cg_call *c = &p->calls[i];
		struct cg_func *caller = &p->funcs[c->caller], *callee = &p->funcs[c->callee];
		if (!caller->nr_edges)
			caller->first_edge = (uint32_t)i;
		caller->nr_edges++;
		callee->has_callers = true;
		callee->in_incl += c->incl;
		callee->in_calls += c->calls;
	}
	for (i = 0; i < p->nr_funcs; i++) {
		struct cg_func *f = &p->funcs[i];
		double total = func_total(p, f);
		f->denom = total > f->in_incl ? total : f->in_incl;
	}
}

/* The share of the callee's activity that one call edge carries. */
static double edge_share(const struct parser *p, const struct cg_call *c)
{
	const struct cg_func *callee = &p->funcs[c->callee];
	if (callee->denom > 0)
		return c->incl / callee->denom;
	/* Nothing of the chosen event below: calls still say where the contexts are. */
	return callee->in_calls > 0 ? c->calls / callee->in_calls : 0;
}

/* The share of the function's activity no caller explains: it is a top frame. */
static double root_share(const struct parser *p, const struct cg_func *f)
{
	if (!f->has_callers)
		return 1;
	if (f->denom > 0 && func_total(p, f) > f->in_incl)
		return (func_total(p, f) - f->in_incl) / f->denom;
	return 0;
}

/* ---- Expansion of the graph into contexts (docs/callgrind.md). ---- */

/* A context: its share of the function's activity relative to its parent's share. */
struct cg_ctx {
	uint32_t func, parent, site; /* parent CCT_NONE for a top frame */
	double rel;		     /* share = parent's share * rel */
	double calls;		     /* calls = parent's share * calls */
	double weight;		     /* exclusive weight = share * weight */
};

struct cg_frame {
	uint32_t ctx, edge, edge_end;
	double share;	  /* the context's share before recursion raises it */
	size_t ret_start; /* its returns are rets[ret_start..] */
};

/* Recursion back into the context at frame `depth`, relative to the frame holding it. */
struct cg_ret {
	size_t depth;
	double amount;
};

struct expansion {
	struct cg_ctx *ctx;
	size_t nr_ctx, alloc_ctx;
	struct cg_frame *frames;
	size_t nr_frames, alloc_frames;
	struct cg_ret *rets;
	size_t nr_rets, alloc_rets;
	size_t *slot_by_depth; /* scratch of finish_frame(), SIZE_MAX when unused */
	size_t alloc_slots;
	uint32_t *on_path; /* per function: frame index + 1 on the current path, 0 when off */
	double min_weight; /* contexts estimated lighter are not expanded */
};

/* Returns `amount` of the current context's share to the frame at `depth`. */
static void add_return(struct expansion *x, size_t depth, double amount)
{
	ALLOC_GROW(x->rets, x->nr_rets + 1, x->alloc_rets);
	x->rets[x->nr_rets].depth = depth;
	x->rets[x->nr_rets++].amount = amount;
}

/*
 * A context too light to expand: its calls become its own weight, except recursion, which
 * returns to the path as it would from an expanded context (direct recursion at once).
 */
static void fold_ctx(const struct parser *p, struct expansion *x, struct cg_ctx *c)
{
	const struct cg_func *f = &p->funcs[c->func];
	double back = 0;
	uint32_t e;

	for (e = f->first_edge; e < f->first_edge + f->nr_edges; e++)
		if (p->calls[e].callee == c->func)
			back += edge_share(p, &p->calls[e]);
	if (back > 0 && back < 1 - 1e-9)
		c->rel /= 1 - back;
	for (e = f->first_edge; e < f->first_edge + f->nr_edges; e++) {
		const struct cg_call *call = &p->calls[e];
		if (call->callee == c->func)
			continue;
		if (x->on_path[call->callee])
			add_return(x, x->on_path[call->callee] - 1, edge_share(p, call) * c->rel);
		else
			c->weight += call->incl;
	}
}

/*
 * Appends a context whose share is `share` before recursion raises it, and a frame to expand
 * its calls when it has calls and enough weight (a top frame always has).
 */
static int push_ctx(struct parser *p, struct expansion *x, uint32_t func, uint32_t parent,
		    uint32_t site, double rel, double calls, double share)
{
	struct cg_func *f = &p->funcs[func];

	if (x->nr_ctx >= CALLGRIND_MAX_NODES - 1) {
		error("%s: the call graph expands into more than %zu calling contexts; profile "
		      "a smaller part of the program (callgrind --toggle-collect=FUNCTION)",
		      p->origin, (size_t)CALLGRIND_MAX_NODES - 1);
		return RP_EINPUT;
	}
	ALLOC_GROW(x->ctx, x->nr_ctx + 1, x->alloc_ctx);
	struct cg_ctx *c = &x->ctx[x->nr_ctx];
	c->func = func;
	c->parent = parent;
	c->site = site;
	c->rel = rel;
	c->calls = calls;
	c->weight = f->self;
	if (parent != CCT_NONE && f->nr_edges && share * f->denom < x->min_weight) {
		fold_ctx(p, x, c);
	} else if (rel > 0 && f->nr_edges) {
		ALLOC_GROW(x->frames, x->nr_frames + 1, x->alloc_frames);
		if (x->alloc_slots < x->alloc_frames) {
			x->slot_by_depth =
			    xrealloc(x->slot_by_depth,
				     xmallocarray_size(x->alloc_frames, sizeof(*x->slot_by_depth)));
			for (size_t i = x->alloc_slots; i < x->alloc_frames; i++)
				x->slot_by_depth[i] = SIZE_MAX;
			x->alloc_slots = x->alloc_frames;
		}
		struct cg_frame *fr = &x->frames[x->nr_frames];
		fr->ctx = (uint32_t)x->nr_ctx;
		fr->share = share;
		fr->edge = f->first_edge;
		fr->edge_end = f->first_edge + f->nr_edges;
		fr->ret_start = x->nr_rets;
		x->on_path[func] = (uint32_t)++x->nr_frames;
	}
	x->nr_ctx++;
	return 0;
}

/*
 * Pops the top frame: the recursion returning into it raises its share by 1 / (1 - back)
 * (a geometric series of re-entries); returns aimed higher are merged per target and
 * passed to the parent, scaled to the parent's share.
 */
static void finish_frame(struct expansion *x)
{
	struct cg_frame fr = x->frames[--x->nr_frames];
	size_t depth = x->nr_frames, w = fr.ret_start;
	double back = 0;

	for (size_t i = fr.ret_start; i < x->nr_rets; i++) {
		struct cg_ret r = x->rets[i];
		if (r.depth == depth) {
			back += r.amount;
			continue;
		}
		size_t slot = x->slot_by_depth[r.depth];
		if (slot != SIZE_MAX) {
			x->rets[slot].amount += r.amount;
			continue;
		}
		x->slot_by_depth[r.depth] = w;
		x->rets[w++] = r;
	}
	x->nr_rets = w;
	struct cg_ctx *c = &x->ctx[fr.ctx];
	/* back >= 1 only with inconsistent costs: then the recursion is just cut. */
	if (back > 0 && back < 1 - 1e-9)
		c->rel /= 1 - back;
	for (size_t i = fr.ret_start; i < w; i++) {
		x->slot_by_depth[x->rets[i].depth] = SIZE_MAX;
		x->rets[i].amount *= c->rel;
	}
	x->on_path[c->func] = 0;
}

/* Expands the contexts below the frames pushed, depth first. */
static int expand(struct parser *p, struct expansion *x)
{
	while (x->nr_frames) {
		struct cg_frame *fr = &x->frames[x->nr_frames - 1];
		if (fr->edge == fr->edge_end) {
			finish_frame(x);
			continue;
		}
		const struct cg_call *c = &p->calls[fr->edge++];
		double q = edge_share(p, c);
		uint32_t on_path = x->on_path[c->callee];
		if (on_path) {
			/* Recursion: folded into the function's context up the path. */
			if (q > 0)
				add_return(x, on_path - 1, q);
			continue;
		}
		if (push_ctx(p, x, c->callee, fr->ctx, c->site, q, c->calls, fr->share * q))
			return RP_EINPUT;
	}
	return 0;
}

/* Top frames: the functions nobody calls, and the cost no caller explains, by name. */
static int expand_roots(struct parser *p, struct expansion *x)
{
	uint32_t *by_order = xmallocarray(p->nr_funcs ? p->nr_funcs : 1, sizeof(*by_order));
	size_t i;
	int ret = 0;

	for (i = 0; i < p->nr_funcs; i++)
		by_order[p->funcs[i].order] = (uint32_t)i;
	for (i = 0; i < p->nr_funcs && !ret; i++) {
		double share = root_share(p, &p->funcs[by_order[i]]);
		if (share > 0)
			ret = push_ctx(p, x, by_order[i], CCT_NONE, 0, share, 0, share);
		if (!ret)
			ret = expand(p, x);
	}
	free(by_order);
	return ret;
}

/*
 * Turns the contexts into tree nodes: shares are products along the path. Valgrind names
 * every function below main "(below main)" (the program's _start, glibc's
 * __libc_start_main and __libc_start_call_main): one of them called by another is the
 * same frame of the path, its self cost the frame's, its calls the frame's calls.
 */
static int emit_tree(struct parser *p, const struct expansion *x)
{
	double *share = xmallocarray(x->nr_ctx ? x->nr_ctx : 1, sizeof(*share));
	uint32_t *node = xmallocarray(x->nr_ctx ? x->nr_ctx : 1, sizeof(*node));
	struct cct *out = p->out;
	uint32_t below_main = cct_name_find(out, "(below main)");
	int ret = 0;

	for (size_t i = 0; i < x->nr_ctx; i++) {
		const struct cg_ctx *c = &x->ctx[i];
		const struct cg_func *f = &p->funcs[c->func];
		bool top = c->parent == CCT_NONE;
		double base = top ? 1.0 : share[c->parent];
		/* No context has more than all of its function: only inconsistent costs try. */
		share[i] = base * c->rel < 1 ? base * c->rel : 1;
		if (!top && f->display == below_main &&
		    p->funcs[x->ctx[c->parent].func].display == below_main) {
			node[i] = node[c->parent];
			out->nodes[node[i]].excl += share[i] * c->weight;
			continue;
		}
		node[i] = cct_child(out, top ? CCT_ROOT : node[c->parent], f->display, c->site);
		if (node[i] == CCT_NONE) {
			ret = RP_EINPUT;
			break;
		}
		out->nodes[node[i]].calls += base * c->calls;
		out->nodes[node[i]].excl += share[i] * c->weight;
	}
	free(node);
	free(share);
	if (!ret)
		cct_compute_inclusive(out);
	return ret;
}

static int build_tree(struct parser *p)
{
	struct expansion x;
	int ret;

	memset(&x, 0, sizeof(x));
	x.on_path = xcalloc(p->nr_funcs ? p->nr_funcs : 1, sizeof(*x.on_path));
	for (size_t i = 0; i < p->nr_funcs; i++)
		x.min_weight += p->funcs[i].self;
	x.min_weight *= CALLGRIND_FOLD_BELOW;
	ret = expand_roots(p, &x);
	if (!ret)
		ret = emit_tree(p, &x);
	free(x.on_path);
	free(x.slot_by_depth);
	free(x.rets);
	free(x.frames);
	free(x.ctx);
	return ret;
}

/* Gives the renamer its say; the renamed functions show their new names in the tree. */
static void rename_funcs(struct parser *p, callgrind_rename_fn rename, void *arg)
{
	struct callgrind_func_info *info = xcalloc(p->nr_funcs ? p->nr_funcs : 1, sizeof(*info));
	uint32_t(*calls)[2] = xcalloc(p->nr_calls ? p->nr_calls : 1, sizeof(*calls));
	char **names = xcalloc(p->nr_funcs ? p->nr_funcs : 1, sizeof(*names));

	for (size_t i = 0; i < p->nr_funcs; i++) {
		info[i].name = cct_name(&p->strings, p->funcs[i].name);
		info[i].object = cct_name(&p->strings, p->funcs[i].object);
	}
	for (size_t i = 0; i < p->nr_calls; i++) {
		calls[i][0] = p->calls[i].caller;
		calls[i][1] = p->calls[i].callee;
	}
	rename(info, p->nr_funcs, (const uint32_t(*)[2])calls, p->nr_calls, names, arg);
	for (size_t i = 0; i < p->nr_funcs; i++) {
		if (names[i])
			p->funcs[i].display = cct_intern(p->out, names[i]);
		free(names[i]);
	}
	free(names);
	free(calls);
	free(info);
}

/*
 * The functions of the profile, exact: root -> one node per function name (as in the tree),
 * with the function's self cost and the calls to it summed over the functions of that name.
 */
static int emit_functions(const struct parser *p, struct cct *funcs)
{
	for (size_t i = 0; i < p->nr_funcs; i++) {
		const struct cg_func *f = &p->funcs[i];
		uint32_t node;
		if (!(f->self > 0) && !(f->in_calls > 0))
			continue;
		node = cct_child(funcs, CCT_ROOT, cct_intern(funcs, cct_name(p->out, f->display)),
				 0);
		if (node == CCT_NONE)
			return RP_EINPUT;
		funcs->nodes[node].excl += f->self;
		funcs->nodes[node].calls += f->in_calls;
	}
	cct_compute_inclusive(funcs);
	cct_set_weight(funcs, CCT_WEIGHT_EVENT, p->event);
	funcs->calls_known = true;
	return 0;
}

static int parse(const char *text, size_t len, const char *origin, const char *event,
		 callgrind_rename_fn rename, void *arg, struct cct *out, struct cct *funcs)
{
	struct parser p;
	struct cct names; /* without a tree wanted: the function names only */
	bool want_tree = out != NULL;
	size_t pos = 0;
	int ret = 0;

	if (!want_tree)
		out = &names;
	memset(&p, 0, sizeof(p));
	p.origin = origin;
	p.out = out;
	p.want_event = event;
	cct_init(out);
	if (funcs)
		cct_init(funcs);
	cct_init(&p.strings);
	p.no_object = cct_intern(&p.strings, "");
	start_file(&p);
	while (pos < len) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t line_len = nl ? (size_t)(nl - line) : len - pos;
		pos += line_len + (nl ? 1 : 0);
		p.lineno++;
		if (line_len && line[line_len - 1] == '\r')
			line_len--;
		ret = parse_line(&p, line, line_len);
		if (ret)
			goto out;
	}
	ret = parse_end(&p);
	if (!ret && rename)
		rename_funcs(&p, rename, arg);
	if (!ret)
		build_graph(&p); /* also what emit_functions() reads: the calls to each function */
	if (!ret && want_tree)
		ret = build_tree(&p);
	if (!ret) {
		cct_set_weight(out, CCT_WEIGHT_EVENT, p.event);
		out->calls_known = true;
	}
	if (!ret && funcs)
		ret = emit_functions(&p, funcs);
out:
	if (!want_tree) {
		cct_release(out); /* the local one of the names */
	} else if (ret) {
		cct_release(out);
		cct_init(out);
	}
	if (ret && funcs) {
		cct_release(funcs);
		cct_init(funcs);
	}
	idmap_release(&p.ids);
	idmap_release(&p.func_ids);
	cct_release(&p.strings);
	free(p.funcs);
	free(p.calls);
	free(p.event);
	return ret;
}

int callgrind_parse(const char *text, size_t len, const char *origin, const char *event,
		    struct cct *out)
{
	return parse(text, len, origin, event, NULL, NULL, out, NULL);
}

int callgrind_parse_renamed(const char *text, size_t len, const char *origin, const char *event,
			    callgrind_rename_fn rename, void *arg, struct cct *out)
{
	return parse(text, len, origin, event, rename, arg, out, NULL);
}

int callgrind_read_renamed(const char *path, const char *event, callgrind_rename_fn rename,
			   void *arg, struct cct *out, struct cct *funcs)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if ((ret = input_read(&sb, path, &input_profile))) {
		if (out)
			cct_init(out);
		if (funcs)
			cct_init(funcs);
		goto out;
	}
	ret = parse(sb.buf, sb.len, path, event, rename, arg, out, funcs);
out:
	strbuf_release(&sb);
	return ret;
}

int callgrind_read(const char *path, const char *event, struct cct *out)
{
	return callgrind_read_renamed(path, event, NULL, NULL, out, NULL);
}

bool callgrind_sniff(const char *text, size_t len)
{
	size_t limit = len < 65536 ? len : 65536, pos = 0;
	bool first = true;

	while (pos < limit) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', limit - pos);
		size_t line_len = nl ? (size_t)(nl - line) : limit - pos, k = 0;
		pos += line_len + (nl ? 1 : 0);
		if (line_len && line[line_len - 1] == '\r')
			line_len--;
		if (first && line_len >= 18 && !memcmp(line, "# callgrind format", 18))
			return true;
		first = false;
		if (!line_len || line[0] == '#')
			continue;
		while (k < line_len && line[k] >= 'a' && line[k] <= 'z')
			k++;
		if (!k || k == line_len || line[k] != ':')
			return false; /* the header ended without an events: line */
		if (token_is(line, k, "events")) {
			for (size_t i = k + 1; i < line_len; i++)
				if (!is_space(line[i]))
					return true;
			return false;
		}
	}
	return false;
}
