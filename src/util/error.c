#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/interrupt.h"
#include "util/strbuf.h"

static void report(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, prefix);
	strbuf_vaddf(&sb, fmt, ap);
	strbuf_addch(&sb, '\n');
	fputs(sb.buf, stderr);
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
