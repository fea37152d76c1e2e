#ifndef REVPERF_BINARY_ELF_SECTIONS_H
#define REVPERF_BINARY_ELF_SECTIONS_H

#include "binary/binfile_impl.h"

/*
 * Validates the ELF header of bf->elf (an ELF, little-endian, x86-64 or aarch64, an
 * executable, shared library or object file) and reads the section table into
 * bf->sections, giving the allocated sections of an object file a synthetic layout so
 * that every address in a binfile is unique. Returns 0, or RP_EINPUT after one error()
 * line naming bf->path and what is wrong with it.
 */
int elf_sections_read(struct binfile *bf);

/*
 * Fills bf->dynlink from the sections elf_sections_read() read (elf_dynlink.c). Never
 * fails: a dynamic table that cannot be read leaves dynlink.dynamic false.
 */
void elf_dynlink_read(struct binfile *bf);

/* Releases what elf_sections_read() and elf_dynlink_read() allocated. */
void elf_sections_release(struct binfile *bf);

#endif
