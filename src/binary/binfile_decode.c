/*
 * Reusable decodings of x86-64 instructions (see binfile_decode.h): what the normaliser
 * reads from Capstone, how the movable fields are found again in other bytes, and a cache
 * of decodings by shape (a trie over the bytes that are not movable fields).
 */
#include "binary/binfile_decode.h"

#include <string.h>

#include "util/common.h"

static bool has_group(const cs_insn *insn, uint8_t group)
{
	uint8_t i;
	for (i = 0; i < insn->detail->groups_count; i++)
		if (insn->detail->groups[i] == group)
			return true;
	return false;
}

/* The little-endian field of `size` bytes at p, zero-extended. */
static uint64_t field_get(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;
	memcpy(&v, p, size < 8 ? size : 8);
	return v;
}

/* v, a field of `size` bytes, sign-extended. */
static int64_t sign_extend(uint64_t v, unsigned size)
{
	uint64_t m;
	if (size >= 8)
		return (int64_t)v;
	m = (uint64_t)1 << (8 * size - 1);
	return (int64_t)((v ^ m) - m);
}

/* Does an instruction of len bytes hold a field of `size` bytes at `off`? */
static bool field_in(unsigned off, unsigned size, unsigned len)
{
	return size && size <= 8 && off + size <= len;
}

/* How value v was made from the field at off (enum dec_fix); DEC_FIX_NONE: not at all. */
static enum dec_fix fix_of(const struct dec_insn *in, unsigned off, unsigned size, bool branch,
			   int64_t v)
{
	uint64_t raw;
	bool s, z;
	if (!field_in(off, size, in->size))
		return DEC_FIX_NONE;
	raw = field_get(in->bytes + off, size);
	/* (2-byte targets would be truncated to 16 bits: never moved.) */
	if (branch)
		return (size == 1 || size == 4) &&
			       (uint64_t)v ==
				   in->address + in->size + (uint64_t)sign_extend(raw, size)
			   ? DEC_FIX_REL
			   : DEC_FIX_NONE;
	s = v == sign_extend(raw, size);
	z = (uint64_t)v == raw;
	return s && z ? DEC_FIX_EXT : s ? DEC_FIX_SEXT : z ? DEC_FIX_ZEXT : DEC_FIX_NONE;
}

/* The value of a field (fix, at off, of size) of the instruction at addr, of len bytes p. */
static bool fix_apply(enum dec_fix fix, const uint8_t *p, uint64_t addr, unsigned size,
		      unsigned off, unsigned len, int64_t *v)
{
	uint64_t raw = field_get(p + off, size);
	switch (fix) {
	case DEC_FIX_REL:
		*v = (int64_t)(addr + len + (uint64_t)sign_extend(raw, size));
		return true;
	case DEC_FIX_SEXT: *v = sign_extend(raw, size); return true;
	case DEC_FIX_ZEXT: *v = (int64_t)raw; return true;
	case DEC_FIX_EXT: *v = (int64_t)raw; return sign_extend(raw, size) == *v;
	default: return true;
	}
}

void dec_from_capstone(const cs_insn *insn, struct dec_insn *in)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_encoding *e = &x->encoding;
	uint8_t i;

	in->address = insn->address;
	in->bytes = insn->bytes;
	in->size = (uint8_t)insn->size;
	in->imm_offset = e->imm_offset;
	in->imm_size = e->imm_size;
	in->disp_offset = e->disp_offset;
	in->disp_size = e->disp_size;
	in->branch = has_group(insn, CS_GRP_BRANCH_RELATIVE);
	in->lea = insn->id == X86_INS_LEA;
	in->nr_ops = 0;
	for (i = 0; i < x->op_count && in->nr_ops < DEC_MAX_OPS; i++) {
		const cs_x86_op *op = &x->operands[i];
		struct dec_op *o = &in->ops[in->nr_ops];
		if (op->type == X86_OP_IMM) {
			o->v = op->imm;
			o->rip = o->indexed = false;
		} else if (op->type == X86_OP_MEM) {
			o->v = op->mem.disp;
			o->rip = op->mem.base == X86_REG_RIP;
			o->indexed = op->mem.index != X86_REG_INVALID;
		} else {
			continue;
		}
		o->type = (uint8_t)op->type;
		o->size = op->size;
		in->nr_ops++;
	}
}

bool dec_template(const cs_insn *insn, struct dec_rec *rec)
{
	const struct dec_insn *in = &rec->in;
	int nr_imm = 0, nr_mem = 0, imm_op = -1, disp_op = -1;
	uint8_t i;

	for (i = 0; i < in->nr_ops; i++) {
		if (in->ops[i].type == X86_OP_IMM)
			imm_op = nr_imm++ ? -1 : i;
		else
			disp_op = nr_mem++ ? -1 : i;
	}
	rec->bad = false;
	rec->imm_op = (int8_t)(in->imm_size && nr_imm == 1 ? imm_op : -1);
	rec->disp_op = (int8_t)(in->disp_size && nr_mem == 1 ? disp_op : -1);
	rec->imm_fix = DEC_FIX_NONE;
	rec->disp_fix = DEC_FIX_NONE;
	if (insn->detail->x86.op_count > DEC_MAX_OPS)
		return false;
	if (rec->imm_op >= 0) {
		int64_t v = in->ops[rec->imm_op].v;
		enum dec_fix rel = fix_of(in, in->imm_offset, in->imm_size, true, v);
		/* A target relative to the instruction that Capstone did not call a branch. */
		if (!in->branch && rel == DEC_FIX_REL)
			return false;
		rec->imm_fix =
		    in->branch ? rel : fix_of(in, in->imm_offset, in->imm_size, false, v);
		/* Small immediates can be part of the opcode (3DNow!, is4): they must be equal. */
		if (!in->branch && in->imm_size < 4)
			rec->imm_fix = DEC_FIX_NONE;
	}
	/* A branch target that is not the field plus the position cannot be moved. */
	if (in->branch && (nr_imm > 1 || (nr_imm == 1 && rec->imm_fix != DEC_FIX_REL)))
		return false;
	if (rec->disp_op >= 0)
		rec->disp_fix =
		    fix_of(in, in->disp_offset, in->disp_size, false, in->ops[rec->disp_op].v);
	return true;
}

bool dec_same_shape(const struct dec_rec *rec, const uint8_t *p, const uint8_t *q)
{
	const struct dec_insn *in = &rec->in;
	unsigned i, size = rec->bad ? 1 : in->size;
	for (i = 0; i < size; i++) {
		if (p[i] == q[i])
			continue;
		if (rec->bad)
			return false;
		if (rec->imm_fix != DEC_FIX_NONE && i - in->imm_offset < in->imm_size)
			continue;
		if (rec->disp_fix != DEC_FIX_NONE && i - in->disp_offset < in->disp_size)
			continue;
		return false;
	}
	return true;
}

bool dec_refix(const struct dec_rec *rec, struct dec_insn *in)
{
	if (rec->imm_fix != DEC_FIX_NONE &&
	    !fix_apply(rec->imm_fix, in->bytes, in->address, in->imm_size, in->imm_offset, in->size,
		       &in->ops[rec->imm_op].v))
		return false;
	if (rec->disp_fix != DEC_FIX_NONE &&
	    !fix_apply(rec->disp_fix, in->bytes, in->address, in->disp_size, in->disp_offset,
		       in->size, &in->ops[rec->disp_op].v))
		return false;
	return true;
}

/* ---- the cache: a trie over the bytes of instructions that are not movable fields ---- */

/* Bounds on one thread's cache (real programs have up to ~100,000 shapes). */
#define DEC_CACHE_MAX_RECS ((size_t)1 << 17)
#define DEC_CACHE_MAX_NODES ((size_t)1 << 21)
/* The symbol of the edge past a movable field. */
#define SYM_FIELD 256

/* What is known after some bytes of an instruction's shape. */
struct dec_node {
	int32_t rec;  /* an instruction ends here: its decoding, in recs; else -1 */
	uint8_t skip; /* a movable field of this many bytes starts here; 0: none */
	bool bytes;   /* byte edges lead on from here */
};

/* An edge of the trie: node, then a byte (or SYM_FIELD), leads to child. */
struct dec_edge {
	uint64_t key; /* (node << 9 | symbol) + 1; 0: an empty slot */
	uint32_t child;
};

static size_t edge_slot(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (cap - 1);
}

static uint64_t edge_key(uint32_t node, unsigned sym)
{
	return ((uint64_t)node << 9 | sym) + 1;
}

static bool edge_get(const struct dec_cache *c, uint32_t node, unsigned sym, uint32_t *child)
{
	uint64_t key = edge_key(node, sym);
	size_t i;
	if (!c->edge_cap)
		return false;
	for (i = edge_slot(key, c->edge_cap); c->edges[i].key; i = (i + 1) & (c->edge_cap - 1))
		if (c->edges[i].key == key) {
			*child = c->edges[i].child;
			return true;
		}
	return false;
}

static void edge_put(struct dec_cache *c, uint64_t key, uint32_t child)
{
	size_t i = edge_slot(key, c->edge_cap);
	while (c->edges[i].key)
		i = (i + 1) & (c->edge_cap - 1);
	c->edges[i].key = key;
	c->edges[i].child = child;
	c->nr_edges++;
}

static uint32_t node_new(struct dec_cache *c)
{
	ALLOC_GROW(c->nodes, c->nr_nodes + 1, c->alloc_nodes);
	c->nodes[c->nr_nodes].rec = -1;
	c->nodes[c->nr_nodes].skip = 0;
	c->nodes[c->nr_nodes].bytes = false;
	return (uint32_t)c->nr_nodes++;
}

/* The child of node by sym, made if missing; UINT32_MAX when the cache is full. */
static uint32_t edge_follow(struct dec_cache *c, uint32_t node, unsigned sym)
{
	uint32_t child;
	if (edge_get(c, node, sym, &child))
		return child;
	if (c->nr_nodes >= DEC_CACHE_MAX_NODES)
		return UINT32_MAX;
	if (2 * (c->nr_edges + 1) > c->edge_cap) {
		struct dec_edge *old = c->edges;
		size_t i, old_cap = c->edge_cap;
		c->edge_cap = old_cap ? 2 * old_cap : 1024;
		c->edges = xcalloc(c->edge_cap, sizeof(*c->edges));
		c->nr_edges = 0;
		for (i = 0; i < old_cap; i++)
			if (old[i].key)
				edge_put(c, old[i].key, old[i].child);
		free(old);
	}
	child = node_new(c);
	edge_put(c, edge_key(node, sym), child);
	return child;
}

/* The movable field of rec that starts at byte i: its size, or 0. */
static unsigned field_at(const struct dec_rec *rec, unsigned i)
{
	if (rec->disp_fix != DEC_FIX_NONE && i == rec->in.disp_offset)
		return rec->in.disp_size;
	if (rec->imm_fix != DEC_FIX_NONE && i == rec->in.imm_offset)
		return rec->in.imm_size;
	return 0;
}

const struct dec_rec *dec_cache_find(const struct dec_cache *c, const uint8_t *code, size_t len)
{
	uint32_t node = 0;
	size_t i = 0;
	if (!c->nr_nodes)
		return NULL;
	for (;;) {
		const struct dec_node *n = &c->nodes[node];
		unsigned sym;
		if (n->rec >= 0)
			return c->recs[n->rec].in.size == i ? &c->recs[n->rec] : NULL;
		if (n->skip) {
			i += n->skip;
			if (i > len)
				return NULL;
			sym = SYM_FIELD;
		} else {
			if (i >= len)
				return NULL;
			sym = code[i++];
		}
		if (!edge_get(c, node, sym, &node))
			return NULL;
	}
}

void dec_cache_add(struct dec_cache *c, const uint8_t *code, const struct dec_rec *rec)
{
	uint32_t node = 0;
	unsigned i = 0, field;
	struct dec_node *n;

	if (c->nr_recs >= DEC_CACHE_MAX_RECS || !rec->in.size)
		return;
	if (!c->nr_nodes)
		node_new(c);
	/*
	 * The layout follows from the bytes before each field, so a path never needs a field
	 * where another has bytes; should one (Capstone valued a field otherwise), the
	 * instruction is not cached, and neither is one that would extend another.
	 */
	while (i < rec->in.size) {
		unsigned sym;
		n = &c->nodes[node];
		if (n->rec >= 0)
			return;
		if ((field = field_at(rec, i))) {
			if (n->bytes || (n->skip && n->skip != field) || i + field > rec->in.size)
				return;
			n->skip = (uint8_t)field;
			sym = SYM_FIELD;
			i += field;
		} else {
			if (n->skip)
				return;
			n->bytes = true;
			sym = code[i++];
		}
		if ((node = edge_follow(c, node, sym)) == UINT32_MAX)
			return;
	}
	n = &c->nodes[node];
	if (n->bytes || n->skip)
		return;
	if (n->rec < 0) {
		ALLOC_GROW(c->recs, c->nr_recs + 1, c->alloc_recs);
		n->rec = (int32_t)c->nr_recs++;
	}
	c->recs[n->rec] = *rec;
	c->recs[n->rec].in.bytes = NULL;
}

void dec_cache_release(struct dec_cache *c)
{
	free(c->nodes);
	free(c->edges);
	free(c->recs);
	memset(c, 0, sizeof(*c));
}
