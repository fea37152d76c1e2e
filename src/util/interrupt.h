#ifndef REVPERF_UTIL_INTERRUPT_H
#define REVPERF_UTIL_INTERRUPT_H

#include <stdbool.h>

/*
 * Interrupt handling for long operations: interrupt_install() sets SIGINT/SIGTERM/SIGHUP
 * handlers (without SA_RESTART, so that a blocking read or wait returns EINTR) that record
 * the request; loops poll interrupt_requested() and wind down (kill the benchmark, store
 * what ended, exit 128 + signal). A signal that arrives while an earlier one was never
 * looked at (no interrupt_requested() returned true since) means that the program is in a
 * phase that does not poll: it then takes its default action (the process ends), so that
 * revperf can always be stopped. The only process-global state of the engine, by
 * necessity; async-signal-safe.
 */
void interrupt_install(void);
/* Whether an interrupt arrived; a true answer marks it as seen (it is being handled). */
bool interrupt_requested(void);
/* The signal number that was received, 0 when none. */
int interrupt_signal(void);
/*
 * The exit status of a command stopped by the received signal, as a shell reports a
 * process killed by it: 128 + its number (130 SIGINT, 143 SIGTERM, 129 SIGHUP); 130 when
 * none was received (an interruption seen some other way).
 */
int interrupt_exit_code(void);
/* Forgets a received interrupt (after it was handled, and in tests). */
void interrupt_reset(void);

#endif
