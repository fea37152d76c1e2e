/*
 * Stacks of traced threads that sit in a system call, unwound with elfutils libdwfl from
 * the DWARF call frame information (.eh_frame) of the mapped ELF files, so that code built
 * without frame pointers unwinds (docs/io-tracing.md).
 *
 * One libdwfl session per process. Its thread state comes from our own callbacks rather
 * than dwfl_linux_proc_attach(): the registers are the ones the tracer fetched at the
 * seccomp stop, and the stack is read with process_vm_readv() a page at a time and
 * cached for the unwind; no ptrace request is made, so the tracee can run its system call
 * while its stack is unwound (docs/io-tracing.md). Modules are reported from
 * /proc/PID/maps when the session starts and again when a frame lands in no known module
 * (a library loaded since); a re-report that finds nothing new doubles the number of such
 * misses to let pass before the next one, so that JIT code costs little.
 */
#include "collect/iotrace_impl.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "binary/dwfl_nodebug.h"
#include "util/common.h"

#define PAGE 4096
#define BLOCKS 8
/* At most this many misses pass between two fruitless re-reports of the modules. */
#define BACKOFF_MAX 4096
#define MIN_RULE_SLOTS 256

/* Stack memory read for one unwind: up to BLOCKS pages. */
struct mem_block {
	uint64_t base;
	size_t len; /* 0: empty */
	unsigned char buf[PAGE];
};

/* What we keep per libdwfl module (its userdata slot). */
struct modinfo {
	const char *path; /* interned */
	Dwarf_Addr bias;  /* run-time address - ELF virtual address */
	struct modinfo *next;
};

/*
 * The call frame rules at one address, as far as the fast path needs them: how to find
 * the CFA, the return address and the caller's frame pointer.
 */
enum rule_kind {
	RULE_COMPLEX = 1, /* anything else: libdwfl unwinds the stack */
	RULE_SIMPLE,
	RULE_OUTERMOST, /* the return address is undefined: the stack ends here */
};
enum fp_rule { FP_SAME, FP_SAVED, FP_UNDEFINED };
struct cfa_rule {
	const char *module; /* key, with vaddr; NULL: empty slot */
	uint64_t vaddr;
	unsigned char kind, fp_rule;
	bool cfa_on_fp; /* CFA = frame pointer + cfa_off (else stack pointer + cfa_off) */
	int64_t cfa_off, ra_off, fp_off; /* the latter two relative to the CFA */
};

struct iotrace_unwinder {
	pid_t tgid;
	struct iotrace_strings *strings;
	struct iotrace_unwind_stats *stats;
	bool verify;
	Dwfl *dwfl;
	bool attached;		/* dwfl_attach_state() succeeded */
	struct modinfo *mods;	/* every one made, freed with the unwinder */
	const char *unknown;	/* interned "[unknown]" */
	unsigned skip, backoff; /* misses to let pass before the next re-report */
	struct cfa_rule *rules; /* open addressing, keyed by (module, vaddr) */
	size_t nr_rules, nr_rule_slots;

	/* The unwind in progress. */
	pid_t tid;
	const iotrace_regs *regs;
	struct mem_block mem[BLOCKS];
	unsigned mem_next;
};

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_no_debuginfo, /* DWARF in the files only */
};

/* Only the thread being unwound exists for libdwfl: threads are never enumerated. */
static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	UNUSED(dwfl);
	UNUSED(arg);
	UNUSED(thread_argp);
	return 0;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct iotrace_unwinder *u = arg;

	UNUSED(dwfl);
	*thread_argp = u;
	return tid == u->tid;
}

static bool read_word(struct iotrace_unwinder *u, uint64_t addr, uint64_t *out)
{
	struct iovec local, remote;
	struct mem_block *b;
	ssize_t n;

	for (unsigned i = 0; i < BLOCKS; i++) {
		b = &u->mem[i];
		if (b->len >= sizeof(*out) && addr >= b->base &&
		    addr - b->base <= b->len - sizeof(*out)) {
			memcpy(out, b->buf + (addr - b->base), sizeof(*out));
			return true;
		}
	}
	/* A frame's words are read one after the other: the whole page, once. */
	b = &u->mem[u->mem_next++ % BLOCKS];
	b->base = addr & ~(uint64_t)(PAGE - 1);
	local.iov_base = b->buf;
	local.iov_len = PAGE;
	remote.iov_base = (void *)(uintptr_t)b->base;
	remote.iov_len = PAGE;
	n = process_vm_readv(u->tid, &local, 1, &remote, 1, 0);
	b->len = n > 0 ? (size_t)n : 0;
	if (b->len >= sizeof(*out) && addr - b->base <= b->len - sizeof(*out)) {
		memcpy(out, b->buf + (addr - b->base), sizeof(*out));
		return true;
	}
	/* A word across the end of a page (or in none). */
	local.iov_base = out;
	local.iov_len = sizeof(*out);
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = sizeof(*out);
	return process_vm_readv(u->tid, &local, 1, &remote, 1, 0) == (ssize_t)sizeof(*out);
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	uint64_t w;

	UNUSED(dwfl);
	if (!read_word(arg, addr, &w))
		return false;
	*result = w;
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct iotrace_unwinder *u = thread_arg;
	uint64_t w[IOTRACE_DWARF_NREGS];
	Dwarf_Word dw[IOTRACE_DWARF_NREGS];

	iotrace_regs_dwarf(u->regs, w);
	for (int i = 0; i < IOTRACE_DWARF_NREGS; i++)
		dw[i] = w[i];
	if (!dwfl_thread_state_registers(thread, 0, IOTRACE_DWARF_NREGS, dw))
		return false;
	dwfl_thread_state_register_pc(thread, iotrace_regs_pc(u->regs));
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = cb_next_thread,
    .get_thread = cb_get_thread,
    .memory_read = cb_memory_read,
    .set_initial_registers = cb_set_initial_registers,
};

/* (Re)reads the process's modules from /proc/PID/maps; attaches the thread state once. */
static void report_modules(struct iotrace_unwinder *u)
{
	int ret;

	dwfl_report_begin(u->dwfl);
	ret = dwfl_linux_proc_report(u->dwfl, u->tgid);
	dwfl_report_end(u->dwfl, NULL, NULL);
	/* Needs a module with an ELF file, to learn the architecture. */
	if (ret == 0 && !u->attached)
		u->attached = dwfl_attach_state(u->dwfl, NULL, u->tgid, &thread_callbacks, u);
}

struct iotrace_unwinder *iotrace_unwinder_new(pid_t tgid, struct iotrace_strings *strings,
					      bool verify, struct iotrace_unwind_stats *stats)
{
	struct iotrace_unwinder *u = xcalloc(1, sizeof(*u));

	u->tgid = tgid;
	u->strings = strings;
	u->verify = verify;
	u->stats = stats;
	u->unknown = iotrace_strings_intern(strings, "[unknown]", strlen("[unknown]"));
	u->dwfl = dwfl_begin(&dwfl_callbacks);
	if (u->dwfl)
		report_modules(u);
	return u;
}

void iotrace_unwinder_free(struct iotrace_unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	while (u->mods) {
		struct modinfo *next = u->mods->next;

		free(u->mods);
		u->mods = next;
	}
	free(u->rules);
	free(u);
}

/* The module path to record: "[vdso: 1234]" becomes "[vdso]" so that processes agree. */
static const char *module_path(struct iotrace_unwinder *u, const char *name)
{
	if (!name || !*name)
		return u->unknown;
	if (!strncmp(name, "[vdso", 5))
		return iotrace_strings_intern(u->strings, "[vdso]", strlen("[vdso]"));
	return iotrace_strings_intern(u->strings, name, strlen(name));
}

static struct modinfo *module_of(struct iotrace_unwinder *u, Dwfl_Module *mod)
{
	struct modinfo *mi;
	Dwarf_Addr start = 0, bias = 0;
	const char *name;
	void **userdata;

	name = dwfl_module_info(mod, &userdata, &start, NULL, NULL, NULL, NULL, NULL);
	if (*userdata)
		return *userdata;
	mi = xcalloc(1, sizeof(*mi));
	mi->path = module_path(u, name);
	/* Without its file (deleted, unreadable), assume the first segment is at vaddr 0. */
	mi->bias = dwfl_module_getelf(mod, &bias) ? bias : start;
	mi->next = u->mods;
	u->mods = mi;
	*userdata = mi;
	return mi;
}

/* Places addr into f; false when it is in no known module. */
static bool place(struct iotrace_unwinder *u, uint64_t addr, struct iotrace_frame *f)
{
	Dwfl_Module *mod = u->dwfl ? dwfl_addrmodule(u->dwfl, addr) : NULL;
	struct modinfo *mi;

	if (!mod) {
		f->module = u->unknown;
		f->file_vaddr = addr;
		return false;
	}
	mi = module_of(u, mod);
	f->module = mi->path;
	f->file_vaddr = addr - mi->bias;
	return true;
}

struct walk {
	struct iotrace_unwinder *u;
	struct iotrace_frame *frames;
	size_t max, n;
	bool truncated, unknown;
};

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	/* A zero return address ends some stacks (thread starts without CFI). */
	if (!dwfl_frame_pc(state, &pc, &activation) || (pc == 0 && w->n > 0))
		return DWARF_CB_ABORT;
	if (w->n == w->max) {
		w->truncated = true;
		return DWARF_CB_ABORT;
	}
	/* A return address: the call instruction is just before it. */
	if (!activation && pc > 0)
		pc--;
	if (!place(w->u, pc, &w->frames[w->n++]))
		w->unknown = true;
	return DWARF_CB_OK;
}

static void walk_stack(struct iotrace_unwinder *u, struct walk *w)
{
	w->n = 0;
	w->truncated = w->unknown = false;
	/* The end of a stack is an error for some unwinders: what was found counts. */
	if (u->attached)
		dwfl_getthread_frames(u->dwfl, u->tid, on_frame, w);
	if (w->n == 0 && w->max > 0)
		w->unknown = !place(u, iotrace_regs_pc(u->regs), &w->frames[w->n++]);
}

/* ---- the fast path: simple call frame rules, interpreted here ---- */

/* An offset(N) rule: the value is saved at CFA + N. */
static bool rule_saved_at(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* Reads the rules at vaddr of mod from its .eh_frame into r (kind RULE_COMPLEX if odd). */
static void rule_read(Dwfl_Module *mod, uint64_t vaddr, struct cfa_rule *r)
{
	Dwarf_Op mem[3], *ops;
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	size_t nops;
	bool signal = false;
	int64_t off;

	r->kind = RULE_COMPLEX;
	/* vaddr is relative to the main file's bias; the CFI's is the same file's. */
	if (!cfi || dwarf_cfi_addrframe(cfi, vaddr, &frame) != 0)
		goto out;
	if (dwarf_frame_info(frame, NULL, NULL, &signal) != IOTRACE_DWARF_RA || signal)
		goto out;
	/* CFA = sp or fp + offset (libdw's form of DW_CFA_def_cfa). */
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != IOTRACE_DWARF_SP && ops[0].number != IOTRACE_DWARF_FP))
		goto out;
	r->cfa_on_fp = ops[0].number == IOTRACE_DWARF_FP;
	r->cfa_off = (int64_t)ops[0].number2;
	/* The caller's sp is the CFA (the ABI's val_offset(0)). */
	if (dwarf_frame_register(frame, IOTRACE_DWARF_SP, mem, &ops, &nops) != 0 || nops != 2 ||
	    ops[0].atom != DW_OP_call_frame_cfa || ops[1].atom != DW_OP_stack_value)
		goto out;
	if (dwarf_frame_register(frame, IOTRACE_DWARF_FP, mem, &ops, &nops) != 0)
		goto out;
	if (nops == 0)
		r->fp_rule = ops ? FP_UNDEFINED : FP_SAME;
	else if (rule_saved_at(ops, nops, &off))
		r->fp_rule = FP_SAVED, r->fp_off = off;
	else
		goto out;
	if (dwarf_frame_register(frame, IOTRACE_DWARF_RA, mem, &ops, &nops) != 0)
		goto out;
	if (nops == 0 && ops)
		r->kind = RULE_OUTERMOST;
	else if (rule_saved_at(ops, nops, &off))
		r->kind = RULE_SIMPLE, r->ra_off = off;
out:
	free(frame);
}

static uint64_t rule_hash(const char *module, uint64_t vaddr)
{
	uint64_t h = (uint64_t)(uintptr_t)module * UINT64_C(0x9e3779b97f4a7c15) ^ vaddr;

	h ^= h >> 29;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	return h ^ (h >> 32);
}

static void rules_grow(struct iotrace_unwinder *u)
{
	size_t n = u->nr_rule_slots ? u->nr_rule_slots * 2 : MIN_RULE_SLOTS;
	struct cfa_rule *slots = xcalloc(n, sizeof(*slots));

	for (size_t i = 0; i < u->nr_rule_slots; i++) {
		const struct cfa_rule *r = &u->rules[i];
		size_t j;

		if (!r->module)
			continue;
		for (j = rule_hash(r->module, r->vaddr) & (n - 1); slots[j].module;
		     j = (j + 1) & (n - 1))
			;
		slots[j] = *r;
	}
	free(u->rules);
	u->rules = slots;
	u->nr_rule_slots = n;
}

/* The rules at vaddr of the module mi (mod), read once. */
static const struct cfa_rule *rule_of(struct iotrace_unwinder *u, Dwfl_Module *mod,
				      const struct modinfo *mi, uint64_t vaddr)
{
	struct cfa_rule *r;
	size_t i;

	if ((u->nr_rules + 1) * 2 > u->nr_rule_slots)
		rules_grow(u);
	for (i = rule_hash(mi->path, vaddr) & (u->nr_rule_slots - 1); u->rules[i].module;
	     i = (i + 1) & (u->nr_rule_slots - 1))
		if (u->rules[i].module == mi->path && u->rules[i].vaddr == vaddr)
			return &u->rules[i];
	r = &u->rules[i];
	memset(r, 0, sizeof(*r));
	rule_read(mod, vaddr, r);
	r->module = mi->path;
	r->vaddr = vaddr;
	u->nr_rules++;
	return r;
}

/*
 * Unwinds like libdwfl would, for stacks whose every frame has simple rules. Returns
 * false, with w undefined, when a frame does not (or its address is in no module): then
 * libdwfl must do it. Frames, truncation and the end of the stack match libdwfl's: the
 * stack ends when the return address is undefined or zero, or a word cannot be read.
 */
static bool fast_walk(struct iotrace_unwinder *u, struct walk *w)
{
	uint64_t pc = iotrace_regs_pc(u->regs), sp = iotrace_regs_sp(u->regs);
	uint64_t fp = iotrace_regs_fp(u->regs), cfa, ra;
	bool fp_known = true, activation = true;

	w->n = 0;
	w->truncated = w->unknown = false;
	if (!u->dwfl)
		return false;
	for (;;) {
		/* A return address: the call instruction is just before it. */
		uint64_t at = activation ? pc : pc - 1;
		Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, at);
		const struct cfa_rule *r;
		const struct modinfo *mi;

		if (!mod)
			return false;
		if (w->n == w->max) {
			w->truncated = true;
			return true;
		}
		mi = module_of(u, mod);
		r = rule_of(u, mod, mi, at - mi->bias);
		if (r->kind == RULE_COMPLEX || (r->cfa_on_fp && !fp_known))
			return false;
		w->frames[w->n].module = mi->path;
		w->frames[w->n++].file_vaddr = at - mi->bias;
		if (r->kind == RULE_OUTERMOST)
			return true;
		cfa = (r->cfa_on_fp ? fp : sp) + (uint64_t)r->cfa_off;
		if (!read_word(u, cfa + (uint64_t)r->ra_off, &ra) || ra == 0)
			return true;
		if (r->fp_rule == FP_SAVED)
			fp_known = read_word(u, cfa + (uint64_t)r->fp_off, &fp);
		else if (r->fp_rule == FP_UNDEFINED)
			fp_known = false;
		sp = cfa;
		pc = ra;
		activation = false;
	}
}

static bool same_stack(const struct walk *a, const struct walk *b)
{
	if (a->n != b->n || a->truncated != b->truncated)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->frames[i].module != b->frames[i].module ||
		    a->frames[i].file_vaddr != b->frames[i].file_vaddr)
			return false;
	return true;
}

/* The stack into w: the fast path when it can, else libdwfl's unwinder. */
static void unwind(struct iotrace_unwinder *u, struct walk *w)
{
	for (unsigned i = 0; i < BLOCKS; i++)
		u->mem[i].len = 0;
	if (!fast_walk(u, w)) {
		walk_stack(u, w);
		u->stats->libdw++;
		return;
	}
	u->stats->fast++;
	if (u->verify) {
		struct iotrace_frame check_frames[IOTRACE_MAX_DEPTH];
		struct walk check = {.u = u, .frames = check_frames, .max = w->max};

		walk_stack(u, &check);
		if (!same_stack(w, &check))
			u->stats->mismatches++;
	}
}

size_t iotrace_unwind(struct iotrace_unwinder *u, pid_t tid, const iotrace_regs *regs,
		      struct iotrace_frame *frames, size_t max, bool *truncated)
{
	struct walk w = {.u = u, .frames = frames, .max = max};

	u->tid = tid;
	u->regs = regs;
	unwind(u, &w);
	if (w.unknown && u->dwfl) {
		if (u->skip > 0) {
			u->skip--;
		} else {
			report_modules(u);
			unwind(u, &w);
			if (w.unknown) {
				u->backoff = u->backoff ? u->backoff * 2 : 1;
				if (u->backoff > BACKOFF_MAX)
					u->backoff = BACKOFF_MAX;
				u->skip = u->backoff;
			} else {
				u->backoff = 0;
			}
		}
	}
	u->regs = NULL;
	*truncated = w.truncated;
	return w.n;
}
