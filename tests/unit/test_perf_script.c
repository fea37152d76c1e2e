/*
 * Unit tests of the perf script reader (src/profile/perf_script.c): hand-made samples whose
 * trees are known exactly (headers with and without pid/tid, cpu, time and period, a comm
 * with spaces, frames of every kind: kernel, unknown, inlined, C++ names), thread names,
 * several events, recordings without call chains, srcline and comment lines, bad input
 * named by its line, the limits, format sniffing, and the real `perf script` outputs of
 * tests/data/perf/ (perf record -g, --call-graph dwarf, kernel frames; docs/perf-script.md
 * says how they were made).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "profile/folded.h"
#include "profile/perf_script.h"
#include "profile/profile_load.h"
#include "util/common.h"

#include "capture_stderr.h"

#define FIXTURE(name) TESTDATA_DIR "/perf/" name

/* Parses `text`, which must succeed, and returns the tree as folded stacks (caller frees). */
static char *parse_folded(const char *text, const struct perf_script_options *o,
			  struct perf_script_info *info)
{
	struct cct t;
	struct strbuf sb = STRBUF_INIT;
	int ret = perf_script_parse(text, strlen(text), "t.perf", o, &t, info);

	if (ret)
		fail_msg("perf_script_parse returned %d for\n%s", ret, text);
	folded_write(&t, &sb);
	cct_release(&t);
	return strbuf_detach(&sb);
}

static void assert_folded(const char *text, const struct perf_script_options *o,
			  struct perf_script_info *info, const char *want)
{
	char *got = parse_folded(text, o, info);
	if (strcmp(got, want))
		fail_msg("for\n%s\ngot\n%s\nexpected\n%s", text, got, want);
	free(got);
}

static const char two_threads[] =
    "prog 100/100 [002] 10.000001:       1000 cpu-clock:u: \n"
    "\t            11e1 leaf+0x21 (/tmp/prog)\n"
    "\t            10b4 main+0x44 (/tmp/prog)\n"
    "\t           2724a __libc_start_call_main+0x7a (/usr/lib/libc.so.6)\n"
    "\n"
    "Web Content 100/102 [001] 10.000002:       3000 cpu-clock:u: \n"
    "\t            11e1 leaf+0x21 (/tmp/prog)\n"
    "\t            1200 worker+0x10 (/tmp/prog)\n"
    "\t           891f5 start_thread+0x305 (/usr/lib/libc.so.6)\n"
    "\n"
    "prog 100/100 [002] 10.000003:       2000 cpu-clock:u: \n"
    "\t            10b4 main+0x44 (/tmp/prog)\n"
    "\t           2724a __libc_start_call_main+0x7a (/usr/lib/libc.so.6)\n"
    "\n";

/* The outermost frame first, offsets dropped, periods summed; children in name order. */
static void test_basic(void **state)
{
	struct perf_script_info info;
	UNUSED(state);
	assert_folded(two_threads, NULL, &info,
		      "__libc_start_call_main;main 2000\n"
		      "__libc_start_call_main;main;leaf 1000\n"
		      "start_thread;worker;leaf 3000\n");
	assert_string_equal(info.event, "cpu-clock:u");
	assert_true(info.has_period);
	assert_int_equal(info.nr_samples, 3);
	assert_int_equal(info.nr_threads, 2);
	assert_int_equal(info.nr_comms, 2);
	assert_int_equal(info.nr_other_events, 0);
	assert_int_equal(info.nr_kernel + info.nr_unknown + info.nr_inlined, 0);
}

/* --threads: one subtree per thread name, the comm with its space (folded stacks list the
 * nodes breadth first). */
static void test_threads(void **state)
{
	struct perf_script_options o = {.separate_threads = true};
	UNUSED(state);
	assert_folded(two_threads, &o, NULL,
		      "[thread prog];__libc_start_call_main;main 2000\n"
		      "[thread Web Content];start_thread;worker;leaf 3000\n"
		      "[thread prog];__libc_start_call_main;main;leaf 1000\n");
}

/* Kernel, unknown, inlined frames and C++ names. */
static void test_frame_kinds(void **state)
{
	struct perf_script_info info;
	static const char text[] =
	    "app 7 1.5: 10 cycles:\n"
	    "\tffffffff816bb976 ksys_write+0x6 ([kernel.kallsyms])\n"
	    "\tffffffffc0a01234 [unknown] ([unknown])\n"
	    "\t           f8350 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	    "\t            1274 both+0x4 (inlined)\n"
	    "\t            1280 std::vector<int, std::allocator<int> >::push_back(int "
	    "const&)+0x12 (/usr/lib/libstdc++.so.6)\n"
	    "\t            1290 operator+ (/tmp/app)\n"
	    "\t            12a0 [unknown] ([unknown])\n"
	    "\n";
	UNUSED(state);
	assert_folded(text, NULL, &info,
		      "[unknown];operator+;std::vector<int, std::allocator<int> "
		      ">::push_back(int const&);both;[unknown in libc.so.6];[unknown] "
		      "[k];ksys_write [k] 10\n");
	assert_string_equal(info.event, "cycles");
	assert_int_equal(info.nr_kernel, 2);
	assert_int_equal(info.nr_unknown, 3);
	assert_int_equal(info.nr_inlined, 1);
}

/* Two events: the first weighs, the other is counted; --event picks (with or without the
 * modifier); an event the file lacks is an error naming it. */
static void test_events(void **state)
{
	static const char text[] = "p 1 1.0: 5 cpu-clock:u:\n\t1 a (x)\n\n"
				   "p 1 1.1: 7 task-clock:u:\n\t2 b (x)\n\n"
				   "p 1 1.2: 5 cpu-clock:u:\n\t1 a (x)\n\n";
	struct perf_script_options o = {.event = "task-clock"};
	struct perf_script_info info;
	struct stderr_capture cap;
	struct cct t;
	char *err;
	UNUSED(state);
	assert_folded(text, NULL, &info, "a 10\n");
	assert_int_equal(info.nr_samples, 2);
	assert_int_equal(info.nr_other_events, 1);
	assert_folded(text, &o, &info, "b 7\n");
	assert_string_equal(info.event, "task-clock:u");
	o.event = "cpu-clock:u";
	assert_folded(text, &o, &info, "a 10\n");
	o.event = "cycles";
	capture_stderr_begin(&cap);
	assert_int_equal(perf_script_parse(text, strlen(text), "t.perf", &o, &t, &info), RP_EINPUT);
	err = capture_stderr_end(&cap);
	assert_non_null(strstr(err, "t.perf: no sample of the event 'cycles' (3 samples of "
				    "others); choose one of the file's events with --event"));
	assert_int_equal(t.nr_nodes, 1);
	cct_release(&t);
	free(err);
}

/* Without -g: the address on the header line (comm padded to 16 columns), no blank
 * lines; without a period every sample weighs 1. */
static void test_no_callchain(void **state)
{
	struct perf_script_info info;
	static const char text[] =
	    "          worker 24600 11271.020079: cpu-clock:u:      556fbc880244 steady+0x24 "
	    "(/tmp/p)\n"
	    "          fp_old 24516 11271.022603: cpu-clock:u:      556fbc880201 hot+0x21 "
	    "(/tmp/p)\n"
	    "          fp_old 24516 11271.024606: cpu-clock:u:      556fbc880201 hot+0x21 "
	    "(/tmp/p)\n";
	static const char periods[] =
	    "          worker 1 1.0: 5 cpu-clock:u:      1 steady+0x24 (/tmp/p)\n"
	    "            main 2 1.1: 7 cpu-clock:u:      2 hot+0x21 (/tmp/p)\n"
	    "          worker 1 1.2: 9 cpu-clock:u:      1 steady+0x24 (/tmp/p)\n";
	struct perf_script_options o = {.separate_threads = true};
	UNUSED(state);
	assert_folded(text, NULL, &info, "hot 2\nsteady 1\n");
	assert_false(info.has_period);
	assert_int_equal(info.nr_no_callchain, 3);
	assert_int_equal(info.nr_samples, 3);
	/* Each sample with its own header: period and thread, though no blank line ends it. */
	assert_folded(periods, &o, &info, "[thread main];hot 7\n[thread worker];steady 14\n");
	assert_int_equal(info.nr_threads, 2);
}

/* perf script --header comments, -F +srcline lines (one marks an inlined frame), CRLF,
 * blank lines of spaces, no final newline; a tracepoint's payload on the header line. */
static void test_lenient(void **state)
{
	struct perf_script_info info;
	static const char text[] =
	    "# ========\r\n"
	    "# captured on    : Thu Nov 26 02:25:20 2026\r\n"
	    "# ========\r\n"
	    "#\r\n"
	    "dwarf_old 19546/19546 11263.648691:    2004008 cpu-clock:u: \r\n"
	    "\t            1201 hot (/tmp/dwarf_old)\r\n"
	    "  perf_workload.c:13\r\n"
	    "\t            1274 both\r\n"
	    "  perf_workload.c:26 (inlined)\r\n"
	    "\t            1110 _start (/tmp/dwarf_old)\r\n"
	    "  ??:0\r\n"
	    "   \r\n"
	    "sh 5 [000] 2.0: 1 sched:sched_switch: prev_comm=sh prev_pid=5 ==> next_comm=x\n"
	    "\t            1110 _start (/tmp/sh)";
	UNUSED(state);
	assert_folded(text, NULL, &info, "_start;both;hot 2004008\n");
	assert_int_equal(info.nr_inlined, 1);
	assert_int_equal(info.nr_other_events, 1);
}

struct bad_case {
	const char *text;
	const char *message; /* expected in the one line printed */
};

static void check_bad(const char *text, size_t len, const char *message)
{
	struct stderr_capture cap;
	struct cct t;
	char *err;
	int ret;

	capture_stderr_begin(&cap);
	ret = perf_script_parse(text, len, "t.perf", NULL, &t, NULL);
	err = capture_stderr_end(&cap);
	if (ret != RP_EINPUT || !strstr(err, message))
		fail_msg("for\n%.200s\nreturned %d, printed\n%s\nexpected '%s'", text, ret, err,
			 message);
	/* One line, and only the root left. */
	assert_true(strchr(err, '\n') && strchr(err, '\n')[1] == '\0');
	assert_int_equal(t.nr_nodes, 1);
	cct_release(&t);
	free(err);
}

static void test_bad_input(void **state)
{
	static const struct bad_case cases[] = {
	    {"\t 11e1 leaf (/x)\n", "t.perf:1: a frame before any sample header, found"},
	    {"p 1 1.0: 1 cpu-clock:\n\tgarbage here\n",
	     "t.perf:2: expected a frame 'address symbol (module)', found '\tgarbage here'"},
	    {"hello world\n", "t.perf:1: expected a sample header 'comm tid time: period "
			      "event:', found 'hello world'; is it the output of `perf "
			      "script`"},
	    {"p 1 1.0: 1 cpu-clock:\n\t1 a (b)\n\np 1 1.1: cpu-clock:\n\t1 a (b)\n",
	     "t.perf:4: a sample without a period where the first sample of cpu-clock had "
	     "one"},
	    {"p 1 1.0: 1 cpu-clock:\n\t11111111111111111 a (b)\n", "t.perf:2: expected a "
								   "frame"},
	    {"", "t.perf: empty: no sample"},
	    {"# only\n#comments\n\n", "t.perf: empty: no sample"},
	    {"p 1 1.0: 0 cpu-clock:\n\t1 a (b)\n", "t.perf: every period is 0"},
	    {"a;b;c 12\n", "t.perf:1: expected a sample header"},
	};
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_bad(cases[i].text, strlen(cases[i].text), cases[i].message);
	/* A NUL byte. */
	check_bad("p 1 1.0: 1 cpu-clock:\n\t1 a\0b (x)\n", 33, "t.perf:2: a NUL byte");
}

/* More frames in a sample, or a longer name, than the limits: an error, not a tree. */
static void test_limits(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	UNUSED(state);
	strbuf_addstr(&sb, "p 1 1.0: 1 cpu-clock:\n");
	for (int i = 0; i <= PERF_SCRIPT_MAX_FRAMES; i++)
		strbuf_addstr(&sb, "\t1 f (x)\n");
	check_bad(sb.buf, sb.len,
		  "t.perf:65538: the sample of line 1 has more than 65536 "
		  "frames");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "p 1 1.0: 1 cpu-clock:\n\t1 ");
	for (size_t i = 0; i <= PERF_SCRIPT_MAX_NAME; i++)
		strbuf_addch(&sb, 'n');
	strbuf_addstr(&sb, " (x)\n");
	check_bad(sb.buf, sb.len,
		  "t.perf:2: a symbol name of 65537 bytes, more than the "
		  "65536 allowed");
	strbuf_release(&sb);
}

static void test_sniff(void **state)
{
	static const char header_only[] = "p 1 1.0: 1 cpu-clock:\n\nq 2 2.0: 1 cpu-clock:\n";
	static const char callgrind[] = "# callgrind format\nevents: Ir\nfn=main\n1 2\n";
	UNUSED(state);
	assert_true(perf_script_sniff(two_threads, strlen(two_threads)));
	assert_true(perf_script_sniff("#c\n\np 1 1.0: 1 e:  7 f (x)\n", 25));
	assert_false(perf_script_sniff("a;b;c 12\n", 9));
	assert_false(perf_script_sniff(callgrind, strlen(callgrind)));
	assert_false(perf_script_sniff(header_only, strlen(header_only)));
	assert_false(perf_script_sniff("", 0));
	assert_false(perf_script_sniff("\t1 f (x)\n", 9));
}

/* Loads a real fixture through the front door, recognised by its content. */
static void load_fixture(const char *path, struct cct *t, struct profile_source *src)
{
	int ret;
	struct stderr_capture cap;
	char *err;

	capture_stderr_begin(&cap); /* few samples, other events: warnings */
	ret = profile_load(path, NULL, t, src);
	err = capture_stderr_end(&cap);
	if (ret)
		fail_msg("%s: profile_load returned %d: %s", path, ret, err);
	free(err);
	assert_int_equal(src->format, PROFILE_FORMAT_PERF);
}

static bool has_path(const struct cct *t, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	bool found = false;
	for (size_t i = 1; i < t->nr_nodes && !found; i++) {
		strbuf_reset(&sb);
		cct_path(t, (uint32_t)i, &sb);
		found = !strcmp(sb.buf, want);
	}
	strbuf_release(&sb);
	return found;
}

static void test_real_outputs(void **state)
{
	struct cct t;
	struct profile_source src;
	UNUSED(state);

	/* perf record -g: frame pointers (the sampled leaf's caller is lost, as perf shows). */
	load_fixture(FIXTURE("fp_old.perf"), &t, &src);
	assert_true(has_path(&t, "__libc_start_call_main;main;hot"));
	assert_true(has_path(&t, "start_thread;steady"));
	assert_string_equal(src.perf.event, "cpu-clock:u");
	assert_int_equal(src.perf.nr_comms, 2);
	cct_release(&t);
	/* --call-graph dwarf: whole stacks, inlined frames of their own. */
	load_fixture(FIXTURE("dwarf_old.perf"), &t, &src);
	assert_true(has_path(&t, "_start;__libc_start_main_impl;__libc_start_call_main;main;"
				 "compute;both;hot"));
	assert_true(src.perf.nr_inlined > 0);
	cct_release(&t);
	/* Kernel frames, recorded as root, marked. */
	load_fixture(FIXTURE("kernel.perf"), &t, &src);
	assert_true(has_path(&t, "__libc_start_call_main;__GI___libc_write;"
				 "entry_SYSCALL_64_after_hwframe [k];do_syscall_64 [k]"));
	assert_true(src.perf.nr_kernel > 0);
	cct_release(&t);
	/* -F ...,srcline: the inlined frame is marked on its source line. */
	load_fixture(FIXTURE("srcline.perf"), &t, &src);
	assert_true(src.perf.nr_inlined > 0);
	assert_true(has_path(&t, "_start;__libc_start_main_impl;__libc_start_call_main;main;"
				 "compute;both;hot"));
	cct_release(&t);
	load_fixture(FIXTURE("two_events.perf"), &t, &src);
	assert_true(src.perf.nr_other_events > 0);
	cct_release(&t);
	load_fixture(FIXTURE("flat.perf"), &t, &src);
	assert_int_equal(src.perf.nr_no_callchain, src.perf.nr_samples);
	cct_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic),	 cmocka_unit_test(test_threads),
	    cmocka_unit_test(test_frame_kinds),	 cmocka_unit_test(test_events),
	    cmocka_unit_test(test_no_callchain), cmocka_unit_test(test_lenient),
	    cmocka_unit_test(test_bad_input),	 cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_sniff),	 cmocka_unit_test(test_real_outputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
