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
#include "util/units.h"

int64_t run_log_size(const char *path)
{
	struct stat st;
	return stat(path, &st) < 0 || !S_ISREG(st.st_mode) ? -1 : (int64_t)st.st_size;
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
	for (size_t i = sb->len; i < sb->len + (size_t)n; i++)
		if (!sb->buf[i])
			sb->buf[i] = ' ';
	sb->len += (size_t)n;
	sb->buf[sb->len] = '\0';
	return 0;
}

void run_output_note_dropped(struct strbuf *detail, const struct proc_result *res)
{
	if (!res->output_dropped)
		return;
	strbuf_addf(detail, "%soutput of ", detail->len ? "; " : "");
	units_bytes_add(detail, (double)res->output_bytes);
	strbuf_addf(detail, " (%llu bytes): ", (unsigned long long)res->output_bytes);
	units_bytes_add(detail, (double)res->output_dropped);
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
 * Scans a run's output for a reported metric: the first capture group of each match.
 * Returns the number of matches whose group is a number (their sum in *sum, the last in
 * *last, its group at out + [*at, *at + *len)), or -1 with a note when a group is not a
 * number.
 */
static long scan_reported(const struct reported_metric *rm, const char *out, double *sum,
			  double *last, size_t *at, size_t *len, struct strbuf *note)
{
	regmatch_t m[2];
	const char *p = out;
	long n = 0;
	int eflags = 0;
	*sum = *last = 0;
	while (*p && regexec(&rm->re, p, 2, m, eflags) == 0) {
		char num[64], *end;
		size_t l;
		double v;
		if (m[1].rm_so < 0) { /* the group did not take part in this match */
			p += m[0].rm_eo > 0 ? m[0].rm_eo : 1;
			continue;
		}
		l = (size_t)(m[1].rm_eo - m[1].rm_so);
		snprintf(num, sizeof(num), "%.*s", (int)(l < 63 ? l : 63), p + m[1].rm_so);
		v = strtod(num, &end);
		while (*end == ' ')
			end++;
		if (end == num || *end || !isfinite(v) || l >= 63) {
			strbuf_addf(note, "%smetric %s: '%s' is not a number (from /%s/)",
				    note->len ? "; " : "", rm->def->name, num, rm->pattern);
			return -1;
		}
		*sum += v;
		*last = v;
		*at = (size_t)(p - out) + (size_t)m[1].rm_so;
		*len = l;
		n++;
		p += m[0].rm_eo > 0 ? m[0].rm_eo : 1;
		eflags = REG_NOTBOL;
		if (p > out && p[-1] == '\n')
			eflags = 0;
	}
	return n;
}

/*
 * The value of a reported metric in a run's output: the first capture group of the last
 * match (or the mean over all matches). Returns true with *value, or false with a note for
 * the run (no match, or a match that is not a number): never a made-up zero.
 */
bool run_output_reported(const struct reported_metric *rm, const char *out, double *value,
			 struct strbuf *note)
{
	double sum, last;
	size_t at, len;
	long n = scan_reported(rm, out, &sum, &last, &at, &len, note);
	if (n < 0)
		return false;
	if (!n) {
		strbuf_addf(note, "%smetric %s: no match for /%s/ in the run's output",
			    note->len ? "; " : "", rm->def->name, rm->pattern);
		return false;
	}
	*value = rm->mean ? sum / (double)n : last;
	return true;
}

const char *run_output_identity(struct strbuf *sb, const struct bench_config *bench)
{
	strbuf_reset(sb);
	strbuf_addstr(sb, bench->command);
	if (bench->discard_stdout)
		strbuf_addstr(sb, " [output = discard]");
	return sb->buf;
}

/* Longer lines are shown around the number: this many bytes on either side. */
#define LINE_CONTEXT 120

/* A line ends at \n, and for the eye at \r too: progress lines (lz4 -b) redraw with \r. */
static bool line_end(char c)
{
	return c == '\n' || c == '\r';
}

/* The line of out around [at, at + len) into rl (cut around the number when long). */
static void matched_line(struct reported_line *rl, const char *out, size_t at, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t start = at, end = at + len;
	while (start > 0 && !line_end(out[start - 1]) && at - start < LINE_CONTEXT)
		start--;
	while (out[end] && !line_end(out[end]) && end - at - len < LINE_CONTEXT)
		end++;
	if (start > 0 && !line_end(out[start - 1]))
		strbuf_addstr(&sb, "...");
	rl->value_at = sb.len + (at - start);
	rl->value_len = len;
	strbuf_add(&sb, out + start, end - start);
	if (out[end] && !line_end(out[end]))
		strbuf_addstr(&sb, "...");
	rl->line = strbuf_detach(&sb);
}

int run_output_first_lines(struct store *st, const struct store_run_filter filter[2],
			   const struct bench_config *bench, struct reported_line **out,
			   size_t *nr)
{
	struct store_run_log log = {0};
	struct strbuf output = STRBUF_INIT, note = STRBUF_INIT;
	int side, found = 1;
	*out = NULL;
	*nr = 0;
	if (!bench->nr_reported)
		return 0;
	/* the baseline's first run, or the target's when the baseline has none */
	for (side = 0; side < 2; side++) {
		if ((found = store_run_first_log(st, &filter[side], &log)) < 0)
			return found;
		if (!found)
			break;
	}
	if (found || run_log_read(log.path, log.offset, log.length, &output)) {
		store_run_log_release(&log);
		return 0; /* no run, or its log is gone: nothing to show */
	}
	*out = xcalloc(bench->nr_reported, sizeof(**out));
	*nr = bench->nr_reported;
	for (size_t i = 0; i < bench->nr_reported; i++) {
		const struct reported_metric *rm = &bench->reported[i];
		struct reported_line *rl = &(*out)[i];
		double sum, last;
		size_t at = 0, len = 0;
		long n = scan_reported(rm, output.buf, &sum, &last, &at, &len, &note);
		rl->metric = rm->def->name;
		rl->mean = rm->mean;
		rl->side = side ? 'B' : 'A';
		rl->run_id = log.run_id;
		rl->matches = n > 0 ? (size_t)n : 0;
		if (n > 0)
			matched_line(rl, output.buf, at, len);
		strbuf_reset(&note);
	}
	strbuf_release(&note);
	strbuf_release(&output);
	store_run_log_release(&log);
	return 0;
}

void reported_lines_free(struct reported_line *rl, size_t nr)
{
	for (size_t i = 0; rl && i < nr; i++)
		free(rl[i].line);
	free(rl);
}
