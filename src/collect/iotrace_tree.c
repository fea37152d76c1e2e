/*
 * The I/O tracer's view of the live process tree: the tasks (threads) being traced and
 * the processes they belong to, in two chained hash tables, and the process list of the
 * result that grows as processes appear (collect/iotrace_impl.h).
 */
#include "collect/iotrace_impl.h"

#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/common.h"

static size_t bucket(pid_t id)
{
	return (size_t)id % IOTRACE_BUCKETS;
}

struct iotrace_tracee *iotrace_tree_thread(struct iotrace_tree *tree, pid_t tid)
{
	struct iotrace_tracee *t;

	for (t = tree->threads[bucket(tid)]; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

struct iotrace_tproc *iotrace_tree_proc(struct iotrace_tree *tree, pid_t tgid)
{
	struct iotrace_tproc *p;

	for (p = tree->procs[bucket(tgid)]; p; p = p->next)
		if (p->tgid == tgid)
			return p;
	return NULL;
}

/* "/proc/PID/exe", or NULL when it cannot be read. Caller frees. */
char *iotrace_read_exe(pid_t pid)
{
	char path[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	return n > 0 ? xstrndup(buf, (size_t)n) : NULL;
}

struct iotrace_tproc *iotrace_tree_proc_add(struct iotrace_tree *tree, pid_t tgid, pid_t ppid,
					    bool exec_seen)
{
	struct iotrace_result *res = tree->res;
	struct iotrace_tproc *p = xcalloc(1, sizeof(*p));
	struct iotrace_process *rp;

	ALLOC_GROW(res->procs, res->nr_procs + 1, tree->procs_alloc);
	rp = &res->procs[res->nr_procs];
	memset(rp, 0, sizeof(*rp));
	rp->pid = tgid;
	rp->ppid = ppid;
	rp->exe = iotrace_read_exe(tgid);
	p->tgid = tgid;
	p->idx = res->nr_procs++;
	p->exec_seen = exec_seen;
	p->next = tree->procs[bucket(tgid)];
	tree->procs[bucket(tgid)] = p;
	return p;
}

void iotrace_tree_proc_free(struct iotrace_tree *tree, struct iotrace_tproc *p)
{
	struct iotrace_tproc **pp = &tree->procs[bucket(p->tgid)];

	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	iotrace_unwinder_free(p->unw);
	free(p);
}

struct iotrace_tracee *iotrace_tree_thread_add(struct iotrace_tree *tree, pid_t tid,
					       struct iotrace_tproc *p)
{
	struct iotrace_tracee *t = xcalloc(1, sizeof(*t));

	t->tid = tid;
	t->proc = p;
	p->nr_threads++;
	t->next = tree->threads[bucket(tid)];
	tree->threads[bucket(tid)] = t;
	tree->nr_threads++;
	return t;
}

void iotrace_tree_thread_remove(struct iotrace_tree *tree, struct iotrace_tracee *t)
{
	struct iotrace_tracee **pp = &tree->threads[bucket(t->tid)];
	struct iotrace_tproc *p = t->proc;

	while (*pp != t)
		pp = &(*pp)->next;
	*pp = t->next;
	tree->nr_threads--;
	free(t);
	if (--p->nr_threads == 0 && p->leader_gone)
		iotrace_tree_proc_free(tree, p);
}

/* What /proc/TID/status says about a task. */
struct task_status {
	pid_t tgid, ppid, tracer;
	char state; /* 'R', 'S', ..., 'Z' */
};

/* Reads /proc/TID/status; false when the task is gone (reaped). */
static bool task_status(pid_t tid, struct task_status *ts)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
	    {"\nTgid:", offsetof(struct task_status, tgid)},
	    {"\nPPid:", offsetof(struct task_status, ppid)},
	    {"\nTracerPid:", offsetof(struct task_status, tracer)},
	};
	char path[64], buf[2048];
	const char *s;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	memset(ts, 0, sizeof(*ts));
	s = strstr(buf, "\nState:");
	if (s)
		ts->state = s[strspn(s + 7, " \t") + 7];
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		s = strstr(buf, fields[i].key);
		if (s)
			*(pid_t *)((char *)ts + fields[i].off) =
			    (pid_t)strtol(s + strlen(fields[i].key), NULL, 10);
	}
	return ts->tgid > 0;
}

struct iotrace_tracee *iotrace_tree_task_new(struct iotrace_tree *tree, pid_t tid, pid_t creator)
{
	struct iotrace_tproc *p, *parent;
	struct task_status ts = {.tgid = tid, .ppid = creator};
	bool known = task_status(tid, &ts);

	/*
	 * From its creator's event, the task may be long gone: its first stop and its exit
	 * may have come first (it is then a zombie until its parent reaps it, or reaped), or
	 * its tid may even be another process's by now. Only a live task traced by us is one
	 * to wait for; one that is not, but exits unseen, is reported as an unknown exit.
	 */
	if (creator > 0 && (!known || ts.state == 'Z' || ts.state == 'X' ||
			    ts.tracer != (pid_t)syscall(SYS_gettid)))
		return NULL;
	if (!known) {
		ts.tgid = tid;
		ts.ppid = creator;
	}
	p = iotrace_tree_proc(tree, ts.tgid);
	if (!p) {
		parent = iotrace_tree_proc(tree, ts.ppid);
		if (!parent && creator > 0) {
			struct iotrace_tracee *ct = iotrace_tree_thread(tree, creator);

			parent = ct ? ct->proc : NULL;
		}
		p = iotrace_tree_proc_add(tree, ts.tgid, parent ? parent->tgid : ts.ppid,
					  parent ? parent->exec_seen : true);
	}
	return iotrace_tree_thread_add(tree, tid, p);
}

/* Whether a process still runs (neither gone nor a zombie). */
bool iotrace_proc_running(pid_t pid)
{
	char path[64], buf[512];
	const char *s;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	s = strrchr(buf, ')'); /* the command may contain anything */
	return s && s[1] == ' ' && s[2] != 'Z' && s[2] != 'X' && s[2] != 'x';
}
