#include <jansson.h>
#include <stdio.h>

#include "cli/build_info.h" /* generated: REVPERF_COMMIT (cmake/build_info.cmake) */
#include "cli/commands.h"
#include "core/revision.h"
#include "store/store.h"
#include "util/common.h"

static const struct option version_options[] = {OPT_END_MARKER};
static const char *const version_usage[] = {"version", NULL};
const struct command_help version_help = {
    "version",
    version_usage,
    "Prints revperf's version, the git commit it was built from (with -dirty when files\n"
    "differed from that commit, unknown when it was not built from a git checkout), and\n"
    "the versions of its libraries. revperf -V and revperf --version print the same.",
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
	printf("revperf %s (commit %s; %s, %s, jansson %s)\n", REVPERF_VERSION, REVPERF_COMMIT,
	       store_engine_version(), repo_library_version(), jansson_version_str());
	return cli_report_close(stdout, NULL, false, EXIT_OK);
}
