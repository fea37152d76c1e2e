#ifndef REVPERF_QUEUE_WORKER_H
#define REVPERF_QUEUE_WORKER_H

/*
 * A worker of the queue (docs/team.md): claims jobs (store_jobs.h), runs each as a revperf
 * command of its own (compare, history, bisect: the same engine a developer runs, which
 * builds in this machine's state directory, stores every run as it ends and, when a job is
 * run again, reuses the runs already stored), and renews the job's lease while the command
 * runs. The command runs as a child process that dies with the worker (PR_SET_PDEATHSIG):
 * a worker killed with -9 leaves no benchmark running; its lease runs out and another
 * worker, or this one restarted, resumes the job.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;

struct worker_opts {
	const char *exe;	      /* the revperf binary the jobs run with */
	const char *store_location;   /* the store, passed on to each job's command */
	const char *machine;	      /* the machine's name in the store (REVPERF_MACHINE) */
	const char *machine_tag;      /* claims jobs wanting this tag (and untagged ones) */
	const char *log_dir;	      /* each job's output: LOG_DIR/job-ID.log */
	const char *const *pass_args; /* NULL-terminated, after each job's arguments */
	int64_t lease_s;	      /* a lease's length; renewed every third of it */
	int64_t max_attempts;	      /* a job lost this often fails */
	double idle_s;		      /* the wait between claims when the queue is empty */
	bool once;		      /* one job (or none), then return */
	bool fetch; /* `git fetch --tags` before each job (its output in its log) */
	bool quiet; /* no line per job on stderr */
	/* Called before each claim, may be NULL: a job is claimed only when it returns 0 (the
	 * worker's configuration loads; it printed why not). Until then the worker waits
	 * idle_s between checks (with once: returns RP_EINPUT). */
	int (*ready)(void *arg);
	void *ready_arg;
};

struct worker_stats {
	size_t done, failed, lost; /* lost: leases that ran out under this worker */
};

/*
 * Runs jobs until interrupted (SIGINT, SIGTERM: the running job's command is stopped and
 * its job given back to the queue), or after one job with once. *st may be replaced by a
 * new connection when the server was gone longer than the store waits (the worker waits
 * for it as long as it takes). Returns 0, or an RP_* code.
 */
int worker_run(struct store **st, const struct worker_opts *o, struct worker_stats *stats);

/*
 * A job's arguments (a JSON array of strings) -> a NULL-terminated vector of copies
 * (free with worker_argv_free()). Returns 0, or RP_EINPUT with *why set (static text).
 */
int worker_args_parse(const char *json, char ***argv, size_t *argc, const char **why);
void worker_argv_free(char **argv);

#endif
