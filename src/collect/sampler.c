#include "collect/sampler.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/common.h"

#define NS_PER_SEC 1e9
/* How far a vanished process is followed up its vanished ancestors (see attribute_vanished). */
#define ANCESTOR_STEPS 64

/* ---- run_samples ---- */

void run_samples_init(struct run_samples *rs)
{
	memset(rs, 0, sizeof(*rs));
}

void run_samples_release(struct run_samples *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->nr; i++) {
		free(rs->series[i].name);
		free(rs->series[i].unit);
		free(rs->series[i].t);
		free(rs->series[i].v);
	}
	free(rs->series);
	free(rs->index);
	run_samples_init(rs);
}

/* FNV-1a. */
static size_t name_hash(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
	return (size_t)h;
}

/* The slot of name in the index: the one that holds it, or the empty one it would go to. */
static size_t index_slot(const struct run_samples *rs, const char *name)
{
	size_t mask = rs->index_cap - 1, i = name_hash(name) & mask;

	while (rs->index[i] && strcmp(rs->series[rs->index[i] - 1].name, name))
		i = (i + 1) & mask;
	return i;
}

/* Rebuilds the index (slots hold series index + 1; 0 = empty) at most half full. */
static void index_rebuild(struct run_samples *rs)
{
	size_t cap = 16;

	while (cap < 2 * (rs->nr + 1))
		cap *= 2;
	free(rs->index);
	rs->index = xcalloc(cap, sizeof(*rs->index));
	rs->index_cap = cap;
	for (size_t i = 0; i < rs->nr; i++)
		rs->index[index_slot(rs, rs->series[i].name)] = i + 1;
	rs->index_nr = rs->nr;
}

struct sample_series *run_samples_find(const struct run_samples *rs, const char *name)
{
	size_t slot;

	if (rs->index_nr != rs->nr || !rs->index) {
		/* Not indexed yet (or series added behind our back): look at each. */
		for (size_t i = 0; i < rs->nr; i++)
			if (!strcmp(rs->series[i].name, name))
				return &rs->series[i];
		return NULL;
	}
	slot = index_slot(rs, name);
	return rs->index[slot] ? &rs->series[rs->index[slot] - 1] : NULL;
}

static struct sample_series *series_get(struct run_samples *rs, const char *name, const char *unit)
{
	struct sample_series *s;

	if (rs->index_nr != rs->nr || 2 * (rs->nr + 1) > rs->index_cap)
		index_rebuild(rs);
	s = run_samples_find(rs, name);
	if (s)
		return s;
	ALLOC_GROW(rs->series, rs->nr + 1, rs->alloc);
	s = &rs->series[rs->nr++];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->unit = unit ? xstrdup(unit) : NULL;
	rs->index[index_slot(rs, name)] = rs->nr;
	rs->index_nr = rs->nr;
	return s;
}

int run_samples_add(struct run_samples *rs, const char *name, const char *unit, double t, double v)
{
	struct sample_series *s;

	if (!isfinite(t) || !isfinite(v))
		return -1;
	s = series_get(rs, name, unit);
	if (s->n && t < s->t[s->n - 1])
		return -1;
	if (s->n == s->alloc) {
		s->alloc = alloc_nr(s->alloc, s->n + 1);
		s->t = xrealloc(s->t, xmallocarray_size(s->alloc, sizeof(*s->t)));
		s->v = xrealloc(s->v, xmallocarray_size(s->alloc, sizeof(*s->v)));
	}
	s->t[s->n] = t;
	s->v[s->n] = v;
	s->n++;
	return 0;
}

/* ---- the counters ---- */

static const char *const counter_names[] = {
    "cpu_user",	    "cpu_system",	  "rss_bytes", "read_bytes_per_s", "write_bytes_per_s",
    "faults_per_s", "ctx_switches_per_s", "threads",   "processes",
};

bool sampler_counter_reserved(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(counter_names); i++)
		if (!strcmp(name, counter_names[i]))
			return true;
	return false;
}

/* ---- one process, as read from /proc ---- */

/* The cumulative counters of /proc/PID/stat, each in an own and a waited-for-children part. */
enum { K_UTIME, K_STIME, K_MINFLT, K_MAJFLT, NK };

struct tid_count {
	pid_t tid;
	uint64_t switches; /* voluntary + involuntary */
};

struct proc_entry {
	pid_t pid, ppid;
	uint64_t starttime; /* clock ticks after boot: (pid, starttime) is one process */
	uint64_t own[NK], kids[NK];
	uint64_t io[2]; /* rchar, wchar (the kernel folds reaped children in) */
	bool io_ok;
	bool zombie;
	long threads;
	uint64_t rss_pages;
	/* per thread, sorted by tid: /proc/PID/status only counts the thread it names */
	struct tid_count *tids;
	size_t ntids, tids_alloc;
	/* during one tick */
	struct proc_entry *before; /* the same process at the previous tick, NULL when new */
	bool seen;		   /* (in the previous table) it is still there */
	uint64_t sub[NK], io_sub[2];
};

struct proc_table {
	struct proc_entry *e;
	size_t nr, alloc;
};

struct group_sampler {
	pid_t pgid;
	ns_t start_ns, interval_ns, next_ns, last_ns;
	bool have_prev;
	bool io_decided, io_missing;
	long clk_tck, page_size;
	struct run_samples *out;
	struct proc_table prev, cur;
	char buf[8192];
};

/* Reads a small /proc file into gs->buf, NUL-terminated. Returns its length, -1 (errno). */
static ssize_t read_small(struct group_sampler *gs, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -1;
	while (got < sizeof(gs->buf) - 1) {
		ssize_t n = read(fd, gs->buf + got, sizeof(gs->buf) - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	gs->buf[got] = '\0';
	return (ssize_t)got;
}

static uint64_t field_u64(long long v)
{
	return v > 0 ? (uint64_t)v : 0;
}

/*
 * /proc/PID/stat into e; returns the process group, or -1 when the file is unreadable or
 * not understood. Fields after the command name (which may hold spaces and parentheses)
 * are numbered as in proc(5): 3 state, 4 ppid, 5 pgrp, 10..13 (c)min/majflt, 14..17
 * (c)utime/(c)stime, 20 num_threads, 22 starttime, 24 rss.
 */
static pid_t parse_stat(char *buf, struct proc_entry *e)
{
	long long f[25];
	char *p = strrchr(buf, ')'), *end;

	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	e->zombie = p[2] == 'Z' || p[2] == 'X';
	p += 3;
	for (int i = 4; i < 25; i++) {
		errno = 0;
		f[i] = strtoll(p, &end, 10);
		if (end == p || errno)
			return -1;
		p = end;
	}
	e->ppid = (pid_t)f[4];
	e->own[K_MINFLT] = field_u64(f[10]);
	e->kids[K_MINFLT] = field_u64(f[11]);
	e->own[K_MAJFLT] = field_u64(f[12]);
	e->kids[K_MAJFLT] = field_u64(f[13]);
	e->own[K_UTIME] = field_u64(f[14]);
	e->own[K_STIME] = field_u64(f[15]);
	e->kids[K_UTIME] = field_u64(f[16]);
	e->kids[K_STIME] = field_u64(f[17]);
	e->threads = (long)f[20];
	e->starttime = field_u64(f[22]);
	e->rss_pages = field_u64(f[24]);
	return (pid_t)f[5];
}

/* rchar and wchar; false with errno set when unreadable. */
static bool read_io(struct group_sampler *gs, pid_t pid, uint64_t io[2])
{
	char path[64];
	const char *r, *w;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	if (read_small(gs, path) < 0)
		return false;
	r = strstr(gs->buf, "rchar: ");
	w = strstr(gs->buf, "wchar: ");
	if (!r || !w) {
		errno = EINVAL;
		return false;
	}
	io[0] = strtoull(r + 7, NULL, 10);
	io[1] = strtoull(w + 7, NULL, 10);
	return true;
}

/* Voluntary + involuntary context switches of the task whose status file is path. */
static bool read_switches(struct group_sampler *gs, const char *path, uint64_t *n)
{
	const char *v, *nv;

	if (read_small(gs, path) < 0)
		return false;
	v = strstr(gs->buf, "\nvoluntary_ctxt_switches:");
	nv = strstr(gs->buf, "\nnonvoluntary_ctxt_switches:");
	if (!v || !nv)
		return false;
	*n = strtoull(v + 25, NULL, 10) + strtoull(nv + 28, NULL, 10);
	return true;
}

static void add_tid(struct proc_entry *e, pid_t tid, uint64_t switches)
{
	ALLOC_GROW(e->tids, e->ntids + 1, e->tids_alloc);
	e->tids[e->ntids].tid = tid;
	e->tids[e->ntids].switches = switches;
	e->ntids++;
}

static int tid_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct tid_count *)a)->tid, y = ((const struct tid_count *)b)->tid;

	return (x > y) - (x < y);
}

/* The context switches of each thread of e (one status file per thread). */
static void read_threads(struct group_sampler *gs, struct proc_entry *e)
{
	char path[96];
	struct dirent *d;
	uint64_t n;
	DIR *dir;

	e->ntids = 0;
	if (e->threads <= 1) {
		snprintf(path, sizeof(path), "/proc/%d/status", (int)e->pid);
		if (read_switches(gs, path, &n))
			add_tid(e, e->pid, n);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)e->pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		long tid;
		char *end;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		tid = strtol(d->d_name, &end, 10);
		if (*end || tid <= 0 || tid > INT32_MAX)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/status", (int)e->pid, tid);
		if (read_switches(gs, path, &n))
			add_tid(e, (pid_t)tid, n);
	}
	closedir(dir);
	qsort(e->tids, e->ntids, sizeof(*e->tids), tid_cmp);
}

/* A fresh entry at the end of t (its thread array is reused). */
static struct proc_entry *table_push(struct proc_table *t)
{
	struct proc_entry *e;
	struct tid_count *tids;
	size_t tids_alloc;

	if (t->nr == t->alloc) {
		size_t old = t->alloc;

		ALLOC_GROW(t->e, t->nr + 1, t->alloc);
		memset(t->e + old, 0, (t->alloc - old) * sizeof(*t->e));
	}
	e = &t->e[t->nr];
	tids = e->tids;
	tids_alloc = e->tids_alloc;
	memset(e, 0, sizeof(*e));
	e->tids = tids;
	e->tids_alloc = tids_alloc;
	return e;
}

static void table_release(struct proc_table *t)
{
	for (size_t i = 0; i < t->alloc; i++)
		free(t->e[i].tids);
	free(t->e);
	memset(t, 0, sizeof(*t));
}

static int entry_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct proc_entry *)a)->pid, y = ((const struct proc_entry *)b)->pid;

	return (x > y) - (x < y);
}

static struct proc_entry *table_find(const struct proc_table *t, pid_t pid)
{
	struct proc_entry key = {.pid = pid};

	return t->nr ? bsearch(&key, t->e, t->nr, sizeof(*t->e), entry_cmp) : NULL;
}

/* Reads the process pid into a new entry of gs->cur when it belongs to the group. */
static void scan_one(struct group_sampler *gs, pid_t pid)
{
	struct proc_entry *e = table_push(&gs->cur);
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	/* Gone since readdir, or not ours: the slot is reused by the next one. */
	if (read_small(gs, path) < 0 || parse_stat(gs->buf, e) != gs->pgid)
		return;
	e->pid = pid;
	if (!gs->io_missing) {
		e->io_ok = read_io(gs, pid, e->io);
		/*
		 * Decided on the first live process: unreadable there (no task I/O accounting,
		 * a sandbox) means no I/O series at all. Later, a process whose io is unreadable
		 * (a setuid helper) only adds nothing to the rates.
		 */
		if (!gs->io_decided && !e->zombie) {
			gs->io_decided = true;
			gs->io_missing = !e->io_ok && errno != ENOENT && errno != ESRCH;
		}
	}
	read_threads(gs, e);
	gs->cur.nr++;
}

/* Fills gs->cur with the processes of the group, sorted by pid. */
static void scan_group(struct group_sampler *gs)
{
	struct dirent *d;
	DIR *dir;

	gs->cur.nr = 0;
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		long pid;
		char *end;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid = strtol(d->d_name, &end, 10);
		if (*end || pid <= 0 || pid > INT32_MAX)
			continue;
		scan_one(gs, (pid_t)pid);
	}
	closedir(dir);
	qsort(gs->cur.e, gs->cur.nr, sizeof(*gs->cur.e), entry_cmp);
}

/* ---- the rates ---- */

static uint64_t delta(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

/* Links each current process to itself at the previous tick (same pid and start time). */
static void match_previous(struct group_sampler *gs)
{
	for (size_t i = 0; i < gs->prev.nr; i++)
		gs->prev.e[i].seen = false;
	for (size_t i = 0; i < gs->cur.nr; i++) {
		struct proc_entry *e = &gs->cur.e[i], *p = table_find(&gs->prev, e->pid);

		/* Another start time: the pid was reused, a new process. */
		e->before = p && p->starttime == e->starttime ? p : NULL;
		if (e->before)
			p->seen = true;
	}
}

/*
 * A process p of the previous tick that is gone: when its parent (or, if that is gone too,
 * the nearest ancestor that is not) was there at both ticks and reaped it, the kernel added
 * p's final totals to the ancestor's children counters and I/O. What p had at the previous
 * tick was counted already: it is subtracted from the ancestor's delta (see ancestor_delta),
 * so that only p's last partial interval is added.
 */
static void attribute_vanished(struct group_sampler *gs, const struct proc_entry *p)
{
	pid_t ancestor = p->ppid;

	for (int step = 0; step < ANCESTOR_STEPS && ancestor > 0; step++) {
		struct proc_entry *a = table_find(&gs->cur, ancestor), *gone;

		if (a) {
			if (!a->before)
				return;
			for (int k = 0; k < NK; k++)
				a->sub[k] += p->own[k] + p->kids[k];
			if (p->io_ok) {
				a->io_sub[0] += p->io[0];
				a->io_sub[1] += p->io[1];
			}
			return;
		}
		gone = table_find(&gs->prev, ancestor);
		if (!gone || gone->seen)
			return;
		ancestor = gone->ppid;
	}
}

/* The growth of e since the previous tick, per counter; new processes count whole. */
static void entry_delta(const struct proc_entry *e, uint64_t d[NK], uint64_t d_io[2], bool *io_ok,
			uint64_t *d_switches)
{
	const struct proc_entry *p = e->before;
	uint64_t kids[NK];
	bool reaped;
	size_t j = 0;

	for (int k = 0; k < NK; k++)
		kids[k] = p ? delta(e->kids[k], p->kids[k]) : e->kids[k];
	/*
	 * The children counters grew by at least the faults of the vanished children we
	 * subtract only when the ancestor really reaped them (not when it lets the kernel
	 * reap them, SIGCHLD ignored: then nothing was added to it).
	 */
	reaped = kids[K_MINFLT] >= e->sub[K_MINFLT];
	for (int k = 0; k < NK; k++) {
		uint64_t own = p ? delta(e->own[k], p->own[k]) : e->own[k];

		d[k] = own + (reaped ? delta(kids[k], e->sub[k]) : kids[k]);
	}
	*io_ok = e->io_ok && (!p || p->io_ok);
	for (int i = 0; i < 2 && *io_ok; i++) {
		uint64_t grown = p ? delta(e->io[i], p->io[i]) : e->io[i];

		d_io[i] = reaped ? delta(grown, e->io_sub[i]) : grown;
	}
	/* Threads in both lists grew; new ones count whole; gone ones add nothing. */
	*d_switches = 0;
	for (size_t i = 0; i < e->ntids; i++) {
		const struct tid_count *c = &e->tids[i];

		while (p && j < p->ntids && p->tids[j].tid < c->tid)
			j++;
		if (p && j < p->ntids && p->tids[j].tid == c->tid)
			*d_switches += delta(c->switches, p->tids[j].switches);
		else
			*d_switches += c->switches;
	}
}

static void emit(struct group_sampler *gs, const char *name, const char *unit, double t, double v)
{
	/* t only grows and v is finite: cannot fail. */
	run_samples_add(gs->out, name, unit, t, v);
}

static void emit_rates(struct group_sampler *gs, double t, double dt)
{
	uint64_t sum[NK] = {0}, sum_io[2] = {0}, switches = 0;
	double tick_s = (double)gs->clk_tck;

	match_previous(gs);
	for (size_t i = 0; i < gs->prev.nr; i++)
		if (!gs->prev.e[i].seen)
			attribute_vanished(gs, &gs->prev.e[i]);
	for (size_t i = 0; i < gs->cur.nr; i++) {
		uint64_t d[NK], d_io[2], d_sw;
		bool io_ok;

		entry_delta(&gs->cur.e[i], d, d_io, &io_ok, &d_sw);
		for (int k = 0; k < NK; k++)
			sum[k] += d[k];
		if (io_ok) {
			sum_io[0] += d_io[0];
			sum_io[1] += d_io[1];
		}
		switches += d_sw;
	}
	emit(gs, "cpu_user", "cores", t, (double)sum[K_UTIME] / tick_s / dt);
	emit(gs, "cpu_system", "cores", t, (double)sum[K_STIME] / tick_s / dt);
	if (!gs->io_missing) {
		emit(gs, "read_bytes_per_s", "bytes/s", t, (double)sum_io[0] / dt);
		emit(gs, "write_bytes_per_s", "bytes/s", t, (double)sum_io[1] / dt);
	}
	emit(gs, "faults_per_s", "faults/s", t, (double)(sum[K_MINFLT] + sum[K_MAJFLT]) / dt);
	emit(gs, "ctx_switches_per_s", "switches/s", t, (double)switches / dt);
}

static void emit_gauges(struct group_sampler *gs, double t)
{
	uint64_t rss = 0;
	long threads = 0, processes = 0;

	for (size_t i = 0; i < gs->cur.nr; i++) {
		const struct proc_entry *e = &gs->cur.e[i];

		/* A zombie holds no memory and runs nothing; its counters still count above. */
		if (e->zombie)
			continue;
		rss += e->rss_pages;
		threads += e->threads;
		processes++;
	}
	emit(gs, "rss_bytes", "bytes", t, (double)rss * (double)gs->page_size);
	emit(gs, "threads", "threads", t, (double)threads);
	emit(gs, "processes", "processes", t, (double)processes);
}

/* ---- the sampler ---- */

struct group_sampler *group_sampler_new(pid_t pgid, ns_t start_ns, ns_t interval_ns,
					struct run_samples *out)
{
	struct group_sampler *gs = xcalloc(1, sizeof(*gs));

	gs->pgid = pgid;
	gs->start_ns = start_ns;
	gs->interval_ns = interval_ns > 0 ? interval_ns : 1;
	gs->next_ns = start_ns + gs->interval_ns;
	gs->last_ns = start_ns;
	gs->out = out;
	gs->clk_tck = sysconf(_SC_CLK_TCK);
	if (gs->clk_tck <= 0)
		gs->clk_tck = 100;
	gs->page_size = sysconf(_SC_PAGESIZE);
	if (gs->page_size <= 0)
		gs->page_size = 4096;
	return gs;
}

void group_sampler_free(struct group_sampler *gs)
{
	if (!gs)
		return;
	table_release(&gs->prev);
	table_release(&gs->cur);
	free(gs);
}

ns_t group_sampler_next_ns(const struct group_sampler *gs)
{
	return gs->next_ns;
}

bool group_sampler_io_missing(const struct group_sampler *gs)
{
	return gs->io_missing;
}

void group_sampler_tick(struct group_sampler *gs, ns_t now_ns)
{
	struct proc_table tmp;
	double t, dt;

	if (now_ns < gs->last_ns)
		now_ns = gs->last_ns;
	t = (double)(now_ns - gs->start_ns) / NS_PER_SEC;
	dt = (double)(now_ns - gs->last_ns) / NS_PER_SEC;
	scan_group(gs);
	emit_gauges(gs, t);
	if (gs->have_prev && dt > 0)
		emit_rates(gs, t, dt);
	tmp = gs->prev;
	gs->prev = gs->cur;
	gs->cur = tmp;
	gs->have_prev = true;
	gs->last_ns = now_ns;
	gs->next_ns =
	    gs->start_ns + ((now_ns - gs->start_ns) / gs->interval_ns + 1) * gs->interval_ns;
}

void group_sampler_last(struct group_sampler *gs, ns_t now_ns)
{
	if (now_ns - gs->last_ns >= gs->interval_ns / 2)
		group_sampler_tick(gs, now_ns);
}

/* ---- counter lines ---- */

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':' || c == '-';
}

int counter_line_parse(const char *line, size_t len, char *name, double *value)
{
	size_t plen = strlen(COUNTER_LINE_PREFIX), i, n = 0;
	char num[COUNTER_LINE_MAX + 1], *end;

	if (len < plen || memcmp(line, COUNTER_LINE_PREFIX, plen))
		return 0;
	if (len > COUNTER_LINE_MAX)
		return -1;
	for (i = plen; i < len && name_char(line[i]); i++, n++)
		if (n == COUNTER_NAME_MAX)
			return -1;
	if (n == 0 || i == len || (line[i] != ' ' && line[i] != '\t'))
		return -1;
	memcpy(name, line + plen, n);
	name[n] = '\0';
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	/* strtod needs a terminated copy; it also skips no more whitespace (done above). */
	memcpy(num, line + i, len - i);
	num[len - i] = '\0';
	if (!num[0])
		return -1;
	*value = strtod(num, &end);
	if (end == num || !isfinite(*value))
		return -1;
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	if (*end || sampler_counter_reserved(name))
		return -1;
	return 1;
}

void counter_lines_init(struct counter_lines *cl)
{
	memset(cl, 0, sizeof(*cl));
	strbuf_init(&cl->line);
}

void counter_lines_release(struct counter_lines *cl)
{
	if (!cl)
		return;
	strbuf_release(&cl->line);
	memset(cl, 0, sizeof(*cl));
	strbuf_init(&cl->line);
}

/* The line in cl->line is complete: store it when it is a counter line. */
static void line_done(struct counter_lines *cl, double t, struct run_samples *out)
{
	const char *prefix = COUNTER_LINE_PREFIX;
	char name[COUNTER_NAME_MAX + 1];
	double value;
	int r;

	if (cl->overlong)
		r = strncmp(cl->line.buf, prefix, strlen(prefix)) ? 0 : -1;
	else
		r = counter_line_parse(cl->line.buf, cl->line.len, name, &value);
	if (r > 0 && run_samples_add(out, name, NULL, t, value) < 0)
		r = -1;
	if (r > 0)
		cl->counters++;
	else if (r < 0)
		cl->malformed++;
	strbuf_reset(&cl->line);
	cl->overlong = false;
}

void counter_lines_feed(struct counter_lines *cl, const char *buf, size_t len, double t,
			struct run_samples *out)
{
	while (len > 0) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;
		size_t room = COUNTER_LINE_MAX + 1 - cl->line.len;

		/* Keep one byte more than a line may have: that marks it as too long. */
		if (!cl->overlong) {
			strbuf_add(&cl->line, buf, n < room ? n : room);
			if (cl->line.len > COUNTER_LINE_MAX)
				cl->overlong = true;
		}
		if (!nl)
			return;
		line_done(cl, t, out);
		buf += n + 1;
		len -= n + 1;
	}
}

void counter_lines_finish(struct counter_lines *cl, double t, struct run_samples *out)
{
	if (cl->line.len || cl->overlong)
		line_done(cl, t, out);
}
