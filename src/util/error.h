#ifndef REVPERF_UTIL_ERROR_H
#define REVPERF_UTIL_ERROR_H

#include <stddef.h>

/*
 * Diagnostics. error() prints "revperf: error: <message>" on stderr and returns -1, so
 * that engine code can `return error("...")`. warning() prints "revperf: warning: ...".
 * Messages name the file, line or value and say what to do. Control characters (but newline
 * and tab) and invalid UTF-8 in the message are printed as visible escapes (\x1b), so that
 * quoted input cannot drive the terminal. Thread-safe (one fputs).
 */
__attribute__((format(printf, 1, 2))) int error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);

/*
 * For a command whose report is a document (JSON): from error_record_start() on, the
 * messages of error() are also kept, as printed (valid UTF-8, control characters made
 * visible) but without the "revperf: error: " prefix, so that the failure can be stated in the document too. They
 * are still printed on stderr. error_recorded() returns the n-th kept message (0: the
 * first) or NULL; error_record_stop() forgets them. The one piece of process state of the
 * diagnostics, as git's set_error_routine(): guarded by a mutex.
 */
void error_record_start(void);
/* -q of a command without progress: warning() prints nothing from now on (errors still). */
void warning_silence(void);
/* Keeps msg as if error() had printed it (a usage error printed in its own form). */
void error_record_message(const char *msg);
const char *error_recorded(size_t n);
void error_record_stop(void);

/* Exit codes of the revperf command (STYLE.md). */
enum exit_code {
	EXIT_OK = 0,
	EXIT_REGRESSION = 1,
	EXIT_USAGE = 2,
	EXIT_INTERNAL = 3,
};

/*
 * Engine error kinds: functions that can fail in more than one way return one of these
 * (negated) so that commands can choose the exit code: input errors exit 2, internal 3.
 */
enum rp_err {
	RP_OK = 0,
	RP_EINPUT = -2,    /* bad input: config, revision, file, option value */
	RP_EINTERNAL = -3, /* I/O failure, database failure, bug */
	RP_EINTERRUPT = -4, /* the user interrupted (SIGINT, SIGTERM, SIGHUP) */
	/* The project's build command failed (build_ensure()): that revision is broken, which
	 * history and bisect record as a result (exit 2 where it ends a command). */
	RP_EBUILD = -5
};

/* error() of "origin:lineno: message" for a parser's bad input; returns RP_EINPUT. */
__attribute__((format(printf, 3, 4))) int error_input_at(const char *origin, size_t lineno,
							 const char *fmt, ...);

/* Maps an rp_err to the process exit code (RP_EINTERRUPT: interrupt_exit_code()). */
int rp_err_exit_code(int err);

#endif
