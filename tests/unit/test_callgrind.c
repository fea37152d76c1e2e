/*
 * Unit tests of the callgrind reader: hand-made profiles whose trees are known exactly (a
 * tree-shaped graph, a function called from two callers, recursion, name and subposition
 * compression, several events, parts and concatenated files, separate-callers names, cost
 * that no caller explains), bad input named by its line, the context cap, format sniffing,
 * a small real profile, and a profile made here by valgrind from a program compiled here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "profile/callgrind.h"
#include "util/common.h"
#include "util/input.h"

#include "capture_stderr.h"

#define FIXTURE(name) TESTDATA_DIR "/callgrind/" name

/* The node at `path` ("a;b#1;c": frames, a call site rank after '#'), or CCT_NONE. */
static uint32_t node_at(const struct cct *t, const char *path)
{
	char *copy = xstrdup(path);
	uint32_t node = CCT_ROOT;
	char *save = NULL;
	for (char *f = strtok_r(copy, ";", &save); f && node != CCT_NONE;
	     f = strtok_r(NULL, ";", &save)) {
		char *hash = strrchr(f, '#');
		uint32_t site = 0;
		if (hash) {
			*hash = '\0';
			site = (uint32_t)strtoul(hash + 1, NULL, 10);
		}
		uint32_t name = cct_name_find(t, f);
		node = name == CCT_NONE ? CCT_NONE : cct_child_find(t, node, name, site);
	}
	free(copy);
	return node;
}

/* Fails unless the node at `path` has these calls and weights (within 1e-9 relative). */
static void check_node(const struct cct *t, const char *path, double calls, double incl,
		       double excl)
{
	uint32_t n = node_at(t, path);
	if (n == CCT_NONE)
		fail_msg("no node %s", path);
	const struct cct_node *node = &t->nodes[n];
	double tol = 1e-9 * (fabs(incl) > 1 ? fabs(incl) : 1);
	if (fabs(node->calls - calls) > 1e-9 * (calls > 1 ? calls : 1) ||
	    fabs(node->incl - incl) > tol || fabs(node->excl - excl) > tol)
		fail_msg("%s: calls %.17g incl %.17g excl %.17g, expected %g %g %g", path,
			 node->calls, node->incl, node->excl, calls, incl, excl);
}

/*
 * Runs callgrind_parse() (text) or callgrind_read() (path, when text is NULL) with stderr
 * captured into `err`; returns its result. On failure the tree must hold only the root.
 */
static int run_capturing(const char *text, size_t len, const char *path, const char *event,
			 struct cct *t, struct strbuf *err)
{
	struct stderr_capture cap;
	char *printed;

	capture_stderr_begin(&cap);
	int ret = text ? callgrind_parse(text, len, "test.out", event, t)
		       : callgrind_read(path, event, t);
	printed = capture_stderr_end(&cap);
	strbuf_reset(err);
	strbuf_addstr(err, printed);
	free(printed);
	if (ret)
		assert_int_equal(t->nr_nodes, 1);
	return ret;
}

static int parse_str(const char *text, const char *event, struct cct *t)
{
	return callgrind_parse(text, strlen(text), "test.out", event, t);
}

static void read_fixture(const char *path, const char *event, struct cct *t)
{
	int ret = callgrind_read(path, event, t);
	if (ret)
		fail_msg("%s: callgrind_read returned %d", path, ret);
}

/* A tree-shaped graph gives the exact tree. */
static void test_tree_exact(void **state)
{
	struct cct t;
	UNUSED(state);
	read_fixture(FIXTURE("tree.callgrind"), NULL, &t);
	assert_int_equal(t.nr_nodes, 5);
	check_node(&t, "main", 0, 810, 10);
	check_node(&t, "main;parse", 2, 300, 100);
	check_node(&t, "main;parse;lex", 40, 200, 200);
	check_node(&t, "main;run", 1, 500, 500);
	assert_true(cct_total(&t) == 810.0);
	/* Children in the order of their call positions. */
	assert_int_equal(t.nodes[node_at(&t, "main;parse")].rank, 0);
	assert_int_equal(t.nodes[node_at(&t, "main;run")].rank, 1);
	cct_release(&t);
}

/*
 * func2 is called from main (3 calls, 400) and func1 (2 calls, 300): each context gets its
 * edge's calls and inclusive cost exactly; func2's callee leaf is split 4/7 and 3/7.
 */
static void test_two_callers_split(void **state)
{
	struct cct t;
	UNUSED(state);
	read_fixture(FIXTURE("two-callers.callgrind"), NULL, &t);
	assert_int_equal(t.nr_nodes, 7);
	check_node(&t, "main", 0, 820, 20);
	check_node(&t, "main;func1", 1, 400, 100);
	check_node(&t, "main;func1;func2", 2, 300, 600.0 * 3 / 7);
	check_node(&t, "main;func1;func2;leaf", 10.0 * 3 / 7, 100.0 * 3 / 7, 100.0 * 3 / 7);
	check_node(&t, "main;func2", 3, 400, 600.0 * 4 / 7);
	check_node(&t, "main;func2;leaf", 10.0 * 4 / 7, 100.0 * 4 / 7, 100.0 * 4 / 7);
	assert_true(fabs(cct_total(&t) - 820) < 1e-9);
	cct_release(&t);
}

/*
 * Recursion is folded into the outermost call on the path: direct (rec), mutual (a, b),
 * and callgrind's r'2 naming, which yields one more level (main;r;r).
 */
static void test_recursion(void **state)
{
	struct cct t;
	UNUSED(state);
	read_fixture(FIXTURE("recursion.callgrind"), NULL, &t);
	assert_int_equal(t.nr_nodes, 8);
	check_node(&t, "main", 0, 177, 5);
	/* All 6 levels' cost, and all 6 calls of leaf, under the one rec context. */
	check_node(&t, "main;rec", 1, 72, 60);
	check_node(&t, "main;rec;leaf", 6, 12, 12);
	assert_int_equal(node_at(&t, "main;rec;rec"), CCT_NONE);
	check_node(&t, "main;a", 1, 21, 15);
	check_node(&t, "main;a;b", 2, 6, 6);
	assert_int_equal(node_at(&t, "main;a;b;a"), CCT_NONE);
	check_node(&t, "main;r", 1, 79, 14);
	check_node(&t, "main;r;r", 1, 65, 65);
	assert_true(fabs(cct_total(&t) - 177) < 1e-9);
	cct_release(&t);
}

/*
 * Compressed names and positions: work is called at two instruction addresses (two call
 * sites, ranked by address although the file lists the higher one first; a call repeated
 * at one address adds up); helper exists in two objects and only the program's calls deep.
 */
static void test_compression_and_sites(void **state)
{
	struct cct t;
	UNUSED(state);
	read_fixture(FIXTURE("compressed.callgrind"), NULL, &t);
	assert_int_equal(t.nr_nodes, 9);
	check_node(&t, "main", 0, 225, 5);
	check_node(&t, "main;helper", 2, 40, 40);
	assert_int_equal(t.nodes[node_at(&t, "main;helper")].nr_children, 0);
	check_node(&t, "main;work", 5, 150, 100);
	check_node(&t, "main;work;helper", 5, 50, 45);
	check_node(&t, "main;work;helper;deep", 5, 5, 5);
	check_node(&t, "main;work#1", 1, 30, 20);
	check_node(&t, "main;work#1;helper;deep", 1, 1, 1);
	/* Children in address order: work (0x1008), helper (0x100c), work#1 (0x1010). */
	assert_int_equal(t.nodes[node_at(&t, "main;work")].rank, 0);
	assert_int_equal(t.nodes[node_at(&t, "main;helper")].rank, 1);
	assert_int_equal(t.nodes[node_at(&t, "main;work#1")].rank, 2);
	cct_release(&t);
}

/* The first event by default, any other by name; missing trailing costs are 0. */
static void test_events(void **state)
{
	static const struct {
		const char *event;
		double main_excl, f_excl;
	} cases[] = {
	    {NULL, 150, 60},
	    {"Ir", 150, 60},
	    {"Dr", 35, 20},
	    {"Dw", 10, 6},
	};
	struct strbuf err = STRBUF_INIT;
	struct cct t;
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		read_fixture(FIXTURE("events.callgrind"), cases[i].event, &t);
		check_node(&t, "main", 0, cases[i].main_excl + cases[i].f_excl, cases[i].main_excl);
		check_node(&t, "main;f", 3, cases[i].f_excl, cases[i].f_excl);
		cct_release(&t);
	}
	assert_int_equal(run_capturing(NULL, 0, FIXTURE("events.callgrind"), "Bc", &t, &err),
			 RP_EINPUT);
	assert_non_null(strstr(err.buf, "events.callgrind:3: no event 'Bc' in 'events: Ir Dr Dw'"));
	cct_release(&t);
	strbuf_release(&err);
}

/* Parts add up (their events may be in another order); so do concatenated files. */
static void test_parts_and_concatenation(void **state)
{
	static const char parts[] = "events: Ir Dr\n"
				    "part: 1\n"
				    "fn=main\n1 10 1\ncfn=f\ncalls=1 5\n1 4 2\n"
				    "fn=f\n5 4 2\n"
				    "totals: 14 3\n"
				    "part: 2\n"
				    "events: Dr Ir\n"
				    "fn=main\n1 7 20\ncfn=f\ncalls=2 5\n1 1 6\n"
				    "fn=f\n5 1 6\n"
				    "totals: 8 26\n";
	/* Two files, both from callgrind, whose compressed ids mean different names. */
	static const char files[] = "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n"
				    "events: Ir\n"
				    "fn=(1) main\n1 10\ncfn=(2) f\ncalls=1 5\n1 4\n"
				    "fn=(2)\n5 4\n"
				    "totals: 14\n"
				    "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n"
				    "events: Ir\n"
				    "fn=(1) main\n1 20\ncfn=(2) g\ncalls=3 5\n1 6\n"
				    "fn=(2)\n5 6\n"
				    "totals: 26\n";
	struct cct t;
	UNUSED(state);
	assert_int_equal(parse_str(parts, NULL, &t), 0);
	check_node(&t, "main", 0, 40, 30);
	check_node(&t, "main;f", 3, 10, 10);
	cct_release(&t);
	assert_int_equal(parse_str(parts, "Dr", &t), 0);
	check_node(&t, "main;f", 3, 3, 3);
	cct_release(&t);

	assert_int_equal(parse_str(files, NULL, &t), 0);
	check_node(&t, "main", 0, 40, 30);
	check_node(&t, "main;f", 1, 4, 4);
	check_node(&t, "main;g", 3, 6, 6);
	cct_release(&t);
}

/*
 * --separate-callers names (f'a is f called from a) are functions of their own, so the
 * contexts they tell apart are exact: g is called 10 times under a's f, once under b's.
 */
static void test_separate_callers(void **state)
{
	static const char text[] = "events: Ir\n"
				   "fn=main\n1 1\ncfn=a\ncalls=1 1\n1 111\ncfn=b\ncalls=1 1\n1 12\n"
				   "fn=a\n1 1\ncfn=f'a\ncalls=1 1\n1 110\n"
				   "fn=b\n1 1\ncfn=f'b\ncalls=1 1\n1 11\n"
				   "fn=f'a\n1 10\ncfn=g'f'a\ncalls=10 1\n1 100\n"
				   "fn=f'b\n1 1\ncfn=g'f'b\ncalls=1 1\n1 10\n"
				   "fn=g'f'a\n1 100\nfn=g'f'b\n1 10\n";
	struct cct t;
	UNUSED(state);
	assert_int_equal(parse_str(text, NULL, &t), 0);
	check_node(&t, "main;a;f;g", 10, 100, 100);
	check_node(&t, "main;b;f;g", 1, 10, 10);
	check_node(&t, "main;a;f", 1, 110, 10);
	assert_true(fabs(cct_total(&t) - 124) < 1e-9);
	cct_release(&t);
}

/*
 * Valgrind names every function below main "(below main)": a static program's start
 * (__libc_start_main) calls glibc's __libc_start_call_main, another function of that name,
 * and each was a frame of its own, "(below main);(below main);main". They are one frame,
 * with both self costs; real functions keep their frames, and so does a recursion
 * (rec'2, callgrind's --separate-recs=2), and a "(below main)" that is not called by one.
 */
static void test_below_main_once(void **state)
{
	static const char text[] =
	    "events: Ir\n"
	    "ob=prog\nfn=(below main)\n1 3\n"
	    "cob=libc\ncfn=(below main)\ncalls=1 1\n1 1120\n"
	    "ob=libc\nfn=(below main)\n1 7\n"
	    "cob=prog\ncfn=main\ncalls=1 1\n1 1110\ncfn=exit\ncalls=1 1\n1 3\n"
	    "fn=exit\n1 3\n"
	    "ob=prog\nfn=main\n1 100\ncfn=rec\ncalls=1 1\n1 1000\n"
	    "cob=other\ncfn=(below main)\ncalls=1 1\n1 10\n"
	    "fn=rec\n1 500\ncfn=rec'2\ncalls=1 1\n1 500\n"
	    "fn=rec'2\n1 500\n"
	    "ob=other\nfn=(below main)\n1 10\n";
	struct cct t;
	UNUSED(state);
	assert_int_equal(parse_str(text, NULL, &t), 0);
	check_node(&t, "(below main)", 0, 1123, 10);
	assert_int_equal(node_at(&t, "(below main);(below main)"), CCT_NONE);
	check_node(&t, "(below main);main", 1, 1110, 100);
	check_node(&t, "(below main);exit", 1, 3, 3);
	check_node(&t, "(below main);main;rec", 1, 1000, 500);
	check_node(&t, "(below main);main;rec;rec", 1, 500, 500);
	check_node(&t, "(below main);main;(below main)", 1, 10, 10);
	assert_true(fabs(cct_total(&t) - 1123) < 1e-9);
	cct_release(&t);
}

/*
 * Cost that no recorded call explains (collection switched on inside g, or a signal
 * handler) makes a top frame of its own; so does a function nobody calls.
 */
static void test_unexplained_cost_is_top_frame(void **state)
{
	static const char text[] = "events: Ir\n"
				   "fn=f\n1 100\ncfn=g\ncalls=1 1\n1 50\n"
				   "fn=g\n1 80\n"
				   "fn=lonely\n1 7\n";
	struct cct t;
	UNUSED(state);
	assert_int_equal(parse_str(text, NULL, &t), 0);
	check_node(&t, "f", 0, 150, 100);
	check_node(&t, "f;g", 1, 50, 50);
	check_node(&t, "g", 0, 30, 30);
	check_node(&t, "lonely", 0, 7, 7);
	assert_true(fabs(cct_total(&t) - 187) < 1e-9);
	/* Top frames are sorted by name. */
	assert_int_equal(t.nodes[node_at(&t, "f")].rank, 0);
	assert_int_equal(t.nodes[node_at(&t, "g")].rank, 1);
	assert_int_equal(t.nodes[node_at(&t, "lonely")].rank, 2);
	cct_release(&t);
}

/* Blank lines, comments and CRLF line ends are accepted. */
static void test_lenient(void **state)
{
	static const char text[] =
	    "# callgrind format\r\n\r\n# a comment\r\n"
	    "events: Ir\r\nunknownkey: ignored\r\n"
	    "fn=main\r\n1 3\r\n   \r\ncfn=f\r\ncalls=1 2\r\n# between\r\n1 4\r\n"
	    "fn=f\r\n2 4\r\ntotals: 7\r\n";
	struct cct t;
	UNUSED(state);
	assert_int_equal(parse_str(text, NULL, &t), 0);
	check_node(&t, "main", 0, 7, 3);
	check_node(&t, "main;f", 1, 4, 4);
	cct_release(&t);
}

static void test_bad_input(void **state)
{
	static const struct {
		const char *text, *event, *message;
	} cases[] = {
	    {"events: Ir\nfn=main\n1 2\nhello world\n", NULL,
	     "test.out:4: unknown line 'hello world'"},
	    {"events: Ir\nfn=main\nfoo=bar\n", NULL, "test.out:3: unknown line 'foo=...'"},
	    {"events: Ir\nfn=main\n1 2x\n", NULL,
	     "test.out:3: bad cost '2x': expected an unsigned integer"},
	    {"events: Ir\nfn=main\n1 -2\n", NULL, "test.out:3: bad cost '-2'"},
	    {"events: Ir\nfn=main\n1 18446744073709551616\n", NULL,
	     "test.out:3: bad cost '18446744073709551616'"},
	    {"events: Ir\nfn=main\n+x 2\n", NULL, "test.out:3: bad position '+x'"},
	    {"positions: instr line\nevents: Ir\nfn=main\n1\n", NULL,
	     "test.out:4: expected 2 position(s) as the positions: line says, found 1"},
	    {"events: Ir\nfn=main\n1 2 3\n", NULL,
	     "test.out:3: more costs than the 1 event(s) of the events: line"},
	    {"events: Ir\nfn=main\n1 2\ncfn=f\ncalls=1 1\n", NULL,
	     "test.out:5: the file ends after the calls= on line 5, without its cost line"},
	    {"events: Ir\nfn=main\ncfn=f\ncalls=1 1\n\nfn=g\n1 1\n", NULL,
	     "test.out:6: expected the cost line of the calls= on line 4, found 'fn=g'"},
	    {"events: Ir\nfn=main\ncalls=1 1\n1 1\n", NULL,
	     "test.out:3: calls= without a cfn= line"},
	    {"events: Ir\nfn=main\ncfn=f\ncalls=x 1\n1 1\n", NULL,
	     "test.out:4: bad calls= line 'x 1'"},
	    {"events: Ir\nfn=main\ncfn=f\ncalls=1 1 2\n1 1\n", NULL,
	     "test.out:4: bad calls= target position"},
	    {"events: Ir\ncfn=f\n", NULL, "test.out:2: cfn= before any fn= line"},
	    {"events: Ir\ncalls=1 1\n", NULL, "test.out:2: calls= before any fn= line"},
	    {"events: Ir\n1 2\n", NULL, "test.out:2: a cost line before any fn= line"},
	    {"fn=main\n1 2\n", NULL, "test.out:2: a cost line before the events: line"},
	    {"# callgrind format\nversion: 1\ncreator: me\nfn=main\n", NULL,
	     "test.out:4: the file ends without an events: line"},
	    {"", NULL, "test.out: empty file"},
	    {"\n\n# only a comment\n", NULL, "test.out: empty file"},
	    {"events:\n", NULL, "test.out:1: an events: line without event names"},
	    {"events: Ir\n", "Dr", "test.out:1: no event 'Dr' in 'events: Ir'"},
	    {"events: Ir\npart: 2\nevents: Dr\n", NULL, "test.out:3: no event 'Ir'"},
	    {"positions: instr col\n", NULL, "test.out:1: bad 'positions: instr col'"},
	    {"events: Ir\nfn=(3)\n", NULL,
	     "test.out:2: fn=(3) refers to an id that no earlier line defined"},
	    {"events: Ir\nfn=(1) a\nfn=(1) b\n", NULL,
	     "test.out:3: fn=(1) is redefined as 'b'; it was 'a'"},
	    {"events: Ir\nfn=(1 a\n", NULL, "test.out:2: fn=: bad name id '(1 a'"},
	    {"events: Ir\nfn=\n", NULL, "test.out:2: fn= without a name"},
	    {"events: Ir\nfn=main\n1 2\ntotals: 3\n", NULL,
	     "test.out:4: totals: says 3 Ir but the cost lines add up to 2"},
	    {"creator: callgrind-3.19.0\nevents: Ir\nfn=main\n1 2\n", NULL,
	     "test.out:4: the file ends without the totals: line that callgrind writes"},
	    {"creator: callgrind-3.19.0\nevents: Ir\nfn=main\n1 2\nversion: 1\n", NULL,
	     "test.out:5: a new file starts but the one before has no totals: line"},
	    {" fn=main\n", NULL, "test.out:1: unknown line ' fn=main'"},
	};
	struct strbuf err = STRBUF_INIT;
	struct cct t;
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = run_capturing(cases[i].text, strlen(cases[i].text), NULL, cases[i].event,
					&t, &err);
		if (ret != RP_EINPUT)
			fail_msg("accepted '%s' (%d)", cases[i].text, ret);
		if (!strstr(err.buf, cases[i].message))
			fail_msg("'%s': got '%s', expected '%s'", cases[i].text, err.buf,
				 cases[i].message);
		/* One line, one error. */
		assert_true(strchr(err.buf, '\n') == err.buf + err.len - 1);
		cct_release(&t);
	}
	/* A NUL byte inside a line. */
	static const char nul[] = "events: Ir\nfn=ma\0in\n1 1\n";
	assert_int_equal(run_capturing(nul, sizeof(nul) - 1, NULL, NULL, &t, &err), RP_EINPUT);
	assert_non_null(strstr(err.buf, "test.out:2: a NUL byte"));
	cct_release(&t);
	/* A missing file. */
	assert_int_equal(run_capturing(NULL, 0, FIXTURE("no-such.callgrind"), NULL, &t, &err),
			 RP_EINPUT);
	assert_non_null(strstr(err.buf, "cannot read profile"));
	cct_release(&t);
	strbuf_release(&err);
}

/*
 * main calls 128 functions, each calls the same 128, each calls the same 128 leaves:
 * 1 + 128 + 128^2 + 128^3 contexts pass CALLGRIND_MAX_NODES, a clear error.
 */
static void test_context_cap(void **state)
{
	const unsigned k = 128;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct cct t;
	UNUSED(state);
	assert_true(1 + k + k * k + (size_t)k * k * k > CALLGRIND_MAX_NODES);
	strbuf_addstr(&text, "events: Ir\nfn=main\n1 1\n");
	for (unsigned i = 0; i < k; i++)
		strbuf_addf(&text, "cfn=a%u\ncalls=1 1\n1 %u\n", i, k * k);
	for (unsigned i = 0; i < k; i++) {
		strbuf_addf(&text, "fn=a%u\n", i);
		for (unsigned j = 0; j < k; j++)
			strbuf_addf(&text, "cfn=b%u\ncalls=1 1\n1 %u\n", j, k);
		strbuf_addf(&text, "fn=b%u\n", i);
		for (unsigned j = 0; j < k; j++)
			strbuf_addf(&text, "cfn=c%u\ncalls=%u 1\n1 %u\n", j, k, k);
		strbuf_addf(&text, "fn=c%u\n1 %u\n", i, k * k);
	}
	assert_int_equal(run_capturing(text.buf, text.len, NULL, NULL, &t, &err), RP_EINPUT);
	assert_non_null(strstr(err.buf, "test.out: the call graph expands into more than"));
	cct_release(&t);

	/* With 40 per layer the same shape reads, every context present. */
	strbuf_reset(&text);
	strbuf_addstr(&text, "events: Ir\nfn=main\n1 1\n");
	for (unsigned i = 0; i < 40; i++)
		strbuf_addf(&text, "cfn=a%u\ncalls=1 1\n1 1600\n", i);
	for (unsigned i = 0; i < 40; i++) {
		strbuf_addf(&text, "fn=a%u\n", i);
		for (unsigned j = 0; j < 40; j++)
			strbuf_addf(&text, "cfn=b%u\ncalls=1 1\n1 40\n", j);
		strbuf_addf(&text, "fn=b%u\n", i);
		for (unsigned j = 0; j < 40; j++)
			strbuf_addf(&text, "cfn=c%u\ncalls=40 1\n1 40\n", j);
		strbuf_addf(&text, "fn=c%u\n1 1600\n", i);
	}
	assert_int_equal(run_capturing(text.buf, text.len, NULL, NULL, &t, &err), 0);
	assert_int_equal(t.nr_nodes, 2 + 40 + 40 * 40 + 40 * 40 * 40);
	check_node(&t, "main;a7;b3;c5", 1, 1, 1);
	assert_true(fabs(cct_total(&t) - (1 + 40 * 40 * 40)) < 1e-6);
	cct_release(&t);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* The contexts lighter than CALLGRIND_FOLD_BELOW of the total are folded, not lost. */
static void test_light_contexts_folded(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct cct t;
	UNUSED(state);
	/*
	 * heavy: 10^7 of work; tiny: 1 instruction calling leaf, which costs 2; rt: 3 levels
	 * of direct recursion costing 2 each.
	 */
	strbuf_addstr(&text, "events: Ir\n"
			     "fn=main\n1 1\ncfn=heavy\ncalls=1 1\n1 10000000\n"
			     "cfn=tiny\ncalls=1 1\n1 3\ncfn=rt\ncalls=1 1\n1 6\n"
			     "fn=heavy\n1 10000000\n"
			     "fn=tiny\n1 1\ncfn=leaf\ncalls=1 1\n1 2\n"
			     "fn=leaf\n1 2\n"
			     "fn=rt\n1 6\ncfn=rt\ncalls=2 1\n1 6\n");
	assert_int_equal(callgrind_parse(text.buf, text.len, "t", NULL, &t), 0);
	/* Under the threshold (10 of 10^7): leaf's cost is in tiny, leaf not expanded. */
	check_node(&t, "main;tiny", 1, 3, 3);
	assert_int_equal(node_at(&t, "main;tiny;leaf"), CCT_NONE);
	/* A folded context's own recursion is counted once. */
	check_node(&t, "main;rt", 1, 6, 6);
	check_node(&t, "main;heavy", 1, 10000000, 10000000);
	assert_true(fabs(cct_total(&t) - 10000010) < 1e-6);
	cct_release(&t);

	/* The functions as callgrind counted them, folded or not: leaf 2 (1 call), tiny 1,
	 * rt 6 (1 call from main, 2 from itself). */
	{
		char path[] = "/tmp/test_callgrind_funcs_XXXXXX";
		int fd = mkstemp(path);
		struct cct f;
		assert_true(fd >= 0);
		assert_int_equal(write(fd, text.buf, text.len), (ssize_t)text.len);
		close(fd);
		assert_int_equal(callgrind_read_renamed(path, NULL, NULL, NULL, &t, &f), 0);
		/* the table alone, without building the tree: the same */
		{
			struct cct g;
			assert_int_equal(callgrind_read_renamed(path, NULL, NULL, NULL, NULL, &g),
					 0);
			check_node(&g, "rt", 3, 6, 6);
			check_node(&g, "leaf", 1, 2, 2);
			assert_int_equal(g.nr_nodes, 6);
			cct_release(&g);
		}
		unlink(path);
		check_node(&t, "main;tiny", 1, 3, 3);
		check_node(&f, "leaf", 1, 2, 2);
		check_node(&f, "tiny", 1, 1, 1);
		check_node(&f, "rt", 3, 6, 6);
		check_node(&f, "heavy", 1, 10000000, 10000000);
		check_node(&f, "main", 0, 1, 1);
		assert_int_equal(f.nr_nodes, 6); /* the root and 5 functions, no contexts */
		assert_int_equal(f.weight, CCT_WEIGHT_EVENT);
		assert_string_equal(f.weight_event, "Ir");
		assert_true(f.calls_known);
		assert_true(fabs(cct_total(&f) - 10000010) < 1e-6);
		cct_release(&t);
		cct_release(&f);
	}
	strbuf_release(&text);
}

static void test_sniff(void **state)
{
	static const struct {
		const char *text;
		bool callgrind;
	} cases[] = {
	    {"# callgrind format\n", true},
	    {"# callgrind format\r\nversion: 1\r\n", true},
	    {"version: 1\ncreator: callgrind-3.19.0\npid: 1\n\nevents: Ir\n", true},
	    {"desc: I1 cache: 32768 B\ncmd: ./a\nevents: Ir Dr\n", true},
	    {"# a comment\nevents: Ir\nfn=main\n", true},
	    {"events:\n", false},
	    {"main;f 3\n", false},
	    {"{\"results\": []}\n", false},
	    {"version: 1\nhello\nevents: Ir\n", false},
	    {"", false},
	};
	struct strbuf sb = STRBUF_INIT;
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (callgrind_sniff(cases[i].text, strlen(cases[i].text)) != cases[i].callgrind)
			fail_msg("sniff('%s') != %d", cases[i].text, cases[i].callgrind);
	assert_int_equal(input_read(&sb, FIXTURE("real-small.callgrind.out"), &input_state), 0);
	assert_true(callgrind_sniff(sb.buf, sb.len));
	strbuf_release(&sb);
}

/*
 * A real profile (tests/data/callgrind/real-small.c under valgrind 3.19, collection on in
 * main only): the counts are the program's, and the tree's total is callgrind's.
 */
static void test_real_fixture(void **state)
{
	struct cct t;
	UNUSED(state);
	read_fixture(FIXTURE("real-small.callgrind.out"), NULL, &t);
	const char *main_path =
	    "0x000000000001ab70;(below main);__libc_start_main@@GLIBC_2.34;(below main);main";
	struct strbuf p = STRBUF_INIT;
	check_node(&t, main_path, 1, 20490, 7034);
	strbuf_addf(&p, "%s;leaf", main_path);
	check_node(&t, p.buf, 1000, 10000, 10000);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s;mid;leaf", main_path);
	check_node(&t, p.buf, 6, 60, 60);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s;rec;rec", main_path);
	check_node(&t, p.buf, 1, 65, 65);
	assert_true(cct_total(&t) == 20490.0); /* summary: and totals: */
	strbuf_release(&p);
	cct_release(&t);
}

/* The node named `name` with the most inclusive weight, or CCT_NONE. */
static uint32_t heaviest_named(const struct cct *t, const char *name)
{
	uint32_t id = cct_name_find(t, name), best = CCT_NONE;
	for (size_t i = 1; id != CCT_NONE && i < t->nr_nodes; i++)
		if (t->nodes[i].name == id &&
		    (best == CCT_NONE || t->nodes[i].incl > t->nodes[best].incl))
			best = (uint32_t)i;
	return best;
}

/* The value of the totals: line of callgrind output `path`. */
static double file_totals(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(input_read(&sb, path, &input_state), 0);
	const char *line = strstr(sb.buf, "\ntotals: ");
	assert_non_null(line);
	double v = strtod(line + 9, NULL);
	strbuf_release(&sb);
	return v;
}

/*
 * A program compiled here at -O0 runs under valgrind (default options, then instruction
 * positions, jumps and --separate-callers): main calls leaf exactly 1000 times, mid once
 * from each of two lines (two call sites), rec once (which recurses).
 */
static void test_real_valgrind(void **state)
{
	static const char program[] =
	    "#include <stdio.h>\n"
	    "static int leaf(int x) { return x * 3 + 1; }\n"
	    "static int mid(int x)\n{\n\tint s = 0;\n"
	    "\tfor (int i = 0; i < 3; i++)\n\t\ts += leaf(x + i);\n\treturn s;\n}\n"
	    "static int rec(int n) { return n <= 0 ? 0 : 1 + rec(n - 1); }\n"
	    "int main(void)\n{\n\tint s = 0;\n"
	    "\tfor (int i = 0; i < 1000; i++)\n\t\ts += leaf(i);\n"
	    "\ts += mid(2);\n"
	    "\ts += mid(5);\n"
	    "\ts += rec(5);\n"
	    "\tprintf(\"%d\\n\", s);\n\treturn 0;\n}\n";
	static const char *const options[] = {
	    "",
	    "--dump-instr=yes --collect-jumps=yes --separate-callers=2",
	};
	char dir[] = "/tmp/test_callgrind_XXXXXX";
	struct strbuf cmd = STRBUF_INIT, path = STRBUF_INIT;
	UNUSED(state);
	if (system("valgrind --version >/dev/null 2>&1") != 0) {
		print_message("skipped: valgrind is not installed\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	strbuf_addf(&path, "%s/prog.c", dir);
	FILE *f = fopen(path.buf, "w");
	assert_non_null(f);
	fputs(program, f);
	assert_int_equal(fclose(f), 0);
	strbuf_addf(&cmd, "cc -O0 -g -o %s/prog %s/prog.c", dir, dir);
	assert_int_equal(system(cmd.buf), 0);

	for (size_t i = 0; i < ARRAY_SIZE(options); i++) {
		struct cct t;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/callgrind.out.%zu", dir, i);
		strbuf_reset(&cmd);
		strbuf_addf(&cmd,
			    "valgrind --tool=callgrind --callgrind-out-file=%s %s %s/prog "
			    ">/dev/null 2>&1",
			    path.buf, options[i], dir);
		assert_int_equal(system(cmd.buf), 0);
		read_fixture(path.buf, NULL, &t);

		uint32_t main_node = heaviest_named(&t, "main");
		assert_int_not_equal(main_node, CCT_NONE);
		uint32_t leaf = cct_child_find(&t, main_node, cct_name_find(&t, "leaf"), 0);
		assert_int_not_equal(leaf, CCT_NONE);
		assert_true(t.nodes[leaf].calls == 1000.0);
		assert_true(t.nodes[leaf].excl > 0);
		uint32_t mid = cct_name_find(&t, "mid");
		uint32_t mid0 = cct_child_find(&t, main_node, mid, 0);
		uint32_t mid1 = cct_child_find(&t, main_node, mid, 1);
		assert_int_not_equal(mid0, CCT_NONE);
		assert_int_not_equal(mid1, CCT_NONE);
		assert_true(t.nodes[mid0].calls == 1.0 && t.nodes[mid1].calls == 1.0);
		uint32_t leaf_name = cct_name_find(&t, "leaf");
		uint32_t mid_leaf = cct_child_find(&t, mid1, leaf_name, 0);
		assert_int_not_equal(mid_leaf, CCT_NONE);
		assert_true(fabs(t.nodes[mid_leaf].calls - 3.0) < 1e-9);
		uint32_t rec = cct_child_find(&t, main_node, cct_name_find(&t, "rec"), 0);
		assert_int_not_equal(rec, CCT_NONE);
		assert_true(t.nodes[rec].calls == 1.0);
		assert_int_not_equal(cct_child_find(&t, rec, t.nodes[rec].name, 0), CCT_NONE);
		/* Every instruction callgrind counted is in the tree once. */
		double totals = file_totals(path.buf);
		if (fabs(cct_total(&t) - totals) > 1e-6 * totals)
			fail_msg("%s: tree total %.17g, totals: %.17g", options[i], cct_total(&t),
				 totals);
		cct_release(&t);
		unlink(path.buf);
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/prog.c", dir);
	unlink(path.buf);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/prog", dir);
	unlink(path.buf);
	rmdir(dir);
	strbuf_release(&path);
	strbuf_release(&cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree_exact),
	    cmocka_unit_test(test_two_callers_split),
	    cmocka_unit_test(test_recursion),
	    cmocka_unit_test(test_compression_and_sites),
	    cmocka_unit_test(test_events),
	    cmocka_unit_test(test_parts_and_concatenation),
	    cmocka_unit_test(test_separate_callers),
	    cmocka_unit_test(test_below_main_once),
	    cmocka_unit_test(test_unexplained_cost_is_top_frame),
	    cmocka_unit_test(test_lenient),
	    cmocka_unit_test(test_bad_input),
	    cmocka_unit_test(test_context_cap),
	    cmocka_unit_test(test_light_contexts_folded),
	    cmocka_unit_test(test_sniff),
	    cmocka_unit_test(test_real_fixture),
	    cmocka_unit_test(test_real_valgrind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
