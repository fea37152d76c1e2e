#ifndef REVPERF_UTIL_INTERRUPT_H
#define REVPERF_UTIL_INTERRUPT_H

#include <stdbool.h>

/*
 * Interrupt handling for long operations: interrupt_install() sets SIGINT/SIGTERM/SIGHUP
 * handlers (without SA_RESTART) that only record the request; interrupt_requested() tells
 * whether one arrived. The only process-global state of the engine, by necessity.
 */
void interrupt_install(void);
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
