/*
 * Where a command's report goes (stdout or its --out file) and the output conventions
 * every reporting command shares: -f, -q, --no-color, NO_COLOR, JSON errors (commands.h).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "util/common.h"
#include "util/suggest.h"

int cli_output_begin(struct cli_output *out, const char *command, const char *const *formats)
{
	struct strbuf list = STRBUF_INIT;
	const char *near[2];
	size_t n = 0, i;
	out->command = command;
	out->json = false;
	out->printed = false;
	if (out->quiet && out->quiet_warnings)
		warning_silence();
	for (n = 0; formats[n]; n++)
		if (!out->format || !strcmp(out->format, formats[n])) {
			out->json = !strcmp(formats[n], "json");
			if (out->json)
				error_record_start();
			return (int)n;
		}
	for (i = 0; i < n; i++)
		strbuf_addf(&list, "%s%s", i ? (i + 1 == n ? " or " : ", ") : "", formats[i]);
	if (suggest_nearest(out->format, formats, n, near, 1))
		usage_error(command, "unknown format '%s' (did you mean '%s'?): use %s",
			    out->format, near[0], list.buf);
	else
		usage_error(command, "unknown format '%s': use %s", out->format, list.buf);
	strbuf_release(&list);
	return -1;
}

bool cli_output_color(const struct cli_output *out)
{
	const char *no_color = getenv("NO_COLOR");
	return !out->no_color && !(no_color && *no_color) && isatty(STDOUT_FILENO);
}

json_t *cli_output_error_json(int code)
{
	json_t *msgs = json_array();
	const char *msg;
	for (size_t i = 0; (msg = error_recorded(i)); i++)
		json_array_append_new(msgs, json_string(msg));
	if (!json_array_size(msgs)) {
		struct strbuf sb = STRBUF_INIT;
		if (code >= 128)
			strbuf_addf(&sb, "interrupted by signal %d", code - 128);
		else
			strbuf_addf(&sb, "failed with exit status %d; see the messages on stderr",
				    code);
		json_array_append_new(msgs, json_string(sb.buf));
		strbuf_release(&sb);
	}
	return json_pack("{s:O, s:o, s:i}", "message", json_array_get(msgs, 0), "messages", msgs,
			 "exit_code", code);
}

int cli_output_end(struct cli_output *out, int code)
{
	json_t *root;
	bool failed = code == EXIT_USAGE || code == EXIT_INTERNAL || code >= 128;
	if (out->json && failed && !out->printed) {
		root = json_pack("{s:s, s:s, s:s, s:o}", "revperf_version", REVPERF_VERSION,
				 "schema", "revperf-error/1", "command", out->command, "error",
				 cli_output_error_json(code));
		if (!root || json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
		    fputc('\n', stdout) == EOF || fflush(stdout))
			code = EXIT_INTERNAL;
		json_decref(root);
	}
	error_record_stop();
	return code;
}

FILE *cli_report_open(const char *path)
{
	FILE *f;
	if (!path)
		return stdout;
	if (!(f = fopen(path, "w")))
		error("cannot create '%s': %s; check that its directory exists and is writable",
		      path, strerror(errno));
	return f;
}

int cli_report_close(FILE *f, const char *path, bool failed, int ok)
{
	struct stat sb;

	failed |= ferror(f) != 0;
	if (f != stdout && fclose(f))
		failed = true;
	if (!failed)
		return ok;
	error("cannot write the report to %s: %s", path ? path : "stdout", strerror(errno));
	/*
	 * No half-written report left behind; but only a regular file is removed: a device
	 * (-o /dev/null, /dev/stdout) removed as root is gone for every process, and the next
	 * `>/dev/null` anywhere creates a regular file in its place.
	 */
	if (path && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
		remove(path);
	return EXIT_INTERNAL;
}
