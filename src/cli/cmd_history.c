/* Placeholder: being written (issue 8). */
#include <stdio.h>

#include "cli/commands.h"
#include "util/common.h"

static const struct option history_options[] = { OPT_END_MARKER };
static const char *const history_usage[] = { "history", NULL };
const struct command_help history_help = {
	"history", history_usage, "Not written yet.", history_options,
};

int cmd_history(int argc, char **argv)
{
	const char *args[1];
	int n = parse_options(argc, argv, &history_help, args, 0);
	if (n == -2)
		return EXIT_OK;
	error("history is not written yet");
	return EXIT_USAGE;
}
