#include "core/worktree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "collect/proc.h"
#include "util/fsutil.h"
#include "util/common.h"

/* The pid written into the lock file by its holder, 0 when unknown. */
static long lock_holder(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *end;
	long pid;
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, &end, 10);
	return end != buf && (*end == '\n' || !*end) && pid > 0 ? pid : 0;
}

int worktree_lock(const char *worktree, const char *what, int *fd)
{
	struct strbuf path = STRBUF_INIT, pid = STRBUF_INIT;
	/* Polled rather than blocking in flock(): an interrupt that arrives just before a
	 * blocking call would be noticed only when the other process is done. */
	const struct timespec pause = {0, 100 * 1000 * 1000};
	bool told = false;
	int ret = RP_EINTERNAL;

	strbuf_addf(&path, "%s.lock", worktree);
	*fd = open(path.buf, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (*fd < 0) {
		error("cannot open the lock file %s: %s", path.buf, strerror(errno));
		goto out;
	}
	while (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			error("cannot lock %s: %s", path.buf, strerror(errno));
			goto out;
		}
		if (interrupt_requested()) {
			ret = RP_EINTERRUPT;
			goto out;
		}
		if (!told) {
			long holder = lock_holder(*fd);
			if (holder)
				fprintf(stderr,
					"revperf: waiting for process %ld, which is %s (%s)\n",
					holder, what, path.buf);
			else
				fprintf(stderr,
					"revperf: waiting for another process, which is %s "
					"(%s)\n",
					what, path.buf);
			told = true;
		}
		nanosleep(&pause, NULL);
	}
	strbuf_addf(&pid, "%ld\n", (long)getpid());
	/* The pid only informs the processes that wait: not writing it is no failure. */
	if (ftruncate(*fd, 0) < 0 || pwrite(*fd, pid.buf, pid.len, 0) < 0)
		strbuf_reset(&pid);
	ret = 0;
out:
	if (ret && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	strbuf_release(&path);
	strbuf_release(&pid);
	return ret;
}

int worktree_trylock(const char *worktree, bool create, int *fd)
{
	struct strbuf path = STRBUF_INIT;
	int ret = -1;
	strbuf_addf(&path, "%s.lock", worktree);
	*fd = open_own(path.buf, O_RDWR | (create ? O_CREAT : 0), 0644);
	if (*fd < 0 && !create && errno == ENOENT) {
		ret = 0;
		goto out;
	}
	if (*fd < 0) {
		error("cannot open the lock file %s: %s", path.buf, fs_strerror(errno));
		goto out;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		ret = errno == EWOULDBLOCK ? 1 : -1;
		if (ret < 0)
			error("cannot lock %s: %s", path.buf, strerror(errno));
		close(*fd);
		*fd = -1;
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&path);
	return ret;
}

void worktree_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* releases the flock */
}

/* The pid of a name "X.tmp-PID", 0 when the name is not of that form. */
static long tmp_pid(const char *name)
{
	const char *p = strstr(name, ".tmp-");
	char *end;
	long pid;
	if (!p)
		return 0;
	while (strstr(p + 1, ".tmp-"))
		p = strstr(p + 1, ".tmp-");
	p += strlen(".tmp-");
	if (*p < '1' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	return !*end && !errno && pid > 0 ? pid : 0;
}

void worktree_remove_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct strbuf path = STRBUF_INIT;
	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid = tmp_pid(e->d_name);
		/* EPERM: the process exists (another user's). */
		if (!pid || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		remove_tree(path.buf);
	}
	closedir(d);
	strbuf_release(&path);
}
