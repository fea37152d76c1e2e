#include "util/error.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

/* error_record_start(): the messages kept for a JSON error document. */
static struct {
	pthread_mutex_t lock;
	bool on;
	bool silent; /* warning_silence() */
	char **msgs;
	size_t nr, alloc;
} recorded = {PTHREAD_MUTEX_INITIALIZER, false, false, NULL, 0, 0};

/* At most this many messages are kept: the first ones say what went wrong. */
#define MAX_RECORDED 32

void error_record_message(const char *msg)
{
	pthread_mutex_lock(&recorded.lock);
	if (recorded.on && recorded.nr < MAX_RECORDED) {
		ALLOC_GROW(recorded.msgs, recorded.nr + 1, recorded.alloc);
		recorded.msgs[recorded.nr++] = xstrdup(msg);
	}
	pthread_mutex_unlock(&recorded.lock);
}

void warning_silence(void)
{
	pthread_mutex_lock(&recorded.lock);
	recorded.silent = true;
	pthread_mutex_unlock(&recorded.lock);
}

static bool warnings_silent(void)
{
	bool silent;
	pthread_mutex_lock(&recorded.lock);
	silent = recorded.silent;
	pthread_mutex_unlock(&recorded.lock);
	return silent;
}

void error_record_start(void)
{
	pthread_mutex_lock(&recorded.lock);
	recorded.on = true;
	pthread_mutex_unlock(&recorded.lock);
}

const char *error_recorded(size_t n)
{
	const char *msg;
	pthread_mutex_lock(&recorded.lock);
	msg = n < recorded.nr ? recorded.msgs[n] : NULL;
	pthread_mutex_unlock(&recorded.lock);
	return msg;
}

void error_record_stop(void)
{
	pthread_mutex_lock(&recorded.lock);
	for (size_t i = 0; i < recorded.nr; i++)
		free(recorded.msgs[i]);
	free(recorded.msgs);
	recorded.msgs = NULL;
	recorded.nr = recorded.alloc = 0;
	recorded.on = false;
	pthread_mutex_unlock(&recorded.lock);
}

/*
 * Messages quote input (file content, names, benchmark output): whatever could drive the
 * terminal is made visible (strbuf_add_printable), once here for every caller.
 */
__attribute__((format(printf, 3, 0))) static void report(const char *prefix, bool keep,
							 const char *fmt, va_list ap)
{
	struct strbuf msg = STRBUF_INIT, sb = STRBUF_INIT;
	strbuf_vaddf(&msg, fmt, ap);
	strbuf_addstr(&sb, prefix);
	strbuf_add_printable_lines(&sb, msg.buf, msg.len);
	if (keep)
		error_record_message(sb.buf + strlen(prefix));
	strbuf_addch(&sb, '\n');
	fputs(sb.buf, stderr);
	strbuf_release(&msg);
	strbuf_release(&sb);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("revperf: error: ", true, fmt, ap);
	va_end(ap);
	return -1;
}

int error_input_at(const char *origin, size_t lineno, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error("%s:%zu: %s", origin, lineno, sb.buf);
	strbuf_release(&sb);
	return RP_EINPUT;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	if (warnings_silent())
		return;
	va_start(ap, fmt);
	report("revperf: warning: ", false, fmt, ap);
	va_end(ap);
}

int rp_err_exit_code(int err)
{
	switch (err) {
	case RP_OK: return EXIT_OK;
	case RP_EINPUT:
	case RP_EBUILD: return EXIT_USAGE;
	case RP_EINTERRUPT: return interrupt_exit_code();
	default: return EXIT_INTERNAL;
	}
}
