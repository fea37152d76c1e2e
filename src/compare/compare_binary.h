#ifndef REVPERF_COMPARE_COMPARE_BINARY_H
#define REVPERF_COMPARE_COMPARE_BINARY_H

/*
 * Whether the two builds of the program a benchmark runs hold the same code (issue 17,
 * docs/counted.md): the binary diff (binary/bindiff.h) of the program in the baseline's
 * and the target's worktree, every function unchanged. Only for two different builds of
 * revisions, and only when the program is an ELF file of the worktree (`binary = PATH`,
 * or the command's first word as a relative path); otherwise nothing is said.
 */
#include "compare/compare.h"

/*
 * Fills b->same_code, b->program, b->renamed (the functions the diff paired as renamed,
 * which the counted attribution pairs too) and b->changed (every function that differs),
 * freed with the result. Prints nothing.
 */
void compare_same_code(const struct compare_request *req, const struct bench_config *bench,
		       struct bench_outcome *b);
/* Whether bench runs a program of the worktree (a relative path) that compare_same_code()
 * would diff when it is an ELF file of both builds. */
bool compare_has_program(const struct bench_config *bench);

#endif
