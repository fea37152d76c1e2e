/*
 * libFuzzer target for the ELF and symbol reader: arbitrary bytes through
 * binfile_load_memory() (ELF header and sections, symbols, aliases, PLT and GOT names,
 * relocations, DWARF, disassembly and normalisation) and the DWARF inline walk. Any input
 * must give a binfile or RP_EINPUT, never a crash or a sanitizer report.
 * Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined); see tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>

#include "binary/binfile.h"
#include "util/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count_name(const char *name, void *data)
{
	*(size_t *)data += name[0] != '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct binfile *bf;
	size_t i, names = 0;
	int ret = binfile_load_memory("fuzz-input", data, size, 0, &bf);
	if (ret) {
		if (ret != RP_EINPUT)
			abort(); /* bad input must be reported as such */
		return 0;
	}
	for (i = 0; i < bf->nr_funcs; i++) {
		const struct binfunc *f = &bf->funcs[i];
		if (binfile_func_at(bf, f->addr) == NULL)
			abort(); /* every function is found at its own address */
		binfile_inlined(bf, f, count_name, &names);
	}
	binfile_free(bf);
	return 0;
}
