#ifndef REVPERF_COLLECT_IOTRACE_IMPL_H
#define REVPERF_COLLECT_IOTRACE_IMPL_H

/*
 * Internals of the I/O tracer shared by iotrace.c (the ptrace loop), iotrace_table.c
 * (interned strings, aggregation) and iotrace_unwind.c (stacks). Not for other modules.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/filter.h>
#include <sys/user.h>

#include "collect/iotrace.h"

/*
 * ---- the architecture: its registers as ptrace gives them (PTRACE_GETREGS) ----
 * Only x86-64 is implemented; elsewhere IOTRACE_ARCH_SUPPORTED is 0 and iotrace_run()
 * refuses to run, so that the rest compiles unchanged.
 */
#if defined(__x86_64__)
#include <linux/audit.h>
#define IOTRACE_ARCH_SUPPORTED 1
#define IOTRACE_AUDIT_ARCH AUDIT_ARCH_X86_64
typedef struct user_regs_struct iotrace_regs;
/* The system call number at a seccomp stop, and its first argument. */
static inline long iotrace_regs_nr(const iotrace_regs *r)
{
	return (long)r->orig_rax;
}
static inline uint64_t iotrace_regs_arg0(const iotrace_regs *r)
{
	return r->rdi;
}
static inline uint64_t iotrace_regs_pc(const iotrace_regs *r)
{
	return r->rip;
}
static inline uint64_t iotrace_regs_sp(const iotrace_regs *r)
{
	return r->rsp;
}
static inline uint64_t iotrace_regs_fp(const iotrace_regs *r)
{
	return r->rbp;
}
/* DWARF numbers of the stack pointer, the frame pointer and the return address column. */
#define IOTRACE_DWARF_SP 7
#define IOTRACE_DWARF_FP 6
#define IOTRACE_DWARF_RA 16
/* Where PTRACE_PEEKUSER finds the return value at a syscall-exit stop. */
#define IOTRACE_RETVAL_OFFSET offsetof(struct user_regs_struct, rax)
/* The DWARF registers 0-16 of the x86-64 psABI: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip. */
#define IOTRACE_DWARF_NREGS 17
static inline void iotrace_regs_dwarf(const iotrace_regs *r, uint64_t w[IOTRACE_DWARF_NREGS])
{
	const uint64_t v[IOTRACE_DWARF_NREGS] = {r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi,
						 r->rbp, r->rsp, r->r8,	 r->r9,	 r->r10, r->r11,
						 r->r12, r->r13, r->r14, r->r15, r->rip};

	for (int i = 0; i < IOTRACE_DWARF_NREGS; i++)
		w[i] = v[i];
}
#else
#define IOTRACE_ARCH_SUPPORTED 0
#define IOTRACE_AUDIT_ARCH 0
typedef struct {
	uint64_t pc;
} iotrace_regs;
static inline long iotrace_regs_nr(const iotrace_regs *r)
{
	(void)r;
	return -1;
}
static inline uint64_t iotrace_regs_arg0(const iotrace_regs *r)
{
	(void)r;
	return 0;
}
static inline uint64_t iotrace_regs_pc(const iotrace_regs *r)
{
	return r->pc;
}
static inline uint64_t iotrace_regs_sp(const iotrace_regs *r)
{
	(void)r;
	return 0;
}
static inline uint64_t iotrace_regs_fp(const iotrace_regs *r)
{
	(void)r;
	return 0;
}
#define IOTRACE_DWARF_SP -1
#define IOTRACE_DWARF_FP -1
#define IOTRACE_DWARF_RA -1
#define IOTRACE_RETVAL_OFFSET 0
#define IOTRACE_DWARF_NREGS 1
static inline void iotrace_regs_dwarf(const iotrace_regs *r, uint64_t w[IOTRACE_DWARF_NREGS])
{
	w[0] = r->pc;
}
#endif

/* ---- the program's start (iotrace_spawn.c) ---- */

struct iotrace_call {
	long nr;
	const char *name; /* "write", ... */
	enum iotrace_dir dir;
};

/* The traced call numbered nr (with reads: the read family too), or NULL. */
const struct iotrace_call *iotrace_call_of(long nr, bool reads);

/* The seccomp filter: SECCOMP_RET_TRACE for the traced calls, ALLOW for the rest. */
#define IOTRACE_FILTER_MAX 24
void iotrace_filter_build(bool reads, struct sock_filter prog[IOTRACE_FILTER_MAX],
			  struct sock_fprog *out);

/* What the child reports through its close-on-exec pipe when it cannot start the program. */
enum iotrace_stage {
	IOTRACE_STAGE_STDIO = 1,
	IOTRACE_STAGE_CWD,
	IOTRACE_STAGE_PTRACE,
	IOTRACE_STAGE_SECCOMP,
	IOTRACE_STAGE_EXEC
};
struct iotrace_child_report {
	int stage;
	int err;
};

/*
 * In the forked child: own process group, stdio and directory from opts, PTRACE_TRACEME,
 * a SIGSTOP for the tracer to set its options, PR_SET_NO_NEW_PRIVS, the filter, execvp().
 * Only async-signal-safe calls. Never returns: on failure it writes a report to
 * report_fd (close-on-exec) and exits 127.
 */
_Noreturn void iotrace_child_main(char *const argv[], const struct iotrace_options *opts,
				  const struct sock_fprog *filter, int report_fd);
/* Reads the child's report: true when there is one (the child failed), false at EOF. */
bool iotrace_child_report_read(int fd, struct iotrace_child_report *rep);

/* ---- the live process tree (iotrace_tree.c) ---- */

#define IOTRACE_BUCKETS 1024 /* of the live thread and process tables (chained) */

/* A live process of the tree. */
struct iotrace_tproc {
	pid_t tgid;
	size_t idx;	     /* in res->procs */
	bool exec_seen;	     /* false for the tracer's own child until it execs the program */
	bool leader_gone;    /* its leader's exit was seen */
	unsigned nr_threads; /* live tracees that belong to it */
	struct iotrace_unwinder *unw; /* made at its first traced call after an exec */
	struct iotrace_tproc *next;
};

/* A live task (thread) of the tree. */
struct iotrace_tracee {
	pid_t tid;
	struct iotrace_tproc *proc;
	bool seen;    /* its attach SIGSTOP was consumed */
	bool in_call; /* between a seccomp stop and the syscall-exit stop of that call */
	bool restart; /* its last call exited with ERESTART*: re-entered, or EINTR */
	long call_nr;
	size_t call_entry;
	struct iotrace_tracee *next;
};

struct iotrace_tree {
	struct iotrace_result *res; /* whose procs[] grows as processes appear */
	size_t procs_alloc;
	struct iotrace_tracee *threads[IOTRACE_BUCKETS];
	struct iotrace_tproc *procs[IOTRACE_BUCKETS];
	size_t nr_threads;
};

/* The live task tid, or NULL. */
struct iotrace_tracee *iotrace_tree_thread(struct iotrace_tree *tree, pid_t tid);
/* The live process tgid, or NULL. */
struct iotrace_tproc *iotrace_tree_proc(struct iotrace_tree *tree, pid_t tgid);
/* A new live process, and its entry in tree->res->procs (exe read from /proc). */
struct iotrace_tproc *iotrace_tree_proc_add(struct iotrace_tree *tree, pid_t tgid, pid_t ppid,
					    bool exec_seen);
/* Forgets a live process and frees its unwinder (its result entry stays). */
void iotrace_tree_proc_free(struct iotrace_tree *tree, struct iotrace_tproc *p);
struct iotrace_tracee *iotrace_tree_thread_add(struct iotrace_tree *tree, pid_t tid,
					       struct iotrace_tproc *p);
/* Forgets a task; its process too when that was the last task and the leader is gone. */
void iotrace_tree_thread_remove(struct iotrace_tree *tree, struct iotrace_tracee *t);
/*
 * A task we learn about, from its first stop (creator 0) or from its creator's event
 * (whichever comes first): a thread of a known process, or a new process
 * (/proc/TID/status says which). From an event, NULL when the task is not alive and
 * traced by the calling thread (it exited before the event was seen).
 */
struct iotrace_tracee *iotrace_tree_task_new(struct iotrace_tree *tree, pid_t tid, pid_t creator);
/* readlink("/proc/PID/exe"), or NULL when it cannot be read. Caller frees. */
char *iotrace_read_exe(pid_t pid);
/* Whether a process still runs (neither gone nor a zombie). */
bool iotrace_proc_running(pid_t pid);

/* ---- interned strings (iotrace_table.c) ---- */

/* A new empty set. Free with iotrace_strings_free(). */
struct iotrace_strings *iotrace_strings_new(void);
/* Every string handed out is freed; accepts NULL. */
void iotrace_strings_free(struct iotrace_strings *s);
/*
 * The one copy of the `len` bytes at str (NUL-terminated in the copy), owned by the set:
 * equal strings give equal pointers, so that keys compare by pointer.
 */
const char *iotrace_strings_intern(struct iotrace_strings *s, const char *str, size_t len);

/* ---- aggregation per (direction, call, file, stack) (iotrace_table.c) ---- */

struct iotrace_key {
	enum iotrace_dir dir;
	const char *syscall;		    /* static */
	const char *file;		    /* interned */
	const struct iotrace_frame *frames; /* modules interned */
	size_t nr_frames;
	bool truncated;
};

struct iotrace_table {
	struct iotrace_entry *entries;
	size_t nr, alloc;
	uint64_t *hashes; /* of entries[i], for rehashing and quick compare */
	size_t alloc_hashes;
	uint32_t *slots; /* open addressing: entry index + 1, 0 = empty */
	size_t nr_slots; /* a power of two */
};

void iotrace_table_init(struct iotrace_table *t);
/* Frees the entries and their frames that were not taken; accepts a released table. */
void iotrace_table_release(struct iotrace_table *t);
/* The index of the entry of key, added with zero counts (frames copied) when new. */
size_t iotrace_table_get(struct iotrace_table *t, const struct iotrace_key *key);
/*
 * Hands the entries over, sorted by bytes, then calls, descending (the caller frees each
 * frames array and the array), and empties t.
 */
void iotrace_table_take(struct iotrace_table *t, struct iotrace_entry **entries, size_t *nr);

/* ---- stacks (iotrace_unwind.c) ---- */

/*
 * The unwinder of one process (thread group): a libdwfl session with the modules of its
 * memory map, reported at creation and again when a frame's address is in no known
 * module (backing off when that finds nothing new); the stack memory is read with
 * process_vm_readv() in pages, cached for one unwind. Frames whose call frame information
 * is simple (the CFA is the stack or frame pointer plus a constant, the return address
 * and the saved frame pointer at constant offsets from it: nearly all compiled code) are
 * unwound by a small interpreter of those rules, cached per address; any other frame
 * sends the whole stack to libdwfl's unwinder. Create again after an exec.
 */
struct iotrace_unwinder;

/* How the stacks were unwound (iotrace_result). */
struct iotrace_unwind_stats {
	uint64_t fast, libdw, mismatches;
};

/*
 * Never NULL; a process whose modules cannot be read yields one-frame stacks. With
 * verify, every stack the fast path unwinds is unwound by libdwfl too and a difference
 * counted in stats->mismatches (for tests: twice the cost). stats is updated until the
 * unwinder is freed.
 */
struct iotrace_unwinder *iotrace_unwinder_new(pid_t tgid, struct iotrace_strings *strings,
					      bool verify, struct iotrace_unwind_stats *stats);
void iotrace_unwinder_free(struct iotrace_unwinder *u);

/*
 * The stack of thread tid whose user registers are regs: at most max frames into frames[]
 * (innermost first, see struct iotrace_frame), *truncated when there were more. Returns
 * the number of frames (0 only when max is 0). No ptrace request is made: the thread may
 * run meanwhile, as long as it does not run user code (it is in a system call), so that
 * its stack stays as regs describe it.
 */
size_t iotrace_unwind(struct iotrace_unwinder *u, pid_t tid, const iotrace_regs *regs,
		      struct iotrace_frame *frames, size_t max, bool *truncated);

#endif
