/*
 * Unit tests of the importers (hyperfine and Google Benchmark JSON), the comparison of two
 * imported sets and their storage as a revision's results: valid documents, every kind of
 * bad input (one error line naming the file and the JSON path), truncation at every byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <math.h>
#include <sqlite3.h>
#include <cmocka.h>

#include "compare/compare_import.h"
#include "import/import.h"
#include "import/import_store.h"
#include "util/common.h"
#include "capture_stderr.h"
#include "tmp_db.h"

static const char hyperfine_doc[] =
	"{\"results\": [\n"
	" {\"command\": \"./prog --fast\", \"mean\": 0.011, \"user\": 0.01, \"system\": 0.0,\n"
	"  \"times\": [0.010, 0.011, 0.012, 0.5], \"exit_codes\": [0, 0, 0, 3]},\n"
	" {\"command\": \"./prog\\n--slow\", \"times\": [0.020, 0.021, 0.022],\n"
	"  \"exit_codes\": [0, null, 0]},\n"
	" {\"command\": \"./prog --fast\", \"times\": [1, 2]}\n"
	"]}\n";

static const char gbench_doc[] =
	"{\"context\": {\"date\": \"2026-11-20\", \"num_cpus\": 4},\n"
	" \"benchmarks\": [\n"
	"  {\"name\": \"BM_A/8\", \"run_name\": \"BM_A/8\", \"run_type\": \"iteration\",\n"
	"   \"repetitions\": 3, \"repetition_index\": 0, \"threads\": 1, \"iterations\": 100,\n"
	"   \"real_time\": 1500, \"cpu_time\": 1400, \"time_unit\": \"us\",\n"
	"   \"bytes_per_second\": 2e6, \"hits\": 7, \"label\": \"x\"},\n"
	"  {\"name\": \"BM_B\", \"run_name\": \"BM_B\", \"run_type\": \"iteration\",\n"
	"   \"real_time\": 5, \"cpu_time\": 4, \"time_unit\": \"ms\", \"note\": \"NaN here\"},\n"
	"  {\"name\": \"BM_A/8\", \"run_name\": \"BM_A/8\", \"run_type\": \"iteration\",\n"
	"   \"real_time\": 1600, \"cpu_time\": 1500, \"time_unit\": \"us\",\n"
	"   \"bytes_per_second\": 1.9e6, \"ops_per_second\": NaN},\n"
	"  {\"name\": \"BM_A/8\", \"run_name\": \"BM_A/8\", \"run_type\": \"iteration\",\n"
	"   \"real_time\": 1700, \"cpu_time\": 1600, \"time_unit\": \"us\",\n"
	"   \"bytes_per_second\": 1.8e6, \"hits\": 9, \"ops_per_second\": 12},\n"
	"  {\"name\": \"BM_A/8_mean\", \"run_name\": \"BM_A/8\", \"run_type\": \"aggregate\",\n"
	"   \"aggregate_name\": \"mean\", \"real_time\": 1600, \"cpu_time\": 1500,\n"
	"   \"time_unit\": \"us\"},\n"
	"  {\"name\": \"BM_A/8_BigO\", \"run_name\": \"BM_A/8\", \"run_type\": \"aggregate\",\n"
	"   \"aggregate_name\": \"BigO\", \"cpu_coefficient\": 1.5, \"big_o\": \"N\"},\n"
	"  {\"name\": \"BM_B\", \"run_name\": \"BM_B\", \"run_type\": \"iteration\",\n"
	"   \"error_occurred\": true, \"error_message\": \"no input\",\n"
	"   \"real_time\": 0, \"cpu_time\": 0, \"time_unit\": \"ms\"},\n"
	"  {\"name\": \"BM_B\", \"run_name\": \"BM_B\", \"run_type\": \"iteration\",\n"
	"   \"skipped\": true, \"skip_message\": \"later\"},\n"
	"  {\"name\": \"BM_Old\", \"real_time\": 2, \"cpu_time\": 2, \"time_unit\": \"s\"},\n"
	"  {\"name\": \"BM_Old_mean\", \"aggregate_name\": \"mean\", \"real_time\": 2,\n"
	"   \"cpu_time\": 2, \"time_unit\": \"s\"},\n"
	"  {\"name\": \"BM_Inf\", \"real_time\": 1, \"cpu_time\": 1, \"time_unit\": \"ns\",\n"
	"   \"rate_per_second\": Infinity, \"drift\": -Infinity}\n"
	"]}\n";

/* Runs fn with stderr captured into buf (at most size - 1 bytes). */
static int run_capturing(char *buf, size_t size, int (*fn)(const void *), const void *arg)
{
	struct stderr_capture cap;
	char *printed;
	int ret;

	capture_stderr_begin(&cap);
	ret = fn(arg);
	printed = capture_stderr_end(&cap);
	snprintf(buf, size, "%s", printed);
	free(printed);
	return ret;
}

struct parse_call {
	const char *text;
	size_t len;
	struct import_set *out;
};

static int do_parse(const void *arg)
{
	const struct parse_call *c = arg;
	return import_parse(c->text, c->len, "in.json", c->out);
}

/* Parses text (len bytes) with stderr captured; checks that a failure leaves *out empty. */
static int parse_text(const char *text, size_t len, struct import_set *out, char *err,
		      size_t err_size)
{
	struct parse_call c = { text, len, out };
	int ret = run_capturing(err, err_size, do_parse, &c);
	if (ret) {
		assert_int_equal(ret, RP_EINPUT);
		assert_int_equal(out->nr_benches, 0);
		assert_null(out->benches);
		assert_null(out->source);
	}
	return ret;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int do_parse_as_hyperfine(const void *text)
{
	struct import_set s;
	int ret = import_parse_hyperfine(text, strlen(text), "g.json", &s);
	import_set_release(&s);
	return ret;
}

static int do_parse_as_gbench(const void *text)
{
	struct import_set s;
	int ret = import_parse_gbench(text, strlen(text), "h.json", &s);
	import_set_release(&s);
	return ret;
}

static void test_hyperfine_valid(void **state)
{
	struct import_set s;
	const struct import_metric *m;
	char err[4096];
	UNUSED(state);
	assert_int_equal(parse_text(hyperfine_doc, strlen(hyperfine_doc), &s, err, sizeof(err)), 0);
	assert_string_equal(s.source, "hyperfine");
	assert_string_equal(s.origin, "in.json");
	assert_int_equal(s.nr_benches, 3);
	/* the run with exit code 3 is excluded, with a warning naming it */
	assert_string_equal(s.benches[0].name, "./prog --fast");
	assert_int_equal(s.benches[0].nr_samples, 3);
	assert_int_equal(s.benches[0].nr_excluded, 1);
	assert_int_equal(s.benches[0].excluded[0].exit_code, 3);
	assert_non_null(strstr(err, "results[0] run 4: exit code 3"));
	m = &s.benches[0].metrics[0];
	assert_string_equal(m->def->name, "wall");
	assert_int_equal(m->def->unit, UNIT_SECONDS);
	assert_int_equal(m->def->direction, LOWER_IS_BETTER);
	assert_int_equal(m->n, 3);
	assert_true(m->values[0] == 0.010 && m->values[2] == 0.012);
	/* control characters become spaces; a run killed by a signal (null) is excluded */
	assert_string_equal(s.benches[1].name, "./prog --slow");
	assert_int_equal(s.benches[1].nr_samples, 2);
	assert_int_equal(s.benches[1].excluded[0].exit_code, -1);
	/* the same command measured twice is two benchmarks; no exit_codes: all runs count */
	assert_string_equal(s.benches[2].name, "./prog --fast #2");
	assert_int_equal(s.benches[2].nr_samples, 2);
	assert_ptr_equal(import_set_find(&s, "./prog --fast #2"), &s.benches[2]);
	assert_null(import_set_find(&s, "nope"));
	import_set_release(&s);
	import_set_release(&s); /* idempotent */

	/* The explicit entry points refuse the other format. */
	assert_int_equal(run_capturing(err, sizeof(err), do_parse_as_hyperfine, gbench_doc),
			 RP_EINPUT);
	assert_non_null(strstr(err, "g.json: no \"results\" array: not a hyperfine export"));
	assert_int_equal(run_capturing(err, sizeof(err), do_parse_as_gbench, hyperfine_doc),
			 RP_EINPUT);
	assert_non_null(strstr(err, "h.json: no \"benchmarks\" array"));
}

static void test_gbench_valid(void **state)
{
	struct import_set s;
	const struct import_bench *a, *b, *old, *inf;
	const struct import_metric *m;
	char err[4096];
	UNUSED(state);
	assert_int_equal(parse_text(gbench_doc, strlen(gbench_doc), &s, err, sizeof(err)), 0);
	assert_string_equal(s.source, "gbench");
	assert_int_equal(s.nr_benches, 4);
	a = import_set_find(&s, "BM_A/8");
	assert_non_null(a);
	/* three repetitions, aggregates (mean, BigO) skipped */
	assert_int_equal(a->nr_samples, 3);
	assert_string_equal(a->metrics[0].def->name, "real_time");
	assert_string_equal(a->metrics[1].def->name, "cpu_time");
	m = &a->metrics[0];
	assert_true(fabs(m->values[0] - 1500e-6) < 1e-15);
	assert_true(fabs(m->values[2] - 1700e-6) < 1e-15);
	assert_int_equal(m->def->unit, UNIT_SECONDS);
	m = import_bench_metric(a, "bytes_per_second");
	assert_non_null(m);
	assert_int_equal(m->def->unit, UNIT_CUSTOM);
	assert_int_equal(m->def->direction, HIGHER_IS_BETTER);
	assert_string_equal(m->def->unit_label, "B/s");
	assert_int_equal(m->n, 3);
	/* a counter missing in a repetition is NAN there, so samples stay aligned */
	m = import_bench_metric(a, "hits");
	assert_int_equal(m->def->direction, LOWER_IS_BETTER);
	assert_int_equal(m->n, 3);
	assert_true(m->values[0] == 7 && isnan(m->values[1]) && m->values[2] == 9);
	/* NaN in the file is no value; any *_per_second is higher-is-better */
	m = import_bench_metric(a, "ops_per_second");
	assert_int_equal(m->def->direction, HIGHER_IS_BETTER);
	assert_true(isnan(m->values[0]) && isnan(m->values[1]) && m->values[2] == 12);
	assert_null(import_bench_metric(a, "label"));
	assert_null(import_bench_metric(a, "iterations"));
	/* an error and a skip are excluded and warned about; a "NaN" in a string stays */
	b = import_set_find(&s, "BM_B");
	assert_int_equal(b->nr_samples, 1);
	assert_true(b->metrics[0].values[0] == 5e-3);
	assert_int_equal(b->nr_excluded, 2);
	assert_non_null(strstr(b->excluded[0].detail, "error: no input"));
	assert_non_null(strstr(b->excluded[1].detail, "skipped: later"));
	assert_non_null(strstr(err, "benchmarks[6]: error: no input"));
	/* before run_type and run_name: grouped by name, aggregate_name marks aggregates */
	old = import_set_find(&s, "BM_Old");
	assert_int_equal(old->nr_samples, 1);
	assert_true(old->metrics[0].values[0] == 2.0);
	assert_null(import_set_find(&s, "BM_Old_mean"));
	inf = import_set_find(&s, "BM_Inf");
	assert_int_equal(inf->nr_metrics, 2); /* Infinity and -Infinity: no value, no metric */
	import_set_release(&s);
}

struct bad_case {
	const char *text;
	const char *message; /* expected in the one error line */
};

static const struct bad_case bad_cases[] = {
	{ "", "in.json: empty file" },
	{ "   ", "in.json:1:" },
	{ "{", "in.json:1:1: invalid JSON" },
	{ "[1, 2]", "the document is an array, expected an object" },
	{ "{\"x\": 1}", "neither a hyperfine export" },
	{ "{\"results\": [], \"benchmarks\": []}", "has both" },
	{ "{\"results\": {}}", "in.json: results is an object, expected an array" },
	{ "{\"results\": []}", "results is empty" },
	{ "{\"results\": [3]}", "results[0] is a number, expected an object" },
	{ "{\"results\": [{\"times\": [1]}]}", "results[0].command is missing" },
	{ "{\"results\": [{\"command\": 5, \"times\": [1]}]}",
	  "results[0].command is not a string" },
	{ "{\"results\": [{\"command\": \"\", \"times\": [1]}]}", "results[0].command is empty" },
	{ "{\"results\": [{\"command\": \"x\"}]}", "results[0].times is missing" },
	{ "{\"results\": [{\"command\": \"x\", \"times\": 1}]}", "results[0].times is a number" },
	{ "{\"results\": [{\"command\": \"a\", \"times\": [1]}, {\"command\": \"b\", \"times\": "
	  "[1, 2, 3, 4, 5, \"x\"]}]}",
	  "in.json: results[1].times[5] is not a number (a string)" },
	{ "{\"results\": [{\"command\": \"x\", \"times\": [1, null]}]}",
	  "results[0].times[1] is not a number (null)" },
	{ "{\"results\": [{\"command\": \"x\", \"times\": [1, -0.5]}]}",
	  "results[0].times[1] is -0.5; a time must be >= 0" },
	{ "{\"results\": [{\"command\": \"x\", \"times\": [1, NaN]}]}",
	  "results[0].times[1] is not a number (null)" },
	{ "{\"results\": [{\"command\": \"x\", \"times\": [1, 2], \"exit_codes\": [0]}]}",
	  "results[0].exit_codes has 1 entries but results[0].times has 2" },
	{ "{\"results\": [{\"command\": \"x\", \"times\": [1], \"exit_codes\": [0.5]}]}",
	  "results[0].exit_codes[0] is 0.5, not an exit code" },
	{ "{\"results\": [{\"command\": \"x\", \"times\": [1], \"exit_codes\": [\"0\"]}]}",
	  "results[0].exit_codes[0] is not an integer" },
	{ "{\"results\": [{\"command\": \"x\", \"times\": [1], \"exit_codes\": 0}]}",
	  "results[0].exit_codes is a number, expected an array" },
	{ "{\"results\": [{\"command\": \"x\", \"times\": [1e999]}]}", "invalid JSON" },
	{ "{\"results\": [{\"command\": \"x\", \"command\": \"y\", \"times\": [1]}]}",
	  "duplicate object key" },
	{ "{\"results\": [{\"command\": \"x\", \"times\": [1]}]} trailing", "invalid JSON" },
	{ "{\"benchmarks\": []}", "benchmarks is empty" },
	{ "{\"benchmarks\": \"all\"}", "benchmarks is a string, expected an array" },
	{ "{\"benchmarks\": [[]]}", "benchmarks[0] is an array, expected an object" },
	{ "{\"benchmarks\": [{\"real_time\": 1}]}", "benchmarks[0].name is missing" },
	{ "{\"benchmarks\": [{\"name\": 1}]}", "benchmarks[0].name is not a string" },
	{ "{\"benchmarks\": [{\"name\": \"a\", \"run_name\": 2}]}",
	  "benchmarks[0].run_name is not a string" },
	{ "{\"benchmarks\": [{\"name\": \"a\", \"run_type\": \"weird\"}]}",
	  "benchmarks[0].run_type is 'weird', expected iteration or aggregate" },
	{ "{\"benchmarks\": [{\"name\": \"a\", \"error_occurred\": \"yes\"}]}",
	  "benchmarks[0].error_occurred is not true or false" },
	{ "{\"benchmarks\": [{\"name\": \"a\", \"real_time\": 1, \"cpu_time\": 1}]}",
	  "benchmarks[0].time_unit is missing" },
	{ "{\"benchmarks\": [{\"name\": \"a\", \"real_time\": 1, \"cpu_time\": 1, "
	  "\"time_unit\": \"fortnight\"}]}",
	  "benchmarks[0].time_unit is 'fortnight', expected ns, us, ms or s" },
	{ "{\"benchmarks\": [{\"name\": \"a\", \"time_unit\": \"ns\", \"cpu_time\": 1}]}",
	  "benchmarks[0].real_time is missing" },
	{ "{\"benchmarks\": [{\"name\": \"a\", \"time_unit\": \"ns\", \"real_time\": \"fast\", "
	  "\"cpu_time\": 1}]}",
	  "in.json: benchmarks[0].real_time is not a number (a string)" },
	{ "{\"benchmarks\": [{\"name\": \"a\", \"time_unit\": \"ns\", \"real_time\": 1, "
	  "\"cpu_time\": -1}]}",
	  "benchmarks[0].cpu_time is -1; a time must be >= 0" },
	{ "{\"benchmarks\": [{\"name\": \"a\", \"time_unit\": \"ns\", \"real_time\": 1, "
	  "\"cpu_time\": 1, \"\": 3}]}",
	  "benchmarks[0]: the name of a counter is empty" },
	{ "{\"benchmarks\": [{\"name\": \"a_mean\", \"run_name\": \"a\", \"run_type\": "
	  "\"aggregate\", \"real_time\": 1, \"cpu_time\": 1, \"time_unit\": \"ns\"}]}",
	  "only aggregates" },
	{ "{\"benchmarks\": [{\"name\": \"a\", \"error_occurred\": true, \"error_message\": 3}]}",
	  "benchmarks[0].error_message is not a string" },
	{ "{\"benchmarks\": [{\"name\": \"a\\u0000b\"}]}", "invalid JSON" },
};

static void test_bad_input(void **state)
{
	size_t i;
	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		struct import_set s;
		char err[4096];
		int ret = parse_text(bad_cases[i].text, strlen(bad_cases[i].text), &s, err,
				     sizeof(err));
		if (ret != RP_EINPUT || !strstr(err, bad_cases[i].message) ||
		    count_lines(err) != 1)
			fail_msg("case %zu (%s): ret %d, stderr: %s", i, bad_cases[i].text, ret,
				 err);
	}
}

/* A NUL inside the text (not a C string) is an error, not a truncation. */
static void test_embedded_nul(void **state)
{
	static const char text[] = "{\"results\": [{\"command\": \"x\", \"times\": [1, 2]}]}\0junk";
	struct import_set s;
	char err[4096];
	UNUSED(state);
	assert_int_equal(parse_text(text, sizeof(text) - 1, &s, err, sizeof(err)), RP_EINPUT);
	assert_non_null(strstr(err, "invalid JSON"));
	/* and without the junk it parses: the length given is what counts */
	assert_int_equal(parse_text(text, strlen(text), &s, err, sizeof(err)), 0);
	import_set_release(&s);
}

/* Every proper prefix of a valid document (a truncated file) is one clean error. */
static void test_truncated_everywhere(void **state)
{
	const char *docs[] = { hyperfine_doc, gbench_doc };
	size_t d, len;
	UNUSED(state);
	for (d = 0; d < ARRAY_SIZE(docs); d++) {
		size_t full = strlen(docs[d]);
		/* the trailing newline is whitespace: the document ends before it */
		for (len = 0; len + 1 < full; len++) {
			struct import_set s;
			char err[4096];
			int ret = parse_text(docs[d], len, &s, err, sizeof(err));
			if (ret != RP_EINPUT || count_lines(err) != 1 ||
			    strncmp(err, "revperf: error: in.json", 23))
				fail_msg("doc %zu cut at %zu: ret %d, stderr: %s", d, len, ret,
					 err);
		}
	}
}

/* Caps: a name longer than 4096 bytes, more metrics than 256 per benchmark. */
static void test_caps(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct import_set s;
	char err[4096];
	int i;
	UNUSED(state);
	strbuf_addstr(&sb, "{\"results\": [{\"command\": \"");
	for (i = 0; i < 5000; i++)
		strbuf_addch(&sb, 'x');
	strbuf_addstr(&sb, "\", \"times\": [1]}]}");
	assert_int_equal(parse_text(sb.buf, sb.len, &s, err, sizeof(err)), RP_EINPUT);
	assert_non_null(strstr(err, "results[0].command is longer than 4096 bytes"));
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "{\"benchmarks\": [{\"name\": \"a\", \"time_unit\": \"ns\", "
			   "\"real_time\": 1, \"cpu_time\": 1");
	for (i = 0; i < 300; i++)
		strbuf_addf(&sb, ", \"c%d\": %d", i, i);
	strbuf_addstr(&sb, "}]}");
	assert_int_equal(parse_text(sb.buf, sb.len, &s, err, sizeof(err)), RP_EINPUT);
	assert_non_null(strstr(err, "more than 256 metrics for benchmark 'a'"));
	strbuf_release(&sb);
}

struct read_call {
	const char *path;
	struct import_set *out;
};

static int do_read(const void *arg)
{
	const struct read_call *c = arg;
	return import_read_file(c->path, c->out);
}

/* import_read_file() with stderr captured into err. */
static int read_quiet(const char *path, struct import_set *out, char *err, size_t size)
{
	struct read_call c = { path, out };
	return run_capturing(err, size, do_read, &c);
}

static void test_read_file(void **state)
{
	char err[4096];
	char path[] = "/tmp/revperf-test-import-XXXXXX";
	int fd;
	struct import_set s;
	UNUSED(state);
	assert_int_equal(read_quiet("/nonexistent/a.json", &s, err, sizeof(err)), RP_EINPUT);
	assert_non_null(strstr(err, "cannot read result file '/nonexistent/a.json': No such file"));
	assert_int_equal(read_quiet("/tmp", &s, err, sizeof(err)), RP_EINPUT);
	assert_non_null(strstr(err, "result file '/tmp' is a directory, not a file"));
	assert_int_equal(read_quiet("/dev/null", &s, err, sizeof(err)), RP_EINPUT);
	assert_non_null(strstr(err, "result file '/dev/null' is a character device, not a "
				    "regular file"));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, hyperfine_doc, strlen(hyperfine_doc)),
			 (ssize_t)strlen(hyperfine_doc));
	close(fd);
	assert_int_equal(read_quiet(path, &s, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "results[0] run 4: exit code 3 ('./prog --fast'): excluded"));
	assert_string_equal(s.origin, path);
	import_set_release(&s);
	unlink(path);
}

/* ---- comparison of two imported sets ------------------------------------------------ */

static void parse_ok(const char *text, const char *origin, struct import_set *s)
{
	char err[4096];
	assert_int_equal(parse_text(text, strlen(text), s, err, sizeof(err)), 0);
	free(s->origin);
	s->origin = xstrdup(origin);
}

static const struct metric_outcome *outcome(const struct compare_result *r, const char *bench,
					    const char *metric)
{
	size_t i, j;
	for (i = 0; i < r->nr_benches; i++)
		for (j = 0; j < r->benches[i].nr_metrics; j++)
			if (!strcmp(r->benches[i].name, bench) &&
			    !strcmp(r->benches[i].metrics[j].def->name, metric))
				return &r->benches[i].metrics[j];
	fail_msg("no outcome for %s %s", bench, metric);
	return NULL;
}

static void hyperfine_text(struct strbuf *sb, const char *cmd, double base, double scale, int n)
{
	static const double noise[] = { 1.0, 1.01, 0.99, 1.005, 0.995, 1.002, 0.998, 1.0 };
	int i;
	strbuf_addf(sb, "{\"results\": [{\"command\": \"%s\", \"times\": [", cmd);
	for (i = 0; i < n; i++)
		strbuf_addf(sb, "%s%.9f", i ? ", " : "", base * scale * noise[i % 8]);
	strbuf_addstr(sb, "]}]}");
}

struct compare_call {
	const struct import_set *a, *b;
	struct compare_result *res;
};

static int do_compare(const void *arg)
{
	const struct compare_call *c = arg;
	return compare_imported(c->a, c->b, 0.01, 0.02, c->res);
}

static void test_compare_hyperfine(void **state)
{
	struct strbuf ta = STRBUF_INIT, tb = STRBUF_INIT;
	struct import_set a, b;
	struct compare_result res;
	struct compare_call call = { &a, &b, &res };
	const struct metric_outcome *m;
	char err[4096];
	UNUSED(state);
	hyperfine_text(&ta, "work", 0.1, 1.0, 8);
	hyperfine_text(&tb, "work", 0.1, 1.3, 8);
	parse_ok(ta.buf, "a.json", &a);
	parse_ok(tb.buf, "b.json", &b);
	assert_int_equal(run_capturing(err, sizeof(err), do_compare, &call), 0);
	assert_string_equal(res.base_label, "a.json");
	assert_string_equal(res.target_label, "b.json");
	assert_int_equal(res.nr_benches, 1);
	m = outcome(&res, "work", "wall");
	assert_true(m->primary && m->measured);
	assert_false(m->r.paired); /* imported samples are not pairs: Welch */
	assert_int_equal(m->r.verdict, VERDICT_WORSE);
	assert_true(fabs(m->r.ratio - 1.3) < 1e-9);
	assert_true(m->q_bh >= m->r.p);
	assert_int_equal(res.benches[0].ok_a, 8);
	assert_int_equal(compare_exit_code(&res), EXIT_REGRESSION);
	compare_result_release(&res);

	/* A/A: the same samples on both sides are never worse or better. */
	call.b = &a;
	assert_int_equal(run_capturing(err, sizeof(err), do_compare, &call), 0);
	m = outcome(&res, "work", "wall");
	assert_true(m->r.verdict == VERDICT_EQUAL || m->r.verdict == VERDICT_UNDECIDED);
	assert_int_equal(compare_exit_code(&res), EXIT_OK);
	compare_result_release(&res);
	import_set_release(&b);

	/* Different names, one benchmark each: paired in order, with a warning. */
	strbuf_reset(&tb);
	hyperfine_text(&tb, "./new/work", 0.1, 0.7, 8);
	parse_ok(tb.buf, "b.json", &b);
	call.b = &b;
	assert_int_equal(run_capturing(err, sizeof(err), do_compare, &call), 0);
	assert_non_null(strstr(err, "no benchmark name in common; pairing"));
	m = outcome(&res, "work vs ./new/work", "wall");
	assert_int_equal(m->r.verdict, VERDICT_BETTER);
	compare_result_release(&res);
	import_set_release(&a);
	import_set_release(&b);
	strbuf_release(&ta);
	strbuf_release(&tb);
}

static void read_fixture(const char *name, struct import_set *s)
{
	struct strbuf path = STRBUF_INIT;
	char err[4096];
	strbuf_addf(&path, "%s/import/%s", TESTDATA_DIR, name);
	assert_int_equal(read_quiet(path.buf, s, err, sizeof(err)), 0);
	strbuf_release(&path);
}

static void test_compare_gbench(void **state)
{
	struct import_set a, b, h;
	struct compare_result res;
	struct compare_call call = { &a, &b, &res };
	const struct metric_outcome *m;
	char err[8192];
	size_t i;
	UNUSED(state);
	read_fixture("gbench_base.json", &a);
	read_fixture("gbench_slow.json", &b);
	assert_int_equal(run_capturing(err, sizeof(err), do_compare, &call), 0);
	/* the slowed case is worse, the others not */
	assert_int_equal(outcome(&res, "BM_Sort/1024", "real_time")->r.verdict, VERDICT_WORSE);
	assert_int_equal(outcome(&res, "BM_Hash", "real_time")->r.verdict, VERDICT_EQUAL);
	assert_int_equal(outcome(&res, "BM_Copy/64", "real_time")->r.verdict, VERDICT_BETTER);
	assert_false(outcome(&res, "BM_Copy/64", "cpu_time")->primary);
	/* directions: a higher throughput is better, a higher lower-is-better counter worse */
	m = outcome(&res, "BM_Copy/64", "bytes_per_second");
	assert_true(m->r.ratio > 1.05);
	assert_int_equal(m->r.verdict, VERDICT_BETTER);
	assert_int_equal(outcome(&res, "BM_Copy/64", "collisions")->r.verdict, VERDICT_WORSE);
	/* one-sided benchmarks are kept (unmeasured) and warned about */
	m = outcome(&res, "BM_New", "real_time");
	assert_false(m->measured);
	assert_int_equal(m->r.n_a, 0);
	assert_int_equal(m->r.n_b, 3);
	assert_non_null(strstr(err, "benchmark 'BM_New' is only in"));
	for (i = 0; i < res.nr_benches; i++)
		if (!strcmp(res.benches[i].name, "BM_Fail")) {
			assert_int_equal(res.benches[i].failed_b, 1);
			assert_int_equal(res.benches[i].nr_issues, 1);
			assert_int_equal(res.benches[i].issues[0].side, 'B');
		}
	/* BH over the report: every q is at least its p */
	for (i = 0; i < res.nr_benches; i++)
		for (size_t j = 0; j < res.benches[i].nr_metrics; j++)
			if (res.benches[i].metrics[j].measured)
				assert_true(res.benches[i].metrics[j].q_bh >=
					    res.benches[i].metrics[j].r.p - 1e-15);
	assert_int_equal(compare_exit_code(&res), EXIT_REGRESSION);
	compare_result_release(&res);

	/* two formats: refused */
	parse_ok(hyperfine_doc, "h.json", &h);
	call.b = &h;
	assert_int_equal(run_capturing(err, sizeof(err), do_compare, &call), RP_EINPUT);
	assert_non_null(strstr(err, "is Google Benchmark JSON but h.json is a hyperfine export"));
	compare_result_release(&res);
	import_set_release(&h);
	import_set_release(&a);
	import_set_release(&b);
}

/* No name in common and different counts: nothing to compare. */
static void test_compare_nothing_in_common(void **state)
{
	struct import_set a, b;
	struct compare_result res;
	struct compare_call call = { &a, &b, &res };
	char err[4096];
	UNUSED(state);
	parse_ok("{\"results\": [{\"command\": \"x\", \"times\": [1, 2]}]}", "a.json", &a);
	parse_ok("{\"results\": [{\"command\": \"y\", \"times\": [1, 2]}, {\"command\": \"z\", "
		 "\"times\": [1, 2]}]}",
		 "b.json", &b);
	assert_int_equal(run_capturing(err, sizeof(err), do_compare, &call), RP_EINPUT);
	assert_non_null(strstr(err, "a.json and b.json have no benchmark in common"));
	assert_int_equal(count_lines(err), 1);
	compare_result_release(&res);
	import_set_release(&a);
	import_set_release(&b);
}

/* Negative counter values and too few samples leave a metric unmeasured. */
static void test_compare_unmeasurable(void **state)
{
	static const char doc[] =
		"{\"benchmarks\": ["
		"{\"name\": \"a\", \"time_unit\": \"ns\", \"real_time\": 1, \"cpu_time\": 1, "
		"\"growth\": -5},"
		"{\"name\": \"a\", \"time_unit\": \"ns\", \"real_time\": 1.1, \"cpu_time\": 1, "
		"\"growth\": 3},"
		"{\"name\": \"once\", \"time_unit\": \"ns\", \"real_time\": 1, \"cpu_time\": 1}]}";
	struct import_set a, b;
	struct compare_result res;
	struct compare_call call = { &a, &b, &res };
	char err[4096];
	UNUSED(state);
	parse_ok(doc, "a.json", &a);
	parse_ok(doc, "b.json", &b);
	assert_int_equal(run_capturing(err, sizeof(err), do_compare, &call), 0);
	assert_true(outcome(&res, "a", "real_time")->measured);
	assert_false(outcome(&res, "a", "growth")->measured);
	assert_non_null(strstr(err, "metric growth has negative values"));
	assert_false(outcome(&res, "once", "real_time")->measured);
	assert_non_null(strstr(err, "--benchmark_repetitions"));
	assert_int_equal(compare_exit_code(&res), EXIT_OK);
	compare_result_release(&res);
	import_set_release(&a);
	import_set_release(&b);
}

/* ---- storage as a revision's results ------------------------------------------------ */

static int64_t count_rows(const char *db, const char *sql)
{
	char *v = tmp_db_text(db, sql);
	int64_t n = v ? strtoll(v, NULL, 10) : -1;
	free(v);
	return n;
}

struct store_call {
	struct store *st;
	const struct revision *rev;
	const struct import_set *set;
	struct import_store_summary *sum;
};

static int do_store(const void *arg)
{
	const struct store_call *c = arg;
	struct machine_info m = { "host", "cpu", 4, "6.1", "performance" };
	return import_store(c->st, c->rev, c->set, &m, c->sum);
}

static void test_store(void **state)
{
	char *db = tmp_db_path();
	struct store *st;
	struct import_set s;
	struct revision rev = { .sha = "0123456789abcdef0123456789abcdef01234567",
				.commit_time = 1700000000 };
	struct import_store_summary sum;
	struct store_call call = { NULL, &rev, &s, &sum };
	char err[4096];
	UNUSED(state);
	rev.expr = (char *)"HEAD";
	rev.summary = (char *)"a commit";
	parse_ok(gbench_doc, "/some/dir/bench.json", &s);
	assert_int_equal(store_open(db, 0, &st), 0);
	call.st = st;
	assert_int_equal(run_capturing(err, sizeof(err), do_store, &call), 0);
	assert_int_equal(sum.nr_benches, 4);
	assert_int_equal(sum.nr_runs, 3 + 1 + 1 + 1);
	assert_int_equal(sum.nr_excluded, 2);
	assert_false(sum.replaced);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM builds WHERE command = "
					"'import:gbench:bench.json' AND status = 'ok'"),
			 1);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM benchmarks WHERE command = "
					"'import:gbench'"),
			 4);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM runs WHERE status = 'ok' AND side = "
					"'A' AND warmup = 0 AND comparison_id IS NULL"),
			 6);
	/* BM_A/8: 3 real_time values; hits only where present (2 of 3) */
	assert_int_equal(count_rows(db, "SELECT count(*) FROM metric_values v JOIN runs r"
					" ON r.id = v.run_id JOIN benchmarks b"
					" ON b.id = r.benchmark_id"
					" WHERE b.name = 'BM_A/8' AND v.metric = 'real_time'"),
			 3);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM metric_values WHERE metric = 'hits'"),
			 2);
	assert_int_equal(count_rows(db, "SELECT round(sum(value) * 1e6) FROM metric_values"
					" WHERE metric = 'real_time' AND run_id IN"
					" (SELECT r.id FROM runs r JOIN benchmarks b"
					" ON b.id = r.benchmark_id WHERE b.name = 'BM_A/8')"),
			 4800);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM revisions WHERE sha = "
					"'0123456789abcdef0123456789abcdef01234567'"),
			 1);

	/* Importing the same file again replaces the earlier import. */
	assert_int_equal(run_capturing(err, sizeof(err), do_store, &call), 0);
	assert_true(sum.replaced);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM runs"), 6);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM builds"), 1);

	/* A failure in the middle (the 3rd run of a new file) stores nothing of that file. */
	tmp_db_exec(db, tmp_db_is_pg()
			    ? "CREATE FUNCTION fail_third() RETURNS trigger LANGUAGE plpgsql AS $$"
			      " BEGIN IF (SELECT count(*) FROM runs) >= 9 THEN RAISE EXCEPTION"
			      " 'injected'; END IF; RETURN NEW; END $$;"
			      " CREATE TRIGGER fail_third AFTER INSERT ON runs FOR EACH ROW"
			      " EXECUTE FUNCTION fail_third();"
			    : "CREATE TRIGGER fail_third AFTER INSERT ON runs WHEN (SELECT count(*)"
			      " FROM runs) >= 9 BEGIN SELECT RAISE(ABORT, 'injected'); END;");
	free(s.origin);
	s.origin = xstrdup("other.json");
	assert_int_equal(run_capturing(err, sizeof(err), do_store, &call), RP_EINTERNAL);
	assert_non_null(strstr(err, "injected"));
	assert_int_equal(count_rows(db, "SELECT count(*) FROM runs"), 6);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM builds"), 1);
	assert_int_equal(count_rows(db, "SELECT count(*) FROM metric_values"),
			 count_rows(db, "SELECT count(*) FROM metric_values v JOIN runs r ON "
					"r.id = v.run_id"));
	store_close(st);
	import_set_release(&s);
	tmp_db_remove(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hyperfine_valid),
		cmocka_unit_test(test_gbench_valid),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_compare_hyperfine),
		cmocka_unit_test(test_compare_gbench),
		cmocka_unit_test(test_compare_nothing_in_common),
		cmocka_unit_test(test_compare_unmeasurable),
		cmocka_unit_test(test_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
