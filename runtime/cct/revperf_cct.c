/* librevperf_cct.so: a per-thread, call-site-aware calling context tree built from the
 * -finstrument-functions hooks, written as docs/cct-format.md describes.
 *
 * Hot path (the two hooks): no malloc, stdio or locks; one TLS access and one clock read
 * per hook (none with REVPERF_CCT_CLOCK=none: calls only), the rest is a few loads and
 * stores in lines the hook touched just before. The clock is chosen once at setup; each
 * hook is compiled once per clock (hook_enter(), hook_exit()) and picks its copy with one
 * well-predicted branch on that read-mostly choice.
 * Each thread owns a state mapped once (node pool, open-addressing hash of
 * (parent, fn, site) -> node, bounded shadow stack); each node caches a few children by
 * call site, so that the hash is only consulted when a child is new or evicted. A guard in
 * the thread's state drops hooks that run inside a hook (signal handlers). On pool
 * exhaustion the thread stops being profiled and is marked truncated; beyond the shadow
 * stack bound calls are counted as lost. longjmp and exceptions are repaired by comparing
 * the stack pointer recorded at entry with the current one (out of line: the usual exit
 * finds its frame on top, with the same stack pointer).
 *
 * The whole file is written once per process image: at exit (library destructor), before
 * exec (interposed execve/execv/execvp/execvpe), and in a fatal-signal handler that then
 * re-raises the signal with its default disposition. It is written to a temporary name and
 * renamed, so a reader never sees half a file. A forked child resets its tree to the stack
 * active at fork and writes its own file. Nothing here exits, aborts or changes errno.
 *
 * In a program that runs with privileges its user does not have (set-user-ID,
 * set-group-ID, file capabilities: the kernel's AT_SECURE), the environment is the
 * user's to choose: REVPERF_CCT_OUT would let any user create files anywhere with the
 * program's privileges. There the runtime profiles nothing and writes nothing, reads its
 * variables with secure_getenv() (which returns NULL there), and says so once on stderr. */
#include "revperf_cct_format.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h> /* rename() only: no stdio streams are used */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define EXPORT __attribute__((visibility("default")))
#define HOT __attribute__((hot))
#define COLD __attribute__((cold, noinline))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Keeps the compiler from moving memory accesses across the guard's stores: a signal
 * handler on this thread must see the guard set before the state changes. No code. */
#define SIGNAL_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

#define DEFAULT_NODES (1u << 18) /* per thread; REVPERF_CCT_NODES overrides */
#define DEFAULT_DEPTH (1u << 14) /* shadow stack frames; REVPERF_CCT_DEPTH overrides */
#define MAX_NODES (1u << 26)
#define MAX_DEPTH (1u << 22)
#define KID_SLOTS 4 /* per-node direct-mapped cache of children, by call site */

/* One cache line. kids[] caches child ids (0 = none) in front of the hash table: the
 * hook finds the child of a call site with one load and one compare in the usual case. */
struct cct_node {
	uintptr_t fn, site;
	uint64_t calls;
	uint64_t incl_ticks, excl_ticks;
	uint32_t parent;
	uint32_t kids[KID_SLOTS];
	uint32_t pad;
} __attribute__((aligned(64)));

struct cct_frame {
	uintptr_t sp; /* the hook's frame address at entry: deeper frames have lower values */
	uintptr_t fn, site;
	uint64_t t0, child_ticks;
	uint32_t node, pad;
};

struct cct_thread {
	/* Read by every hook: kept together at the start. */
	volatile int busy; /* re-entrancy guard: a hook running inside a hook does nothing */
	volatile int off;  /* 1: no longer profiled (pool full, thread ended, fork, writing) */
	uint32_t depth, cap_depth;
	uint64_t overflow; /* open frames beyond the shadow stack bound */
	struct cct_node *nodes;
	struct cct_frame *stack;
	/* Used when a node is created or the file is written. */
	uint32_t *hash; /* node ids, 0 = empty (the root is never hashed) */
	uint32_t n_nodes, cap_nodes, hash_mask, max_depth;
	uint64_t lost_calls; /* calls counted but not added to the tree */
	int truncated;
	int pool_full;	    /* `off` was set by pool exhaustion, for good */
	uint64_t off_ticks; /* when pool_full: the time it was set (0 without a clock) */
	pid_t tid;
	size_t map_bytes;
	struct cct_thread *next; /* registry, pushed once per thread */
};

/* The thread's state: NULL until its first hook, then its own state, or one of two
 * shared placeholders that make every hook return at once (they are never written). */
static __thread struct cct_thread *t_state __attribute__((tls_model("initial-exec")));
static struct cct_thread g_dead = {.off = 1};	   /* no state: the mapping failed */
static struct cct_thread g_creating = {.busy = 1}; /* the state is being created */

/* The clock of the profile: the TSC (invariant), CLOCK_MONOTONIC, or none (calls only: no
 * clock read, every time is 0). RT_CLOCK_TSC, the value before setup, reads nothing that
 * is kept: no thread records a call before setup. */
enum rt_clock { RT_CLOCK_TSC, RT_CLOCK_MONOTONIC, RT_CLOCK_NONE };

static struct cct_thread *g_threads; /* accessed with __atomic builtins */
static int g_clock; /* enum rt_clock, written once by runtime_setup(); relaxed atomics */
static uint64_t g_tsc0, g_mono0;
static uint32_t g_cap_nodes = DEFAULT_NODES, g_cap_depth = DEFAULT_DEPTH;
static pthread_key_t g_key;
static int g_key_ok;
static pthread_once_t g_setup_once = PTHREAD_ONCE_INIT;
static int g_writing;
static pid_t g_pid;
static uint64_t g_start_ns;
static char g_out[PATH_MAX]; /* REVPERF_CCT_OUT, read once at setup */
static int g_out_is_dir;
/* Set once by runtime_setup(): 1 when profiles may be written (g_out is set and the
 * process has no privileges its user lacks), 0 before setup and in privileged programs. */
static int g_may_write;
static int g_privileged; /* set-user-ID, set-group-ID or capabilities: nothing is done */

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
				    SIGTERM, SIGINT, SIGHUP, SIGQUIT};

static void runtime_setup(void);

/* Out of line: inlined, its struct timespec would give the hooks a stack frame and
 * register saves on the TSC path too. */
static __attribute__((noinline)) uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reads clock `kind`; a constant `kind` leaves only its own read. */
static inline __attribute__((always_inline)) uint64_t clock_read(int kind)
{
	if (kind == RT_CLOCK_NONE)
		return 0;
#if defined(__x86_64__)
	if (LIKELY(kind == RT_CLOCK_TSC))
		return __rdtsc();
#endif
	return mono_ns();
}

/* The profile's clock, for the code out of the hooks' usual case. */
static inline uint64_t now_ticks(void)
{
	return clock_read(__atomic_load_n(&g_clock, __ATOMIC_RELAXED));
}

/* The thread's own state when it has one (not a placeholder), else NULL. */
static struct cct_thread *thread_self(void)
{
	struct cct_thread *t = t_state;
	return t == &g_dead || t == &g_creating ? NULL : t;
}

/* ---- per-thread state ---------------------------------------------------------------- */

static void thread_finish(void *arg);

/* Maps and registers the calling thread's state; NULL when the mapping fails or the
 * program is privileged (nothing is profiled there). */
static struct cct_thread *thread_new(void)
{
	pthread_once(&g_setup_once, runtime_setup);
	if (g_privileged)
		return NULL;
	uint32_t hash_cap = 1;
	while (hash_cap < 2 * g_cap_nodes)
		hash_cap <<= 1;
	size_t sz_state = (sizeof(struct cct_thread) + 63) & ~(size_t)63;
	size_t sz_nodes = (size_t)g_cap_nodes * sizeof(struct cct_node);
	size_t sz_hash = (size_t)hash_cap * sizeof(uint32_t);
	size_t sz_stack = (size_t)(g_cap_depth + 1) * sizeof(struct cct_frame);
	size_t total = sz_state + sz_nodes + sz_hash + sz_stack;
	/* MAP_NORESERVE: only the touched pages cost memory. The mapping is page-aligned and
	 * sz_state a multiple of 64, so every node sits in one cache line. */
	char *p = mmap(NULL, total, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct cct_thread *t = (struct cct_thread *)p;
	t->nodes = (struct cct_node *)(p + sz_state);
	t->hash = (uint32_t *)(p + sz_state + sz_nodes);
	t->stack = (struct cct_frame *)(p + sz_state + sz_nodes + sz_hash);
	t->cap_nodes = g_cap_nodes;
	t->hash_mask = hash_cap - 1;
	t->cap_depth = g_cap_depth + 1; /* frame 0 is the root */
	t->n_nodes = 1;
	t->depth = 1;
	t->max_depth = 1;
	t->stack[0].sp = UINTPTR_MAX;
	t->tid = (pid_t)syscall(SYS_gettid);
	t->map_bytes = total;
	struct cct_thread *head = g_threads;
	do
		t->next = head;
	while (!__atomic_compare_exchange_n(&g_threads, &head, t, 1, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
	if (g_key_ok)
		pthread_setspecific(g_key, t);
	return t;
}

/* The first hook of a thread: creates its state; a placeholder when that fails. */
static COLD struct cct_thread *thread_start(void)
{
	t_state = &g_creating; /* a hook inside (a signal handler) returns at once */
	SIGNAL_FENCE();
	struct cct_thread *t = thread_new();
	t_state = t ? t : &g_dead; /* g_dead: never retried */
	return t_state;
}

/* Closes the top frame at `now`. */
static inline void pop_frame(struct cct_thread *t, uint64_t now)
{
	struct cct_frame *f = &t->stack[--t->depth];
	uint64_t d = now > f->t0 ? now - f->t0 : 0;
	struct cct_node *n = &t->nodes[f->node];
	n->incl_ticks += d;
	n->excl_ticks += d > f->child_ticks ? d - f->child_ticks : 0;
	t->stack[t->depth - 1].child_ticks += d;
}

/* Closes every open frame at `now`: the time they were open so far is counted. */
static void close_all_frames(struct cct_thread *t, uint64_t now)
{
	while (t->depth > 1)
		pop_frame(t, now);
}

/* pthread key destructor: runs at thread exit, after the start routine's exit hook. */
static void thread_finish(void *arg)
{
	struct cct_thread *t = arg;
	if (!t || t->off)
		return;
	t->off = 1;
	close_all_frames(t, now_ticks());
}

static uint32_t hash_key(uint32_t parent, uintptr_t fn, uintptr_t site)
{
	uint64_t h = (uint64_t)fn * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t)site * 0xc2b2ae3d27d4eb4full;
	h ^= (uint64_t)parent * 0x165667b19e3779f9ull;
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* The kids[] slot of a call site: call instructions are at least 2 bytes apart, so the
 * low bits of nearby sites differ. */
static inline uint32_t kid_slot(uintptr_t site)
{
	return (uint32_t)(site ^ (site >> 2)) & (KID_SLOTS - 1);
}

/* Returns the child of `parent` for (fn, site), creating it as a node at frame depth
 * `depth`; 0 when the pool is full. Behind the kids[] cache of the hooks. */
static COLD uint32_t child_get(struct cct_thread *t, uint32_t parent, uintptr_t fn, uintptr_t site,
			       uint32_t depth)
{
	uint32_t i = hash_key(parent, fn, site) & t->hash_mask;
	for (;;) {
		uint32_t id = t->hash[i];
		if (id == 0)
			break;
		struct cct_node *n = &t->nodes[id];
		if (n->fn == fn && n->site == site && n->parent == parent)
			return id;
		i = (i + 1) & t->hash_mask;
	}
	if (t->n_nodes >= t->cap_nodes)
		return 0;
	uint32_t id = t->n_nodes++;
	struct cct_node *n = &t->nodes[id];
	memset(n, 0, sizeof *n); /* after a fork the pool is reused */
	n->fn = fn;
	n->site = site;
	n->parent = parent;
	t->hash[i] = id;
	if (depth + 1 > t->max_depth)
		t->max_depth = depth + 1;
	return id;
}

/* Opens a frame for node `id` on top of the stack; the clock `kind` is read last, so that
 * the hook's own cost is mostly outside the call. Without a clock the times of a frame
 * are not kept: t0 and child_ticks stay 0 (pop_frame() then adds 0). */
static inline __attribute__((always_inline)) void
frame_open(struct cct_thread *t, uint32_t id, uintptr_t fn, uintptr_t site, uintptr_t sp, int kind)
{
	t->nodes[id].calls++;
	struct cct_frame *f = &t->stack[t->depth++];
	f->sp = sp;
	f->fn = fn;
	f->site = site;
	f->node = id;
	if (kind != RT_CLOCK_NONE) {
		f->child_ticks = 0;
		f->t0 = clock_read(kind);
	}
}

/* The entry hook's general case, with the guard not held: the thread's first hook, a
 * thread that is not profiled, frames left by longjmp, the shadow stack bound, a child
 * that is new or not in its parent's cache. */
static COLD void enter_slow(struct cct_thread *t, uintptr_t fn, uintptr_t site, uintptr_t sp)
{
	if (!t)
		t = thread_start();
	if (t->busy | t->off)
		return;
	t->busy = 1;
	SIGNAL_FENCE();
	/* A frame at or below the new one cannot be its caller: it was left by longjmp. */
	if (t->stack[t->depth - 1].sp <= sp) {
		uint64_t now = now_ticks();
		t->overflow = 0;
		while (t->depth > 1 && t->stack[t->depth - 1].sp <= sp)
			pop_frame(t, now);
	}
	if (t->depth >= t->cap_depth) {
		t->overflow++;
		t->lost_calls++;
		t->truncated = 1;
		goto out;
	}
	uint32_t parent = t->stack[t->depth - 1].node;
	uint32_t *slot = &t->nodes[parent].kids[kid_slot(site)];
	uint32_t id = *slot;
	if (t->nodes[id].fn != fn || t->nodes[id].site != site) {
		id = child_get(t, parent, fn, site, t->depth);
		if (!id) {
			t->off = 1;
			t->truncated = 1;
			t->pool_full = 1;
			t->off_ticks = now_ticks();
			goto out;
		}
		*slot = id;
	}
	frame_open(t, id, fn, site, sp, g_clock);
out:
	SIGNAL_FENCE();
	t->busy = 0;
}

/* The exit hook's general case, with the guard not held: unrecorded frames beyond the
 * bound, frames skipped by longjmp or an unwinder, an exit whose stack pointer differs
 * from its entry's. */
static COLD void exit_slow(struct cct_thread *t, uintptr_t fn, uintptr_t sp, uint64_t now)
{
	if (!t || (t->busy | t->off))
		return;
	t->busy = 1;
	SIGNAL_FENCE();
	if (t->overflow) {
		if (sp < t->stack[t->depth - 1].sp) { /* an unrecorded frame beyond the bound */
			t->overflow--;
			goto out;
		}
		t->overflow = 0; /* left the unrecorded region (return or longjmp) */
	}
	/* Frames deeper than the current one were left by longjmp or an unwinder that did
	 * not run their exit hooks: close them now. */
	uintptr_t last_popped = 0;
	while (t->depth > 1 && t->stack[t->depth - 1].sp < sp) {
		last_popped = t->stack[t->depth - 1].fn;
		pop_frame(t, now);
	}
	if (last_popped != fn && t->depth > 1 && t->stack[t->depth - 1].fn == fn)
		pop_frame(t, now);
out:
	SIGNAL_FENCE();
	t->busy = 0;
}

/* ---- hooks --------------------------------------------------------------------------- */

/* Each hook handles the usual case inline and hands everything else, before it has
 * changed anything, to its _slow function: a tail call, so that the usual case needs no
 * saved registers. hook_enter() and hook_exit() are instantiated once per clock `kind`
 * (a constant): the calls-only copy reads no clock and keeps no times. */

static inline __attribute__((always_inline)) void hook_enter(uintptr_t fn, uintptr_t site,
							     uintptr_t sp, int kind)
{
	struct cct_thread *t = t_state; /* the one TLS access */
	if (UNLIKELY(!t || (t->busy | t->off)))
		goto slow;
	/* The root frame's sp is UINTPTR_MAX: this tests longjmp only. */
	struct cct_frame *top = &t->stack[t->depth - 1];
	if (UNLIKELY(top->sp <= sp || t->depth >= t->cap_depth))
		goto slow;
	uint32_t id = t->nodes[top->node].kids[kid_slot(site)];
	/* Node 0 (an empty slot) has fn 0, which no function has. */
	if (UNLIKELY(t->nodes[id].fn != fn || t->nodes[id].site != site))
		goto slow;
	t->busy = 1;
	SIGNAL_FENCE();
	frame_open(t, id, fn, site, sp, kind);
	SIGNAL_FENCE();
	t->busy = 0;
	return;
slow:
	enter_slow(t, fn, site, sp);
}

static inline __attribute__((always_inline)) void hook_exit(uintptr_t fn, uintptr_t sp, int kind)
{
	uint64_t now = clock_read(kind); /* first, so that the hook's own cost is mostly outside */
	struct cct_thread *t = t_state;
	if (UNLIKELY(!t || (t->busy | t->off)))
		return;
	/* The usual return: the top frame, same stack pointer, nothing beyond the bound. The
	 * root frame (fn 0, sp UINTPTR_MAX) never matches. */
	struct cct_frame *top = &t->stack[t->depth - 1];
	if (UNLIKELY(top->sp != sp || top->fn != fn || t->overflow)) {
		exit_slow(t, fn, sp, now);
		return;
	}
	t->busy = 1;
	SIGNAL_FENCE();
	if (kind == RT_CLOCK_NONE)
		t->depth--;
	else
		pop_frame(t, now);
	SIGNAL_FENCE();
	t->busy = 0;
}

/* The monotonic clock's copies, out of line: its clock_gettime() call needs saved
 * registers, which would otherwise be pushed in the other copies too. */
static __attribute__((noinline)) void enter_monotonic(uintptr_t fn, uintptr_t site, uintptr_t sp)
{
	hook_enter(fn, site, sp, RT_CLOCK_MONOTONIC);
}

static __attribute__((noinline)) void exit_monotonic(uintptr_t fn, uintptr_t sp)
{
	hook_exit(fn, sp, RT_CLOCK_MONOTONIC);
}

EXPORT void __cyg_profile_func_enter(void *fn, void *site);
EXPORT void __cyg_profile_func_exit(void *fn, void *site);

/* The stack pointer is taken here, in the exported hook, in every copy. */
HOT void __cyg_profile_func_enter(void *fn_, void *site_)
{
	uintptr_t fn = (uintptr_t)fn_, site = (uintptr_t)site_;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	int kind = __atomic_load_n(&g_clock, __ATOMIC_RELAXED);
	if (LIKELY(kind == RT_CLOCK_TSC))
		hook_enter(fn, site, sp, RT_CLOCK_TSC);
	else if (kind == RT_CLOCK_NONE)
		hook_enter(fn, site, sp, RT_CLOCK_NONE);
	else
		enter_monotonic(fn, site, sp);
}

HOT void __cyg_profile_func_exit(void *fn_, void *site_)
{
	(void)site_;
	uintptr_t fn = (uintptr_t)fn_, sp = (uintptr_t)__builtin_frame_address(0);
	int kind = __atomic_load_n(&g_clock, __ATOMIC_RELAXED);
	if (LIKELY(kind == RT_CLOCK_TSC))
		hook_exit(fn, sp, RT_CLOCK_TSC);
	else if (kind == RT_CLOCK_NONE)
		hook_exit(fn, sp, RT_CLOCK_NONE);
	else
		exit_monotonic(fn, sp);
}

/* ---- writing ------------------------------------------------------------------------- */

struct out_buf {
	int fd, failed;
	size_t len;
	char data[1 << 16];
};

static struct out_buf g_buf; /* used only under g_writing */

static void buf_flush(struct out_buf *b)
{
	size_t off = 0;
	while (off < b->len && !b->failed) {
		ssize_t w = write(b->fd, b->data + off, b->len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			b->failed = 1;
		else
			off += (size_t)w;
	}
	b->len = 0;
}

static void buf_mem(struct out_buf *b, const char *s, size_t n)
{
	while (n) {
		size_t room = sizeof b->data - b->len;
		size_t k = n < room ? n : room;
		memcpy(b->data + b->len, s, k);
		b->len += k;
		s += k;
		n -= k;
		if (b->len == sizeof b->data)
			buf_flush(b);
	}
}

static void buf_str(struct out_buf *b, const char *s)
{
	buf_mem(b, s, strlen(s));
}

static void buf_u64(struct out_buf *b, uint64_t v)
{
	char tmp[24];
	int i = (int)sizeof tmp;
	do
		tmp[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	buf_mem(b, tmp + i, sizeof tmp - (size_t)i);
}

static void buf_hex(struct out_buf *b, uint64_t v)
{
	char tmp[24];
	int i = (int)sizeof tmp;
	do
		tmp[--i] = "0123456789abcdef"[v & 15];
	while ((v >>= 4) != 0);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	buf_mem(b, tmp + i, sizeof tmp - (size_t)i);
}

/* Appends "<s><u64>" to a bounded path buffer; returns the new length or -1. */
static int path_add(char *dst, size_t cap, size_t len, const char *s, uint64_t v, int with_v)
{
	size_t n = strlen(s);
	if (len + n + 21 >= cap)
		return -1;
	memcpy(dst + len, s, n);
	len += n;
	if (with_v) {
		char tmp[24];
		int i = (int)sizeof tmp;
		do
			tmp[--i] = (char)('0' + v % 10);
		while ((v /= 10) != 0);
		memcpy(dst + len, tmp + i, sizeof tmp - (size_t)i);
		len += sizeof tmp - (size_t)i;
	}
	dst[len] = '\0';
	return (int)len;
}

static void write_maps(struct out_buf *b)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char chunk[4096];
	int at_line_start = 1;
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof chunk);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r; i++) {
			if (at_line_start)
				buf_str(b, CCT_TAG_MAP " ");
			buf_mem(b, &chunk[i], 1);
			at_line_start = chunk[i] == '\n';
		}
	}
	if (!at_line_start)
		buf_str(b, "\n");
	close(fd);
}

static uint64_t to_ns(uint64_t ticks, double ns_per_tick)
{
	return g_clock == RT_CLOCK_TSC ? (uint64_t)((double)ticks * ns_per_tick) : ticks;
}

static void write_thread(struct out_buf *b, struct cct_thread *t, double ns_per_tick)
{
	buf_str(b, CCT_TAG_THREAD " ");
	buf_u64(b, (uint64_t)t->tid);
	buf_str(b, " ");
	buf_u64(b, t->n_nodes);
	buf_str(b, " ");
	buf_u64(b, (uint64_t)t->truncated);
	buf_str(b, " ");
	buf_u64(b, t->lost_calls);
	buf_str(b, " ");
	buf_u64(b, t->max_depth ? t->max_depth - 1 : 0);
	buf_str(b, "\n");
	/* The root's inclusive time is what its children accumulated. */
	t->nodes[0].incl_ticks = t->stack[0].child_ticks;
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		const struct cct_node *n = &t->nodes[i];
		buf_str(b, CCT_TAG_NODE " ");
		buf_u64(b, i);
		buf_str(b, " ");
		buf_u64(b, n->parent);
		buf_str(b, " ");
		buf_hex(b, n->fn);
		buf_str(b, " ");
		buf_hex(b, n->site);
		buf_str(b, " ");
		buf_u64(b, n->calls);
		buf_str(b, " ");
		buf_u64(b, to_ns(n->incl_ticks, ns_per_tick));
		buf_str(b, " ");
		buf_u64(b, to_ns(n->excl_ticks, ns_per_tick));
		buf_str(b, "\n");
	}
}

/* Writes the whole profile of this process image. `reason` and `sig` go to the reason
 * line. Async-signal-safe in practice (open/read/write/rename only); a second writer at
 * the same time (a signal during the exit write) returns without writing. */
static void profile_write(const char *reason, int sig)
{
	int saved_errno = errno;
	int expected = 0;
	/* Before setup there is no destination yet; in a privileged program there is none. */
	if (!__atomic_load_n(&g_may_write, __ATOMIC_ACQUIRE) ||
	    !__atomic_compare_exchange_n(&g_writing, &expected, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		goto out_errno;
	uint64_t now = now_ticks();
	double ns_per_tick = 1.0;
#if defined(__x86_64__)
	if (g_clock == RT_CLOCK_TSC) {
		uint64_t mono = mono_ns(), tsc = __rdtsc();
		if (tsc > g_tsc0 && mono > g_mono0)
			ns_per_tick = (double)(mono - g_mono0) / (double)(tsc - g_tsc0);
	}
#endif
	/* Close the open frames of every thread: this one's call stack, and the threads still
	 * running (their hooks stop once `off` is set; a hook already running may race). */
	for (struct cct_thread *t = g_threads; t; t = t->next) {
		if (!t->off) {
			t->off = 1;
			close_all_frames(t, now);
		} else if (t->pool_full) {
			close_all_frames(t, t->off_ticks);
		}
	}

	char path[PATH_MAX], tmp[PATH_MAX];
	int len = path_add(path, sizeof path, 0, g_out, 0, 0);
	if (len >= 0)
		len = path_add(path, sizeof path, (size_t)len, g_out_is_dir ? "/revperf-cct." : ".",
			       (uint64_t)g_pid, 1);
	if (len >= 0)
		len = path_add(path, sizeof path, (size_t)len, ".", g_start_ns, 1);
	if (len >= 0)
		len = path_add(path, sizeof path, (size_t)len, ".cct", 0, 0);
	if (len < 0 || path_add(tmp, sizeof tmp, 0, path, 0, 0) < 0 ||
	    path_add(tmp, sizeof tmp, (size_t)len, ".tmp", 0, 0) < 0)
		goto out_unlock;
	struct out_buf *b = &g_buf;
	b->fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (b->fd < 0)
		goto out_unlock;
	b->failed = 0;
	b->len = 0;
	buf_str(b, CCT_FORMAT_MAGIC " ");
	buf_u64(b, CCT_FORMAT_VERSION);
	buf_str(b, "\n" CCT_TAG_PID " ");
	buf_u64(b, (uint64_t)g_pid);
	buf_str(b, "\n" CCT_TAG_PPID " ");
	buf_u64(b, (uint64_t)getppid());
	char exe[PATH_MAX];
	ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (el > 0) {
		buf_str(b, "\n" CCT_TAG_EXE " ");
		buf_mem(b, exe, (size_t)el);
	}
	buf_str(b, "\n" CCT_TAG_CLOCK " ");
	buf_str(b, g_clock == RT_CLOCK_TSC    ? CCT_CLOCK_NAME_TSC
		   : g_clock == RT_CLOCK_NONE ? CCT_CLOCK_NAME_NONE
					      : CCT_CLOCK_NAME_MONOTONIC);
	buf_str(b, "\n" CCT_TAG_REASON " ");
	buf_str(b, reason);
	if (sig) {
		buf_str(b, " ");
		buf_u64(b, (uint64_t)sig);
	}
	buf_str(b, "\n");
	write_maps(b);
	for (struct cct_thread *t = g_threads; t; t = t->next)
		write_thread(b, t, ns_per_tick);
	buf_str(b, CCT_TAG_END "\n");
	buf_flush(b);
	int failed = b->failed;
	close(b->fd);
	if (failed || rename(tmp, path) != 0)
		unlink(tmp);
out_unlock:
	__atomic_store_n(&g_writing, 0, __ATOMIC_RELEASE);
out_errno:
	errno = saved_errno;
}

/* ---- process events ------------------------------------------------------------------ */

static struct sigaction g_old_action[65];

/* Blocks this thread's hooks outside the hooks (writing the file, exec). Returns the
 * state to give guard_restore() with the guard's previous value in *was_busy. */
static struct cct_thread *guard_block(int *was_busy)
{
	struct cct_thread *t = t_state;
	*was_busy = 0;
	if (!t)
		t_state = &g_creating;
	else if (t != &g_dead && t != &g_creating) {
		*was_busy = t->busy;
		t->busy = 1;
	}
	SIGNAL_FENCE();
	return t;
}

static void guard_restore(struct cct_thread *t, int was_busy)
{
	SIGNAL_FENCE();
	if (!t)
		t_state = NULL;
	else if (t != &g_dead && t != &g_creating)
		t->busy = was_busy;
}

static void on_fatal_signal(int sig)
{
	int busy;
	guard_block(&busy); /* the handler runs on some thread: no hooks while writing */
	profile_write("signal", sig);
	/* Re-raise with the disposition the program had (the default: we only install over
	 * SIG_DFL), so that it dies exactly as it would have without us. */
	sigaction(sig, &g_old_action[sig], NULL);
	raise(sig);
}

static void install_signal_handlers(void)
{
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
		int sig = fatal_signals[i];
		struct sigaction old;
		if (sigaction(sig, NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		g_old_action[sig] = old;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESETHAND | SA_NODEFER;
		sigaction(sig, &sa, NULL);
	}
}

/* In the child of fork: only the forking thread exists. Its tree restarts from the call
 * stack active at fork (those frames get nodes with 0 calls); the child writes its own
 * file, named with its own pid. */
static void on_fork_child(void)
{
	g_pid = getpid();
	g_start_ns = mono_ns();
	g_writing = 0;
	struct cct_thread *t = thread_self();
	if (!t) {
		g_threads = NULL;
		return;
	}
	t->next = NULL;
	g_threads = t;
	t->tid = g_pid;
	memset(t->hash, 0, ((size_t)t->hash_mask + 1) * sizeof(uint32_t));
	memset(&t->nodes[0], 0, sizeof t->nodes[0]);
	t->n_nodes = 1;
	t->lost_calls = 0;
	t->truncated = t->overflow != 0;
	t->off = 0;
	t->pool_full = 0;
	t->off_ticks = 0;
	uint64_t now = now_ticks();
	t->stack[0].child_ticks = 0;
	t->max_depth = 1;
	for (uint32_t d = 1; d < t->depth; d++) {
		struct cct_frame *f = &t->stack[d];
		/* The pool holds at least as many nodes as the parent had open frames. */
		f->node = child_get(t, t->stack[d - 1].node, f->fn, f->site, d);
		f->t0 = now;
		f->child_ticks = 0;
	}
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);

EXPORT int execve(const char *path, char *const argv[], char *const envp[]);
EXPORT int execv(const char *path, char *const argv[]);
EXPORT int execvp(const char *file, char *const argv[]);
EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]);

/* Looks up the next definition of an interposed name; NULL when there is none. */
static void *next_symbol(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* Before exec the profile is written; if exec fails, profiling goes on and the file is
 * written again (complete) at exit. Errno is what the real function set. */
#define BEFORE_EXEC()                                                                              \
	do {                                                                                       \
		int busy;                                                                          \
		struct cct_thread *self = guard_block(&busy);                                      \
		profile_write("exec", 0);                                                          \
		for (struct cct_thread *t = g_threads; t; t = t->next)                             \
			if (!t->pool_full)                                                         \
				t->off = 0;                                                        \
		guard_restore(self, busy);                                                         \
	} while (0)

int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn real = (execve_fn)next_symbol("execve");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	BEFORE_EXEC();
	return real(path, argv, envp);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn real = (execve_fn)next_symbol("execvpe");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	BEFORE_EXEC();
	return real(file, argv, envp);
}

int execv(const char *path, char *const argv[])
{
	execv_fn real = (execv_fn)next_symbol("execv");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	BEFORE_EXEC();
	return real(path, argv);
}

int execvp(const char *file, char *const argv[])
{
	execv_fn real = (execv_fn)next_symbol("execvp");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	BEFORE_EXEC();
	return real(file, argv);
}

/* Parses a positive decimal environment value within [lo, hi]; `dflt` otherwise. */
static uint32_t env_u32(const char *name, uint32_t dflt, uint32_t lo, uint32_t hi)
{
	const char *s = secure_getenv(name);
	if (!s || !*s)
		return dflt;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return dflt;
	return (uint32_t)v;
}

/* True when the CPU says the TSC is invariant (constant_tsc and nonstop_tsc). */
static int tsc_usable(void)
{
#if defined(__x86_64__)
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	static char info[1 << 15];
	ssize_t n = read(fd, info, sizeof info - 1);
	close(fd);
	if (n <= 0)
		return 0;
	info[n] = '\0';
	return strstr(info, " constant_tsc") && strstr(info, " nonstop_tsc");
#else
	return 0;
#endif
}

/* True when the process has privileges its user lacks: set-user-ID or set-group-ID (also
 * after it dropped them again), or file capabilities. The kernel's AT_SECURE covers all;
 * the ids are compared too, for kernels or loaders that do not pass it. */
static int runs_privileged(void)
{
	return getauxval(AT_SECURE) != 0 || getuid() != geteuid() || getgid() != getegid();
}

/* The note of a privileged program, once, without stdio. glibc opens /dev/null on a
 * closed descriptor 0-2 before a privileged program starts, so descriptor 2 is never a
 * file the program opened itself. */
static void say_privileged(void)
{
	static const char msg[] =
	    "revperf-cct: this program runs with privileges its user does not have (set-user-ID, "
	    "set-group-ID or file capabilities): it is not profiled, no profile is written and "
	    "REVPERF_CCT_OUT is ignored\n";
	ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
	(void)n;
}

/* Reads the environment, picks the clock, installs the handlers: once per process, from
 * the library constructor or from the first hook if instrumented code (another library's
 * constructor) runs before it, so that every timestamp comes from one clock. In a
 * privileged program only the note is written: no clock, no handler, no profile. */
static void runtime_setup(void)
{
	int saved_errno = errno;
	int busy;
	struct cct_thread *self = guard_block(&busy);
	g_pid = getpid();
	g_start_ns = mono_ns();
	if (runs_privileged()) {
		g_privileged = 1;
		say_privileged();
		guard_restore(self, busy);
		errno = saved_errno;
		return;
	}
	const char *out = secure_getenv("REVPERF_CCT_OUT");
	if (!out || !*out)
		out = ".";
	size_t n = strlen(out);
	if (n < sizeof g_out - 64) {
		memcpy(g_out, out, n + 1);
		int fd = open(g_out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		g_out_is_dir = fd >= 0;
		if (fd >= 0)
			close(fd);
	} else {
		memcpy(g_out, ".", 2);
		g_out_is_dir = 1;
	}
	g_cap_nodes = env_u32("REVPERF_CCT_NODES", DEFAULT_NODES, 16, MAX_NODES);
	g_cap_depth = env_u32("REVPERF_CCT_DEPTH", DEFAULT_DEPTH, 4, MAX_DEPTH);
	/* REVPERF_CCT_CLOCK=none: calls only; =monotonic: clock_gettime; else the TSC when it
	 * is invariant. */
	const char *clock = secure_getenv("REVPERF_CCT_CLOCK");
	int kind = RT_CLOCK_TSC;
	if (clock && strcmp(clock, CCT_CLOCK_NAME_NONE) == 0)
		kind = RT_CLOCK_NONE;
	else if ((clock && strcmp(clock, CCT_CLOCK_NAME_MONOTONIC) == 0) || !tsc_usable())
		kind = RT_CLOCK_MONOTONIC;
	__atomic_store_n(&g_clock, kind, __ATOMIC_RELAXED);
#if defined(__x86_64__)
	if (kind == RT_CLOCK_TSC) {
		g_mono0 = mono_ns();
		g_tsc0 = __rdtsc();
	}
#endif
	g_key_ok = pthread_key_create(&g_key, thread_finish) == 0;
	pthread_atfork(NULL, NULL, on_fork_child);
	install_signal_handlers();
	__atomic_store_n(&g_may_write, 1, __ATOMIC_RELEASE);
	guard_restore(self, busy);
	errno = saved_errno;
}

__attribute__((constructor)) static void cct_init(void)
{
	pthread_once(&g_setup_once, runtime_setup);
}

__attribute__((destructor)) static void cct_fini(void)
{
	int busy;
	struct cct_thread *self = guard_block(&busy);
	profile_write("exit", 0);
	guard_restore(self, busy);
}
