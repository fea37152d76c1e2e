/* Where a command's report goes: stdout or its --out file (commands.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "util/common.h"

FILE *cli_report_open(const char *path)
{
	FILE *f;
	if (!path)
		return stdout;
	if (!(f = fopen(path, "w")))
		error("cannot create '%s': %s; check that its directory exists and is writable",
		      path, strerror(errno));
	return f;
}

int cli_report_close(FILE *f, const char *path, bool failed, int ok)
{
	failed |= ferror(f) != 0;
	if (f != stdout && fclose(f))
		failed = true;
	if (!failed)
		return ok;
	error("cannot write the report to %s: %s", path ? path : "stdout", strerror(errno));
	if (path)
		remove(path); /* no half-written report left behind */
	return EXIT_INTERNAL;
}
