/*
 * The worker's loop (worker.h): claim, run the job's command as a child, renew the lease
 * while it runs, record how it ended.
 */
#include "queue/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_jobs.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/interrupt.h"

/* The command a kind of job runs. */
static const char *kind_command(const char *kind)
{
	if (!strcmp(kind, STORE_JOB_COMPARE))
		return "compare";
	if (!strcmp(kind, STORE_JOB_HISTORY_COMMIT))
		return "history";
	if (!strcmp(kind, STORE_JOB_BISECT))
		return "bisect";
	return NULL;
}

int worker_args_parse(const char *text, char ***argv, size_t *argc, const char **why)
{
	json_error_t jerr;
	json_t *root = json_loads(text ? text : "", 0, &jerr), *v;
	size_t i;

	*argv = NULL;
	*argc = 0;
	if (!root || !json_is_array(root)) {
		json_decref(root);
		*why = "its arguments are not a JSON array";
		return RP_EINPUT;
	}
	*argv = xcalloc(json_array_size(root) + 1, sizeof(**argv));
	json_array_foreach(root, i, v)
	{
		if (!json_is_string(v)) {
			json_decref(root);
			worker_argv_free(*argv);
			*argv = NULL;
			*why = "its arguments are not all strings";
			return RP_EINPUT;
		}
		(*argv)[(*argc)++] = xstrdup(json_string_value(v));
	}
	json_decref(root);
	return 0;
}

void worker_argv_free(char **argv)
{
	if (!argv)
		return;
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

/* Waits `seconds`, or until an interrupt asks to stop. */
static void wait_s(double seconds)
{
	double until = mono_s() + seconds;
	while (mono_s() < until && !interrupt_requested())
		nap(0.05);
}

/*
 * A store that lost its server for longer than the store waits is closed and opened
 * again: after 2 s, then at intervals that double up to a minute (each failure is one
 * error line), until it answers or the user interrupts. Returns 0 or RP_EINTERRUPT.
 */
static int reconnect(struct store **st, const struct worker_opts *o)
{
	double wait = 2.0;
	if (*st && !store_unreachable(*st))
		return 0;
	store_close(*st);
	*st = NULL;
	warning("the store cannot be reached; the worker opens it again until it answers");
	while (!interrupt_requested()) {
		wait_s(wait);
		if (!store_open(o->store_location, STORE_OPEN_EXISTING, st)) {
			warning("the store answers again; the worker goes on");
			return 0;
		}
		store_close(*st);
		*st = NULL;
		wait = wait * 2 > 60 ? 60 : wait * 2;
	}
	return RP_EINTERRUPT;
}

/*
 * `git fetch --quiet --tags` in the worker's clone, its output appended to the job's log,
 * so that commits submitted after the clone was made are there. A failure is noted in the
 * log and on stderr; the job runs anyway (its command then says which commit is missing).
 */
static void fetch_commits(const struct worker_opts *o, const char *log_path)
{
	int fd = open_own(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644), status = 0;
	pid_t pid;
	if (fd < 0)
		return;
	dprintf(fd, "== git fetch --quiet --tags ==\n");
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execlp("git", "git", "fetch", "--quiet", "--tags", (char *)NULL);
		_exit(127);
	}
	close(fd);
	if (pid < 0) {
		warning("cannot run git fetch: %s", strerror(errno));
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		warning("git fetch failed before a job; see %s", log_path);
	(void)o;
}

/* Starts the job's command: its pid, or -1 after an error line. */
static pid_t start_job(const struct worker_opts *o, const struct store_job *job,
		       const char *command, char **args, size_t nargs, const char *log_path)
{
	pid_t parent = getpid(), pid;
	int fd = open_own(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0) {
		error("cannot write the job's log %s: %s", log_path, fs_strerror(errno));
		return -1;
	}
	/* One log per job and worker's state directory: each attempt says where it starts. */
	dprintf(fd, "== revperf worker %s: job %lld (%s), attempt %lld ==\n", o->machine,
		(long long)job->id, job->label, (long long)job->attempts);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		error("cannot start a job: fork: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (pid == 0) {
		size_t npass = 0, n = 0;
		const char **argv;
		while (o->pass_args && o->pass_args[npass])
			npass++;
		argv = xcalloc(nargs + npass + 6, sizeof(*argv));
		/* Dies with the worker, even of kill -9: nothing measures for a lost lease. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(137);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
		argv[n++] = o->exe;
		argv[n++] = command;
		/* revperf's options first: a job's arguments may end with "--" and more. */
		argv[n++] = "-q";
		argv[n++] = "--store";
		argv[n++] = o->store_location;
		for (size_t i = 0; i < npass; i++)
			argv[n++] = o->pass_args[i];
		for (size_t i = 0; i < nargs; i++)
			argv[n++] = args[i];
		argv[n] = NULL;
		if (o->machine)
			setenv("REVPERF_MACHINE", o->machine, 1);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execv(o->exe, (char *const *)argv);
		fprintf(stderr, "revperf worker: cannot run %s: %s\n", o->exe, strerror(errno));
		_exit(127);
	}
	close(fd);
	return pid;
}

/*
 * What the job's log says went wrong, into out: its last error line ("revperf: error:
 * ..."), else its last line that says something.
 */
static void log_error(const char *log_path, struct strbuf *out)
{
	static const char prefix[] = "revperf: error: ";
	FILE *f = fopen(log_path, "r");
	char line[1024];
	bool have_error = false;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		bool is_error = !strncmp(line, prefix, sizeof(prefix) - 1);
		while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
			line[--n] = '\0';
		if (!n || (have_error && !is_error))
			continue;
		have_error = have_error || is_error;
		strbuf_reset(out);
		strbuf_addstr(out, is_error ? line + sizeof(prefix) - 1 : line);
	}
	fclose(f);
}

/* The progress a renewal records: runs this machine stored since the claim. */
static void progress_text(struct store *st, const struct worker_opts *o, int64_t base_run,
			  struct strbuf *out)
{
	int64_t n = 0;
	strbuf_reset(out);
	if (!store_machine_runs_after(st, o->machine, base_run, &n))
		strbuf_addf(out, "%lld run%s stored", (long long)n, n == 1 ? "" : "s");
}

/*
 * Waits up to s seconds for the command pid to end, or a signal: on its pidfd (Linux 5.3;
 * the job's end is seen at once, not at the next look), else a nap of 10 ms.
 */
static void wait_child(int pidfd, double s)
{
	struct pollfd p = {pidfd, POLLIN, 0};
	if (pidfd < 0 || poll(&p, 1, s > 0 ? (int)(s * 1000) + 1 : 0) < 0)
		nap(0.01);
}

enum job_end { JOB_ENDED, JOB_LOST, JOB_STOPPED };

/*
 * Waits for the job's command, renewing the lease every third of it. *status its wait
 * status when JOB_ENDED; JOB_LOST when the lease was taken by another worker (the command
 * killed), JOB_STOPPED when the user interrupted (the command stopped with SIGTERM).
 */
static enum job_end watch(struct store **st, const struct worker_opts *o,
			  const struct store_job *job, const char *worker, pid_t pid,
			  int64_t base_run, int *status)
{
	double every = (double)o->lease_s / 3.0, next = mono_s() + every;
	struct strbuf progress = STRBUF_INIT;
	enum job_end end = JOB_ENDED;
#ifdef SYS_pidfd_open
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
	int pidfd = -1;
#endif

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			*status = 0x7f00; /* not ours any more: recorded as failed */
			break;
		}
		if (interrupt_requested()) {
			kill(pid, SIGTERM);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			end = JOB_STOPPED;
			break;
		}
		if (mono_s() >= next) {
			bool held = true;
			if (reconnect(st, o) == 0) {
				progress_text(*st, o, base_run, &progress);
				if (store_job_renew(*st, job->id, worker, o->lease_s,
						    progress.len ? progress.buf : NULL, &held))
					held = true; /* the server is away: try again soon */
			}
			if (!held) {
				warning("job %lld: its lease ran out and another worker took it; "
					"stopping its command here",
					(long long)job->id);
				kill(pid, SIGKILL);
				while (waitpid(pid, status, 0) < 0 && errno == EINTR)
					;
				end = JOB_LOST;
				break;
			}
			next = mono_s() + every;
		}
		wait_child(pidfd, next - mono_s());
	}
	if (pidfd >= 0)
		close(pidfd);
	strbuf_release(&progress);
	return end;
}

/* Records how the job's command ended; counts it. */
static int record_end(struct store **st, const struct worker_opts *o, const struct store_job *job,
		      const char *worker, int status, const char *log_path,
		      struct worker_stats *stats)
{
	struct strbuf why = STRBUF_INIT, last = STRBUF_INIT;
	int64_t code = -1;
	bool ok = false, held = false;
	int ret;

	if (WIFEXITED(status)) {
		code = WEXITSTATUS(status);
		/* 0 and 1 are verdicts (no regression; worse, or a bisection without its
		 * culprit): the job did its work. */
		ok = code == 0 || code == 1;
		if (!ok) {
			log_error(log_path, &last);
			strbuf_addf(&why, "exit %lld: %s", (long long)code,
				    last.len ? last.buf : "(no output)");
		}
	} else if (WIFSIGNALED(status)) {
		code = 128 + WTERMSIG(status);
		strbuf_addf(&why, "killed by signal %d (%s)", WTERMSIG(status),
			    strsignal(WTERMSIG(status)));
	} else {
		strbuf_addstr(&why, "its command could not be waited for");
	}
	/* The server may be away at this moment: the end is recorded once it is back. */
	for (;;) {
		if ((ret = reconnect(st, o)))
			break;
		ret = store_job_finish(*st, job->id, worker, ok, code, ok ? NULL : why.buf, &held);
		if (!ret || !store_unreachable(*st))
			break;
	}
	if (!ret && !held) {
		stats->lost++;
		warning("job %lld ended, but its lease had run out and another worker holds it",
			(long long)job->id);
	} else if (!ret) {
		if (ok)
			stats->done++;
		else
			stats->failed++;
		if (!o->quiet)
			fprintf(stderr, "revperf worker: job %lld %s%s%s\n", (long long)job->id,
				ok ? "done" : "failed: ", ok ? "" : why.buf, "");
	}
	strbuf_release(&why);
	strbuf_release(&last);
	return ret;
}

/* Runs one claimed job to its end. */
static int run_job(struct store **st, const struct worker_opts *o, const struct store_job *job,
		   const char *worker, struct worker_stats *stats)
{
	struct strbuf log_path = STRBUF_INIT;
	const char *command = kind_command(job->kind), *why = NULL;
	char **args = NULL;
	size_t nargs = 0;
	int64_t base_run = 0;
	int status = 0, ret = 0;
	bool held;
	pid_t pid;
	enum job_end end;

	strbuf_addf(&log_path, "%s/job-%lld.log", o->log_dir, (long long)job->id);
	if (!command || worker_args_parse(job->args, &args, &nargs, &why)) {
		struct strbuf msg = STRBUF_INIT;
		strbuf_addf(&msg, "not a job this revperf can run: %s",
			    command ? why : "unknown kind");
		ret = store_job_finish(*st, job->id, worker, false, 2, msg.buf, &held);
		if (!ret)
			stats->failed++;
		strbuf_release(&msg);
		goto out;
	}
	if (!o->quiet)
		fprintf(stderr, "revperf worker: job %lld (%s), attempt %lld: log %s\n",
			(long long)job->id, job->label, (long long)job->attempts, log_path.buf);
	if (o->fetch)
		fetch_commits(o, log_path.buf);
	if ((ret = store_runs_max_id(*st, &base_run)))
		goto out;
	if ((pid = start_job(o, job, command, args, nargs, log_path.buf)) < 0) {
		ret =
		    store_job_finish(*st, job->id, worker, false, 3,
				     "the worker could not start its command (see its log)", &held);
		goto out;
	}
	end = watch(st, o, job, worker, pid, base_run, &status);
	if (end == JOB_LOST) {
		stats->lost++;
	} else if (end == JOB_STOPPED) {
		if (!reconnect(st, o))
			store_job_give_back(*st, job->id, worker, &held);
		ret = RP_EINTERRUPT;
	} else {
		ret = record_end(st, o, job, worker, status, log_path.buf, stats);
	}
out:
	worker_argv_free(args);
	strbuf_release(&log_path);
	return ret;
}


int worker_run(struct store **st, const struct worker_opts *o, struct worker_stats *stats)
{
	char host[256];
	struct strbuf worker = STRBUF_INIT;
	bool not_ready = false;
	int ret = 0;

	memset(stats, 0, sizeof(*stats));
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	/* Who holds a lease: the machine's name, and the process (a restarted worker is
	 * another holder: it takes its old job back only once the lease ran out). */
	strbuf_addf(&worker, "%s (host %s, pid %ld)", o->machine, host, (long)getpid());
	if (mkdir_p(o->log_dir)) {
		strbuf_release(&worker);
		return RP_EINPUT;
	}
	while (!interrupt_requested()) {
		struct store_job job;
		bool claimed = false;
		if ((ret = reconnect(st, o)))
			break;
		if (o->ready && o->ready(o->ready_arg)) {
			/* Claimed, the job would fail with the same error: leave it queued. */
			if (o->once) {
				ret = RP_EINPUT;
				break;
			}
			if (!not_ready)
				warning("the worker claims no job until its configuration loads "
					"again (the error above)");
			not_ready = true;
			wait_s(o->idle_s * 10); /* its error again every 20 s */
			continue;
		}
		if (not_ready)
			warning("the configuration loads again; the worker takes jobs");
		not_ready = false;
		if ((ret = store_job_claim(*st, worker.buf, o->machine, o->machine_tag, o->lease_s,
					   o->max_attempts, &job, &claimed))) {
			if (!store_unreachable(*st))
				break;
			continue; /* the server went away: wait for it (reconnect) */
		}
		if (claimed) {
			ret = run_job(st, o, &job, worker.buf, stats);
			store_job_release(&job);
			if (ret && (ret == RP_EINTERRUPT || !*st || !store_unreachable(*st)))
				break;
			ret = 0;
		} else if (!o->once) {
			wait_s(o->idle_s);
		}
		if (o->once)
			break;
	}
	if (!ret && interrupt_requested())
		ret = RP_EINTERRUPT;
	strbuf_release(&worker);
	return ret;
}
