#ifndef REVPERF_COLLECT_CMDLINE_H
#define REVPERF_COLLECT_CMDLINE_H

#include <stdbool.h>

/*
 * Benchmark command lines: decides whether a command needs /bin/sh or can be exec'd
 * directly (which saves the shell's startup, like hyperfine -N).
 *
 * A command is exec'd directly when it consists only of words separated by blanks, where a
 * word may contain single-quoted parts and double-quoted parts without $ ` or \, and its
 * first word is not a shell builtin or keyword (exit, cd, if, ...). Anything else, e.g.
 * $ ` | & ; < > ( ) * ? [ ] ~ { } # ! \ a newline, an assignment in the first word, an
 * unterminated quote or an empty command, needs the shell.
 */

/*
 * Splits a command into a NULL-terminated argv (quotes removed) when it can be exec'd
 * directly; returns NULL when it needs a shell. The caller frees the result with
 * cmdline_free(). Thread-safe.
 */
char **cmdline_split(const char *command);

/* Frees an argv returned by cmdline_split(); accepts NULL. */
void cmdline_free(char **argv);

/* Appends s to sb as one single-quoted /bin/sh word ('\'' for each quote). */
struct strbuf;
void cmdline_add_shell_quoted(struct strbuf *sb, const char *s);

/* True when the command must be run with /bin/sh -c. Thread-safe. */
bool cmdline_needs_shell(const char *command);

#endif
