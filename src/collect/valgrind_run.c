/* Counted runs under callgrind (collect/valgrind_run.h). */
#include "collect/valgrind_run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/cmdline.h"
#include "util/common.h"

bool valgrind_available(void)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;
	bool found = false;
	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (!found && *path) {
		size_t len = strcspn(path, ":");
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%.*s/valgrind", (int)len, len ? path : ".");
		found = access(sb.buf, X_OK) == 0;
		path += len + (path[len] == ':');
	}
	strbuf_release(&sb);
	return found;
}

void valgrind_command(struct strbuf *cmd, const char *command, const char *out_dir,
		      bool cache_sim)
{
	struct strbuf file = STRBUF_INIT;
	strbuf_addf(&file, "--callgrind-out-file=%s/callgrind.out.%%p", out_dir);
	strbuf_addstr(cmd, "valgrind --tool=callgrind --trace-children=yes ");
	cmdline_add_shell_quoted(cmd, file.buf);
	if (cache_sim)
		strbuf_addstr(cmd, " --cache-sim=yes --branch-sim=yes --I1=" VALGRIND_I1
				   " --D1=" VALGRIND_D1 " --LL=" VALGRIND_LL);
	strbuf_addch(cmd, ' ');
	if (cmdline_needs_shell(command)) {
		strbuf_addstr(cmd, "/bin/sh -c ");
		cmdline_add_shell_quoted(cmd, command);
	} else {
		strbuf_addstr(cmd, command);
	}
	strbuf_release(&file);
}

bool valgrind_wrapper(struct strbuf *sb, const char *command)
{
	if (!cmdline_needs_shell(command))
		return false;
	strbuf_addf(sb, "/bin/sh -c %s", command);
	return true;
}
