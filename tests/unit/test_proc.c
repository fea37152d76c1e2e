/*
 * The runner (collect/proc.h) on real processes. The test binary is also its own fixture
 * workload: run as `test_proc --burn MS` (and friends, see workload_main()) it burns CPU,
 * touches memory or reports on its environment, so that no extra program has to be built.
 * The runs go through revperf-spawn of the same build: $REVPERF_SPAWN, else the one in
 * the build directory, the parent of this binary's directory (see main()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
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

#include "collect/cmdline.h"
#include "collect/proc.h"
#include "collect/sampler.h"
#include "util/common.h"
#include "util/input.h"

#include "capture_stderr.h"

#define MS INT64_C(1000000)
#define MIB (1024 * 1024)

static char self_exe[PATH_MAX];
static char tmpdir[] = "/tmp/revperf-test-proc-XXXXXX";

/* ---- the fixture workloads, run in child processes ---- */

/* What --burn computes: stored where the compiler must keep every addition, and never read. */
static volatile uint64_t burn_sink;

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int workload_main(int argc, char **argv)
{
	const char *mode = argv[1];
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 0;

	if (!strcmp(mode, "--burn")) {
		/* Busy until n ms of CPU time were used: user time, whatever the machine load. */
		double end = cpu_seconds() + (double)n / 1000.0;

		while (cpu_seconds() < end)
			for (int i = 0; i < 10000; i++)
				burn_sink += (uint64_t)i;
		return 0;
	}
	if (!strcmp(mode, "--touch")) {
		size_t size = (size_t)n * MIB;
		char *p = malloc(size);

		if (!p)
			return 2;
		memset(p, 1, size);
		printf("%d\n", p[size / 2]);
		free(p);
		return 0;
	}
	if (!strcmp(mode, "--pgid-check")) {
		printf("%s\n", getpid() == getpgrp() ? "leader" : "member");
		return 0;
	}
	if (!strcmp(mode, "--stdin-check")) {
		char c;

		printf("%s\n", read(STDIN_FILENO, &c, 1) == 0 ? "stdin-eof" : "stdin-data");
		return 0;
	}
	if (!strcmp(mode, "--pwd")) {
		char cwd[PATH_MAX];

		printf("%s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
		return 0;
	}
	fprintf(stderr, "unknown workload %s\n", mode);
	return 2;
}

/* ---- helpers ---- */

static void run(const char *command, ns_t timeout_ns, bool perf, const char *log,
		struct proc_result *r)
{
	struct proc_spec spec = {
	    .command = command,
	    .log_path = log,
	    .timeout_ns = timeout_ns,
	    .perf_counters = perf,
	};

	assert_int_equal(proc_run(&spec, r), 0);
}

/* "'<this test binary>' ARGS" */
static void self_command(struct strbuf *sb, const char *args)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "'%s' %s", self_exe, args);
}

static void tmp_path(struct strbuf *sb, const char *name)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%s/%s", tmpdir, name);
}

static void read_text(const char *path, struct strbuf *sb)
{
	strbuf_reset(sb);
	assert_int_equal(input_read(sb, path, &input_state), 0);
}

/*
 * No process of the run's group is left, not even a zombie (kill() finds zombies too), and
 * no zombie child of ours: our only child is the spawner, which is alive.
 */
static void assert_group_gone(const struct proc_result *r)
{
	assert_true(r->pid > 0);
	assert_int_equal(kill(-r->pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_true(waitpid(-1, NULL, WNOHANG) <= 0);
}

/* VmRSS of this process in KiB. */
static long self_rss_kb(void)
{
	struct strbuf status = STRBUF_INIT;
	const char *line;
	long kb;

	read_text("/proc/self/status", &status);
	line = strstr(status.buf, "VmRSS:");
	assert_non_null(line);
	kb = strtol(line + 6, NULL, 10);
	strbuf_release(&status);
	return kb;
}

static ns_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ns_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- exit statuses ---- */

static void test_true_ok(void **state)
{
	struct proc_result r;

	UNUSED(state);
	run("true", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(r.exit_code, 0);
	assert_false(r.shell);
	assert_true(r.m.wall_ns > 0);
	assert_true(r.m.io_valid);
	assert_string_equal(r.detail, "");
	assert_group_gone(&r);
}

static void test_false_failed(void **state)
{
	struct proc_result r;

	UNUSED(state);
	run("false", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_FAILED);
	assert_int_equal(r.exit_code, 1);
	assert_string_equal(r.detail, "exited with status 1");
}

static void test_exit_via_shell(void **state)
{
	struct proc_result r;

	UNUSED(state);
	run("exit 3", 0, false, NULL, &r);
	assert_true(r.shell);
	assert_int_equal(r.status, RUN_FAILED);
	assert_int_equal(r.exit_code, 3);
}

static void test_signal_crashed(void **state)
{
	struct proc_result r;

	UNUSED(state);
	run("kill -SEGV $$", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_CRASHED);
	assert_int_equal(r.signal, SIGSEGV);
	assert_non_null(strstr(r.detail, "killed by SIGSEGV"));
	assert_group_gone(&r);
}

/* ---- runs that cannot start ---- */

static void test_command_not_found(void **state)
{
	struct proc_result r;
	char *path = xstrdup(getenv("PATH") ? getenv("PATH") : "");

	UNUSED(state);
	/* A PATH directory we may not search would make execvp report EACCES instead. */
	setenv("PATH", "/usr/bin:/bin", 1);
	run("revperf-no-such-command-4711 --flag", 0, false, NULL, &r);
	setenv("PATH", path, 1);
	free(path);
	assert_int_equal(r.status, RUN_NOT_STARTED);
	assert_non_null(strstr(r.detail, "revperf-no-such-command-4711"));
	assert_non_null(strstr(r.detail, strerror(ENOENT)));
	assert_group_gone(&r);
}

static void test_not_executable(void **state)
{
	struct strbuf path = STRBUF_INIT;
	struct proc_result r;
	FILE *f;

	UNUSED(state);
	tmp_path(&path, "not-executable");
	f = fopen(path.buf, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	assert_int_equal(chmod(path.buf, 0644), 0);
	run(path.buf, 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_NOT_STARTED);
	assert_non_null(strstr(r.detail, strerror(EACCES)));
	strbuf_release(&path);
}

static void test_missing_cwd(void **state)
{
	struct proc_spec spec = {.command = "true", .cwd = "/nonexistent/revperf-cwd"};
	struct proc_result r;

	UNUSED(state);
	assert_int_equal(proc_run(&spec, &r), 0);
	assert_int_equal(r.status, RUN_NOT_STARTED);
	assert_non_null(strstr(r.detail, "/nonexistent/revperf-cwd"));
	assert_non_null(strstr(r.detail, strerror(ENOENT)));
}

static void test_log_not_writable(void **state)
{
	struct proc_spec spec = {.command = "true", .log_path = "/nonexistent/dir/log"};
	struct proc_result r;

	UNUSED(state);
	assert_int_equal(proc_run(&spec, &r), -1);
	assert_int_equal(r.pid, -1);
}

/* ---- the process guard ---- */

static void test_timeout(void **state)
{
	struct proc_result r;
	ns_t start = now_ns();

	UNUSED(state);
	run("sleep 10", 200 * MS, false, NULL, &r);
	assert_int_equal(r.status, RUN_TIMEOUT);
	assert_int_equal(r.signal, SIGTERM);
	assert_non_null(strstr(r.detail, "timed out"));
	/* Not a timing assertion: only that the guard acted long before sleep would end. */
	assert_true(now_ns() - start < 5000 * MS);
	assert_true(r.m.wall_ns >= 200 * MS);
	assert_group_gone(&r);
}

static void test_timeout_term_ignored(void **state)
{
	struct proc_result r;

	UNUSED(state);
	/* Both the shell and sleep ignore SIGTERM: only the SIGKILL after 1 s ends them. */
	run("trap '' TERM; sleep 10; true", 200 * MS, false, NULL, &r);
	assert_int_equal(r.status, RUN_TIMEOUT);
	assert_int_equal(r.signal, SIGKILL);
	assert_non_null(strstr(r.detail, "SIGKILL"));
	assert_true(r.m.wall_ns >= 1000 * MS);
	assert_group_gone(&r);
}

static void test_straggler_killed(void **state)
{
	struct proc_result r;
	ns_t start = now_ns();

	UNUSED(state);
	run("sleep 30 & exit 0", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_true(r.stragglers_killed);
	assert_true(now_ns() - start < 5000 * MS);
	/* The orphaned sleep came back to us (subreaper) and was reaped, not left a zombie. */
	assert_group_gone(&r);
}

/* The pid in pidfile (written by the run), or -1. */
static pid_t read_pid(const char *pidfile)
{
	struct strbuf text = STRBUF_INIT;
	long pid = -1;

	if (strbuf_read_file(&text, pidfile, 1 << 10) == 0)
		pid = strtol(text.buf, NULL, 10);
	strbuf_release(&text);
	return pid > 1 ? (pid_t)pid : -1;
}

/* True while pid runs: exists and is not a zombie (a zombie's parent is init by now). */
static bool pid_alive(pid_t pid)
{
	struct strbuf path = STRBUF_INIT, stat = STRBUF_INIT;
	const char *paren;
	bool alive;

	strbuf_addf(&path, "/proc/%d/stat", (int)pid);
	alive = strbuf_read_file(&stat, path.buf, 1 << 12) == 0 &&
		(paren = strrchr(stat.buf, ')')) && paren[1] && paren[2] != 'Z';
	strbuf_release(&path);
	strbuf_release(&stat);
	return alive;
}

/*
 * Processes that left the group (setsid; one with a child of its own, one that ignores
 * SIGTERM) do not outlive the run: they are killed and counted, the run stays ok.
 */
static void check_escaped(const char *inner, int want_killed)
{
	struct strbuf cmd = STRBUF_INIT, pidfile = STRBUF_INIT, notes = STRBUF_INIT;
	struct proc_result r;
	pid_t pid;

	tmp_path(&pidfile, "escaped.pid");
	unlink(pidfile.buf);
	/*
	 * It has left the group before the child exits: the shell waits for its pid (written
	 * by one write() of a builtin: no process of its own to be counted).
	 */
	strbuf_addf(&cmd,
		    "setsid sh -c 'echo $$ > %s; %s' & while [ ! -s %s ]; do sleep 0.01; done",
		    pidfile.buf, inner, pidfile.buf);
	run(cmd.buf, 0, false, NULL, &r);
	pid = read_pid(pidfile.buf);
	assert_true(pid > 0);
	if (pid_alive(pid))
		kill(pid, SIGKILL);
	assert_false(pid_alive(pid));
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(r.escaped_killed, want_killed);
	assert_int_equal(r.escaped_left, 0);
	proc_result_notes(&r, &notes);
	assert_non_null(strstr(
	    notes.buf, want_killed == 1 ? "1 process escaped the process group and was killed"
					: "processes escaped the process group and were killed"));
	assert_group_gone(&r);
	strbuf_release(&cmd);
	strbuf_release(&pidfile);
	strbuf_release(&notes);
}

static void test_escaped_killed(void **state)
{
	UNUSED(state);
	check_escaped("exec sleep 30", 1);
	/* The shell and its sleep: both are below the spawner, in the new session. */
	check_escaped("sleep 30; true", 2);
	/* SIGTERM ignored: SIGKILL after the grace period. */
	check_escaped("trap \"\" TERM; sleep 30; true", 2);
	proc_wait_fallback_force(true);
	check_escaped("exec sleep 30", 1);
	proc_wait_fallback_force(false);
}

/* Nothing escaped, nothing noted. */
static void test_nothing_escaped(void **state)
{
	struct strbuf notes = STRBUF_INIT;
	struct proc_result r;

	UNUSED(state);
	run("sleep 0 & wait", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(r.escaped_killed, 0);
	proc_result_notes(&r, &notes);
	assert_int_equal(notes.len, 0);
	strbuf_release(&notes);
}

static void test_no_straggler(void **state)
{
	struct proc_result r;

	UNUSED(state);
	run("sleep 0; true", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_false(r.stragglers_killed);
}

static void fire_sigint_after(timer_t *timer, ns_t delay)
{
	struct sigevent sev;
	struct itimerspec its;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGINT;
	assert_int_equal(timer_create(CLOCK_MONOTONIC, &sev, timer), 0);
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = (long)delay;
	assert_int_equal(timer_settime(*timer, 0, &its, NULL), 0);
}

static void check_interrupt(void)
{
	struct proc_result r;
	timer_t timer;
	ns_t start = now_ns();

	interrupt_install();
	interrupt_reset();
	fire_sigint_after(&timer, 150 * MS);
	run("sleep 10", 0, false, NULL, &r);
	timer_delete(timer);
	assert_true(interrupt_requested());
	assert_int_equal(interrupt_signal(), SIGINT);
	assert_int_equal(r.status, RUN_INTERRUPTED);
	assert_int_equal(r.signal, SIGTERM);
	assert_non_null(strstr(r.detail, "interrupted by SIGINT"));
	assert_true(now_ns() - start < 5000 * MS);
	assert_group_gone(&r);

	/* Once interrupted, nothing new is started. */
	run("true", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_INTERRUPTED);
	assert_int_equal(r.pid, -1);
	assert_string_equal(r.detail, "not started: interrupted by SIGINT");

	interrupt_reset();
	assert_false(interrupt_requested());
	run("true", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
}

static void test_interrupt(void **state)
{
	UNUSED(state);
	check_interrupt();
}

static void test_wait_fallback(void **state)
{
	struct proc_result r;

	UNUSED(state);
	proc_wait_fallback_force(true);
	run("true", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	run("exit 3", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_FAILED);
	assert_int_equal(r.exit_code, 3);
	run("sleep 10", 200 * MS, false, NULL, &r);
	assert_int_equal(r.status, RUN_TIMEOUT);
	assert_group_gone(&r);
	run("sleep 30 & exit 0", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_true(r.stragglers_killed);
	assert_group_gone(&r);
	check_interrupt();
	proc_wait_fallback_force(false);
}

/* ---- metrics of the whole process tree ---- */

static void test_cpu_direct_and_grandchild(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	struct proc_result r;

	UNUSED(state);
	self_command(&cmd, "--burn 100");
	run(cmd.buf, 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_false(r.shell);
	assert_true(r.m.user_ns > 50 * MS);

	/* Through sh, which waits for the burner: its CPU time is the grandchild's. */
	self_command(&cmd, "--burn 100; true");
	run(cmd.buf, 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_true(r.shell);
	assert_true(r.m.user_ns > 50 * MS);
	assert_true(r.m.wall_ns >= r.m.user_ns / 2);
	strbuf_release(&cmd);
}

static void test_grandchild_writes(void **state)
{
	struct strbuf out = STRBUF_INIT, cmd = STRBUF_INIT;
	struct proc_result r;
	struct stat st;

	UNUSED(state);
	tmp_path(&out, "dd.out");
	strbuf_addf(&cmd, "dd if=/dev/zero of='%s' bs=1M count=4 2>/dev/null; true", out.buf);
	run(cmd.buf, 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(stat(out.buf, &st), 0);
	assert_int_equal(st.st_size, 4 * MIB);
	assert_true(r.m.io_valid);
	assert_true(r.m.wchar >= 4 * MIB);
	assert_true(r.m.rchar >= 4 * MIB);

	/* Read directly (no shell): rchar of the child itself. */
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "dd if='%s' of=/dev/null bs=65536", out.buf);
	run(cmd.buf, 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_false(r.shell);
	assert_true(r.m.io_valid);
	assert_true(r.m.rchar >= 4 * MIB);
	strbuf_release(&cmd);
	strbuf_release(&out);
}

static void test_maxrss(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	struct proc_result r;

	UNUSED(state);
	self_command(&cmd, "--touch 64; true");
	run(cmd.buf, 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_true(r.m.maxrss_kb >= 60000);
	assert_true(r.m.minflt >= 60 * MIB / 4096 / 2);

	run("true", 0, false, NULL, &r);
	assert_true(r.m.maxrss_kb > 0);
	assert_true(r.m.maxrss_kb < 60000);
	strbuf_release(&cmd);
}

/*
 * What the spawner is for: a child forked by revperf itself reported at least revperf's
 * RSS, because Linux carries the high-water RSS of the child's pre-exec copy of its parent
 * into ru_maxrss. Here the parent holds 64 MiB; the child's max RSS must not show them.
 */
static void check_maxrss_excludes_parent(long parent_kb)
{
	struct proc_result r;

	/* dd reads /dev/zero into one 8 MiB buffer (every page touched); no sanitizer runtime. */
	run("dd if=/dev/zero of=/dev/null bs=8M count=1", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_false(r.shell);
	assert_true(r.m.maxrss_kb >= 8 * 1024);
	assert_true(r.m.maxrss_kb < 20 * 1024);
	/* Through sh, which waits for dd: the tree's max is dd's. */
	run("dd if=/dev/zero of=/dev/null bs=8M count=1 2>/dev/null; true", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_true(r.shell);
	assert_true(r.m.maxrss_kb >= 8 * 1024);
	assert_true(r.m.maxrss_kb < 20 * 1024);
	run("/bin/true", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_true(r.m.maxrss_kb > 0);
	assert_true(r.m.maxrss_kb < parent_kb / 8);
}

static void test_maxrss_excludes_parent(void **state)
{
	size_t size = 64 * MIB;
	char *ballast = malloc(size);
	long parent_kb;

	UNUSED(state);
	assert_non_null(ballast);
	memset(ballast, 1, size);
	parent_kb = self_rss_kb();
	assert_true(parent_kb >= 64 * 1024);
	check_maxrss_excludes_parent(parent_kb);
	proc_wait_fallback_force(true);
	check_maxrss_excludes_parent(parent_kb);
	proc_wait_fallback_force(false);
	/* The ballast stays alive (and touched) until all runs are done. */
	assert_int_equal(ballast[size / 2], 1);
	free(ballast);
}

static void test_task_clock(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	bool supported[PERF_COUNTER_MAX];
	struct proc_result r;
	double cpu_ns, tc_ns;

	UNUSED(state);
	proc_perf_probe(supported);
	if (!supported[PERF_TASK_CLOCK]) {
		print_message("skipped: perf_event_open(task-clock) refused here "
			      "(perf_event_paranoid 3 or seccomp)\n");
		skip();
	}
	self_command(&cmd, "--burn 100; true");
	run(cmd.buf, 0, true, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_true(r.m.perf_supported[PERF_TASK_CLOCK]);
	cpu_ns = (double)(r.m.user_ns + r.m.sys_ns);
	tc_ns = r.m.perf_value[PERF_TASK_CLOCK];
	/* Both include the grandchild; rusage is µs-resolution and includes pre-exec time. */
	assert_true(tc_ns > 50.0 * MS);
	assert_true(fabs(tc_ns - cpu_ns) <= 0.2 * cpu_ns + 10.0 * MS);
	strbuf_release(&cmd);
}

static void test_hw_counters_never_zero(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	bool supported[PERF_COUNTER_MAX];
	struct proc_result r;

	UNUSED(state);
	proc_perf_probe(supported);
	self_command(&cmd, "--burn 20");
	run(cmd.buf, 0, true, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	for (int c = PERF_INSTRUCTIONS; c < PERF_COUNTER_MAX; c++) {
		if (!supported[c]) {
			/* Unsupported is said so, and has no value that could pass for a count. */
			assert_false(r.m.perf_supported[c]);
			assert_true(isnan(r.m.perf_value[c]));
		} else if (r.m.perf_supported[c] && c != PERF_CACHE_MISSES) {
			assert_true(r.m.perf_value[c] > 0);
		}
	}
	/* Not asked for: nothing reported. */
	run("true", 0, false, NULL, &r);
	for (int c = 0; c < PERF_COUNTER_MAX; c++) {
		assert_false(r.m.perf_supported[c]);
		assert_true(isnan(r.m.perf_value[c]));
	}
	assert_string_equal(perf_counter_name(PERF_TASK_CLOCK), "task-clock");
	assert_string_equal(perf_counter_name(PERF_BRANCH_MISSES), "branch-misses");
	strbuf_release(&cmd);
}

/* ---- the child's environment ---- */

static void test_log_output(void **state)
{
	struct strbuf log = STRBUF_INIT, text = STRBUF_INIT;
	struct proc_result r;

	UNUSED(state);
	tmp_path(&log, "run.log");
	run("echo out; echo err >&2", 0, false, log.buf, &r);
	assert_int_equal(r.status, RUN_OK);
	run("echo direct", 0, false, log.buf, &r);
	assert_false(r.shell);
	run("echo out; echo err >&2", 0, false, log.buf, &r);
	read_text(log.buf, &text);
	/* Appended, stdout and stderr interleaved in order. */
	assert_string_equal(text.buf, "out\nerr\ndirect\nout\nerr\n");
	strbuf_release(&text);
	strbuf_release(&log);
}

/*
 * The log limit: of an output longer than the limit the log keeps the beginning and the
 * last quarter of the limit (64 KiB at most), with a line between them; the rest is counted.
 * A shorter output is copied unchanged.
 */
static void test_log_limit(void **state)
{
	struct strbuf log = STRBUF_INIT, text = STRBUF_INIT;
	struct proc_spec spec = {.command = NULL};
	struct proc_result r;
	const char *cut = "\n[revperf: output beyond the log limit was not kept; its end follows]\n";
	char *p;

	UNUSED(state);
	tmp_path(&log, "limited.log");
	spec.log_path = log.buf;
	spec.log_limit_bytes = 16384;
	/* 100000 bytes: "first\n", 99988 x 'x', "\nlast\n" */
	spec.command = "printf 'first\\n'; head -c 99988 /dev/zero | tr '\\0' x; printf '\\nlast\\n'";
	assert_int_equal(proc_run(&spec, &r), 0);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(r.output_bytes, 100000);
	assert_int_equal(r.output_dropped, 100000 - 16384);
	read_text(log.buf, &text);
	assert_int_equal(text.len, 16384 + strlen(cut));
	assert_memory_equal(text.buf, "first\nxxx", 9);
	p = strstr(text.buf, cut);
	assert_non_null(p);
	assert_int_equal(p - text.buf, 16384 - 4096); /* the beginning: the limit less the end */
	assert_string_equal(text.buf + text.len - 6, "\nlast\n");

	/* Within the limit: byte for byte, appended after the first run, no note. */
	spec.command = "echo short";
	assert_int_equal(proc_run(&spec, &r), 0);
	assert_int_equal(r.output_bytes, 6);
	assert_int_equal(r.output_dropped, 0);
	read_text(log.buf, &text);
	assert_int_equal(text.len, 16384 + strlen(cut) + 6);
	assert_string_equal(text.buf + text.len - 12, "\nlast\nshort\n");
	strbuf_release(&text);
	strbuf_release(&log);
}

static void test_child_environment(void **state)
{
	struct strbuf log = STRBUF_INIT, text = STRBUF_INIT, cmd = STRBUF_INIT;
	struct proc_spec spec = {.command = NULL};
	struct proc_result r;
	char real_tmp[PATH_MAX];

	UNUSED(state);
	tmp_path(&log, "env.log");
	self_command(&cmd, "--stdin-check");
	run(cmd.buf, 0, false, log.buf, &r);
	/* Exec'd directly, the workload leads its own group; through sh it is a member. */
	self_command(&cmd, "--pgid-check");
	run(cmd.buf, 0, false, log.buf, &r);
	self_command(&cmd, "--pgid-check; true");
	run(cmd.buf, 0, false, log.buf, &r);
	self_command(&cmd, "--pwd");
	spec.command = cmd.buf;
	spec.cwd = tmpdir;
	spec.log_path = log.buf;
	assert_int_equal(proc_run(&spec, &r), 0);
	assert_int_equal(r.status, RUN_OK);
	assert_non_null(realpath(tmpdir, real_tmp));
	read_text(log.buf, &text);
	strbuf_reset(&cmd);
	strbuf_addf(&cmd, "stdin-eof\nleader\nmember\n%s\n", real_tmp);
	assert_string_equal(text.buf, cmd.buf);
	strbuf_release(&cmd);
	strbuf_release(&text);
	strbuf_release(&log);
}

/* The environment, directory and umask at the time of the run, not at the spawner's start. */
static void test_child_current_state(void **state)
{
	struct strbuf log = STRBUF_INIT, text = STRBUF_INIT, cmd = STRBUF_INIT, want = STRBUF_INIT;
	struct proc_spec spec = {.command = NULL};
	struct proc_result r;
	char old_cwd[PATH_MAX], real_tmp[PATH_MAX];
	mode_t old_mask;

	UNUSED(state);
	tmp_path(&log, "state.log");
	run("true", 0, false, NULL, &r); /* the spawner runs already */
	setenv("REVPERF_TEST_VALUE", "one", 1);
	run("echo $REVPERF_TEST_VALUE", 0, false, log.buf, &r);
	setenv("REVPERF_TEST_VALUE", "two", 1);
	run("echo $REVPERF_TEST_VALUE", 0, false, log.buf, &r);
	unsetenv("REVPERF_TEST_VALUE");
	run("echo \"[$REVPERF_TEST_VALUE]\"", 0, false, log.buf, &r);
	assert_non_null(getcwd(old_cwd, sizeof(old_cwd)));
	assert_int_equal(chdir(tmpdir), 0);
	assert_int_equal(mkdir("sub", 0755), 0);
	self_command(&cmd, "--pwd");
	spec.command = cmd.buf;
	spec.log_path = log.buf;
	/* A relative directory is relative to ours. */
	spec.cwd = "sub";
	assert_int_equal(proc_run(&spec, &r), 0);
	assert_int_equal(r.status, RUN_OK);
	spec.cwd = NULL;
	assert_int_equal(proc_run(&spec, &r), 0);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(chdir(old_cwd), 0);
	old_mask = umask(027);
	run("umask", 0, false, log.buf, &r);
	umask(old_mask);
	assert_non_null(realpath(tmpdir, real_tmp));
	strbuf_addf(&want, "one\ntwo\n[]\n%s/sub\n%s\n0027\n", real_tmp, real_tmp);
	read_text(log.buf, &text);
	assert_string_equal(text.buf, want.buf);
	strbuf_release(&want);
	strbuf_release(&cmd);
	strbuf_release(&text);
	strbuf_release(&log);
}

/* env_set adds variables and replaces same-named ones; the rest of environ is kept. */
static void test_child_env_set(void **state)
{
	struct strbuf log = STRBUF_INIT, text = STRBUF_INIT;
	const char *const env[] = {"REVPERF_TEST_A=new", "REVPERF_TEST_B=b=c", NULL};
	struct proc_spec spec = {
	    .command = "echo \"$REVPERF_TEST_A|$REVPERF_TEST_B|$REVPERF_TEST_C|$REVPERF_TEST_AB\""};
	struct proc_result r;

	UNUSED(state);
	tmp_path(&log, "envset.log");
	setenv("REVPERF_TEST_A", "old", 1);
	setenv("REVPERF_TEST_C", "kept", 1);
	setenv("REVPERF_TEST_AB", "prefix", 1); /* shares a prefix with A: not replaced */
	spec.log_path = log.buf;
	spec.env_set = env;
	assert_int_equal(proc_run(&spec, &r), 0);
	assert_int_equal(r.status, RUN_OK);
	unsetenv("REVPERF_TEST_A");
	unsetenv("REVPERF_TEST_C");
	unsetenv("REVPERF_TEST_AB");
	read_text(log.buf, &text);
	assert_string_equal(text.buf, "new|b=c|kept|prefix\n");
	strbuf_release(&text);
	strbuf_release(&log);
}

/* ---- the spawner ---- */

/* proc_run() of "true" with REVPERF_SPAWN=path: fails at once, with the message in *err. */
static void check_bad_spawner(const char *path, struct strbuf *err)
{
	struct proc_spec spec = {.command = "true"};
	char *saved_env = xstrdup(getenv("REVPERF_SPAWN")), *printed;
	struct stderr_capture cap;
	struct proc_result r;
	ns_t start = now_ns();
	int ret;

	proc_spawner_stop();
	setenv("REVPERF_SPAWN", path, 1);
	capture_stderr_begin(&cap);
	ret = proc_run(&spec, &r);
	printed = capture_stderr_end(&cap);
	setenv("REVPERF_SPAWN", saved_env, 1);
	free(saved_env);
	assert_int_equal(ret, -1);
	assert_int_equal(r.pid, -1);
	/* Not a timing assertion: only that it did not hang. */
	assert_true(now_ns() - start < 5000 * MS);
	strbuf_reset(err);
	strbuf_addstr(err, printed);
	free(printed);
	assert_non_null(strstr(err->buf, path));
}

static void test_spawner_missing(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct proc_result r;

	UNUSED(state);
	check_bad_spawner("/nonexistent/revperf-spawn", &err);
	assert_non_null(strstr(err.buf, "cannot use the process spawner"));
	assert_non_null(strstr(err.buf, strerror(ENOENT)));
	assert_non_null(strstr(err.buf, "REVPERF_SPAWN"));
	/* A program that is not a spawner: it exits without the hello. */
	check_bad_spawner("/bin/true", &err);
	assert_non_null(strstr(err.buf, "exited at its start"));
	/* The right one again: runs work. */
	run("true", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	strbuf_release(&err);
}

/* The spawner killed during a run (by the benchmark: its parent is the spawner). */
static void check_spawner_killed(void)
{
	struct proc_spec spec = {.command = "kill -9 $PPID; sleep 5"};
	struct stderr_capture cap;
	struct proc_result r;
	ns_t start = now_ns();
	char *err;
	int ret;

	capture_stderr_begin(&cap);
	ret = proc_run(&spec, &r);
	err = capture_stderr_end(&cap);
	assert_int_equal(ret, -1);
	assert_true(now_ns() - start < 4000 * MS);
	assert_non_null(strstr(err, "the process spawner"));
	assert_non_null(strstr(err, "stopped while"));
	assert_non_null(strstr(err, "killed by signal 9"));
	assert_int_equal(kill(-r.pid, 0), -1);
	/* The next run starts a new spawner. */
	run("true", 0, false, NULL, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_group_gone(&r);
	free(err);
}

static void test_spawner_killed(void **state)
{
	UNUSED(state);
	check_spawner_killed();
	proc_wait_fallback_force(true);
	check_spawner_killed();
	proc_wait_fallback_force(false);
}

/* ---- command lines ---- */

static void test_shell_syntax_table(void **state)
{
	static const struct {
		const char *command;
		bool shell;
	} cases[] = {
	    {"true", false},
	    {"./build/bench compress data/sample.bin", false},
	    {"  bench\t--n=1000  ", false},
	    {"bench 'a b' \"c d\"", false},
	    {"bench key=value", false},
	    {"bench -x 1,2 a:b @f %g ^h +i", false},
	    {"echo $HOME", true},
	    {"echo `date`", true},
	    {"a | b", true},
	    {"a && b", true},
	    {"a & b", true},
	    {"a; b", true},
	    {"a < in", true},
	    {"a > out", true},
	    {"(a)", true},
	    {"ls *.c", true},
	    {"ls ?.c", true},
	    {"ls [ab].c", true},
	    {"ls ~", true},
	    {"echo {a,b}", true},
	    {"a # comment", true},
	    {"a\nb", true},
	    {"echo a\\ b", true},
	    {"echo \"$HOME\"", true},
	    {"echo \"a\\\"b\"", true},
	    {"echo 'unterminated", true},
	    {"FOO=1 bench", true},
	    {"exit 3", true},
	    {"cd /tmp", true},
	    {"if", true},
	    {". ./env", true},
	    {"", true},
	    {"   ", true},
	    {"! false", true},
	    {"echo '$HOME | x'", false},
	};

	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (cmdline_needs_shell(cases[i].command) != cases[i].shell)
			fail_msg("case %zu: \"%s\" should %sneed a shell", i, cases[i].command,
				 cases[i].shell ? "" : "not ");
	}
}

static void test_split(void **state)
{
	static const struct {
		const char *command;
		const char *words[5];
	} cases[] = {
	    {"true", {"true"}},
	    {"  a\tb  c ", {"a", "b", "c"}},
	    {"bench 'a b' \"c d\"", {"bench", "a b", "c d"}},
	    {"a x'y z'w \"\" ''", {"a", "xy zw", "", ""}},
	    {"a '$HOME|*'", {"a", "$HOME|*"}},
	};

	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char **argv = cmdline_split(cases[i].command);
		size_t n = 0;

		assert_non_null(argv);
		for (; cases[i].words[n]; n++) {
			assert_non_null(argv[n]);
			assert_string_equal(argv[n], cases[i].words[n]);
		}
		assert_null(argv[n]);
		cmdline_free(argv);
	}
	assert_null(cmdline_split("a | b"));
	cmdline_free(NULL);
}

static void test_status_names(void **state)
{
	UNUSED(state);
	assert_string_equal(run_status_name(RUN_OK), "ok");
	assert_string_equal(run_status_name(RUN_FAILED), "failed");
	assert_string_equal(run_status_name(RUN_CRASHED), "crashed");
	assert_string_equal(run_status_name(RUN_TIMEOUT), "timeout");
	assert_string_equal(run_status_name(RUN_NOT_STARTED), "not-started");
	assert_string_equal(run_status_name(RUN_INTERRUPTED), "interrupted");
	assert_string_equal(run_status_name((enum run_status)42), "unknown");
}

/* ---- counter sampling (collect/sampler.h, tests/unit/test_sampler.c) ---- */

static void run_sampling(const char *command, ns_t timeout_ns, const char *log,
			 struct run_samples *rs, struct proc_result *r)
{
	struct proc_spec spec = {
	    .command = command,
	    .log_path = log,
	    .timeout_ns = timeout_ns,
	    .sample_interval_ns = 50 * MS,
	    .samples = rs,
	};

	assert_int_equal(proc_run(&spec, r), 0);
}

/* Without an interval, the samples are not touched and the child writes to the log. */
static void test_sampling_off(void **state)
{
	struct strbuf log = STRBUF_INIT, text = STRBUF_INIT;
	struct run_samples rs;
	struct proc_spec spec = {.command = "echo revperf-counter a 1", .samples = &rs};
	struct proc_result r;

	UNUSED(state);
	tmp_path(&log, "sampling-off.log");
	spec.log_path = log.buf;
	run_samples_init(&rs);
	assert_int_equal(proc_run(&spec, &r), 0);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(rs.nr, 0);
	assert_true(rs.interval_s == 0);
	assert_int_equal(r.counter_lines, 0);
	read_text(log.buf, &text);
	assert_string_equal(text.buf, "revperf-counter a 1\n");
	strbuf_release(&log);
	strbuf_release(&text);
}

/* Sampling without a place for the samples, or into a used one: a bug, nothing started. */
static void test_sampling_needs_empty_samples(void **state)
{
	struct stderr_capture cap;
	struct run_samples rs;
	struct proc_spec spec = {.command = "true", .sample_interval_ns = 50 * MS};
	struct proc_result r;
	int ret[2];
	char *err;

	UNUSED(state);
	run_samples_init(&rs);
	capture_stderr_begin(&cap);
	ret[0] = proc_run(&spec, &r);
	run_samples_add(&rs, "x", NULL, 0, 1);
	spec.samples = &rs;
	ret[1] = proc_run(&spec, &r);
	err = capture_stderr_end(&cap);
	assert_int_equal(ret[0], -1);
	assert_int_equal(ret[1], -1);
	assert_int_equal(rs.nr, 1);
	assert_int_equal(r.pid, -1);
	assert_non_null(strstr(err, "revperf: error: sampling needs an empty"));
	run_samples_release(&rs);
	free(err);
}

/* Counter lines without a log file: parsed, the output discarded. */
static void test_sampling_no_log(void **state)
{
	struct run_samples rs;
	struct proc_result r;
	const struct sample_series *a;

	UNUSED(state);
	run_samples_init(&rs);
	run_sampling("echo revperf-counter a 1; echo 'revperf-counter a 2' >&2; echo x", 0, NULL,
		     &rs, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(r.counter_lines, 2);
	a = run_samples_find(&rs, "a");
	assert_non_null(a);
	assert_int_equal(a->n, 2);
	assert_true(a->v[0] == 1 && a->v[1] == 2);
	assert_true(rs.interval_s == 0.05);
	run_samples_release(&rs);
}

/*
 * CPU seconds the cpu_user samples add up to: each sample is the rate over the interval
 * since the previous tick, the first one since the first tick (which only takes gauges).
 */
static double sampled_cpu_user_s(const struct run_samples *rs)
{
	const struct sample_series *cpu = run_samples_find(rs, "cpu_user");
	const struct sample_series *procs = run_samples_find(rs, "processes");
	double sum = 0, prev_t;

	assert_non_null(cpu);
	assert_non_null(procs);
	prev_t = procs->t[0];
	for (size_t i = 0; i < cpu->n; i++) {
		sum += cpu->v[i] * (cpu->t[i] - prev_t);
		prev_t = cpu->t[i];
	}
	return sum;
}

/*
 * The sampled CPU utilisation adds up to the CPU time rusage reports, whatever share of a
 * core the burner gets: the workload burns 300 ms of CPU, not of wall time.
 * The sampler does not see the CPU before its first tick (at 50 ms, later when the sampler
 * itself waits for a core) nor after its last one (less than half an interval: the final
 * tick), and /proc counts in clock ticks (10 ms). Measured with both cores kept busy (load
 * 8-10, 28 runs, wall 0.48-1.9 s): user 0.217-0.288 s, the samples 0.013-0.034 s below it,
 * never above. The margins: at most 20 ms above (two tick roundings), at most half below,
 * four times the largest loss measured; a sampler that misses the process, or counts in the
 * wrong unit (ticks, percent), is off by far more.
 */
static void test_sampling_cpu(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	struct run_samples rs;
	struct proc_result r;
	double user_s, sampled_s;

	UNUSED(state);
	self_command(&cmd, "--burn 300");
	run_samples_init(&rs);
	run_sampling(cmd.buf, 0, NULL, &rs, &r);
	assert_int_equal(r.status, RUN_OK);
	user_s = (double)r.m.user_ns / 1e9;
	sampled_s = sampled_cpu_user_s(&rs);
	assert_true(user_s > 0.1);
	assert_true(sampled_s <= user_s + 0.020);
	assert_true(sampled_s >= user_s / 2);
	run_samples_release(&rs);
	strbuf_release(&cmd);
}

/*
 * The sampler ticks until the guard ends the run. The burner's share of a core is not
 * asserted here (on a busy machine it got 0.02-0.17 s of CPU in these 0.4 s, once too
 * little for a single /proc tick): test_sampling_cpu checks the CPU on a fixed amount of it.
 */
static void test_sampling_timeout(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	const struct sample_series *cpu;
	struct run_samples rs;
	struct proc_result r;
	ns_t start = now_ns();

	UNUSED(state);
	self_command(&cmd, "--burn 20000");
	run_samples_init(&rs);
	run_sampling(cmd.buf, 400 * MS, NULL, &rs, &r);
	assert_int_equal(r.status, RUN_TIMEOUT);
	assert_int_equal(r.signal, SIGTERM);
	assert_true(now_ns() - start < 10000 * MS);
	assert_group_gone(&r);
	cpu = run_samples_find(&rs, "cpu_user");
	assert_non_null(cpu);
	/* A tick every 50 ms up to the timeout at 400 ms; a late sampler only moves them later. */
	assert_true(cpu->n >= 3);
	assert_true(cpu->t[cpu->n - 1] >= 0.35);
	assert_true(sampled_cpu_user_s(&rs) <= (double)r.m.user_ns / 1e9 + 0.020);
	assert_true(run_samples_find(&rs, "processes")->v[0] == 1);
	run_samples_release(&rs);
	strbuf_release(&cmd);
}

/* The sampler keeps ticking while the guard waits for a group that ignores SIGTERM. */
static void test_sampling_timeout_term_ignored(void **state)
{
	const struct sample_series *procs;
	struct run_samples rs;
	struct proc_result r;

	UNUSED(state);
	run_samples_init(&rs);
	run_sampling("trap '' TERM; sleep 10; true", 200 * MS, NULL, &rs, &r);
	assert_int_equal(r.status, RUN_TIMEOUT);
	assert_int_equal(r.signal, SIGKILL);
	assert_group_gone(&r);
	procs = run_samples_find(&rs, "processes");
	assert_non_null(procs);
	assert_true(procs->t[procs->n - 1] > 0.9);
	assert_true(procs->v[0] == 2); /* sh and sleep */
	run_samples_release(&rs);
}

static void test_sampling_interrupt(void **state)
{
	struct run_samples rs;
	struct proc_result r;
	timer_t timer;
	ns_t start = now_ns();

	UNUSED(state);
	interrupt_install();
	interrupt_reset();
	run_samples_init(&rs);
	fire_sigint_after(&timer, 250 * MS);
	run_sampling("sleep 10", 0, NULL, &rs, &r);
	timer_delete(timer);
	assert_int_equal(r.status, RUN_INTERRUPTED);
	assert_int_equal(r.signal, SIGTERM);
	assert_true(now_ns() - start < 5000 * MS);
	assert_group_gone(&r);
	assert_true(run_samples_find(&rs, "processes")->n >= 2);
	interrupt_reset();
	run_samples_release(&rs);
}

/* A straggler of the group holds the output pipe: killed as before, the pipe ends. */
static void test_sampling_straggler(void **state)
{
	struct strbuf log = STRBUF_INIT, text = STRBUF_INIT;
	struct run_samples rs;
	struct proc_result r;
	ns_t start = now_ns();

	UNUSED(state);
	tmp_path(&log, "sampling-straggler.log");
	run_samples_init(&rs);
	run_sampling("sleep 30 & echo started; exit 0", 0, log.buf, &rs, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_true(r.stragglers_killed);
	assert_false(r.output_cut);
	assert_true(now_ns() - start < 5000 * MS);
	assert_group_gone(&r);
	read_text(log.buf, &text);
	assert_string_equal(text.buf, "started\n");
	run_samples_release(&rs);
	strbuf_release(&log);
	strbuf_release(&text);
}

/* pid of a process that left the run's group, from the file it wrote; killed here. */
static void kill_escaped(const char *pidfile)
{
	struct strbuf text = STRBUF_INIT;
	long pid;

	read_text(pidfile, &text);
	pid = strtol(text.buf, NULL, 10);
	assert_true(pid > 1);
	kill((pid_t)pid, SIGKILL);
	strbuf_release(&text);
}

/*
 * A process that left the group (setsid) keeps the pipe open, silent or writing without
 * end: the runner does not hang. It stops reading after a bounded time (output_cut) or,
 * when the spawner has killed the process by then, at the end of file.
 */
static void test_sampling_escaped_holder(void **state)
{
	static const char *const holders[] = {"exec sleep 30",
					      "while :; do echo spam; sleep 0.01; done"};
	struct strbuf cmd = STRBUF_INIT, pidfile = STRBUF_INIT, log = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT;

	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(holders); i++) {
		struct run_samples rs;
		struct proc_result r;
		ns_t start;

		tmp_path(&pidfile, "escaped.pid");
		unlink(pidfile.buf);
		tmp_path(&log, "escaped.log");
		unlink(log.buf);
		strbuf_reset(&cmd);
		/* It has left the group before the child exits: the shell waits for its pid. */
		strbuf_addf(&cmd,
			    "setsid sh -c 'echo $$ > %s; %s' & "
			    "while [ ! -s %s ]; do sleep 0.01; done; echo hi",
			    pidfile.buf, holders[i], pidfile.buf);
		run_samples_init(&rs);
		start = now_ns();
		run_sampling(cmd.buf, 0, log.buf, &rs, &r);
		kill_escaped(pidfile.buf);
		assert_int_equal(r.status, RUN_OK);
		/* The shell, and its sleep of the moment, if any. */
		assert_true(r.escaped_killed >= 1);
		assert_true(now_ns() - start < 5000 * MS);
		read_text(log.buf, &text);
		assert_non_null(strstr(text.buf, "hi\n"));
		run_samples_release(&rs);
	}
	strbuf_release(&cmd);
	strbuf_release(&pidfile);
	strbuf_release(&log);
	strbuf_release(&text);
}

static void test_sampling_not_started(void **state)
{
	struct run_samples rs;
	struct proc_result r;

	UNUSED(state);
	run_samples_init(&rs);
	run_sampling("/nonexistent/revperf-no-such-program", 0, NULL, &rs, &r);
	assert_int_equal(r.status, RUN_NOT_STARTED);
	assert_non_null(strstr(r.detail, "cannot execute"));
	assert_int_equal(r.counter_lines, 0);
	run_samples_release(&rs);
}

/* Without a pidfd, the spawner's report ends the wait, as without sampling. */
static void test_sampling_wait_fallback(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	struct run_samples rs;
	struct proc_result r;

	UNUSED(state);
	proc_wait_fallback_force(true);
	self_command(&cmd, "--burn 300");
	run_samples_init(&rs);
	run_sampling(cmd.buf, 0, NULL, &rs, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_true(run_samples_find(&rs, "cpu_user")->n >= 2);
	assert_true(run_samples_find(&rs, "processes")->v[0] == 1);
	run_samples_release(&rs);

	run_samples_init(&rs);
	run_sampling("sleep 30 & echo x; exit 0", 0, NULL, &rs, &r);
	assert_int_equal(r.status, RUN_OK);
	assert_true(r.stragglers_killed);
	assert_false(r.output_cut);
	assert_group_gone(&r);
	run_samples_release(&rs);

	run_samples_init(&rs);
	run_sampling("sleep 10", 200 * MS, NULL, &rs, &r);
	assert_int_equal(r.status, RUN_TIMEOUT);
	assert_group_gone(&r);
	run_samples_release(&rs);
	proc_wait_fallback_force(false);
	strbuf_release(&cmd);
}

/*
 * A log file that cannot be written: revperf, which copies the output, warns once; the
 * benchmark, which writes to the pipe, does not see the error.
 */
static void test_sampling_log_full(void **state)
{
	struct stderr_capture cap;
	struct run_samples rs;
	struct proc_result r;
	char *err;

	UNUSED(state);
	if (access("/dev/full", W_OK) < 0)
		skip(); /* no /dev/full in this container */
	run_samples_init(&rs);
	capture_stderr_begin(&cap);
	run_sampling("echo revperf-counter a 1; echo more; echo revperf-counter a 2", 0,
		     "/dev/full", &rs, &r);
	err = capture_stderr_end(&cap);
	assert_int_equal(r.status, RUN_OK);
	assert_int_equal(r.counter_lines, 2);
	assert_non_null(strstr(err, "revperf: warning: cannot write log file '/dev/full'"));
	/* Once. */
	assert_null(strstr(strstr(err, "warning") + 1, "warning"));
	run_samples_release(&rs);
	free(err);
}

static int setup(void **state)
{
	UNUSED(state);
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	struct proc_result r;

	UNUSED(state);
	strbuf_addf(&cmd, "rm -rf '%s'", tmpdir);
	run(cmd.buf, 0, false, NULL, &r);
	strbuf_release(&cmd);
	return r.status == RUN_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_true_ok),
	    cmocka_unit_test(test_false_failed),
	    cmocka_unit_test(test_exit_via_shell),
	    cmocka_unit_test(test_signal_crashed),
	    cmocka_unit_test(test_command_not_found),
	    cmocka_unit_test(test_not_executable),
	    cmocka_unit_test(test_missing_cwd),
	    cmocka_unit_test(test_log_not_writable),
	    cmocka_unit_test(test_timeout),
	    cmocka_unit_test(test_timeout_term_ignored),
	    cmocka_unit_test(test_straggler_killed),
	    cmocka_unit_test(test_no_straggler),
	    cmocka_unit_test(test_escaped_killed),
	    cmocka_unit_test(test_nothing_escaped),
	    cmocka_unit_test(test_interrupt),
	    cmocka_unit_test(test_wait_fallback),
	    cmocka_unit_test(test_cpu_direct_and_grandchild),
	    cmocka_unit_test(test_grandchild_writes),
	    cmocka_unit_test(test_maxrss),
	    cmocka_unit_test(test_maxrss_excludes_parent),
	    cmocka_unit_test(test_task_clock),
	    cmocka_unit_test(test_hw_counters_never_zero),
	    cmocka_unit_test(test_log_output),
	    cmocka_unit_test(test_log_limit),
	    cmocka_unit_test(test_child_environment),
	    cmocka_unit_test(test_child_current_state),
	    cmocka_unit_test(test_child_env_set),
	    cmocka_unit_test(test_spawner_missing),
	    cmocka_unit_test(test_spawner_killed),
	    cmocka_unit_test(test_shell_syntax_table),
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_status_names),
	    cmocka_unit_test(test_sampling_off),
	    cmocka_unit_test(test_sampling_needs_empty_samples),
	    cmocka_unit_test(test_sampling_no_log),
	    cmocka_unit_test(test_sampling_cpu),
	    cmocka_unit_test(test_sampling_timeout),
	    cmocka_unit_test(test_sampling_timeout_term_ignored),
	    cmocka_unit_test(test_sampling_interrupt),
	    cmocka_unit_test(test_sampling_straggler),
	    cmocka_unit_test(test_sampling_escaped_holder),
	    cmocka_unit_test(test_sampling_not_started),
	    cmocka_unit_test(test_sampling_wait_fallback),
	    cmocka_unit_test(test_sampling_log_full),
	};
	ssize_t n;

	if (argc > 1 && !strncmp(argv[1], "--", 2))
		return workload_main(argc, argv);
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0)
		return 1;
	self_exe[n] = '\0';
	if (!getenv("REVPERF_SPAWN")) {
		/* This binary is in <build>/tests, revperf-spawn in <build>. */
		struct strbuf spawn = STRBUF_INIT;

		strbuf_addstr(&spawn, self_exe);
		*strrchr(spawn.buf, '/') = '\0';
		spawn.len = strlen(spawn.buf);
		strbuf_addstr(&spawn, "/../revperf-spawn");
		setenv("REVPERF_SPAWN", spawn.buf, 1);
		strbuf_release(&spawn);
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
