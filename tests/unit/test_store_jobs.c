/*
 * Unit tests of the queue's table (store/store_jobs.c) and the worker's reading of a job's
 * arguments (queue/worker.c), on SQLite, and on PostgreSQL when tests/pg/run.sh sets
 * REVPERF_TEST_PG: claims oldest first, machine tags, leases on the database's clock
 * (renewed, lost, taken over), ends, a job given back, a job lost three times failed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "queue/worker.h"
#include "store/store.h"
#include "store/store_jobs.h"
#include "util/common.h"
#include "tmp_db.h"

struct fixture {
	char *path;
	struct store *st;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	f->path = tmp_db_path();
	assert_int_equal(store_open(f->path, 0, &f->st), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	store_close(f->st);
	tmp_db_remove(f->path);
	free(f);
	return 0;
}

static int64_t submit(struct store *st, const char *label, const char *tag)
{
	int64_t id = 0;
	assert_int_equal(store_job_submit(st, STORE_JOB_COMPARE, "[\"a\", \"b\"]", label, tag, &id),
			 0);
	assert_true(id > 0);
	return id;
}

/* Claims as worker w with tag; the claimed job's id, 0 when none. */
static int64_t claim(struct store *st, const char *w, const char *tag, int64_t lease_s)
{
	struct store_job job;
	bool claimed = false;
	int64_t id;
	assert_int_equal(store_job_claim(st, w, "m", tag, lease_s, 3, &job, &claimed), 0);
	if (!claimed)
		return 0;
	assert_string_equal(job.state, "running");
	assert_string_equal(job.worker, w);
	id = job.id;
	store_job_release(&job);
	return id;
}

static void test_claim_order_and_tags(void **state)
{
	struct fixture *f = *state;
	int64_t a = submit(f->st, "one", NULL), b = submit(f->st, "two", "arm"),
		c = submit(f->st, "three", NULL);
	/* Untagged worker: the untagged jobs, oldest first, each once. */
	assert_int_equal(claim(f->st, "w1", NULL, 60), a);
	assert_int_equal(claim(f->st, "w1", NULL, 60), c);
	assert_int_equal(claim(f->st, "w1", NULL, 60), 0);
	/* A worker of another tag takes nothing; of the tag, its job. */
	assert_int_equal(claim(f->st, "w2", "x86", 60), 0);
	assert_int_equal(claim(f->st, "w2", "arm", 60), b);
	assert_int_equal(claim(f->st, "w3", "arm", 60), 0);
}

static void test_lease_on_the_database_clock(void **state)
{
	struct fixture *f = *state;
	struct store_job *jobs;
	size_t n;
	int64_t now = 0, id = submit(f->st, "one", NULL);
	bool held = false;

	assert_int_equal(store_now(f->st, &now), 0);
	assert_int_equal(claim(f->st, "w1", NULL, 60), id);
	assert_int_equal(store_jobs_list(f->st, "running", &jobs, &n), 0);
	assert_int_equal(n, 1);
	/* Set from the database's clock: within a few seconds of its now, 60 s ahead. */
	assert_true(jobs[0].lease_until >= now + 59 && jobs[0].lease_until <= now + 65);
	assert_int_equal(jobs[0].attempts, 1);
	store_jobs_free(jobs, n);
	/* Held: nobody else claims it; renewing keeps it and records the progress. */
	assert_int_equal(claim(f->st, "w2", NULL, 60), 0);
	assert_int_equal(store_job_renew(f->st, id, "w1", 60, "3 runs stored", &held), 0);
	assert_true(held);
	assert_int_equal(store_jobs_list(f->st, NULL, &jobs, &n), 0);
	assert_string_equal(jobs[0].progress, "3 runs stored");
	store_jobs_free(jobs, n);
	/* A lease that ran out (renewed into the past): the next claim takes it over, and
	 * its old holder finds it no longer held, for renewing as for ending. */
	assert_int_equal(store_job_renew(f->st, id, "w1", -10, NULL, &held), 0);
	assert_true(held);
	assert_int_equal(claim(f->st, "w2", NULL, 60), id);
	assert_int_equal(store_job_renew(f->st, id, "w1", 60, NULL, &held), 0);
	assert_false(held);
	assert_int_equal(store_job_finish(f->st, id, "w1", true, 0, NULL, &held), 0);
	assert_false(held);
	/* Its new holder ends it: done, with its exit code, no lease. */
	assert_int_equal(store_job_finish(f->st, id, "w2", false, 2, "exit 2: no", &held), 0);
	assert_true(held);
	assert_int_equal(store_jobs_list(f->st, NULL, &jobs, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(jobs[0].state, "failed");
	assert_string_equal(jobs[0].error, "exit 2: no");
	assert_int_equal(jobs[0].exit_code, 2);
	assert_int_equal(jobs[0].attempts, 2);
	assert_int_equal(jobs[0].lease_until, 0);
	assert_true(jobs[0].finished_at >= jobs[0].started_at);
	store_jobs_free(jobs, n);
	assert_int_equal(claim(f->st, "w3", NULL, 60), 0);
}

static void test_give_back_and_lost_three_times(void **state)
{
	struct fixture *f = *state;
	struct store_job *jobs;
	size_t n;
	int64_t id = submit(f->st, "one", NULL);
	bool held = false;

	assert_int_equal(claim(f->st, "w1", NULL, 60), id);
	assert_int_equal(store_job_give_back(f->st, id, "w1", &held), 0);
	assert_true(held);
	assert_int_equal(store_jobs_list(f->st, "queued", &jobs, &n), 0);
	assert_int_equal(n, 1);
	assert_null(jobs[0].worker);
	store_jobs_free(jobs, n);
	/* Claimed twice more, each lease run out: the third loss fails it at the next claim. */
	assert_int_equal(claim(f->st, "w2", NULL, -10), id);
	assert_int_equal(claim(f->st, "w3", NULL, -10), id);
	assert_int_equal(claim(f->st, "w4", NULL, 60), 0);
	assert_int_equal(store_jobs_list(f->st, "failed", &jobs, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(jobs[0].attempts, 3);
	assert_non_null(strstr(jobs[0].error, "lost its worker 3 times"));
	store_jobs_free(jobs, n);
}

static void test_args_parse(void **state)
{
	char **argv;
	size_t argc;
	const char *why = NULL;
	(void)state;
	assert_int_equal(worker_args_parse("[\"a\", \"--runs\", \"3..3\"]", &argv, &argc, &why), 0);
	assert_int_equal(argc, 3);
	assert_string_equal(argv[1], "--runs");
	assert_null(argv[3]);
	worker_argv_free(argv);
	assert_int_equal(worker_args_parse("{\"a\": 1}", &argv, &argc, &why), RP_EINPUT);
	assert_string_equal(why, "its arguments are not a JSON array");
	assert_int_equal(worker_args_parse("[\"a\", 2]", &argv, &argc, &why), RP_EINPUT);
	assert_string_equal(why, "its arguments are not all strings");
	assert_int_equal(worker_args_parse(NULL, &argv, &argc, &why), RP_EINPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_claim_order_and_tags, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lease_on_the_database_clock, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_give_back_and_lost_three_times, setup, teardown),
	    cmocka_unit_test(test_args_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
