/* Counter series from CSV files (docs/counters.md). */
#include "import/counters_csv.h"

#include "analysis/counters_chart.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fsutil.h"
#include "util/common.h"
#include "util/input.h"
#include "util/strmap.h"

#define MAX_FIELDS 64

enum { COL_TIME, COL_COUNTER, COL_VALUE, COL_RUN, NR_COLS };

/*
 * Splits one line into fields (in place): commas separate, a field may be "quoted" with ""
 * for a quote. Returns the number of fields, or -1 for an unterminated quote.
 */
static int split_fields(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *out = p, *start = p;
		if (n == max)
			return n;
		if (*p == '"') {
			start = out = ++p;
			for (;;) {
				if (!*p)
					return -1;
				if (*p == '"' && p[1] == '"') {
					*out++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*out++ = *p++;
				}
			}
			while (*p && *p != ',')
				p++; /* anything between the closing quote and the comma is dropped
				      */
		} else {
			while (*p && *p != ',')
				p++;
			out = p;
		}
		fields[n++] = start;
		if (!*p) {
			*out = '\0';
			return n;
		}
		*out = '\0';
		p++;
	}
}

static char *trim(char *s)
{
	char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static bool parse_finite(const char *s, double *out)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno == ERANGE || !isfinite(v))
		return false;
	*out = v;
	return true;
}

/*
 * The index in *runs of the run called `name` in this file (NULL: the file is one run),
 * created at the end when new. `seen` maps the names of this file's runs to their index,
 * so that a file of many runs is read in linear time.
 */
static size_t run_of(const char *path, const char *name, struct strmap *seen,
		     struct counters_csv_run **runs, size_t *nr, size_t *alloc)
{
	struct strbuf sb = STRBUF_INIT;
	struct counters_csv_run *r;
	bool added;
	size_t *idx = strmap_put(seen, name ? name : "", *nr, &added);

	if (!added)
		return *idx;
	strbuf_addstr(&sb, path);
	if (name)
		strbuf_addf(&sb, ":%s", name);
	ALLOC_GROW(*runs, *nr + 1, *alloc);
	r = &(*runs)[*nr];
	memset(r, 0, sizeof(*r));
	r->name = strbuf_detach(&sb);
	run_samples_init(&r->samples);
	return (*nr)++;
}

/* One sample as read, before the runs are filled in time order. */
struct row {
	size_t run;	/* index into *runs */
	size_t counter; /* index into the file's counter names */
	size_t seq;	/* line order, so that equal timestamps keep it */
	double t, v;
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->counter != y->counter)
		return x->counter < y->counter ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The index of `name` in names[], added when new; `seen` maps the names to it. */
static size_t name_index(struct strmap *seen, char ***names, size_t *nr, size_t *alloc,
			 const char *name)
{
	bool added;
	size_t *idx = strmap_put(seen, name, *nr, &added);
	if (!added)
		return *idx;
	ALLOC_GROW(*names, *nr + 1, *alloc);
	(*names)[*nr] = xstrdup(name);
	return (*nr)++;
}

int counters_csv_read(const char *path, struct counters_csv_run **runs, size_t *nr, size_t *alloc)
{
	struct strbuf sb = STRBUF_INIT;
	char *fields[MAX_FIELDS], *line, *next;
	int col[NR_COLS] = {-1, -1, -1, -1}, nf, need = 0;
	size_t lineno = 0, nr_rows = 0, rows_alloc = 0;
	size_t nr_names = 0, names_alloc = 0;
	struct strmap name_map = STRMAP_INIT, run_map = STRMAP_INIT;
	struct row *rows = NULL;
	char **names = NULL;
	bool moved = false;
	int ret = RP_EINPUT;

	if ((nf = input_read(&sb, path, &input_counters))) {
		strbuf_release(&sb);
		return nf;
	}
	for (line = sb.buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (!*trim(line))
			continue;
		if ((nf = split_fields(line, fields, MAX_FIELDS)) < 0) {
			error("%s:%zu: unterminated quote", path, lineno);
			goto out;
		}
		if (col[COL_TIME] < 0 && col[COL_COUNTER] < 0 && col[COL_VALUE] < 0) {
			static const char *const names[NR_COLS] = {"timestamp", "counter", "value",
								   "run"};
			for (int i = 0; i < nf; i++)
				for (int c = 0; c < NR_COLS; c++)
					if (!strcmp(trim(fields[i]), names[c]) && col[c] < 0)
						col[c] = i;
			if (col[COL_TIME] < 0 || col[COL_COUNTER] < 0 || col[COL_VALUE] < 0) {
				error("%s:%zu: expected a header naming the columns timestamp, "
				      "counter and value (and optionally run)",
				      path, lineno);
				goto out;
			}
			for (int c = 0; c < NR_COLS; c++)
				if (col[c] + 1 > need)
					need = col[c] + 1;
			continue;
		}
		if (nf < need) {
			error("%s:%zu: %d field%s, expected %d", path, lineno, nf,
			      nf == 1 ? "" : "s", need);
			goto out;
		}
		double t, v;
		const char *counter = trim(fields[col[COL_COUNTER]]);
		if (!parse_finite(trim(fields[col[COL_TIME]]), &t)) {
			error("%s:%zu: timestamp '%s' is not a finite number (seconds)", path,
			      lineno, fields[col[COL_TIME]]);
			goto out;
		}
		if (!parse_finite(trim(fields[col[COL_VALUE]]), &v)) {
			error("%s:%zu: value '%s' of counter '%s' is not a finite number (NaN and "
			      "inf "
			      "are refused: drop the sample or use a number)",
			      path, lineno, fields[col[COL_VALUE]], counter);
			goto out;
		}
		if (!*counter) {
			error("%s:%zu: empty counter name", path, lineno);
			goto out;
		}
		size_t run = run_of(path, col[COL_RUN] >= 0 ? trim(fields[col[COL_RUN]]) : NULL,
				    &run_map, runs, nr, alloc);
		ALLOC_GROW(rows, nr_rows + 1, rows_alloc);
		rows[nr_rows] = (struct row){
		    run, name_index(&name_map, &names, &nr_names, &names_alloc, counter), nr_rows,
		    t, v};
		if (nr_rows && rows[nr_rows - 1].run == rows[nr_rows].run &&
		    rows[nr_rows - 1].counter == rows[nr_rows].counter && rows[nr_rows - 1].t > t)
			moved = true;
		nr_rows++;
	}
	if (col[COL_TIME] < 0) {
		error("%s: empty file: expected a header (timestamp,counter,value) and samples",
		      path);
		goto out;
	}
	if (!nr_rows) {
		error("%s: no samples after the header", path);
		goto out;
	}
	/* Time order per series (stable), each run shifted to start at 0. */
	qsort(rows, nr_rows, sizeof(*rows), row_cmp);
	for (size_t i = 0; i < nr_rows;) {
		size_t run = rows[i].run, j;
		double t0 = rows[i].t;
		for (j = i; j < nr_rows && rows[j].run == run; j++)
			if (rows[j].t < t0)
				t0 = rows[j].t;
		for (; i < j; i++)
			run_samples_add(&(*runs)[run].samples, names[rows[i].counter], NULL,
					rows[i].t - t0, rows[i].v);
	}
	if (moved)
		warning("%s: samples out of timestamp order were sorted", path);
	ret = RP_OK;
out:
	for (size_t i = 0; i < nr_names; i++)
		free(names[i]);
	free(names);
	strmap_release(&name_map);
	strmap_release(&run_map);
	free(rows);
	strbuf_release(&sb);
	return ret;
}

void counters_csv_runs_free(struct counters_csv_run *runs, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(runs[i].name);
		run_samples_release(&runs[i].samples);
	}
	free(runs);
}

static void csv_field(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")] && *s != ' ') {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
	fputc('"', f);
}

int counters_csv_write(const char *path, const struct run_samples *rs)
{
	struct whole_file w;
	FILE *f;

	if (whole_file_open(&w, path)) {
		error("cannot create %s: %s", path, fs_strerror(errno));
		return RP_EINTERNAL;
	}
	f = w.f;
	fputs("timestamp,counter,value\n", f);
	for (size_t i = 0; i < rs->nr; i++) {
		const struct sample_series *s = &rs->series[i];
		for (size_t k = 0; k < s->n; k++) {
			fprintf(f, "%.6f,", s->t[k]);
			csv_field(f, s->name);
			fprintf(f, ",%.17g\n", s->v[k]);
		}
	}
	if (whole_file_commit(&w)) {
		error("cannot write %s: %s", path, strerror(errno));
		return RP_EINTERNAL;
	}
	return RP_OK;
}

int counters_csv_chart_add(const char *path, struct cchart_input *in, enum cchart_side side)
{
	struct counters_csv_run *runs = NULL;
	size_t nr = 0, alloc = 0;
	int err = counters_csv_read(path, &runs, &nr, &alloc);
	for (size_t i = 0; i < nr && !err; i++)
		err = counters_input_add(in, side, runs[i].name, &runs[i].samples);
	counters_csv_runs_free(runs, nr);
	return err;
}
