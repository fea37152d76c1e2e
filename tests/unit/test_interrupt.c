/*
 * Unit tests of interrupt handling (util/interrupt.h): a signal is recorded for the loops
 * that poll; a second one while nobody looked at the first ends the process, so that
 * revperf can always be stopped (issue 16: `-c /dev/zero` ignored SIGINT and SIGTERM).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/common.h"
#include "util/interrupt.h"

/* Runs a child that installs the handlers and gets `sig` twice, polling in between;
 * it exits 0 when it survives. Returns its wait status. */
static int child_status_polled(int sig)
{
	int status;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		interrupt_install();
		raise(sig);
		if (!interrupt_requested() || interrupt_signal() != sig)
			_exit(3);
		raise(sig);
		_exit(interrupt_requested() ? 0 : 4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/* A raw second signal, without any poll in between. */
static int child_status_unpolled(int sig)
{
	int status;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		interrupt_install();
		raise(sig);
		raise(sig);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void test_first_signal_is_recorded(void **state)
{
	UNUSED(state);
	/* Polled between the two: the program is winding down, it goes on. */
	int status = child_status_polled(SIGINT);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_second_unseen_signal_ends_the_process(void **state)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
		int status = child_status_unpolled(sigs[i]);
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), sigs[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_signal_is_recorded),
	    cmocka_unit_test(test_second_unseen_signal_ends_the_process),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
