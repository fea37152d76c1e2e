/* Placeholder: being written (issue 8). */
#include <stdio.h>

#include "cli/commands.h"
#include "util/common.h"

static const struct option bisect_options[] = { OPT_END_MARKER };
static const char *const bisect_usage[] = { "bisect", NULL };
const struct command_help bisect_help = {
	"bisect", bisect_usage, "Not written yet.", bisect_options,
};

int cmd_bisect(int argc, char **argv)
{
	const char *args[1];
	int n = parse_options(argc, argv, &bisect_help, args, 0);
	if (n == -2)
		return EXIT_OK;
	error("bisect is not written yet");
	return EXIT_USAGE;
}
