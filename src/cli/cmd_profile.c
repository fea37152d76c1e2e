#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "collect/cct_run.h"
#include "core/config.h"
#include "core/fsutil.h"
#include "profile/folded.h"
#include "profile/profile_load.h"
#include "report/cct_top.h"
#include "util/common.h"

static struct {
	bool cct, plain, threads;
	const char *out_dir, *format, *top, *timeout, *out;
} o;

static const struct option profile_options[] = {
	{ OPT_FLAG, 0, "cct", NULL, "a calling context tree (the program must be built with "
				    "-finstrument-functions)", &o.cct, NULL },
	{ OPT_STRING, 'd', "dir", "DIR", "keep the run's profile files in DIR (default: a "
					 "temporary directory, removed)", &o.out_dir, NULL },
	{ OPT_STRING, 'f', "format", "FMT", "text, json, or folded (the whole tree as folded "
					    "stacks)", &o.format, NULL },
	{ OPT_STRING, 'o', "out", "FILE", "write the report to FILE instead of stdout", &o.out,
	  NULL },
	{ OPT_STRING, 'k', "top", "K", "contexts per list (20)", &o.top, NULL },
	{ OPT_FLAG, 0, "plain", NULL, "merge call sites (a function called from two places of "
				      "its caller is one context)", &o.plain, NULL },
	{ OPT_FLAG, 0, "threads", NULL, "keep each thread's tree apart (default: merged)",
	  &o.threads, NULL },
	{ OPT_STRING, 0, "timeout", "DURATION", "kill the program after this long (default: "
						"none)", &o.timeout, NULL },
	OPT_END_MARKER,
};
static const char *const profile_usage[] = { "profile --cct [options] -- COMMAND [ARGS...]",
					      NULL };
const struct command_help profile_help = {
	"profile", profile_usage,
	"Runs COMMAND once with revperf's CCT runtime preloaded (librevperf_cct.so, built\n"
	"with revperf) and prints its calling context tree: the heaviest call paths by\n"
	"inclusive and by exclusive time, with call counts. The program (and any library to\n"
	"be seen) must be compiled with -finstrument-functions; threads, forked children and\n"
	"exec'd programs are followed (docs/cct-format.md). Functions are named after the\n"
	"run from the ELF symbols and DWARF of the files that were mapped, PIE and shared\n"
	"libraries included. --dir keeps the raw profiles for `revperf diff`.\n"
	"Exit status: 0 the program ran and exited 0, 1 it failed, crashed or timed out (its\n"
	"profile is still shown when it wrote one), 2 usage or input error (no profile\n"
	"written: not instrumented?), 3 internal failure.",
	profile_options,
};

/* Quotes argv into one command line that proc_run() execs without a shell. */
static void quote_command(struct strbuf *sb, const char *const *argv, int argc)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (i)
			strbuf_addch(sb, ' ');
		if (*a && !a[strcspn(a, " \t\n'\"\\$`|&;<>()*?[]~{}#!=%")]) {
			strbuf_addstr(sb, a);
			continue;
		}
		strbuf_addch(sb, '\'');
		for (; *a; a++) {
			if (*a == '\'')
				strbuf_addstr(sb, "'\\''");
			else
				strbuf_addch(sb, *a);
		}
		strbuf_addch(sb, '\'');
	}
}

int cmd_profile(int argc, char **argv)
{
	const char **args = xcalloc((size_t)argc + 1, sizeof(*args));
	struct strbuf command = STRBUF_INIT, dir = STRBUF_INIT;
	struct proc_spec spec = { 0 };
	struct proc_result res;
	struct profile_load_options lo = { 0 };
	struct profile_source src;
	struct cct_top_options to = { 0 };
	struct cct tree;
	enum { TEXT, JSON, FOLDED } format = TEXT;
	bool temp_dir = false, loaded = false;
	FILE *out = stdout;
	int n, err, ret = EXIT_USAGE;

	memset(&o, 0, sizeof(o));
	memset(&tree, 0, sizeof(tree));
	n = parse_options(argc, argv, &profile_help, args, argc);
	if (n == -2) {
		ret = EXIT_OK;
		goto out;
	}
	if (n < 0)
		goto out;
	if (!o.cct) {
		usage_error("profile", "say what to profile: --cct (a calling context tree)");
		goto out;
	}
	if (!n) {
		usage_error("profile", "expected the command to run after --");
		goto out;
	}
	if (o.format) {
		if (!strcmp(o.format, "json"))
			format = JSON;
		else if (!strcmp(o.format, "folded"))
			format = FOLDED;
		else if (strcmp(o.format, "text")) {
			usage_error("profile", "unknown format '%s': use text, json or folded",
				    o.format);
			goto out;
		}
	}
	if (o.top) {
		uint64_t k;
		if (parse_u64(o.top, &k) || k == 0 || k > 100000) {
			usage_error("profile", "--top '%s': expected a number from 1 to 100000",
				    o.top);
			goto out;
		}
		to.top = (size_t)k;
	}
	if (o.timeout && (parse_duration(o.timeout, &spec.timeout_ns) || !spec.timeout_ns)) {
		usage_error("profile", "--timeout '%s': expected a duration such as 30s",
			    o.timeout);
		goto out;
	}
	if (o.out_dir) {
		strbuf_addstr(&dir, o.out_dir);
		if (mkdir_p(dir.buf))
			goto out;
	} else {
		const char *tmp = getenv("TMPDIR");
		strbuf_addf(&dir, "%s/revperf-profile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir.buf)) {
			error("cannot create a temporary directory %s: %s", dir.buf,
			      strerror(errno));
			ret = EXIT_INTERNAL;
			goto out;
		}
		temp_dir = true;
	}
	quote_command(&command, args, n);
	spec.command = command.buf;
	if ((err = cct_run(&spec, dir.buf, &res))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (res.status != RUN_OK)
		warning("the program %s: %s", run_status_name(res.status), res.detail);
	lo.plain = o.plain;
	lo.separate_threads = o.threads;
	lo.format = PROFILE_FORMAT_CCT;
	loaded = true; /* profile_load() leaves a tree to release, also on failure */
	if ((err = profile_load(dir.buf, &lo, &tree, &src))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (tree.nr_nodes <= 1) {
		error("%s: no instrumented function ran: compile the program with "
		      "-finstrument-functions",
		      args[0]);
		goto out;
	}
	if (o.out && !(out = fopen(o.out, "w"))) {
		error("cannot write '%s': %s", o.out, strerror(errno));
		out = stdout;
		goto out;
	}
	if (src.calls_only)
		to.unit = "calls"; /* REVPERF_CCT_CLOCK=none: the weights are call counts */
	if (format == FOLDED) {
		struct strbuf sb = STRBUF_INIT;
		folded_write(&tree, &sb);
		fwrite(sb.buf, 1, sb.len, out);
		strbuf_release(&sb);
		err = ferror(out) ? -1 : 0;
	} else if (format == JSON) {
		err = cct_top_json(out, &tree, &to);
	} else {
		fprintf(out, "%s: %s, %.3f s wall, %u process profile%s%s\n", command.buf,
			res.status == RUN_OK ? "exit 0" : res.detail, (double)res.m.wall_ns / 1e9,
			src.nr_files, src.nr_files == 1 ? "" : "s",
			o.out_dir ? "" : " (temporary: keep them with --dir)");
		if (o.out_dir)
			fprintf(out, "profiles in %s\n", dir.buf);
		err = cct_top_text(out, &tree, &to);
	}
	if (err || (out != stdout && fclose(out))) {
		out = stdout;
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		goto out;
	}
	out = stdout;
	ret = res.status == RUN_OK ? EXIT_OK : EXIT_REGRESSION;
out:
	if (out != stdout)
		fclose(out);
	if (temp_dir)
		remove_tree(dir.buf);
	if (loaded)
		cct_release(&tree);
	strbuf_release(&command);
	strbuf_release(&dir);
	free(args);
	return ret;
}
