/*
 * Unit tests of the I/O spectrum analysis (METHODS.md section 3): the paper's Tables I-III
 * worked example exactly, a range left below (negative Impact), stopped stack traces, a
 * stack trace writing in only some target runs (both ways of counting SC), mean +/- k sd
 * ranges, (stack, file) keys keeping one function's two files apart, the test execution
 * report's top lists, and bad input (each an RP_EINPUT with a message naming the run).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/spectra.h"
#include "util/common.h"
#include "util/input.h"

#include "capture_stderr.h"

static void near_(double got, double want, const char *what, int line)
{
	if (!(fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want))))
		fail_msg("line %d: %s = %.17g, want %.17g", line, what, got, want);
}
#define assert_near(got, want) near_((got), (want), #got, __LINE__)

struct rec {
	const char *stack, *file;
	uint64_t calls, bytes;
};

/* Fills run number `idx` of `runs` from recs (terminated by a NULL stack). */
static void make_run(struct spectra_run *run, const char *side, size_t idx, const struct rec *recs)
{
	char name[64];
	snprintf(name, sizeof(name), "%s run %zu", side, idx);
	spectra_run_init(run, name);
	for (; recs->stack; recs++)
		assert_int_equal(
		    spectra_run_add(run, recs->stack, recs->file, recs->calls, recs->bytes), RP_OK);
}

static void release_runs(struct spectra_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		spectra_run_release(&runs[i]);
}

static const struct spectra_row *row_of(const struct spectra_report *r, const char *stack,
					const char *file)
{
	for (size_t i = 0; i < r->nr_rows; i++) {
		const struct spectra_row *row = &r->rows[i];
		if (strcmp(row->stack, stack))
			continue;
		if (!file ? !row->file : row->file && !strcmp(row->file, file))
			return row;
	}
	fail_msg("no row for %s %s", stack, file ? file : "");
	return NULL;
}

/* ---- the worked example (Tables I-III) ---- */

#define FLUSH "main;commit;flushToDatabase"
#define GEN "main;report;generateReport"
#define CACHE "main;cache;writeCache"

/*
 * Table I: five baseline runs. flushToDatabase writes 50 calls of 900, 1200, 1500, 1000,
 * 1100 bytes per call: range [900, 1500]. generateReport writes 40 calls of 1200, 1604,
 * 1400, 1300, 1500: range [1200, 1604]. Run 1 gives flushToDatabase's bytes in two records
 * of the same (stack, file); run 3 splits them over two files: both must add up.
 */
static const struct rec base_tab1[5][4] = {
    {{FLUSH, "app.db", 50, 45000}, {GEN, "report.html", 40, 48000}, {NULL, NULL, 0, 0}},
    {{FLUSH, "app.db", 20, 24000},
     {GEN, "report.html", 40, 64160},
     {FLUSH, "app.db", 30, 36000},
     {NULL, NULL, 0, 0}},
    {{FLUSH, "app.db", 50, 75000}, {GEN, "report.html", 40, 56000}, {NULL, NULL, 0, 0}},
    {{FLUSH, "app.db", 30, 30000},
     {FLUSH, "app.db-journal", 20, 20000},
     {GEN, "report.html", 40, 52000},
     {NULL, NULL, 0, 0}},
    {{FLUSH, "app.db", 50, 55000}, {GEN, "report.html", 40, 60000}, {NULL, NULL, 0, 0}},
};

/* Table II: three target runs; 50, 50 and 500 calls per run. */
static const struct rec target_tab2[3][4] = {
    {{FLUSH, "app.db", 50, 50000},
     {GEN, "report.html", 50, 110000},
     {CACHE, "cache.bin", 500, 5000000},
     {NULL, NULL, 0, 0}},
    {{CACHE, "cache.bin", 500, 6000000},
     {FLUSH, "app.db", 50, 60000},
     {GEN, "report.html", 50, 100000},
     {NULL, NULL, 0, 0}},
    {{GEN, "report.html", 50, 80000},
     {CACHE, "cache.bin", 500, 4000000},
     {FLUSH, "app.db", 50, 55000},
     {NULL, NULL, 0, 0}},
};

static void test_worked_example(void **state)
{
	struct spectra_run base[5], target[3];
	struct spectra_profile p;
	struct spectra_report r;
	const struct spectra_entry *e;
	const struct spectra_row *row;
	UNUSED(state);

	for (size_t i = 0; i < 5; i++)
		make_run(&base[i], "baseline", i, base_tab1[i]);
	for (size_t i = 0; i < 3; i++)
		make_run(&target[i], "target", i, target_tab2[i]);

	assert_int_equal(spectra_profile_build(base, 5, NULL, &p), RP_OK);
	assert_int_equal(p.nr_runs, 5);
	assert_int_equal(p.nr_entries, 2);
	e = spectra_profile_find(&p, FLUSH, NULL);
	assert_non_null(e);
	assert_near(e->lo, 900);
	assert_near(e->hi, 1500);
	assert_near(e->bpc[3], 1000); /* two files added up */
	assert_near(e->calls_mean, 50);
	assert_int_equal(e->runs_written, 5);
	e = spectra_profile_find(&p, GEN, NULL);
	assert_non_null(e);
	assert_near(e->lo, 1200);
	assert_near(e->hi, 1604);
	assert_near(e->calls_mean, 40);
	assert_null(spectra_profile_find(&p, CACHE, NULL));

	assert_int_equal(spectra_compare(&p, target, 3, NULL, &r), RP_OK);
	/* the report owns its strings and numbers: release its inputs first */
	spectra_profile_release(&p);
	release_runs(base, 5);
	release_runs(target, 3);

	assert_int_equal(r.nr_runs, 3);
	assert_int_equal(r.nr_base_runs, 5);
	assert_int_equal(r.nr_rows, 3);
	assert_int_equal(r.nr_stopped, 0);
	/* ranking: SC ascending */
	assert_string_equal(r.rows[0].stack, CACHE);
	assert_string_equal(r.rows[1].stack, GEN);
	assert_string_equal(r.rows[2].stack, FLUSH);

	row = row_of(&r, FLUSH, NULL);
	assert_near(row->sc, 1);
	assert_near(row->impact, 0);
	assert_near(row->total_impact, 0);
	assert_true(row->has_range);
	assert_near(row->range_diff, 600);
	assert_int_equal(row->runs_written, 3);
	assert_near(row->calls_mean, 50);
	assert_near(row->calls_diff, 0);
	assert_near(row->bpc[0], 1000);
	assert_near(row->bpc[1], 1200);
	assert_near(row->bpc[2], 1100);
	for (size_t j = 0; j < 3; j++)
		assert_int_equal(row->fit[j], SPECTRA_INSIDE);

	row = row_of(&r, GEN, NULL);
	assert_near(row->sc, sqrt(1.0 / 3.0));
	assert_near(round(row->sc * 100) / 100, 0.58);
	assert_int_equal(row->a, 1);
	assert_int_equal(row->n, 3);
	assert_int_equal(row->runs_outside, 2);
	assert_near(row->impact, 496);
	assert_near(row->total_impact, 24800);
	assert_near(row->range_diff, 404);
	assert_int_equal(row->runs_written, 3);
	assert_near(row->calls_mean, 50);
	assert_near(row->calls_diff, 10);
	assert_int_equal(row->fit[0], SPECTRA_OUTSIDE);
	assert_int_equal(row->fit[1], SPECTRA_OUTSIDE);
	assert_int_equal(row->fit[2], SPECTRA_INSIDE);

	row = row_of(&r, CACHE, NULL);
	assert_near(row->sc, 0);
	assert_int_equal(row->a, 0);
	assert_near(row->impact, 10000);
	assert_near(row->total_impact, 5000000);
	assert_false(row->has_range);
	assert_true(isnan(row->range_diff)); /* N/A */
	assert_true(isnan(row->lo) && isnan(row->hi));
	assert_int_equal(row->runs_written, 3);
	assert_near(row->calls_mean, 500);
	assert_near(row->calls_diff, 500);
	assert_near(row->base_calls_mean, 0);
	assert_near(row->bytes_mean, 5000000);
	for (size_t j = 0; j < 3; j++)
		assert_int_equal(row->fit[j], SPECTRA_OUTSIDE);
	assert_null(row->file);

	spectra_report_release(&r);
	spectra_report_release(&r); /* idempotent */
}

/* ---- below the range, ranking ties ---- */

static void test_below_range_and_ties(void **state)
{
	static const struct rec b[3][5] = {
	    {{"main;log;writeLog", "app.log", 10, 1000},
	     {"main;log;writeIndex", "idx", 10, 100},
	     {"main;a;tie", "t", 10, 100},
	     {"main;z;edge", "e", 10, 1000}},
	    {{"main;log;writeLog", "app.log", 10, 2000},
	     {"main;log;writeIndex", "idx", 10, 200},
	     {"main;a;tie", "t", 10, 200},
	     {"main;z;edge", "e", 10, 2000}},
	    {{"main;log;writeLog", "app.log", 10, 1500},
	     {"main;log;writeIndex", "idx", 10, 150},
	     {"main;a;tie", "t", 10, 150},
	     {"main;z;edge", "e", 10, 1500}},
	};
	/*
	 * writeLog: 50, 80 (below [100, 200]), 150; writeIndex and tie: 25, 30 (above
	 * [10, 20]), 15; edge: exactly the bounds 100 and 200 of its range, then 201
	 */
	static const struct rec t[3][5] = {
	    {{"main;log;writeLog", "app.log", 10, 500},
	     {"main;log;writeIndex", "idx", 10, 250},
	     {"main;a;tie", "t", 10, 250},
	     {"main;z;edge", "e", 10, 1000}},
	    {{"main;log;writeLog", "app.log", 10, 800},
	     {"main;log;writeIndex", "idx", 10, 300},
	     {"main;a;tie", "t", 10, 300},
	     {"main;z;edge", "e", 10, 2000}},
	    {{"main;log;writeLog", "app.log", 10, 1500},
	     {"main;log;writeIndex", "idx", 10, 150},
	     {"main;a;tie", "t", 10, 150},
	     {"main;z;edge", "e", 10, 2010}},
	};
	struct spectra_run base[3], target[3];
	struct spectra_profile p;
	struct spectra_report r;
	const struct spectra_row *row;
	UNUSED(state);

	for (size_t i = 0; i < 3; i++) {
		make_run(&base[i], "baseline", i, b[i]);
		make_run(&target[i], "target", i, t[i]);
	}
	/* writeIndex and tie use 10-byte units: their ranges are [10, 20] */
	assert_int_equal(spectra_profile_build(base, 3, NULL, &p), RP_OK);
	assert_near(spectra_profile_find(&p, "main;log;writeIndex", NULL)->lo, 10);
	assert_int_equal(spectra_compare(&p, target, 3, NULL, &r), RP_OK);
	assert_int_equal(r.nr_rows, 4);

	/* bounds are inclusive */
	row = row_of(&r, "main;z;edge", NULL);
	assert_int_equal(row->fit[0], SPECTRA_INSIDE);
	assert_int_equal(row->fit[1], SPECTRA_INSIDE);
	assert_int_equal(row->fit[2], SPECTRA_OUTSIDE);
	assert_near(row->sc, sqrt(2.0 / 3.0));
	assert_near(row->impact, 1);
	assert_near(row->total_impact, 10);
	assert_string_equal(r.rows[3].stack, "main;z;edge");

	row = row_of(&r, "main;log;writeLog", NULL);
	assert_near(row->sc, sqrt(1.0 / 3.0));
	assert_int_equal(row->runs_outside, 2);
	assert_near(row->impact, -35); /* (50 - 100 + 80 - 100) / 2 */
	assert_near(row->total_impact, -350);
	assert_near(row->range_diff, 100);

	row = row_of(&r, "main;log;writeIndex", NULL);
	assert_near(row->impact, 7.5); /* (25 - 20 + 30 - 20) / 2 */
	assert_near(row->total_impact, 75);

	/* same SC: |TotalImpact| descending (the negative one first), then the key */
	assert_string_equal(r.rows[0].stack, "main;log;writeLog");
	assert_string_equal(r.rows[1].stack, "main;a;tie");
	assert_string_equal(r.rows[2].stack, "main;log;writeIndex");

	spectra_report_release(&r);
	spectra_profile_release(&p);
	release_runs(base, 3);
	release_runs(target, 3);
}

/* ---- stopped stack traces, and one writing in only some runs ---- */

static void test_stopped_and_partial(void **state)
{
	static const struct rec b[3][5] = {
	    {{"main;work", "out", 10, 1000},
	     {"main;old;legacyDump", "dump", 4, 400},
	     {"main;old;bigDump", "big", 1, 100000},
	     {"main;err;logError", "err.log", 1, 64},
	     {NULL, NULL, 0, 0}},
	    {{"main;work", "out", 10, 1000},
	     {"main;old;legacyDump", "dump", 2, 200},
	     {"main;old;bigDump", "big", 1, 100000},
	     {NULL, NULL, 0, 0}},
	    {{"main;work", "out", 10, 1000},
	     {"main;old;bigDump", "big", 1, 100000},
	     {NULL, NULL, 0, 0}},
	};
	/* logError writes in target runs 0 and 2, inside its range; newOnce only in run 1 */
	static const struct rec t[4][3] = {
	    {{"main;work", "out", 10, 1000}, {"main;err;logError", "err.log", 1, 64}},
	    {{"main;work", "out", 10, 1000}, {"main;new;newOnce", "n", 2, 600}},
	    {{"main;work", "out", 10, 1000}, {"main;err;logError", "err.log", 1, 64}},
	    {{"main;work", "out", 10, 1000}, {"main;zero", "z", 0, 0}},
	};
	struct spectra_run base[3], target[4];
	struct spectra_profile p;
	struct spectra_report r;
	struct spectra_opts o;
	const struct spectra_row *row;
	UNUSED(state);

	for (size_t i = 0; i < 3; i++)
		make_run(&base[i], "baseline", i, b[i]);
	for (size_t i = 0; i < 4; i++)
		make_run(&target[i], "target", i, t[i]);
	assert_int_equal(target[3].nr, 1); /* the 0/0 record was dropped */

	assert_int_equal(spectra_profile_build(base, 3, NULL, &p), RP_OK);
	assert_int_equal(spectra_profile_find(&p, "main;err;logError", NULL)->runs_written, 1);
	assert_near(spectra_profile_find(&p, "main;old;legacyDump", NULL)->calls_mean, 2);
	assert_true(isnan(spectra_profile_find(&p, "main;old;legacyDump", NULL)->bpc[2]));

	assert_int_equal(spectra_compare(&p, target, 4, NULL, &r), RP_OK);
	assert_int_equal(r.nr_rows, 3);
	assert_int_equal(r.nr_stopped, 2);
	/* base bytes per run descending */
	assert_string_equal(r.stopped[0].stack, "main;old;bigDump");
	assert_near(r.stopped[0].base_bytes_mean, 100000);
	assert_near(r.stopped[0].base_calls_mean, 1);
	assert_int_equal(r.stopped[0].base_runs_written, 3);
	assert_string_equal(r.stopped[1].stack, "main;old;legacyDump");
	assert_near(r.stopped[1].base_calls_mean, 2); /* (4 + 2 + 0) / 3 */
	assert_near(r.stopped[1].base_bytes_mean, 200);
	assert_near(r.stopped[1].lo, 100);
	assert_near(r.stopped[1].hi, 100);
	assert_int_equal(r.stopped[1].base_runs_written, 2);
	for (size_t i = 0; i < r.nr_rows; i++)
		assert_null(strstr(r.rows[i].stack, ";old;"));

	/* default: SC over the runs where it wrote */
	row = row_of(&r, "main;err;logError", NULL);
	assert_int_equal(row->runs_written, 2);
	assert_int_equal(row->n, 2);
	assert_near(row->sc, 1);
	assert_near(row->impact, 0);
	assert_near(row->calls_mean, 0.5);
	assert_near(row->calls_diff, 0.5 - 1.0 / 3.0);
	assert_int_equal(row->fit[0], SPECTRA_INSIDE);
	assert_int_equal(row->fit[1], SPECTRA_ABSENT);
	assert_int_equal(row->fit[2], SPECTRA_INSIDE);
	assert_int_equal(row->fit[3], SPECTRA_ABSENT);
	assert_true(isnan(row->bpc[1]));
	row = row_of(&r, "main;new;newOnce", NULL);
	assert_int_equal(row->runs_written, 1);
	assert_near(row->sc, 0);
	assert_near(row->impact, 300); /* its bytes per call */
	assert_near(row->calls_mean, 0.5);
	assert_near(row->total_impact, 150);
	/* ranking: newOnce (SC 0) first, then the two SC 1 rows by key */
	assert_string_equal(r.rows[0].stack, "main;new;newOnce");
	assert_string_equal(r.rows[1].stack, "main;err;logError");
	assert_string_equal(r.rows[2].stack, "main;work");
	spectra_report_release(&r);

	/* absent_as_outside: n = all four target runs */
	spectra_opts_init(&o);
	o.absent_as_outside = true;
	assert_int_equal(spectra_compare(&p, target, 4, &o, &r), RP_OK);
	assert_true(r.absent_as_outside);
	row = row_of(&r, "main;err;logError", NULL);
	assert_int_equal(row->n, 4);
	assert_int_equal(row->a, 2);
	assert_near(row->sc, sqrt(0.5));
	assert_near(row->impact, 0);
	assert_int_equal(row->runs_outside, 0);
	assert_near(row_of(&r, "main;work", NULL)->sc, 1);
	assert_int_equal(r.nr_stopped, 2);
	spectra_report_release(&r);

	spectra_profile_release(&p);
	release_runs(base, 3);
	release_runs(target, 4);
}

/* ---- mean +/- k sd ---- */

static void test_sd_range(void **state)
{
	static const struct rec b[3][2] = {
	    {{"main;w", "f", 10, 1000}},
	    {{"main;w", "f", 10, 2000}},
	    {{"main;w", "f", 10, 3000}},
	};
	static const struct rec t[1][2] = {{{"main;w", "f", 10, 1200}}};
	struct spectra_run base[3], target[1];
	struct spectra_profile p;
	struct spectra_report r;
	struct spectra_opts o;
	const struct spectra_entry *e;
	UNUSED(state);

	for (size_t i = 0; i < 3; i++)
		make_run(&base[i], "baseline", i, b[i]);
	make_run(&target[0], "target", 0, t[0]);
	spectra_opts_init(&o);
	o.range = SPECTRA_RANGE_SD;

	/* values 100, 200, 300: mean 200, sample sd 100 */
	o.k = 0.5;
	assert_int_equal(spectra_profile_build(base, 3, &o, &p), RP_OK);
	assert_int_equal(p.range, SPECTRA_RANGE_SD);
	e = spectra_profile_find(&p, "main;w", NULL);
	assert_near(e->bpc_mean, 200);
	assert_near(e->bpc_sd, 100);
	assert_near(e->lo, 150);
	assert_near(e->hi, 250);
	assert_int_equal(spectra_compare(&p, target, 1, &o, &r), RP_OK);
	assert_near(r.rows[0].sc, 0);
	assert_near(r.rows[0].impact, -30); /* 120 - 150 */
	assert_near(r.rows[0].total_impact, -300);
	assert_near(r.rows[0].range_diff, 100);
	spectra_report_release(&r);
	spectra_profile_release(&p);

	o.k = 1;
	assert_int_equal(spectra_profile_build(base, 3, &o, &p), RP_OK);
	assert_int_equal(spectra_compare(&p, target, 1, &o, &r), RP_OK);
	assert_near(r.rows[0].sc, 1);
	assert_near(r.rows[0].impact, 0);
	spectra_report_release(&r);
	spectra_profile_release(&p);

	/* mean - 3 sd = -100: clamped at 0 */
	o.k = 3;
	assert_int_equal(spectra_profile_build(base, 3, &o, &p), RP_OK);
	e = spectra_profile_find(&p, "main;w", NULL);
	assert_near(e->lo, 0);
	assert_near(e->hi, 500);
	spectra_profile_release(&p);

	/* k = 0 with one run: the range is that run's value */
	o.k = 0;
	assert_int_equal(spectra_profile_build(base, 1, &o, &p), RP_OK);
	e = spectra_profile_find(&p, "main;w", NULL);
	assert_near(e->bpc_sd, 0);
	assert_near(e->lo, 100);
	assert_near(e->hi, 100);
	spectra_profile_release(&p);

	release_runs(base, 3);
	release_runs(target, 1);
}

/* ---- (stack, file) keys ---- */

static void test_stack_file_keys(void **state)
{
	/* writeBoth writes a.log at 100 B/call and b.dat at 10000 B/call */
	static const struct rec b[2][3] = {
	    {{"main;save;writeBoth", "a.log", 10, 1000},
	     {"main;save;writeBoth", "b.dat", 10, 100000}},
	    {{"main;save;writeBoth", "a.log", 10, 1000},
	     {"main;save;writeBoth", "b.dat", 10, 100000}},
	};
	/* the same sizes per file, but the calls moved from b.dat to a.log */
	static const struct rec t[2][3] = {
	    {{"main;save;writeBoth", "a.log", 19, 1900},
	     {"main;save;writeBoth", "b.dat", 1, 10000}},
	    {{"main;save;writeBoth", "a.log", 19, 1900},
	     {"main;save;writeBoth", "b.dat", 1, 10000}},
	};
	struct spectra_run base[2], target[2];
	struct spectra_profile p;
	struct spectra_report r;
	struct spectra_opts o;
	const struct spectra_row *row;
	UNUSED(state);

	for (size_t i = 0; i < 2; i++) {
		make_run(&base[i], "baseline", i, b[i]);
		make_run(&target[i], "target", i, t[i]);
	}

	/* by stack trace: 101000 / 20 = 5050 per call before, 11900 / 20 = 595 after */
	assert_int_equal(spectra_profile_build(base, 2, NULL, &p), RP_OK);
	assert_int_equal(p.nr_entries, 1);
	assert_int_equal(spectra_compare(&p, target, 2, NULL, &r), RP_OK);
	assert_int_equal(r.nr_rows, 1);
	assert_null(r.rows[0].file);
	assert_near(r.rows[0].sc, 0);
	assert_near(r.rows[0].impact, 595 - 5050);
	assert_near(r.rows[0].calls_diff, 0);
	spectra_report_release(&r);
	spectra_profile_release(&p);

	/* by (stack trace, file): two rows, each unchanged in size per call */
	spectra_opts_init(&o);
	o.group = SPECTRA_BY_STACK_FILE;
	assert_int_equal(spectra_profile_build(base, 2, &o, &p), RP_OK);
	assert_int_equal(p.nr_entries, 2);
	assert_near(spectra_profile_find(&p, "main;save;writeBoth", "a.log")->hi, 100);
	assert_near(spectra_profile_find(&p, "main;save;writeBoth", "b.dat")->lo, 10000);
	assert_null(spectra_profile_find(&p, "main;save;writeBoth", NULL));
	assert_null(spectra_profile_find(&p, "main;save;writeBoth", "c"));
	assert_int_equal(spectra_compare(&p, target, 2, &o, &r), RP_OK);
	assert_int_equal(r.nr_rows, 2);
	assert_int_equal(r.group, SPECTRA_BY_STACK_FILE);
	row = row_of(&r, "main;save;writeBoth", "a.log");
	assert_near(row->sc, 1);
	assert_near(row->calls_diff, 9);
	row = row_of(&r, "main;save;writeBoth", "b.dat");
	assert_near(row->sc, 1);
	assert_near(row->calls_diff, -9);
	/* equal SC and TotalImpact: ordered by file */
	assert_string_equal(r.rows[0].file, "a.log");
	assert_string_equal(r.rows[1].file, "b.dat");
	spectra_report_release(&r);
	spectra_profile_release(&p);

	release_runs(base, 2);
	release_runs(target, 2);
}

/* ---- test execution report ---- */

static void test_exec_report(void **state)
{
	static const struct rec recs[] = {
	    {"main;a", "x.log", 10, 1000},  {"main;b", "y.dat", 1, 5000},
	    {"main;c", "x.log", 100, 2000}, {"main;a", "z.tmp", 10, 500},
	    {"main;d", "y.dat", 5, 2000},   {"main;e", "w", 5, 2000},
	    {"main;f", "w", 0, 0},	    {NULL, NULL, 0, 0},
	};
	struct spectra_run run;
	struct spectra_exec e;
	UNUSED(state);

	make_run(&run, "run", 0, recs);
	assert_int_equal(spectra_exec_build(&run, SPECTRA_BY_STACK, 0, &e), RP_OK);
	assert_int_equal(e.total_calls, 131);
	assert_int_equal(e.total_bytes, 12500);
	assert_int_equal(e.nr_stacks, 5);
	assert_int_equal(e.nr_files, 4);

	/* bytes desc, then calls desc, then key */
	assert_int_equal(e.nr_by_bytes, 5);
	assert_string_equal(e.by_bytes[0].stack, "main;b");
	assert_string_equal(e.by_bytes[1].stack, "main;c");
	assert_string_equal(e.by_bytes[2].stack, "main;d");
	assert_string_equal(e.by_bytes[3].stack, "main;e");
	assert_string_equal(e.by_bytes[4].stack, "main;a");
	assert_int_equal(e.by_bytes[4].calls, 20);
	assert_int_equal(e.by_bytes[4].bytes, 1500);
	assert_null(e.by_bytes[4].file);

	/* bytes per call desc */
	assert_string_equal(e.by_bpc[0].stack, "main;b");
	assert_near(e.by_bpc[0].bpc, 5000);
	assert_string_equal(e.by_bpc[1].stack, "main;d");
	assert_string_equal(e.by_bpc[2].stack, "main;e");
	assert_string_equal(e.by_bpc[3].stack, "main;a");
	assert_near(e.by_bpc[3].bpc, 75);
	assert_string_equal(e.by_bpc[4].stack, "main;c");

	/* files by bytes */
	assert_int_equal(e.nr_files_top, 4);
	assert_null(e.files[0].stack);
	assert_string_equal(e.files[0].file, "y.dat");
	assert_int_equal(e.files[0].bytes, 7000);
	assert_int_equal(e.files[0].calls, 6);
	assert_string_equal(e.files[1].file, "x.log");
	assert_int_equal(e.files[1].bytes, 3000);
	assert_string_equal(e.files[2].file, "w");
	assert_string_equal(e.files[3].file, "z.tmp");
	spectra_exec_release(&e);

	/* limit 2, and by (stack, file): main;a's two files are two rows */
	assert_int_equal(spectra_exec_build(&run, SPECTRA_BY_STACK_FILE, 2, &e), RP_OK);
	assert_int_equal(e.nr_stacks, 6);
	assert_int_equal(e.nr_by_bytes, 2);
	assert_int_equal(e.nr_by_bpc, 2);
	assert_int_equal(e.nr_files_top, 2);
	assert_string_equal(e.by_bytes[0].stack, "main;b");
	assert_string_equal(e.by_bytes[0].file, "y.dat");
	assert_string_equal(e.files[1].file, "x.log");
	spectra_exec_release(&e);
	spectra_exec_release(&e);

	spectra_run_release(&run);
}

/* ---- bad input ---- */

/* Runs fn with stderr sent to a temporary file; returns what it printed (caller frees). */
static char *run_capturing(int (*fn)(void *), void *arg, int *ret)
{
	struct stderr_capture cap;

	capture_stderr_begin(&cap);
	*ret = fn(arg);
	return capture_stderr_end(&cap);
}

struct bad_case {
	struct spectra_run *runs;
	size_t nr;
	struct spectra_profile *base;
};

static int build_bad(void *arg)
{
	struct bad_case *c = arg;
	struct spectra_profile p;
	int ret = spectra_profile_build(c->runs, c->nr, NULL, &p);
	/* a failed build leaves an empty, releasable profile */
	if (ret) {
		assert_int_equal(p.nr_entries, 0);
		assert_null(p.entries);
	}
	spectra_profile_release(&p);
	return ret;
}

static int compare_bad(void *arg)
{
	struct bad_case *c = arg;
	struct spectra_report r;
	int ret = spectra_compare(c->base, c->runs, c->nr, NULL, &r);
	if (ret) {
		assert_int_equal(r.nr_rows, 0);
		assert_null(r.rows);
	}
	spectra_report_release(&r);
	return ret;
}

static void test_bad_input(void **state)
{
	struct spectra_run runs[2], good;
	struct spectra_profile p;
	struct spectra_report r;
	struct spectra_exec e;
	struct spectra_opts o;
	struct bad_case c;
	char *msg;
	int ret;
	UNUSED(state);

	/* spectra_run_add refuses and leaves the run unchanged */
	spectra_run_init(&runs[0], "bad.spectrum");
	assert_int_equal(spectra_run_add(&runs[0], "main;w", "f", 0, 10), RP_EINPUT);
	assert_int_equal(spectra_run_add(&runs[0], "", "f", 1, 10), RP_EINPUT);
	assert_int_equal(spectra_run_add(&runs[0], NULL, "f", 1, 10), RP_EINPUT);
	assert_int_equal(spectra_run_add(&runs[0], "main;w", NULL, 1, 10), RP_EINPUT);
	assert_int_equal(spectra_run_add(&runs[0], "main;w", "", 1, 10), RP_EINPUT);
	assert_int_equal(runs[0].nr, 0);
	spectra_run_release(&runs[0]);

	/* a record filled directly with 0 calls and bytes: every analysis refuses it */
	spectra_run_init(&runs[0], "baseline run 0");
	spectra_run_init(&runs[1], "target run 2");
	assert_int_equal(spectra_run_add(&runs[0], "main;w", "f", 1, 10), RP_OK);
	assert_int_equal(spectra_run_add(&runs[1], "main;w", "f", 1, 10), RP_OK);
	assert_int_equal(spectra_run_add(&runs[1], "main;v", "g", 3, 30), RP_OK);
	runs[1].recs[1].calls = 0;
	c.runs = runs;
	c.nr = 2;
	msg = run_capturing(build_bad, &c, &ret);
	assert_int_equal(ret, RP_EINPUT);
	assert_non_null(strstr(msg, "revperf: error: target run 2: record 2"));
	assert_non_null(strstr(msg, "30 bytes written by 0 calls"));
	assert_non_null(strstr(msg, "main;v"));
	free(msg);

	assert_int_equal(spectra_profile_build(runs, 1, NULL, &p), RP_OK);
	c.runs = &runs[1];
	c.nr = 1;
	c.base = &p;
	msg = run_capturing(compare_bad, &c, &ret);
	assert_int_equal(ret, RP_EINPUT);
	assert_non_null(strstr(msg, "target run 2: record 2"));
	free(msg);
	assert_int_equal(spectra_exec_build(&runs[1], SPECTRA_BY_STACK, 0, &e), RP_EINPUT);
	assert_int_equal(e.nr_by_bytes, 0);
	spectra_exec_release(&e);

	/* an empty stack trace filled directly */
	runs[1].recs[1].calls = 3;
	free(runs[1].recs[1].stack);
	runs[1].recs[1].stack = xstrdup("");
	assert_int_equal(spectra_compare(&p, &runs[1], 1, NULL, &r), RP_EINPUT);
	spectra_report_release(&r);

	/* no runs */
	assert_int_equal(spectra_compare(&p, &runs[0], 0, NULL, &r), RP_EINPUT);
	spectra_report_release(&r);
	c.runs = runs;
	c.nr = 0;
	msg = run_capturing(build_bad, &c, &ret);
	assert_int_equal(ret, RP_EINPUT);
	assert_non_null(strstr(msg, "no runs"));
	free(msg);

	/* grouping mismatch, bad k, unknown group */
	spectra_opts_init(&o);
	o.group = SPECTRA_BY_STACK_FILE;
	assert_int_equal(spectra_compare(&p, &runs[0], 1, &o, &r), RP_EINPUT);
	spectra_report_release(&r);
	spectra_profile_release(&p);
	spectra_opts_init(&o);
	o.range = SPECTRA_RANGE_SD;
	o.k = -1;
	assert_int_equal(spectra_profile_build(runs, 1, &o, &p), RP_EINPUT);
	o.k = NAN;
	assert_int_equal(spectra_profile_build(runs, 1, &o, &p), RP_EINPUT);
	o.k = INFINITY;
	assert_int_equal(spectra_profile_build(runs, 1, &o, &p), RP_EINPUT);
	assert_int_equal(spectra_exec_build(&runs[0], (enum spectra_group)7, 0, &e), RP_EINPUT);
	spectra_exec_release(&e);
	release_runs(runs, 2);

	/* byte counts that overflow 64 bits: within one run, and across runs */
	spectra_run_init(&runs[0], "big run 0");
	spectra_run_init(&runs[1], "big run 1");
	assert_int_equal(spectra_run_add(&runs[0], "main;w", "f", 1, UINT64_MAX / 2 + 1), RP_OK);
	assert_int_equal(spectra_run_add(&runs[0], "main;w", "g", 1, UINT64_MAX / 2 + 1), RP_OK);
	assert_int_equal(spectra_run_add(&runs[1], "main;w", "f", 1, UINT64_MAX / 2 + 1), RP_OK);
	assert_int_equal(spectra_exec_build(&runs[0], SPECTRA_BY_STACK, 0, &e), RP_EINPUT);
	spectra_exec_release(&e);
	/* by (stack, file) the two records are apart, but the run's total still overflows */
	assert_int_equal(spectra_exec_build(&runs[0], SPECTRA_BY_STACK_FILE, 0, &e), RP_EINPUT);
	spectra_exec_release(&e);
	assert_int_equal(spectra_profile_build(runs, 1, NULL, &p), RP_EINPUT);
	/* by (stack, file), run 0 alone is fine; its f plus run 1's f overflows */
	spectra_opts_init(&o);
	o.group = SPECTRA_BY_STACK_FILE;
	assert_int_equal(spectra_profile_build(runs, 1, &o, &p), RP_OK);
	spectra_profile_release(&p);
	assert_int_equal(spectra_profile_build(runs, 2, &o, &p), RP_EINPUT);
	spectra_profile_release(&p);
	release_runs(runs, 2);

	/* a good run still works after all that */
	spectra_run_init(&good, NULL);
	assert_int_equal(spectra_run_add(&good, "main;w", "f", 2, 10), RP_OK);
	assert_int_equal(spectra_profile_build(&good, 1, NULL, &p), RP_OK);
	assert_int_equal(p.nr_entries, 1);
	spectra_profile_release(&p);
	spectra_run_release(&good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_worked_example),	cmocka_unit_test(test_below_range_and_ties),
	    cmocka_unit_test(test_stopped_and_partial), cmocka_unit_test(test_sd_range),
	    cmocka_unit_test(test_stack_file_keys),	cmocka_unit_test(test_exec_report),
	    cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
