/* `revperf queue`'s report (queue_report.h). */
#include "report/queue_report.h"

#include <jansson.h>
#include <string.h>

#include "util/common.h"
#include "util/strbuf.h"

static const char *state_color(const char *state)
{
	if (!strcmp(state, "failed"))
		return "\033[31m";
	if (!strcmp(state, "done"))
		return "\033[32m";
	if (!strcmp(state, "running"))
		return "\033[33m";
	return "";
}

int queue_report_text(FILE *f, const struct store_job *jobs, size_t n, const char *state,
		      bool color)
{
	size_t count[4] = {0};
	static const char *const states[4] = {"queued", "running", "done", "failed"};
	struct strbuf line = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const struct store_job *j = &jobs[i];
		for (size_t s = 0; s < 4; s++)
			if (!strcmp(j->state, states[s]))
				count[s]++;
		strbuf_reset(&line);
		strbuf_addf(&line, "%6lld  ", (long long)j->id);
		if (color && *state_color(j->state))
			strbuf_addf(&line, "%s%-7s\033[0m", state_color(j->state), j->state);
		else
			strbuf_addf(&line, "%-7s", j->state);
		strbuf_addf(&line, "  %-14s  ", j->kind);
		strbuf_add_printable(&line, j->label);
		if (j->machine_tag) {
			strbuf_addstr(&line, "  [tag ");
			strbuf_add_printable(&line, j->machine_tag);
			strbuf_addstr(&line, "]");
		}
		if (!strcmp(j->state, "running")) {
			long long left = (long long)(j->lease_until - j->now);
			strbuf_addstr(&line, "  on ");
			strbuf_add_printable(&line, j->worker ? j->worker : "?");
			if (j->progress) {
				strbuf_addstr(&line, ": ");
				strbuf_add_printable(&line, j->progress);
			}
			if (left >= 0)
				strbuf_addf(&line, " (lease %lld s more", left);
			else
				strbuf_addf(&line,
					    " (lease ran out %lld s ago: its worker is gone; "
					    "the next worker resumes it",
					    -left);
			strbuf_addf(&line, ", attempt %lld)", (long long)j->attempts);
		} else if (!strcmp(j->state, "done") || !strcmp(j->state, "failed")) {
			strbuf_addstr(&line, "  on ");
			strbuf_add_printable(&line, j->machine ? j->machine : "?");
			strbuf_addf(&line, ", %lld s", (long long)(j->finished_at - j->started_at));
			/* An error says its exit status itself. */
			if (j->exit_code >= 0 && !j->error)
				strbuf_addf(&line, ", exit %lld", (long long)j->exit_code);
			if (j->error) {
				strbuf_addstr(&line, ": ");
				strbuf_add_printable(&line, j->error);
			}
		} else if (j->attempts) {
			strbuf_addf(&line, "  (given back after %lld attempt%s)",
				    (long long)j->attempts, j->attempts == 1 ? "" : "s");
		}
		fprintf(f, "%s\n", line.buf);
	}
	strbuf_release(&line);
	if (state)
		fprintf(f, "%zu %s (--state %s)\n", n, state, state);
	else
		fprintf(f, "%zu queued, %zu running, %zu done, %zu failed\n", count[0], count[1],
			count[2], count[3]);
	return ferror(f) ? -1 : 0;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *time_or_null(int64_t t)
{
	return t ? json_integer((json_int_t)t) : json_null();
}

int queue_report_json(FILE *f, const struct store_job *jobs, size_t n)
{
	json_t *root = json_object(), *arr = json_array();
	int ret;
	json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
	json_object_set_new(root, "schema", json_string("revperf-queue/1"));
	json_object_set_new(root, "now", json_integer(n ? (json_int_t)jobs[0].now : 0));
	for (size_t i = 0; i < n; i++) {
		const struct store_job *j = &jobs[i];
		json_t *o = json_object();
		json_t *args = json_loads(j->args ? j->args : "[]", 0, NULL);
		json_object_set_new(o, "id", json_integer((json_int_t)j->id));
		json_object_set_new(o, "kind", json_string(j->kind));
		json_object_set_new(o, "label", json_string(j->label));
		json_object_set_new(o, "args", args ? args : json_null());
		json_object_set_new(o, "machine_tag", str_or_null(j->machine_tag));
		json_object_set_new(o, "state", json_string(j->state));
		json_object_set_new(o, "worker", str_or_null(j->worker));
		json_object_set_new(o, "machine", str_or_null(j->machine));
		json_object_set_new(o, "progress", str_or_null(j->progress));
		json_object_set_new(o, "error", str_or_null(j->error));
		json_object_set_new(o, "exit_code",
				    j->exit_code >= 0 ? json_integer((json_int_t)j->exit_code)
						      : json_null());
		json_object_set_new(o, "attempts", json_integer((json_int_t)j->attempts));
		json_object_set_new(o, "lease_until", time_or_null(j->lease_until));
		json_object_set_new(o, "submitted_at", time_or_null(j->submitted_at));
		json_object_set_new(o, "started_at", time_or_null(j->started_at));
		json_object_set_new(o, "finished_at", time_or_null(j->finished_at));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "jobs", arr);
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
	return ret || ferror(f) ? -1 : 0;
}
