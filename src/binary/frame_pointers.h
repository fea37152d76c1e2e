#ifndef REVPERF_BINARY_FRAME_POINTERS_H
#define REVPERF_BINARY_FRAME_POINTERS_H

/*
 * Whether an ELF file's code keeps frame pointers: how many of its functions begin with
 * the frame pointer prologue (x86-64: optional endbr64, then push %rbp; mov %rsp,%rbp).
 * The sampling profiler (collect/perf_sample.h) follows the kernel's frame-pointer call
 * chains in such code and unwinds copies of the stack with DWARF elsewhere.
 */
#include <stddef.h>

/*
 * Counts the functions of `path` (.symtab, else .dynsym: defined, sized, in an executable
 * section; the C runtime's start-up code left out) into *functions and those with the
 * prologue into *with_fp (both 0 for a stripped file). Returns 0, or -1 (nothing printed:
 * the caller words it) when the file is missing, not ELF or not x86-64.
 */
int frame_pointer_count(const char *path, size_t *with_fp, size_t *functions);

#endif
