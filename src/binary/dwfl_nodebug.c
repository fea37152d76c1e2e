#include "binary/dwfl_nodebug.h"

#include "util/common.h"

int dwfl_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name)
{
	UNUSED(mod);
	UNUSED(userdata);
	UNUSED(modname);
	UNUSED(base);
	UNUSED(file_name);
	UNUSED(debuglink_file);
	UNUSED(debuglink_crc);
	UNUSED(debuginfo_file_name);
	return -1;
}
