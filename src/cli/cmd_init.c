#include <stdio.h>

#include "cli/commands.h"
#include "core/config.h"
#include "core/revision.h"
#include "util/common.h"

static const char *init_path;

static const struct option init_options[] = {
	{ OPT_STRING, 'c', "config", "FILE", "where to write the template (default revperf.ini)",
	  &init_path, NULL },
	OPT_END_MARKER,
};
static const char *const init_usage[] = { "init [--config FILE]", NULL };
const struct command_help init_help = {
	"init", init_usage,
	"Writes a commented revperf.ini template (build command, defaults, one benchmark)\n"
	"into the current directory. It never overwrites an existing file.",
	init_options,
};

int cmd_init(int argc, char **argv)
{
	const char *args[1];
	int n;
	init_path = "revperf.ini";
	n = parse_options(argc, argv, &init_help, args, 0);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if (config_write_template(init_path))
		return EXIT_USAGE;
	if (repo_dir_in_git("."))
		printf("wrote %s: edit [build] command and the [benchmark] sections, then run "
		       "'revperf compare BASE TARGET'\n",
		       init_path);
	else /* compare BASE TARGET would stop at "not inside a git repository" */
		printf("wrote %s: this directory is not in a git repository, so revperf cannot "
		       "build revisions here: move the file into your project's repository, or "
		       "compare two commands with 'revperf compare --cmd-a CMD --cmd-b CMD'\n",
		       init_path);
	return EXIT_OK;
}
