#include <jansson.h>
#include <stdio.h>

#include "cli/commands.h"
#include "core/revision.h"
#include "store/store.h"
#include "util/common.h"

static const struct option version_options[] = { OPT_END_MARKER };
static const char *const version_usage[] = { "version", NULL };
const struct command_help version_help = {
	"version", version_usage, "Prints revperf's version and the versions of its libraries.",
	version_options,
};

int cmd_version(int argc, char **argv)
{
	const char *args[1];
	int n = parse_options(argc, argv, &version_help, args, 0);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	printf("revperf %s (%s, %s, jansson %s)\n", REVPERF_VERSION, store_engine_version(),
	       repo_library_version(), jansson_version_str());
	return EXIT_OK;
}
