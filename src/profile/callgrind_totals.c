/* The event totals of a counted run (profile/callgrind_totals.h). */
#include "profile/callgrind_totals.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/common.h"

/* The header (cmd:, events:) is within the first lines, totals: within the last ones. */
#define HEAD_BYTES 8192
#define TAIL_BYTES 8192

static const char *const event_names[CG_NR_EVENTS] = {
	"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
};

/* Reads up to len bytes at offset into buf (NUL-terminated). Returns the bytes read or -1. */
static ssize_t read_at(int fd, char *buf, size_t len, off_t offset)
{
	ssize_t n = pread(fd, buf, len, offset);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* The value of `key: value` at the start of a line of text, up to the line's end. */
static const char *line_value(const char *text, const char *key, size_t *len)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p;) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			const char *v = p + klen + 1, *end;
			while (*v == ' ')
				v++;
			end = strchr(v, '\n');
			*len = end ? (size_t)(end - v) : strlen(v);
			return v;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* Maps the columns of `events:` to enum callgrind_event (-1 for other events). */
static int parse_events(const char *v, size_t len, int *cols, size_t max_cols, size_t *nr_cols)
{
	char *copy = xstrndup(v, len), *save = NULL;
	*nr_cols = 0;
	for (char *w = strtok_r(copy, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
		int e = -1;
		if (*nr_cols == max_cols)
			break;
		for (int k = 0; k < CG_NR_EVENTS; k++)
			if (!strcmp(w, event_names[k]))
				e = k;
		cols[(*nr_cols)++] = e;
	}
	free(copy);
	return *nr_cols ? 0 : -1;
}

static int bad_file(const char *path, const char *what)
{
	error("%s: %s: not a complete callgrind file (was the run killed?)", path, what);
	return RP_EINPUT;
}

static int read_process(const char *path, struct callgrind_process *p)
{
	char *head = xmalloc(HEAD_BYTES + 1), *tail = xmalloc(TAIL_BYTES + 1);
	const char *v;
	size_t len, nr_cols;
	int cols[64], ret = RP_EINPUT;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	p->file = xstrdup(path);
	p->command = xstrdup("");
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		error("cannot read %s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
		goto out;
	}
	if (read_at(fd, head, HEAD_BYTES, 0) < 0 ||
	    read_at(fd, tail, TAIL_BYTES, st.st_size > TAIL_BYTES ? st.st_size - TAIL_BYTES : 0) <
		0) {
		error("cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	if ((v = line_value(head, "cmd", &len))) {
		free(p->command);
		p->command = xstrndup(v, len);
	}
	if (!(v = line_value(head, "events", &len)) ||
	    parse_events(v, len, cols, sizeof(cols) / sizeof(cols[0]), &nr_cols)) {
		ret = bad_file(path, "no events: line");
		goto out;
	}
	/* The last totals: line of the file (the tail may begin inside a line). */
	{
		const char *t = NULL;
		for (const char *s = tail; (s = strstr(s, "\ntotals:")); s++)
			t = s + 1;
		if (!t && !strncmp(tail, "totals:", 7))
			t = tail;
		if (!t) {
			ret = bad_file(path, "no totals: line at its end");
			goto out;
		}
		t += 7;
		for (size_t i = 0; i < nr_cols; i++) {
			char *end;
			double x;
			errno = 0;
			x = strtod(t, &end);
			if (end == t || errno || !isfinite(x) || x < 0) {
				ret = bad_file(path, "a totals: line with a missing or bad number");
				goto out;
			}
			if (cols[i] >= 0)
				p->events[cols[i]] = x;
			t = end;
		}
	}
	/* An event the file does not list stays NAN. */
	for (int k = 0; k < CG_NR_EVENTS; k++) {
		bool listed = false;
		for (size_t i = 0; i < nr_cols; i++)
			listed |= cols[i] == k;
		if (!listed)
			p->events[k] = NAN;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(head);
	free(tail);
	return ret;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct callgrind_process *)a)->file,
		      ((const struct callgrind_process *)b)->file);
}

int callgrind_run_totals_read(const char *dir, const char *wrapper,
			      struct callgrind_run_totals *out)
{
	struct strbuf path = STRBUF_INIT;
	size_t alloc = 0, counted = 0;
	struct dirent *e;
	DIR *d;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!(d = opendir(dir))) {
		error("cannot read the counted run's directory %s: %s", dir, strerror(errno));
		return RP_EINPUT;
	}
	while (!ret && (e = readdir(d))) {
		if (strncmp(e->d_name, "callgrind.out.", 14))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		ALLOC_GROW(out->procs, out->nr_procs + 1, alloc);
		memset(&out->procs[out->nr_procs], 0, sizeof(out->procs[0]));
		ret = read_process(path.buf, &out->procs[out->nr_procs++]);
	}
	closedir(d);
	strbuf_release(&path);
	if (ret)
		return ret;
	if (!out->nr_procs) {
		error("%s: valgrind wrote no callgrind file; see the run's log", dir);
		return RP_EINPUT;
	}
	qsort(out->procs, out->nr_procs, sizeof(*out->procs), name_cmp);
	for (int k = 0; k < CG_NR_EVENTS; k++)
		out->have[k] = true;
	for (size_t i = 0; i < out->nr_procs; i++) {
		struct callgrind_process *p = &out->procs[i];
		p->wrapper = wrapper && out->nr_procs > 1 && !strcmp(p->command, wrapper);
		if (p->wrapper)
			continue;
		counted++;
		for (int k = 0; k < CG_NR_EVENTS; k++) {
			if (isnan(p->events[k]))
				out->have[k] = false;
			else
				out->events[k] += p->events[k];
		}
	}
	if (!counted) { /* only wrappers: they are the benchmark */
		for (size_t i = 0; i < out->nr_procs; i++) {
			out->procs[i].wrapper = false;
			for (int k = 0; k < CG_NR_EVENTS; k++) {
				if (isnan(out->procs[i].events[k]))
					out->have[k] = false;
				else
					out->events[k] += out->procs[i].events[k];
			}
		}
	}
	for (int k = 0; k < CG_NR_EVENTS; k++)
		if (!out->have[k])
			out->events[k] = NAN;
	return 0;
}

void callgrind_run_totals_release(struct callgrind_run_totals *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_procs; i++) {
		free(t->procs[i].file);
		free(t->procs[i].command);
	}
	free(t->procs);
	memset(t, 0, sizeof(*t));
}

double callgrind_sim_cycles(const struct callgrind_run_totals *t)
{
	const double *e = t->events;
	double accesses, l1_misses, ll_misses;
	for (int k = CG_IR; k <= CG_DLMW; k++)
		if (!t->have[k])
			return NAN;
	accesses = e[CG_IR] + e[CG_DR] + e[CG_DW];
	l1_misses = e[CG_I1MR] + e[CG_D1MR] + e[CG_D1MW];
	ll_misses = e[CG_ILMR] + e[CG_DLMR] + e[CG_DLMW];
	return (accesses - l1_misses) + 5 * (l1_misses - ll_misses) + 35 * ll_misses +
	       10 * ((t->have[CG_BCM] ? e[CG_BCM] : 0) + (t->have[CG_BIM] ? e[CG_BIM] : 0));
}
