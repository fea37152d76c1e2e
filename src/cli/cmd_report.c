/* Placeholder: being written (issue 8). */
#include <stdio.h>

#include "cli/commands.h"
#include "util/common.h"

static const struct option report_options[] = { OPT_END_MARKER };
static const char *const report_usage[] = { "report", NULL };
const struct command_help report_help = {
	"report", report_usage, "Not written yet.", report_options,
};

int cmd_report(int argc, char **argv)
{
	const char *args[1];
	int n = parse_options(argc, argv, &report_help, args, 0);
	if (n == -2)
		return EXIT_OK;
	error("report is not written yet");
	return EXIT_USAGE;
}
