#include "util/interrupt.h"

#include <signal.h>
#include <string.h>

#include "util/common.h"

/* The signal that asked revperf to stop, 0 while none arrived. */
static volatile sig_atomic_t requested_signal;
/* Whether interrupt_requested() has told a caller about it. */
static volatile sig_atomic_t request_seen;

static void on_interrupt(int sig)
{
	if (requested_signal && !request_seen) {
		/* Nobody polled since the first signal: stop the way the user asked. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	requested_signal = sig;
}

void interrupt_install(void)
{
	static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	/* Each handler runs with the others blocked, so that the check-then-set in
	 * on_interrupt() is not itself interrupted. */
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++)
		sigaddset(&sa.sa_mask, signals[i]);
	/* No SA_RESTART: a blocking read or wait returns EINTR so that the caller notices. */
	sa.sa_flags = 0;
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++)
		sigaction(signals[i], &sa, NULL);
}

bool interrupt_requested(void)
{
	if (!requested_signal)
		return false;
	request_seen = 1;
	return true;
}

int interrupt_signal(void)
{
	return requested_signal;
}

int interrupt_exit_code(void)
{
	return requested_signal ? 128 + requested_signal : 130;
}

void interrupt_reset(void)
{
	requested_signal = 0;
	request_seen = 0;
}
