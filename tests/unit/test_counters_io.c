/*
 * Counter series in and out (docs/counters.md): the CSV importer (src/import/counters_csv.c)
 * and the store's run_counters table (src/store/store_counters.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "import/counters_csv.h"
#include "store/store.h"
#include "util/common.h"

#include "capture_stderr.h"
#include "tmp_db.h"

static char tmpdir[] = "/tmp/revperf-test-counters-XXXXXX";

static void write_file(const char *name, const char *text, char *path, size_t size)
{
	FILE *f;
	snprintf(path, size, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Reads `text` as a CSV file; *err gets what was printed on stderr (one line or none). */
static int read_csv(const char *text, struct counters_csv_run **runs, size_t *nr, char *err,
		    size_t err_size)
{
	struct stderr_capture cap;
	char path[4096], *printed;
	size_t alloc = 0;
	int ret;

	write_file("in.csv", text, path, sizeof(path));
	*runs = NULL;
	*nr = 0;
	capture_stderr_begin(&cap);
	ret = counters_csv_read(path, runs, nr, &alloc);
	printed = capture_stderr_end(&cap);
	snprintf(err, err_size, "%s", printed);
	free(printed);
	return ret;
}

static void test_csv_one_run(void **state)
{
	struct counters_csv_run *runs;
	struct sample_series *s;
	size_t nr;
	char err[1024];
	UNUSED(state);

	assert_int_equal(read_csv("timestamp,counter,value\n"
				  "100.5,cpu,0.5\n"
				  "100.6,cpu,0.75\n"
				  "100.5,\"requests, per s\",200\n"
				  "\n"
				  "100.7,cpu,1e-1\r\n",
				  &runs, &nr, err, sizeof(err)),
			 RP_OK);
	assert_string_equal(err, "");
	assert_int_equal(nr, 1);
	assert_int_equal(runs[0].samples.nr, 2);
	s = run_samples_find(&runs[0].samples, "cpu");
	assert_non_null(s);
	assert_int_equal(s->n, 3);
	/* The run starts at its first sample. */
	assert_true(s->t[0] == 0.0 && fabs(s->t[2] - 0.2) < 1e-9);
	assert_true(s->v[1] == 0.75 && s->v[2] == 0.1);
	assert_non_null(run_samples_find(&runs[0].samples, "requests, per s"));
	counters_csv_runs_free(runs, nr);
}

static void test_csv_run_column_and_order(void **state)
{
	struct counters_csv_run *runs;
	struct sample_series *s;
	size_t nr;
	char err[1024];
	UNUSED(state);

	/* Columns in another order, an extra column, two runs, samples out of order. */
	assert_int_equal(read_csv("run,value,host,counter,timestamp\n"
				  "r1,1,h,rss,10\n"
				  "r2,5,h,rss,3\n"
				  "r1,3,h,rss,12\n"
				  "r1,2,h,rss,11\n"
				  "r2,6,h,rss,4\n",
				  &runs, &nr, err, sizeof(err)),
			 RP_OK);
	assert_non_null(strstr(err, "samples out of timestamp order were sorted"));
	assert_int_equal(nr, 2);
	assert_non_null(strstr(runs[0].name, ":r1"));
	s = run_samples_find(&runs[0].samples, "rss");
	assert_int_equal(s->n, 3);
	assert_true(s->v[0] == 1 && s->v[1] == 2 && s->v[2] == 3);
	assert_true(s->t[0] == 0 && s->t[1] == 1 && s->t[2] == 2);
	s = run_samples_find(&runs[1].samples, "rss");
	assert_true(s->n == 2 && s->t[1] == 1 && s->v[1] == 6);
	counters_csv_runs_free(runs, nr);
}

static void expect_bad(const char *text, const char *fragment)
{
	struct counters_csv_run *runs;
	size_t nr;
	char err[1024];

	assert_int_equal(read_csv(text, &runs, &nr, err, sizeof(err)), RP_EINPUT);
	if (!strstr(err, fragment))
		fail_msg("expected '%s' in: %s", fragment, err);
	assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err));
	counters_csv_runs_free(runs, nr);
}

static void test_csv_bad_input(void **state)
{
	UNUSED(state);
	expect_bad("", "empty file");
	expect_bad("timestamp,counter,value\n", "no samples after the header");
	expect_bad("time,counter,value\n1,a,2\n", "in.csv:1: expected a header naming the columns");
	expect_bad("timestamp,counter,value\n1,cpu,nan\n", "in.csv:2: value 'nan' of counter 'cpu' "
							   "is not a finite number");
	expect_bad("timestamp,counter,value\n1,cpu,inf\n", "is not a finite number");
	expect_bad("timestamp,counter,value\n1,cpu,1\nx,cpu,2\n", "in.csv:3: timestamp 'x'");
	expect_bad("timestamp,counter,value\n1,cpu\n", "in.csv:2: 2 fields, expected 3");
	expect_bad("timestamp,counter,value\n1,\"cpu,1\n", "in.csv:2: unterminated quote");
	expect_bad("timestamp,counter,value\n1,,1\n", "in.csv:2: empty counter name");
}

static void test_store_round_trip(void **state)
{
	char path[4096];
	struct store *st;
	struct machine_info m = {"host", "cpu", 2, "6.1", "performance"};
	struct store_build b = {0};
	struct store_comparison c = {0};
	struct store_run run = {0};
	struct store_run_filter f = {0};
	struct store_counter_run *got;
	struct run_samples rs;
	int64_t machine, rev, bench, ids[3];
	size_t n;
	UNUSED(state);

	char file[4096];
	snprintf(file, sizeof(file), "%s/revperf.db", tmpdir);
	snprintf(path, sizeof(path), "%s", tmp_db_at(file));
	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(store_machine(st, &m, &machine), 0);
	assert_int_equal(store_revision(st, "abc123", "s", 1, &rev), 0);
	assert_int_equal(store_benchmark(st, "serve", "./s", &bench), 0);
	b.revision_id = rev;
	b.command = xstrdup("make");
	snprintf(b.status, sizeof(b.status), "ok");
	assert_int_equal(store_build_save(st, &b), 0);
	c.base_build = c.target_build = b.id;
	c.base_label = c.target_label = "x";
	assert_int_equal(store_comparison_new(st, &c), 0);
	run.build_id = b.id;
	run.comparison_id = c.id;
	run.benchmark_id = bench;
	run.machine_id = machine;
	run.side = 'A';
	run.status = RUN_OK;
	run.log_path = "/tmp/x.log";
	run.started_at = 1;
	/* Three runs: two ok with series (one with a big series), one crashed. */
	for (int i = 0; i < 3; i++) {
		run.status = i == 1 ? RUN_CRASHED : RUN_OK;
		assert_int_equal(store_run_insert(st, &run, NULL, NULL, 0), 0);
		ids[i] = run.id;
		run_samples_init(&rs);
		for (int k = 0; k < (i == 2 ? 100000 : 3); k++) {
			assert_int_equal(run_samples_add(&rs, "cpu_user", "cores", k * 0.1, k + i),
					 0);
			assert_int_equal(run_samples_add(&rs, "requests", NULL, k * 0.1, -k), 0);
		}
		assert_int_equal(store_run_counters_save(st, run.id, &rs), 0);
		run_samples_release(&rs);
	}
	f.base_build = f.target_build = b.id;
	f.side = 'A';
	f.benchmark_id = bench;
	f.machine_id = machine;
	assert_int_equal(store_run_counters(st, &f, &got, &n), 0);
	assert_int_equal(n, 2); /* the crashed run is left out */
	assert_true(got[0].run_id == ids[0] && got[1].run_id == ids[2]);
	assert_int_equal(got[0].side, 'A');
	{
		struct sample_series *s = run_samples_find(&got[1].samples, "cpu_user");
		assert_non_null(s);
		assert_string_equal(s->unit, "cores");
		assert_int_equal(s->n, 100000);
		assert_true(s->t[99999] == 99999 * 0.1 && s->v[99999] == 99999 + 2);
		s = run_samples_find(&got[1].samples, "requests");
		assert_null(s->unit);
		assert_true(s->v[5] == -5);
	}
	store_counter_runs_free(got, n);
	assert_int_equal(store_counter_runs_of_revision(st, "abc123", "serve", &got, &n), 0);
	assert_int_equal(n, 2);
	store_counter_runs_free(got, n);
	assert_int_equal(store_counter_runs_of_revision(st, "abc123", "other", &got, &n), 0);
	assert_int_equal(n, 0);
	store_counter_runs_free(got, n);
	store_build_release(&b);
	store_close(st);
}

static int setup(void **state)
{
	UNUSED(state);
	if (!mkdtemp(tmpdir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];
	UNUSED(state);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_csv_one_run),
	    cmocka_unit_test(test_csv_run_column_and_order),
	    cmocka_unit_test(test_csv_bad_input),
	    cmocka_unit_test(test_store_round_trip),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
