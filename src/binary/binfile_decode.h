#ifndef REVPERF_BINARY_BINFILE_DECODE_H
#define REVPERF_BINARY_BINFILE_DECODE_H

/*
 * Private to src/binary/: x86-64 instructions as the normaliser reads them, and the reuse
 * of Capstone's decodings. Decoding x86 does not depend on the values of displacement,
 * relative-branch and 4- or 8-byte immediate fields (they follow the opcode, ModRM and SIB
 * bytes that decide the layout), nor on the address. So a decoding serves again for other
 * bytes that differ only in such fields ("the same shape"), with the fields' values read
 * from the new bytes; Capstone's value is verified to be the field sign- or zero-extended
 * (plus the address for branches) before a decoding is reused. Two reuses:
 * - a function of one build whose bytes have the shape of its namesake in the other build
 *   reuses that one's decoding (disasm_replay());
 * - within a thread, an instruction whose shape was decoded before reuses that decoding
 *   (struct dec_cache: real programs have 2-13% distinct shapes).
 */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Capstone gives at most 8 operands; only immediate and memory ones are kept. */
#define DEC_MAX_OPS 8

struct dec_op {
	int64_t v;    /* IMM: the value (a relative branch: the target); MEM: displacement */
	uint8_t type; /* X86_OP_IMM or X86_OP_MEM */
	uint8_t size; /* bytes accessed */
	bool rip;     /* MEM relative to RIP */
	bool indexed; /* MEM with an index register */
};

/* One instruction: what the normaliser reads, from Capstone or a reused decoding. */
struct dec_insn {
	uint64_t address;
	const uint8_t *bytes;
	uint8_t size;
	uint8_t imm_offset, imm_size, disp_offset, disp_size; /* Capstone's encoding fields */
	uint8_t nr_ops;
	bool branch; /* CS_GRP_BRANCH_RELATIVE */
	bool lea;
	struct dec_op ops[DEC_MAX_OPS];
};

/*
 * How a field's value is found again in other bytes: the value Capstone gave is the
 * field's bytes sign- or zero-extended, or (a relative branch) the end of the instruction
 * plus the field sign-extended. DEC_FIX_NONE: the bytes must be equal, the value is kept.
 */
enum dec_fix {
	DEC_FIX_NONE,
	DEC_FIX_REL,
	DEC_FIX_SEXT,
	DEC_FIX_ZEXT,
	DEC_FIX_EXT, /* both extensions gave the value (its top bit is clear): either */
};

/* A decoding that can be reused: the instruction and how to redo its fields. */
struct dec_rec {
	uint32_t off;	    /* in a function template: from the function's start */
	bool bad;	    /* in a function template: a byte that did not decode */
	uint8_t imm_fix;    /* enum dec_fix of the immediate field */
	uint8_t disp_fix;   /* enum dec_fix of the displacement field */
	int8_t imm_op;	    /* the operand that holds the immediate field, or -1 */
	int8_t disp_op;	    /* the operand that holds the displacement field, or -1 */
	struct dec_insn in; /* address and bytes are those of the decoded instance */
};

/* Capstone's instruction (with detail) as a struct dec_insn. */
void dec_from_capstone(const cs_insn *insn, struct dec_insn *in);

/*
 * Completes rec, whose rec->in dec_from_capstone() filled from insn, into a reusable
 * decoding. Returns false when it cannot be reused at another address or for other bytes
 * (a target that is not the field plus the address, too many operands).
 */
bool dec_template(const cs_insn *insn, struct dec_rec *rec);

/* Are p and q (of rec's length) the same instruction but for rec's movable fields? */
bool dec_same_shape(const struct dec_rec *rec, const uint8_t *p, const uint8_t *q);

/*
 * in, a copy of rec->in with address and bytes set to another instance of the shape:
 * reads the movable fields' values from in->bytes. False when a value is ambiguous
 * (DEC_FIX_EXT and the new field's top bit set): decode that one with Capstone.
 */
bool dec_refix(const struct dec_rec *rec, struct dec_insn *in);

/* A cache of reusable decodings by shape, for one thread; zero-initialise it. */
struct dec_cache {
	struct dec_node *nodes;
	size_t nr_nodes, alloc_nodes;
	struct dec_edge *edges;
	size_t nr_edges, edge_cap;
	struct dec_rec *recs;
	size_t nr_recs, alloc_recs;
};

/*
 * The cached decoding of the instruction at code (at most len bytes), or NULL. The
 * instruction's length is the result's in.size.
 */
const struct dec_rec *dec_cache_find(const struct dec_cache *c, const uint8_t *code, size_t len);

/*
 * Caches rec (dec_template() returned true), decoded from the bytes at code, replacing
 * a cached decoding of the same shape. Bounded: past a cap, nothing more is cached.
 */
void dec_cache_add(struct dec_cache *c, const uint8_t *code, const struct dec_rec *rec);

void dec_cache_release(struct dec_cache *c);

#endif
