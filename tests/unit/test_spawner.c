/*
 * What the spawner (collect/spawner.h, revperf-spawn) promises the runner beyond a run's
 * outcome, on real processes: it times the run itself, so that revperf's own delays are
 * not in the wall time; a run submitted while another runs starts at that one's exit
 * without revperf, and only after a success; a spawner of another protocol version is
 * refused, not waited for. The runs go through revperf-spawn of the same build:
 * $REVPERF_SPAWN, else the one in the build directory (see main()).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "collect/proc.h"
#include "util/common.h"

#include "capture_stderr.h"

#define MS INT64_C(1000000)

static void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * revperf stopped (SIGSTOP) from 100 ms into a 300 ms run until 2 s later: the spawner
 * took the start time before its fork and the end time at the exit, so the wall time is
 * the run's, not revperf's late wake-up (which measured about 2.1 s here before).
 */
static void test_wall_is_timed_by_the_spawner(void **state)
{
	struct proc_spec spec = {.command = "sleep 0.3"};
	struct proc_result r;
	pid_t self = getpid(), helper;
	int wstatus;

	UNUSED(state);
	/* The spawner is started by a first run, so that the timed one starts at once. */
	spec.command = "true";
	assert_int_equal(proc_run(&spec, &r), 0);
	assert_int_equal(r.status, RUN_OK);
	spec.command = "sleep 0.3";
	helper = fork();
	assert_true(helper >= 0);
	if (helper == 0) {
		sleep_ms(100);
		kill(self, SIGSTOP);
		sleep_ms(2000);
		kill(self, SIGCONT);
		_exit(0);
	}
	assert_int_equal(proc_run(&spec, &r), 0);
	assert_int_equal(waitpid(helper, &wstatus, 0), helper);
	assert_int_equal(r.status, RUN_OK);
	assert_true(r.m.wall_ns >= 300 * MS);
	/* A loaded machine may delay the spawner too, but not by the 2 s revperf slept. */
	assert_true(r.m.wall_ns < 1500 * MS);
}

static int64_t file_ns(const char *path)
{
	FILE *f = fopen(path, "r");
	long long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * A run submitted while another runs starts the moment that one exits, without revperf:
 * revperf is stopped from 100 ms into a 300 ms run until 2 s later, and the next run
 * (which notes the time it ran) has run long before revperf woke up. Its wall time is its
 * own, not the wait in the queue.
 */
static void test_next_run_starts_at_the_exit(void **state)
{
	char dir[] = "/tmp/revperf-test-spawner-XXXXXX";
	struct strbuf cmd = STRBUF_INIT, stamp = STRBUF_INIT;
	struct proc_spec first = {.command = "sleep 0.3"}, second = {0};
	struct proc_handle *h1, *h2;
	struct proc_result r1, r2;
	pid_t self = getpid(), helper;
	int64_t t0;

	UNUSED(state);
	assert_non_null(mkdtemp(dir));
	strbuf_addf(&stamp, "%s/ran", dir);
	/* The shell's own clock would not be CLOCK_MONOTONIC: python's is. */
	strbuf_addf(&cmd,
		    "python3 -c 'import time; open(\"%s\", \"w\").write(str(time.monotonic_ns()))'",
		    stamp.buf);
	second.command = cmd.buf;
	assert_int_equal(proc_run(&first, &r1), 0); /* the spawner is up */
	t0 = mono_ns();
	h1 = proc_submit(&first);
	h2 = proc_submit(&second);
	assert_non_null(h1);
	assert_non_null(h2);
	helper = fork();
	assert_true(helper >= 0);
	if (helper == 0) {
		sleep_ms(100);
		kill(self, SIGSTOP);
		sleep_ms(2000);
		kill(self, SIGCONT);
		_exit(0);
	}
	assert_int_equal(proc_finish(h1, &r1), 0);
	assert_int_equal(proc_finish(h2, &r2), 0);
	assert_int_equal(waitpid(helper, NULL, 0), helper);
	assert_int_equal(r1.status, RUN_OK);
	assert_int_equal(r2.status, RUN_OK);
	assert_false(r2.cancelled);
	assert_true(mono_ns() - t0 >= 2000 * MS); /* revperf did sleep */
	/* It ran while revperf slept (a loaded machine may delay it, not by seconds). */
	assert_true(file_ns(stamp.buf) > t0);
	assert_true(file_ns(stamp.buf) - t0 < 1500 * MS);
	assert_true(r2.m.wall_ns < 1500 * MS);
	unlink(stamp.buf);
	rmdir(dir);
	strbuf_release(&cmd);
	strbuf_release(&stamp);
}

/*
 * Behind a run that did not exit with status 0 (failed, killed, not started), the next
 * one never starts: the spawner cancels it, and it never ran.
 */
static void test_next_run_cancelled_after_a_failure(void **state)
{
	char dir[] = "/tmp/revperf-test-spawner-XXXXXX";
	struct strbuf cmd = STRBUF_INIT, mark = STRBUF_INIT;
	static const char *const before[] = {"false", "kill -9 $$", "/nonexistent/program"};
	struct proc_spec second = {0};

	UNUSED(state);
	assert_non_null(mkdtemp(dir));
	strbuf_addf(&mark, "%s/ran", dir);
	strbuf_addf(&cmd, "touch '%s'", mark.buf);
	second.command = cmd.buf;
	for (size_t i = 0; i < ARRAY_SIZE(before); i++) {
		struct proc_spec first = {.command = before[i]};
		struct proc_handle *h1 = proc_submit(&first), *h2 = proc_submit(&second);
		struct proc_result r1, r2;

		assert_non_null(h1);
		assert_non_null(h2);
		assert_int_equal(proc_finish(h1, &r1), 0);
		assert_int_not_equal(r1.status, RUN_OK);
		assert_false(r1.cancelled);
		assert_int_equal(proc_finish(h2, &r2), 0);
		assert_true(r2.cancelled);
		assert_int_equal(r2.status, RUN_NOT_STARTED);
		assert_int_equal(r2.pid, -1);
		assert_int_equal(access(mark.buf, F_OK), -1);
	}
	/*
	 * Only the run right behind the failure is cancelled: the one submitted behind the
	 * cancelled one was decided knowing of the failure, and runs (a comparison that keeps
	 * one run in flight went on cancelling forever before).
	 */
	{
		struct proc_spec fail = {.command = "false"}, ok = {.command = "true"};
		struct proc_handle *h1 = proc_submit(&fail), *h2 = proc_submit(&ok), *h3;
		struct proc_result r;

		assert_int_equal(proc_finish(h1, &r), 0);
		assert_int_equal(r.status, RUN_FAILED);
		h3 = proc_submit(&second);
		assert_int_equal(proc_finish(h2, &r), 0);
		assert_true(r.cancelled);
		assert_int_equal(proc_finish(h3, &r), 0);
		assert_false(r.cancelled);
		assert_int_equal(r.status, RUN_OK);
		assert_int_equal(access(mark.buf, F_OK), 0);
		unlink(mark.buf);
	}
	/* After a success it runs; and alone again, whatever came before. */
	{
		struct proc_spec ok = {.command = "true"};
		struct proc_handle *h1 = proc_submit(&ok), *h2 = proc_submit(&second);
		struct proc_result r;

		assert_int_equal(proc_finish(h1, &r), 0);
		assert_int_equal(proc_finish(h2, &r), 0);
		assert_int_equal(r.status, RUN_OK);
		assert_int_equal(access(mark.buf, F_OK), 0);
	}
	unlink(mark.buf);
	rmdir(dir);
	strbuf_release(&cmd);
	strbuf_release(&mark);
}

/*
 * A revperf-spawn of another protocol version (a stale build) sends a hello of another
 * size: it is refused at once with the versions, never waited for (revperf waited for
 * the bytes of its own, larger, reply forever before).
 */
static void test_stale_spawner_refused(void **state)
{
	char dir[] = "/tmp/revperf-test-spawner-XXXXXX";
	struct proc_spec spec = {.command = "true"};
	struct strbuf path = STRBUF_INIT;
	struct stderr_capture cap;
	struct proc_result r;
	char *saved = xstrdup(getenv("REVPERF_SPAWN")), *err;
	FILE *f;
	int ret;

	UNUSED(state);
	assert_non_null(mkdtemp(dir));
	strbuf_addf(&path, "%s/old-spawn", dir);
	f = fopen(path.buf, "w");
	assert_non_null(f);
	/* Version 2's hello: type, err, pid, version, then fields this build does not have. */
	fputs("#!/usr/bin/env python3\n"
	      "import os, struct, time\n"
	      "os.write(3, struct.pack('<iiii', 1, 0, os.getpid(), 2) + bytes(16))\n"
	      "time.sleep(30)\n",
	      f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path.buf, 0755), 0);
	proc_spawner_stop();
	setenv("REVPERF_SPAWN", path.buf, 1);
	capture_stderr_begin(&cap);
	ret = proc_run(&spec, &r);
	err = capture_stderr_end(&cap);
	setenv("REVPERF_SPAWN", saved, 1);
	assert_int_equal(ret, -1);
	assert_non_null(strstr(err, "speaks another protocol (version 2, not"));
	assert_non_null(strstr(err, "rebuild revperf-spawn"));
	/* The right one again: runs work. */
	assert_int_equal(proc_run(&spec, &r), 0);
	assert_int_equal(r.status, RUN_OK);
	unlink(path.buf);
	rmdir(dir);
	strbuf_release(&path);
	free(saved);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_wall_is_timed_by_the_spawner),
	    cmocka_unit_test(test_next_run_starts_at_the_exit),
	    cmocka_unit_test(test_next_run_cancelled_after_a_failure),
	    cmocka_unit_test(test_stale_spawner_refused),
	};
	char self_exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);

	if (n <= 0)
		return 1;
	self_exe[n] = '\0';
	if (!getenv("REVPERF_SPAWN")) {
		/* This binary is in <build>/tests, revperf-spawn in <build>. */
		struct strbuf spawn = STRBUF_INIT;

		*strrchr(self_exe, '/') = '\0';
		strbuf_addf(&spawn, "%s/../revperf-spawn", self_exe);
		setenv("REVPERF_SPAWN", spawn.buf, 1);
		strbuf_release(&spawn);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
