#include "core/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <unistd.h>

#include "collect/perf_sample.h"
#include "core/metric.h"
#include "store/store.h"
#include "util/common.h"
#include "util/parse.h"
#include "util/regex_habit.h"
#include "util/suggest.h"

static void bench_defaults(struct bench_config *b)
{
	memset(b, 0, sizeof(*b));
	b->metrics = xstrdup("wall, cpu, maxrss, wchar");
	b->primary = xstrdup("wall");
	b->tolerance = CONFIG_DEFAULT_TOLERANCE;
	b->min_count_runs = 2;
	b->max_count_runs = 6;
	b->count_tolerance = CONFIG_DEFAULT_COUNT_TOLERANCE;
	b->min_runs = 5;
	b->max_runs = 30;
	b->warmup = 1;
	b->profile_runs = 3;
	b->sample_interval_ns = 100 * 1000000LL;
	b->sample_frequency_hz = 1000;
	b->log_limit_bytes = (uint64_t)16 << 20;
}

static void bench_release(struct bench_config *b)
{
	size_t i;
	for (i = 0; i < b->nr_reported; i++) {
		metric_def_free(b->reported[i].def);
		free(b->reported[i].pattern);
		regfree(&b->reported[i].re);
	}
	free(b->reported);
	free(b->name);
	free(b->command);
	free(b->metrics);
	free(b->primary);
	free(b->tests);
	free(b->test_command);
	free(b->binary);
	for (size_t i = 0; i < b->nr_select_paths; i++)
		free(b->select_paths[i]);
	free(b->select_paths);
}

static void select_paths_copy(struct bench_config *dst, const struct bench_config *src)
{
	dst->select_paths = xcalloc(src->nr_select_paths + 1, sizeof(*dst->select_paths));
	for (size_t i = 0; i < src->nr_select_paths; i++)
		dst->select_paths[i] = xstrdup(src->select_paths[i]);
	dst->nr_select_paths = src->nr_select_paths;
}

static void bench_copy_defaults(struct bench_config *dst, const struct bench_config *def)
{
	dst->metrics = xstrdup(def->metrics);
	dst->primary = xstrdup(def->primary);
	memcpy(dst->metrics_origin, def->metrics_origin, sizeof(dst->metrics_origin));
	memcpy(dst->primary_origin, def->primary_origin, sizeof(dst->primary_origin));
	dst->tolerance = def->tolerance;
	dst->min_runs = def->min_runs;
	dst->max_runs = def->max_runs;
	dst->warmup = def->warmup;
	dst->timeout_ns = def->timeout_ns;
	dst->format = def->format;
	dst->discard_stdout = def->discard_stdout;
	dst->time_budget_ns = def->time_budget_ns;
	dst->profiles = def->profiles;
	dst->profile_runs = def->profile_runs;
	dst->min_count_runs = def->min_count_runs;
	dst->max_count_runs = def->max_count_runs;
	dst->count_tolerance = def->count_tolerance;
	dst->pin = def->pin;
	dst->quiet_busy = def->quiet_busy;
	dst->quiet_wait_ns = def->quiet_wait_ns;
	dst->sample_interval_ns = def->sample_interval_ns;
	dst->sample_frequency_hz = def->sample_frequency_hz;
	dst->sample_call_graph = def->sample_call_graph;
	dst->log_limit_bytes = def->log_limit_bytes;
	select_paths_copy(dst, def);
}

void config_init(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->alpha = 0.01;
	cfg->build_timeout_ns = BUILD_TIMEOUT_DEFAULT_NS;
	bench_defaults(&cfg->defaults);
}

void config_release(struct config *cfg)
{
	size_t i;
	if (!cfg)
		return;
	free(cfg->path);
	free(cfg->build_command);
	free(cfg->profile_build_command);
	free(cfg->report_commit_url);
	free(cfg->store_url);
	bench_release(&cfg->defaults);
	for (i = 0; i < cfg->nr_benches; i++)
		bench_release(&cfg->benches[i]);
	free(cfg->benches);
	for (i = 0; i < cfg->nr_overrides; i++) {
		free(cfg->overrides[i].key);
		free(cfg->overrides[i].value);
		free(cfg->overrides[i].origin);
	}
	free(cfg->overrides);
	memset(cfg, 0, sizeof(*cfg));
}

static int bad_value(const char *origin, const char *key, const char *value, const char *expect)
{
	error("%s: invalid value '%s' for %s: expected %s", origin, value, key, expect);
	return RP_EINPUT;
}

/* A refused percentage: a bare "2" says to write "2%". */
static int bad_percent(const char *origin, const char *key, const char *value,
		       const char *expect)
{
	struct strbuf hint = STRBUF_INIT;
	if (!parse_percent_hint(value, &hint))
		return bad_value(origin, key, value, expect);
	error("%s: invalid value '%s' for %s: %s", origin, value, key, hint.buf);
	strbuf_release(&hint);
	return RP_EINPUT;
}

/* Copies the ERE between the slashes of value into sb, "\\/" as "/"; the rest in *rest. */
static int split_slashed(const char *value, struct strbuf *sb, const char **rest)
{
	const char *p = value;
	if (*p != '/')
		return -1;
	for (p++; *p && *p != '/'; p++) {
		if (*p == '\\' && p[1] == '/') {
			strbuf_addch(sb, '/');
			p++;
		} else if (*p == '\\' && p[1]) {
			strbuf_add(sb, p, 2);
			p++;
		} else {
			strbuf_addch(sb, *p);
		}
	}
	if (*p != '/')
		return -1;
	*rest = p + 1;
	return 0;
}

static int valid_metric_name(const char *name)
{
	if (!*name || strlen(name) > 48)
		return 0;
	for (; *name; name++)
		if (!(islower((unsigned char)*name) || isdigit((unsigned char)*name) ||
		      *name == '_' || *name == '-'))
			return 0;
	return 1;
}

/* metric.NAME = /ERE/ [higher-is-better|lower-is-better] [unit=LABEL] [match=last|mean] */
static int reported_metric_add(struct bench_config *b, const char *name, const char *value,
			       const char *origin)
{
	struct strbuf pattern = STRBUF_INIT;
	struct reported_metric rm;
	const char *rest, *unit = NULL;
	char *opts = NULL, *tok, *save = NULL, errbuf[256];
	enum direction dir = LOWER_IS_BETTER;
	int rc, ret = RP_EINPUT;
	size_t i;

	memset(&rm, 0, sizeof(rm));
	if (!valid_metric_name(name) || metric_find(name)) {
		error("%s: metric.%s: a reported metric needs a new name of lower-case letters, "
		      "digits, '-' and '_' (not a built-in metric such as wall)",
		      origin, name);
		goto out;
	}
	for (i = 0; i < b->nr_reported; i++)
		if (!strcmp(b->reported[i].def->name, name)) {
			if (origin[0] == '-') { /* a flag replaces the file's definition */
				metric_def_free(b->reported[i].def);
				free(b->reported[i].pattern);
				regfree(&b->reported[i].re);
				b->reported[i] = b->reported[--b->nr_reported];
				break;
			}
			error("%s: metric.%s is defined twice in this benchmark", origin, name);
			goto out;
		}
	if (split_slashed(value, &pattern, &rest)) {
		error("%s: metric.%s: expected /REGEX/ followed by options, such as "
		      "/speed: ([0-9.]+) MB\\/s/ higher-is-better unit=MB/s",
		      origin, name);
		goto out;
	}
	opts = xstrdup(rest);
	for (tok = strtok_r(opts, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(tok, "higher-is-better"))
			dir = HIGHER_IS_BETTER;
		else if (!strcmp(tok, "lower-is-better"))
			dir = LOWER_IS_BETTER;
		else if (!strncmp(tok, "unit=", 5) && tok[5])
			unit = tok + 5;
		else if (!strcmp(tok, "match=last"))
			rm.mean = false;
		else if (!strcmp(tok, "match=mean"))
			rm.mean = true;
		else {
			error("%s: metric.%s: unknown option '%s'; use higher-is-better, "
			      "lower-is-better, unit=LABEL, match=last or match=mean",
			      origin, name, tok);
			goto out;
		}
	}
	rc = regcomp(&rm.re, pattern.buf, REG_EXTENDED | REG_NEWLINE);
	if (rc) {
		regerror(rc, &rm.re, errbuf, sizeof(errbuf));
		error("%s: metric.%s: the regex /%s/ does not compile: %s", origin, name,
		      pattern.buf, errbuf);
		goto out;
	}
	if (rm.re.re_nsub < 1) {
		regfree(&rm.re);
		error("%s: metric.%s: the regex /%s/ has no capture group; put the number in "
		      "parentheses, e.g. /speed: ([0-9.]+) MB\\/s/",
		      origin, name, pattern.buf);
		goto out;
	}
	rm.def = metric_def_new(name, UNIT_CUSTOM, unit, dir, "reported by the benchmark");
	rm.pattern = strbuf_detach(&pattern);
	snprintf(rm.origin, sizeof(rm.origin), "%s", origin);
	ALLOC_GROW(b->reported, b->nr_reported + 1, b->alloc_reported);
	b->reported[b->nr_reported++] = rm;
	ret = 0;
out:
	free(opts);
	strbuf_release(&pattern);
	return ret;
}

const struct metric_def **bench_runtime_defs(const struct bench_config *b, size_t *n)
{
	const struct metric_def **defs =
		xcalloc(b->nr_reported + b->nr_case_defs + 1, sizeof(*defs));
	size_t i;
	for (i = 0; i < b->nr_reported; i++)
		defs[i] = b->reported[i].def;
	for (i = 0; i < b->nr_case_defs; i++)
		defs[b->nr_reported + i] = b->case_defs[i];
	*n = b->nr_reported + b->nr_case_defs;
	return defs;
}

/* "cct", "io", "none", or a comma-separated list of profile kinds. Returns 0 or -1. */
static int parse_profiles(const char *value, unsigned *out)
{
	static const struct {
		const char *name;
		unsigned bit;
	} kinds[] = { { "cct", PROFILE_CCT },
		      { "sample", PROFILE_SAMPLE },
		      { "io", PROFILE_IO },
		      { "counters", PROFILE_COUNTERS },
		      { "none", 0 } };
	unsigned bits = 0;
	const char *p = value;
	while (*p) {
		size_t len, i;
		while (*p == ' ' || *p == ',')
			p++;
		len = strcspn(p, ", ");
		if (!len)
			break;
		for (i = 0; i < ARRAY_SIZE(kinds); i++)
			if (strlen(kinds[i].name) == len && !strncmp(p, kinds[i].name, len))
				break;
		if (i == ARRAY_SIZE(kinds))
			return -1;
		bits |= kinds[i].bit;
		p += len;
	}
	*out = bits;
	return 0;
}

/* Sets a benchmark option on b. Returns 0, 1 when key is not a benchmark option, or
 * RP_EINPUT. */
/* `select-paths = GLOB[, GLOB...]`: relative to the repository root, none empty. */
static int select_paths_set(struct bench_config *b, const char *value, const char *origin)
{
	char *list = xstrdup(value), *p, *save = NULL;
	char **globs = NULL;
	size_t nr = 0, alloc = 0;
	int ret = 0;
	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		size_t len;
		while (*p == ' ' || *p == '\t')
			p++;
		len = strlen(p);
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			p[--len] = '\0';
		while (len > 1 && p[len - 1] == '/')
			p[--len] = '\0'; /* "data/" names the directory: everything under it */
		if (!len || p[0] == '/') {
			ret = bad_value(origin, "select-paths", value,
					"globs relative to the repository root, separated by "
					"commas, such as 'data/*, config/*.ini'");
			break;
		}
		ALLOC_GROW(globs, nr + 1, alloc);
		globs[nr++] = xstrdup(p);
	}
	if (!ret && !nr)
		ret = bad_value(origin, "select-paths", value,
				"globs relative to the repository root, such as 'data/*'");
	free(list);
	if (ret) {
		for (size_t i = 0; i < nr; i++)
			free(globs[i]);
		free(globs);
		return ret;
	}
	for (size_t i = 0; i < b->nr_select_paths; i++)
		free(b->select_paths[i]);
	free(b->select_paths);
	b->select_paths = globs;
	b->nr_select_paths = nr;
	return 0;
}

const char *bench_select_path_match(const struct bench_config *b, const char *path)
{
	struct strbuf dir = STRBUF_INIT;
	const char *hit = NULL;
	for (size_t i = 0; i < b->nr_select_paths && !hit; i++) {
		const char *slash = path;
		if (!fnmatch(b->select_paths[i], path, 0)) {
			hit = b->select_paths[i];
			break;
		}
		/* A leading directory that matches selects everything under it. */
		while ((slash = strchr(slash, '/')) && !hit) {
			strbuf_reset(&dir);
			strbuf_add(&dir, path, (size_t)(slash - path));
			if (!fnmatch(b->select_paths[i], dir.buf, 0))
				hit = b->select_paths[i];
			slash++;
		}
	}
	strbuf_release(&dir);
	return hit;
}

static int bench_set(struct bench_config *b, const char *key, const char *value,
		     const char *origin)
{
	if (!strcmp(key, "command")) {
		if (!*value)
			return bad_value(origin, key, value, "a command line");
		free(b->command);
		b->command = xstrdup(value);
	} else if (!strcmp(key, "metrics") || !strcmp(key, "primary")) {
		/* Checked by config_finish(), once the benchmark's metric.NAME keys are known. */
		bool m = key[0] == 'm';
		if (!*value)
			return bad_value(origin, key, value, "a list such as 'wall, cpu'");
		free(m ? b->metrics : b->primary);
		*(m ? &b->metrics : &b->primary) = xstrdup(value);
		snprintf(m ? b->metrics_origin : b->primary_origin, sizeof(b->metrics_origin), "%s",
			 origin);
	} else if (!strncmp(key, "metric.", 7)) {
		return reported_metric_add(b, key + 7, value, origin);
	} else if (!strcmp(key, "format")) {
		if (!strcmp(value, "plain"))
			b->format = BENCH_PLAIN;
		else if (!strcmp(value, "gbench"))
			b->format = BENCH_GBENCH;
		else
			return bad_value(origin, key, value,
					 "plain, or gbench for a Google Benchmark binary");
	} else if (!strcmp(key, "output")) {
		if (!strcmp(value, "log") || !strcmp(value, "discard"))
			b->discard_stdout = value[0] == 'd';
		else
			return bad_value(origin, key, value,
					 "log (the benchmark's stdout and stderr go into the run "
					 "log) or discard (its stdout goes to /dev/null)");
	} else if (!strcmp(key, "tolerance")) {
		if (parse_percent(value, &b->tolerance) || b->tolerance <= 0)
			return bad_percent(origin, key, value, "a percentage such as 2%");
	} else if (!strcmp(key, "count-tolerance")) {
		if (parse_percent(value, &b->count_tolerance) || b->count_tolerance <= 0)
			return bad_percent(origin, key, value, "a percentage such as 0.1%");
	} else if (!strcmp(key, "pin")) {
		if (cpu_pin_parse(value, &b->pin))
			return bad_value(origin, key, value,
					 "off, auto (one CPU, not CPU 0) or a CPU list such as 3 or 2-3");
	} else if (!strcmp(key, "quiet")) {
		if (!strcmp(value, "off")) {
			b->quiet_wait_ns = 0;
		} else {
			const char *comma = strchr(value, ',');
			char *busy = comma ? xstrndup(value, (size_t)(comma - value)) : NULL;
			bool bad = !comma || parse_percent(busy, &b->quiet_busy) ||
				   b->quiet_busy > 1 || parse_duration(comma + 1, &b->quiet_wait_ns) ||
				   !b->quiet_wait_ns;
			struct strbuf hint = STRBUF_INIT;
			bool bare = bad && busy && parse_percent_hint(busy, &hint);
			if (bare)
				error("%s: invalid value '%s' for %s: BUSY: %s", origin, value, key,
				      hint.buf);
			free(busy);
			strbuf_release(&hint);
			if (bare)
				return RP_EINPUT;
			if (bad)
				return bad_value(origin, key, value,
						 "off, or BUSY, MAX-WAIT such as '25%, 30s': wait "
						 "before each pair until at most BUSY of the CPU time "
						 "is busy, at most MAX-WAIT");
		}
	} else if (!strcmp(key, "count-runs")) {
		if (parse_run_range(value, &b->min_count_runs, &b->max_count_runs) ||
		    b->max_count_runs > 100)
			return bad_value(origin, key, value,
					 "MIN..MAX counted runs per side, such as 2..6, with MIN >= 2 "
					 "and MAX <= 100");
	} else if (!strcmp(key, "runs")) {
		if (parse_run_range(value, &b->min_runs, &b->max_runs))
			return bad_value(origin, key, value,
					 "MIN..MAX runs per side, such as 5..30, with MIN >= 2");
	} else if (!strcmp(key, "warmup")) {
		uint64_t v;
		if (parse_u64(value, &v) || v > 1000)
			return bad_value(origin, key, value, "a number of runs (0-1000)");
		b->warmup = (size_t)v;
	} else if (!strcmp(key, "timeout")) {
		if (!strcmp(value, "auto"))
			b->timeout_ns = 0;
		else if (parse_duration(value, &b->timeout_ns) || !b->timeout_ns)
			return bad_value(origin, key, value, "a duration such as 60s or 'auto'");
	} else if (!strcmp(key, "profile")) {
		if (parse_profiles(value, &b->profiles))
			return bad_value(origin, key, value,
					 "'cct' (calling context tree), 'sample' (sampled one), "
					 "'io' (writes per stack trace), 'counters' (sampled "
					 "counters), a list such as 'cct, io', or 'none'");
		if ((b->profiles & PROFILE_CCT) && (b->profiles & PROFILE_SAMPLE))
			return bad_value(origin, key, value,
					 "either 'cct' or 'sample': both give the attribution "
					 "under the verdict");
	} else if (!strcmp(key, "sample-frequency")) {
		uint64_t v;
		if (parse_u64(value, &v) || v < 1 || v > 100000)
			return bad_value(origin, key, value,
					 "samples per second of CPU time (1-100000), such as 1000");
		b->sample_frequency_hz = (unsigned)v;
	} else if (!strcmp(key, "sample-call-graph")) {
		if (!strcmp(value, "auto"))
			b->sample_call_graph = PERF_SAMPLE_CALLGRAPH_AUTO;
		else if (!strcmp(value, "fp"))
			b->sample_call_graph = PERF_SAMPLE_CALLGRAPH_FP;
		else if (!strcmp(value, "dwarf"))
			b->sample_call_graph = PERF_SAMPLE_CALLGRAPH_DWARF;
		else
			return bad_value(origin, key, value, "auto, fp or dwarf");
	} else if (!strcmp(key, "sample-interval")) {
		if (parse_duration(value, &b->sample_interval_ns) ||
		    b->sample_interval_ns < 10 * 1000000LL ||
		    b->sample_interval_ns > 3600 * 1000000000LL)
			return bad_value(origin, key, value, "a duration from 10ms to 1h, such as 100ms");
	} else if (!strcmp(key, "log-limit")) {
		if (!strcmp(value, "none"))
			b->log_limit_bytes = 0;
		else if (parse_size(value, &b->log_limit_bytes) || b->log_limit_bytes < 4096)
			return bad_value(origin, key, value,
					 "a size from 4KiB, such as 16MiB, or 'none'");
	} else if (!strcmp(key, "profile-runs")) {
		uint64_t v;
		if (parse_u64(value, &v) || v < 1 || v > 100)
			return bad_value(origin, key, value, "a number of runs per side (1-100)");
		b->profile_runs = (size_t)v;
	} else if (!strcmp(key, "time-budget")) {
		if (!strcmp(value, "none"))
			b->time_budget_ns = 0;
		else if (parse_duration(value, &b->time_budget_ns))
			return bad_value(origin, key, value, "a duration such as 5m or 'none'");
	} else if (!strcmp(key, "tests") || !strcmp(key, "binary")) {
		char **slot = key[0] == 't' ? &b->tests : &b->binary;
		if (!*value)
			return bad_value(origin, key, value,
					 key[0] == 't' ? "a command that lists the test names"
						       : "the path of the program in the worktree");
		free(*slot);
		*slot = xstrdup(value);
	} else if (!strcmp(key, "select-paths")) {
		return select_paths_set(b, value, origin);
	} else if (!strcmp(key, "test-command")) {
		if (!strstr(value, "{test}"))
			return bad_value(origin, key, value,
					 "a command with {test} where the test name goes");
		free(b->test_command);
		b->test_command = xstrdup(value);
	} else {
		return 1;
	}
	return 0;
}

static struct bench_config *bench_add(struct config *cfg, const char *name)
{
	struct bench_config *b;
	ALLOC_GROW(cfg->benches, cfg->nr_benches + 1, cfg->alloc_benches);
	b = &cfg->benches[cfg->nr_benches++];
	memset(b, 0, sizeof(*b));
	b->name = xstrdup(name);
	bench_copy_defaults(b, &cfg->defaults);
	return b;
}

struct bench_config *config_bench(struct config *cfg, const char *name)
{
	size_t i;
	for (i = 0; i < cfg->nr_benches; i++)
		if (!strcmp(cfg->benches[i].name, name))
			return &cfg->benches[i];
	return NULL;
}

/* Extracts NAME from `benchmark "NAME"`; returns NULL when section is not one. */
static char *bench_section_name(const char *section)
{
	const char *p = section, *q;
	if (strncmp(p, "benchmark", 9))
		return NULL;
	p += 9;
	while (*p == ' ')
		p++;
	if (*p != '"')
		return NULL;
	q = strchr(p + 1, '"');
	if (!q || q == p + 1 || q[1])
		return NULL;
	return xstrndup(p + 1, (size_t)(q - p - 1));
}

static int valid_bench_name(const char *name)
{
	for (; *name; name++)
		if (!(isalnum((unsigned char)*name) || strchr("-_.:/+", *name)))
			return 0;
	return 1;
}

/*
 * The template's "count-tolerance = 0.1%" without its sign is 10%: a counted change of 5%
 * judged equal. Valid (a bare number is a fraction), so a warning, once per line or flag.
 */
static void warn_count_fraction(const struct config *cfg, const char *key, const char *value,
				const char *origin)
{
	double v;
	if (cfg->no_warnings || strcmp(key, "count-tolerance") || strchr(value, '%') ||
	    parse_percent(value, &v) || v < 0.01)
		return;
	warning("%s: count-tolerance %s is a fraction, %g%%: counted changes under %g%% are "
		"judged equal; write %s%% for %s percent",
		origin, value, 100 * v, 100 * v, value, value);
}

/* The keys bench_set() takes (metric.NAME aside); a [defaults] section takes those of
 * them that describe no single benchmark, and alpha and seed. */
/* clang-format off */
static const char *const bench_keys[] = {
	"command", "metrics", "primary", "format", "output", "tolerance", "count-tolerance",
	"pin", "quiet", "count-runs", "runs", "warmup", "timeout", "profile",
	"sample-frequency", "sample-call-graph", "sample-interval", "log-limit",
	"profile-runs", "time-budget", "select-paths", "tests", "binary", "test-command"};
static const char *const defaults_keys[] = {
	"command", "metrics", "primary", "format", "output", "tolerance", "count-tolerance",
	"pin", "quiet", "count-runs", "runs", "warmup", "timeout", "profile",
	"sample-frequency", "sample-call-graph", "sample-interval", "log-limit",
	"profile-runs", "time-budget", "select-paths", "alpha", "seed"};
static const char *const build_keys[] = {"command", "profile-command", "timeout"};
static const char *const report_keys[] = {"commit-url"};
static const char *const store_keys[] = {"url"};
/* clang-format on */

/*
 * The error of an unknown key in a section (shown as `where`), with the nearest keys of
 * keys[0..n) when one is near, as for a mistyped option (util/suggest.h), then tail.
 * Returns RP_EINPUT.
 */
static int unknown_key(const char *origin, const char *key, const char *where,
		       const char *const *keys, size_t n, const char *tail)
{
	const char *near[2];
	struct strbuf sb = STRBUF_INIT;
	size_t found = suggest_nearest(key, keys, n, near, 2);
	if (found == 1)
		strbuf_addf(&sb, " (did you mean '%s'?)", near[0]);
	else if (found == 2)
		strbuf_addf(&sb, " (did you mean '%s' or '%s'?)", near[0], near[1]);
	error("%s: unknown option '%s'%s in %s; %s", origin, key, sb.buf, where, tail);
	strbuf_release(&sb);
	return RP_EINPUT;
}

int config_set(struct config *cfg, const char *section, const char *key, const char *value,
	       const char *origin)
{
	char *name;
	int ret;
	warn_count_fraction(cfg, key, value, origin);
	if (!section && !strncmp(key, "metric.", 7)) {
		/* A flag: checked now on a scratch benchmark, applied to every benchmark by
		 * config_finish() (replacing a definition of the same name). */
		struct bench_config scratch;
		struct bench_override *o;
		memset(&scratch, 0, sizeof(scratch));
		ret = reported_metric_add(&scratch, key + 7, value, origin);
		bench_release(&scratch);
		if (ret)
			return ret;
		ALLOC_GROW(cfg->overrides, cfg->nr_overrides + 1, cfg->alloc_overrides);
		o = &cfg->overrides[cfg->nr_overrides++];
		o->key = xstrdup(key);
		o->value = xstrdup(value);
		o->origin = xstrdup(origin);
		return 0;
	}
	if (!section || !strcmp(section, "defaults")) {
		if (!strcmp(key, "tests") || !strcmp(key, "test-command") ||
		    !strcmp(key, "binary")) {
			error("%s: %s belongs in a [benchmark \"NAME\"] section: it describes one "
			      "benchmark",
			      origin, key);
			return RP_EINPUT;
		}
		if (!strncmp(key, "metric.", 7)) {
			error("%s: %s belongs in a [benchmark \"NAME\"] section: each benchmark "
			      "reports its own metrics",
			      origin, key);
			return RP_EINPUT;
		}
		ret = bench_set(&cfg->defaults, key, value, origin);
		if (ret == 0 && section == NULL) {
			struct bench_override *o;
			ALLOC_GROW(cfg->overrides, cfg->nr_overrides + 1, cfg->alloc_overrides);
			o = &cfg->overrides[cfg->nr_overrides++];
			o->key = xstrdup(key);
			o->value = xstrdup(value);
			o->origin = xstrdup(origin);
		}
		if (ret == 1 && !strcmp(key, "alpha")) {
			double a;
			if (parse_percent(value, &a) || a <= 0 || a >= 0.5)
				return bad_percent(origin, key, value, "a level such as 0.01 or 1%");
			cfg->alpha = a;
			return 0;
		}
		if (ret == 1 && !strcmp(key, "seed")) {
			if (parse_u64(value, &cfg->seed))
				return bad_value(origin, key, value, "a non-negative integer");
			cfg->seed_set = true;
			return 0;
		}
		if (ret == 1)
			return unknown_key(origin, key, "[defaults]", defaults_keys,
					   ARRAY_SIZE(defaults_keys),
					   "see `revperf init` for the template");
		return ret;
	}
	if (!strcmp(section, "build")) {
		if (!strcmp(key, "command")) {
			free(cfg->build_command);
			cfg->build_command = *value ? xstrdup(value) : NULL;
			return 0;
		}
		if (!strcmp(key, "profile-command")) {
			free(cfg->profile_build_command);
			cfg->profile_build_command = *value ? xstrdup(value) : NULL;
			snprintf(cfg->profile_build_origin, sizeof(cfg->profile_build_origin), "%s",
				 origin);
			return 0;
		}
		if (!strcmp(key, "timeout")) {
			if (!strcmp(value, "none"))
				cfg->build_timeout_ns = 0;
			else if (parse_duration(value, &cfg->build_timeout_ns) ||
				 !cfg->build_timeout_ns)
				return bad_value(origin, key, value,
						 "a duration such as 2h or 90m, or 'none'");
			return 0;
		}
		return unknown_key(origin, key, "[build]", build_keys, ARRAY_SIZE(build_keys),
				   "it takes 'command', 'profile-command' and 'timeout'");
	}
	if (!strcmp(section, "report")) {
		if (!strcmp(key, "commit-url")) {
			if (*value && parse_http_url(value))
				return bad_value(origin, key, value,
						 "an http:// or https:// URL such as "
						 "https://example.org/repo/commit/{sha}");
			free(cfg->report_commit_url);
			cfg->report_commit_url = *value ? xstrdup(value) : NULL;
			return 0;
		}
		return unknown_key(origin, key, "[report]", report_keys, ARRAY_SIZE(report_keys),
				   "it takes 'commit-url'");
	}
	if (!strcmp(section, "store")) {
		if (!strcmp(key, "url")) {
			free(cfg->store_url);
			cfg->store_url = *value ? xstrdup(value) : NULL;
			snprintf(cfg->store_origin, sizeof(cfg->store_origin), "%s", origin);
			if (*value && store_location_has_password(value))
				warning("%s: [store] url holds a password; revperf.ini is usually "
					"committed: keep the password in a password file (PGPASSFILE, "
					"~/.pgpass) or PGPASSWORD instead",
					origin);
			return 0;
		}
		return unknown_key(origin, key, "[store]", store_keys, ARRAY_SIZE(store_keys),
				   "it takes 'url'");
	}
	name = bench_section_name(section);
	if (!name) {
		error("%s: unknown section [%s]; expected [build], [defaults], [report], [store] or "
		      "[benchmark \"NAME\"]",
		      origin, section);
		return RP_EINPUT;
	}
	if (!valid_bench_name(name)) {
		error("%s: benchmark name '%s' may only contain letters, digits and -_.:/+",
		      origin, name);
		free(name);
		return RP_EINPUT;
	}
	{
		struct bench_config *b = config_bench(cfg, name);
		if (!b) {
			b = bench_add(cfg, name);
			snprintf(b->origin, sizeof(b->origin), "%s", origin);
		}
		free(name);
		ret = bench_set(b, key, value, origin);
		if (ret == 1) {
			struct strbuf where = STRBUF_INIT;
			strbuf_addf(&where, "[%s]", section);
			ret =
			    unknown_key(origin, key, where.buf, bench_keys, ARRAY_SIZE(bench_keys),
					"see `revperf init` for the template");
			strbuf_release(&where);
		}
	}
	return ret;
}

/* The metrics and primary lists name known metrics (built-in or this benchmark's own). */
static int bench_check_metrics(const struct bench_config *b)
{
	if (b->format == BENCH_GBENCH)
		return 0; /* its metrics are known after the discovery run (compare.c) */
	size_t n, n_extra;
	const struct metric_def **extra = bench_runtime_defs(b, &n_extra), **defs = NULL;
	int ret = metric_parse_list_with(b->metrics, b->metrics_origin[0] ? b->metrics_origin
									: "metrics",
					 extra, n_extra, &defs, &n);
	free(defs);
	defs = NULL;
	if (!ret)
		ret = metric_parse_list_with(b->primary, b->primary_origin[0] ? b->primary_origin
									   : "primary",
					     extra, n_extra, &defs, &n);
	free(defs);
	free(extra);
	return ret;
}

/* Perl habits in metric.NAME regexes: one warning per definition, not per benchmark. */
static void warn_regex_habits(const struct config *cfg)
{
	for (size_t i = 0; i < cfg->nr_benches; i++)
		for (size_t k = 0; k < cfg->benches[i].nr_reported; k++) {
			const struct reported_metric *rm = &cfg->benches[i].reported[k];
			struct strbuf advice = STRBUF_INIT;
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++)
				for (size_t l = 0; l < cfg->benches[j].nr_reported && !seen; l++)
					seen = !strcmp(cfg->benches[j].reported[l].origin, rm->origin) &&
					       !strcmp(cfg->benches[j].reported[l].def->name,
						       rm->def->name);
			if (!seen && regex_pcre_habits(rm->pattern, &advice))
				warning("%s: metric.%s: /%s/: %s", rm->origin, rm->def->name,
					rm->pattern, advice.buf);
			strbuf_release(&advice);
		}
}

int config_finish(struct config *cfg)
{
	size_t i, j;
	for (i = 0; i < cfg->nr_benches; i++) {
		struct bench_config *b = &cfg->benches[i];
		for (j = 0; j < cfg->nr_overrides; j++) {
			int ret = bench_set(b, cfg->overrides[j].key, cfg->overrides[j].value,
					    cfg->overrides[j].origin);
			if (ret)
				return RP_EINPUT;
		}
		if (!b->tests != !b->test_command) {
			error("%s: [benchmark \"%s\"] is a test suite only with both 'tests' (lists "
			      "the tests) and 'test-command' (runs one, with {test})",
			      b->origin, b->name);
			return RP_EINPUT;
		}
		if (b->tests && b->command) {
			error("%s: [benchmark \"%s\"] has both 'command' and 'tests'; a test suite "
			      "runs each test with 'test-command' instead",
			      b->origin, b->name);
			return RP_EINPUT;
		}
		if (!b->command && !b->tests) {
			error("%s: [benchmark \"%s\"] has no 'command'; add 'command = ...'",
			      b->origin, b->name);
			return RP_EINPUT;
		}
		if (bench_check_metrics(b))
			return RP_EINPUT;
	}
	if (!cfg->no_warnings)
		warn_regex_habits(cfg);
	return 0;
}

static const char config_template[] =
	"; revperf configuration: how to build this project and which benchmarks to run.\n"
	"; Every option below also has a command-line flag that overrides it\n"
	"; (`revperf compare -h` lists them). Comments start with ';' or '#'.\n"
	"\n"
	"[build]\n"
	"; Runs once per (commit, command) in .revperf/worktrees/<sha>/, output in\n"
	"; .revperf/logs/. Leave empty when there is nothing to build.\n"
	"command = make -j2\n"
	"; The build of profiled runs (benchmarks with profile = cct), in its own worktree:\n"
	"; the same program compiled with -finstrument-functions.\n"
	"; profile-command = make -j2 CFLAGS='-O2 -g -finstrument-functions'\n"
	"; A build still running after this is killed and counts as failed ('none': no limit).\n"
	"; timeout = 2h\n"
	"\n"
	"[defaults]\n"
	"; Options for every benchmark (a [benchmark] section may override them).\n"
	"; Metrics: wall, user, sys, cpu, maxrss, minflt, majflt, nvcsw, nivcsw, rchar,\n"
	"; wchar, task-clock, instructions, cycles, cache-misses, branch-misses,\n"
	"; iteration (from `revperf-iteration SECONDS` lines), or all; and the counted\n"
	"; metrics, measured in extra runs under valgrind after the timing runs and exact\n"
	"; on a noisy machine: ir (instructions executed) and sim-cycles (estimated from a\n"
	"; fixed cache model). Instructions are not time: a speed-up that executes more\n"
	"; of them (branchless code, wider loads) is worse on ir. E.g. metrics = wall, cpu,\n"
	"; ir with primary = wall (ir judged and shown beside it, with the functions whose\n"
	"; instructions changed), or primary = wall, ir to fail on either.\n"
	"metrics = wall, cpu, maxrss, wchar\n"
	"; The metrics that decide the exit code and when to stop sampling.\n"
	"primary = wall\n"
	"; A change smaller than this counts as equal.\n"
	"tolerance = 2%\n"
	"; Runs per side: at least MIN, more pairs until the verdict is decided, at most MAX.\n"
	"runs = 5..30\n"
	"; Runs per side executed first and discarded.\n"
	"warmup = 1\n"
	"; Per run; auto = 10 x the baseline median, at least 60 s.\n"
	"timeout = auto\n"
	"; Stop sampling a benchmark after this long (none = only the run budget).\n"
	"time-budget = none\n"
	"; Profiles of the program, shown under the verdict; a list such as `cct, io`:\n"
	";   cct = extra runs with a calling context tree per side, differenced;\n"
	";   sample = the same from sampling runs of the timing build (perf_event_open);\n"
	";   io = extra traced runs, the writes per stack trace compared (SPECTRAPERF);\n"
	";   counters = counters sampled during the timing runs, control charts.\n"
	"; none = off.\n"
	"profile = none\n"
	"; Profiled (cct, sample) or traced (io) runs per side, after the timing runs.\n"
	"profile-runs = 3\n"
	"; profile = sample: samples per second of CPU time, and the call graph (auto,\n"
	"; fp = frame pointers, dwarf = stack copies unwound afterwards).\n"
	"sample-frequency = 1000\n"
	"sample-call-graph = auto\n"
	"; Counted metrics (ir, sim-cycles): runs per side under valgrind (MIN when the\n"
	"; counts of each side agree, up to MAX when they do not), and their tolerance.\n"
	"count-runs = 2..6\n"
	"count-tolerance = 0.1%\n"
	"; Noise controls of the timing runs: pin every run of both sides to one CPU set\n"
	"; (off, auto = one CPU other than CPU 0, or a list such as 2-3), and wait before\n"
	"; each pair until the machine is quiet (off, or BUSY, MAX-WAIT such as 25%, 30s).\n"
	"pin = off\n"
	"quiet = off\n"
	"; profile = counters: how often the counters are sampled.\n"
	"sample-interval = 100ms\n"
	"; The output of a run kept in its log (its beginning and end; the rest counted).\n"
	"log-limit = 16MiB\n"
	"; Confidence level of the verdict is 1 - alpha.\n"
	"alpha = 0.01\n"
	"\n"
	"[benchmark \"example\"]\n"
	"; Runs in the revision's worktree; shell syntax is allowed.\n"
	"command = ./build/bench --size 10000\n"
	"; Its stdout and stderr go into the run log (logs/runs/); a benchmark that writes\n"
	"; its result to stdout (a compressor, say) discards it instead with:\n"
	"; output = discard\n";

int config_write_template(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	size_t off = 0, len = sizeof(config_template) - 1;
	if (fd < 0) {
		if (errno == EEXIST)
			error("%s already exists; remove it first or edit it", path);
		else
			error("cannot create %s: %s", path, strerror(errno));
		return RP_EINPUT;
	}
	while (off < len) {
		ssize_t n = write(fd, config_template + off, len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error("cannot write %s: %s", path, strerror(errno));
			close(fd);
			unlink(path);
			return RP_EINPUT;
		}
		off += (size_t)n;
	}
	if (close(fd)) {
		error("cannot write %s: %s", path, strerror(errno));
		return RP_EINPUT;
	}
	return 0;
}

/* A deep copy of the reported metric rm (its regex compiled anew). */
static void reported_metric_copy(struct reported_metric *dst, const struct reported_metric *rm)
{
	const struct metric_def *d = rm->def;
	memset(dst, 0, sizeof(*dst));
	dst->def = metric_def_new(d->name, d->unit, d->unit_label, d->direction, d->help);
	dst->pattern = xstrdup(rm->pattern);
	dst->mean = rm->mean;
	memcpy(dst->origin, rm->origin, sizeof(dst->origin));
	/* It compiled when it was read: it compiles again. */
	if (regcomp(&dst->re, dst->pattern, REG_EXTENDED | REG_NEWLINE))
		regcomp(&dst->re, "()", REG_EXTENDED);
}

/* One test of a suite: every option of the suite, its own name and command. */
static void suite_test_init(struct bench_config *t, const struct bench_config *suite,
			    const char *name, const char *test)
{
	struct strbuf cmd = STRBUF_INIT;
	const char *p = suite->test_command, *hole;
	while ((hole = strstr(p, "{test}"))) {
		strbuf_add(&cmd, p, (size_t)(hole - p));
		strbuf_addstr(&cmd, test);
		p = hole + 6;
	}
	strbuf_addstr(&cmd, p);
	memset(t, 0, sizeof(*t));
	bench_copy_defaults(t, suite);
	t->name = xstrdup(name);
	t->command = strbuf_detach(&cmd);
	memcpy(t->origin, suite->origin, sizeof(t->origin));
	if (suite->binary)
		t->binary = xstrdup(suite->binary);
	for (size_t i = 0; i < suite->nr_reported; i++) {
		ALLOC_GROW(t->reported, t->nr_reported + 1, t->alloc_reported);
		reported_metric_copy(&t->reported[t->nr_reported++], &suite->reported[i]);
	}
}

int config_expand_suite(struct config *cfg, const char *suite, const char *const *tests,
			size_t n)
{
	struct bench_config *s = config_bench(cfg, suite), *made;
	struct strbuf name = STRBUF_INIT;
	size_t at, i, j, nr_made = 0;
	int ret = RP_EINPUT;

	if (!s || !s->tests) {
		error("no test suite '%s' in %s", suite, cfg->path ? cfg->path : "the configuration");
		return RP_EINPUT;
	}
	at = (size_t)(s - cfg->benches);
	made = xcalloc(n + 1, sizeof(*made));
	for (i = 0; i < n; i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "%s/%s", suite, tests[i]);
		if (!*tests[i] || !valid_bench_name(tests[i])) {
			error("%s: test suite '%s': test name '%s' may only contain letters, digits "
			      "and -_.:/+; make `tests` print names such as Suite.test",
			      s->origin, suite, tests[i]);
			goto out;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(tests[j], tests[i]))
				break;
		if (j < i || config_bench(cfg, name.buf)) {
			error("%s: test suite '%s': test '%s' is listed twice, or a benchmark "
			      "'%s' exists already",
			      s->origin, suite, tests[i], name.buf);
			goto out;
		}
		suite_test_init(&made[nr_made++], s, name.buf, tests[i]);
	}
	/* Moves the tests in place of the suite. */
	ALLOC_GROW(cfg->benches, cfg->nr_benches + n, cfg->alloc_benches);
	s = &cfg->benches[at];
	bench_release(s);
	memmove(&cfg->benches[at + n], &cfg->benches[at + 1],
		(cfg->nr_benches - at - 1) * sizeof(*cfg->benches));
	memcpy(&cfg->benches[at], made, n * sizeof(*made));
	cfg->nr_benches = cfg->nr_benches - 1 + n;
	nr_made = 0;
	ret = 0;
out:
	for (i = 0; i < nr_made; i++)
		bench_release(&made[i]);
	free(made);
	strbuf_release(&name);
	return ret;
}

/*
 * The error of --bench NAME that no benchmark has: the nearest names (a typo) and the
 * names there are, the n already taken (kept) and those left in cfg. Before, it said only
 * that the file's sections name the choices.
 */
static void bench_unknown(const struct config *cfg, const struct bench_config *kept, size_t n,
			  const char *name)
{
	enum { SHOWN = 10 };
	const char **cands = xcalloc(cfg->nr_benches + n + 1, sizeof(*cands)), *near[2];
	struct strbuf sb = STRBUF_INIT;
	size_t nr = 0, found;
	for (size_t i = 0; i < n; i++)
		cands[nr++] = kept[i].name;
	for (size_t i = 0; i < cfg->nr_benches; i++)
		if (cfg->benches[i].name && *cfg->benches[i].name)
			cands[nr++] = cfg->benches[i].name;
	strbuf_addstr(&sb, "--bench: no benchmark '");
	strbuf_add_printable(&sb, name);
	strbuf_addf(&sb, "' in %s", cfg->path ? cfg->path : "the configuration");
	found = suggest_nearest(name, cands, nr, near, 2);
	if (found == 1)
		strbuf_addf(&sb, " (did you mean '%s'?)", near[0]);
	else if (found == 2)
		strbuf_addf(&sb, " (did you mean '%s' or '%s'?)", near[0], near[1]);
	if (!nr)
		strbuf_addstr(&sb, "; it has no [benchmark \"NAME\"] section");
	for (size_t i = 0; i < nr && i < SHOWN; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "; its benchmarks: ", cands[i]);
	if (nr > SHOWN)
		strbuf_addf(&sb, " and %zu more", nr - SHOWN);
	error("%s", sb.buf);
	strbuf_release(&sb);
	free(cands);
}

int config_select(struct config *cfg, const char *names)
{
	struct bench_config *kept = xcalloc(cfg->nr_benches + 1, sizeof(*kept));
	size_t nr = 0, i;
	char *list = xstrdup(names), *p, *save = NULL;
	int ret = 0;
	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		struct bench_config *b;
		while (*p == ' ')
			p++;
		b = config_bench(cfg, p);
		if (!b) {
			bench_unknown(cfg, kept, nr, p);
			ret = RP_EINPUT;
			break;
		}
		kept[nr++] = *b;
		memset(b, 0, sizeof(*b));
		b->name = xstrdup(""); /* a moved-out slot: never matches a name again */
	}
	free(list);
	if (ret) {
		/* Put nothing back half-way: the moved entries are released with kept. */
		for (i = 0; i < nr; i++)
			bench_release(&kept[i]);
		free(kept);
		return ret;
	}
	for (i = 0; i < cfg->nr_benches; i++)
		bench_release(&cfg->benches[i]);
	free(cfg->benches);
	cfg->benches = kept;
	cfg->nr_benches = nr;
	cfg->alloc_benches = cfg->nr_benches + 1;
	return 0;
}

const char *config_said_by(const char *origin)
{
	return origin && !strncmp(origin, "--", 2) ? origin : "the configuration";
}
