/* revperf: is this revision slower, heavier or more I/O-hungry than that one? */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "util/common.h"
#include "util/suggest.h"

const struct command commands[] = {
	{ "compare", "measure benchmarks on two revisions (or commands) and decide", cmd_compare,
	  &compare_help },
	{ "bindiff", "which functions two builds added, deleted, modified or renamed",
	  cmd_bindiff, &bindiff_help },
	{ "diff", "which call paths got heavier, appeared or vanished between two profiles",
	  cmd_diff, &diff_help },
	{ "profile",
	  "run a program once: its calling context tree, sampled on-CPU time, writes per stack "
	  "trace or counters",
	  cmd_profile, &profile_help },
	{ "chart", "control charts: which counters of the target runs are out of control",
	  cmd_chart, &chart_help },
	{ "run", "run the benchmarks of one revision once; --dynamic stores calls and "
		 "instructions per function", cmd_run, &run_help },
	{ "predict", "which benchmarks a commit needs, before running anything", cmd_predict,
	  &predict_help },
	{ "train", "learn which benchmarks commits need from stored verdicts", cmd_train,
	  &train_help },
	{ "history", "measure each commit of a range against its parent; change points",
	  cmd_history, &history_help },
	{ "bisect", "find the commit that made a benchmark worse (or better)", cmd_bisect, &bisect_help },
	{ "show", "print a stored comparison again, without building or running anything",
	  cmd_show, &show_help },
	{ "gc", "remove the worktrees, builds and logs no stored result needs", cmd_gc,
	  &gc_help },
	{ "report", "write the HTML report: trends, change points, each commit's evidence",
	  cmd_report, &report_help },
	{ "ci", "compare the merge base with HEAD: Markdown summary and JUnit XML", cmd_ci,
	  &ci_help },
	{ "import", "store hyperfine or Google Benchmark results as a revision's results",
	  cmd_import, &import_help },
	{ "push", "copy a local store's results into the shared store, without duplicates",
	  cmd_push, &push_help },
	{ "submit", "queue a comparison, a history's commits or a bisection for the workers",
	  cmd_submit, &submit_help },
	{ "worker", "run the queue's jobs on this machine, holding a lease on each",
	  cmd_worker, &worker_help },
	{ "queue", "show the queue's jobs: queued, running (worker, progress), done, failed",
	  cmd_queue, &queue_help },
	{ "init", "write a commented revperf.ini template", cmd_init, &init_help },
	{ "help", "show help for revperf or one of its commands", cmd_help, &help_help },
	{ "version", "print revperf's version", cmd_version, &version_help },
};
const size_t nr_commands = ARRAY_SIZE(commands);

const struct command *command_find(const char *name)
{
	size_t i;
	for (i = 0; i < nr_commands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

void command_unknown(const char *prefix, const char *name)
{
	const char *cands[64], *near[2];
	size_t n = 0, found;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < nr_commands && n < ARRAY_SIZE(cands); i++)
		cands[n++] = commands[i].name;
	found = suggest_nearest(name, cands, n, near, 2);
	strbuf_addf(&sb, "%s: '", prefix);
	strbuf_add_printable(&sb, name);
	strbuf_addstr(&sb, "' is not a revperf command");
	if (found == 1)
		strbuf_addf(&sb, " (did you mean '%s'?)", near[0]);
	else if (found == 2)
		strbuf_addf(&sb, " (did you mean '%s' or '%s'?)", near[0], near[1]);
	strbuf_addstr(&sb, "; see 'revperf help' for the list\n");
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	if (argc < 2) {
		char *help_argv[] = { (char *)"help", NULL };
		cmd_help(1, help_argv);
		return EXIT_USAGE;
	}
	/* Global options: -V/--version (-v as well, as git), -h/--help. */
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "-v"))
		return cmd_version(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(argc - 1, argv + 1);
	cmd = command_find(argv[1]);
	if (!cmd && argv[1][0] == '-') {
		static const char *const global[] = { "version", "help" };
		const char *near[1];
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "revperf: unknown option '");
		strbuf_add_printable(&sb, argv[1]);
		strbuf_addch(&sb, '\'');
		if (argv[1][1] == '-' && suggest_nearest(argv[1] + 2, global, 2, near, 1))
			strbuf_addf(&sb, " (did you mean '--%s'?)", near[0]);
		strbuf_addstr(&sb, " before the command; the global options are -V/--version and "
				   "-h/--help; see 'revperf help'\n");
		fputs(sb.buf, stderr);
		strbuf_release(&sb);
		return EXIT_USAGE;
	}
	if (!cmd) {
		command_unknown("revperf", argv[1]);
		return EXIT_USAGE;
	}
	return cmd->run(argc - 1, argv + 1);
}
