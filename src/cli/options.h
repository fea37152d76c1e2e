#ifndef REVPERF_CLI_OPTIONS_H
#define REVPERF_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Per-command option tables: one table declares each option once and produces both the
 * parsing and the -h text (and, through `revperf help --markdown`, the manual).
 */
enum opt_type {
	OPT_END = 0,
	OPT_FLAG,   /* bool *value */
	OPT_STRING, /* const char **value */
	OPT_CONFIG, /* a configuration option: recorded in struct opt_overrides *value */
	OPT_OPTARG, /* const char **value: "--name=VALUE", or a bare "--name" for the value in
		       config_key (long form only: a following word is never its value) */
};

struct option {
	enum opt_type type;
	char short_name;
	const char *long_name;
	const char *argh; /* "N", "FILE"; NULL for flags */
	const char *help;
	void *value;
	const char *config_key; /* OPT_CONFIG: the revperf.ini key it overrides; OPT_OPTARG:
				   the value of the bare option */
};

#define OPT_END_MARKER { OPT_END, 0, NULL, NULL, NULL, NULL, NULL }

/* Configuration options given as flags, in order, for config_set(). */
struct opt_overrides {
	struct {
		const char *key, *value, *flag;
	} items[64];
	size_t nr;
};

struct command_help {
	const char *name;
	const char *const *usage; /* NULL-terminated usage lines */
	const char *description;
	const struct option *options;
};

/*
 * Parses argv[1..argc-1] of a command. Positional arguments are collected (in order) into
 * args, at most max_args of them; "--" ends options. Returns the number of positional
 * arguments, -2 when -h/--help was handled (help printed on stdout), or -1 on a usage
 * error (one line printed on stderr, naming the option and pointing to -h).
 */
int parse_options(int argc, char **argv, const struct command_help *help, const char **args,
		  int max_args);

/*
 * parse_options(), and *split the number of positional arguments before "--" (-1 without
 * one): commands that take two lists (`diff OLD... -- NEW...`).
 */
int parse_options_split(int argc, char **argv, const struct command_help *help,
			const char **args, int max_args, int *split);

/* Prints the -h text of a command. */
void options_usage(FILE *f, const struct command_help *help);
/* Prints the same as Markdown, for docs/manual.md. */
void options_usage_markdown(FILE *f, const struct command_help *help);

/*
 * Pulls `--baseline A B ... --target C D ...` (and --baseline=A, --target=C) out of argv:
 * the words after --baseline up to the next option go to side[0], after --target to
 * side[1] ("-", standard input, is a word); everything else, argv[0] first, to *rest for
 * parse_options(). Nothing after "--" is taken. The caller frees *rest, side[0], side[1]
 * (arrays of argv's pointers).
 */
void options_split_sides(int argc, char **argv, char ***rest, int *nr_rest, char ***side,
			 int nr_side[2]);
/* Standard input ("-") among args at most once; else a usage_error() (returns -1). */
int stdin_at_most_once(const char *cmd, const char *const *args, int n);

/* A usage error: prints "revperf <cmd>: <message>; see revperf <cmd> -h" and returns -1. */
__attribute__((format(printf, 2, 3))) int usage_error(const char *cmd, const char *fmt, ...);

#endif
