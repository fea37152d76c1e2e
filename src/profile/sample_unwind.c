/*
 * Stacks of sampled threads unwound after the run from the registers and the copy of the
 * user stack that each sample holds (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER), with
 * elfutils libdwfl and the call frame information of the modules that were mapped, as
 * `perf --call-graph dwarf` does (docs/sampling.md). libdwfl gets the thread's state
 * through our own callbacks: the registers from the sample, memory from the stack copy.
 * Modules come from the process image the MMAP2 records built (profile/sample_impl.h),
 * reported to one libdwfl session per image. Where a module has no call frame
 * information, libdwfl follows the frame pointer itself; where unwinding ends early in
 * code without a module, the kernel's frame-pointer chain continues it when the sample
 * has one (fp mode; DWARF mode records none, collect/perf_sample.c).
 */
#include "profile/sample_impl.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <linux/perf_event.h>
#include <string.h>

#include "binary/dwfl_nodebug.h"
#include "util/strmap.h"
#include "util/common.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>
/* The DWARF registers 0-16 of the x86-64 psABI (rax rdx rcx rbx rsi rdi rbp rsp r8-r15
 * rip) as perf numbers them. */
static const int dwarf_to_perf[] = {
    PERF_REG_X86_AX,  PERF_REG_X86_DX,	PERF_REG_X86_CX,  PERF_REG_X86_BX,  PERF_REG_X86_SI,
    PERF_REG_X86_DI,  PERF_REG_X86_BP,	PERF_REG_X86_SP,  PERF_REG_X86_R8,  PERF_REG_X86_R9,
    PERF_REG_X86_R10, PERF_REG_X86_R11, PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14,
    PERF_REG_X86_R15, PERF_REG_X86_IP,
};
#define REG_SP PERF_REG_X86_SP
#define REG_IP PERF_REG_X86_IP
#define HAVE_UNWIND 1
#else
static const int dwarf_to_perf[] = {0};
#define REG_SP 0
#define REG_IP 0
#define HAVE_UNWIND 0
#endif
#define NR_DWARF_REGS ARRAY_SIZE(dwarf_to_perf)

/* Reads above the copy by less than this count as a stack copy too small. */
#define NEAR_STACK (1u << 20)

struct sample_unwinder {
	struct symbolizer *sym;
	struct strmap cfi; /* module path -> 1 + has call frame information */

	/* The unwind in progress. */
	const struct sample_raw_sample *s;
	uint64_t regs_mask;
	uint64_t sp;
	struct sample_unwind_note *note;
	uint64_t *pcs;
	bool *is_return, *from_chain;
	size_t max, n;
};

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_no_debuginfo, /* the call frame information in the files only */
};

struct sample_unwinder *sample_unwinder_new(struct symbolizer *sym)
{
	struct sample_unwinder *u = xcalloc(1, sizeof(*u));

	u->sym = sym;
	strmap_init(&u->cfi);
	return u;
}

void sample_unwinder_free(struct sample_unwinder *u)
{
	if (!u)
		return;
	strmap_release(&u->cfi);
	free(u);
}

void sample_unwind_image_release(struct sample_image *img)
{
	if (img->dwfl)
		dwfl_end(img->dwfl);
	img->dwfl = NULL;
	img->attached = false;
}

int sample_unwind_module_cfi(struct sample_unwinder *u, const char *path)
{
	size_t *v = strmap_get(&u->cfi, path);
	return v ? (int)*v - 1 : -1;
}

/* The value of perf register `reg` in the sample, false when it was not recorded. */
static bool perf_reg(const struct sample_unwinder *u, int reg, uint64_t *out)
{
	uint64_t bit = UINT64_C(1) << reg;
	unsigned idx;

	if (!(u->regs_mask & bit) || !u->s->regs)
		return false;
	idx = (unsigned)__builtin_popcountll(u->regs_mask & (bit - 1));
	if (idx >= u->s->nr_regs)
		return false;
	*out = u->s->regs[idx];
	return true;
}

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	UNUSED(dwfl);
	UNUSED(arg);
	UNUSED(thread_argp);
	return 0;
}

/* The one thread there is: the sample's, whatever its number. */
static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	UNUSED(dwfl);
	UNUSED(tid);
	*thread_argp = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct sample_unwinder *u = arg;
	uint64_t w;

	UNUSED(dwfl);
	if (addr >= u->sp && u->s->stack_size >= sizeof(w) &&
	    addr - u->sp <= u->s->stack_size - sizeof(w)) {
		memcpy(&w, u->s->stack + (addr - u->sp), sizeof(w));
		*result = w;
		return true;
	}
	if (addr >= u->sp + u->s->stack_size && addr - u->sp < NEAR_STACK)
		u->note->truncated = true;
	return false;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct sample_unwinder *u = arg;
	Dwarf_Word regs[NR_DWARF_REGS];
	uint64_t ip;

	for (size_t i = 0; i < NR_DWARF_REGS; i++) {
		uint64_t v = 0;
		perf_reg(u, dwarf_to_perf[i], &v);
		regs[i] = v;
	}
	if (!dwfl_thread_state_registers(thread, 0, NR_DWARF_REGS, regs) ||
	    !perf_reg(u, REG_IP, &ip))
		return false;
	dwfl_thread_state_register_pc(thread, ip);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = cb_next_thread,
    .get_thread = cb_get_thread,
    .memory_read = cb_memory_read,
    .set_initial_registers = cb_set_initial_registers,
};

/* Remembers whether the module has call frame information, for the report. */
static void note_cfi(struct sample_unwinder *u, Dwfl_Module *mod, const char *path)
{
	Dwarf_Addr bias;
	bool has;

	if (strmap_get(&u->cfi, path))
		return;
	has = dwfl_module_eh_cfi(mod, &bias) || dwfl_module_dwarf_cfi(mod, &bias);
	strmap_put(&u->cfi, path, has ? 2 : 1, NULL);
}

/*
 * The image's session, made anew when its mappings changed since it was made (a library
 * loaded since; the samples of the dynamic loader's start come before any library is
 * mapped): a session whose modules were reported again after dwfl_attach_state() was seen
 * to unwind nothing.
 */
static void report_image(struct sample_unwinder *u, struct sample_image *img)
{
	const char *last = NULL;
	uint64_t last_bias = 0;

	if (img->dwfl && img->dwfl_generation == img->generation)
		return;
	sample_unwind_image_release(img);
	if (!(img->dwfl = dwfl_begin(&dwfl_callbacks)))
		return;
	dwfl_report_begin(img->dwfl);
	for (size_t i = 0; i < img->maps.nr; i++) {
		const struct proc_map *m = &img->maps.maps[i];
		Dwfl_Module *mod;
		uint64_t bias;

		if (!m->path || m->path[0] != '/' || m->deleted ||
		    symbolizer_map_bias(u->sym, m->path, m->start, m->offset, &bias))
			continue;
		/* A file mapped in several pieces is one module. */
		if (last && !strcmp(last, m->path) && last_bias == bias)
			continue;
		mod = dwfl_report_elf(img->dwfl, m->path, m->path, -1, bias, true);
		if (mod)
			note_cfi(u, mod, m->path);
		last = m->path;
		last_bias = bias;
	}
	dwfl_report_end(img->dwfl, NULL, NULL);
	img->dwfl_generation = img->generation;
	/* Needs a module with its ELF file, for the architecture. */
	img->attached = dwfl_attach_state(img->dwfl, NULL, 1, &thread_callbacks, u);
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct sample_unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	/* A zero return address ends some stacks (thread starts without CFI). */
	if (!dwfl_frame_pc(state, &pc, &activation) || (pc == 0 && u->n > 0))
		return DWARF_CB_ABORT;
	if (u->n == u->max)
		return DWARF_CB_ABORT;
	u->pcs[u->n] = pc;
	u->from_chain[u->n] = false;
	u->is_return[u->n++] = !activation;
	return DWARF_CB_OK;
}

/* The user part of the kernel's chain: its entries after the PERF_CONTEXT_USER marker. */
static size_t user_chain(const struct sample_raw_sample *s, const uint64_t **out)
{
	size_t i = 0;

	while (i < s->nr_chain && s->chain[i] >= (uint64_t)PERF_CONTEXT_MAX)
		i++;
	*out = s->chain + i;
	return s->nr_chain - i;
}

/*
 * Continues the unwound frames with the kernel's chain when unwinding ended early (the
 * stack copy ended, or a frame had no rule): from the outermost unwound frame that the
 * chain holds too, or, when the chain holds none of them, after all of them (a leaf that
 * keeps no frame pointer hides its caller from the chain, never the reverse).
 */
static void splice_chain(struct sample_unwinder *u)
{
	const uint64_t *c;
	size_t m = user_chain(u->s, &c), from = 1;

	if (m < 2 || !u->n)
		return;
	for (size_t i = u->n; i-- > 1;) {
		for (size_t j = 1; j < m; j++)
			if (c[j] == u->pcs[i]) {
				u->n = i + 1;
				from = j + 1;
				goto append;
			}
	}
append:
	for (size_t j = from; j < m && u->n < u->max; j++) {
		u->pcs[u->n] = c[j];
		u->from_chain[u->n] = true;
		u->is_return[u->n++] = true;
		u->note->spliced = true;
	}
}

size_t sample_unwind(struct sample_unwinder *u, struct sample_image *img,
		     const struct sample_raw_sample *s, uint64_t regs_mask, uint64_t *pcs,
		     bool *is_return, bool *from_chain, size_t max, struct sample_unwind_note *note)
{
	memset(note, 0, sizeof(*note));
	if (!HAVE_UNWIND || s->abi != PERF_SAMPLE_REGS_ABI_64 || !s->regs) {
		note->no_regs = true;
		return 0;
	}
	u->s = s;
	u->regs_mask = regs_mask;
	u->note = note;
	u->pcs = pcs;
	u->is_return = is_return;
	u->from_chain = from_chain;
	u->max = max;
	u->n = 0;
	if (!perf_reg(u, REG_SP, &u->sp))
		return 0;
	report_image(u, img);
	/* 0: the unwinder reached the outermost frame (its return address is undefined);
	 * otherwise it stopped early, and what was found counts. A read above the stack copy
	 * stopped it early too, though libdwfl may return 0 then (its frame-pointer fallback
	 * takes the failed read for the end): fp mode's chain goes on above a frame larger
	 * than its 512-byte copy (a local array), which it lost entirely. */
	if (!img->attached || dwfl_getthread_frames(img->dwfl, (pid_t)s->tid, on_frame, u) != 0 ||
	    note->truncated) {
		if (u->n == 0 && max > 0) {
			pcs[0] = s->ip;
			is_return[0] = false;
			from_chain[0] = false;
			u->n = 1;
		}
		splice_chain(u);
	}
	u->s = NULL;
	return u->n;
}
