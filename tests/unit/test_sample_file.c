/*
 * Unit tests of sampled profiles (src/profile/sample_file.c, sample_raw.c, sample_build.c):
 * a hand-written profile read, written back and turned into merged and per-thread trees;
 * every kind of bad input named by its line; and the builder on a raw file written here
 * record by record (the kernel's layout, linux/perf_event.h) naming the functions of this
 * very test program: call chains, a fork that shares the parent's code, an exec that
 * replaces it, lost samples, threads numbered in the order they started.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "collect/perf_sample.h"
#include "profile/cct.h"
#include "profile/profile_load.h"
#include "profile/sample_build.h"
#include "profile/sample_file.h"
#include "util/common.h"

#include "capture_stderr.h"

static const char good[] = "revperf-sample 1\n"
			   "command ./prog 3\n"
			   "exe /w/prog\n"
			   "event cpu-clock\n"
			   "unit ns\n"
			   "frequency 1000\n"
			   "period 1000000\n"
			   "callgraph dwarf 0 of the 4 functions of ./prog keep frame pointers\n"
			   "run 50000000 41000000 1000000\n"
			   "samples 40\n"
			   "lost 2\n"
			   "throttled 0\n"
			   "truncated 0\n"
			   "spliced 0\n"
			   "complete 40\n"
			   "module cfi 120 /w/prog\n"
			   "thread 0 10 10 10 10000000 prog\n"
			   "thread 1 10 11 30 30000000 worker one\n"
			   "s 0 10 10000000 _start;main;light\n"
			   "s 1 25 25000000 start_thread;body;heavy\n"
			   "s 1 5 5000000 start_thread;body\n"
			   "end\n";

static uint32_t node_at(const struct cct *t, const char *path)
{
	uint32_t node = CCT_ROOT;
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *f = strtok_r(buf, ";", &save); f && node != CCT_NONE;
	     f = strtok_r(NULL, ";", &save)) {
		uint32_t name = cct_name_find(t, f);
		node = name == CCT_NONE ? CCT_NONE : cct_child_find(t, node, name, 0);
	}
	return node;
}

static void test_read_write_tree(void **state)
{
	struct sample_profile p, again;
	struct strbuf sb = STRBUF_INIT;
	struct cct t;
	uint32_t n;

	UNUSED(state);
	assert_true(sample_profile_sniff(good, strlen(good)));
	assert_int_equal(sample_profile_parse(good, strlen(good), "good", &p), 0);
	assert_string_equal(p.exe, "/w/prog");
	assert_string_equal(p.callgraph, "dwarf");
	assert_int_equal(p.samples, 40);
	assert_int_equal(p.lost, 2);
	assert_int_equal(p.nr_threads, 2);
	assert_string_equal(p.threads[1].comm, "worker one");
	assert_int_equal(p.nr_stacks, 3);
	/* Written back, read again: the same text. */
	sample_profile_write(&p, &sb);
	assert_string_equal(sb.buf, good);
	assert_int_equal(sample_profile_parse(sb.buf, sb.len, "again", &again), 0);
	sample_profile_release(&again);

	/* Merged threads: each stack's weight is its last frame's; no calls. */
	assert_int_equal(sample_profile_cct(&p, false, &t), 0);
	n = node_at(&t, "start_thread;body;heavy");
	assert_int_not_equal(n, CCT_NONE);
	assert_true(t.nodes[n].excl == 25e6 && t.nodes[n].calls == 0);
	n = node_at(&t, "start_thread;body");
	assert_true(t.nodes[n].excl == 5e6 && t.nodes[n].incl == 30e6);
	assert_true(cct_total(&t) == 40e6);
	cct_release(&t);
	/* Per thread: under "[thread K COMM]". */
	assert_int_equal(sample_profile_cct(&p, true, &t), 0);
	assert_int_not_equal(node_at(&t, "[thread 1 worker one];start_thread;body;heavy"),
			     CCT_NONE);
	assert_int_not_equal(node_at(&t, "[thread 0 prog];_start;main;light"), CCT_NONE);
	cct_release(&t);

	/* Callees in the order of their names, whichever was sampled first ("s 1 25 ...heavy"
	 * comes before "s 1 5 ...body" in the file): body's own weight and heavy are under
	 * one body node, and under start_thread there is that one child. */
	assert_int_equal(sample_profile_cct(&p, false, &t), 0);
	n = node_at(&t, "start_thread");
	assert_int_equal(t.nodes[n].nr_children, 1);
	n = node_at(&t, "_start;main");
	assert_int_not_equal(n, CCT_NONE);
	cct_release(&t);
	{
		static const char order[] =
		    "revperf-sample 1\ncommand x\nexe \nevent cpu-clock\n"
		    "unit ns\nfrequency 1000\nperiod 1000000\ncallgraph fp\n"
		    "run 0 0 0\nsamples 3\nlost 0\nthrottled 0\ntruncated 0\n"
		    "spliced 0\ncomplete 3\nthread 0 1 1 3 3 x\n"
		    "s 0 1 1 main;zeta\ns 0 1 1 main;alpha;x\ns 0 1 1 main;alpha\nend\n";
		struct sample_profile q;
		uint32_t m, first;
		assert_int_equal(sample_profile_parse(order, strlen(order), "order", &q), 0);
		assert_int_equal(sample_profile_cct(&q, false, &t), 0);
		m = node_at(&t, "main");
		first = t.nodes[m].first_child;
		assert_string_equal(cct_name(&t, t.nodes[first].name), "alpha");
		assert_string_equal(cct_name(&t, t.nodes[t.nodes[first].next_sibling].name),
				    "zeta");
		cct_release(&t);
		sample_profile_release(&q);
	}

	/* Notes: few samples (40) and lost samples. */
	strbuf_reset(&sb);
	sample_profile_notes(&p, &sb);
	assert_non_null(strstr(sb.buf, "only 40 samples"));
	assert_non_null(strstr(sb.buf, "2 samples lost"));
	/* Stacks that miss their callers: every one deeper than the copy, most of them (a
	 * sample in libc beside 71 truncated ones: both said), few of them (the code). */
	p.samples = 72;
	p.complete = 0;
	p.truncated = 72;
	strbuf_reset(&sb);
	sample_profile_notes(&p, &sb);
	assert_non_null(strstr(sb.buf, "callers are missing, as the stacks were deeper than the copy"));
	p.truncated = 71;
	strbuf_reset(&sb);
	sample_profile_notes(&p, &sb);
	assert_non_null(strstr(sb.buf, "callers are missing, 71 of the 72 as the stacks were deeper "
				       "than the copy (above), the others above code that could not be "
				       "unwound"));
	p.truncated = 10;
	strbuf_reset(&sb);
	sample_profile_notes(&p, &sb);
	assert_non_null(strstr(sb.buf, "callers are missing above code without frame pointers"));
	strbuf_release(&sb);
	sample_profile_release(&p);
}

/* Replaces the first occurrence of `from` in good by `to`. */
static char *edit(const char *from, const char *to)
{
	const char *at = strstr(good, from);
	struct strbuf sb = STRBUF_INIT;

	assert_non_null(at);
	strbuf_add(&sb, good, (size_t)(at - good));
	strbuf_addstr(&sb, to);
	strbuf_addstr(&sb, at + strlen(from));
	return strbuf_detach(&sb);
}

static void test_bad_input(void **state)
{
	static const struct {
		const char *from, *to, *message;
	} cases[] = {
	    {"revperf-sample 1\n", "revperf-sample 2\n", "bad:1: not a sampled profile"},
	    {"samples 40\n", "", "bad:15: 'module' record before the header's 'samples'"},
	    {"samples 40\n", "samples 40\nsamples 41\n", "bad:11: a second 'samples' record"},
	    {"frequency 1000\n", "frequency 0\n", "bad:6: 'frequency' record: the frequency is 0"},
	    {"lost 2\n", "lost -2\n", "bad:11: 'lost' record: the count '-2' is not a decimal"},
	    {"lost 2\n", "lost 99999999999999999999\n", "bad:11: 'lost' record: the count "},
	    {"callgraph dwarf", "callgraph lbr", "bad:8: 'callgraph' record: 'lbr' is neither"},
	    {"thread 1 10 11", "thread 2 10 11", "bad:18: 'thread' record: thread 2 where 1 was"},
	    {"s 1 25", "s 7 25", "bad:20: 's' record: thread 7 has no 'thread' record"},
	    {"body;heavy", "body;;heavy", "bad:20: 's' record: an empty frame"},
	    {"s 1 5 5000000 start_thread;body\n", "s 1 5 5000000\n",
	     "bad:21: 's' record: the stack is missing"},
	    {"module cfi", "module lbr", "bad:16: 'module' record: unwinding 'lbr'"},
	    {"end\n", "", "bad: truncated profile: no 'end' record after line 21"},
	    {"end\n", "end\nmore\n", "bad:23: text after 'end'"},
	    {"lost 2\n", "lost 2\nfrobnicate 1\n", "bad:12: unknown record 'frobnicate'"},
	    {"lost 2\n", "lost 2 3\n", "bad:11: 'lost' record: unexpected '3' at the end"},
	    {"thread 0 10 10", "s 0 1 1 a\nthread 0 10 10", "bad:17: 's' record: thread 0 has no"},
	};
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct stderr_capture cap;
		struct sample_profile p;
		char *text = edit(cases[i].from, cases[i].to), *err;
		int ret;

		capture_stderr_begin(&cap);
		ret = sample_profile_parse(text, strlen(text), "bad", &p);
		err = capture_stderr_end(&cap);
		if (ret != RP_EINPUT || !strstr(err, cases[i].message))
			fail_msg("case %zu: ret %d, message '%s', expected '%s'", i, ret, err,
				 cases[i].message);
		/* One line. */
		assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err));
		free(err);
		free(text);
	}
}

/* ---- the builder on a raw file written here ------------------------------------------ */

__attribute__((noinline)) int sample_callee(int x);
__attribute__((noinline)) int sample_caller(int x);
__attribute__((noinline)) int sample_callee(int x)
{
	return x * 3 + 1;
}
__attribute__((noinline)) int sample_caller(int x)
{
	return sample_callee(x) + 2;
}

struct raw_writer {
	struct strbuf sb;
	uint64_t time;
};

static void put(struct raw_writer *w, const void *p, size_t n)
{
	strbuf_add(&w->sb, p, n);
}

static void put64(struct raw_writer *w, uint64_t v)
{
	put(w, &v, 8);
}

static void put32(struct raw_writer *w, uint32_t v)
{
	put(w, &v, 4);
}

static void header(struct raw_writer *w, uint32_t type, uint16_t misc, size_t body)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = (uint16_t)(8 + body)};
	put(w, &h, sizeof(h));
}

/* sample_id_all: TID and TIME. */
static void sample_id(struct raw_writer *w, uint32_t pid, uint32_t tid)
{
	put32(w, pid);
	put32(w, tid);
	put64(w, ++w->time);
}

static void comm(struct raw_writer *w, uint32_t pid, uint32_t tid, const char *name, bool exec)
{
	char buf[16] = {0};
	snprintf(buf, sizeof(buf), "%s", name);
	header(w, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, 8 + 16 + 16);
	put32(w, pid);
	put32(w, tid);
	put(w, buf, 16);
	sample_id(w, pid, tid);
}

static void mmap2(struct raw_writer *w, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		  const char *path)
{
	char name[4096] = {0};
	size_t n = (strlen(path) + 8) & ~(size_t)7;
	memcpy(name, path, strlen(path));
	header(w, PERF_RECORD_MMAP2, 0, 64 + n + 16);
	put32(w, pid);
	put32(w, pid);
	put64(w, start);
	put64(w, len);
	put64(w, pgoff);
	put64(w, 0); /* maj, min */
	put64(w, 0); /* ino */
	put64(w, 0); /* ino generation */
	put32(w, 5); /* PROT_READ | PROT_EXEC */
	put32(w, 2); /* MAP_PRIVATE */
	put(w, name, n);
	sample_id(w, pid, pid);
}

static void fork_rec(struct raw_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	header(w, PERF_RECORD_FORK, 0, 24 + 16);
	put32(w, pid);
	put32(w, ppid);
	put32(w, tid);
	put32(w, ppid);
	put64(w, w->time);
	sample_id(w, pid, tid);
}

static void lost(struct raw_writer *w, uint64_t n)
{
	header(w, PERF_RECORD_LOST, 0, 16 + 16);
	put64(w, 1);
	put64(w, n);
	sample_id(w, 1, 1);
}

/* A sample: the chain innermost first, no registers (fp mode). */
static void sample(struct raw_writer *w, uint32_t pid, uint32_t tid, const uint64_t *chain,
		   size_t n)
{
	header(w, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 40 + 8 * (n + 1) + 8 + 8);
	put64(w, chain[0]);
	put32(w, pid);
	put32(w, tid);
	put64(w, ++w->time);
	put64(w, 1000000); /* period: 1 ms */
	put64(w, n + 1);
	put64(w, (uint64_t)PERF_CONTEXT_USER);
	for (size_t i = 0; i < n; i++)
		put64(w, chain[i]);
	put64(w, 0); /* REGS_USER abi: none */
	put64(w, 0); /* STACK_USER size: none */
}

/* This program's executable mapping (/proc/self/maps) holding sample_caller. */
static void own_text(uint64_t *start, uint64_t *end, uint64_t *pgoff, char *path, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4200];
	uint64_t at = (uint64_t)(uintptr_t)&sample_caller;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char perms[5], p[4096] = "";
		unsigned long long s, e, o;
		if (sscanf(line, "%llx-%llx %4s %llx %*s %*s %4095s", &s, &e, perms, &o, p) < 4)
			continue;
		if (at >= s && at < e) {
			*start = s;
			*end = e;
			*pgoff = o;
			snprintf(path, size, "%s", p);
			fclose(f);
			return;
		}
	}
	fclose(f);
	fail_msg("sample_caller is in no mapping");
}

static void test_build(void **state)
{
	struct raw_writer w = {.sb = STRBUF_INIT};
	struct perf_sample_raw_header h;
	char path[4096], raw[] = "/tmp/revperf-test-raw-XXXXXX";
	uint64_t start = 0, end = 0, pgoff = 0;
	/* In sample_callee, called from sample_caller (the return address after its call). */
	uint64_t callee = (uint64_t)(uintptr_t)&sample_callee + 1;
	uint64_t caller = (uint64_t)(uintptr_t)&sample_caller + 4;
	uint64_t chain[2] = {callee, caller};
	struct sample_build_options bo = {.command = "test"};
	struct sample_profile p;
	struct strbuf err_sb = STRBUF_INIT;
	int fd;

	UNUSED(state);
	own_text(&start, &end, &pgoff, path, sizeof(path));
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PERF_SAMPLE_RAW_MAGIC, sizeof(PERF_SAMPLE_RAW_MAGIC));
	h.header_size = sizeof(h);
	h.event = PERF_SAMPLE_EVENT_CPU_CLOCK;
	h.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	h.frequency_hz = 1000;
	h.callgraph = PERF_SAMPLE_CALLGRAPH_FP;
	h.period_ns = 1000000;
	put(&w, &h, sizeof(h));
	/* Process 100 execs the program, maps it, starts thread 101, forks 200. */
	comm(&w, 100, 100, "prog", true);
	mmap2(&w, 100, start, end - start, pgoff, path);
	for (int i = 0; i < 3; i++)
		sample(&w, 100, 100, chain, 2);
	fork_rec(&w, 100, 100, 101);
	comm(&w, 100, 101, "worker", false);
	sample(&w, 100, 101, chain, 1);
	fork_rec(&w, 200, 100, 200);
	/* The child runs the parent's code, then execs something unmapped. */
	sample(&w, 200, 200, chain, 2);
	comm(&w, 200, 200, "other", true);
	sample(&w, 200, 200, chain, 2);
	lost(&w, 7);
	fd = mkstemp(raw);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, w.sb.buf, w.sb.len), (ssize_t)w.sb.len);
	close(fd);

	assert_int_equal(sample_build(raw, &bo, &p), 0);
	unlink(raw);
	assert_int_equal(p.samples, 6);
	assert_int_equal(p.lost, 7);
	assert_string_equal(p.exe, path);
	assert_int_equal(p.nr_threads, 3);
	assert_int_equal(p.threads[0].tid, 100);
	assert_int_equal(p.threads[0].samples, 3);
	assert_string_equal(p.threads[1].comm, "worker");
	assert_int_equal(p.threads[2].pid, 200);
	assert_string_equal(p.threads[2].comm, "other");
	assert_true(p.threads[0].weight == 3e6);
	/* Thread 0: caller then callee, named from this program's symbols. */
	for (size_t i = 0; i < p.nr_stacks; i++) {
		const struct sample_stack *s = &p.stacks[i];
		strbuf_addf(&err_sb, "%u %llu %s\n", s->thread, (unsigned long long)s->samples,
			    s->frames);
	}
	assert_non_null(strstr(err_sb.buf, "0 3 sample_caller;sample_callee\n"));
	assert_non_null(strstr(err_sb.buf, "1 1 sample_callee\n"));
	/* The forked child before its exec: the parent's code; after: nothing mapped. */
	assert_non_null(strstr(err_sb.buf, "2 1 sample_caller;sample_callee\n"));
	assert_non_null(strstr(err_sb.buf, "2 1 [unknown];[unknown]\n"));
	strbuf_release(&err_sb);

	/* Through the front door of every profile: a tree without calls. */
	{
		struct strbuf sb = STRBUF_INIT;
		char file[] = "/tmp/revperf-test-sample-XXXXXX";
		struct profile_source src;
		struct cct t;
		int f2 = mkstemp(file);
		assert_true(f2 >= 0);
		close(f2);
		assert_int_equal(sample_profile_save(&p, file), 0);
		assert_int_equal(profile_load(file, NULL, &t, &src), 0);
		assert_int_equal(src.format, PROFILE_FORMAT_SAMPLE);
		assert_false(t.calls_known);
		assert_int_equal(t.weight, CCT_WEIGHT_CPU_NS);
		assert_true(cct_total(&t) == 6e6);
		assert_int_not_equal(node_at(&t, "sample_caller;sample_callee"), CCT_NONE);
		cct_release(&t);
		unlink(file);
		strbuf_release(&sb);
	}
	sample_profile_release(&p);
	strbuf_release(&w.sb);
}

static void test_raw_bad(void **state)
{
	char raw[] = "/tmp/revperf-test-raw-XXXXXX";
	struct sample_profile p;
	struct stderr_capture cap;
	struct sample_build_options bo = {0};
	char *err;
	int fd;

	UNUSED(state);
	fd = mkstemp(raw);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not a raw file at all, not at all, not at all, no.......", 56),
			 56);
	close(fd);
	capture_stderr_begin(&cap);
	assert_int_equal(sample_build(raw, &bo, &p), RP_EINPUT);
	err = capture_stderr_end(&cap);
	assert_non_null(strstr(err, "not a raw sample file of revperf"));
	free(err);
	unlink(raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_write_tree),
	    cmocka_unit_test(test_bad_input),
	    cmocka_unit_test(test_build),
	    cmocka_unit_test(test_raw_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
