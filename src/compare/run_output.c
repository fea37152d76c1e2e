/* A run's output: the side's append-only log, and the numbers read from a run's part. */
#include "compare/run_output.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/verdict.h"
#include "collect/proc.h"
#include "util/fsutil.h"
#include "util/common.h"
#include "util/input.h"

int64_t run_log_size(const char *path)
{
	struct stat st;
	return stat(path, &st) < 0 ? -1 : (int64_t)st.st_size;
}

/* Reads [off, off + len) of a file (at most 256 MiB) into sb. */
int run_log_read(const char *path, int64_t off, int64_t len, struct strbuf *sb)
{
	struct strbuf why = STRBUF_INIT;
	struct input in;
	ssize_t n;
	int err;
	if (len < 0 || len > (256 << 20))
		return -1;
	/* A regular file of any size (read in windows); never a FIFO left in its place. */
	err = input_open_why(&in, path, &input_run_log, &why);
	strbuf_release(&why);
	if (err)
		return -1;
	strbuf_grow(sb, (size_t)len);
	n = pread(in.fd, sb->buf + sb->len, (size_t)len, (off_t)off);
	input_close(&in);
	if (n < 0)
		return -1;
	sb->len += (size_t)n;
	sb->buf[sb->len] = '\0';
	return 0;
}

/* "1.4 GiB", "12.0 MiB", "900 KiB", "512 bytes". */
static void add_size(struct strbuf *sb, uint64_t bytes)
{
	if (bytes >= (uint64_t)1 << 30)
		strbuf_addf(sb, "%.1f GiB", (double)bytes / (double)(1 << 30));
	else if (bytes >= (uint64_t)1 << 20)
		strbuf_addf(sb, "%.1f MiB", (double)bytes / (double)(1 << 20));
	else if (bytes >= 1024)
		strbuf_addf(sb, "%.0f KiB", (double)bytes / 1024.0);
	else
		strbuf_addf(sb, "%llu bytes", (unsigned long long)bytes);
}

void run_output_note_dropped(struct strbuf *detail, const struct proc_result *res)
{
	if (!res->output_dropped)
		return;
	strbuf_addf(detail, "%soutput of ", detail->len ? "; " : "");
	add_size(detail, res->output_bytes);
	strbuf_addf(detail, " (%llu bytes): ", (unsigned long long)res->output_bytes);
	add_size(detail, res->output_dropped);
	strbuf_addstr(detail, " beyond the log limit not kept (log-limit; its beginning and end "
			      "are in the log)");
}

int run_output_last_line(const char *path, int64_t off, int64_t len, struct strbuf *line)
{
	struct strbuf sb = STRBUF_INIT;
	const char *end, *start;
	int64_t from = len > 65536 ? off + len - 65536 : off;
	if (run_log_read(path, from, off + len - from, &sb)) {
		strbuf_release(&sb);
		return -1;
	}
	end = sb.buf + sb.len;
	while (end > sb.buf && strchr("\n\r \t", end[-1]))
		end--;
	for (start = end; start > sb.buf && start[-1] != '\n';)
		start--;
	/* Visible and harmless on a terminal: no control bytes, at most 120 of them. */
	for (const char *p = start; p < end && line->len < 120; p++)
		strbuf_addch(line, (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p);
	strbuf_release(&sb);
	return 0;
}

/* Mean steady-state iteration time from `revperf-iteration SECONDS` lines of a run's output. */
bool run_output_iterations(const char *out, double *value, bool *steady)
{
	double *it = NULL;
	size_t n = 0, alloc = 0, first;
	const char *p;
	bool ok = false;
	for (p = out; (p = strstr(p, "revperf-iteration ")) != NULL;) {
		char *end;
		double v;
		bool at_line_start = p == out || p[-1] == '\n';
		p += strlen("revperf-iteration ");
		v = strtod(p, &end);
		if (!at_line_start || end == p || !isfinite(v) || v < 0)
			continue;
		ALLOC_GROW(it, n + 1, alloc);
		it[n++] = v;
		p = end;
	}
	if (n) {
		*steady = steady_state(it, n, 5, 0.02, &first, value);
		ok = true;
	}
	free(it);
	return ok;
}

/*
 * The value of a reported metric in a run's output: the first capture group of the last
 * match (or the mean over all matches). Returns true with *value, or false with a note for
 * the run (no match, or a match that is not a number): never a made-up zero.
 */
bool run_output_reported(const struct reported_metric *rm, const char *out, double *value,
			   struct strbuf *note)
{
	regmatch_t m[2];
	const char *p = out;
	double sum = 0, last = 0;
	size_t n = 0;
	int eflags = 0;
	while (*p && regexec(&rm->re, p, 2, m, eflags) == 0) {
		char num[64], *end;
		size_t len;
		double v;
		if (m[1].rm_so < 0) { /* the group did not take part in this match */
			p += m[0].rm_eo > 0 ? m[0].rm_eo : 1;
			continue;
		}
		len = (size_t)(m[1].rm_eo - m[1].rm_so);
		snprintf(num, sizeof(num), "%.*s", (int)(len < 63 ? len : 63), p + m[1].rm_so);
		v = strtod(num, &end);
		while (*end == ' ')
			end++;
		if (end == num || *end || !isfinite(v) || len >= 63) {
			strbuf_addf(note, "%smetric %s: '%s' is not a number (from /%s/)",
				    note->len ? "; " : "", rm->def->name, num, rm->pattern);
			return false;
		}
		sum += v;
		last = v;
		n++;
		p += m[0].rm_eo > 0 ? m[0].rm_eo : 1;
		eflags = REG_NOTBOL;
		if (p > out && p[-1] == '\n')
			eflags = 0;
	}
	if (!n) {
		strbuf_addf(note, "%smetric %s: no match for /%s/ in the run's output",
			    note->len ? "; " : "", rm->def->name, rm->pattern);
		return false;
	}
	*value = rm->mean ? sum / (double)n : last;
	return true;
}

