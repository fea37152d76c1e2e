/* Placeholder: being written (issue 8). */
#include <stdio.h>

#include "cli/commands.h"
#include "util/common.h"

static const struct option ci_options[] = { OPT_END_MARKER };
static const char *const ci_usage[] = { "ci", NULL };
const struct command_help ci_help = {
	"ci", ci_usage, "Not written yet.", ci_options,
};

int cmd_ci(int argc, char **argv)
{
	const char *args[1];
	int n = parse_options(argc, argv, &ci_help, args, 0);
	if (n == -2)
		return EXIT_OK;
	error("ci is not written yet");
	return EXIT_USAGE;
}
