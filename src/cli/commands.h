#ifndef REVPERF_CLI_COMMANDS_H
#define REVPERF_CLI_COMMANDS_H

/*
 * Adding a command `revperf NAME` (as git's builtin.h asks of a builtin):
 *
 * 1. src/cli/cmd_NAME.c holds only the command: an option table (options.h), a usage and
 *    a `struct command_help NAME_help` with a description that ends with the exit
 *    statuses, and `int cmd_NAME(int argc, char **argv)`: parse, open the project with
 *    cli_project_open() when it reads or writes stored results, call the engine, render
 *    with src/report/, return an EXIT_* status (rp_err_exit_code() for RP_* codes).
 * 2. Declare cmd_NAME and NAME_help below and add one row to the table in main.c (name,
 *    one-line summary, handler, help); `revperf help`, the manual, the manual pages
 *    (revperf-NAME(1)) and the bash completion read that table (cli/help_formats.c). A
 *    command that runs programs checks proc_spawner_check() before it builds, runs or
 *    prints anything (docs/install.md).
 * 3. Conventions every command that prints a report follows: -f/--format (text, json,
 *    markdown as they apply; JSON with "revperf_version" and "schema"), -q/--quiet (no
 *    progress, no notes), --no-color and NO_COLOR, all three from CLI_OUTPUT_OPTIONS
 *    below, with cli_output_begin() after parsing and cli_output_end() on the exit status
 *    (a failure with -f json is then a JSON document too); --state-dir DIR and
 *    -c/--config FILE where a project is opened. Errors: one line naming the file, line or value and what
 *    to do; exit 2 for bad input, 3 for internal failures; never exit from the engine.
 * 4. Work that is not parsing or rendering goes to the engine room that holds its concept
 *    (docs/layout.md), never above a layer's place (tests/layout/check_layers.py).
 * 5. Tests: tests/cli/NAME_<case>.sh (found by ctest's glob) with the bad inputs; unit tests
 *    of new engine code in tests/unit/test_<module>.c. Regenerate docs/manual.md
 *    (`revperf help --markdown > docs/manual.md`) and add the command to README.md.
 */

#include <stdbool.h>
#include <stdio.h>

#include "cli/options.h"
#include "core/build.h"

/* The static command table: dispatch, `revperf help` and the manual all read it. */
struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	const struct command_help *help;
};

extern const struct command commands[];
extern const size_t nr_commands;

const struct command *command_find(const char *name);
/* Prints "PREFIX: 'NAME' is not a revperf command (did you mean '...'?); see ..." on stderr. */
void command_unknown(const char *prefix, const char *name);

int cmd_bindiff(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_chart(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_ci(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_worker(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_version(int argc, char **argv);

extern const struct command_help bindiff_help;
extern const struct command_help compare_help;
extern const struct command_help diff_help;
extern const struct command_help help_help;
extern const struct command_help import_help;
extern const struct command_help init_help;
extern const struct command_help predict_help;
extern const struct command_help profile_help;
extern const struct command_help run_help;
extern const struct command_help train_help;
extern const struct command_help chart_help;
extern const struct command_help history_help;
extern const struct command_help bisect_help;
extern const struct command_help report_help;
extern const struct command_help show_help;
extern const struct command_help gc_help;
extern const struct command_help ci_help;
extern const struct command_help push_help;
extern const struct command_help submit_help;
extern const struct command_help worker_help;
extern const struct command_help queue_help;
extern const struct command_help version_help;

/*
 * The output conventions of every command that prints a report (item 3 above), declared
 * once: CLI_OUTPUT_OPTIONS(o.out, "text or json", "no progress on stderr") in the option
 * table gives -f/--format (its help lists the command's formats), -q/--quiet (its help
 * says what it silences) and --no-color.
 */
struct cli_output {
	const char *format; /* -f as given; NULL: the command's first format */
	bool quiet, no_color;
	bool quiet_warnings; /* set by the command: -q silences warnings (CLI_QUIET_WARNINGS) */
	/* set by cli_output_begin(): */
	const char *command;
	bool json;    /* -f json: a failure is a JSON document on stdout too */
	bool printed; /* set by the command once its report is on stdout */
};
#define CLI_OUTPUT_OPTIONS(out, formats, quiet_help)                                               \
	{ OPT_STRING, 'f', "format", "FMT", formats, &(out).format, NULL },                        \
	{ OPT_FLAG, 'q', "quiet", NULL, quiet_help, &(out).quiet, NULL },                          \
	{ OPT_FLAG, 0, "no-color", NULL, "no colour, even on a terminal (as NO_COLOR=1 does)",     \
	  &(out).no_color, NULL }

/*
 * After parse_options(): which of `formats` (NULL-terminated, the default first) -f names,
 * as an index, or -1 after a usage error that lists them (and the nearest one). With
 * "json" chosen, error messages are kept from then on for cli_output_end().
 */
int cli_output_begin(struct cli_output *out, const char *command, const char *const *formats);
/*
 * The end of a command that took cli_output_begin(): with -f json, a failure (exit status
 * 2, 3 or from a signal) whose report was not printed becomes a JSON document on stdout,
 * {"revperf_version", "schema": "revperf-error/1", "command", "error": {"message",
 * "messages", "exit_code"}} (docs/json-schema.md). Returns code.
 */
int cli_output_end(struct cli_output *out, int code);
/*
 * The "error" object of that document ({"message", "messages", "exit_code": code}) from
 * the messages kept since cli_output_begin(), for a report that is printed although the
 * command failed (compare: a benchmark that could not be started). A new reference.
 */
struct json_t;
struct json_t *cli_output_error_json(int code);
/* The -q help of a command that prints no progress: warning_silence() by cli_output_begin(). */
#define CLI_QUIET_WARNINGS "no warnings on stderr (errors still)"
/* Whether the report on stdout is coloured: a terminal, no --no-color, NO_COLOR unset or
 * empty (https://no-color.org). */
bool cli_output_color(const struct cli_output *out);

/*
 * A command's report: cli_report_open() gives stdout when path is NULL, else the file
 * created (NULL after error()); cli_report_close() closes it (stdout stays open) and
 * returns `ok`, or EXIT_INTERNAL after error() when anything failed to be written
 * (`failed`, a stream error, the close), the partial file then removed.
 */
FILE *cli_report_open(const char *path);

/* The eight Perphecy values as "Del Func 0, New Func 2, ..., Top Reached Chg Len -" (NaN:
 * "-"), for predict and train. */
struct strbuf;
struct perphecy_values;
void cli_perphecy_values_text(struct strbuf *sb, const struct perphecy_values *v);
int cli_report_close(FILE *f, const char *path, bool failed, int ok);

/*
 * The configuration of a comparison (compare_setup.c): `config` or ROOT/revperf.ini, the
 * flag overrides, only the benchmarks `bench` names (NULL: all), then `extra` (a command's
 * own settings, may be NULL), finished. cli_load_config() is a revcompare_config_fn whose
 * argument is a struct cli_config_source. Both return 0 or RP_EINPUT after an error.
 */
struct config;
struct cli_config_source {
	const char *root;   /* the repository's work tree */
	const char *config; /* --config, or NULL */
	const char *bench;  /* --bench, or NULL */
	const struct opt_overrides *overrides; /* may be NULL */
	int (*extra)(struct config *cfg, void *arg);
	void *extra_arg;
	size_t loads; /* configurations loaded from it: only the first one warns */
};
int cli_load_config(struct config *cfg, void *arg);

/* The options of the runs of a comparison (compare, history, bisect, ci), recorded in ov. */
#define CLI_RUN_OPTIONS(ov)                                                                        \
	{ OPT_CONFIG, 0, "build-command", "CMD", "how to build a revision (empty: no build)",      \
	  &(ov), "build.command" },                                                                \
	{ OPT_CONFIG, 't', "tolerance", "PCT", "changes smaller than this are equal (2%)", &(ov),   \
	  "tolerance" },                                                                           \
	{ OPT_CONFIG, 'r', "runs", "MIN..MAX", "runs per side (5..30)", &(ov), "runs" },           \
	{ OPT_CONFIG, 'w', "warmup", "N", "discarded warm-up runs per side (1)", &(ov), "warmup" }, \
	{ OPT_CONFIG, 0, "timeout", "DURATION", "per-run timeout (auto: 10 x baseline median, "     \
						">= 60 s)", &(ov), "timeout" },                \
	{ OPT_CONFIG, 0, "time-budget", "DURATION", "the most time for sampling a benchmark; an "  \
						    "undecided one goes on past the runs "      \
						    "maximum until then", &(ov), "time-budget" }, \
	{ OPT_CONFIG, 0, "log-limit", "SIZE", "output of a run kept in its log (16MiB; none)",     \
	  &(ov), "log-limit" },                                                                    \
	{ OPT_CONFIG, 'a', "alpha", "A", "1 - confidence level of the verdict (0.01)", &(ov),      \
	  "alpha" },                                                                               \
	{ OPT_CONFIG, 0, "seed", "N", "seed of the randomized run order (reproducible)", &(ov),    \
	  "seed" },                                                                                \
	{ OPT_CONFIG, 0, "pin", "CPUS", "pin every timing run to these CPUs: off, auto or a list " \
					"such as 2-3 (off)", &(ov), "pin" },                       \
	{ OPT_CONFIG, 0, "wait-quiet", "BUSY,MAX", "before each pair, wait at most MAX until at "  \
						  "most BUSY of the CPU time is busy (off)",      \
	  &(ov), "quiet" },                                                                        \
	{ OPT_CONFIG, 0, "count-runs", "MIN..MAX", "counted runs per side under valgrind (2..6)",  \
	  &(ov), "count-runs" },                                                                   \
	{ OPT_CONFIG, 0, "count-tolerance", "PCT", "tolerance of counted metrics (0.1%)", &(ov),   \
	  "count-tolerance" }
/* Which metrics a comparison reports and which decide. */
#define CLI_METRIC_OPTIONS(ov)                                                                     \
	{ OPT_CONFIG, 'm', "metrics", "LIST", "metrics to report, e.g. wall,cpu,maxrss or all",    \
	  &(ov), "metrics" },                                                                      \
	{ OPT_CONFIG, 0, "primary", "LIST", "metrics that decide the exit code and stopping",      \
	  &(ov), "primary" }
/* Where results are stored: --store URL. */
#define CLI_STORE_OPTION(store)                                                                    \
	{ OPT_STRING, 0, "store", "URL", "store results in PostgreSQL (postgresql://USER@HOST/DB "  \
					 "or libpq's key=value pairs) or this SQLite file (default: " \
					 "REVPERF_STORE, [store] url, STATE-DIR/revperf.db)",      \
	  &(store), NULL }
/* Where the project's configuration and results are. */
#define CLI_PROJECT_OPTIONS(config, state_dir, store)                                              \
	{ OPT_STRING, 'c', "config", "FILE", "configuration file (default: revperf.ini at the "    \
					     "repository root)", &(config), NULL },                \
	{ OPT_STRING, 0, "state-dir", "DIR", "where worktrees and logs live, and results unless "  \
					     "--store (default .revperf/ at the root)",            \
	  &(state_dir), NULL },                                                                    \
	CLI_STORE_OPTION(store)

/*
 * A command's project: the repository around the current directory, its state directory
 * (`state_dir`, or .revperf/ at the root) and its store: --store, else REVPERF_STORE, else
 * [store] url of the configuration (`config`, or revperf.ini at the root when there is
 * one), else the state directory's revperf.db (docs/store.md). Every command that reads or
 * writes stored results opens it here. cli_project_open() returns 0, or an exit code
 * after an error; cli_project_close() accepts a partly opened project.
 */
struct cli_where {
	const char *config;    /* -c/--config, or NULL */
	const char *state_dir; /* --state-dir, or NULL */
	const char *store;     /* --store, or NULL */
};
/* The where of a command's options struct o with fields config, state_dir and store. */
#define CLI_WHERE(o) (&(struct cli_where){ (o).config, (o).state_dir, (o).store })
struct cli_project {
	struct repo *repo; /* NULL with CLI_PROJECT_NO_REPO */
	struct state_dir sd;
	struct store *st;
	char *store_location; /* where the store is: a path or a connection string */
};
enum cli_project_flags {
	/* No repository: the state directory is under the current directory (compare
	 * --cmd-a/--cmd-b), or `state_dir` when given. */
	CLI_PROJECT_NO_REPO = 1 << 0,
	/* The store must exist already (commands that only read it): its absence is an
	 * error that says how to fill it. */
	CLI_PROJECT_EXISTING = 1 << 1,
	/* The store must be named (--store, REVPERF_STORE, [store] url): the state
	 * directory's revperf.db is not a default (push: the store to push into). */
	CLI_PROJECT_STORE_GIVEN = 1 << 2,
	/* The command reads a configuration (`config`, or revperf.ini at the root): its
	 * absence is an error before the state directory and database are created, so that
	 * a command that cannot start leaves nothing behind. */
	CLI_PROJECT_CONFIG = 1 << 3,
};
int cli_project_open(struct cli_project *p, const struct cli_where *where, unsigned flags);
/*
 * The store a command with this configuration file (or revperf.ini under root when
 * config is NULL) uses, as cli_project_open() chooses it: *out a copy to free, or NULL for
 * the state directory's revperf.db. Returns 0, or EXIT_USAGE after an error line.
 */
int cli_store_location(const struct cli_where *where, const char *root, char **out);
/*
 * The end of a command that may have run benchmarks: checks that the database's files are
 * intact and its integrity (store_verify(); once per command, only when something ran).
 * Returns 0, EXIT_INTERNAL after an error line naming the file.
 */
int cli_project_verify(struct cli_project *p);
/*
 * Closes p (also a partly opened one) and returns the command's exit status: code, or
 * EXIT_INTERNAL when cli_project_verify() fails now, or EXIT_USAGE instead of
 * EXIT_INTERNAL when a statement failed because another process held the database's lock
 * (the user must act).
 */
int cli_project_close(struct cli_project *p, int code);
/*
 * A comparison context over p whose configuration comes from src (its root set to the
 * repository's): select, fresh and quiet as given, compare's progress line on a TTY unless
 * quiet.
 */
struct revcompare_ctx;
void cli_revcompare_ctx(struct revcompare_ctx *ctx, struct cli_project *p,
			struct cli_config_source *src, const char *select, bool fresh, bool quiet);
int cli_apply_overrides(struct config *cfg, const struct opt_overrides *ov);
/*
 * Defines in cfg the one benchmark of a comparison of two commands (--cmd-a/--cmd-b),
 * "command", as compare defines it and show defines it again: its definition names both
 * commands, which makes the benchmark stored with its runs. Returns 0 or RP_EINPUT.
 */
int cli_commands_bench(struct config *cfg, const char *cmd_a, const char *cmd_b);
/*
 * The exit status of a comparison that ran (compare_execute() returned err and filled
 * res): EXIT_INTERNAL when the database is damaged (cli_project_verify()), else err's
 * (EXIT_USAGE for another process's lock), else compare_exit_code() (which says 128 + the
 * signal when interrupted). Also stored in res->exit_code, which the reports show: call
 * it before rendering.
 */
struct compare_result;
int cli_compare_exit(struct cli_project *p, int err, struct compare_result *res);
/*
 * compare's progress line on stderr, redrawn in place: the callback when stderr is a
 * terminal and not quiet, else NULL.
 */
struct compare_progress;
typedef void (*compare_progress_fn)(void *arg, const struct compare_progress *ev);
compare_progress_fn cli_compare_progress(bool quiet);
/* After compare_execute(): writes the result's graphics (report/compare_graphics.h). */
void cli_compare_executed(struct compare_result *res, void *arg);

#endif
