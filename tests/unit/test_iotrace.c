/*
 * The I/O tracer (collect/iotrace.h) on real programs: tests/workloads/io_modes.c built here
 * by gcc at -O0 and -O2 (and -static when libc.a exists), python3, sh, cat. Attribution is
 * checked against the ELF symbol table of the workload (libelf): the innermost frame in
 * the workload must lie inside the function that made the call, or that called stdio.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "collect/iotrace.h"
#include "collect/proc.h"
#include "util/common.h"

#define WORKLOAD_SRC TESTDATA_DIR "/../workloads/io_modes.c"
#define LIB_SRC TESTDATA_DIR "/../workloads/io_lib.c"

static char tmpdir[] = "/tmp/revperf-test-iotrace-XXXXXX";

/* The workload builds: -O0, -O2, and -O2 -static (empty when libc.a is missing). */
enum build { B_O0, B_O2, B_STATIC, NR_BUILDS };
static const char *const build_flags[NR_BUILDS] = {"-O0", "-O2", "-O2 -static"};
static char exe[NR_BUILDS][PATH_MAX];
static char libc_path[PATH_MAX];
static char lib_so[PATH_MAX];	     /* tests/workloads/io_lib.c as a shared library */
static const char *sh_name = "dash"; /* the file name of /bin/sh's target */
static char sh_path[PATH_MAX];

/* ---- helpers ---- */

static void path_in_tmp(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	ret = system(cmd.buf);
	strbuf_release(&cmd);
	return ret;
}

/* Runs the NULL-terminated argument list under the tracer, stdout/stderr to /dev/null. */
static int trace_v(struct iotrace_result *res, struct iotrace_options *opts, va_list ap)
{
	const char *argv[16];
	size_t n = 0;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), ret;

	while (n < ARRAY_SIZE(argv) - 1 && (argv[n] = va_arg(ap, const char *)))
		n++;
	argv[n] = NULL;
	if (opts->out_fd < 0)
		opts->out_fd = devnull;
	if (opts->timeout_s == 0)
		opts->timeout_s = 120; /* a hang fails the test instead of blocking ctest */
	/* Every stack of every test is unwound by the fast path and by libdwfl, compared. */
	opts->verify_unwind = true;
	ret = iotrace_run((char *const *)argv, opts, res);
	close(devnull);
	assert_int_equal(res->unwind_mismatches, 0);
	return ret;
}

__attribute__((sentinel)) static int trace_opts(struct iotrace_result *res,
						struct iotrace_options *opts, ...)
{
	va_list ap;
	int ret;

	va_start(ap, opts);
	ret = trace_v(res, opts, ap);
	va_end(ap);
	return ret;
}

/* With the default options; the argument list ends with NULL. */
__attribute__((sentinel)) static int trace(struct iotrace_result *res, ...)
{
	struct iotrace_options opts;
	va_list ap;
	int ret;

	iotrace_options_init(&opts);
	va_start(ap, res);
	ret = trace_v(res, &opts, ap);
	va_end(ap);
	return ret;
}

/* [lo, hi) of the function symbol `name` in the ELF file path (.symtab, then .dynsym). */
static bool sym_range(const char *path, const char *name, uint64_t *lo, uint64_t *hi)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	bool found = false;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s && !strcmp(s, name)) {
				*lo = sym.st_value;
				*hi = sym.st_value + sym.st_size;
				found = true;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

static bool frame_in(const struct iotrace_frame *f, const char *module, const char *fn)
{
	uint64_t lo = 0, hi = 0;

	if (strcmp(f->module, module))
		return false;
	assert_true(sym_range(module, fn, &lo, &hi));
	return f->file_vaddr >= lo && f->file_vaddr < hi;
}

/* The index of the innermost frame in module, or -1. */
static int innermost_in(const struct iotrace_entry *e, const char *module)
{
	for (size_t i = 0; i < e->nr_frames; i++)
		if (!strcmp(e->frames[i].module, module))
			return (int)i;
	return -1;
}

/* The entries that wrote to file, into found[] (at most max); returns how many. */
static size_t entries_for(const struct iotrace_result *r, const char *file,
			  const struct iotrace_entry **found, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nr_entries; i++)
		if (!strcmp(r->entries[i].file, file) && r->entries[i].dir == IOTRACE_WRITE &&
		    n < max)
			found[n++] = &r->entries[i];
	return n;
}

/* The one entry whose innermost workload frame is inside fn. */
static const struct iotrace_entry *entry_by_function(const struct iotrace_result *r,
						     const char *module, const char *fn)
{
	const struct iotrace_entry *hit = NULL;

	for (size_t i = 0; i < r->nr_entries; i++) {
		int k = innermost_in(&r->entries[i], module);

		if (k >= 0 && frame_in(&r->entries[i].frames[k], module, fn)) {
			assert_null(hit);
			hit = &r->entries[i];
		}
	}
	assert_non_null(hit);
	return hit;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static bool have_build(enum build b)
{
	if (exe[b][0])
		return true;
	printf("skipped: no static libc (libc.a) to link the -static workload\n");
	return false;
}

/* The state letter of a process (/proc/PID/stat), 0 when it is gone. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512];
	const char *s;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	s = strrchr(buf, ')');
	return s && s[1] ? s[2] : 0;
}

/*
 * No process of the run is left running or stopped. An orphan whose parent died is
 * reaped by init, not by us: it may still be a zombie for a moment.
 */
static void assert_all_gone(const struct iotrace_result *r)
{
	for (size_t i = 0; i < r->nr_procs; i++) {
		char st = proc_state(r->procs[i].pid);

		assert_true(r->procs[i].exited);
		if (st && st != 'Z' && st != 'X')
			fail_msg("process %d is still there, state %c", (int)r->procs[i].pid, st);
	}
}

/* ---- attribution ---- */

static void check_direct(enum build b)
{
	struct iotrace_result r;
	const struct iotrace_entry *e[4];
	char out[PATH_MAX];
	int k;

	path_in_tmp(out, sizeof(out), "direct.out");
	unlink(out);
	assert_int_equal(trace(&r, exe[b], "direct", out, "1000", "10", NULL), 0);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(entries_for(&r, out, e, 4), 1);
	assert_int_equal(e[0]->calls, 1000);
	assert_int_equal(e[0]->bytes, 10000);
	assert_int_equal(e[0]->errors, 0);
	assert_int_equal(e[0]->unfinished, 0);
	assert_int_equal(file_size(out), 10000);
	assert_string_equal(e[0]->syscall, "write");
	assert_false(e[0]->truncated);
	/* Innermost: libc's write (for -static, inside the program itself). */
	k = innermost_in(e[0], exe[b]);
	if (b == B_STATIC) {
		assert_true(frame_in(&e[0]->frames[0], exe[b], "__libc_write") ||
			    frame_in(&e[0]->frames[0], exe[b], "write"));
		k = 1;
	} else {
		assert_true(frame_in(&e[0]->frames[0], libc_path, "write"));
		assert_int_equal(k, 1);
	}
	assert_true(frame_in(&e[0]->frames[k], exe[b], "direct_writer"));
	assert_true(frame_in(&e[0]->frames[k + 1], exe[b], "main"));
	assert_int_equal(r.nr_procs, 1);
	assert_true(r.procs[0].exited);
	assert_string_equal(r.procs[0].exe, exe[b]);
	/* gcc's code and glibc's have simple call frame rules: the fast path did them all. */
	assert_int_equal(r.unwinds_fast, 1000);
	assert_int_equal(r.unwinds_libdw, 0);
	iotrace_result_release(&r);
}

static void test_direct_O0(void **state)
{
	UNUSED(state);
	check_direct(B_O0);
}

static void test_direct_O2(void **state)
{
	UNUSED(state);
	check_direct(B_O2);
}

static void test_direct_static(void **state)
{
	UNUSED(state);
	if (have_build(B_STATIC))
		check_direct(B_STATIC);
}

static void check_stdio(enum build b)
{
	struct iotrace_result r;
	const struct iotrace_entry *e[4];
	char out[PATH_MAX];
	int k;

	path_in_tmp(out, sizeof(out), "stdio.out");
	unlink(out);
	assert_int_equal(trace(&r, exe[b], "stdio", out, "200", NULL), 0);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(entries_for(&r, out, e, 4), 1);
	assert_int_equal(e[0]->calls, 200);
	assert_int_equal(e[0]->bytes, 200 * strlen("line 000000\n"));
	/* write, then stdio's internals in libc, then the caller of fflush. */
	k = innermost_in(e[0], exe[b]);
	if (b == B_STATIC) {
		k = -1;
		for (size_t i = 0; i < e[0]->nr_frames && k < 0; i++)
			if (frame_in(&e[0]->frames[i], exe[b], "stdio_writer"))
				k = (int)i;
	} else {
		assert_true(frame_in(&e[0]->frames[0], libc_path, "write"));
		for (int i = 0; i < k; i++)
			assert_string_equal(e[0]->frames[i].module, libc_path);
	}
	assert_true(k >= 3); /* write < _IO_new_file_write < new_do_write < ... */
	assert_true(frame_in(&e[0]->frames[k], exe[b], "stdio_writer"));
	iotrace_result_release(&r);
}

static void test_stdio_O0(void **state)
{
	UNUSED(state);
	check_stdio(B_O0);
}

static void test_stdio_O2(void **state)
{
	UNUSED(state);
	check_stdio(B_O2);
}

static void test_stdio_static(void **state)
{
	UNUSED(state);
	if (have_build(B_STATIC))
		check_stdio(B_STATIC);
}

static void test_threads_apart(void **state)
{
	struct iotrace_result r;
	const struct iotrace_entry *a, *b;
	char out[PATH_MAX];

	UNUSED(state);
	path_in_tmp(out, sizeof(out), "threads.out");
	for (int bi = B_O0; bi <= B_O2; bi++) {
		unlink(out);
		assert_int_equal(trace(&r, exe[bi], "threads", out, "300", NULL), 0);
		assert_int_equal(r.status, RUN_OK);
		a = entry_by_function(&r, exe[bi], "thread_a_writer");
		b = entry_by_function(&r, exe[bi], "thread_b_writer");
		assert_ptr_not_equal(a, b);
		assert_string_equal(a->file, out);
		assert_string_equal(b->file, out);
		assert_int_equal(a->calls, 300);
		assert_int_equal(a->bytes, 900);
		assert_int_equal(b->calls, 300);
		assert_int_equal(b->bytes, 1500);
		assert_int_equal(file_size(out), 2400);
		iotrace_result_release(&r);
	}
}

static void test_fork_child(void **state)
{
	struct iotrace_result r;
	const struct iotrace_entry *p, *c;
	char out[PATH_MAX];

	UNUSED(state);
	path_in_tmp(out, sizeof(out), "fork.out");
	unlink(out);
	assert_int_equal(trace(&r, exe[B_O2], "fork", out, "50", NULL), 0);
	assert_int_equal(r.status, RUN_OK);
	p = entry_by_function(&r, exe[B_O2], "parent_writer");
	c = entry_by_function(&r, exe[B_O2], "child_writer");
	assert_int_equal(p->calls, 50);
	assert_int_equal(p->bytes, 50 * 11);
	assert_int_equal(c->calls, 50);
	assert_int_equal(c->bytes, 50 * 13);
	assert_int_equal(r.nr_procs, 2);
	assert_int_equal(r.procs[1].ppid, r.procs[0].pid);
	assert_true(r.procs[1].exited);
	assert_true(WIFEXITED(r.procs[1].wstatus));
	assert_int_equal(WEXITSTATUS(r.procs[1].wstatus), 3);
	assert_int_equal(r.procs[1].execs, 0);
	assert_string_equal(r.procs[1].exe, exe[B_O2]);
	assert_false(r.stragglers_killed);
	iotrace_result_release(&r);
}

/*
 * Children that run, write and exit before their parent's fork event is read: each is
 * counted once, and none is waited for after it is gone (that would hang the run).
 */
static void test_fork_storm(void **state)
{
	struct iotrace_result r;
	struct iotrace_options o;
	const struct iotrace_entry *c;
	char out[PATH_MAX];

	UNUSED(state);
	path_in_tmp(out, sizeof(out), "forks.out");
	for (int round = 0; round < 3; round++) {
		unlink(out);
		iotrace_options_init(&o);
		o.timeout_s = 30;
		assert_int_equal(trace_opts(&r, &o, exe[B_O2], "forks", out, "200", NULL), 0);
		assert_int_equal(r.status, RUN_OK);
		c = entry_by_function(&r, exe[B_O2], "child_writer");
		assert_int_equal(c->calls, 200);
		assert_int_equal(c->bytes, 200 * 13);
		assert_int_equal(r.nr_procs, 201);
		assert_all_gone(&r);
		iotrace_result_release(&r);
	}
}

static void test_two_files_apart(void **state)
{
	struct iotrace_result r;
	const struct iotrace_entry *a[4], *b[4];
	char fa[PATH_MAX], fb[PATH_MAX];

	UNUSED(state);
	path_in_tmp(fa, sizeof(fa), "two-a.out");
	path_in_tmp(fb, sizeof(fb), "two-b.out");
	unlink(fa);
	unlink(fb);
	/* -O0: one call site (-O2 unrolls the loop over the two files). */
	assert_int_equal(trace(&r, exe[B_O0], "two", fa, fb, "40", NULL), 0);
	assert_int_equal(entries_for(&r, fa, a, 4), 1);
	assert_int_equal(entries_for(&r, fb, b, 4), 1);
	assert_int_equal(a[0]->calls, 40);
	assert_int_equal(a[0]->bytes, 280);
	assert_int_equal(b[0]->calls, 40);
	assert_int_equal(b[0]->bytes, 280);
	/* The same stack: only the file keeps them apart. */
	assert_int_equal(a[0]->nr_frames, b[0]->nr_frames);
	for (size_t i = 0; i < a[0]->nr_frames; i++) {
		assert_ptr_equal(a[0]->frames[i].module, b[0]->frames[i].module);
		assert_int_equal(a[0]->frames[i].file_vaddr, b[0]->frames[i].file_vaddr);
	}
	assert_true(frame_in(&a[0]->frames[1], exe[B_O0], "two_file_writer"));
	iotrace_result_release(&r);
}

static void test_exec_followed(void **state)
{
	struct iotrace_result r;
	const struct iotrace_entry *e[4];
	char out[PATH_MAX];

	UNUSED(state);
	path_in_tmp(out, sizeof(out), "exec.out");
	unlink(out);
	assert_int_equal(trace(&r, exe[B_O0], "exec", out, "25", NULL), 0);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(entries_for(&r, out, e, 4), 1);
	assert_int_equal(e[0]->calls, 25);
	assert_int_equal(e[0]->bytes, 25 * 9);
	assert_true(frame_in(&e[0]->frames[1], exe[B_O0], "direct_writer"));
	assert_int_equal(r.nr_procs, 1);
	assert_int_equal(r.procs[0].execs, 2);
	iotrace_result_release(&r);
}

/* A library mapped after the session began: the modules are read again. */
static void test_dlopen_module(void **state)
{
	struct iotrace_result r;
	const struct iotrace_entry *e;
	char out[PATH_MAX];

	UNUSED(state);
	path_in_tmp(out, sizeof(out), "dlopen.out");
	assert_int_equal(trace(&r, exe[B_O2], "dlopen", lib_so, out, "30", NULL), 0);
	assert_int_equal(r.status, RUN_OK);
	e = entry_by_function(&r, lib_so, "lib_writer");
	assert_int_equal(innermost_in(e, lib_so), 1);
	assert_int_equal(e->calls, 30);
	assert_int_equal(e->bytes, 240);
	assert_string_equal(e->file, out);
	/* and the caller, in the program, was placed too */
	assert_string_equal(e->frames[2].module, exe[B_O2]);
	iotrace_result_release(&r);
}

static void test_depth_capped(void **state)
{
	struct iotrace_result r;
	struct iotrace_options o;
	const struct iotrace_entry *e[4];
	char out[PATH_MAX];

	UNUSED(state);
	path_in_tmp(out, sizeof(out), "depth.out");
	iotrace_options_init(&o);
	o.max_depth = 2;
	assert_int_equal(trace_opts(&r, &o, exe[B_O2], "direct", out, "5", "1", NULL), 0);
	assert_int_equal(entries_for(&r, out, e, 4), 1);
	assert_int_equal(e[0]->nr_frames, 2);
	assert_true(e[0]->truncated);
	assert_true(frame_in(&e[0]->frames[1], exe[B_O2], "direct_writer"));
	iotrace_result_release(&r);
}

/* ---- programs not written in C ---- */

/* The first module of an entry's stack whose file name starts with prefix. */
static bool has_module(const struct iotrace_entry *e, const char *prefix)
{
	for (size_t i = 0; i < e->nr_frames; i++) {
		const char *base = strrchr(e->frames[i].module, '/');

		if (base && !strncmp(base + 1, prefix, strlen(prefix)))
			return true;
	}
	return false;
}

static void test_python(void **state)
{
	static const char script[] = "import os, sys\n"
				     "f = open(sys.argv[1], 'w')\n"
				     "f.write('x' * 100)\n"
				     "f.flush()\n"
				     "os.write(f.fileno(), b'y' * 50)\n"
				     "f.close()\n";
	struct iotrace_result r;
	const struct iotrace_entry *e[8];
	char out[PATH_MAX];
	uint64_t bytes = 0, calls = 0;
	size_t n;

	UNUSED(state);
	if (access("/usr/bin/python3", X_OK)) {
		printf("skipped: no /usr/bin/python3\n");
		return;
	}
	path_in_tmp(out, sizeof(out), "python.out");
	assert_int_equal(trace(&r, "python3", "-c", script, out, NULL), 0);
	assert_int_equal(r.status, RUN_OK);
	n = entries_for(&r, out, e, 8);
	assert_true(n >= 1);
	for (size_t i = 0; i < n; i++) {
		bytes += e[i]->bytes;
		calls += e[i]->calls;
		/* Native frames: libc's write, called from the interpreter. */
		assert_true(e[i]->nr_frames >= 3);
		assert_string_equal(e[i]->frames[0].module, libc_path);
		assert_true(has_module(e[i], "python3") || has_module(e[i], "libpython3"));
	}
	assert_int_equal(bytes, 150);
	assert_int_equal(calls, 2);
	iotrace_result_release(&r);
}

static void test_sh_pipeline(void **state)
{
	struct iotrace_result r;
	const struct iotrace_entry *e[4];
	struct strbuf cmd = STRBUF_INIT;
	char out[PATH_MAX];
	bool pipe_seen = false;

	UNUSED(state);
	path_in_tmp(out, sizeof(out), "sh.out");
	strbuf_addf(&cmd, "echo hello | cat > '%s'", out);
	assert_int_equal(trace(&r, "sh", "-c", cmd.buf, NULL), 0);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(entries_for(&r, out, e, 4), 1);
	assert_int_equal(e[0]->calls, 1);
	assert_int_equal(e[0]->bytes, 6);
	assert_true(has_module(e[0], "cat"));
	for (size_t i = 0; i < r.nr_entries; i++)
		if (!strncmp(r.entries[i].file, "pipe:[", 6) && r.entries[i].bytes == 6 &&
		    has_module(&r.entries[i], sh_name))
			pipe_seen = true;
	assert_true(pipe_seen);
	/* sh, its two forks, one of which became cat. */
	assert_true(r.nr_procs >= 3);
	for (size_t i = 0; i < r.nr_procs; i++)
		assert_true(r.procs[i].exited);
	strbuf_release(&cmd);
	iotrace_result_release(&r);
}

static void test_reads_on_request(void **state)
{
	struct iotrace_result r;
	struct iotrace_options o;
	char in[PATH_MAX];
	uint64_t read_bytes = 0;

	UNUSED(state);
	path_in_tmp(in, sizeof(in), "reads.in");
	assert_int_equal(sh("head -c 10000 /dev/zero > '%s'", in), 0);
	iotrace_options_init(&o);
	o.reads = true;
	assert_int_equal(trace_opts(&r, &o, "cat", in, NULL), 0);
	for (size_t i = 0; i < r.nr_entries; i++)
		if (r.entries[i].dir == IOTRACE_READ && !strcmp(r.entries[i].file, in))
			read_bytes += r.entries[i].bytes;
	assert_int_equal(read_bytes, 10000);
	assert_int_equal(iotrace_total_bytes(&r, IOTRACE_WRITE), 10000);
	iotrace_result_release(&r);

	/* Without the option: writes only. */
	assert_int_equal(trace(&r, "cat", in, NULL), 0);
	for (size_t i = 0; i < r.nr_entries; i++)
		assert_int_equal(r.entries[i].dir, IOTRACE_WRITE);
	assert_int_equal(iotrace_total_bytes(&r, IOTRACE_READ), 0);
	iotrace_result_release(&r);
}

/* ---- robustness ---- */

static void test_not_found(void **state)
{
	struct iotrace_result r;

	UNUSED(state);
	assert_int_equal(trace(&r, "/nonexistent/revperf-no-such-program", NULL), 0);
	assert_int_equal(r.status, RUN_NOT_STARTED);
	assert_non_null(strstr(r.detail, "cannot execute '/nonexistent/revperf-no-such-program'"));
	assert_non_null(strstr(r.detail, "No such file or directory"));
	assert_int_equal(r.nr_entries, 0);
	assert_int_equal(r.nr_procs, 1);
	assert_true(r.procs[0].exited);
	assert_int_equal(WEXITSTATUS(r.procs[0].wstatus), 127);
	iotrace_result_release(&r);

	/* Found in PATH, but no such directory to run it in. */
	{
		struct iotrace_options o;

		iotrace_options_init(&o);
		o.cwd = "/nonexistent/dir";
		assert_int_equal(trace_opts(&r, &o, "true", NULL), 0);
		assert_int_equal(r.status, RUN_NOT_STARTED);
		assert_non_null(strstr(r.detail, "/nonexistent/dir"));
		iotrace_result_release(&r);
	}
}

static void test_bad_options(void **state)
{
	struct iotrace_result r;
	struct iotrace_options o;
	char *empty[] = {NULL};

	UNUSED(state);
	iotrace_options_init(&o);
	assert_int_equal(iotrace_run(empty, &o, &r), RP_EINPUT);
	iotrace_result_release(&r);
	o.max_depth = IOTRACE_MAX_DEPTH + 1;
	assert_int_equal(trace_opts(&r, &o, "true", NULL), RP_EINPUT);
	iotrace_result_release(&r);
	iotrace_options_init(&o);
	o.timeout_s = -1;
	assert_int_equal(iotrace_run((char *[]){(char *)"true", NULL}, &o, &r), RP_EINPUT);
	iotrace_result_release(&r);
	iotrace_result_release(NULL);
}

static void test_closed_stdout(void **state)
{
	struct iotrace_result r;
	const struct iotrace_entry *e[4];

	UNUSED(state);
	assert_int_equal(trace(&r, exe[B_O2], "closed-stdout", NULL), 0);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(entries_for(&r, "fd 1 (not open)", e, 4), 1);
	assert_int_equal(e[0]->calls, 1);
	assert_int_equal(e[0]->bytes, 0);
	assert_int_equal(e[0]->errors, 1);
	assert_int_equal(e[0]->last_errno, EBADF);
	iotrace_result_release(&r);
}

static const struct iotrace_entry *pipe_entry(const struct iotrace_result *r)
{
	for (size_t i = 0; i < r->nr_entries; i++)
		if (!strncmp(r->entries[i].file, "pipe:[", 6))
			return &r->entries[i];
	return NULL;
}

static void test_sigpipe(void **state)
{
	struct iotrace_result r;
	const struct iotrace_entry *e;

	UNUSED(state);
	assert_int_equal(trace(&r, exe[B_O2], "sigpipe", NULL), 0);
	assert_int_equal(r.status, RUN_CRASHED);
	assert_int_equal(r.signal, SIGPIPE);
	e = pipe_entry(&r);
	assert_non_null(e);
	assert_int_equal(e->calls, 1);
	assert_int_equal(e->bytes, 0);
	assert_int_equal(e->errors, 1);
	assert_int_equal(e->last_errno, EPIPE);
	assert_true(WIFSIGNALED(r.procs[0].wstatus));
	iotrace_result_release(&r);
}

static void test_killed_in_write(void **state)
{
	struct iotrace_result r;
	uint64_t unfinished = 0, eagain = 0, bytes = 0;

	UNUSED(state);
	assert_int_equal(trace(&r, exe[B_O2], "blocked-alarm", NULL), 0);
	assert_int_equal(r.status, RUN_CRASHED);
	assert_int_equal(r.signal, SIGALRM);
	for (size_t i = 0; i < r.nr_entries; i++) {
		if (strncmp(r.entries[i].file, "pipe:[", 6))
			continue;
		unfinished += r.entries[i].unfinished;
		eagain += r.entries[i].last_errno == EAGAIN;
		bytes += r.entries[i].bytes;
	}
	/* The pipe was filled (the last write said EAGAIN), then one write never returned. */
	assert_int_equal(unfinished, 1);
	assert_int_equal(eagain, 1);
	assert_true(bytes >= 4096);
	iotrace_result_release(&r);
}

static void test_timeout_kills_tree(void **state)
{
	struct iotrace_result r;
	struct iotrace_options o;

	UNUSED(state);
	iotrace_options_init(&o);
	o.timeout_s = 0.5;
	assert_int_equal(trace_opts(&r, &o, exe[B_O2], "ignore-term", NULL), 0);
	assert_int_equal(r.status, RUN_TIMEOUT);
	assert_int_equal(r.signal, SIGKILL);
	assert_non_null(strstr(r.detail, "timed out after 0.500 s"));
	assert_int_equal(r.nr_procs, 2);
	assert_true(r.wall_ns >= INT64_C(500000000));
	assert_true(r.wall_ns < INT64_C(20000000000));
	assert_all_gone(&r);
	assert_true(WIFSIGNALED(r.procs[1].wstatus));
	assert_int_equal(WTERMSIG(r.procs[1].wstatus), SIGKILL);
	iotrace_result_release(&r);
}

static void test_multithreaded_exit(void **state)
{
	struct iotrace_result r;
	uint64_t calls = 0;

	UNUSED(state);
	for (int round = 0; round < 3; round++) {
		assert_int_equal(trace(&r, exe[B_O2], "mt-exit", "4", NULL), 0);
		assert_int_equal(r.status, RUN_FAILED);
		assert_int_equal(r.exit_code, 5);
		for (size_t i = 0; i < r.nr_entries; i++) {
			const struct iotrace_entry *e = &r.entries[i];

			if (strcmp(e->file, "/dev/null"))
				continue;
			/* One byte per completed call; the rest died inside their call. */
			assert_int_equal(e->bytes + e->unfinished + e->errors, e->calls);
			assert_true(e->unfinished <= 4);
			calls += e->calls;
		}
		assert_all_gone(&r);
		iotrace_result_release(&r);
	}
	assert_true(calls > 0);
}

static void test_stragglers_killed(void **state)
{
	struct iotrace_result r;

	UNUSED(state);
	/* sh exits at once; its background child would sleep for a minute. */
	assert_int_equal(trace(&r, "sh", "-c", "sleep 60 & echo started", NULL), 0);
	assert_int_equal(r.status, RUN_OK);
	assert_true(r.stragglers_killed);
	assert_true(r.wall_ns < INT64_C(30000000000));
	assert_true(r.nr_procs >= 2);
	assert_all_gone(&r);
	iotrace_result_release(&r);
}

static void test_interrupted(void **state)
{
	struct iotrace_result r;

	UNUSED(state);
	interrupt_reset();
	interrupt_install();
	/* The program's parent is the tracer: the test process. */
	assert_int_equal(trace(&r, "sh", "-c", "kill -INT $PPID; exec sleep 60", NULL), 0);
	assert_int_equal(r.status, RUN_INTERRUPTED);
	assert_true(r.wall_ns < INT64_C(30000000000));
	assert_all_gone(&r);
	iotrace_result_release(&r);
	interrupt_reset();
	signal(SIGINT, SIG_DFL);
}

/* ---- setup ---- */

static int setup(void **state)
{
	char path[PATH_MAX];

	UNUSED(state);
	if (!mkdtemp(tmpdir))
		return -1;
	for (int b = 0; b < NR_BUILDS; b++) {
		char name[32];

		snprintf(name, sizeof(name), "io_modes_%d", b);
		path_in_tmp(path, sizeof(path), name);
		if (sh("gcc -g %s -pthread -o '%s' '%s' 2>/dev/null", build_flags[b], path,
		       WORKLOAD_SRC)) {
			if (b == B_STATIC)
				continue;
			fprintf(stderr, "cannot build %s\n", WORKLOAD_SRC);
			return -1;
		}
		if (!realpath(path, exe[b]))
			return -1;
	}
	path_in_tmp(path, sizeof(path), "io_lib.so");
	if (sh("gcc -g -O2 -shared -fPIC -o '%s' '%s'", path, LIB_SRC) || !realpath(path, lib_so))
		return -1;
	if (realpath("/bin/sh", sh_path))
		sh_name = strrchr(sh_path, '/') + 1;
	if (!realpath("/lib/x86_64-linux-gnu/libc.so.6", libc_path)) {
		fprintf(stderr, "no /lib/x86_64-linux-gnu/libc.so.6\n");
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	UNUSED(state);
	return sh("rm -rf '%s'", tmpdir) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_direct_O0),	       cmocka_unit_test(test_direct_O2),
	    cmocka_unit_test(test_direct_static),      cmocka_unit_test(test_stdio_O0),
	    cmocka_unit_test(test_stdio_O2),	       cmocka_unit_test(test_stdio_static),
	    cmocka_unit_test(test_threads_apart),      cmocka_unit_test(test_fork_child),
	    cmocka_unit_test(test_fork_storm),	       cmocka_unit_test(test_two_files_apart),
	    cmocka_unit_test(test_exec_followed),      cmocka_unit_test(test_dlopen_module),
	    cmocka_unit_test(test_depth_capped),       cmocka_unit_test(test_python),
	    cmocka_unit_test(test_sh_pipeline),	       cmocka_unit_test(test_reads_on_request),
	    cmocka_unit_test(test_not_found),	       cmocka_unit_test(test_bad_options),
	    cmocka_unit_test(test_closed_stdout),      cmocka_unit_test(test_sigpipe),
	    cmocka_unit_test(test_killed_in_write),    cmocka_unit_test(test_timeout_kills_tree),
	    cmocka_unit_test(test_multithreaded_exit), cmocka_unit_test(test_stragglers_killed),
	    cmocka_unit_test(test_interrupted),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
