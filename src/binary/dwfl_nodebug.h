#ifndef REVPERF_BINARY_DWFL_NODEBUG_H
#define REVPERF_BINARY_DWFL_NODEBUG_H

/*
 * A Dwfl_Callbacks.find_debuginfo that looks for nothing: revperf uses only the DWARF and
 * CFI inside the files themselves, never a separate debug file under /usr/lib/debug nor
 * one fetched by debuginfod (no network, no surprise, no cost per module). Shared by the
 * symbolizer, the DWARF reader of the binary diff and the I/O tracer's unwinder.
 */
#include <elfutils/libdwfl.h>

int dwfl_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name);

#endif
