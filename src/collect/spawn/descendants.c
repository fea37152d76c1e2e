#include "collect/spawn/descendants.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h> /* snprintf() only: no stdio streams */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/banned.h"

/* The largest pid Linux hands out (PID_MAX_LIMIT on 64-bit): the size of the bitmap. */
#define PID_LIMIT (1u << 22)
#define TABLE_FIRST 4096
#define DIRENT_BUF 8192

/* One process of /proc. */
struct proc_entry {
	int32_t pid, ppid, pgid;
	char state; /* of /proc/<pid>/stat: R, S, D, Z, ... */
	char pad[3];
};

/*
 * The scan's memory, all mapped and unmapped after each scan, none on the stack: a stack
 * page once touched stays resident, and the spawner's resident memory is what every
 * benchmark's max RSS starts from (docs/measurement.md).
 */
struct scan {
	struct proc_entry *e; /* every process */
	size_t nr, cap;
	uint8_t *below; /* PID_LIMIT bits, mapped lazily: only the pages touched are resident */
	char *dirents;	/* DIRENT_BUF bytes of getdents64() */
};

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static bool bit_get(const uint8_t *map, int32_t pid)
{
	return pid > 0 && (uint32_t)pid < PID_LIMIT && (map[pid >> 3] >> (pid & 7)) & 1;
}

static void bit_set(uint8_t *map, int32_t pid)
{
	if (pid > 0 && (uint32_t)pid < PID_LIMIT)
		map[pid >> 3] |= (uint8_t)(1u << (pid & 7));
}

/* A decimal pid; -1 for anything else (".", "self", "sys", ...). */
static int32_t parse_pid(const char *s)
{
	int64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > INT32_MAX / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v > 0 && v <= INT32_MAX ? (int32_t)v : -1;
}

/* Reads "pid (comm) S ppid pgrp ..." of one process. 0, or -1 when it is gone. */
static int read_stat(int proc_fd, const char *name, struct proc_entry *out)
{
	char path[32], buf[512];
	const char *p;
	int64_t ppid = 0, pgid = 0;
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/stat", name) >= sizeof(path))
		return -1;
	fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The command name may hold spaces and parentheses: the last ')' ends it. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	out->state = p[2];
	p += 4;
	for (; *p >= '0' && *p <= '9'; p++)
		ppid = ppid * 10 + (*p - '0');
	if (*p++ != ' ')
		return -1;
	/* A process group id is positive; "-" never appears. */
	for (; *p >= '0' && *p <= '9'; p++)
		pgid = pgid * 10 + (*p - '0');
	if (*p != ' ' || ppid > INT32_MAX || pgid > INT32_MAX)
		return -1;
	out->ppid = (int32_t)ppid;
	out->pgid = (int32_t)pgid;
	return 0;
}

static int table_add(struct scan *s, const struct proc_entry *e)
{
	if (s->nr == s->cap) {
		size_t old = s->cap * sizeof(*s->e);
		void *p = mremap(s->e, old, old * 2, MREMAP_MAYMOVE);

		if (p == MAP_FAILED)
			return -1;
		s->e = p;
		s->cap *= 2;
	}
	s->e[s->nr++] = *e;
	return 0;
}

/* Every process of /proc into s->e. Returns 0, or -1 with errno set. */
static int scan_proc(struct scan *s)
{
	char *buf = s->dirents;
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = -1;

	if (fd < 0)
		return -1;
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, DIRENT_BUF);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		for (long off = 0; off < n;) {
			const struct linux_dirent64 *d = (const void *)(buf + off);
			struct proc_entry e = {.pid = parse_pid(d->d_name)};

			off += d->d_reclen;
			/* A process that exited since the listing is simply not there. */
			if (e.pid > 0 && read_stat(fd, d->d_name, &e) == 0 && table_add(s, &e) < 0)
				goto out;
		}
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

/* Marks the pids below self: children of self, then their children, until none is new. */
static void mark_below(struct scan *s, pid_t self)
{
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t i = 0; i < s->nr; i++) {
			const struct proc_entry *e = &s->e[i];

			if (bit_get(s->below, e->pid) || e->pid == self)
				continue;
			if (e->ppid == self || bit_get(s->below, e->ppid)) {
				bit_set(s->below, e->pid);
				changed = true;
			}
		}
	}
}

static void *map_anon(size_t len, int flags)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
}

struct pid_seen *pid_seen_new(void)
{
	struct pid_seen *seen = map_anon(sizeof(*seen), 0);

	return seen == MAP_FAILED ? NULL : seen;
}

void pid_seen_free(struct pid_seen *seen)
{
	if (seen)
		munmap(seen, sizeof(*seen));
}

static void seen_add(struct pid_seen *seen, pid_t pid)
{
	for (int i = 0; i < seen->nr; i++)
		if (seen->pid[i] == pid)
			return;
	if (seen->nr < PID_SEEN_MAX)
		seen->pid[seen->nr++] = pid;
	seen->count++;
}

int descendants_signal(pid_t self, pid_t keep_pgid, int sig, struct pid_seen *seen)
{
	struct scan s = {.cap = TABLE_FIRST};
	size_t bitmap_len = PID_LIMIT / 8;
	int found = 0, saved;

	s.e = map_anon(s.cap * sizeof(*s.e), 0);
	s.below = map_anon(bitmap_len, MAP_NORESERVE);
	s.dirents = map_anon(DIRENT_BUF, 0);
	if (s.e == MAP_FAILED || s.below == MAP_FAILED || s.dirents == MAP_FAILED ||
	    scan_proc(&s) < 0) {
		found = -1;
		goto out;
	}
	mark_below(&s, self);
	for (size_t i = 0; i < s.nr; i++) {
		const struct proc_entry *e = &s.e[i];

		if (!bit_get(s.below, e->pid) || e->state == 'Z' || e->state == 'X' ||
		    (keep_pgid > 0 && e->pgid == keep_pgid))
			continue;
		found++;
		if (sig)
			kill(e->pid, sig);
		if (seen)
			seen_add(seen, e->pid);
	}
out:
	saved = errno;
	if (s.e != MAP_FAILED)
		munmap(s.e, s.cap * sizeof(*s.e));
	if (s.below != MAP_FAILED)
		munmap(s.below, bitmap_len);
	if (s.dirents != MAP_FAILED)
		munmap(s.dirents, DIRENT_BUF);
	errno = saved;
	return found;
}

bool descendants_any(void)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}
