/*
 * Unit tests of the CCT runtime's profile reader and its conversion into a calling context
 * tree (src/profile/cct_file.c): a hand-written profile (threads, call-site ranks, unknown
 * and anonymous code, two profiles adding up), every kind of bad input named by its line,
 * and real runs: a workload compiled here with -finstrument-functions (-O0 and -O2 PIE,
 * non-PIE, calling an instrumented shared library linked at a shifted address, threads,
 * fork, C++) run under BUILD/runtime/librevperf_cct.so, whose profiles must give the call
 * counts the program makes, with every function named and file:line right.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "binary/symbolize.h"
#include "profile/cct.h"
#include "profile/cct_file.h"
#include "util/common.h"
#include "util/input.h"

#include "capture_stderr.h"

/* ---- helpers -------------------------------------------------------------------------- */

/* Runs fn(arg) with stderr captured into err; returns fn's result. */
static int capture(struct strbuf *err, int (*fn)(void *), void *arg)
{
	struct stderr_capture cap;
	char *printed;

	capture_stderr_begin(&cap);
	int ret = fn(arg);
	printed = capture_stderr_end(&cap);
	strbuf_reset(err);
	strbuf_addstr(err, printed);
	free(printed);
	return ret;
}

static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The node at `path` ("a;b#1;c": a frame's call-site rank after '#', 0 without), or
 * CCT_NONE. */
static uint32_t node_at(const struct cct *t, const char *path)
{
	uint32_t node = CCT_ROOT;
	const char *p = path;
	while (node != CCT_NONE && *p) {
		const char *semi = strchr(p, ';');
		size_t n = semi ? (size_t)(semi - p) : strlen(p);
		char frame[256];
		unsigned rank = 0;
		assert_true(n < sizeof(frame));
		memcpy(frame, p, n);
		frame[n] = '\0';
		char *hash = strrchr(frame, '#');
		if (hash) {
			rank = (unsigned)strtoul(hash + 1, NULL, 10);
			*hash = '\0';
		}
		uint32_t name = cct_name_find(t, frame);
		node = name == CCT_NONE ? CCT_NONE : cct_child_find(t, node, name, rank);
		p += n + (semi ? 1 : 0);
	}
	return node;
}

/* The calls of the node at `path`; fails the test when there is no such node. */
static double calls_at(const struct cct *t, const char *path)
{
	uint32_t node = node_at(t, path);
	if (node == CCT_NONE) {
		struct strbuf all = STRBUF_INIT;
		for (size_t i = 1; i < t->nr_nodes; i++) {
			cct_path(t, (uint32_t)i, &all);
			strbuf_addf(&all, " (%g calls)\n", t->nodes[i].calls);
		}
		fail_msg("no node '%s' in the tree:\n%s", path, all.buf);
	}
	return t->nodes[node].calls;
}

static void expect_calls(const struct cct *t, const char *path, double calls)
{
	double got = calls_at(t, path);
	if (got != calls)
		fail_msg("%s: %g calls, expected %g", path, got, calls);
}

/* Every node has incl >= excl, and the root's inclusive time is its children's sum. */
static void expect_consistent(const struct cct *t)
{
	double top = 0;
	for (size_t i = 1; i < t->nr_nodes; i++) {
		assert_true(t->nodes[i].incl >= t->nodes[i].excl);
		assert_true(t->nodes[i].parent < i);
		if (t->nodes[i].parent == CCT_ROOT)
			top += t->nodes[i].incl;
	}
	assert_true(t->nodes[CCT_ROOT].calls == 0);
	assert_true(t->nodes[CCT_ROOT].excl == 0);
	assert_true(t->nodes[CCT_ROOT].incl >= top);
}

/* ---- a hand-written profile ----------------------------------------------------------- */

static void test_parse_fixture(void **state)
{
	struct cct_profile p;
	UNUSED(state);
	assert_int_equal(cct_file_read(TESTDATA_DIR "/cct-file/two-threads.cct", &p), 0);
	assert_int_equal(p.pid, 100);
	assert_int_equal(p.ppid, 1);
	assert_string_equal(p.exe, "/nonexistent/revperf-test/prog");
	assert_int_equal(p.clock, CCT_CLOCK_MONOTONIC);
	assert_string_equal(p.reason, "signal");
	assert_int_equal(p.signal, 11);
	assert_int_equal(p.maps.nr, 4);
	assert_null(p.maps.maps[2].path); /* anonymous, written with a trailing space */
	assert_int_equal(p.nr_threads, 2);
	const struct cct_file_thread *t = &p.threads[1];
	assert_int_equal(t->tid, 100);
	assert_true(t->truncated);
	assert_int_equal(t->lost_calls, 7);
	assert_int_equal(t->max_depth, 3);
	assert_int_equal(t->nr_nodes, 6);
	assert_int_equal(t->nodes[4].parent, 3);
	assert_int_equal(t->nodes[4].fn, 0x555500001900);
	assert_int_equal(t->nodes[4].site, 0x555500001820);
	assert_int_equal(t->nodes[3].calls, 5);
	assert_int_equal(t->nodes[3].incl_ns, 500);
	assert_int_equal(t->nodes[3].excl_ns, 400);
	assert_false(p.threads[0].truncated);
	assert_string_equal(p.origin, TESTDATA_DIR "/cct-file/two-threads.cct");
	cct_profile_release(&p);
	cct_profile_release(&p); /* twice is harmless */
}

struct convert_args {
	const struct cct_profile *const *profiles;
	size_t nr;
	struct symbolizer *sym;
	bool merge;
	struct cct *out;
};

static int convert(void *arg)
{
	struct convert_args *a = arg;
	return cct_profile_to_cct(a->profiles, a->nr, a->sym, a->merge, a->out);
}

/* Names by address (no module exists), ranks by call-site address, threads, main first. */
static void test_convert_fixture(void **state)
{
	struct cct_profile p;
	const struct cct_profile *one[] = {&p}, *two[] = {&p, &p};
	struct cct t;
	struct strbuf err = STRBUF_INIT;
	UNUSED(state);
	assert_int_equal(cct_file_read(TESTDATA_DIR "/cct-file/two-threads.cct", &p), 0);

	for (int with_sym = 0; with_sym < 2; with_sym++) {
		struct symbolizer *sym = with_sym ? symbolizer_new() : NULL;
		struct convert_args a = {one, 1, sym, true, &t};
		assert_int_equal(capture(&err, convert, &a), 0);
		/* The missing files (prog for names, libc for call sites) are warned about once
		 * each, the truncated thread once; nothing without a symbolizer but the latter. */
		assert_int_equal(count_of(err.buf, "revperf: warning: "), with_sym ? 3 : 1);
		assert_int_equal(count_of(err.buf, "thread 100 was truncated"), 1);
		if (with_sym)
			assert_int_equal(count_of(err.buf, "/nonexistent/revperf-test/prog"), 1);
		/* The main thread first, though it is second in the file. */
		assert_string_equal(cct_name(&t, t.nodes[t.nodes[CCT_ROOT].first_child].name),
				    "prog+0x1100");
		expect_calls(&t, "prog+0x1100", 1);
		/* Two call sites of prog+0x1800: the lower address (0x1140) is rank 0. */
		expect_calls(&t, "prog+0x1100;prog+0x1800", 5);
		expect_calls(&t, "prog+0x1100;prog+0x1800#1", 3);
		expect_calls(&t, "prog+0x1100;prog+0x1800;prog+0x1900", 5);
		expect_calls(&t, "prog+0x1100;0x7f0000000040", 1);
		expect_calls(&t, "prog+0x1500;prog+0x1800", 2);
		expect_calls(&t, "prog+0x1500;0x7f0000000040", 1);
		/* The first call comes first: site 0x1180 (rank 1) before 0x1140 (rank 0). */
		uint32_t main_node = node_at(&t, "prog+0x1100");
		uint32_t first = t.nodes[main_node].first_child;
		assert_int_equal(t.nodes[first].site, 1);
		assert_true(t.nodes[node_at(&t, "prog+0x1100;prog+0x1800")].excl == 400);
		assert_true(t.nodes[node_at(&t, "prog+0x1100")].incl == 1000);
		assert_true(t.nodes[CCT_ROOT].incl == 1900);
		assert_int_equal(t.nr_nodes, 9);
		expect_consistent(&t);
		cct_release(&t);

		/* Threads apart: [thread 0] is the main thread (tid 100). */
		a.merge = false;
		assert_int_equal(capture(&err, convert, &a), 0);
		expect_calls(&t, "[thread 0];prog+0x1100;prog+0x1800#1", 3);
		expect_calls(&t, "[thread 1];prog+0x1500;prog+0x1800", 2);
		assert_true(t.nodes[node_at(&t, "[thread 1]")].incl == 900);
		assert_true(t.nodes[node_at(&t, "[thread 1]")].calls == 0);
		assert_int_equal(t.nr_nodes, 11);
		expect_consistent(&t);
		cct_release(&t);

		/* The same profile twice: every metric doubles, no node is added. */
		a.profiles = two;
		a.nr = 2;
		a.merge = true;
		assert_int_equal(capture(&err, convert, &a), 0);
		expect_calls(&t, "prog+0x1100;prog+0x1800#1", 6);
		expect_calls(&t, "prog+0x1100;prog+0x1800;prog+0x1900", 10);
		assert_true(t.nodes[CCT_ROOT].incl == 3800);
		assert_int_equal(t.nr_nodes, 9);
		cct_release(&t);
		symbolizer_free(sym);
	}

	/* No profile at all. */
	struct convert_args none = {one, 0, NULL, true, &t};
	assert_int_equal(capture(&err, convert, &none), RP_EINPUT);
	assert_non_null(strstr(err.buf, "no profiles"));
	assert_int_equal(t.nr_nodes, 1);
	cct_release(&t);
	cct_profile_release(&p);
	strbuf_release(&err);
}

/* A mapping the kernel marked deleted is not symbolized, even if a file is there now. */
static void test_convert_deleted(void **state)
{
	static const char text[] =
	    "revperf-cct 1\npid 9\nppid 1\nclock tsc\nreason exec\n"
	    "map 400000-401000 r-xp 00000000 fe:00 1 /bin/sh (deleted)\n"
	    "thread 9 2 0 0 1\nn 0 0 0x0 0x0 0 5 0\nn 1 0 0x400010 0x400020 1 5 5\nend";
	struct cct_profile p;
	const struct cct_profile *one[] = {&p};
	struct cct t;
	struct strbuf err = STRBUF_INIT;
	struct symbolizer *sym = symbolizer_new();
	UNUSED(state);
	assert_int_equal(cct_file_parse(text, sizeof(text) - 1, "del.cct", &p), 0);
	assert_string_equal(p.reason, "exec");
	assert_int_equal(p.signal, 0);
	assert_null(p.exe);
	struct convert_args a = {one, 1, sym, true, &t};
	assert_int_equal(capture(&err, convert, &a), 0);
	assert_int_equal(count_of(err.buf, "revperf: warning: "), 1);
	assert_non_null(strstr(err.buf, "del.cct: '/bin/sh' was deleted"));
	expect_calls(&t, "sh+0x10", 1);
	cct_release(&t);
	cct_profile_release(&p);
	symbolizer_free(sym);
	strbuf_release(&err);
}

/* A calls-only profile (clock none): read, then converted into a tree weighted by calls;
 * mixing it with a timed profile is refused. */
static void test_calls_only(void **state)
{
	static const char text[] = "revperf-cct 1\npid 7\nppid 1\nclock none\nreason exit\n"
				   "thread 8 3 0 0 1\n"
				   "n 0 0 0x0 0x0 0 0 0\n"
				   "n 1 0 0x40 0x900 1 0 0\n"
				   "n 2 1 0x50 0x48 4 0 0\n"
				   "thread 7 5 0 0 2\n"
				   "n 0 0 0x0 0x0 0 0 0\n"
				   "n 1 0 0x10 0x900 1 0 0\n"
				   "n 2 1 0x20 0x14 3 0 0\n"
				   "n 3 2 0x30 0x24 10 0 0\n"
				   "n 4 1 0x20 0x18 2 0 0\n"
				   "end\n";
	struct cct_profile p, timed;
	const struct cct_profile *one[] = {&p}, *two[] = {&p, &p}, *mixed[] = {&p, &timed};
	struct cct t;
	struct strbuf err = STRBUF_INIT;
	UNUSED(state);
	assert_int_equal(cct_file_parse(text, sizeof(text) - 1, "none.cct", &p), 0);
	assert_int_equal(p.clock, CCT_CLOCK_NONE);
	assert_int_equal(p.nr_threads, 2);
	assert_int_equal(p.threads[1].nodes[3].calls, 10);

	/* Threads merged: exclusive weight = calls, inclusive = calls of the subtree. */
	struct convert_args a = {one, 1, NULL, true, &t};
	assert_int_equal(capture(&err, convert, &a), 0);
	assert_string_equal(err.buf, "");
	static const struct {
		const char *path;
		double calls, incl;
	} want[] = {
	    {"0x10", 1, 16},	   {"0x10;0x20", 3, 13}, {"0x10;0x20;0x30", 10, 10},
	    {"0x10;0x20#1", 2, 2}, {"0x40", 1, 5},	 {"0x40;0x50", 4, 4},
	};
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		uint32_t node = node_at(&t, want[i].path);
		assert_int_not_equal(node, CCT_NONE);
		if (t.nodes[node].calls != want[i].calls || t.nodes[node].excl != want[i].calls ||
		    t.nodes[node].incl != want[i].incl)
			fail_msg("%s: calls %g excl %g incl %g, expected %g %g %g", want[i].path,
				 t.nodes[node].calls, t.nodes[node].excl, t.nodes[node].incl,
				 want[i].calls, want[i].calls, want[i].incl);
	}
	assert_true(t.nodes[CCT_ROOT].calls == 0 && t.nodes[CCT_ROOT].excl == 0);
	assert_true(t.nodes[CCT_ROOT].incl == 21);
	assert_true(cct_total(&t) == 21);
	assert_int_equal(t.nr_nodes, 7);
	expect_consistent(&t);
	cct_release(&t);

	/* Threads apart: a "[thread K]" node weighs its thread's calls. */
	a.merge = false;
	assert_int_equal(capture(&err, convert, &a), 0);
	uint32_t main_thread = node_at(&t, "[thread 0]"), other = node_at(&t, "[thread 1]");
	assert_true(t.nodes[main_thread].incl == 16 && t.nodes[main_thread].excl == 0);
	assert_true(t.nodes[other].incl == 5 && t.nodes[other].calls == 0);
	assert_true(t.nodes[node_at(&t, "[thread 0];0x10;0x20")].incl == 13);
	assert_true(t.nodes[CCT_ROOT].incl == 21);
	cct_release(&t);

	/* Two calls-only profiles add up. */
	a.profiles = two;
	a.nr = 2;
	a.merge = true;
	assert_int_equal(capture(&err, convert, &a), 0);
	assert_true(t.nodes[node_at(&t, "0x10;0x20")].excl == 6);
	assert_true(t.nodes[node_at(&t, "0x10;0x20")].incl == 26);
	assert_true(t.nodes[CCT_ROOT].incl == 42);
	cct_release(&t);

	/* Calls-only and timed together: an error naming both, the tree left empty. */
	assert_int_equal(cct_file_read(TESTDATA_DIR "/cct-file/two-threads.cct", &timed), 0);
	a.profiles = mixed;
	assert_int_equal(capture(&err, convert, &a), RP_EINPUT);
	assert_int_equal(count_of(err.buf, "revperf: error: "), 1);
	assert_int_equal(count_of(err.buf, "\n"), 1);
	assert_non_null(strstr(err.buf, "none.cct: a calls-only profile (clock none) cannot be "
					"converted together with "));
	assert_non_null(strstr(err.buf, "two-threads.cct, which has times (clock monotonic)"));
	assert_int_equal(t.nr_nodes, 1);
	cct_release(&t);
	/* The other order too. */
	const struct cct_profile *mixed2[] = {&timed, &p};
	a.profiles = mixed2;
	assert_int_equal(capture(&err, convert, &a), RP_EINPUT);
	assert_non_null(strstr(err.buf, "none.cct: a calls-only profile"));
	assert_int_equal(t.nr_nodes, 1);
	cct_release(&t);
	cct_profile_release(&timed);
	cct_profile_release(&p);
	strbuf_release(&err);
}

/* ---- bad input ------------------------------------------------------------------------ */

struct parse_args {
	const char *text;
	size_t len;
	struct cct_profile *p;
};

static int parse(void *arg)
{
	struct parse_args *a = arg;
	return cct_file_parse(a->text, a->len, "t.cct", a->p);
}

#define H "revperf-cct 1\npid 5\nppid 1\nclock tsc\nreason exit\n" /* lines 1-5 */
#define T "thread 5 2 0 0 1\nn 0 0 0x0 0x0 0 10 0\n"		   /* lines 6-7 */

static void test_bad_input(void **state)
{
	static const struct {
		const char *text;
		const char *message;
	} cases[] = {
	    {"", "t.cct:1: empty file"},
	    {"hello\n",
	     "t.cct:1: not a revperf CCT profile: the first line must be 'revperf-cct 1'"},
	    {"revperf-cct 2\npid 5\n", "t.cct:1: CCT profile format version '2' is not supported"},
	    {"revperf-cct 1 \n", "t.cct:1: CCT profile format version '1 ' is not supported"},
	    {H "bogus 1\nend\n", "t.cct:6: unknown record 'bogus'"},
	    {H "N 1\nend\n", "t.cct:6: unknown record 'N'"},
	    {H T "n 2 0 0x10 0x20 1 5 5\nend\n", "t.cct:8: node id 2 out of order: expected 1"},
	    {H T "n 1 1 0x10 0x20 1 5 5\nend\n",
	     "t.cct:8: node 1 has parent 1, which is not a smaller id"},
	    {H T "n 1 7 0x10 0x20 1 5 5\nend\n", "t.cct:8: node 1 has parent 7"},
	    {H T "n 1 0 0x10 0x20 x1 5 5\nend\n",
	     "t.cct:8: 'n' record: the call count 'x1' is not a decimal number"},
	    {H T "n 1 0 0x10 0x20 -1 5 5\nend\n", "t.cct:8: 'n' record: the call count '-1'"},
	    {H T "n 1 0 0x10 0x20 1 5 5.5\nend\n", "t.cct:8: 'n' record: the exclusive time '5.5'"},
	    {H T "n 1 0 0x10 0x20 18446744073709551616 5 5\nend\n",
	     "t.cct:8: 'n' record: the call count '18446744073709551616' is too large"},
	    {H T "n 1 0 0x10 0x20 1 4 5\nend\n",
	     "t.cct:8: node 1: inclusive time 4 ns is less than exclusive time 5 ns"},
	    {H T "n 1 0 0xAB 0x20 1 5 5\nend\n",
	     "t.cct:8: 'n' record: the function address '0xAB' is not an address"},
	    {H T "n 1 0 0x 0x20 1 5 5\nend\n", "t.cct:8: 'n' record: the function address '0x'"},
	    {H T "n 1 0 0x10000000000000000 0x20 1 5 5\nend\n",
	     "t.cct:8: 'n' record: the function"},
	    {H T "n 1 0 0x0 0x20 1 5 5\nend\n", "t.cct:8: node 1 has function address 0x0"},
	    {H T "n 1 0 0x10 0x20 1 5\nend\n",
	     "t.cct:8: 'n' record: the exclusive time is missing"},
	    {H T "n 1 0 0x10 0x20 1 5 5 9\nend\n",
	     "t.cct:8: 'n' record: unexpected text after its fields: '9'"},
	    {H T "n 1 0 0x10 0x20 1 5 5 \nend\n", "t.cct:8: 'n' record: unexpected text"},
	    {H T "n 1 0 0x10  0x20 1 5 5\nend\n", "t.cct:8: 'n' record: the call site address ''"},
	    {H "thread 5 2 0 0 1\nn 0 0 0x10 0x0 0 10 0\n", "t.cct:7: node 0 is the thread's root"},
	    {H "thread 5 2 0 0 1\nn 0 0 0x0 0x0 1 10 0\n", "t.cct:7: node 0 is the thread's root"},
	    {H "thread 5 1 0 0 0\nn 0 0 0x0 0x0 0 0 0\n",
	     "t.cct:8: truncated profile: the file ends without the 'end' line"},
	    {H "thread 5 3 0 0 1\nn 0 0 0x0 0x0 0 10 0\n",
	     "t.cct:8: truncated profile: the file ends in thread 5 after 1 of its 3 nodes"},
	    {H, "t.cct:6: truncated profile"},
	    {"revperf-cct 1\n", "t.cct:2: truncated profile"},
	    {H "thread 5 3 0 0 1\nn 0 0 0x0 0x0 0 10 0\nend\n",
	     "t.cct:8: 'end' record where an 'n' record was expected: thread 5 announced 3 "
	     "nodes, 1 were read"},
	    {H "thread 5 1 0 0 1\nn 0 0 0x0 0x0 0 10 0\nn 1 0 0x10 0x20 1 5 5\nend\n",
	     "t.cct:8: 'n' record beyond the 1 nodes thread 5 announced"},
	    {H "n 0 0 0x0 0x0 0 0 0\nend\n",
	     "t.cct:6: 'n' record out of order: expected 'map', 'thread' or 'end'"},
	    {"revperf-cct 1\nppid 1\n", "t.cct:2: 'ppid' record out of order: expected 'pid'"},
	    {"revperf-cct 1\npid 5\npid 5\n",
	     "t.cct:3: 'pid' record out of order: expected 'ppid'"},
	    {"revperf-cct 1\npid 5\nppid 1\nreason exit\n",
	     "t.cct:4: 'reason' record out of order: expected 'exe' or 'clock'"},
	    {"revperf-cct 1\npid 5\nppid 1\nclock tsc\nend\n",
	     "t.cct:5: 'end' record out of order: expected 'reason'"},
	    {H "end\nend\n", "t.cct:7: text after the 'end' line"},
	    {H "end\n\n", "t.cct:7: text after the 'end' line"},
	    {H "\nend\n", "t.cct:6: empty line"},
	    {H " pid 5\nend\n", "t.cct:6: a record starts with a space"},
	    {H "map nonsense\nend\n", "t.cct:6: 'map' record: not a /proc/PID/maps line"},
	    {H "map\nend\n", "t.cct:6: 'map' record: the memory map line is missing"},
	    {H T "n 1 0 0x10 0x20 1 5 5\nmap 1000-2000 r-xp 00000000 00:00 0 \nend\n",
	     "t.cct:9: 'map' record out of order: expected 'thread' or 'end'"},
	    {"revperf-cct 1\npid 5 6\n",
	     "t.cct:2: 'pid' record: unexpected text after its fields: '6'"},
	    {"revperf-cct 1\npid 0\n", "t.cct:2: 'pid' record: the pid 0 is out of range"},
	    {"revperf-cct 1\npid 2147483648\n", "t.cct:2: 'pid' record: the pid 2147483648 is out"},
	    {"revperf-cct 1\npid  5\n",
	     "t.cct:2: 'pid' record: the pid '' is not a decimal number"},
	    {"revperf-cct 1\npid\n", "t.cct:2: 'pid' record: the pid is missing"},
	    {"revperf-cct 1\npid 5\nppid 1\nexe\n",
	     "t.cct:4: 'exe' record: the executable's path is missing"},
	    {"revperf-cct 1\npid 5\nppid 1\nclock sundial\n",
	     "t.cct:4: 'clock' record: unknown clock 'sundial' (tsc, monotonic or none)"},
	    {"revperf-cct 1\npid 5\nppid 1\nclock None\n",
	     "t.cct:4: 'clock' record: unknown clock 'None'"},
	    {"revperf-cct 1\npid 5\nppid 1\nclock none 1\n",
	     "t.cct:4: 'clock' record: unexpected text after its fields: '1'"},
	    {"revperf-cct 1\npid 5\nppid 1\nclock none\nreason exit\nthread 5 2 0 0 1\n"
	     "n 0 0 0x0 0x0 0 0 0\nn 1 0 0x10 0x20 1 0 3\nend\n",
	     "t.cct:8: node 1: the profile has no clock (calls only) but times 0 and 3 ns"},
	    {"revperf-cct 1\npid 5\nppid 1\nclock none\nreason exit\nthread 5 1 0 0 1\n"
	     "n 0 0 0x0 0x0 0 10 0\nend\n",
	     "t.cct:7: node 0: the profile has no clock (calls only) but times 10 and 0 ns"},
	    {"revperf-cct 1\npid 5\nppid 1\nclock tsc\nreason boredom\n",
	     "t.cct:5: 'reason' record: unknown reason 'boredom'"},
	    {"revperf-cct 1\npid 5\nppid 1\nclock tsc\nreason signal 99\n",
	     "t.cct:5: 'reason' record: the signal 99 is out of range"},
	    {"revperf-cct 1\npid 5\nppid 1\nclock tsc\nreason signal\n",
	     "t.cct:5: 'reason' record: the signal is missing"},
	    {H "thread 5 1 0 0\n", "t.cct:6: 'thread' record: the maximum depth is missing"},
	    {H "thread 5 0 0 0 0\n", "t.cct:6: 'thread' record: the node count 0 is out of range"},
	    {H "thread 5 67108865 0 0 0\n", "t.cct:6: 'thread' record: the node count 67108865"},
	    {H "thread 5 1 2 0 0\n", "t.cct:6: 'thread' record: the truncated flag 2 is out of"},
	    {H "thread 0 1 0 0 0\n", "t.cct:6: 'thread' record: the thread id 0 is out of range"},
	    {H T "thread 6 1 0 0 0\n", "t.cct:8: 'thread' record where an 'n' record was "
				       "expected: thread 5 announced 2 nodes, 1 were read"},
	};
	struct strbuf err = STRBUF_INIT;
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cct_profile p;
		struct parse_args a = {cases[i].text, strlen(cases[i].text), &p};
		int ret = capture(&err, parse, &a);
		if (ret != RP_EINPUT)
			fail_msg("case %zu: accepted, expected '%s'", i, cases[i].message);
		/* One line, "revperf: error: " and the expected message. */
		if (!strstr(err.buf, cases[i].message) ||
		    count_of(err.buf, "revperf: error: ") != 1 || count_of(err.buf, "\n") != 1)
			fail_msg("case %zu: expected '%s', got '%s'", i, cases[i].message, err.buf);
		/* Nothing is left behind. */
		assert_null(p.threads);
		assert_null(p.maps.maps);
		assert_null(p.origin);
		cct_profile_release(&p);
	}

	/* A NUL byte in the executable's path. */
	static const char nul[] = "revperf-cct 1\npid 5\nppid 1\nexe /a\0b\n";
	struct cct_profile p;
	struct parse_args a = {nul, sizeof(nul) - 1, &p};
	assert_int_equal(capture(&err, parse, &a), RP_EINPUT);
	assert_non_null(strstr(err.buf, "t.cct:4: 'exe' record: the executable's path contains a "
					"NUL byte"));

	/* Files: truncated, a bad parent, none at all. */
	static const struct {
		const char *file, *message;
	} files[] = {
	    {"truncated.cct",
	     "truncated.cct:16: truncated profile: the file ends without the 'end' line"},
	    {"bad-parent.cct", "bad-parent.cct:21: node 4 has parent 4, which is not a smaller id"},
	    {"no-such-file.cct", "cannot read profile '"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct strbuf path = STRBUF_INIT;
		strbuf_addf(&path, "%s/cct-file/%s", TESTDATA_DIR, files[i].file);
		struct stderr_capture cap;
		char *printed;

		capture_stderr_begin(&cap);
		int ret = cct_file_read(path.buf, &p);
		printed = capture_stderr_end(&cap);
		strbuf_reset(&err);
		strbuf_addstr(&err, printed);
		free(printed);
		assert_int_equal(ret, RP_EINPUT);
		if (!strstr(err.buf, files[i].message))
			fail_msg("%s: got '%s'", files[i].file, err.buf);
		assert_null(p.threads);
		strbuf_release(&path);
	}
	strbuf_release(&err);
}

/* Boundary values that are valid: the largest numbers, no final newline, no maps. */
static void test_valid_edges(void **state)
{
	static const char text[] = H "thread 2147483647 2 1 18446744073709551615 4194304\n"
				     "n 0 0 0x0 0x0 0 18446744073709551615 0\n"
				     "n 1 0 0xffffffffffffffff 0x1 18446744073709551615 "
				     "18446744073709551615 18446744073709551615\n"
				     "end";
	struct cct_profile p;
	UNUSED(state);
	assert_int_equal(cct_file_parse(text, sizeof(text) - 1, "edge.cct", &p), 0);
	assert_int_equal(p.threads[0].tid, 2147483647);
	assert_int_equal(p.threads[0].lost_calls, UINT64_MAX);
	assert_int_equal(p.threads[0].max_depth, 4194304);
	assert_int_equal(p.threads[0].nodes[1].fn, UINT64_MAX);
	assert_int_equal(p.threads[0].nodes[1].calls, UINT64_MAX);
	assert_int_equal(p.maps.nr, 0);
	assert_int_equal(p.clock, CCT_CLOCK_TSC);
	cct_profile_release(&p);
	/* A process that never called an instrumented function: no thread, an empty tree. */
	assert_int_equal(cct_file_parse(H "end\n", strlen(H "end\n"), "none.cct", &p), 0);
	assert_int_equal(p.nr_threads, 0);
	const struct cct_profile *one[] = {&p};
	struct cct t;
	assert_int_equal(cct_profile_to_cct(one, 1, NULL, true, &t), 0);
	assert_int_equal(t.nr_nodes, 1);
	assert_true(t.nodes[CCT_ROOT].incl == 0);
	cct_release(&t);
	cct_profile_release(&p);
	assert_true(cct_file_sniff(text, sizeof(text) - 1));
	assert_true(cct_file_sniff("revperf-cct 7\n", 14));
	assert_false(cct_file_sniff("revperf-cct", 11));
	assert_false(cct_file_sniff("main;a 12\n", 10));
	assert_false(cct_file_sniff("", 0));
}

/* ---- real runs ------------------------------------------------------------------------ */

static char work_dir[64];
static char runtime_path[600];

static const char workload_src[] =
    "#include <pthread.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <sys/wait.h>\n"
    "#include <unistd.h>\n"
    "#define KEEP __attribute__((noinline, noipa))\n"
    "int lib_entry(int n);\n"
    "static volatile long sink;\n"
    "KEEP void leaf(int k) { sink += k; }\n"
    "KEEP void work(int n)\n"
    "{\n"
    "\tfor (int i = 0; i < n; i++)\n"
    "\t\tleaf(i);\n"
    "}\n"
    "/* leaf from two call sites: a times from the first, b times from the second. */\n"
    "KEEP void two_sites(int a, int b)\n"
    "{\n"
    "\tfor (int i = 0; i < a; i++)\n"
    "\t\tleaf(1);\n"
    "\tfor (int i = 0; i < b; i++)\n"
    "\t\tleaf(2);\n"
    "}\n"
    "KEEP void *worker(void *arg) { work(5); return arg; }\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "\tint n = (int)strtol(argv[2], NULL, 10);\n"
    "\tif (!strcmp(argv[1], \"calls\")) {\n"
    "\t\twork(n);\n"
    "\t\ttwo_sites(7, 3);\n"
    "\t\tlib_entry(n);\n"
    "\t} else if (!strcmp(argv[1], \"threads\")) {\n"
    "\t\tpthread_t t;\n"
    "\t\tpthread_create(&t, NULL, worker, NULL);\n"
    "\t\tpthread_join(t, NULL);\n"
    "\t\twork(n);\n"
    "\t} else if (!strcmp(argv[1], \"fork\")) {\n"
    "\t\tpid_t pid = fork();\n"
    "\t\tif (pid > 0)\n"
    "\t\t\twaitpid(pid, NULL, 0);\n"
    "\t\twork(n); /* one call site in both processes */\n"
    "\t}\n"
    "\treturn 0;\n"
    "}\n";

static const char lib_src[] = "#define KEEP __attribute__((noinline, noipa))\n"
			      "static volatile long lsink;\n"
			      "KEEP void lib_inner(int k) { lsink += k; }\n"
			      "KEEP int lib_entry(int n)\n"
			      "{\n"
			      "\tfor (int i = 0; i < n; i++)\n"
			      "\t\tlib_inner(i);\n"
			      "\treturn (int)lsink;\n"
			      "}\n";

static const char cxx_src[] = "namespace geo {\n"
			      "struct Box {\n"
			      "\tint w;\n"
			      "\t__attribute__((noinline)) int scale(int k);\n"
			      "};\n"
			      "int Box::scale(int k) { return w * k; }\n"
			      "}\n"
			      "int main(int argc, char **)\n"
			      "{\n"
			      "\tgeo::Box b{argc};\n"
			      "\treturn b.scale(2) + b.scale(3) == 0;\n"
			      "}\n";

static unsigned line_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	unsigned line = 1;
	if (!p)
		return 0;
	for (const char *q = text; q < p; q++)
		line += *q == '\n';
	return line;
}

__attribute__((format(printf, 1, 2))) static void sh(const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT;
	va_list ap;
	strbuf_addf(&cmd, "cd '%s' && ", work_dir);
	va_start(ap, fmt);
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	int ret = system(cmd.buf);
	if (ret)
		fail_msg("command failed (%d): %s", ret, cmd.buf);
	strbuf_release(&cmd);
}

static void write_file(const char *name, const char *text)
{
	struct strbuf path = STRBUF_INIT;
	strbuf_addf(&path, "%s/%s", work_dir, name);
	FILE *f = fopen(path.buf, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	strbuf_release(&path);
}

/* The runtime of this build: the tests run from BUILD/tests, the runtime is in BUILD/runtime. */
static void find_runtime(void)
{
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(exe, '/');
		assert_non_null(slash);
		*slash = '\0';
	}
	snprintf(runtime_path, sizeof(runtime_path), "%s/runtime/librevperf_cct.so", exe);
	if (access(runtime_path, R_OK))
		fail_msg("no CCT runtime at %s (it is built with the tests)", runtime_path);
}

static int setup_runs(void **state)
{
	UNUSED(state);
	find_runtime();
	snprintf(work_dir, sizeof(work_dir), "/tmp/revperf-test-cct-file-XXXXXX");
	assert_non_null(mkdtemp(work_dir));
	write_file("work.c", workload_src);
	write_file("lib.c", lib_src);
	write_file("box.cpp", cxx_src);
	/* The library's segments start at 0x200000: its virtual addresses are not offsets. */
	sh("cc -O2 -g -fPIC -shared -finstrument-functions -Wl,-Ttext-segment=0x200000 lib.c "
	   "-o libcft.so");
	static const char *const variants[][2] = {
	    {"pie-O0", "-O0 -fpie -pie"},
	    {"pie-O2", "-O2 -fpie -pie"},
	    {"nopie-O2", "-O2 -fno-pie -no-pie"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(variants); i++)
		sh("cc %s -g -finstrument-functions -pthread work.c -L. -lcft -Wl,-rpath,'%s' "
		   "-o work-%s",
		   variants[i][1], work_dir, variants[i][0]);
	sh("g++ -O0 -g -finstrument-functions box.cpp -o box");
	return 0;
}

static int teardown_runs(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	UNUSED(state);
	strbuf_addf(&cmd, "rm -rf '%s'", work_dir);
	int ret = system(cmd.buf);
	strbuf_release(&cmd);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct run {
	struct cct_profile profiles[4];
	const struct cct_profile *ptrs[4];
	size_t nr;
};

/* Runs `exe args` under the runtime into a fresh directory, with the environment
 * assignments `env` ("" for none), and reads every profile. */
static void run_profiled_env(struct run *r, const char *env, const char *exe, const char *args)
{
	char *names[8];
	size_t nr_names = 0;
	struct strbuf dir = STRBUF_INIT;
	struct dirent *de;

	strbuf_addf(&dir, "%s/out-%s", work_dir, exe);
	sh("rm -rf '%s' && mkdir '%s' && %s REVPERF_CCT_OUT='%s' LD_PRELOAD='%s' ./%s %s", dir.buf,
	   dir.buf, env, dir.buf, runtime_path, exe, args);
	DIR *d = opendir(dir.buf);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n > 4 && !strcmp(de->d_name + n - 4, ".cct")) {
			assert_true(nr_names < ARRAY_SIZE(names));
			names[nr_names++] = xstrdup(de->d_name);
		}
	}
	closedir(d);
	assert_true(nr_names >= 1 && nr_names <= ARRAY_SIZE(r->profiles));
	qsort(names, nr_names, sizeof(names[0]), cmp_str);
	r->nr = nr_names;
	for (size_t i = 0; i < nr_names; i++) {
		struct strbuf path = STRBUF_INIT;
		strbuf_addf(&path, "%s/%s", dir.buf, names[i]);
		assert_int_equal(cct_file_read(path.buf, &r->profiles[i]), 0);
		r->ptrs[i] = &r->profiles[i];
		strbuf_release(&path);
		free(names[i]);
	}
	strbuf_release(&dir);
}

static void run_profiled(struct run *r, const char *exe, const char *args)
{
	run_profiled_env(r, "", exe, args);
}

static void run_release(struct run *r)
{
	for (size_t i = 0; i < r->nr; i++)
		cct_profile_release(&r->profiles[i]);
}

/* No node is named by address: every function is in a file with symbols. */
static void expect_all_named(const struct cct *t)
{
	for (size_t i = 1; i < t->nr_nodes; i++) {
		const char *name = cct_name(t, t->nodes[i].name);
		if (strstr(name, "+0x") || !strncmp(name, "0x", 2))
			fail_msg("node %zu named by address: %s", i, name);
	}
}

/* The raw node of function `name` under a node of function `parent` (symbolized). */
static const struct cct_file_node *raw_find(struct symbolizer *sym, const struct cct_profile *p,
					    const char *parent, const char *name, uint64_t calls)
{
	for (size_t i = 0; i < p->nr_threads; i++) {
		const struct cct_file_thread *t = &p->threads[i];
		for (size_t j = 1; j < t->nr_nodes; j++) {
			const struct cct_file_node *n = &t->nodes[j], *up = &t->nodes[n->parent];
			struct sym_loc loc, uploc;
			if (n->calls != calls || !up->fn ||
			    symbolizer_lookup_runtime(sym, &p->maps, n->fn, &loc) ||
			    symbolizer_lookup_runtime(sym, &p->maps, up->fn, &uploc))
				continue;
			if (loc.function && uploc.function && !strcmp(loc.function, name) &&
			    !strcmp(uploc.function, parent))
				return n;
		}
	}
	fail_msg("no raw node %s under %s with %llu calls", name, parent,
		 (unsigned long long)calls);
	return NULL;
}

/* main -> work -> leaf, call sites, the shared library, file:line, in one build. */
static void check_calls(const char *variant, bool exact_site_order)
{
	struct run r;
	struct cct t;
	struct symbolizer *sym = symbolizer_new();
	struct strbuf exe = STRBUF_INIT;
	struct sym_loc loc;

	strbuf_addf(&exe, "work-%s", variant);
	run_profiled(&r, exe.buf, "calls 100");
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.profiles[0].nr_threads, 1);
	assert_int_equal(cct_profile_to_cct(r.ptrs, 1, sym, true, &t), 0);
	expect_all_named(&t);
	expect_consistent(&t);
	expect_calls(&t, "main", 1);
	expect_calls(&t, "main;work", 1);
	expect_calls(&t, "main;work;leaf", 100);
	expect_calls(&t, "main;two_sites", 1);
	expect_calls(&t, "main;lib_entry", 1);
	expect_calls(&t, "main;lib_entry;lib_inner", 100);
	/* Two call sites: rank 0 is the lower return address. */
	double first = calls_at(&t, "main;two_sites;leaf");
	double second = calls_at(&t, "main;two_sites;leaf#1");
	assert_true((first == 7 && second == 3) || (first == 3 && second == 7));
	const struct cct_file_node *seven = raw_find(sym, &r.profiles[0], "two_sites", "leaf", 7);
	const struct cct_file_node *three = raw_find(sym, &r.profiles[0], "two_sites", "leaf", 3);
	assert_true((seven->site < three->site) == (first == 7));
	if (exact_site_order) /* -O0 lays the calls out in source order */
		assert_true(first == 7 && second == 3);
	/* Exactly the nodes above, plus the root. */
	assert_int_equal(t.nr_nodes, 9);

	/* file:line of functions in the executable and in the library. */
	const struct cct_file_node *leaf = raw_find(sym, &r.profiles[0], "work", "leaf", 100);
	assert_int_equal(symbolizer_lookup_runtime(sym, &r.profiles[0].maps, leaf->fn, &loc), 0);
	assert_int_equal(loc.fn_offset, 0);
	assert_non_null(strstr(loc.src_file, "/work.c"));
	assert_int_equal(loc.line, line_of(workload_src, "KEEP void leaf("));
	const struct cct_file_node *inner =
	    raw_find(sym, &r.profiles[0], "lib_entry", "lib_inner", 100);
	assert_int_equal(symbolizer_lookup_runtime(sym, &r.profiles[0].maps, inner->fn, &loc), 0);
	assert_non_null(strstr(loc.module, "/libcft.so"));
	assert_true(loc.module_offset > 0x200000); /* a virtual address, not an offset */
	assert_non_null(strstr(loc.src_file, "/lib.c"));
	assert_int_equal(loc.line, line_of(lib_src, "KEEP void lib_inner("));

	cct_release(&t);
	run_release(&r);
	symbolizer_free(sym);
	strbuf_release(&exe);
}

static void test_run_pie_O0(void **state)
{
	UNUSED(state);
	check_calls("pie-O0", true);
}

static void test_run_pie_O2(void **state)
{
	UNUSED(state);
	check_calls("pie-O2", false);
}

static void test_run_nopie_O2(void **state)
{
	UNUSED(state);
	check_calls("nopie-O2", false);
}

static void test_run_threads(void **state)
{
	struct run r;
	struct cct t;
	struct symbolizer *sym = symbolizer_new();
	UNUSED(state);
	run_profiled(&r, "work-pie-O2", "threads 10");
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.profiles[0].nr_threads, 2);
	assert_int_equal(cct_profile_to_cct(r.ptrs, 1, sym, true, &t), 0);
	expect_all_named(&t);
	expect_consistent(&t);
	expect_calls(&t, "main", 1);
	expect_calls(&t, "main;work;leaf", 10);
	expect_calls(&t, "worker", 1);
	expect_calls(&t, "worker;work;leaf", 5);
	cct_release(&t);
	assert_int_equal(cct_profile_to_cct(r.ptrs, 1, sym, false, &t), 0);
	expect_calls(&t, "[thread 0];main;work;leaf", 10);
	expect_calls(&t, "[thread 1];worker;work;leaf", 5);
	assert_int_equal(node_at(&t, "[thread 1];main"), CCT_NONE);
	cct_release(&t);
	run_release(&r);
	symbolizer_free(sym);
}

/* A forked child writes its own profile; the same contexts of both add up. */
static void test_run_fork(void **state)
{
	struct run r;
	struct cct t;
	struct symbolizer *sym = symbolizer_new();
	UNUSED(state);
	run_profiled(&r, "work-pie-O0", "fork 10");
	assert_int_equal(r.nr, 2);
	assert_int_not_equal(r.profiles[0].pid, r.profiles[1].pid);
	assert_int_equal(cct_profile_to_cct(r.ptrs, 2, sym, true, &t), 0);
	expect_all_named(&t);
	expect_consistent(&t);
	expect_calls(&t, "main", 1); /* the child's main was open at fork: 0 calls there */
	expect_calls(&t, "main;work", 2);
	expect_calls(&t, "main;work;leaf", 20);
	assert_int_equal(t.nr_nodes, 4);
	cct_release(&t);
	assert_int_equal(cct_profile_to_cct(r.ptrs, 2, sym, false, &t), 0);
	expect_calls(&t, "[thread 0];main;work;leaf", 10);
	expect_calls(&t, "[thread 1];main;work;leaf", 10);
	cct_release(&t);
	run_release(&r);
	symbolizer_free(sym);
}

static void test_run_cxx(void **state)
{
	struct run r;
	struct cct t;
	struct symbolizer *sym = symbolizer_new();
	UNUSED(state);
	run_profiled(&r, "box", "");
	assert_int_equal(cct_profile_to_cct(r.ptrs, r.nr, sym, true, &t), 0);
	expect_all_named(&t);
	/* One function called from two sites: two ranks of the demangled name. */
	expect_calls(&t, "main;geo::Box::scale(int)", 1);
	expect_calls(&t, "main;geo::Box::scale(int)#1", 1);
	cct_release(&t);
	run_release(&r);
	symbolizer_free(sym);
}

/* Every node's exclusive weight is its calls and its inclusive weight the calls of its
 * subtree; the raw profiles say clock none and hold no time. */
static void expect_weighted_by_calls(const struct cct *t, const struct run *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		assert_int_equal(r->profiles[i].clock, CCT_CLOCK_NONE);
		for (size_t j = 0; j < r->profiles[i].nr_threads; j++) {
			const struct cct_file_thread *th = &r->profiles[i].threads[j];
			for (size_t k = 0; k < th->nr_nodes; k++)
				assert_true(th->nodes[k].incl_ns == 0 && th->nodes[k].excl_ns == 0);
		}
	}
	double total = 0;
	for (size_t i = 0; i < t->nr_nodes; i++) {
		const struct cct_node *n = &t->nodes[i];
		double below = 0;
		for (uint32_t c = n->first_child; c != CCT_NONE; c = t->nodes[c].next_sibling)
			below += t->nodes[c].incl;
		if (n->excl != n->calls || n->incl != n->calls + below)
			fail_msg("node %zu: calls %g, excl %g, incl %g (children %g)", i, n->calls,
				 n->excl, n->incl, below);
		total += n->calls;
	}
	assert_true(t->nodes[CCT_ROOT].incl == total);
}

/* REVPERF_CCT_CLOCK=none: exact calls, no time, a tree weighted by calls; in one process,
 * with threads and with a forked child. */
static void test_run_calls_only(void **state)
{
	struct run r;
	struct cct t;
	struct symbolizer *sym = symbolizer_new();
	UNUSED(state);
	run_profiled_env(&r, "REVPERF_CCT_CLOCK=none", "work-pie-O2", "calls 100");
	assert_int_equal(r.nr, 1);
	assert_int_equal(cct_profile_to_cct(r.ptrs, 1, sym, true, &t), 0);
	expect_all_named(&t);
	expect_weighted_by_calls(&t, &r);
	expect_calls(&t, "main", 1);
	expect_calls(&t, "main;work;leaf", 100);
	expect_calls(&t, "main;lib_entry;lib_inner", 100);
	double first = calls_at(&t, "main;two_sites;leaf");
	double second = calls_at(&t, "main;two_sites;leaf#1");
	assert_true((first == 7 && second == 3) || (first == 3 && second == 7));
	assert_int_equal(t.nr_nodes, 9);
	/* main 1, work 1 + 100, two_sites 1 + 10, lib_entry 1 + 100. */
	assert_true(t.nodes[node_at(&t, "main")].incl == 214);
	assert_true(t.nodes[node_at(&t, "main;two_sites")].incl == 11);
	cct_release(&t);
	run_release(&r);

	run_profiled_env(&r, "REVPERF_CCT_CLOCK=none", "work-pie-O0", "threads 10");
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.profiles[0].nr_threads, 2);
	assert_int_equal(cct_profile_to_cct(r.ptrs, 1, sym, true, &t), 0);
	expect_weighted_by_calls(&t, &r);
	expect_calls(&t, "main;work;leaf", 10);
	expect_calls(&t, "worker;work;leaf", 5);
	assert_true(t.nodes[CCT_ROOT].incl == 12 + 7);
	cct_release(&t);
	run_release(&r);

	run_profiled_env(&r, "REVPERF_CCT_CLOCK=none", "work-pie-O2", "fork 10");
	assert_int_equal(r.nr, 2);
	assert_int_equal(cct_profile_to_cct(r.ptrs, 2, sym, true, &t), 0);
	expect_weighted_by_calls(&t, &r);
	expect_calls(&t, "main", 1);
	expect_calls(&t, "main;work", 2);
	expect_calls(&t, "main;work;leaf", 20);
	assert_true(t.nodes[CCT_ROOT].incl == 23);
	cct_release(&t);

	/* A timed run of the same program cannot be converted with it. */
	struct run timed;
	run_profiled(&timed, "work-pie-O2", "calls 3");
	const struct cct_profile *mixed[] = {r.ptrs[0], timed.ptrs[0]};
	struct strbuf err = STRBUF_INIT;
	struct convert_args a = {mixed, 2, sym, true, &t};
	assert_int_equal(capture(&err, convert, &a), RP_EINPUT);
	assert_non_null(strstr(err.buf, "cannot be converted together with"));
	cct_release(&t);
	strbuf_release(&err);
	run_release(&timed);
	run_release(&r);
	symbolizer_free(sym);
}

int main(void)
{
	const struct CMUnitTest files[] = {
	    cmocka_unit_test(test_parse_fixture),   cmocka_unit_test(test_convert_fixture),
	    cmocka_unit_test(test_convert_deleted), cmocka_unit_test(test_calls_only),
	    cmocka_unit_test(test_bad_input),	    cmocka_unit_test(test_valid_edges),
	};
	const struct CMUnitTest runs[] = {
	    cmocka_unit_test(test_run_pie_O0),	   cmocka_unit_test(test_run_pie_O2),
	    cmocka_unit_test(test_run_nopie_O2),   cmocka_unit_test(test_run_threads),
	    cmocka_unit_test(test_run_fork),	   cmocka_unit_test(test_run_cxx),
	    cmocka_unit_test(test_run_calls_only),
	};
	int failed = cmocka_run_group_tests(files, NULL, NULL);
	return failed + cmocka_run_group_tests(runs, setup_runs, teardown_runs);
}
