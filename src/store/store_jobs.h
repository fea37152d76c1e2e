#ifndef REVPERF_STORE_STORE_JOBS_H
#define REVPERF_STORE_STORE_JOBS_H

/*
 * The queue (docs/team.md): jobs submitted for workers to claim, in the table `jobs`.
 * A job is one revperf command line (a comparison with all its benchmarks, one commit of
 * a history, a bisection) that a worker runs on its machine. Its lease is kept in seconds
 * since the epoch on the database's clock (PostgreSQL's now(), SQLite's 'now'): a worker
 * whose own clock is wrong still holds and loses leases on time. A job whose lease ran
 * out goes back to the queue; a worker that claims it runs the same command line again,
 * which reuses the runs already stored (the comparison engine's resumption).
 *
 * Claiming is one statement: on PostgreSQL an UPDATE of the row that a
 * `SELECT ... FOR UPDATE SKIP LOCKED` chose (workers never wait for each other's rows);
 * on SQLite the same UPDATE under the database's write lock.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;

/* The kinds of job: the revperf command each runs. */
#define STORE_JOB_COMPARE "compare"
#define STORE_JOB_HISTORY_COMMIT "history-commit"
#define STORE_JOB_BISECT "bisect"

struct store_job {
	int64_t id;
	char *kind, *args, *label; /* args: a JSON array of the command's arguments */
	char *machine_tag;	   /* NULL: any worker */
	char *state;		   /* queued, running, done, failed */
	char *worker, *machine;	   /* who holds or held it */
	char *progress, *error;
	int64_t lease_until; /* 0 when none */
	int64_t attempts;
	int64_t exit_code;			       /* -1 when none */
	int64_t submitted_at, started_at, finished_at; /* 0 when none */
	int64_t now; /* the database's clock when the job was read */
};
void store_job_release(struct store_job *job);
void store_jobs_free(struct store_job *jobs, size_t n);

/* Queues a job (state queued); *id its id. 0 or RP_EINTERNAL. */
int store_job_submit(struct store *st, const char *kind, const char *args, const char *label,
		     const char *machine_tag, int64_t *id);

/*
 * After many jobs were queued at once (revperf submit of a long history): the planner's
 * statistics of the table made again (ANALYZE), so that a claim walks the open jobs' index
 * at once instead of sorting them all (PostgreSQL's autovacuum does the same, but up to a
 * minute later). 0 or RP_EINTERNAL.
 */
int store_jobs_analyze(struct store *st);

/*
 * Claims the oldest job this worker may take: queued, or running with its lease run out
 * (its worker gone), wanting no machine tag or `machine_tag`. A job whose lease ran out
 * `max_attempts` times already is marked failed instead ("lost its worker N times").
 * *claimed false when there is none; else out filled (release it). 0 or RP_EINTERNAL.
 */
int store_job_claim(struct store *st, const char *worker, const char *machine,
		    const char *machine_tag, int64_t lease_s, int64_t max_attempts,
		    struct store_job *out, bool *claimed);

/*
 * Renews the lease of job id held by worker for lease_s more seconds, with its progress
 * (NULL keeps it). *held false when the worker no longer holds it (the lease ran out
 * and another worker took the job). 0 or RP_EINTERNAL.
 */
int store_job_renew(struct store *st, int64_t id, const char *worker, int64_t lease_s,
		    const char *progress, bool *held);

/*
 * Ends job id held by worker: done (ok) or failed with error; exit_code the command's
 * status. *held as store_job_renew(). 0 or RP_EINTERNAL.
 */
int store_job_finish(struct store *st, int64_t id, const char *worker, bool ok, int64_t exit_code,
		     const char *error, bool *held);

/*
 * Gives job id held by worker back to the queue (queued, no worker, no lease): a worker
 * stopped by the user. *held as store_job_renew(). 0 or RP_EINTERNAL.
 */
int store_job_give_back(struct store *st, int64_t id, const char *worker, bool *held);

/* Every job, oldest first (states: NULL for all, else one). 0 or RP_EINTERNAL. */
int store_jobs_list(struct store *st, const char *state, struct store_job **out, size_t *n);

/*
 * A job's progress, without clocks: the largest run id now (*max_id, 0 when none), and
 * how many runs (warm-ups included) machine `machine` (its host name as stored) stored
 * with an id above after_id (*n). 0 or RP_EINTERNAL.
 */
int store_runs_max_id(struct store *st, int64_t *max_id);
int store_machine_runs_after(struct store *st, const char *machine, int64_t after_id, int64_t *n);

/* The database's clock, seconds since the epoch. 0 or RP_EINTERNAL. */
int store_now(struct store *st, int64_t *now);

#endif
