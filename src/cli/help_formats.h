#ifndef REVPERF_CLI_HELP_FORMATS_H
#define REVPERF_CLI_HELP_FORMATS_H

#include <stdio.h>

/*
 * The other renderings of the command table and the option tables that -h prints, so
 * that the installed manual pages and the shell completion never disagree with -h
 * (`revperf help --man`, `--man-dir`, `--bash-completion`; docs/install.md).
 */

/* The overview that `revperf help` prints: what revperf does and its commands. */
void help_overview(FILE *f);

/*
 * The manual page (roff, man(7) macros) of one command, revperf-NAME(1); cmd NULL:
 * revperf(1), the overview with every command, the environment and the files.
 * Returns 0, or -1 when writing failed.
 */
struct command;
int help_man_page(FILE *f, const struct command *cmd);

/*
 * Writes revperf.1 and revperf-NAME.1 for every command into dir (created if missing).
 * Returns 0, or -1 after error() naming the file that could not be written.
 */
int help_man_dir(const char *dir);

/* A bash completion script for revperf (complete -F _revperf revperf). 0 or -1. */
int help_bash_completion(FILE *f);

#endif
