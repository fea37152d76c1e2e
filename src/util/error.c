#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/interrupt.h"
#include "util/strbuf.h"

/*
 * Messages quote input (file content, names, benchmark output): whatever could drive the
 * terminal is made visible (strbuf_add_printable), once here for every caller.
 */
__attribute__((format(printf, 2, 0))) static void report(const char *prefix, const char *fmt,
							 va_list ap)
{
	struct strbuf msg = STRBUF_INIT, sb = STRBUF_INIT;
	strbuf_vaddf(&msg, fmt, ap);
	strbuf_addstr(&sb, prefix);
	strbuf_add_printable_lines(&sb, msg.buf, msg.len);
	strbuf_addch(&sb, '\n');
	fputs(sb.buf, stderr);
	strbuf_release(&msg);
	strbuf_release(&sb);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("revperf: error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("revperf: warning: ", fmt, ap);
	va_end(ap);
}

int rp_err_exit_code(int err)
{
	switch (err) {
	case RP_OK: return EXIT_OK;
	case RP_EINPUT: return EXIT_USAGE;
	case RP_EINTERRUPT: return interrupt_exit_code();
	default: return EXIT_INTERNAL;
	}
}
