/*
 * Unit tests of the calling context tree: child lookup and creation, inclusive weights,
 * paths, the plain view, merging runs (mean and sd), and the folded stacks reader and
 * writer (round trip, bad input named by its line).
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

#include "profile/cct.h"
#include "profile/folded.h"
#include "util/common.h"
#include "util/input.h"

#include "capture_stderr.h"

/* The node at the folded path `path` ("a;b;c"), or CCT_NONE. */
static uint32_t node_at(const struct cct *t, const char *path)
{
	char *copy = xstrdup(path);
	uint32_t node = CCT_ROOT;
	char *save = NULL;
	for (char *f = strtok_r(copy, ";", &save); f && node != CCT_NONE;
	     f = strtok_r(NULL, ";", &save)) {
		uint32_t name = cct_name_find(t, f);
		node = name == CCT_NONE ? CCT_NONE : cct_child_find(t, node, name, 0);
	}
	free(copy);
	return node;
}

static int parse_str(const char *text, struct cct *t)
{
	return folded_parse(text, strlen(text), "test.folded", t);
}

static void test_child_lookup_and_inclusive(void **state)
{
	struct cct t;
	UNUSED(state);
	cct_init(&t);
	uint32_t main_id = cct_intern(&t, "main");
	uint32_t f = cct_intern(&t, "f");
	assert_int_equal(cct_intern(&t, "main"), main_id);
	uint32_t m = cct_child(&t, CCT_ROOT, main_id, 0);
	uint32_t f0 = cct_child(&t, m, f, 0);
	uint32_t f1 = cct_child(&t, m, f, 1);
	assert_int_not_equal(f0, f1);
	assert_int_equal(cct_child(&t, m, f, 1), f1);
	assert_int_equal(cct_child_find(&t, m, f, 0), f0);
	assert_int_equal(cct_child_find(&t, m, f, 2), CCT_NONE);
	assert_int_equal(t.nodes[f1].rank, 1);
	t.nodes[m].excl = 1;
	t.nodes[f0].excl = 2;
	t.nodes[f1].excl = 4;
	cct_compute_inclusive(&t);
	assert_true(t.nodes[m].incl == 7.0);
	assert_true(cct_total(&t) == 7.0);

	struct strbuf sb = STRBUF_INIT;
	cct_path(&t, f1, &sb);
	assert_string_equal(sb.buf, "main;f#1");
	strbuf_release(&sb);

	/* The plain view merges the two call sites of f. */
	struct cct p;
	cct_plain(&t, &p);
	assert_int_equal(p.nr_nodes, 3);
	uint32_t pf = node_at(&p, "main;f");
	assert_int_not_equal(pf, CCT_NONE);
	assert_true(p.nodes[pf].excl == 6.0);
	assert_true(cct_total(&p) == 7.0);
	cct_release(&p);
	cct_release(&t);
}

/* Many nodes: the hash tables grow and every child stays findable. */
static void test_many_nodes(void **state)
{
	struct cct t;
	char name[32];
	UNUSED(state);
	cct_init(&t);
	for (unsigned i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "fn%u", i % 5000);
		uint32_t parent = i < 100 ? CCT_ROOT : (uint32_t)(1 + i % 100);
		cct_child(&t, parent, cct_intern(&t, name), i / 5000);
	}
	for (unsigned i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "fn%u", i % 5000);
		uint32_t parent = i < 100 ? CCT_ROOT : (uint32_t)(1 + i % 100);
		uint32_t n = cct_child_find(&t, parent, cct_name_find(&t, name), i / 5000);
		assert_int_not_equal(n, CCT_NONE);
		assert_int_equal(t.nodes[n].parent, parent);
	}
	cct_release(&t);
}

static void test_folded_read_weights(void **state)
{
	struct cct t;
	UNUSED(state);
	assert_int_equal(folded_read(TESTDATA_DIR "/cct/sample.folded", &t), 0);
	uint32_t compute = node_at(&t, "main;compute");
	assert_int_not_equal(compute, CCT_NONE);
	assert_true(t.nodes[compute].excl == 10.0);
	assert_true(t.nodes[compute].incl == 160.0);
	assert_true(t.nodes[node_at(&t, "main")].incl == 207.0);
	assert_true(cct_total(&t) == 207.0);
	assert_true(t.nodes[node_at(&t, "main;compute;scale")].excl == 120.0);
	cct_release(&t);
}

/* Frames with spaces, repeated stacks add up, CRLF and blank lines are accepted. */
static void test_folded_lenient(void **state)
{
	struct cct t;
	UNUSED(state);
	assert_int_equal(parse_str("main;operator new(unsigned long) 3\r\n\nmain;operator "
				   "new(unsigned long) 4\nmain  2.5\n",
				   &t),
			 0);
	assert_true(t.nodes[node_at(&t, "main;operator new(unsigned long)")].excl == 7.0);
	assert_true(t.nodes[node_at(&t, "main")].excl == 2.5);
	cct_release(&t);
}

static void test_folded_round_trip(void **state)
{
	struct cct a, b;
	struct strbuf first = STRBUF_INIT, second = STRBUF_INIT;
	UNUSED(state);
	assert_int_equal(folded_read(TESTDATA_DIR "/cct/sample.folded", &a), 0);
	folded_write(&a, &first);
	assert_int_equal(folded_parse(first.buf, first.len, "written", &b), 0);
	folded_write(&b, &second);
	assert_string_equal(first.buf, second.buf);
	assert_int_equal(a.nr_nodes, b.nr_nodes);
	for (size_t i = 0; i < a.nr_nodes; i++) {
		assert_string_equal(cct_name(&a, a.nodes[i].name), cct_name(&b, b.nodes[i].name));
		assert_int_equal(a.nodes[i].parent, b.nodes[i].parent);
		assert_true(a.nodes[i].excl == b.nodes[i].excl);
		assert_true(a.nodes[i].incl == b.nodes[i].incl);
	}
	/* The same lines as the input, in its order (the fixture has one line per node). */
	struct strbuf orig = STRBUF_INIT;
	assert_int_equal(input_read(&orig, TESTDATA_DIR "/cct/sample.folded", &input_state), 0);
	assert_int_equal(first.len, orig.len);
	strbuf_release(&orig);
	strbuf_release(&first);
	strbuf_release(&second);
	cct_release(&a);
	cct_release(&b);
}

/* Runs `path` through folded_read() with stderr captured into `err`; returns its result. */
static int read_capturing(const char *path, struct strbuf *err)
{
	struct stderr_capture cap;
	struct cct t;
	char *printed;

	capture_stderr_begin(&cap);
	int ret = folded_read(path, &t);
	printed = capture_stderr_end(&cap);
	strbuf_addstr(err, printed);
	free(printed);
	/* On failure the tree holds only the root. */
	assert_int_equal(t.nr_nodes, 1);
	cct_release(&t);
	return ret;
}

static void test_folded_bad_input(void **state)
{
	static const struct {
		const char *file;
		const char *message;
	} cases[] = {
	    {"missing_count.folded", "missing_count.folded:2: expected 'frame;frame count'"},
	    {"bad_count.folded",
	     "bad_count.folded:3: expected 'frame;frame count', the count 'abc'"},
	    {"empty_frame.folded", "empty_frame.folded:1: expected 'frame;frame count', found an "
				   "empty frame"},
	    {"no_such_file.folded", "cannot read profile"},
	};
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
		strbuf_addf(&path, "%s/cct/%s", TESTDATA_DIR, cases[i].file);
		assert_int_equal(read_capturing(path.buf, &err), RP_EINPUT);
		if (!strstr(err.buf, cases[i].message))
			fail_msg("%s: got '%s'", cases[i].file, err.buf);
		strbuf_release(&err);
		strbuf_release(&path);
	}
	/* Inline cases: negative, NaN, trailing separator; empty (no stack, only blank
	 * lines) and all-zero profiles, which hold nothing to compare. */
	static const char *const bad[] = {"a;b -1\n", "a;b nan\n", "a;b; 3\n", ";a 3\n",
					  "5\n",      "",	   "\n\r\n\n", "a;b 0\na 0\n"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct stderr_capture cap;
		struct cct t;
		char *printed;

		capture_stderr_begin(&cap);
		int ret = parse_str(bad[i], &t);
		printed = capture_stderr_end(&cap);
		if (ret != RP_EINPUT)
			fail_msg("accepted '%s'", bad[i]);
		/* names the line, or for a profile with no stack at all, the file */
		if (!strstr(printed, "test.folded:1: ") &&
		    strncmp(printed, "revperf: error: test.folded: ", 29))
			fail_msg("'%s': the message does not name the line: '%s'", bad[i], printed);
		free(printed);
		cct_release(&t);
	}
	/* A NUL inside a frame (found by fuzz_folded): names are C strings, so refused. */
	{
		static const char nul[] = "a;b 1\nma\0in;f 2\n";
		struct stderr_capture cap;
		struct cct t;

		capture_stderr_begin(&cap);
		int ret = folded_parse(nul, sizeof(nul) - 1, "nul", &t);
		free(capture_stderr_end(&cap));
		assert_int_equal(ret, RP_EINPUT);
		assert_int_equal(t.nr_nodes, 1);
		cct_release(&t);
	}
}

static void test_merge_mean_sd(void **state)
{
	struct cct r[3], m;
	UNUSED(state);
	assert_int_equal(parse_str("main;f 10\nmain 2\n", &r[0]), 0);
	assert_int_equal(parse_str("main;f 14\nmain 2\n", &r[1]), 0);
	assert_int_equal(parse_str("main;f 12\nmain;g 3\nmain 2\n", &r[2]), 0);
	const struct cct *runs[] = {&r[0], &r[1], &r[2]};
	assert_int_equal(cct_merge(runs, 3, &m), 0);
	assert_int_equal(m.nr_runs, 3);
	uint32_t f = node_at(&m, "main;f"), g = node_at(&m, "main;g");
	assert_true(fabs(m.nodes[f].excl - 12.0) < 1e-12);
	assert_true(fabs(m.sd[f].excl - 2.0) < 1e-12);
	/* g is absent from two runs: it counts 0 there. */
	assert_true(fabs(m.nodes[g].excl - 1.0) < 1e-12);
	assert_true(fabs(m.sd[g].excl - sqrt(3.0)) < 1e-12);
	assert_true(fabs(m.sd[node_at(&m, "main")].excl) < 1e-12);
	assert_true(fabs(cct_total(&m) - 15.0) < 1e-12);
	cct_release(&m);
	for (size_t i = 0; i < 3; i++)
		cct_release(&r[i]);

	/* No runs is an input error. */
	assert_int_equal(cct_merge(NULL, 0, &m), RP_EINPUT);
	cct_release(&m);
}

/* Children in name order (then site), metrics and sd with their nodes, ranks renumbered. */
static void test_sort_children(void **state)
{
	struct cct r[2], m, s;
	struct strbuf sb = STRBUF_INIT;
	UNUSED(state);
	assert_int_equal(parse_str("main;zeta 5\nmain;alpha;b 3\nmain;alpha;a 1\nmain 2\n", &r[0]),
			 0);
	assert_int_equal(parse_str("main;zeta 7\nmain;alpha;a 1\n", &r[1]), 0);
	const struct cct *runs[] = {&r[0], &r[1]};
	assert_int_equal(cct_merge(runs, 2, &m), 0);
	cct_sort_children(&m, &s);
	assert_int_equal(s.nr_nodes, m.nr_nodes);
	assert_int_equal(s.nr_runs, 2);
	folded_write(&s, &sb);
	assert_string_equal(sb.buf, "main 1\nmain;zeta 6\nmain;alpha;a 1\nmain;alpha;b 1.5\n");
	uint32_t alpha = node_at(&s, "main;alpha"), zeta = node_at(&s, "main;zeta");
	assert_int_equal(s.nodes[alpha].rank, 0);
	assert_int_equal(s.nodes[zeta].rank, 1);
	assert_true(fabs(s.nodes[zeta].incl - 6.0) < 1e-12);
	assert_true(fabs(s.sd[zeta].excl - sqrt(2.0)) < 1e-12);
	assert_true(fabs(s.sd[node_at(&s, "main;alpha;b")].excl - sqrt(4.5)) < 1e-12);
	assert_true(fabs(cct_total(&s) - cct_total(&m)) < 1e-12);
	strbuf_release(&sb);
	cct_release(&s);
	cct_release(&m);
	for (size_t i = 0; i < 2; i++)
		cct_release(&r[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_child_lookup_and_inclusive),
	    cmocka_unit_test(test_many_nodes),
	    cmocka_unit_test(test_folded_read_weights),
	    cmocka_unit_test(test_folded_lenient),
	    cmocka_unit_test(test_folded_round_trip),
	    cmocka_unit_test(test_folded_bad_input),
	    cmocka_unit_test(test_merge_mean_sd),
	    cmocka_unit_test(test_sort_children),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
