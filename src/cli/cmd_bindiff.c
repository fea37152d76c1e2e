#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "binary/bindiff.h"
#include "cli/commands.h"
#include "report/bindiff_report.h"
#include "util/common.h"

static struct {
	bool all, no_dwarf;
	struct cli_output out;
} o;

static const struct option bindiff_options[] = {
	{ OPT_FLAG, 'a', "all", NULL, "list unchanged functions too", &o.all, NULL },
	{ OPT_FLAG, 0, "no-dwarf", NULL, "ignore DWARF: no file:line, no inlining notes",
	  &o.no_dwarf, NULL },
	CLI_OUTPUT_OPTIONS(o.out, "text or json", CLI_QUIET_WARNINGS),
	OPT_END_MARKER,
};
static const char *const bindiff_usage[] = { "bindiff [options] OLD NEW", NULL };
const struct command_help bindiff_help = {
	"bindiff", bindiff_usage,
	"Compares the functions of two builds (ELF executables, PIE, shared libraries or\n"
	"object files; x86-64 or aarch64) on their machine code, normalised so that a\n"
	"function that merely moved, or whose source changed only in comments, is unchanged.\n"
	"Lists the functions added, deleted, modified (instruction counts before and after)\n"
	"and renamed (the same body under a new name), with file:line from DWARF; a modified\n"
	"function that inlined another modified one says so. A stripped file is read through\n"
	"its exported symbols, with a warning. See docs/bindiff.md.\n"
	"Exit status: 0 identical, 1 different, 2 usage or input error (a missing file, not\n"
	"ELF, truncated, another architecture), 3 internal failure.",
	bindiff_options,
};

static const char *const bindiff_formats[] = { "text", "json", NULL };

static int bindiff(const char *const args[2], int n, bool json);

int cmd_bindiff(int argc, char **argv)
{
	const char *args[2];
	int n, format;

	memset(&o, 0, sizeof(o));
	o.out.quiet_warnings = true;
	n = parse_options(argc, argv, &bindiff_help, args, 2);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if ((format = cli_output_begin(&o.out, "bindiff", bindiff_formats)) < 0)
		return EXIT_USAGE;
	return cli_output_end(&o.out, bindiff(args, n, format == 1));
}

/* The binary diff of args[0] and args[1], as an exit status. */
static int bindiff(const char *const args[2], int n, bool json)
{
	struct bindiff d;
	int err, ret = EXIT_USAGE;

	memset(&d, 0, sizeof(d));
	if (n != 2) {
		usage_error("bindiff", "expected OLD and NEW files, got %d argument%s", n,
			    n == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	if ((err = bindiff_files(args[0], args[1], o.no_dwarf ? BINFILE_NO_DWARF : 0, &d)))
		return rp_err_exit_code(err);
	o.out.printed = true;
	if (json ? report_bindiff_json(stdout, &d, o.all)
		 : report_bindiff_text(stdout, &d, o.all)) {
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		goto out;
	}
	ret = bindiff_identical(&d) ? EXIT_OK : EXIT_REGRESSION;
out:
	bindiff_release(&d);
	return ret;
}
