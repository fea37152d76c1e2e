/*
 * Unit tests of CCT differencing (METHODS.md section 5) on hand-made folded stacks and
 * hand-made change sets: the slower function leads the weight diff; a new callee is a
 * stage 1 difference attributed to its caller; a modified function calling something new is
 * stage 2 with that function first in the attribution list; identical trees have no
 * topological difference and overlap 100; child matching keeps relative order (LCS); the
 * threshold and K stop the adjustment; wide child lists match the same way and many weight
 * pairs keep their order whatever K; the bindiff adapter sorts functions into the sets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/cct_diff.h"
#include "binary/bindiff.h"
#include "profile/folded.h"
#include "util/common.h"

static void parse(const char *text, struct cct *t)
{
	assert_int_equal(folded_parse(text, strlen(text), "test", t), 0);
}

static const char *path_of(const struct cct *t, uint32_t node, struct strbuf *sb)
{
	strbuf_reset(sb);
	cct_path(t, node, sb);
	return sb->buf;
}

#define BASE                                                                                       \
	"main;compute;scale 100\nmain;compute;helper 100\nmain;parse;read_input 100\n"             \
	"main;report;format_num 50\nmain 10\n"

static void test_identical(void **state)
{
	struct cct a, b;
	struct cct_diff d;
	UNUSED(state);
	parse(BASE, &a);
	parse(BASE, &b);
	assert_int_equal(cct_diff_compute(&a, &b, NULL, NULL, &d), 0);
	assert_int_equal(d.nr_topo, 0);
	assert_int_equal(d.nr_pairs, 0);
	assert_int_equal(d.nr_matched, a.nr_nodes);
	assert_true(fabs(d.overlap - 100.0) < 1e-9);
	assert_true(fabs(cct_overlap(&a, &b) - 100.0) < 1e-9);
	cct_diff_release(&d);
	cct_release(&a);
	cct_release(&b);
}

static void test_slower_function_first(void **state)
{
	struct cct a, b;
	struct cct_diff d;
	struct cct_changes ch;
	struct strbuf sb = STRBUF_INIT;
	UNUSED(state);
	parse(BASE, &a);
	/* scale takes 3x as long; helper a little longer (noise). */
	parse("main;compute;scale 300\nmain;compute;helper 104\nmain;parse;read_input 100\n"
	      "main;report;format_num 50\nmain 10\n",
	      &b);
	cct_changes_init(&ch);
	cct_nameset_add(&ch.modified, "scale");
	assert_int_equal(cct_diff_compute(&a, &b, &ch, NULL, &d), 0);
	assert_int_equal(d.nr_topo, 0);
	assert_true(d.nr_pairs >= 1);
	assert_string_equal(path_of(&a, d.pairs[0].old_node, &sb), "main;compute;scale");
	assert_string_equal(path_of(&b, d.pairs[0].new_node, &sb), "main;compute;scale");
	assert_true(d.pairs[0].new_pweight > d.pairs[0].old_pweight);
	assert_true(fabs(d.pairs[0].old_pweight - 100.0 * 100 / 360) < 1e-9);
	assert_true(fabs(d.pairs[0].new_pweight - 100.0 * 300 / 564) < 1e-9);
	assert_true(d.overlap < 100.0);
	assert_true(fabs(d.overlap_after - 100.0) < 1e-6);
	/* Sorted by |pweight difference|, descending. */
	for (size_t i = 1; i < d.nr_pairs; i++)
		assert_true(fabs(d.pairs[i].new_pweight - d.pairs[i].old_pweight) <=
			    fabs(d.pairs[i - 1].new_pweight - d.pairs[i - 1].old_pweight));
	cct_diff_release(&d);

	/* K = 1 reports only the slower function. */
	struct cct_diff_options opts = {.threshold = 0, .max_pairs = 1};
	assert_int_equal(cct_diff_compute(&a, &b, &ch, &opts, &d), 0);
	assert_int_equal(d.nr_pairs, 1);
	assert_string_equal(path_of(&a, d.pairs[0].old_node, &sb), "main;compute;scale");
	cct_diff_release(&d);

	/* A threshold below the overlap reports nothing. */
	opts.max_pairs = 0;
	opts.threshold = 50;
	assert_int_equal(cct_diff_compute(&a, &b, &ch, &opts, &d), 0);
	assert_int_equal(d.nr_pairs, 0);
	cct_diff_release(&d);

	cct_changes_release(&ch);
	strbuf_release(&sb);
	cct_release(&a);
	cct_release(&b);
}

static void test_new_callee_stage1(void **state)
{
	struct cct a, b;
	struct cct_diff d;
	struct cct_changes ch;
	struct strbuf sb = STRBUF_INIT;
	UNUSED(state);
	parse(BASE, &a);
	parse(BASE "main;compute;fresh 40\nmain;compute;fresh;scale 5\n", &b);
	cct_changes_init(&ch);
	cct_nameset_add(&ch.added, "fresh");
	cct_nameset_add(&ch.modified, "compute");
	assert_int_equal(cct_diff_compute(&a, &b, &ch, NULL, &d), 0);
	/* One difference: the fresh subtree; its scale child is inside it, not separate. */
	assert_int_equal(d.nr_topo, 1);
	const struct cct_topo_diff *e = &d.topo[0];
	assert_int_equal(e->stage, CCT_STAGE_ADDED_DELETED);
	assert_true(e->in_new);
	assert_string_equal(path_of(&b, e->node, &sb), "main;compute;fresh");
	assert_string_equal(path_of(&b, e->caller, &sb), "main;compute");
	assert_true(fabs(e->pweight - 100.0 * 45 / 405) < 1e-9);
	/* The common trees are unchanged: no weight difference. */
	assert_int_equal(d.nr_pairs, 0);
	assert_true(fabs(d.overlap - 100.0) < 1e-9);
	cct_diff_release(&d);

	/* Reversed: fresh deleted, a stage 1 difference of the old tree. */
	cct_changes_release(&ch);
	cct_changes_init(&ch);
	cct_nameset_add(&ch.deleted, "fresh");
	assert_int_equal(cct_diff_compute(&b, &a, &ch, NULL, &d), 0);
	assert_int_equal(d.nr_topo, 1);
	assert_false(d.topo[0].in_new);
	assert_int_equal(d.topo[0].stage, CCT_STAGE_ADDED_DELETED);
	cct_diff_release(&d);

	cct_changes_release(&ch);
	strbuf_release(&sb);
	cct_release(&a);
	cct_release(&b);
}

static void test_modified_calls_new_stage2(void **state)
{
	struct cct a, b;
	struct cct_diff d;
	struct cct_changes ch;
	struct strbuf sb = STRBUF_INIT;
	UNUSED(state);
	parse(BASE, &a);
	/* compute (modified) now calls format_num, which existed elsewhere; main is modified
	 * too, so the attribution list is compute then main. */
	parse(BASE "main;compute;format_num 30\n", &b);
	cct_changes_init(&ch);
	cct_nameset_add(&ch.modified, "compute");
	cct_nameset_add(&ch.modified, "main");
	assert_int_equal(cct_diff_compute(&a, &b, &ch, NULL, &d), 0);
	assert_int_equal(d.nr_topo, 1);
	const struct cct_topo_diff *e = &d.topo[0];
	assert_int_equal(e->stage, CCT_STAGE_MODIFIED);
	assert_true(e->in_new);
	assert_string_equal(path_of(&b, e->node, &sb), "main;compute;format_num");
	assert_int_equal(e->nr_attr, 2);
	assert_string_equal(d.attr[e->attr_first], "compute");
	assert_string_equal(d.attr[e->attr_first + 1], "main");
	cct_diff_release(&d);

	/* Without the binary diff the same difference is a side effect (stage 3). */
	assert_int_equal(cct_diff_compute(&a, &b, NULL, NULL, &d), 0);
	assert_int_equal(d.nr_topo, 1);
	assert_int_equal(d.topo[0].stage, CCT_STAGE_SIDE_EFFECT);
	assert_int_equal(d.topo[0].nr_attr, 0);
	cct_diff_release(&d);

	cct_changes_release(&ch);
	strbuf_release(&sb);
	cct_release(&a);
	cct_release(&b);
}

/* Children match only in the same relative order: [a b c] vs [c a b] matches a and b. */
static void test_lcs_order(void **state)
{
	struct cct a, b;
	struct cct_diff d;
	struct strbuf sb = STRBUF_INIT;
	UNUSED(state);
	parse("main;a 1\nmain;b 1\nmain;c 1\n", &a);
	parse("main;c 1\nmain;a 1\nmain;b 1\n", &b);
	assert_int_equal(cct_diff_compute(&a, &b, NULL, NULL, &d), 0);
	assert_int_equal(d.nr_topo, 2);
	assert_false(d.topo[0].in_new);
	assert_string_equal(path_of(&a, d.topo[0].node, &sb), "main;c");
	assert_true(d.topo[1].in_new);
	assert_string_equal(path_of(&b, d.topo[1].node, &sb), "main;c");
	assert_int_equal(d.topo[1].stage, CCT_STAGE_SIDE_EFFECT);
	assert_int_equal(d.nr_matched, 4); /* root, main, a, b */
	cct_diff_release(&d);
	strbuf_release(&sb);
	cct_release(&a);
	cct_release(&b);
}

/*
 * 100 callees under the root (w0..w99, 8 or 40 leaves each); the new tree lists w9..w0 first,
 * then w10..w99, and adds 1 to every third leaf's weight.
 */
static void wide_tree(struct cct *t, bool is_new)
{
	char name[32];

	cct_init(t);
	for (unsigned k = 0; k < 100; k++) {
		unsigned i = is_new && k < 10 ? 9 - k : k;
		snprintf(name, sizeof(name), "w%u", i);
		uint32_t w = cct_child(t, CCT_ROOT, cct_intern(t, name), 0);
		for (unsigned j = 0; j < (i < 10 ? 8u : 40u); j++) {
			snprintf(name, sizeof(name), "leaf%u", j);
			uint32_t l = cct_child(t, w, cct_intern(t, name), 0);
			t->nodes[l].excl = 1 + (i * 31 + j * 17) % 23 + (is_new && j % 3 == 0);
		}
	}
	cct_compute_inclusive(t);
}

/*
 * Wide child lists (hashed rather than scanned) match as a longest common subsequence, and
 * the weight pairs come in report order (larger difference first, ties in old node order)
 * however many there are: K = 20 gives the head of the unlimited list, a K larger than the
 * list the whole list.
 */
static void test_wide_and_many_pairs(void **state)
{
	struct cct a, b;
	struct cct_diff all, head, big;
	struct cct_diff_options o_all = {100, 0}, o_head = {100, 20}, o_big = {100, 5000};
	size_t ties = 0;
	UNUSED(state);
	wide_tree(&a, false);
	wide_tree(&b, true);
	assert_int_equal(cct_diff_compute(&a, &b, NULL, &o_all, &all), 0);
	/* root, one of w0..w9 and w10..w99, their 8 + 90 * 40 leaves */
	assert_int_equal(all.nr_matched, 1 + 91 + 8 + 90 * 40);
	assert_int_equal(all.nr_topo, 18); /* the other 9 of w0..w9 in each tree */
	assert_true(all.nr_pairs > 1024);
	assert_true(fabs(all.overlap_after - 100.0) < 1e-6);
	for (size_t k = 1; k < all.nr_pairs; k++) {
		const struct cct_weight_pair *p = &all.pairs[k - 1], *q = &all.pairs[k];
		double dp = fabs(p->old_pweight - p->new_pweight);
		double dq = fabs(q->old_pweight - q->new_pweight);
		assert_true(dp >= dq);
		if (dp == dq) {
			assert_true(p->old_node < q->old_node);
			ties++;
		}
	}
	assert_true(ties > 0);
	assert_int_equal(cct_diff_compute(&a, &b, NULL, &o_head, &head), 0);
	assert_int_equal(head.nr_pairs, 20);
	assert_memory_equal(head.pairs, all.pairs, 20 * sizeof(*head.pairs));
	assert_int_equal(cct_diff_compute(&a, &b, NULL, &o_big, &big), 0);
	assert_int_equal(big.nr_pairs, all.nr_pairs);
	assert_memory_equal(big.pairs, all.pairs, all.nr_pairs * sizeof(*all.pairs));
	cct_diff_release(&big);
	cct_diff_release(&head);
	cct_diff_release(&all);
	cct_release(&a);
	cct_release(&b);
}

static void test_changes_from_bindiff(void **state)
{
	struct binfunc f_old[4], f_new[4];
	struct bindiff_entry e[5];
	struct bindiff bd;
	struct cct_changes ch;
	static const char *const names[] = {"mod", "gone", "old_name", "same"};
	UNUSED(state);
	memset(f_old, 0, sizeof(f_old));
	memset(f_new, 0, sizeof(f_new));
	memset(e, 0, sizeof(e));
	memset(&bd, 0, sizeof(bd));
	for (size_t i = 0; i < 4; i++)
		f_old[i].name = f_new[i].name = names[i];
	f_new[2].name = "new_name";
	f_new[1].name = "fresh";
	e[0] = (struct bindiff_entry){.cls = BINDIFF_MODIFIED, .old_fn = &f_old[0], .new_fn = &f_new[0]};
	e[1] = (struct bindiff_entry){.cls = BINDIFF_RENAMED, .old_fn = &f_old[2], .new_fn = &f_new[2]};
	e[2] = (struct bindiff_entry){.cls = BINDIFF_ADDED, .new_fn = &f_new[1]};
	e[3] = (struct bindiff_entry){.cls = BINDIFF_DELETED, .old_fn = &f_old[1]};
	e[4] = (struct bindiff_entry){.cls = BINDIFF_UNCHANGED, .old_fn = &f_old[3], .new_fn = &f_new[3]};
	bd.entries = e;
	bd.nr_entries = ARRAY_SIZE(e);
	cct_changes_init(&ch);
	cct_diff_changes_from_bindiff(&bd, &ch);
	assert_int_equal(ch.modified.nr, 1);
	assert_string_equal(ch.modified.names[0], "mod");
	assert_int_equal(ch.added.nr, 2);
	assert_string_equal(ch.added.names[0], "new_name");
	assert_string_equal(ch.added.names[1], "fresh");
	assert_int_equal(ch.deleted.nr, 2);
	assert_string_equal(ch.deleted.names[0], "old_name");
	assert_string_equal(ch.deleted.names[1], "gone");
	cct_changes_release(&ch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_identical),
	    cmocka_unit_test(test_slower_function_first),
	    cmocka_unit_test(test_new_callee_stage1),
	    cmocka_unit_test(test_modified_calls_new_stage2),
	    cmocka_unit_test(test_lcs_order),
	    cmocka_unit_test(test_wide_and_many_pairs),
	    cmocka_unit_test(test_changes_from_bindiff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
