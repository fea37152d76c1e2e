/*
 * bench/queue_claim_bench STORE QUEUED CLAIMS
 *
 * The queue's own cost, without running anything (bench/queue.sh): queues QUEUED jobs in
 * STORE (a PostgreSQL connection string or an SQLite file; a database without revperf's
 * schema, or an empty file) in one transaction, then claims and finishes CLAIMS of them
 * one after another through the store API the way `revperf worker` does
 * (store_job_claim(): on PostgreSQL the UPDATE of the row FOR UPDATE SKIP LOCKED chose,
 * then store_job_finish()), timing each claim. Prints the time to queue, each claim's
 * latency (median, 90th and 99th percentile, maximum) and the claims per second with
 * their finishes. After 1,000 jobs or more, the table's statistics are made again as
 * `revperf submit` does (store_jobs_analyze()). Exit 0, 2 for bad arguments, 3 when the store
 * fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store.h"
#include "store/store_jobs.h"
#include "util/common.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long parse_arg(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 1 || v > 10000000) {
		fprintf(stderr, "queue_claim_bench: %s '%s' is not a number from 1 to 10000000\n",
			what, s);
		exit(2);
	}
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct store *st;
	long queued, claims;
	double t0, t1, *lat;
	char label[64];

	if (argc != 4) {
		fprintf(stderr, "usage: queue_claim_bench STORE QUEUED CLAIMS\n");
		return 2;
	}
	queued = parse_arg(argv[2], "QUEUED");
	claims = parse_arg(argv[3], "CLAIMS");
	if (claims > queued) {
		fprintf(stderr, "queue_claim_bench: CLAIMS above QUEUED\n");
		return 2;
	}
	if (store_open(argv[1], 0, &st))
		return 3;
	t0 = now_s();
	if (store_transaction_begin(st))
		return 3;
	for (long i = 0; i < queued; i++) {
		int64_t id;
		snprintf(label, sizeof(label), "compare c%ld~1 c%ld", i, i);
		if (store_job_submit(st, STORE_JOB_COMPARE, "[\"a\", \"b\"]", label, NULL, &id))
			return 3;
	}
	if (store_transaction_commit(st))
		return 3;
	/* As revperf submit does after 1,000 jobs at once. */
	if (queued >= 1000 && store_jobs_analyze(st))
		return 3;
	t1 = now_s();
	printf("%s: queued %ld jobs in %.3f s (one transaction)\n", store_engine(st), queued,
	       t1 - t0);

	lat = xmallocarray((size_t)claims, sizeof(*lat));
	t0 = now_s();
	for (long i = 0; i < claims; i++) {
		struct store_job job;
		bool claimed, held;
		double c0 = now_s();
		if (store_job_claim(st, "bench (pid 0)", "bench", NULL, 60, 3, &job, &claimed))
			return 3;
		lat[i] = now_s() - c0;
		if (!claimed) {
			fprintf(stderr, "queue_claim_bench: the queue ran dry after %ld claims\n",
				i);
			return 3;
		}
		if (store_job_finish(st, job.id, "bench (pid 0)", true, 0, NULL, &held) || !held)
			return 3;
		store_job_release(&job);
	}
	t1 = now_s();
	qsort(lat, (size_t)claims, sizeof(*lat), cmp_double);
	printf("%s: %ld claims with %ld queued at the start: claim latency median %.2f ms, "
	       "p90 %.2f ms, p99 %.2f ms, max %.2f ms; %.0f claims+finishes per second\n",
	       store_engine(st), claims, queued, lat[(claims - 1) / 2] * 1e3,
	       lat[(long)((double)(claims - 1) * 0.9)] * 1e3,
	       lat[(long)((double)(claims - 1) * 0.99)] * 1e3, lat[claims - 1] * 1e3,
	       (double)claims / (t1 - t0));
	free(lat);
	store_close(st);
	return 0;
}
