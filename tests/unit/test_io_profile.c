/*
 * I/O profiles (src/profile/io_profile.c): the JSON round trip, the stack and file keys the
 * spectrum analysis sees, the origin frame, the reader's errors, sides made of directories,
 * and io_profiles_compare() leaving out runs that did not end well.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/io_spectra.h"
#include "profile/io_profile.h"
#include "util/common.h"

#include "capture_stderr.h"

static char tmpdir[] = "/tmp/revperf-test-ioprofile-XXXXXX";

static void frame(struct io_frame *f, const char *module, uint64_t addr, const char *fn,
		  const char *src)
{
	f->module = xstrdup(module);
	f->addr = addr;
	f->function = fn ? xstrdup(fn) : NULL;
	f->source = src ? xstrdup(src) : NULL;
}

/* A profile of two entries: stdio from log_line (inlined into main) and a direct write. */
static void sample(struct io_profile *p, const char *cwd, uint64_t bytes0)
{
	struct io_entry *e;

	memset(p, 0, sizeof(*p));
	p->command = xstrdup("./prog --x 'a b'");
	p->cwd = xstrdup(cwd);
	p->log = xstrdup("run-1.log");
	p->started_at = 1700000000;
	p->status = RUN_OK;
	p->wall_ns = 12345678;
	p->traced_calls = 7;
	p->nr_entries = 3;
	p->entries = xcalloc(3, sizeof(*p->entries));
	e = &p->entries[0];
	e->dir = IOTRACE_WRITE;
	e->syscall = xstrdup("write");
	e->file = xstrdup("/work/tree/out/data.log");
	e->calls = 4;
	e->bytes = bytes0;
	e->nr_frames = 4;
	e->frames = xcalloc(4, sizeof(*e->frames));
	frame(&e->frames[0], "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x10a0f0, "__write", NULL);
	frame(&e->frames[1], "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x8a1ff, "_IO_fflush", NULL);
	frame(&e->frames[2], "/work/tree/prog", 0x1234, "log_line", "prog.c:10");
	e->frames[2].inlined = true;
	frame(&e->frames[3], "/work/tree/prog", 0x1234, "main", "prog.c:30");
	e = &p->entries[1];
	e->dir = IOTRACE_WRITE;
	e->syscall = xstrdup("sendto");
	e->file = xstrdup("socket:[81234]");
	e->calls = 2;
	e->bytes = 20;
	e->errors = 1;
	e->last_errno = 32;
	e->nr_frames = 1;
	e->frames = xcalloc(1, sizeof(*e->frames));
	frame(&e->frames[0], "[unknown]", 0x7f0012345678, NULL, NULL);
	e = &p->entries[2];
	e->dir = IOTRACE_READ;
	e->syscall = xstrdup("read");
	e->file = xstrdup("pipe:[99]");
	e->calls = 1;
	e->bytes = 0;
	p->reads = true;
	p->nr_procs = 1;
	p->procs = xcalloc(1, sizeof(*p->procs));
	p->procs[0].pid = 4242;
	p->procs[0].exe = xstrdup("/work/tree/prog");
	p->procs[0].exited = true;
}

static void path_in_tmp(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void test_round_trip(void **state)
{
	struct io_profile p, q;
	char path[4096];
	json_t *a, *b;

	(void)state;
	sample(&p, "/work/tree", 400);
	path_in_tmp(path, sizeof(path), "rt.io.json");
	assert_int_equal(io_profile_write(&p, path), RP_OK);
	assert_int_equal(io_profile_read(path, &q), RP_OK);
	a = io_profile_to_json(&p);
	b = io_profile_to_json(&q);
	assert_true(json_equal(a, b));
	assert_string_equal(q.command, "./prog --x 'a b'");
	assert_int_equal(q.entries[0].frames[2].inlined, true);
	assert_int_equal(q.entries[0].frames[3].inlined, false);
	assert_null(q.entries[1].frames[0].function);
	assert_true(q.entries[1].frames[0].addr == 0x7f0012345678ull);
	assert_int_equal(q.entries[1].last_errno, 32);
	assert_int_equal(q.entries[2].dir, IOTRACE_READ);
	json_decref(a);
	json_decref(b);
	io_profile_release(&p);
	io_profile_release(&q);
}

static void test_keys(void **state)
{
	struct io_profile p;
	struct strbuf sb = STRBUF_INIT;
	struct spectra_run run;
	const struct io_frame *f;

	(void)state;
	sample(&p, "/work/tree", 400);
	io_entry_stack_key(&p.entries[0], &sb);
	assert_string_equal(sb.buf, "main;log_line;_IO_fflush;__write");
	strbuf_reset(&sb);
	io_entry_stack_key(&p.entries[1], &sb);
	assert_string_equal(sb.buf, "[unknown]+0x7f0012345678");
	strbuf_reset(&sb);
	io_entry_file_key(&p, &p.entries[0], &sb);
	assert_string_equal(sb.buf, "./out/data.log");
	strbuf_reset(&sb);
	io_entry_file_key(&p, &p.entries[1], &sb);
	assert_string_equal(sb.buf, "[socket]");
	strbuf_reset(&sb);
	io_entry_file_key(&p, &p.entries[2], &sb);
	assert_string_equal(sb.buf, "[pipe]");
	/* A path that only starts like the cwd is not under it. */
	free(p.cwd);
	p.cwd = xstrdup("/work/tr");
	strbuf_reset(&sb);
	io_entry_file_key(&p, &p.entries[0], &sb);
	assert_string_equal(sb.buf, "/work/tree/out/data.log");
	/* The origin: the caller of fflush, not the C library. */
	f = io_entry_origin(&p.entries[0]);
	assert_non_null(f);
	assert_string_equal(f->function, "log_line");
	assert_null(io_entry_origin(&p.entries[2]));
	/* No stack at all. */
	p.entries[2].nr_frames = 0;
	strbuf_reset(&sb);
	io_entry_stack_key(&p.entries[2], &sb);
	assert_string_equal(sb.buf, "[no stack]");
	/* Writes and reads become separate spectra runs. */
	assert_int_equal(io_profile_to_spectra(&p, IOTRACE_WRITE, "w", &run), RP_OK);
	assert_int_equal(run.nr, 2);
	assert_string_equal(run.recs[0].file, "/work/tree/out/data.log");
	assert_true(run.recs[0].bytes == 400 && run.recs[0].calls == 4);
	spectra_run_release(&run);
	assert_int_equal(io_profile_to_spectra(&p, IOTRACE_READ, "r", &run), RP_OK);
	assert_int_equal(run.nr, 1);
	assert_string_equal(run.recs[0].stack, "[no stack]");
	spectra_run_release(&run);
	strbuf_release(&sb);
	io_profile_release(&p);
}

/* Each corrupted document is refused with the given message fragment. */
static void expect_refused(const char *doc, const char *fragment)
{
	struct stderr_capture cap;
	struct io_profile p;
	char *err;
	int ret;

	capture_stderr_begin(&cap);
	ret = io_profile_parse("x.io.json", doc, strlen(doc), &p);
	err = capture_stderr_end(&cap);
	assert_int_equal(ret, RP_EINPUT);
	io_profile_release(&p);
	if (!strstr(err, fragment))
		fail_msg("expected '%s' in: %s", fragment, err);
	assert_non_null(strchr(err, '\n'));
	assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err)); /* one line */
	free(err);
}

static void test_reader_errors(void **state)
{
	struct io_profile p;
	json_t *doc;
	char *good, *bad;

	(void)state;
	sample(&p, "/w", 400);
	doc = io_profile_to_json(&p);
	good = json_dumps(doc, JSON_PRESERVE_ORDER);
	io_profile_release(&p);
	assert_int_equal(io_profile_parse("good", good, strlen(good), &p), RP_OK);
	io_profile_release(&p);

	expect_refused("{\"format\": \"revperf-io\", ", "x.io.json:1:");
	expect_refused("[1, 2]", "x.io.json: expected a JSON object");
	expect_refused("{\"format\": \"other\"}", "not an I/O profile");
	expect_refused("{\"format\": \"revperf-io\", \"version\": 2}", "version 2 is newer");
	expect_refused("{\"format\": \"revperf-io\", \"version\": \"1\"}", "\"version\" must be");
	expect_refused("{\"format\": \"revperf-io\", \"version\": 1}",
		       "x.io.json: command: missing");

#define MUTATE(stmt, fragment)                                                                     \
	do {                                                                                       \
		json_t *d = json_deep_copy(doc);                                                   \
		stmt;                                                                              \
		bad = json_dumps(d, JSON_PRESERVE_ORDER);                                          \
		expect_refused(bad, fragment);                                                     \
		free(bad);                                                                         \
		json_decref(d);                                                                    \
	} while (0)
#define ENTRY(i) json_array_get(json_object_get(d, "entries"), i)
#define FRAME(i, k) json_array_get(json_object_get(ENTRY(i), "frames"), k)
	MUTATE(json_object_set_new(ENTRY(0), "calls", json_integer(-1)),
	       "entries[0].calls: expected a non-negative integer");
	MUTATE(json_object_del(ENTRY(1), "bytes"), "entries[1].bytes: missing");
	MUTATE(json_object_set_new(ENTRY(0), "calls", json_integer(0)),
	       "entries[0].bytes: bytes written by no call");
	MUTATE(json_object_set_new(ENTRY(1), "errors", json_integer(3)),
	       "entries[1].errors: more failed or unfinished calls than calls");
	MUTATE(json_object_set_new(ENTRY(0), "dir", json_string("sideways")),
	       "entries[0].dir: expected \"write\" or \"read\"");
	MUTATE(json_object_set_new(FRAME(0, 2), "addr", json_string("1234")),
	       "entries[0].frames[2].addr: expected a hexadecimal address");
	MUTATE(json_object_set_new(FRAME(0, 1), "module", json_string("")),
	       "entries[0].frames[1].module: expected a non-empty string");
	MUTATE(json_object_set_new(FRAME(0, 0), "inlined", json_integer(1)),
	       "entries[0].frames[0].inlined: expected true or false");
	MUTATE(json_object_set_new(d, "status", json_string("fine")), "status: unknown run status");
	MUTATE(json_object_set_new(d, "entries", json_object()), "entries: expected an array");
	MUTATE(json_object_set_new(ENTRY(0), "file", json_stringn("a\0b", 3)),
	       "not allowed without JSON_ALLOW_NUL");
	MUTATE(json_object_set_new(json_array_get(json_object_get(d, "processes"), 0), "pid",
				   json_integer(-5)),
	       "processes[0].pid: expected an integer from 0 to");
#undef MUTATE
	json_decref(doc);
	free(good);
}

static void write_profile(const char *name, uint64_t bytes0, enum run_status status)
{
	struct io_profile p;
	char path[4096];

	sample(&p, "/work/tree", bytes0);
	p.status = status;
	if (status != RUN_OK)
		p.detail = xstrdup("killed by SIGKILL");
	path_in_tmp(path, sizeof(path), name);
	assert_int_equal(io_profile_write(&p, path), RP_OK);
	io_profile_release(&p);
}

static void test_sides_and_compare(void **state)
{
	struct io_profile *base, *target;
	size_t nb, nt, used[2], excluded[2];
	struct spectra_report rep;
	char dir_a[4096], dir_b[4096], name[64];

	(void)state;
	path_in_tmp(dir_a, sizeof(dir_a), "A");
	path_in_tmp(dir_b, sizeof(dir_b), "B");
	assert_int_equal(mkdir(dir_a, 0755), 0);
	assert_int_equal(mkdir(dir_b, 0755), 0);
	assert_false(io_profile_path_is_io(dir_a));
	/* run-2 comes before run-10; a crashed run is read, then left out. */
	for (int i = 1; i <= 10; i++) {
		snprintf(name, sizeof(name), "A/run-%d.io.json", i);
		write_profile(name, 400 + (uint64_t)i, RUN_OK);
	}
	write_profile("B/run-1.io.json", 800, RUN_OK);
	write_profile("B/run-2.io.json", 800, RUN_CRASHED);
	assert_true(io_profile_path_is_io(dir_a));
	assert_int_equal(io_profile_load_runs(dir_a, &base, &nb), RP_OK);
	assert_int_equal(nb, 10);
	assert_true(base[1].entries[0].bytes == 402 && base[9].entries[0].bytes == 410);
	assert_int_equal(io_profile_load_runs(dir_b, &target, &nt), RP_OK);
	assert_int_equal(nt, 2);
	assert_int_equal(
	    io_profiles_compare(base, nb, target, nt, IOTRACE_WRITE, NULL, &rep, used, excluded),
	    RP_OK);
	assert_true(used[0] == 10 && excluded[0] == 0 && used[1] == 1 && excluded[1] == 1);
	/* The log row: 100.25 .. 102.5 B/call, now 200: outside, SC 0, Impact 97.5. */
	assert_int_equal(rep.nr_rows, 2);
	assert_string_equal(rep.rows[0].stack, "main;log_line;_IO_fflush;__write");
	assert_true(rep.rows[0].sc == 0.0);
	assert_true(rep.rows[0].lo == 100.25 && rep.rows[0].hi == 102.5);
	assert_true(rep.rows[0].impact == 97.5 && rep.rows[0].total_impact == 4 * 97.5);
	spectra_report_release(&rep);
	/* Only the crashed run as target: nothing to compare. */
	assert_int_equal(
	    io_profiles_compare(base, nb, target + 1, 1, IOTRACE_WRITE, NULL, &rep, used, excluded),
	    RP_EINPUT);
	spectra_report_release(&rep);
	io_profiles_free(base, nb);
	io_profiles_free(target, nt);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_keys),
	    cmocka_unit_test(test_reader_errors),
	    cmocka_unit_test(test_sides_and_compare),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
