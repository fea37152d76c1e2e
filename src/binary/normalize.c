/*
 * Disassembly (Capstone) and normalisation of one function into a hash of its body.
 *
 * Code that merely moved must hash the same, so every field that holds an address is
 * replaced by what it points to: the function itself (an offset inside it), another
 * function (its name, through ref_hash), an imported function or GOT slot (its name), a
 * data symbol (name and offset), a string or constant in read-only data (its contents), or
 * else the name of the section. Everything else (opcodes, registers, immediates) is hashed
 * as it is. docs/bindiff.md describes the rules and their limits.
 */
#include <capstone/capstone.h>
#include <elf.h>
#include <stddef.h>
#include <string.h>

#include "binary/binfile_decode.h"
#include "binary/binfile_impl.h"
#include "util/common.h"

struct bin_disasm {
	csh cs;
	cs_insn *insn;
	bool reuse;		/* x86-64: reuse decodings (not BINFILE_NO_REUSE) */
	struct dec_cache cache; /* of shapes (binfile_decode.h) */
	struct dec_rec scratch;
	/* The decoding of the last function hashed with keep (x86-64 only). */
	const struct binfunc *tmpl_fn;
	bool tmpl_ok;
	struct dec_rec *tmpl;
	size_t nr_tmpl, alloc_tmpl;
};

/* What a hashed field stands for; distinct so that a string never hashes as a name. */
enum tag {
	TAG_LOCAL = 1,
	TAG_FUNC,
	TAG_IMPORT,
	TAG_GOT,
	TAG_OBJECT,
	TAG_STRING,
	TAG_CONST,
	TAG_SECTION,
	TAG_UNDEF,
	TAG_NOWHERE,
	TAG_PAGE,
	TAG_BYTES,
	TAG_BAD,
	TAG_RELOC,
	TAG_INSN,
	TAG_OPERAND,
};

/* How an instruction uses an address, which decides how much of the target is hashed. */
enum access {
	ACC_CODE,    /* a branch target */
	ACC_ADDR,    /* the address is taken (lea, an immediate) */
	ACC_LOAD,    /* a load or store of `size` bytes */
	ACC_INDEXED, /* a table indexed by a register */
};

/* The state of normalising one function. */
struct norm {
	const struct binfile *bf;
	const struct binfunc *f;
	uint64_t h;
	const struct bin_reloc *rel, *rel_end; /* object files: the function's relocations */
};

/* Strings in read-only data are hashed by contents when at most this long. */
#define MAX_STRING 4096
/* Constants loaded from read-only data are hashed by contents when at most this long. */
#define MAX_CONST 64

static void mix(struct norm *n, uint64_t v)
{
	n->h = binhash_mix(n->h, v);
}

/*
 * A printable NUL-terminated string at off, not empty: its length in *len. A NUL byte
 * alone is not taken for a string: unnamed data that happens to start with one (a jump
 * table of offsets relative to itself, whose first byte changes when the code moves)
 * would hash as "" in one build and as its section in the other.
 */
static bool string_at(const struct bin_section *s, uint64_t off, size_t *len)
{
	size_t i, max = s->data_size - off < MAX_STRING ? s->data_size - off : MAX_STRING;
	for (i = 0; i < max; i++) {
		unsigned char c = s->data[off + i];
		if (!c) {
			*len = i;
			return i > 0;
		}
		if ((c < 0x20 || c > 0x7e) && c != '\t' && c != '\n' && c != '\r')
			return false;
	}
	return false;
}

static bool read_only_data(const struct bin_section *s)
{
	return (s->flags & SHF_ALLOC) && !(s->flags & (SHF_WRITE | SHF_EXECINSTR)) && s->data &&
	       s->type != SHT_NOBITS;
}

/* Mixes in what target points to (see the top of this file). */
static void mix_target(struct norm *n, uint64_t target, enum access acc, unsigned size)
{
	const struct binfile *bf = n->bf;
	const struct binfunc *g;
	const struct bin_import *imp;
	const struct bin_object *o;
	const struct bin_section *s;
	size_t len;

	if (target - n->f->addr < n->f->size) {
		mix(n, TAG_LOCAL);
		mix(n, target - n->f->addr);
	} else if ((g = binfile_func_at(bf, target))) {
		mix(n, TAG_FUNC);
		mix(n, g->ref_hash);
		mix(n, target - g->addr);
	} else if ((imp = binfile_import_at(bf, target))) {
		mix(n, imp->got ? TAG_GOT : TAG_IMPORT);
		mix(n, imp->name_hash);
	} else if ((o = binfile_object_at(bf, target))) {
		mix(n, TAG_OBJECT);
		mix(n, o->name_hash);
		mix(n, target - o->addr);
	} else if (!(s = binfile_section_at(bf, target))) {
		mix(n, TAG_NOWHERE);
	} else if (acc == ACC_LOAD && read_only_data(s) && size && size <= MAX_CONST &&
		   size <= s->data_size && target - s->addr <= s->data_size - size) {
		mix(n, TAG_CONST);
		mix(n, binhash_bytes(s->data + (target - s->addr), size));
	} else if (acc == ACC_ADDR && read_only_data(s) && target - s->addr < s->data_size &&
		   string_at(s, target - s->addr, &len)) {
		mix(n, TAG_STRING);
		mix(n, binhash_bytes(s->data + (target - s->addr), len));
	} else {
		/* Offsets inside a section move with unrelated changes: the name only. */
		mix(n, TAG_SECTION);
		mix(n, s->name_hash);
	}
}

static bool x86_pc_relative(uint32_t type)
{
	switch (type) {
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
	case R_X86_64_GOTPCREL:
	case R_X86_64_PC16:
	case R_X86_64_PC8:
	case R_X86_64_TLSGD:
	case R_X86_64_TLSLD:
	case R_X86_64_GOTTPOFF:
	case R_X86_64_PC64:
	case R_X86_64_GOTPC32:
	case R_X86_64_GOTPC32_TLSDESC:
	case R_X86_64_GOTPCRELX:
	case R_X86_64_REX_GOTPCRELX: return true;
	default: return false;
	}
}

static unsigned x86_reloc_size(uint32_t type)
{
	switch (type) {
	case R_X86_64_64:
	case R_X86_64_PC64:
	case R_X86_64_GOTOFF64:
	case R_X86_64_DTPOFF64:
	case R_X86_64_TPOFF64: return 8;
	case R_X86_64_16:
	case R_X86_64_PC16: return 2;
	case R_X86_64_8:
	case R_X86_64_PC8: return 1;
	default: return 4;
	}
}

/* A relocation of an object file: what the linker will put there. */
static void mix_reloc(struct norm *n, const struct bin_reloc *r, uint64_t insn_end, enum access acc,
		      unsigned size)
{
	const struct bin_relsym *s = &n->bf->relsyms[r->sym];
	/* x86-64 PC-relative fields are relative to the end of the instruction. */
	int64_t adj = n->bf->machine == EM_X86_64 && x86_pc_relative(r->type)
			  ? (int64_t)(insn_end - r->pos)
			  : 0;
	mix(n, TAG_RELOC);
	mix(n, r->type);
	if (s->defined) {
		mix_target(n, s->addr + (uint64_t)r->addend + (uint64_t)adj, acc, size);
	} else {
		mix(n, TAG_UNDEF);
		mix(n, s->name_hash);
		mix(n, (uint64_t)r->addend + (uint64_t)adj);
	}
}

/* Does v fall inside an allocated section (an absolute address in non-PIE code)? */
static bool absolute_address(const struct binfile *bf, int64_t v)
{
	return bf->kind == BINFILE_EXEC && v > 0 && binfile_section_at(bf, (uint64_t)v);
}

static void mask(uint8_t *bytes, size_t len, size_t off, size_t size)
{
	if (off < len)
		memset(bytes + off, 0, size < len - off ? size : len - off);
}

static void norm_x86(struct norm *n, const struct dec_insn *in)
{
	uint64_t end = in->address + in->size, w[2] = {0, 0};
	uint8_t bytes[16];
	size_t len = in->size < sizeof(bytes) ? in->size : sizeof(bytes) - 1;
	bool disp_done = false, imm_done = false;
	enum access disp_acc = ACC_LOAD, imm_acc = in->branch ? ACC_CODE : ACC_ADDR;
	unsigned disp_size = 0;
	const struct bin_reloc *r;
	uint8_t i;

	memcpy(bytes, in->bytes, len);
	for (i = 0; i < in->nr_ops; i++)
		if (in->ops[i].type == X86_OP_MEM) {
			disp_size = in->ops[i].size;
			disp_acc = in->lea ? ACC_ADDR : in->ops[i].indexed ? ACC_INDEXED : ACC_LOAD;
		}
	/* Object files: relocations say which fields are addresses and what they hold. */
	while (n->rel < n->rel_end && n->rel->pos < in->address)
		n->rel++;
	for (r = n->rel; r < n->rel_end && r->pos < end; r++) {
		size_t off = r->pos - in->address;
		bool is_disp = in->disp_size && off == in->disp_offset;
		mask(bytes, len, off, x86_reloc_size(r->type));
		disp_done |= is_disp;
		imm_done |= in->imm_size && off == in->imm_offset;
		mix_reloc(n, r, end, is_disp ? disp_acc : imm_acc, is_disp ? disp_size : 0);
	}
	for (i = 0; i < in->nr_ops; i++) {
		const struct dec_op *op = &in->ops[i];
		if (op->type == X86_OP_IMM && in->imm_size && !imm_done &&
		    (in->branch || (in->imm_size >= 4 && absolute_address(n->bf, op->v)))) {
			mask(bytes, len, in->imm_offset, in->imm_size);
			mix_target(n, (uint64_t)op->v, imm_acc, 0);
			imm_done = true;
		} else if (op->type == X86_OP_MEM && in->disp_size && !disp_done) {
			if (op->rip) {
				mask(bytes, len, in->disp_offset, in->disp_size);
				mix_target(n, end + (uint64_t)op->v, disp_acc, op->size);
				disp_done = true;
			} else if (in->disp_size >= 4 && absolute_address(n->bf, op->v)) {
				mask(bytes, len, in->disp_offset, in->disp_size);
				mix_target(n, (uint64_t)op->v, disp_acc, op->size);
				disp_done = true;
			}
		}
	}
	memcpy(w, bytes, len);
	w[1] |= (uint64_t)len << 56;
	mix(n, TAG_BYTES);
	mix(n, w[0]);
	mix(n, w[1]);
}

/* The operand of an aarch64 instruction that holds a PC-relative address, or -1. */
static int arm64_address_operand(const cs_insn *insn, enum access *acc)
{
	const cs_arm64 *a = &insn->detail->arm64;
	int i, last_imm = -1;
	for (i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_IMM)
			last_imm = i;
	switch (insn->id) {
	case ARM64_INS_B:
	case ARM64_INS_BL:
	case ARM64_INS_CBZ:
	case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ:
	case ARM64_INS_TBNZ: *acc = ACC_CODE; return last_imm;
	case ARM64_INS_ADR: *acc = ACC_ADDR; return last_imm;
	case ARM64_INS_LDR:
	case ARM64_INS_LDRSW:
	case ARM64_INS_PRFM:
		/* the literal form: ldr x0, label */
		*acc = ACC_ADDR;
		return last_imm == a->op_count - 1 && last_imm > 0 ? last_imm : -1;
	default: return -1;
	}
}

static void norm_arm64(struct norm *n, const cs_insn *insn)
{
	const cs_arm64 *a = &insn->detail->arm64;
	enum access acc = ACC_ADDR;
	int addr_op = arm64_address_operand(insn, &acc);
	bool reloc = false;
	uint8_t i;

	while (n->rel < n->rel_end && n->rel->pos < insn->address)
		n->rel++;
	if (n->rel < n->rel_end && n->rel->pos == insn->address) {
		/* One field per instruction: its immediate or offset is the relocation. */
		mix_reloc(n, n->rel, insn->address + insn->size, addr_op >= 0 ? acc : ACC_ADDR, 0);
		reloc = true;
	}
	mix(n, TAG_INSN);
	mix(n, insn->id | (uint64_t)a->cc << 16 | (uint64_t)a->update_flags << 32 |
		   (uint64_t)a->writeback << 33 | (uint64_t)a->op_count << 40);
	for (i = 0; i < a->op_count; i++) {
		const cs_arm64_op *op = &a->operands[i];
		uint64_t v = 0;
		mix(n, TAG_OPERAND);
		mix(n, (uint64_t)op->type | (uint64_t)op->vas << 8 | (uint64_t)op->vess << 16 |
			   (uint64_t)op->shift.type << 24 | (uint64_t)op->ext << 32 |
			   (uint64_t)(uint32_t)op->vector_index << 40);
		mix(n, op->shift.value);
		switch (op->type) {
		case ARM64_OP_REG:
		case ARM64_OP_REG_MRS:
		case ARM64_OP_REG_MSR: v = op->reg; break;
		case ARM64_OP_IMM:
		case ARM64_OP_CIMM:
			if (reloc && (addr_op < 0 || i == addr_op))
				v = 0; /* the relocation said what goes here */
			else if (i == addr_op)
				mix_target(n, (uint64_t)op->imm, acc, 0);
			else if (insn->id == ARM64_INS_ADRP)
				v = TAG_PAGE; /* the page moves with the data: see docs */
			else
				v = (uint64_t)op->imm;
			break;
		case ARM64_OP_MEM:
			mix(n, op->mem.base);
			mix(n, op->mem.index);
			v = reloc ? 0 : (uint64_t)(int64_t)op->mem.disp;
			break;
		case ARM64_OP_FP: memcpy(&v, &op->fp, sizeof(v)); break;
		case ARM64_OP_PSTATE: v = op->pstate; break;
		case ARM64_OP_SYS: v = op->sys; break;
		case ARM64_OP_PREFETCH: v = op->prefetch; break;
		case ARM64_OP_BARRIER: v = op->barrier; break;
		default: break;
		}
		mix(n, v);
	}
}

struct bin_disasm *disasm_new(const struct binfile *bf)
{
	struct bin_disasm *d = xcalloc(1, sizeof(*d));
	bool x86 = bf->machine == EM_X86_64;
	cs_err err =
	    cs_open(x86 ? CS_ARCH_X86 : CS_ARCH_ARM64, x86 ? CS_MODE_64 : CS_MODE_ARM, &d->cs);
	if (err != CS_ERR_OK) {
		free(d);
		error("cannot start the Capstone disassembler for %s: %s", bf->arch,
		      cs_strerror(err));
		return NULL;
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	d->reuse = x86 && !(bf->flags & BINFILE_NO_REUSE);
	return d;
}

void disasm_free(struct bin_disasm *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	dec_cache_release(&d->cache);
	free(d->tmpl);
	free(d);
}

int disasm_open(struct binfile *bf)
{
	bf->disasm = disasm_new(bf);
	return bf->disasm ? 0 : RP_EINTERNAL;
}

void disasm_close(struct binfile *bf)
{
	disasm_free(bf->disasm);
	bf->disasm = NULL;
}

/* The first relocation at or after addr. */
static const struct bin_reloc *reloc_from(const struct binfile *bf, uint64_t addr)
{
	size_t lo = 0, hi = bf->nr_relocs;
	if (!bf->relocs)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bf->relocs[mid].pos < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return bf->relocs + lo;
}

/* The bytes of f that the file holds; false when there are none. */
static bool func_code(const struct binfile *bf, const struct binfunc *f, const uint8_t **code,
		      size_t *len)
{
	const struct bin_section *s = &bf->sections[f->section];
	if (!s->data || f->addr - s->addr >= s->data_size)
		return false;
	*code = s->data + (f->addr - s->addr);
	*len = s->data_size - (f->addr - s->addr);
	if (*len > f->size)
		*len = (size_t)f->size;
	return true;
}

static void norm_start(struct norm *n, const struct binfile *bf, const struct binfunc *f,
		       size_t len)
{
	n->bf = bf;
	n->f = f;
	n->h = 0x5BD1E9955BD1E995ULL;
	n->rel = reloc_from(bf, f->addr);
	n->rel_end = reloc_from(bf, f->addr + len);
}

static void norm_finish(struct norm *n, struct binfunc *f, uint64_t count)
{
	f->nr_insns = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
	f->hash = binhash_final(binhash_mix(n->h, count));
}

/* Bytes that do not decode (data in code, or a truncated end) are hashed raw. */
static void norm_bad(struct norm *n, const uint8_t *code, size_t skip)
{
	uint64_t w = 0;
	memcpy(&w, code, skip);
	mix(n, TAG_BAD);
	mix(n, w);
}

/* The template record of the instruction at offset off, or NULL when none is kept. */
static struct dec_rec *tmpl_add(struct bin_disasm *d, uint64_t off)
{
	struct dec_rec *rec;
	ALLOC_GROW(d->tmpl, d->nr_tmpl + 1, d->alloc_tmpl);
	rec = &d->tmpl[d->nr_tmpl++];
	rec->off = (uint32_t)off;
	return rec;
}

/*
 * Decodes the x86-64 instruction at code (len bytes left, at addr) into rec->in: from the
 * cache when its shape was decoded before, else with Capstone (and caches it). Returns
 * false when the bytes do not decode; *reusable says whether rec can serve as a template.
 */
static bool x86_decode(struct bin_disasm *d, const uint8_t *code, size_t len, uint64_t addr,
		       struct dec_rec *rec, bool *reusable)
{
	const struct dec_rec *c = d->reuse ? dec_cache_find(&d->cache, code, len) : NULL;
	uint32_t off = rec->off;
	const uint8_t *p = code;
	uint64_t a = addr;

	if (c) {
		*rec = *c;
		rec->off = off;
		rec->in.address = addr;
		rec->in.bytes = code;
		if (dec_refix(rec, &rec->in)) {
			*reusable = true;
			return true;
		}
	}
	if (!cs_disasm_iter(d->cs, &p, &len, &a, d->insn))
		return false;
	dec_from_capstone(d->insn, &rec->in);
	*reusable = dec_template(d->insn, rec);
	rec->off = off;
	if (*reusable && d->reuse)
		dec_cache_add(&d->cache, code, rec);
	rec->in.bytes = code;
	return true;
}

int disasm_function_with(struct bin_disasm *d, struct binfile *bf, struct binfunc *f, bool keep)
{
	struct norm n;
	const uint8_t *code;
	size_t len;
	uint64_t addr = f->addr, count = 0;
	bool x86 = bf->machine == EM_X86_64;

	d->tmpl_fn = NULL;
	d->nr_tmpl = 0;
	keep = keep && x86 && f->size <= UINT32_MAX;
	d->tmpl_ok = keep;
	if (!func_code(bf, f, &code, &len)) {
		f->hash = 0;
		f->nr_insns = 0;
		return 0;
	}
	norm_start(&n, bf, f, len);
	while (len) {
		struct dec_rec *rec = keep ? tmpl_add(d, addr - f->addr) : &d->scratch;
		bool reusable;
		if (x86 && x86_decode(d, code, len, addr, rec, &reusable)) {
			d->tmpl_ok &= reusable;
			norm_x86(&n, &rec->in);
			code += rec->in.size;
			len -= rec->in.size;
			addr += rec->in.size;
		} else if (!x86 && cs_disasm_iter(d->cs, &code, &len, &addr, d->insn)) {
			norm_arm64(&n, d->insn);
		} else {
			size_t skip = x86 || len < 4 ? 1 : 4;
			norm_bad(&n, code, skip);
			rec->bad = true;
			code += skip;
			len -= skip;
			addr += skip;
		}
		count++;
	}
	norm_finish(&n, f, count);
	if (keep)
		d->tmpl_fn = f;
	return 0;
}

int disasm_function(struct binfile *bf, struct binfunc *f)
{
	return disasm_function_with(bf->disasm, bf, f, false);
}

bool disasm_replay(struct bin_disasm *d, struct binfile *bf, struct binfunc *f,
		   const struct binfile *tbf, const struct binfunc *tmpl)
{
	struct norm n;
	const uint8_t *code, *tcode;
	size_t len, tlen, i;

	if (!d->reuse || !d->tmpl_ok || d->tmpl_fn != tmpl || bf->machine != EM_X86_64 ||
	    tbf->machine != EM_X86_64 || !func_code(bf, f, &code, &len) ||
	    !func_code(tbf, tmpl, &tcode, &tlen) || len != tlen)
		return false;
	if (memcmp(code, tcode, len))
		for (i = 0; i < d->nr_tmpl; i++)
			if (!dec_same_shape(&d->tmpl[i], code + d->tmpl[i].off,
					    tcode + d->tmpl[i].off))
				return false;
	norm_start(&n, bf, f, len);
	for (i = 0; i < d->nr_tmpl; i++) {
		const struct dec_rec *rec = &d->tmpl[i];
		struct dec_insn in;
		if (rec->bad) {
			norm_bad(&n, code + rec->off, 1);
			continue;
		}
		memcpy(&in, &rec->in,
		       offsetof(struct dec_insn, ops) + rec->in.nr_ops * sizeof(rec->in.ops[0]));
		in.address = f->addr + rec->off;
		in.bytes = code + rec->off;
		if (!dec_refix(rec, &in))
			return false;
		norm_x86(&n, &in);
	}
	norm_finish(&n, f, d->nr_tmpl);
	return true;
}

int disasm_plt(struct binfile *bf, const struct bin_section *sec,
	       void (*fn)(struct binfile *bf, const struct bin_section *sec, uint64_t insn_addr,
			  uint64_t target))
{
	struct bin_disasm *d = bf->disasm;
	struct dec_rec *rec = &d->scratch;
	const uint8_t *code = sec->data;
	size_t len = sec->data_size < sec->size ? sec->data_size : sec->size;
	uint64_t addr = sec->addr;
	while (len) {
		bool reusable;
		size_t step = 1;
		uint8_t i;
		/* (PLT entries repeat: most come from the cache of shapes.) */
		if (x86_decode(d, code, len, addr, rec, &reusable)) {
			const struct dec_insn *in = &rec->in;
			step = in->size;
			for (i = 0; i < in->nr_ops; i++)
				if (in->ops[i].type == X86_OP_MEM && in->ops[i].rip)
					fn(bf, sec, addr, addr + in->size + (uint64_t)in->ops[i].v);
		}
		code += step;
		len -= step;
		addr += step;
	}
	return 0;
}

/* ---- two functions compared instruction by instruction (bindiff_why.c) ---- */

/* The x86-64 instructions of f, decoded (records of bytes that do not decode: bad). */
static size_t decode_all(struct bin_disasm *d, const struct binfile *bf, const struct binfunc *f,
			 struct dec_rec **recs, size_t *alloc)
{
	const uint8_t *code;
	size_t len, nr = 0;
	uint64_t addr = f->addr;

	if (!func_code(bf, f, &code, &len))
		return 0;
	while (len) {
		struct dec_rec *rec;
		bool reusable;
		ALLOC_GROW(*recs, nr + 1, *alloc);
		rec = &(*recs)[nr++];
		memset(rec, 0, sizeof(*rec));
		rec->off = (uint32_t)(addr - f->addr);
		if (x86_decode(d, code, len, addr, rec, &reusable)) {
			code += rec->in.size;
			len -= rec->in.size;
			addr += rec->in.size;
		} else {
			rec->bad = true;
			rec->in.bytes = code;
			rec->in.address = addr;
			code++;
			len--;
			addr++;
		}
	}
	return nr;
}

/* What the function's hash takes of one instruction, alone. */
static uint64_t insn_hash(struct norm *n, const struct dec_rec *rec)
{
	n->h = 0x5BD1E9955BD1E995ULL;
	if (rec->bad)
		norm_bad(n, rec->in.bytes, 1);
	else
		norm_x86(n, &rec->in);
	return n->h;
}

/* The plain number in the immediate field of rec (not an address nor a branch target). */
static bool plain_immediate(const struct binfile *bf, const struct dec_rec *rec, int64_t *v)
{
	const struct dec_insn *in = &rec->in;
	if (rec->bad || !in->imm_size || in->branch)
		return false;
	for (uint8_t i = 0; i < in->nr_ops; i++)
		if (in->ops[i].type == X86_OP_IMM) {
			*v = in->ops[i].v;
			return !(in->imm_size >= 4 && absolute_address(bf, *v));
		}
	return false;
}

/* insn_hash() of rec with its immediate field zeroed. */
static uint64_t masked_hash(struct norm *n, const struct dec_rec *rec)
{
	struct dec_rec m = *rec;
	uint8_t bytes[16];
	size_t len = rec->in.size < sizeof(bytes) ? rec->in.size : sizeof(bytes);
	memcpy(bytes, rec->in.bytes, len);
	mask(bytes, len, rec->in.imm_offset, rec->in.imm_size);
	m.in.bytes = bytes;
	return insn_hash(n, &m);
}

int disasm_immediates_only(const struct binfile *bo, const struct binfunc *fo,
			   const struct binfile *bn, const struct binfunc *fn,
			   bool (*accept)(int64_t old_v, int64_t new_v, uint64_t old_addr,
					  uint64_t new_addr, void *arg),
			   void *arg)
{
	struct bin_disasm *d;
	struct dec_rec *r[2] = {NULL, NULL};
	size_t alloc[2] = {0, 0}, nr[2], differ = 0;
	struct norm n[2];
	int ret = 0;

	if (bo->machine != EM_X86_64 || bn->machine != EM_X86_64 || fo->nr_insns != fn->nr_insns ||
	    !(d = disasm_new(bo)))
		return 0;
	nr[0] = decode_all(d, bo, fo, &r[0], &alloc[0]);
	nr[1] = decode_all(d, bn, fn, &r[1], &alloc[1]);
	if (nr[0] != nr[1] || !nr[0])
		goto out;
	norm_start(&n[0], bo, fo, (size_t)fo->size);
	norm_start(&n[1], bn, fn, (size_t)fn->size);
	for (size_t i = 0; i < nr[0]; i++) {
		const struct dec_rec *a = &r[0][i], *b = &r[1][i];
		int64_t va, vb;
		if (insn_hash(&n[0], a) == insn_hash(&n[1], b))
			continue;
		if (a->in.size != b->in.size || a->in.imm_offset != b->in.imm_offset ||
		    a->in.imm_size != b->in.imm_size || !plain_immediate(bo, a, &va) ||
		    !plain_immediate(bn, b, &vb) || va == vb ||
		    masked_hash(&n[0], a) != masked_hash(&n[1], b) ||
		    !accept(va, vb, a->in.address, b->in.address, arg))
			goto out;
		differ++;
	}
	ret = differ > 0;
out:
	free(r[0]);
	free(r[1]);
	disasm_free(d);
	return ret;
}
