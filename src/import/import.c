/*
 * Importers of results measured by other tools (import.h, docs/import.md): hyperfine JSON
 * exports and Google Benchmark JSON, read with Jansson. The input is untrusted: sizes are
 * capped, every field that is used is type-checked, and anything unexpected is one error
 * line naming the file and the JSON path of the value.
 */
#include "import/import.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/common.h"
#include "util/input.h"
#include "util/strmap.h"

#define IMPORT_MAX_FILE_BYTES ((size_t)256 << 20)
#define IMPORT_MAX_BENCHES 100000
#define IMPORT_MAX_METRICS 256             /* per benchmark */
#define IMPORT_MAX_VALUES ((size_t)1 << 24) /* samples x metrics over one file */
#define IMPORT_MAX_NAME 4096               /* bytes of a benchmark or metric name */
#define IMPORT_MAX_WARNINGS 5              /* excluded runs warned about one by one */

struct parse_ctx {
	const char *origin;
	struct import_set *out;
	struct strmap next_suffix; /* a name taken -> the next " #K" to try for it */
	size_t nr_values; /* against IMPORT_MAX_VALUES */
	size_t nr_excluded;
};

/* One error line "origin: message"; returns RP_EINPUT. */
__attribute__((format(printf, 2, 3))) static int bad(const struct parse_ctx *c, const char *fmt,
						     ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error("%s: %s", c->origin, sb.buf);
	strbuf_release(&sb);
	return RP_EINPUT;
}

/* What a JSON value is, for "is X, expected Y" messages. */
static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE: return "true";
	case JSON_FALSE: return "false";
	default: return "null";
	}
}

static void bench_release(struct import_bench *b)
{
	size_t i;
	free(b->name);
	for (i = 0; i < b->nr_metrics; i++) {
		metric_def_free(b->metrics[i].def);
		free(b->metrics[i].values);
	}
	free(b->metrics);
	for (i = 0; i < b->nr_excluded; i++)
		free(b->excluded[i].detail);
	free(b->excluded);
}

void import_set_release(struct import_set *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->nr_benches; i++)
		bench_release(&s->benches[i]);
	free(s->benches);
	free(s->source);
	free(s->origin);
	strmap_release(&s->by_name);
	memset(s, 0, sizeof(*s));
}

const struct import_bench *import_set_find(const struct import_set *s, const char *name)
{
	size_t *idx;
	if (s->by_name.nr != s->nr_benches) {
		/* A set filled by hand, without the index. */
		for (size_t i = 0; i < s->nr_benches; i++)
			if (!strcmp(s->benches[i].name, name))
				return &s->benches[i];
		return NULL;
	}
	idx = strmap_get(&s->by_name, name);
	return idx ? &s->benches[*idx] : NULL;
}

const struct import_metric *import_bench_metric(const struct import_bench *b, const char *name)
{
	size_t i;
	for (i = 0; i < b->nr_metrics; i++)
		if (!strcmp(b->metrics[i].def->name, name))
			return &b->metrics[i];
	return NULL;
}

const char *import_format_title(const char *source)
{
	if (source && !strcmp(source, "hyperfine"))
		return "a hyperfine export";
	if (source && !strcmp(source, "gbench"))
		return "Google Benchmark JSON";
	return "an unknown format";
}

/*
 * A copy of a name from the file, with control characters (a newline in a hyperfine
 * command) turned into spaces so that every message and report line stays one line.
 */
static char *clean_name(const char *s)
{
	char *copy = xstrdup(s), *p;
	for (p = copy; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	return copy;
}

/* Checks a name taken from the file at path; returns 0 or RP_EINPUT. */
static int check_name(const struct parse_ctx *c, const char *name, const char *path)
{
	if (!*name)
		return bad(c, "%s is empty; a benchmark or metric needs a name", path);
	if (strlen(name) > IMPORT_MAX_NAME)
		return bad(c, "%s is longer than %d bytes", path, IMPORT_MAX_NAME);
	return 0;
}

/* Registers a new bench called name (the caller checked that it is unused). */
static struct import_bench *bench_add(struct parse_ctx *c, char *name)
{
	struct import_set *s = c->out;
	struct import_bench *b;
	ALLOC_GROW(s->benches, s->nr_benches + 1, s->alloc_benches);
	b = &s->benches[s->nr_benches];
	memset(b, 0, sizeof(*b));
	b->name = name;
	strmap_put(&s->by_name, name, s->nr_benches, NULL);
	s->nr_benches++;
	return b;
}

/*
 * The bench called name (a name from the file at path), created on first use. With
 * unique, a name already taken gets a suffix " #2", " #3"... (hyperfine can measure one
 * command twice: two results, not one). Returns NULL after an error.
 */
static struct import_bench *bench_get(struct parse_ctx *c, const char *name, const char *path,
				      bool unique)
{
	char *clean;
	size_t *idx;
	if (check_name(c, name, path))
		return NULL;
	clean = clean_name(name);
	idx = strmap_get(&c->out->by_name, clean);
	if (idx && !unique) {
		free(clean);
		return &c->out->benches[*idx];
	}
	if (c->out->nr_benches >= IMPORT_MAX_BENCHES) {
		free(clean);
		bad(c, "%s: more than %d benchmarks in one file", path, IMPORT_MAX_BENCHES);
		return NULL;
	}
	if (idx) {
		/* Each name remembers where its search ended: the suffixes of one command
		 * measured many times are found in linear, not quadratic, time. */
		struct strbuf sb = STRBUF_INIT;
		size_t *k = strmap_put(&c->next_suffix, clean, 2, NULL);
		for (;; (*k)++) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "%s #%zu", clean, *k);
			if (!strmap_get(&c->out->by_name, sb.buf))
				break;
		}
		(*k)++;
		free(clean);
		clean = strbuf_detach(&sb);
	}
	return bench_add(c, clean);
}

/* Appends one value to m, within the file's cap. */
static int metric_push(struct parse_ctx *c, struct import_metric *m, double v, const char *path)
{
	if (++c->nr_values > IMPORT_MAX_VALUES)
		return bad(c, "%s: more than %zu values in one file", path, IMPORT_MAX_VALUES);
	ALLOC_GROW(m->values, m->n + 1, m->alloc);
	m->values[m->n++] = v;
	return 0;
}

/*
 * The metric called name of b, created on first use (with NAN for the samples b already
 * has, which lacked it). Returns NULL after an error (too many metrics).
 */
static struct import_metric *metric_get(struct parse_ctx *c, struct import_bench *b,
					const char *name, enum metric_unit unit, const char *label,
					enum direction dir, const char *help, const char *path)
{
	struct import_metric *m;
	size_t i;
	for (i = 0; i < b->nr_metrics; i++)
		if (!strcmp(b->metrics[i].def->name, name))
			return &b->metrics[i];
	if (b->nr_metrics >= IMPORT_MAX_METRICS) {
		bad(c, "%s: more than %d metrics for benchmark '%s'", path, IMPORT_MAX_METRICS,
		    b->name);
		return NULL;
	}
	ALLOC_GROW(b->metrics, b->nr_metrics + 1, b->alloc_metrics);
	m = &b->metrics[b->nr_metrics++];
	memset(m, 0, sizeof(*m));
	m->def = metric_def_new(name, unit, label, dir, help);
	for (i = 0; i < b->nr_samples; i++)
		if (metric_push(c, m, NAN, path))
			return NULL;
	return m;
}

/* Ends a sample of b: metrics it lacked get NAN, so that every metric stays aligned. */
static int sample_finish(struct parse_ctx *c, struct import_bench *b, const char *path)
{
	size_t i;
	for (i = 0; i < b->nr_metrics; i++)
		if (b->metrics[i].n <= b->nr_samples &&
		    metric_push(c, &b->metrics[i], NAN, path))
			return RP_EINPUT;
	b->nr_samples++;
	return 0;
}

/* Records an excluded run or repetition of b, with a warning for the first few. */
static void exclude(struct parse_ctx *c, struct import_bench *b, int exit_code,
		    const char *detail)
{
	struct import_excluded *e;
	ALLOC_GROW(b->excluded, b->nr_excluded + 1, b->alloc_excluded);
	e = &b->excluded[b->nr_excluded++];
	e->exit_code = exit_code;
	e->detail = xstrdup(detail);
	if (++c->nr_excluded <= IMPORT_MAX_WARNINGS)
		warning("%s: %s ('%s'): excluded from the samples", c->origin, detail, b->name);
}

/* A required number at path: finite and >= 0. */
static int get_time(const struct parse_ctx *c, const json_t *v, const char *path, double *out)
{
	if (!v)
		return bad(c, "%s is missing", path);
	if (!json_is_number(v))
		return bad(c, "%s is not a number (%s)", path, json_kind(v));
	*out = json_number_value(v);
	if (!isfinite(*out) || *out < 0)
		return bad(c, "%s is %g; a time must be >= 0", path, *out);
	return 0;
}

/* An optional string member: NULL when absent, RP_EINPUT (set) when of another type. */
static const char *opt_string(const struct parse_ctx *c, const json_t *obj, const char *key,
			      const char *path, int *err)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return NULL;
	if (!json_is_string(v)) {
		*err = bad(c, "%s.%s is not a string (%s)", path, key, json_kind(v));
		return NULL;
	}
	return json_string_value(v);
}

/* An optional boolean member: false when absent. */
static int opt_bool(const struct parse_ctx *c, const json_t *obj, const char *key,
		    const char *path, bool *out)
{
	const json_t *v = json_object_get(obj, key);
	*out = false;
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return bad(c, "%s.%s is not true or false (%s)", path, key, json_kind(v));
	*out = json_is_true(v);
	return 0;
}

/* ---- hyperfine ---------------------------------------------------------------------- */

/* The exit code of run k (exit_codes[k]): *excluded when it is not 0. */
static int hyperfine_exit_code(const struct parse_ctx *c, const json_t *codes, size_t k,
			       const char *path, int *code)
{
	const json_t *v;
	double d;
	*code = 0;
	if (!codes)
		return 0;
	v = json_array_get(codes, k);
	if (json_is_null(v)) {
		*code = -1; /* hyperfine writes null for a run killed by a signal */
		return 0;
	}
	if (!json_is_number(v))
		return bad(c, "%s.exit_codes[%zu] is not an integer (%s)", path, k, json_kind(v));
	d = json_number_value(v);
	if (d != floor(d) || d < -2147483648.0 || d > 2147483647.0)
		return bad(c, "%s.exit_codes[%zu] is %g, not an exit code", path, k, d);
	*code = (int)d;
	return 0;
}

static int hyperfine_result(struct parse_ctx *c, const json_t *r, size_t i)
{
	const json_t *cmd, *times, *codes;
	struct import_bench *b;
	struct import_metric *m;
	char path[48], item[96];
	size_t k;

	snprintf(path, sizeof(path), "results[%zu]", i);
	if (!json_is_object(r))
		return bad(c, "%s is %s, expected an object", path, json_kind(r));
	cmd = json_object_get(r, "command");
	if (!cmd)
		return bad(c, "%s.command is missing", path);
	if (!json_is_string(cmd))
		return bad(c, "%s.command is not a string (%s)", path, json_kind(cmd));
	times = json_object_get(r, "times");
	if (!times)
		return bad(c, "%s.times is missing; revperf needs the per-run times of "
			      "hyperfine --export-json",
			   path);
	if (!json_is_array(times))
		return bad(c, "%s.times is %s, expected an array of seconds", path,
			   json_kind(times));
	codes = json_object_get(r, "exit_codes");
	if (json_is_null(codes))
		codes = NULL;
	if (codes && !json_is_array(codes))
		return bad(c, "%s.exit_codes is %s, expected an array", path, json_kind(codes));
	if (codes && json_array_size(codes) != json_array_size(times))
		return bad(c, "%s.exit_codes has %zu entries but %s.times has %zu", path,
			   json_array_size(codes), path, json_array_size(times));
	snprintf(item, sizeof(item), "%s.command", path);
	b = bench_get(c, json_string_value(cmd), item, true);
	if (!b)
		return RP_EINPUT;
	m = metric_get(c, b, "wall", UNIT_SECONDS, NULL, LOWER_IS_BETTER,
		       "elapsed (wall-clock) time of a run, measured by hyperfine", path);
	if (!m)
		return RP_EINPUT;
	for (k = 0; k < json_array_size(times); k++) {
		double v;
		int code;
		snprintf(item, sizeof(item), "%s.times[%zu]", path, k);
		if (get_time(c, json_array_get(times, k), item, &v) ||
		    hyperfine_exit_code(c, codes, k, path, &code))
			return RP_EINPUT;
		if (code) {
			char detail[128];
			if (code < 0)
				snprintf(detail, sizeof(detail), "%s run %zu: killed by a signal",
					 path, k + 1);
			else
				snprintf(detail, sizeof(detail), "%s run %zu: exit code %d", path,
					 k + 1, code);
			exclude(c, b, code, detail);
			continue;
		}
		if (metric_push(c, m, v, item) || sample_finish(c, b, item))
			return RP_EINPUT;
	}
	return 0;
}

static int hyperfine_from_json(struct parse_ctx *c, const json_t *root)
{
	const json_t *results = json_object_get(root, "results");
	size_t i;
	if (!results)
		return bad(c, "no \"results\" array: not a hyperfine export (--export-json)");
	if (!json_is_array(results))
		return bad(c, "results is %s, expected an array", json_kind(results));
	if (!json_array_size(results))
		return bad(c, "results is empty: no benchmark to import");
	for (i = 0; i < json_array_size(results); i++)
		if (hyperfine_result(c, json_array_get(results, i), i))
			return RP_EINPUT;
	return 0;
}

/* ---- Google Benchmark --------------------------------------------------------------- */

/* Fields of a gbench entry that are not user counters. */
static const char *const gbench_fields[] = {
	"name", "run_name", "run_type", "repetitions", "repetition_index", "threads",
	"iterations", "real_time", "cpu_time", "time_unit", "family_index",
	"per_family_instance_index", "aggregate_name", "aggregate_unit", "error_occurred",
	"error_message", "skipped", "skip_message", "label", "cpu_coefficient",
	"real_coefficient", "big_o", "rms",
};

static bool gbench_known_field(const char *key)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(gbench_fields); i++)
		if (!strcmp(gbench_fields[i], key))
			return true;
	return false;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* Seconds per time_unit, or 0 when unknown. */
static double gbench_unit_scale(const char *unit)
{
	if (!strcmp(unit, "ns"))
		return 1e-9;
	if (!strcmp(unit, "us"))
		return 1e-6;
	if (!strcmp(unit, "ms"))
		return 1e-3;
	if (!strcmp(unit, "s"))
		return 1.0;
	return 0;
}

/*
 * A user counter: rates (bytes_per_second, items_per_second, any *_per_second) are
 * higher-is-better, every other counter lower-is-better (docs/import.md).
 */
static int gbench_counter(struct parse_ctx *c, struct import_bench *b, const char *key,
			  const json_t *v, const char *path)
{
	struct import_metric *m;
	const char *label = NULL;
	char item[96];
	double d;
	enum direction dir = LOWER_IS_BETTER;
	snprintf(item, sizeof(item), "%s: the name of a counter", path);
	if (json_is_null(v))
		return 0; /* NaN or Infinity in the file (see json_sanitize): no value */
	if (!json_is_number(v))
		return 0; /* not a counter (a field of a newer Google Benchmark) */
	if (check_name(c, key, item))
		return RP_EINPUT;
	d = json_number_value(v);
	if (!strcmp(key, "bytes_per_second")) {
		label = "B/s";
		dir = HIGHER_IS_BETTER;
	} else if (!strcmp(key, "items_per_second")) {
		label = "items/s";
		dir = HIGHER_IS_BETTER;
	} else if (ends_with(key, "_per_second")) {
		label = "/s";
		dir = HIGHER_IS_BETTER;
	}
	{
		char *name = clean_name(key);
		m = metric_get(c, b, name, UNIT_CUSTOM, label, dir,
			       "user counter of Google Benchmark", path);
		free(name);
	}
	if (!m)
		return RP_EINPUT;
	if (m->n > b->nr_samples)
		return bad(c, "%s: counter '%s' appears twice", path, key);
	return metric_push(c, m, d, path);
}

/* Whether an entry is an aggregate (mean, median, stddev, cv, BigO, RMS) to skip. */
static int gbench_is_aggregate(const struct parse_ctx *c, const json_t *e, const char *path,
			       bool *aggregate)
{
	int err = 0;
	const char *type = opt_string(c, e, "run_type", path, &err);
	if (err)
		return err;
	if (!type) {
		/* Before run_type existed, aggregates had an aggregate_name. */
		*aggregate = json_object_get(e, "aggregate_name") != NULL;
		return 0;
	}
	if (!strcmp(type, "aggregate"))
		*aggregate = true;
	else if (!strcmp(type, "iteration"))
		*aggregate = false;
	else
		return bad(c, "%s.run_type is '%s', expected iteration or aggregate", path, type);
	return 0;
}

static int gbench_entry(struct parse_ctx *c, const json_t *e, size_t i)
{
	const char *name, *run_name, *unit, *msg, *key;
	const json_t *v;
	struct import_bench *b;
	struct import_metric *rt, *ct;
	char path[48], item[96];
	bool aggregate = false, failed, skipped;
	double real, cpu, scale;
	int err = 0;

	snprintf(path, sizeof(path), "benchmarks[%zu]", i);
	if (!json_is_object(e))
		return bad(c, "%s is %s, expected an object", path, json_kind(e));
	v = json_object_get(e, "name");
	if (!v)
		return bad(c, "%s.name is missing", path);
	if (!json_is_string(v))
		return bad(c, "%s.name is not a string (%s)", path, json_kind(v));
	name = json_string_value(v);
	run_name = opt_string(c, e, "run_name", path, &err);
	if (err || gbench_is_aggregate(c, e, path, &aggregate))
		return RP_EINPUT;
	if (aggregate)
		return 0; /* revperf computes its own statistics from the repetitions */
	if (opt_bool(c, e, "error_occurred", path, &failed) ||
	    opt_bool(c, e, "skipped", path, &skipped))
		return RP_EINPUT;
	snprintf(item, sizeof(item), "%s.%s", path, run_name ? "run_name" : "name");
	b = bench_get(c, run_name ? run_name : name, item, false);
	if (!b)
		return RP_EINPUT;
	if (failed || skipped) {
		struct strbuf sb = STRBUF_INIT;
		msg = opt_string(c, e, failed ? "error_message" : "skip_message", path, &err);
		if (err)
			return err;
		strbuf_addf(&sb, "%s: %s", path, failed ? "error" : "skipped");
		if (msg && *msg) {
			char *clean = clean_name(msg);
			strbuf_addf(&sb, ": %.200s", clean);
			free(clean);
		}
		exclude(c, b, 0, sb.buf);
		strbuf_release(&sb);
		return 0;
	}
	unit = opt_string(c, e, "time_unit", path, &err);
	if (err)
		return err;
	if (!unit)
		return bad(c, "%s.time_unit is missing", path);
	scale = gbench_unit_scale(unit);
	if (scale == 0)
		return bad(c, "%s.time_unit is '%.16s', expected ns, us, ms or s", path, unit);
	snprintf(item, sizeof(item), "%s.real_time", path);
	if (get_time(c, json_object_get(e, "real_time"), item, &real))
		return RP_EINPUT;
	snprintf(item, sizeof(item), "%s.cpu_time", path);
	if (get_time(c, json_object_get(e, "cpu_time"), item, &cpu))
		return RP_EINPUT;
	rt = metric_get(c, b, "real_time", UNIT_SECONDS, NULL, LOWER_IS_BETTER,
			"real (wall-clock) time per iteration, measured by Google Benchmark", path);
	if (!rt || metric_push(c, rt, real * scale, path))
		return RP_EINPUT;
	ct = metric_get(c, b, "cpu_time", UNIT_SECONDS, NULL, LOWER_IS_BETTER,
			"CPU time per iteration, measured by Google Benchmark", path);
	if (!ct || metric_push(c, ct, cpu * scale, path))
		return RP_EINPUT;
	json_object_foreach((json_t *)e, key, v) {
		if (gbench_known_field(key))
			continue;
		if (gbench_counter(c, b, key, v, path))
			return RP_EINPUT;
	}
	return sample_finish(c, b, path);
}

static int gbench_from_json(struct parse_ctx *c, const json_t *root)
{
	const json_t *benches = json_object_get(root, "benchmarks");
	size_t i, samples = 0, excluded = 0;
	if (!benches)
		return bad(c, "no \"benchmarks\" array: not Google Benchmark JSON "
			      "(--benchmark_format=json)");
	if (!json_is_array(benches))
		return bad(c, "benchmarks is %s, expected an array", json_kind(benches));
	if (!json_array_size(benches))
		return bad(c, "benchmarks is empty: no benchmark to import");
	for (i = 0; i < json_array_size(benches); i++)
		if (gbench_entry(c, json_array_get(benches, i), i))
			return RP_EINPUT;
	for (i = 0; i < c->out->nr_benches; i++) {
		samples += c->out->benches[i].nr_samples;
		excluded += c->out->benches[i].nr_excluded;
	}
	if (!samples && !excluded)
		return bad(c, "only aggregates (mean, median, stddev), no repetitions: run "
			      "without --benchmark_report_aggregates_only");
	return 0;
}

/* ---- entry points ------------------------------------------------------------------- */

/*
 * A copy of text where the bare tokens NaN, Infinity and -Infinity outside strings (which
 * Google Benchmark writes for some counters, but JSON does not allow) become null.
 */
static void json_sanitize(const char *text, size_t len, struct strbuf *out)
{
	static const char *const tokens[] = { "-Infinity", "Infinity", "-NaN", "NaN" };
	bool in_string = false;
	size_t i = 0, t;
	strbuf_grow(out, len);
	while (i < len) {
		char ch = text[i];
		if (in_string) {
			if (ch == '\\' && i + 1 < len) {
				strbuf_add(out, text + i, 2);
				i += 2;
				continue;
			}
			in_string = ch != '"';
		} else if (ch == '"') {
			in_string = true;
		} else if (ch == '-' || ch == 'I' || ch == 'N') {
			for (t = 0; t < ARRAY_SIZE(tokens); t++) {
				size_t n = strlen(tokens[t]);
				if (len - i >= n && !memcmp(text + i, tokens[t], n))
					break;
			}
			if (t < ARRAY_SIZE(tokens)) {
				strbuf_addstr(out, "null");
				i += strlen(tokens[t]);
				continue;
			}
		}
		strbuf_addch(out, ch);
		i++;
	}
}

/* Parses the JSON text into *root; RP_EINPUT after an error with line and column. */
static int load_json(const char *text, size_t len, const char *origin, json_t **root)
{
	struct strbuf clean = STRBUF_INIT;
	json_error_t jerr;
	if (len > IMPORT_MAX_FILE_BYTES) {
		error("%s: larger than 256 MiB; not a result file revperf imports", origin);
		return RP_EINPUT;
	}
	if (!len) {
		error("%s: empty file; expected hyperfine or Google Benchmark JSON", origin);
		return RP_EINPUT;
	}
	json_sanitize(text, len, &clean);
	/* Integers as reals: a counter too large for json_int_t is still a number. */
	*root = json_loadb(clean.buf, clean.len,
			   JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &jerr);
	strbuf_release(&clean);
	if (!*root) {
		error("%s:%d:%d: invalid JSON: %s", origin, jerr.line, jerr.column, jerr.text);
		return RP_EINPUT;
	}
	if (!json_is_object(*root)) {
		error("%s: the document is %s, expected an object (hyperfine or Google Benchmark "
		      "JSON)",
		      origin, json_kind(*root));
		json_decref(*root);
		*root = NULL;
		return RP_EINPUT;
	}
	return 0;
}

enum import_format { FORMAT_DETECT, FORMAT_HYPERFINE, FORMAT_GBENCH };

static int parse_as(const char *text, size_t len, const char *origin, enum import_format fmt,
		    struct import_set *out)
{
	struct parse_ctx c = { origin, out, STRMAP_INIT, 0, 0 };
	json_t *root = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = load_json(text, len, origin, &root);
	if (ret)
		goto out;
	if (fmt == FORMAT_DETECT) {
		bool hf = json_object_get(root, "results") != NULL;
		bool gb = json_object_get(root, "benchmarks") != NULL;
		if (hf && gb) {
			ret = bad(&c, "has both \"results\" and \"benchmarks\": neither a "
				      "hyperfine export nor Google Benchmark JSON");
			goto out;
		}
		if (!hf && !gb) {
			ret = bad(&c, "neither a hyperfine export (an object with \"results\") nor "
				      "Google Benchmark JSON (an object with \"benchmarks\")");
			goto out;
		}
		fmt = hf ? FORMAT_HYPERFINE : FORMAT_GBENCH;
	}
	out->source = xstrdup(fmt == FORMAT_HYPERFINE ? "hyperfine" : "gbench");
	out->origin = xstrdup(origin);
	ret = fmt == FORMAT_HYPERFINE ? hyperfine_from_json(&c, root) : gbench_from_json(&c, root);
	if (!ret && c.nr_excluded > IMPORT_MAX_WARNINGS)
		warning("%s: %zu more runs excluded (%zu in all)", origin,
			c.nr_excluded - IMPORT_MAX_WARNINGS, c.nr_excluded);
out:
	strmap_release(&c.next_suffix);
	json_decref(root);
	if (ret)
		import_set_release(out);
	return ret;
}

int import_parse(const char *text, size_t len, const char *origin, struct import_set *out)
{
	return parse_as(text, len, origin, FORMAT_DETECT, out);
}

int import_parse_hyperfine(const char *text, size_t len, const char *origin, struct import_set *out)
{
	return parse_as(text, len, origin, FORMAT_HYPERFINE, out);
}

int import_parse_gbench(const char *text, size_t len, const char *origin, struct import_set *out)
{
	return parse_as(text, len, origin, FORMAT_GBENCH, out);
}

int import_read_file(const char *path, struct import_set *out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;
	memset(out, 0, sizeof(*out));
	if ((ret = input_read(&sb, path, &input_results))) {
		strbuf_release(&sb);
		return ret;
	}
	ret = import_parse(sb.buf, sb.len, path, out);
	strbuf_release(&sb);
	return ret;
}
