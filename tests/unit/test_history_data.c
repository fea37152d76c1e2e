/*
 * Unit tests of history/history_data.c on a real SQLite store filled through the store API:
 * which commits are points and in which order, which machine, the medians and their
 * intervals, failed runs counted, change points of a step, the comparison of each page.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "history/history_data.h"
#include "store/store.h"
#include "util/common.h"
#include "tmp_db.h"

struct fixture {
	char *path;
	struct store *st;
	int64_t m1, m2, bench, bench2, other;
	int64_t builds[16];
	size_t nr;
};

static int64_t add_build(struct fixture *f, const char *sha, int64_t time, const char *status,
			 const char *variant)
{
	int64_t rev, id;
	struct store_build b = {0};
	assert_int_equal(store_revision(f->st, sha, "summary <b>", time, &rev), 0);
	b.revision_id = rev;
	b.command = xstrdup("make");
	b.log_path = xstrdup("/tmp/build.log");
	snprintf(b.status, sizeof(b.status), "%s", status);
	snprintf(b.variant, sizeof(b.variant), "%s", variant ? variant : "");
	assert_int_equal(store_build_save(f->st, &b), 0);
	id = b.id;
	store_build_release(&b);
	return id;
}

static int64_t add_run(struct fixture *f, int64_t build, int64_t bench, int64_t machine,
		       int64_t comparison, char side, enum run_status status, bool warmup,
		       double wall)
{
	struct store_run run = {0};
	const char *names[] = {"wall", "cpu"};
	double values[] = {wall, wall / 2};
	run.build_id = build;
	run.benchmark_id = bench;
	run.machine_id = machine;
	run.comparison_id = comparison;
	run.side = side;
	run.warmup = warmup;
	run.status = status;
	run.exit_code = status == RUN_FAILED ? 3 : 0;
	run.signal = status == RUN_CRASHED ? 11 : 0;
	run.log_path = side == 'A' ? "/tmp/a.log" : "/tmp/b.log";
	run.started_at = 1;
	assert_int_equal(store_run_insert(f->st, &run, names, values, status == RUN_OK ? 2 : 0), 0);
	return run.id;
}

/*
 * Twelve commits c00..c11 (inserted out of order; c04 and c05 share a commit time) with
 * 5 runs of "bench" on m1, 1.0 s for c00-c05 and 2.0 s from c06 (a step), 7 runs at c03;
 * c07 has a failed build, c09 runs on m2 only; warm-ups and an instrumented build that
 * must not count.
 */
static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct machine_info m1 = {"host-one", "cpu", 2, "6.1", "performance"};
	struct machine_info m2 = {"host-two", "cpu", 2, "6.1", "performance"};
	static const int order[] = {5, 0, 11, 3, 1, 8, 2, 10, 4, 6, 9, 7};
	char sha[41];

	f->path = tmp_db_path();
	assert_int_equal(store_open(f->path, 0, &f->st), 0);
	assert_int_equal(store_machine(f->st, &m1, &f->m1), 0);
	assert_int_equal(store_machine(f->st, &m2, &f->m2), 0);
	assert_int_equal(store_benchmark(f->st, "bench", "./b 1", &f->bench), 0);
	assert_int_equal(store_benchmark(f->st, "bench", "./b 2", &f->bench2), 0);
	assert_int_equal(store_benchmark(f->st, "<script>x</script>", "./o", &f->other), 0);
	for (size_t k = 0; k < ARRAY_SIZE(order); k++) {
		int i = order[k];
		snprintf(sha, sizeof(sha), "c%02d%037d", i, 0);
		/* c04 and c05 share a time: the revision id (c05 inserted first) decides */
		f->builds[i] =
		    add_build(f, sha, 1000 + (i == 5 ? 4 : i) * 10, i == 7 ? "failed" : "ok", NULL);
	}
	f->nr = 12;
	for (int i = 0; i < 12; i++) {
		double level = i < 6 ? 1.0 : 2.0;
		int n = i == 3 ? 7 : 5;
		if (i == 7)
			continue;
		for (int r = 0; r < n; r++) {
			/* the second definition of "bench" (its command changed from c06 on) is
			 * the same benchmark along the history; within a commit one command is
			 * kept (test_two_commands_one_commit) */
			int64_t bench = i >= 6 ? f->bench2 : f->bench;
			add_run(f, f->builds[i], bench, i == 9 ? f->m2 : f->m1, 0, 'A', RUN_OK,
				false, level * (1 + 0.01 * r));
		}
		add_run(f, f->builds[i], f->bench, i == 9 ? f->m2 : f->m1, 0, 'A', RUN_OK, true,
			100.0);
	}
	/* c02: one failed and one crashed run; c10: one timeout */
	add_run(f, f->builds[2], f->bench, f->m1, 0, 'A', RUN_FAILED, false, 0);
	add_run(f, f->builds[2], f->bench, f->m1, 0, 'A', RUN_CRASHED, false, 0);
	add_run(f, f->builds[10], f->bench2, f->m1, 0, 'A', RUN_TIMEOUT, false, 0);
	/* "<script>..." ran at c01 only, and failed: a series of failures */
	add_run(f, f->builds[1], f->other, f->m1, 0, 'A', RUN_FAILED, false, 0);
	{
		/* runs of an instrumented build of c00 are not the commit's runs */
		int64_t cct = add_build(f,
					"c00"
					"0000000000000000000000000000000000000",
					1000, "ok", "cct");
		add_run(f, cct, f->bench, f->m1, 0, 'A', RUN_OK, false, 50.0);
	}
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

static const struct history_series *find_series(const struct history *h, const char *bench,
						const char *metric)
{
	for (size_t i = 0; i < h->nr_series; i++)
		if (!strcmp(h->benches[h->series[i].bench].name, bench) &&
		    !strcmp(h->series[i].metric, metric))
			return &h->series[i];
	return NULL;
}

static void test_commits_machine_points(void **state)
{
	struct fixture *f = *state;
	struct history h;
	const struct history_series *wall, *cpu, *fails;
	static const char *const want[] = {"c00", "c01", "c02", "c03", "c05", "c04",
					   "c06", "c07", "c08", "c10", "c11"};

	assert_int_equal(history_load(f->st, NULL, &h), 0);
	/* machine: m1 has most runs; m2's 6 (5 + a warm-up) are left out */
	assert_true(h.has_machine);
	assert_string_equal(h.machine.hostname, "host-one");
	assert_int_equal(h.other_machine_runs, 6);
	assert_int_equal(h.nr_machines, 2);
	/* c09 (other machine only) is no point; c07 (build failed) is */
	assert_int_equal(h.nr_commits, ARRAY_SIZE(want));
	for (size_t i = 0; i < h.nr_commits; i++)
		assert_memory_equal(h.commits[i].sha, want[i], 3);
	assert_true(h.commits[7].build_failed);
	assert_false(h.commits[6].build_failed);
	assert_string_equal(h.commits[0].summary, "summary <b>");

	/* benchmarks by name; "bench" groups both definitions */
	assert_int_equal(h.nr_benches, 2);
	assert_string_equal(h.benches[0].name, "<script>x</script>");
	assert_string_equal(h.benches[1].name, "bench");
	wall = find_series(&h, "bench", "wall");
	cpu = find_series(&h, "bench", "cpu");
	assert_non_null(wall);
	assert_non_null(cpu);
	assert_true(wall < cpu); /* revperf's metric order: wall first */
	/* 10 commits with runs on m1 (not c07, c09) */
	assert_int_equal(wall->nr_points, 10);
	/* c00: 1.00, 1.01, ..., 1.04: median 1.02, 5 runs: min..max */
	assert_int_equal(wall->points[0].commit, 0);
	assert_int_equal(wall->points[0].n, 5);
	assert_true(fabs(wall->points[0].median - 1.02) < 1e-12);
	assert_true(wall->points[0].ci_minmax);
	assert_true(fabs(wall->points[0].ci_lo - 1.00) < 1e-12);
	assert_true(fabs(wall->points[0].ci_hi - 1.04) < 1e-12);
	assert_true(fabs(cpu->points[0].median - 0.51) < 1e-12);
	/* c03: 7 runs: the 95% interval is x(1)..x(7) with coverage 1 - 2/128 */
	assert_int_equal(wall->points[3].n, 7);
	assert_false(wall->points[3].ci_minmax);
	assert_true(fabs(wall->points[3].ci_coverage - (1 - 2.0 / 128)) < 1e-12);
	assert_true(fabs(wall->points[3].median - 1.03) < 1e-12);
	/* failures: c02 one failed, one crashed; c10 (commit 9, point 8) one timeout */
	assert_int_equal(wall->points[2].fail.failed, 1);
	assert_int_equal(wall->points[2].fail.crashed, 1);
	assert_int_equal(cpu->points[2].fail.crashed, 1);
	assert_int_equal(wall->points[8].commit, 9);
	assert_int_equal(wall->points[8].fail.timeout, 1);
	assert_int_equal(wall->points[0].fail.failed + wall->points[0].fail.crashed, 0);
	/* the benchmark that only failed still has a series, of failures */
	fails = find_series(&h, "<script>x</script>", "wall");
	assert_non_null(fails);
	assert_int_equal(fails->nr_points, 1);
	assert_int_equal(fails->points[0].n, 0);
	assert_true(isnan(fails->points[0].median));
	assert_int_equal(fails->points[0].fail.failed, 1);
	history_release(&h);
}

/*
 * One commit measured with two commands of one benchmark name (revperf.ini edited between
 * two compares): two programs. The command measured last is kept, alone: the median of
 * both was a number nobody measured.
 */
static void test_two_commands_one_commit(void **state)
{
	struct fixture *f = *state;
	struct history h;
	const struct history_series *wall;

	/* c00 had 5 runs of "./b 1" at time 1 (1.00 .. 1.04); now 3 of "./b 2" later */
	for (int r = 0; r < 3; r++) {
		struct store_run run = {0};
		const char *names[] = {"wall", "cpu"};
		double values[] = {10.0 + r, 5.0};
		run.build_id = f->builds[0];
		run.benchmark_id = f->bench2;
		run.machine_id = f->m1;
		run.side = 'A';
		run.status = RUN_OK;
		run.log_path = "/tmp/a.log";
		run.started_at = 2;
		assert_int_equal(store_run_insert(f->st, &run, names, values, 2), 0);
	}
	assert_int_equal(history_load(f->st, NULL, &h), 0);
	wall = find_series(&h, "bench", "wall");
	assert_non_null(wall);
	assert_int_equal(wall->points[0].commit, 0);
	assert_int_equal(wall->points[0].n, 3);
	assert_true(fabs(wall->points[0].median - 11.0) < 1e-12);
	/* the other commits as they were: c01 has its 5 runs of "./b 1" */
	assert_int_equal(wall->points[1].n, 5);
	history_release(&h);
}

static void test_change_points(void **state)
{
	struct fixture *f = *state;
	struct history h;
	struct history_opts o = {0};
	const struct history_series *wall;

	assert_int_equal(history_load(f->st, &o, &h), 0);
	wall = find_series(&h, "bench", "wall");
	assert_non_null(wall);
	/* the step from 1.0 to 2.0 at c06, the 7th commit (index 6) */
	assert_int_equal(wall->nr_changes, 1);
	assert_int_equal(wall->changes[0].commit, 6);
	assert_int_equal(h.series[0].nr_changes, 0);
	assert_true(fabs(wall->changes[0].rel_change - 1.0) < 0.05);
	assert_true(wall->changes[0].p_value <= 0.05);
	/* its interval, at the default alpha (no configuration) */
	assert_true(wall->changes[0].ci_alpha == 0.01);
	assert_true(wall->changes[0].rel_change_lo <= wall->changes[0].rel_change &&
		    wall->changes[0].rel_change <= wall->changes[0].rel_change_hi);
	assert_true(wall->changes[0].rel_change_lo > 0.5);
	history_release(&h);

	/* a segment needs 2 commits at least */
	o.min_segment = 1;
	assert_int_equal(history_load(f->st, &o, &h), RP_EINPUT);
	history_release(&h);
	/* with min_segment 6 the 5 commits after the step cannot be a segment */
	o.min_segment = 6;
	assert_int_equal(history_load(f->st, &o, &h), 0);
	wall = find_series(&h, "bench", "wall");
	assert_int_equal(wall->nr_changes, 0);
	history_release(&h);
}

/*
 * A followed history (a branch's first parents): its commits first, in its order, the
 * others after it; trends and change points along it only.
 */
static void test_followed_line(void **state)
{
	struct fixture *f = *state;
	struct history h;
	struct history_opts o = {0};
	const struct history_series *wall;
	/* the trunk: every commit but c03 and c08 (a side branch), c04 before c05 here */
	static const int trunk[] = {0, 1, 2, 4, 5, 6, 7, 9, 10, 11};
	char shas[ARRAY_SIZE(trunk)][41];
	const char *line[ARRAY_SIZE(trunk) + 1];
	static const char *const want[] = {"c00", "c01", "c02", "c04", "c05", "c06",
					   "c07", "c10", "c11", "c03", "c08"};

	for (size_t i = 0; i < ARRAY_SIZE(trunk); i++) {
		snprintf(shas[i], sizeof(shas[i]), "c%02d%037d", trunk[i], 0);
		line[i] = shas[i];
	}
	line[ARRAY_SIZE(trunk)] = "f00000000000000000000000000000000000000f"; /* not measured */
	o.line = line;
	o.nr_line = ARRAY_SIZE(trunk) + 1;
	o.line_name = "trunk";
	assert_int_equal(history_load(f->st, &o, &h), 0);
	assert_string_equal(h.line_name, "trunk");
	assert_int_equal(h.nr_commits, ARRAY_SIZE(want));
	assert_int_equal(h.nr_line, 9); /* c09 was measured on the other machine only */
	for (size_t i = 0; i < h.nr_commits; i++) {
		assert_memory_equal(h.commits[i].sha, want[i], 3);
		assert_int_equal(h.commits[i].on_line, i < h.nr_line);
	}
	wall = find_series(&h, "bench", "wall");
	assert_non_null(wall);
	/* c03 and c08 have points, after those of the line */
	assert_int_equal(wall->nr_points, 10);
	assert_int_equal(wall->nr_line_points, 8);
	for (size_t i = 0; i < wall->nr_points; i++)
		assert_int_equal(wall->points[i].commit >= h.nr_line, i >= wall->nr_line_points);
	/* the step from 1.0 to 2.0 at c06, along the line */
	assert_int_equal(wall->nr_changes, 1);
	assert_memory_equal(h.commits[wall->changes[0].commit].sha, "c06", 3);
	history_release(&h);

	/* No line: every commit, in commit-time order, all on it. */
	assert_int_equal(history_load(f->st, NULL, &h), 0);
	assert_null(h.line_name);
	assert_int_equal(h.nr_line, h.nr_commits);
	wall = find_series(&h, "bench", "wall");
	assert_int_equal(wall->nr_line_points, wall->nr_points);
	history_release(&h);
}

static void test_comparisons(void **state)
{
	struct fixture *f = *state;
	struct history h;
	struct store_comparison c = {0}, old = {0}, other = {0};
	struct verdict_result vr = {0};
	const struct history_comparison *hc;

	/* an older finished comparison of the same pair, whose runs the latest reused */
	old.base_build = f->builds[5];
	old.target_build = f->builds[6];
	old.base_label = "c05";
	old.target_label = "c06";
	assert_int_equal(store_comparison_new(f->st, &old), 0);
	assert_int_equal(store_comparison_finish(f->st, old.id, "done"), 0);
	add_run(f, f->builds[5], f->bench, f->m1, old.id, 'A', RUN_OK, false, 1.0);
	add_run(f, f->builds[6], f->bench, f->m1, old.id, 'B', RUN_OK, false, 2.0);
	c = old;
	assert_int_equal(store_comparison_new(f->st, &c), 0);
	assert_int_equal(store_comparison_finish(f->st, c.id, "done"), 0);
	add_run(f, f->builds[6], f->bench, f->m1, c.id, 'B', RUN_CRASHED, false, 0);
	add_run(f, f->builds[5], f->bench, f->m1, c.id, 'A', RUN_OK, false, 1.0);
	vr.ratio = 2.0;
	vr.ci_lo = 1.9;
	vr.ci_hi = 2.1;
	vr.p = 0.001;
	vr.n_a = 2;
	vr.n_b = 1;
	assert_int_equal(
	    store_verdict_save(f->st, c.id, f->bench, "cpu", false, "worse", &vr, 1, 0.01), 0);
	assert_int_equal(
	    store_verdict_save(f->st, c.id, f->bench, "wall", true, "worse", &vr, 1, 0.01), 0);
	/* a later comparison of another pair that was interrupted is not shown */
	other.base_build = f->builds[4];
	other.target_build = f->builds[6];
	assert_int_equal(store_comparison_new(f->st, &other), 0);
	assert_int_equal(store_comparison_finish(f->st, other.id, "interrupted"), 0);
	add_run(f, f->builds[6], f->bench, f->m1, other.id, 'B', RUN_OK, false, 2.0);

	assert_int_equal(history_load(f->st, NULL, &h), 0);
	assert_int_equal(h.nr_comparisons, 1);
	assert_int_equal(h.commits[6].comparison, 0);
	assert_int_equal(h.commits[5].comparison, HISTORY_NONE);
	assert_int_equal(h.latest_comparison, 0);
	hc = &h.comparisons[0];
	assert_true(hc->id == c.id);
	assert_int_equal(hc->commit, 6);
	assert_int_equal(hc->base_commit, 4); /* c05 comes before c04 */
	assert_memory_equal(hc->base_sha, "c05", 3);
	assert_true(hc->machine_id == f->m1);
	/* verdicts: primary first */
	assert_int_equal(hc->nr_verdicts, 2);
	assert_string_equal(hc->verdicts[0].metric, "wall");
	assert_true(hc->verdicts[0].primary);
	assert_string_equal(hc->verdicts[1].metric, "cpu");
	assert_string_equal(hc->verdicts[0].verdict, "worse");
	assert_true(hc->verdicts[0].ratio == 2.0 && hc->verdicts[0].n_b == 1);
	assert_int_equal(hc->verdicts[0].bench, 1);
	/* runs of both comparisons of the pair, not the other pair's: A first, then B */
	assert_int_equal(hc->nr_runs, 4);
	assert_int_equal(hc->runs[0].side, 'A');
	assert_int_equal(hc->runs[1].side, 'A');
	assert_int_equal(hc->runs[2].side, 'B');
	assert_int_equal(hc->runs[3].side, 'B');
	assert_true(hc->runs[2].wall == 2.0);
	assert_int_equal(hc->runs[3].status, RUN_CRASHED);
	assert_true(isnan(hc->runs[3].wall));
	assert_int_equal(hc->runs[3].signal, 11);
	assert_string_equal(hc->runs[3].log_path, "/tmp/b.log");
	assert_ptr_equal(hc->runs[2].log_path, hc->runs[3].log_path); /* shared */
	history_release(&h);
}

static void test_empty_and_bad_profile(void **state)
{
	struct history h;
	struct store *st;
	char *path = tmp_db_path();
	struct fixture *f = *state;
	struct store_profile p = {0};
	UNUSED(state);

	assert_int_equal(store_open(path, 0, &st), 0);
	assert_int_equal(history_load(st, NULL, &h), 0);
	assert_int_equal(h.nr_commits, 0);
	assert_false(h.has_machine);
	history_release(&h);
	store_close(st);
	tmp_db_remove(path);

	/* an I/O profile that does not load is left out with a warning, not an error */
	p.build_id = f->builds[0];
	p.benchmark_id = f->bench;
	p.machine_id = f->m1;
	snprintf(p.kind, sizeof(p.kind), "io");
	p.status = RUN_OK;
	p.path = (char *)"/nonexistent/revperf/B-0.io.json";
	p.started_at = 1;
	assert_int_equal(store_profile_add(f->st, &p), 0);
	assert_int_equal(history_load(f->st, NULL, &h), 0);
	assert_int_equal(h.nr_io, 1);
	assert_int_equal(h.benches[1].nr_bytes, 0);
	history_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_commits_machine_points, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_two_commands_one_commit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_change_points, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_followed_line, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_comparisons, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_empty_and_bad_profile, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
