/*
 * Unit tests of the absolute, noise-aware attribution (analysis/profile_attribution.h) on
 * hand-made per-run trees: a change within the run-to-run spread is noise, one beyond it
 * a finding, one run per side states no spread; the interval against stats_welch(); keys
 * absent from a run count 0; processes of a run add up; shares; absent call counts stay
 * absent; trees of different weights are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/profile_attribution.h"
#include "analysis/stats.h"
#include "profile/cct.h"
#include "profile/folded.h"
#include "util/common.h"

#include "capture_stderr.h"

#define MAX_RUNS 8

/* Runs of two sides, each a tree parsed from folded stacks ("a;b 10\n..."). */
struct sides {
	struct cct trees[2][MAX_RUNS];
	const struct cct *ptrs[2][MAX_RUNS];
	size_t nr[2];
};

static void add(struct sides *s, int side, const char *folded, enum cct_weight w)
{
	struct cct *t = &s->trees[side][s->nr[side]];
	assert_int_equal(folded_parse(folded, strlen(folded), "test", t), 0);
	cct_set_weight(t, w, NULL);
	s->ptrs[side][s->nr[side]] = t;
	s->nr[side]++;
}

static void release(struct sides *s)
{
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < s->nr[side]; i++)
			cct_release(&s->trees[side][i]);
}

static int attribute(struct sides *s, struct attribution *a)
{
	const struct cct *const *runs[2] = {s->ptrs[0], s->ptrs[1]};
	return attribution_of_runs(runs, s->nr, 0.01, 0, a);
}

static const struct attribution_entry *find(const struct attribution_entry *e, size_t n,
					    const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(e[i].key, key))
			return &e[i];
	return NULL;
}

/*
 * f varies by 20 between the runs of a side (sd 10) and moves by 5: noise (the 99%
 * interval is +-37.6). g moves by 100 while its runs differ by 2: a finding, ranked first.
 */
static void test_within_spread_is_noise(void **state)
{
	struct sides s = {0};
	struct attribution a;
	const struct attribution_entry *f, *g;
	UNUSED(state);

	add(&s, 0, "main;f 100\nmain;g 50\n", CCT_WEIGHT_ELAPSED_NS);
	add(&s, 0, "main;f 120\nmain;g 51\n", CCT_WEIGHT_ELAPSED_NS);
	add(&s, 0, "main;f 110\nmain;g 52\n", CCT_WEIGHT_ELAPSED_NS);
	add(&s, 1, "main;f 105\nmain;g 150\n", CCT_WEIGHT_ELAPSED_NS);
	add(&s, 1, "main;f 125\nmain;g 151\n", CCT_WEIGHT_ELAPSED_NS);
	add(&s, 1, "main;f 115\nmain;g 152\n", CCT_WEIGHT_ELAPSED_NS);
	assert_int_equal(attribute(&s, &a), 0);
	assert_int_equal(a.weight, CCT_WEIGHT_ELAPSED_NS);
	assert_int_equal(a.runs[0], 3);
	assert_int_equal(a.runs[1], 3);
	assert_int_equal(a.nr_funcs, 2);
	assert_string_equal(a.funcs[0].key, "g");
	assert_string_equal(a.funcs[1].key, "f");
	g = &a.funcs[0];
	f = &a.funcs[1];
	assert_true(fabs(g->delta - 100) < 1e-9);
	assert_int_equal(g->class, ATTRIBUTION_FINDING);
	assert_true(g->ci_lo > 0 && g->ci_hi > g->ci_lo);
	assert_true(fabs(f->delta - 5) < 1e-9);
	assert_int_equal(f->class, ATTRIBUTION_NOISE);
	assert_true(fabs(f->side[0].mean - 110) < 1e-9);
	assert_true(fabs(f->side[0].sd - 10) < 1e-9);
	assert_true(f->side[0].min == 100 && f->side[0].max == 120);
	/* The total moved by 105 of which g is 100/105. */
	assert_true(fabs(a.total.delta - 105) < 1e-9);
	assert_true(fabs(g->share - 100.0 / 105) < 1e-12);
	assert_true(fabs(f->share - 5.0 / 105) < 1e-12);
	assert_int_equal(a.changed_funcs, 2);
	assert_int_equal(a.finding_funcs, 1);
	/* Paths: the same two entries under main. */
	assert_int_equal(a.nr_paths, 2);
	assert_string_equal(a.paths[0].key, "main;g");
	assert_int_equal(a.paths[0].class, ATTRIBUTION_FINDING);
	assert_string_equal(a.paths[1].key, "main;f");
	assert_int_equal(a.paths[1].class, ATTRIBUTION_NOISE);
	/* No call counts in folded stacks: absent, not 0. */
	assert_false(a.calls_known);
	assert_true(isnan(g->side[0].calls) && isnan(g->side[1].calls));
	attribution_release(&a);
	release(&s);
}

/* One run per side: nothing to judge against; no sd, no interval, no verdict of noise. */
static void test_single_run_states_no_spread(void **state)
{
	struct sides s = {0};
	struct attribution a;
	UNUSED(state);

	add(&s, 0, "main;f 100\n", CCT_WEIGHT_UNKNOWN);
	add(&s, 1, "main;f 300\n", CCT_WEIGHT_UNKNOWN);
	assert_int_equal(attribute(&s, &a), 0);
	assert_int_equal(a.nr_funcs, 1);
	assert_int_equal(a.funcs[0].class, ATTRIBUTION_NO_SPREAD);
	assert_true(isnan(a.funcs[0].side[0].sd) && isnan(a.funcs[0].side[1].sd));
	assert_true(isnan(a.funcs[0].ci_lo) && isnan(a.funcs[0].ci_hi));
	assert_true(fabs(a.funcs[0].delta - 200) < 1e-9);
	assert_int_equal(a.total.class, ATTRIBUTION_NO_SPREAD);
	assert_int_equal(a.finding_funcs, 0);
	attribution_release(&a);
	release(&s);

	/* Several runs on one side only: still no spread to judge by. */
	memset(&s, 0, sizeof(s));
	add(&s, 0, "main;f 100\n", CCT_WEIGHT_UNKNOWN);
	add(&s, 0, "main;f 101\n", CCT_WEIGHT_UNKNOWN);
	add(&s, 1, "main;f 300\n", CCT_WEIGHT_UNKNOWN);
	assert_int_equal(attribute(&s, &a), 0);
	assert_int_equal(a.funcs[0].class, ATTRIBUTION_NO_SPREAD);
	attribution_release(&a);
	release(&s);
}

/* Deterministic counts: every run of a side agrees, so any change is a finding, exact. */
static void test_deterministic_change_is_exact_finding(void **state)
{
	struct sides s = {0};
	struct attribution a;
	UNUSED(state);

	for (int i = 0; i < 2; i++) {
		add(&s, 0, "main;kv_hash 1000\nmain 10\n", CCT_WEIGHT_UNKNOWN);
		add(&s, 1, "main;kv_hash 1001\nmain 10\n", CCT_WEIGHT_UNKNOWN);
	}
	assert_int_equal(attribute(&s, &a), 0);
	assert_int_equal(a.nr_funcs, 1); /* main did not change: not listed */
	assert_string_equal(a.funcs[0].key, "kv_hash");
	assert_int_equal(a.funcs[0].class, ATTRIBUTION_FINDING);
	assert_true(a.funcs[0].ci_lo == 1 && a.funcs[0].ci_hi == 1);
	assert_true(a.funcs[0].side[0].sd == 0);
	assert_true(fabs(a.funcs[0].share - 1) < 1e-12);
	attribution_release(&a);
	release(&s);
}

/*
 * Beyond every run's range but not beyond the t-interval: with 2 runs per side the
 * interval is wide (t(0.995, 2) = 9.92), and the rule says noise; a range rule would have
 * called it a finding.
 */
static void test_t_interval_rules_with_few_runs(void **state)
{
	struct sides s = {0};
	struct attribution a;
	double xa[] = {100, 110}, xb[] = {121, 131};
	struct stats_welch_result w;
	UNUSED(state);

	add(&s, 0, "f 100\n", CCT_WEIGHT_UNKNOWN);
	add(&s, 0, "f 110\n", CCT_WEIGHT_UNKNOWN);
	add(&s, 1, "f 121\n", CCT_WEIGHT_UNKNOWN);
	add(&s, 1, "f 131\n", CCT_WEIGHT_UNKNOWN);
	assert_int_equal(attribute(&s, &a), 0);
	assert_true(fabs(a.funcs[0].delta - 21) < 1e-9); /* > the ranges, 10 */
	assert_int_equal(a.funcs[0].class, ATTRIBUTION_NOISE);
	/* The interval is Welch's (scipy.stats.ttest_ind(equal_var=False) + t.ppf). */
	assert_int_equal(stats_welch(xa, 2, xb, 2, 0.01, &w), 0);
	assert_true(fabs(a.funcs[0].ci_lo - w.ci_lo) < 1e-9 * fabs(w.ci_lo));
	assert_true(fabs(a.funcs[0].ci_hi - w.ci_hi) < 1e-9 * fabs(w.ci_hi));
	assert_true(a.funcs[0].ci_lo < 0);
	attribution_release(&a);
	release(&s);
}

/*
 * More runs see what a range cannot: 8 runs per side alternating 95/105 and 105/115 (sd
 * 5.35): the change, 10, is within each side's range but beyond the interval (+-7.96).
 */
static void test_more_runs_find_within_range(void **state)
{
	struct sides s = {0};
	struct attribution a;
	UNUSED(state);

	for (int i = 0; i < 8; i++) {
		add(&s, 0, i % 2 ? "f 105\n" : "f 95\n", CCT_WEIGHT_CPU_NS);
		add(&s, 1, i % 2 ? "f 115\n" : "f 105\n", CCT_WEIGHT_CPU_NS);
	}
	assert_int_equal(attribute(&s, &a), 0);
	assert_true(fabs(a.funcs[0].delta - 10) < 1e-9);
	assert_true(a.funcs[0].side[0].max - a.funcs[0].side[0].min == 10);
	assert_int_equal(a.funcs[0].class, ATTRIBUTION_FINDING);
	assert_true(a.funcs[0].ci_lo > 0 && a.funcs[0].ci_lo < 3);
	attribution_release(&a);
	release(&s);
}

/* A function met in one run only had 0 in the others: mean, sd and range say so. */
static void test_absent_counts_zero(void **state)
{
	struct sides s = {0};
	struct attribution a;
	const struct attribution_entry *e;
	UNUSED(state);

	add(&s, 0, "main 10\nmain;rare 30\n", CCT_WEIGHT_UNKNOWN);
	add(&s, 0, "main 10\n", CCT_WEIGHT_UNKNOWN);
	add(&s, 0, "main 10\n", CCT_WEIGHT_UNKNOWN);
	add(&s, 1, "main 10\n", CCT_WEIGHT_UNKNOWN);
	add(&s, 1, "main 10\n", CCT_WEIGHT_UNKNOWN);
	add(&s, 1, "main 10\nmain;new 60\n", CCT_WEIGHT_UNKNOWN);
	assert_int_equal(attribute(&s, &a), 0);
	e = find(a.funcs, a.nr_funcs, "rare");
	assert_non_null(e);
	assert_true(fabs(e->side[0].mean - 10) < 1e-9);
	assert_true(e->side[0].min == 0 && e->side[0].max == 30);
	assert_true(fabs(e->side[0].sd - sqrt(300)) < 1e-9);
	assert_true(e->side[1].mean == 0 && e->side[1].max == 0 && e->side[1].sd == 0);
	e = find(a.funcs, a.nr_funcs, "new");
	assert_non_null(e);
	assert_true(fabs(e->side[1].mean - 20) < 1e-9);
	assert_true(e->side[1].min == 0 && e->side[1].max == 60);
	assert_true(e->side[0].mean == 0 && e->side[0].sd == 0);
	/* new: +20 against an sd of 34.6 over 3 runs: noise. */
	assert_int_equal(e->class, ATTRIBUTION_NOISE);
	assert_string_equal(a.funcs[0].key, "new");
	attribution_release(&a);
	release(&s);
}

/*
 * Processes of a run add up; a function in two contexts sums its self weight per function
 * and stays two call paths; call counts are means when known; top cuts the lists.
 */
static void test_processes_functions_paths_calls(void **state)
{
	struct cct t[6];
	struct attribution_acc acc;
	struct attribution a;
	uint32_t m, f1, f2;
	UNUSED(state);

	for (int i = 0; i < 6; i++) {
		cct_init(&t[i]);
		cct_set_weight(&t[i], CCT_WEIGHT_EVENT, "Ir");
		t[i].calls_known = true;
		m = cct_child(&t[i], CCT_ROOT, cct_intern(&t[i], "main"), 0);
		f1 = cct_child(&t[i], m, cct_intern(&t[i], "f"), 0);
		f2 = cct_child(&t[i], m, cct_intern(&t[i], "f"), 1);
		t[i].nodes[m].excl = 5;
		t[i].nodes[m].calls = 1;
		t[i].nodes[f1].excl = i < 3 ? 10 : 20; /* side B: +10 per process */
		t[i].nodes[f1].calls = i < 3 ? 2 : 4;
		t[i].nodes[f2].excl = 7;
		t[i].nodes[f2].calls = 1;
		cct_compute_inclusive(&t[i]);
	}
	attribution_acc_init(&acc);
	{
		/* Side A: one run of two processes, one run of one; side B the same. */
		const struct cct *a2[] = {&t[0], &t[1]}, *a1[] = {&t[2]};
		const struct cct *b2[] = {&t[3], &t[4]}, *b1[] = {&t[5]};
		assert_int_equal(attribution_acc_add_run(&acc, 0, a2, 2), 0);
		assert_int_equal(attribution_acc_add_run(&acc, 1, b2, 2), 0);
		assert_int_equal(attribution_acc_add_run(&acc, 0, a1, 1), 0);
		assert_int_equal(attribution_acc_add_run(&acc, 1, b1, 1), 0);
	}
	assert_int_equal(attribution_acc_finish(&acc, 0.01, 1, &a), 0);
	assert_int_equal(a.weight, CCT_WEIGHT_EVENT);
	assert_string_equal(a.weight_event, "Ir");
	assert_true(a.calls_known);
	/* f: (10 + 7) x 2 processes and 17 x 1, then 27 x 2 and 27 x 1 */
	assert_int_equal(a.nr_funcs, 1);
	assert_int_equal(a.changed_funcs, 1);
	assert_string_equal(a.funcs[0].key, "f");
	assert_true(fabs(a.funcs[0].side[0].mean - 25.5) < 1e-9);
	assert_true(fabs(a.funcs[0].side[1].mean - 40.5) < 1e-9);
	assert_true(fabs(a.funcs[0].side[0].calls - 4.5) < 1e-9);
	assert_true(fabs(a.funcs[0].side[1].calls - 7.5) < 1e-9);
	assert_int_equal(a.nr_paths, 1);      /* cut to the top 1 of ... */
	assert_int_equal(a.changed_paths, 1); /* ... one: f#1 did not change per run */
	assert_string_equal(a.paths[0].key, "main;f");
	assert_true(fabs(a.total.delta - 15) < 1e-9);
	attribution_release(&a);
	attribution_acc_release(&acc);
	for (int i = 0; i < 6; i++)
		cct_release(&t[i]);
}

/* ns against Ir: no absolute figure can be given; the error names both. */
static void test_different_weights_refused(void **state)
{
	struct sides s = {0};
	struct attribution a;
	struct stderr_capture cap;
	char *err;
	int ret;
	UNUSED(state);

	add(&s, 0, "main;f 100\n", CCT_WEIGHT_ELAPSED_NS);
	add(&s, 1, "main;f 100\n", CCT_WEIGHT_CALLS);
	capture_stderr_begin(&cap);
	ret = attribute(&s, &a);
	err = capture_stderr_end(&cap);
	assert_int_equal(ret, RP_EINPUT);
	assert_non_null(strstr(err, "elapsed ns"));
	assert_non_null(strstr(err, "calls"));
	free(err);
	attribution_release(&a);
	release(&s);
}

/*
 * Counted events (Ir) from an estimated call-path tree: a path whose estimate moved by
 * 1e-7 (another function's cost changed how a shared callee is split) is not a change;
 * a change of 0.25 (1 / (2 x 2) runs, the least a whole-number count can move) is. The
 * functions and the total come from the exact tables, not from the trees' estimates.
 */
static void test_counted_functions_exact_paths_rounded(void **state)
{
	static const char *tree[2] = {
	    "main;a;memcpy 400.0000001\nmain;b;memcpy 399.9999999\nmain;a 100\nmain;b 50\n",
	    "main;a;memcpy 400.0000002\nmain;b;memcpy 399.9999998\nmain;a 100\nmain;b 50.25\n",
	};
	static const char *table[2] = {"memcpy 800\na 100\nb 50\nmain 0\n",
				       "memcpy 800\na 100\nb 51\nmain 0\n"};
	struct cct trees[2][2], funcs[2][2];
	struct attribution_acc acc;
	struct attribution a;
	UNUSED(state);

	attribution_acc_init(&acc);
	for (int r = 0; r < 2; r++)
		for (int side = 0; side < 2; side++) {
			struct cct *t = &trees[side][r], *f = &funcs[side][r];
			const struct cct *tp = t, *fp = f;
			assert_int_equal(folded_parse(tree[side], strlen(tree[side]), "t", t), 0);
			assert_int_equal(folded_parse(table[side], strlen(table[side]), "f", f), 0);
			cct_set_weight(t, CCT_WEIGHT_EVENT, "Ir");
			cct_set_weight(f, CCT_WEIGHT_EVENT, "Ir");
			assert_int_equal(attribution_acc_add_run_funcs(&acc, side, &tp, 1, &fp, 1), 0);
		}
	assert_int_equal(attribution_acc_finish(&acc, 0.01, 0, &a), 0);
	/* Functions: b moved by exactly 1, memcpy not at all (its table says 800 and 800). */
	assert_int_equal(a.nr_funcs, 1);
	assert_string_equal(a.funcs[0].key, "b");
	assert_true(a.funcs[0].delta == 1 && a.funcs[0].side[0].mean == 50);
	assert_true(a.total.delta == 1 && a.total.side[0].mean == 950);
	/* Paths: main;b by 0.25, listed; the memcpy paths moved by 1e-7: not listed. */
	assert_int_equal(a.nr_paths, 1);
	assert_string_equal(a.paths[0].key, "main;b");
	assert_true(fabs(a.paths[0].delta - 0.25) < 1e-12);
	attribution_release(&a);
	attribution_acc_release(&acc);
	for (int side = 0; side < 2; side++)
		for (int r = 0; r < 2; r++) {
			cct_release(&trees[side][r]);
			cct_release(&funcs[side][r]);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_within_spread_is_noise),
	    cmocka_unit_test(test_single_run_states_no_spread),
	    cmocka_unit_test(test_deterministic_change_is_exact_finding),
	    cmocka_unit_test(test_t_interval_rules_with_few_runs),
	    cmocka_unit_test(test_more_runs_find_within_range),
	    cmocka_unit_test(test_absent_counts_zero),
	    cmocka_unit_test(test_processes_functions_paths_calls),
	    cmocka_unit_test(test_different_weights_refused),
	    cmocka_unit_test(test_counted_functions_exact_paths_rounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
