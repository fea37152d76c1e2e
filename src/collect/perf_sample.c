/*
 * The sampling recorder (collect/perf_sample.h, docs/sampling.md): perf_event_open on a
 * process tree, ring buffers drained into a raw file.
 */
#include "collect/perf_sample.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "binary/frame_pointers.h"
#include "collect/cmdline.h"
#include "util/fsutil.h"
#include "util/common.h"

#if defined(__x86_64__)
/* sample_regs_user: AX BX CX DX SI DI BP SP IP and R8-R15 (asm/perf_regs.h numbering). */
#define REGS_MASK UINT64_C(0xff01ff)
/* fp: BP SP IP, all that unwinding the innermost frames reads (their CFA is SP or BP based). */
#define FP_REGS_MASK UINT64_C(0x1c0)
#else
#define REGS_MASK UINT64_C(0)
#define FP_REGS_MASK UINT64_C(0)
#endif

/* Ring buffers never smaller than this many data pages (the kernel wants a power of 2). */
#define MIN_DATA_PAGES 1
/* Nor larger: 4 MiB per CPU is plenty at 10 kHz with frame pointers. */
#define MAX_DATA_PAGES 1024
/* perf_event_mlock_kb when /proc does not say (the kernel's default). */
#define DEFAULT_MLOCK_KB 516

struct ring {
	int fd;
	void *base; /* the control page, then data_size bytes */
	size_t map_bytes;
	uint64_t data_size;
};

struct perf_recorder {
	struct perf_sample_options o;
	char *path;
	int out_fd;
	int epoll_fd;
	struct ring *rings;
	unsigned nr_rings;
	uint64_t data_bytes; /* per ring */
	struct perf_sample_stats st;
	bool write_error_told;
};

void perf_sample_options_init(struct perf_sample_options *o)
{
	memset(o, 0, sizeof(*o));
	o->frequency_hz = PERF_SAMPLE_DEFAULT_HZ;
	o->event = PERF_SAMPLE_EVENT_CPU_CLOCK;
	o->callgraph = PERF_SAMPLE_CALLGRAPH_AUTO;
	o->stack_bytes = PERF_SAMPLE_DEFAULT_STACK;
}

const char *perf_sample_event_name(enum perf_sample_event e)
{
	return e == PERF_SAMPLE_EVENT_CYCLES ? "cycles" : "cpu-clock";
}

const char *perf_sample_callgraph_name(enum perf_sample_callgraph c)
{
	switch (c) {
	case PERF_SAMPLE_CALLGRAPH_FP: return "fp";
	case PERF_SAMPLE_CALLGRAPH_DWARF: return "dwarf";
	case PERF_SAMPLE_CALLGRAPH_AUTO: break;
	}
	return "auto";
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static unsigned max_stack_frames(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");
	unsigned v = 127;

	if (f) {
		if (fscanf(f, "%u", &v) != 1 || v == 0 || v > 65535)
			v = 127;
		fclose(f);
	}
	return v;
}

static void attr_fill(struct perf_event_attr *a, const struct perf_sample_options *o,
		      enum perf_sample_event ev)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (ev == PERF_SAMPLE_EVENT_CYCLES) {
		a->type = PERF_TYPE_HARDWARE;
		a->config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CPU_CLOCK;
	}
	a->freq = 1;
	a->sample_freq = o->frequency_hz;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CALLCHAIN;
	/*
	 * Frame-pointer mode keeps a small stack copy too: a leaf function without a frame of
	 * its own (gcc -O2 omits it even with -fno-omit-frame-pointer) hides its caller from
	 * the chain, and the copy unwinds those first frames. It needs three registers, not
	 * seventeen (112 bytes less per sample). The copy was measured not to be what puts
	 * this mode above `perf -g` (bench/RESULTS.md, issue 18).
	 */
	if (REGS_MASK) {
		bool dwarf = o->callgraph == PERF_SAMPLE_CALLGRAPH_DWARF;

		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = dwarf ? REGS_MASK : FP_REGS_MASK;
		a->sample_stack_user = dwarf ? o->stack_bytes : PERF_SAMPLE_FP_STACK;
	}
	/*
	 * DWARF mode asks for no user chain, as `perf --call-graph dwarf` (the chain stays in
	 * the record format, empty): walking the frame pointers at every sample is kernel work
	 * charged to the program, 1 to 3 us per sample here (bench/RESULTS.md, issue 18),
	 * and the stack copy gives the frames.
	 */
	if (o->callgraph == PERF_SAMPLE_CALLGRAPH_DWARF && REGS_MASK != 0)
		a->exclude_callchain_user = 1;
	a->sample_max_stack = (uint16_t)(max_stack_frames() > 65535 ? 65535 : max_stack_frames());
	/* What perf_event_paranoid 2 allows an unprivileged user: user space only. */
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->watermark = 1;
}

/* The value of /proc/sys/kernel/perf_event_paranoid, or INT_MIN when unreadable. */
static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = INT_MIN;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = INT_MIN;
		fclose(f);
	}
	return v;
}

/* The Seccomp: line of /proc/self/status (2: a filter), -1 when unknown. */
static int read_seccomp_mode(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int mode = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	fclose(f);
	return mode;
}

#define FALLBACK                                                                                   \
	"attribute with profile = cct (an instrumented build, `revperf profile --cct`) or "        \
	"with the ir metric's attribution (valgrind) instead"

static int refused(int err)
{
	int paranoid = read_paranoid(), seccomp = read_seccomp_mode();
	struct strbuf why = STRBUF_INIT;

	if (err == ENOSYS || err == ENOENT) {
		strbuf_addstr(&why, "this kernel has no perf events (perf_event_open: ");
		strbuf_addstr(&why, strerror(err));
		strbuf_addch(&why, ')');
	} else if (paranoid > 2) {
		strbuf_addf(&why,
			    "kernel.perf_event_paranoid is %d: sampling a program of your own "
			    "needs 2 or less (sysctl kernel.perf_event_paranoid=2) or "
			    "CAP_PERFMON",
			    paranoid);
	} else if (seccomp == 2) {
		strbuf_addf(&why,
			    "a seccomp filter refuses perf_event_open (%s; 'Seccomp: 2' in "
			    "/proc/self/status, as containers install; "
			    "kernel.perf_event_paranoid is %d)",
			    strerror(err), paranoid);
	} else {
		strbuf_addf(&why,
			    "perf_event_open was refused (%s) although "
			    "kernel.perf_event_paranoid is %d (a security module?)",
			    strerror(err), paranoid);
	}
	error("cannot sample here: %s; " FALLBACK, why.buf);
	strbuf_release(&why);
	return RP_EINPUT;
}

int perf_sample_probe(struct perf_sample_options *o, bool *fell_back)
{
	struct perf_event_attr a;
	int fd, err;

	*fell_back = false;
	attr_fill(&a, o, o->event);
	a.enable_on_exec = 0;
	fd = sys_perf_event_open(&a, 0, -1);
	if (fd < 0 && o->event == PERF_SAMPLE_EVENT_CYCLES &&
	    (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV || errno == EINVAL)) {
		o->event = PERF_SAMPLE_EVENT_CPU_CLOCK;
		*fell_back = true;
		attr_fill(&a, o, o->event);
		a.enable_on_exec = 0;
		fd = sys_perf_event_open(&a, 0, -1);
	}
	if (fd < 0) {
		err = errno;
		if (err == EINVAL && o->callgraph == PERF_SAMPLE_CALLGRAPH_DWARF) {
			error("cannot sample here: the kernel refuses user stack copies (EINVAL); "
			      "use "
			      "--call-graph fp");
			return RP_EINPUT;
		}
		return refused(err);
	}
	close(fd);
	return 0;
}

/* ---- which call graph -------------------------------------------------------------- */

/* The file `name` names when exec'd from `cwd` (PATH searched without a slash), in out. */
static bool resolve_program(const char *name, const char *cwd, struct strbuf *out)
{
	const char *path = getenv("PATH");

	strbuf_reset(out);
	if (strchr(name, '/')) {
		if (name[0] != '/' && cwd)
			strbuf_addf(out, "%s/", cwd);
		strbuf_addstr(out, name);
		return !access(out->buf, X_OK);
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");

		strbuf_reset(out);
		if (len && p[0] != '/' && cwd)
			strbuf_addf(out, "%s/", cwd);
		strbuf_add(out, p, len);
		strbuf_addf(out, "/%s", name);
		if (!access(out->buf, X_OK))
			return true;
		p += len;
		if (*p == ':')
			p++;
	}
	return false;
}

/* A script's interpreter ("#!/usr/bin/env python3" -> python3 found in PATH) into prog. */
static bool follow_script(struct strbuf *prog, const char *cwd)
{
	char line[256], *p, *word;
	FILE *f = fopen(prog->buf, "re");
	bool ok = false;

	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f) || strncmp(line, "#!", 2))
		goto out;
	p = line + 2;
	p[strcspn(p, "\n")] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	word = p;
	p += strcspn(p, " \t");
	if (*p)
		*p++ = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (!strcmp(word, "/usr/bin/env") && *p) {
		word = p;
		word[strcspn(word, " \t")] = '\0';
	}
	{
		char copy[256];
		snprintf(copy, sizeof(copy), "%s", word);
		ok = resolve_program(copy, cwd, prog);
	}
out:
	fclose(f);
	return ok;
}

enum perf_sample_callgraph perf_sample_choose(const char *command, const char *cwd,
					      struct strbuf *why)
{
	char **argv = cmdline_split(command);
	struct strbuf prog = STRBUF_INIT;
	size_t fp = 0, fns = 0;
	enum perf_sample_callgraph cg = PERF_SAMPLE_CALLGRAPH_DWARF;

	if (!resolve_program(argv ? argv[0] : "/bin/sh", cwd, &prog)) {
		strbuf_addf(why, "the program '%s' was not found before the run",
			    argv ? argv[0] : "/bin/sh");
		goto out;
	}
	for (int depth = 0; depth < 4 && frame_pointer_count(prog.buf, &fp, &fns); depth++) {
		if (!follow_script(&prog, cwd)) {
			strbuf_addf(why, "%s is not an x86-64 ELF program with function symbols",
				    prog.buf);
			goto out;
		}
	}
	if (!fns) {
		strbuf_addf(why, "%s is stripped: no function symbols to check", prog.buf);
		goto out;
	}
	/* Most: a static program carries libc, built without frame pointers. */
	if (REGS_MASK == 0 || fp * 2 > fns)
		cg = PERF_SAMPLE_CALLGRAPH_FP;
	strbuf_addf(why, "%zu of the %zu functions of %s keep frame pointers", fp, fns, prog.buf);
out:
	cmdline_free(argv);
	strbuf_release(&prog);
	return cg;
}

/* ---- the recorder ------------------------------------------------------------------- */

static size_t page_bytes(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (size_t)p : 4096;
}

/* Data pages per ring: a power of 2 such that the ring and its control page fit in
 * perf_event_mlock_kb, the locked memory the kernel grants an unprivileged user per CPU. */
static size_t ring_data_pages(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");
	unsigned long kb = DEFAULT_MLOCK_KB;
	size_t pages, n = MIN_DATA_PAGES;

	if (f) {
		if (fscanf(f, "%lu", &kb) != 1 || kb == 0)
			kb = DEFAULT_MLOCK_KB;
		fclose(f);
	}
	pages = (size_t)(kb * 1024 / page_bytes());
	while (n * 2 + 1 <= pages && n * 2 <= MAX_DATA_PAGES)
		n *= 2;
	return n;
}

static bool write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

struct perf_recorder *perf_recorder_new(const struct perf_sample_options *o, const char *raw_path)
{
	struct perf_recorder *r = xcalloc(1, sizeof(*r));
	struct perf_sample_raw_header h;

	r->o = *o;
	r->epoll_fd = -1;
	r->path = xstrdup(raw_path);
	r->out_fd = open_own(raw_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (r->out_fd < 0) {
		error("cannot create the raw sample file %s: %s", raw_path, fs_strerror(errno));
		perf_recorder_free(r);
		return NULL;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PERF_SAMPLE_RAW_MAGIC, sizeof(PERF_SAMPLE_RAW_MAGIC));
	h.header_size = sizeof(h);
	/* Completed by perf_recorder_finish() (buffers) and here (what every sample holds). */
	if (!write_all(r->out_fd, &h, sizeof(h))) {
		error("cannot write %s: %s", raw_path, strerror(errno));
		perf_recorder_free(r);
		return NULL;
	}
	r->st.event = o->event;
	return r;
}

static void rings_close(struct perf_recorder *r)
{
	for (unsigned i = 0; i < r->nr_rings; i++) {
		if (r->rings[i].base)
			munmap(r->rings[i].base, r->rings[i].map_bytes);
		if (r->rings[i].fd >= 0)
			close(r->rings[i].fd);
	}
	free(r->rings);
	r->rings = NULL;
	r->nr_rings = 0;
	if (r->epoll_fd >= 0)
		close(r->epoll_fd);
	r->epoll_fd = -1;
}

/* Maps every ring with `pages` data pages; false (all unmapped) when the kernel refuses. */
static bool rings_map(struct perf_recorder *r, size_t pages, int *err)
{
	size_t page = page_bytes();

	for (unsigned i = 0; i < r->nr_rings; i++) {
		struct ring *g = &r->rings[i];

		g->map_bytes = (pages + 1) * page;
		g->base = mmap(NULL, g->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd, 0);
		if (g->base == MAP_FAILED) {
			*err = errno;
			g->base = NULL;
			for (unsigned j = 0; j < i; j++) {
				munmap(r->rings[j].base, r->rings[j].map_bytes);
				r->rings[j].base = NULL;
			}
			return false;
		}
		g->data_size = pages * page;
	}
	return true;
}

/*
 * Opens the event on `pid` on every online CPU, waking the reader when half of a ring of
 * `pages` data pages is written, as perf does. Each wake-up is kernel work charged to the
 * sampled program (in this VM, one to two points of a cpu-bound program's CPU time at
 * 10 kHz with DWARF's 8 KiB per sample, where a quarter of a 512 KiB ring is 16 samples);
 * the price is less time to drain before the ring fills: more samples lost when the
 * machine is busy (counted and reported). bench/RESULTS.md has both. Returns 0, or -1
 * after error() (nothing left open).
 */
static int rings_open(struct perf_recorder *r, pid_t pid, long ncpu, size_t pages)
{
	struct perf_event_attr a;
	int err;

	attr_fill(&a, &r->o, r->o.event);
	a.wakeup_watermark = (uint32_t)(pages * page_bytes() / 2);
	r->rings = xcalloc((size_t)ncpu, sizeof(*r->rings));
	for (long cpu = 0; cpu < ncpu; cpu++) {
		int fd = sys_perf_event_open(&a, pid, (int)cpu);

		if (fd < 0 && (errno == ENODEV || errno == EINVAL) && cpu > 0)
			continue; /* an offline CPU */
		if (fd < 0) {
			err = errno;
			rings_close(r);
			return error("cannot sample process %d on CPU %ld: perf_event_open: %s",
				     (int)pid, cpu, strerror(err));
		}
		r->rings[r->nr_rings].fd = fd;
		r->rings[r->nr_rings++].base = NULL;
	}
	return 0;
}

int perf_recorder_attach(struct perf_recorder *r, pid_t pid)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	size_t pages = ring_data_pages();
	int err = 0;

	if (ncpu < 1)
		ncpu = 1;
	if (rings_open(r, pid, ncpu, pages) < 0)
		return -1;
	while (!rings_map(r, pages, &err)) {
		rings_close(r);
		if ((err != EPERM && err != ENOMEM) || pages <= MIN_DATA_PAGES)
			return error(
			    "cannot map the sample buffers (%zu KiB per CPU): %s; raise "
			    "kernel.perf_event_mlock_kb or end other perf sessions of this user",
			    pages * page_bytes() / 1024, strerror(err));
		/* Opened again: the wake-up point is set when the event is opened. */
		pages /= 2;
		if (rings_open(r, pid, ncpu, pages) < 0)
			return -1;
	}
	r->data_bytes = pages * page_bytes();
	r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epoll_fd < 0) {
		err = errno;
		rings_close(r);
		return error("cannot create an epoll descriptor: %s", strerror(err));
	}
	for (unsigned i = 0; i < r->nr_rings; i++) {
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};

		if (epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, r->rings[i].fd, &ev) < 0) {
			err = errno;
			rings_close(r);
			return error("cannot watch the sample buffers: %s", strerror(err));
		}
	}
	r->st.nr_buffers = r->nr_rings;
	r->st.buffer_bytes = r->data_bytes;
	return 0;
}

int perf_recorder_fd(const struct perf_recorder *r)
{
	return r ? r->epoll_fd : -1;
}

static void ring_drain(struct perf_recorder *r, struct ring *g)
{
	struct perf_event_mmap_page *pg = g->base;
	unsigned char *data = (unsigned char *)g->base + page_bytes();
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail, len = head - tail, off, first;

	if (!len)
		return;
	if (len > g->data_size)
		len = g->data_size; /* never: the kernel does not overwrite unread data */
	off = tail % g->data_size;
	first = len < g->data_size - off ? len : g->data_size - off;
	if (!r->st.write_failed && (!write_all(r->out_fd, data + off, first) ||
				    (len > first && !write_all(r->out_fd, data, len - first))))
		r->st.write_failed = true;
	else if (!r->st.write_failed)
		r->st.bytes += len;
	/* Consumed either way: a full disk must not stall the benchmark. */
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

void perf_recorder_drain(struct perf_recorder *r)
{
	struct epoll_event evs[16];

	if (!r || r->epoll_fd < 0)
		return;
	/* Clear the readiness; then drain every ring (one full ring wakes up the rest too). */
	while (epoll_wait(r->epoll_fd, evs, ARRAY_SIZE(evs), 0) == (int)ARRAY_SIZE(evs))
		;
	r->st.wakeups++;
	for (unsigned i = 0; i < r->nr_rings; i++)
		ring_drain(r, &r->rings[i]);
}

int perf_recorder_finish(struct perf_recorder *r, struct perf_sample_stats *st)
{
	struct perf_sample_raw_header h;
	int ret = 0;

	for (unsigned i = 0; i < r->nr_rings; i++)
		ioctl(r->rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	for (unsigned i = 0; i < r->nr_rings; i++)
		ring_drain(r, &r->rings[i]);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PERF_SAMPLE_RAW_MAGIC, sizeof(PERF_SAMPLE_RAW_MAGIC));
	h.header_size = sizeof(h);
	h.event = (uint32_t)r->o.event;
	{
		struct perf_event_attr a;
		attr_fill(&a, &r->o, r->o.event);
		h.sample_type = a.sample_type;
		h.regs_mask = a.sample_regs_user;
		h.stack_bytes = a.sample_stack_user;
	}
	h.frequency_hz = r->o.frequency_hz;
	h.callgraph = (uint32_t)r->o.callgraph;
	h.nr_buffers = r->nr_rings;
	h.buffer_bytes = r->data_bytes;
	/* What the kernel makes of a frequency for a timer event: a fixed period. */
	h.period_ns = r->o.event == PERF_SAMPLE_EVENT_CPU_CLOCK
			  ? UINT64_C(1000000000) / r->o.frequency_hz
			  : 0;
	if (pwrite(r->out_fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		r->st.write_failed = true;
	if (r->st.write_failed)
		ret = error("cannot write the raw samples to %s (disk full?): the profile is "
			    "incomplete",
			    r->path);
	if (close(r->out_fd) && !ret)
		ret = error("cannot write %s: %s", r->path, strerror(errno));
	r->out_fd = -1;
	rings_close(r);
	*st = r->st;
	return ret;
}

void perf_recorder_free(struct perf_recorder *r)
{
	if (!r)
		return;
	rings_close(r);
	if (r->out_fd >= 0)
		close(r->out_fd);
	free(r->path);
	free(r);
}

int perf_sample_run(const struct proc_spec *spec, struct perf_sample_options *o,
		    const char *raw_path, struct proc_result *res, struct perf_sample_stats *st)
{
	struct proc_spec s = *spec;
	struct perf_recorder *r;
	bool fell_back;
	int ret;

	memset(st, 0, sizeof(*st));
	if (o->callgraph == PERF_SAMPLE_CALLGRAPH_AUTO) {
		struct strbuf why = STRBUF_INIT;
		o->callgraph = perf_sample_choose(spec->command, spec->cwd, &why);
		strbuf_release(&why);
	}
	if (o->callgraph == PERF_SAMPLE_CALLGRAPH_DWARF && REGS_MASK == 0)
		o->callgraph = PERF_SAMPLE_CALLGRAPH_FP; /* no unwinder for this architecture */
	if ((ret = perf_sample_probe(o, &fell_back)))
		return ret;
	if (!(r = perf_recorder_new(o, raw_path)))
		return RP_EINPUT;
	s.recorder = r;
	ret = proc_run(&s, res);
	if (!ret && perf_recorder_finish(r, st))
		ret = -1;
	st->event_fell_back = fell_back;
	perf_recorder_free(r);
	return ret;
}
