#include "core/metric.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/common.h"
#include "util/units.h"

static const struct metric_def metrics[] = {
	{ "wall", UNIT_SECONDS, LOWER_IS_BETTER, "elapsed (wall-clock) time", NULL, 0 },
	{ "user", UNIT_SECONDS, LOWER_IS_BETTER, "user CPU time of the process tree", NULL, 0 },
	{ "sys", UNIT_SECONDS, LOWER_IS_BETTER, "system CPU time of the process tree", NULL, 0 },
	{ "cpu", UNIT_SECONDS, LOWER_IS_BETTER, "user + system CPU time", NULL, 0 },
	{ "maxrss", UNIT_BYTES, LOWER_IS_BETTER, "largest resident set of any process", NULL, 0 },
	{ "minflt", UNIT_COUNT, LOWER_IS_BETTER, "minor page faults", NULL, 0 },
	{ "majflt", UNIT_COUNT, LOWER_IS_BETTER, "major page faults", NULL, 0 },
	{ "nvcsw", UNIT_COUNT, LOWER_IS_BETTER, "voluntary context switches", NULL, 0 },
	{ "nivcsw", UNIT_COUNT, LOWER_IS_BETTER, "involuntary context switches", NULL, 0 },
	{ "rchar", UNIT_BYTES, LOWER_IS_BETTER, "bytes read through read-family calls", NULL, 0 },
	{ "wchar", UNIT_BYTES, LOWER_IS_BETTER, "bytes written through write-family calls", NULL, 0 },
	{ "task-clock", UNIT_SECONDS, LOWER_IS_BETTER, "perf task-clock (CPU time on task)", NULL,
	  METRIC_PERF },
	{ "instructions", UNIT_COUNT, LOWER_IS_BETTER, "retired instructions (perf)", NULL,
	  METRIC_COUNT | METRIC_PERF },
	{ "cycles", UNIT_COUNT, LOWER_IS_BETTER, "CPU cycles (perf)", NULL,
	  METRIC_COUNT | METRIC_PERF },
	{ "cache-misses", UNIT_COUNT, LOWER_IS_BETTER, "cache misses (perf)", NULL, METRIC_PERF },
	{ "branch-misses", UNIT_COUNT, LOWER_IS_BETTER, "branch misses (perf)", NULL, METRIC_PERF },
	{ "iteration", UNIT_SECONDS, LOWER_IS_BETTER,
	  "mean steady-state in-process iteration time (revperf-iteration lines)", NULL, 0 },
	{ "ir", UNIT_COUNT, LOWER_IS_BETTER,
	  "instructions executed by the process tree, counted by valgrind's callgrind", NULL,
	  METRIC_COUNTED | METRIC_COUNT },
	{ "sim-cycles", UNIT_COUNT, LOWER_IS_BETTER,
	  "cycles estimated from callgrind's cache and branch simulation (a fixed model)", NULL,
	  METRIC_COUNTED | METRIC_COUNT | METRIC_CACHE_SIM },
};

const struct metric_def *metric_find(const char *name)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(metrics); i++)
		if (!strcmp(metrics[i].name, name))
			return &metrics[i];
	return NULL;
}

size_t metric_count(void)
{
	return ARRAY_SIZE(metrics);
}

const struct metric_def *metric_at(size_t i)
{
	return i < ARRAY_SIZE(metrics) ? &metrics[i] : NULL;
}

bool metric_in_every_run(const struct metric_def *def)
{
	return def && metric_find(def->name) == def &&
	       !(def->flags & (METRIC_COUNTED | METRIC_PERF)) && strcmp(def->name, "iteration") &&
	       strcmp(def->name, "rchar") && strcmp(def->name, "wchar");
}

static void add_unique(const struct metric_def ***out, size_t *n, size_t *alloc,
		       const struct metric_def *d)
{
	size_t i;
	for (i = 0; i < *n; i++)
		if ((*out)[i] == d)
			return;
	ALLOC_GROW(*out, *n + 1, *alloc);
	(*out)[(*n)++] = d;
}

struct metric_def *metric_def_new(const char *name, enum metric_unit unit, const char *unit_label,
				  enum direction direction, const char *help)
{
	struct metric_def *d = xcalloc(1, sizeof(*d));
	d->name = xstrdup(name);
	d->unit = unit;
	d->unit_label = unit_label ? xstrdup(unit_label) : NULL;
	d->direction = direction;
	d->help = xstrdup(help ? help : "");
	return d;
}

void metric_def_free(struct metric_def *def)
{
	if (!def)
		return;
	free((char *)def->name);
	free((char *)def->unit_label);
	free((char *)def->help);
	free(def);
}

int metric_parse_list(const char *list, const char *origin, const struct metric_def ***out,
		      size_t *n)
{
	return metric_parse_list_with(list, origin, NULL, 0, out, n);
}

int metric_parse_list_with(const char *list, const char *origin, const struct metric_def *const *extra,
			   size_t n_extra, const struct metric_def ***out, size_t *n)
{
	const char *p = list;
	size_t alloc = 0;
	*out = NULL;
	*n = 0;
	while (*p) {
		const char *start, *end;
		char *name;
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		start = p;
		while (*p && *p != ',' && !isspace((unsigned char)*p))
			p++;
		end = p;
		name = xstrndup(start, (size_t)(end - start));
		if (!strcmp(name, "all")) {
			size_t i;
			for (i = 0; i < ARRAY_SIZE(metrics); i++)
				/* counted metrics cost valgrind runs: named, never implied */
				if (strcmp(metrics[i].name, "iteration") &&
				    !(metrics[i].flags & METRIC_COUNTED))
					add_unique(out, n, &alloc, &metrics[i]);
		} else {
			const struct metric_def *d = metric_find(name);
			for (size_t k = 0; !d && k < n_extra; k++)
				if (!strcmp(extra[k]->name, name))
					d = extra[k];
			if (!d) {
				error("%s: unknown metric '%s'; known metrics: wall, user, sys, cpu, "
				      "maxrss, minflt, majflt, nvcsw, nivcsw, rchar, wchar, "
				      "task-clock, instructions, cycles, cache-misses, "
				      "branch-misses, iteration, ir, sim-cycles, all, or a metric.NAME of the "
				      "benchmark",
				      origin, name);
				free(name);
				free(*out);
				*out = NULL;
				*n = 0;
				return RP_EINPUT;
			}
			add_unique(out, n, &alloc, d);
		}
		free(name);
	}
	if (!*n) {
		error("%s: empty metric list; name at least one metric, such as wall", origin);
		return RP_EINPUT;
	}
	return 0;
}

bool metric_value(const struct metric_def *def, const struct proc_metrics *m, double *value)
{
	const char *n = def->name;
	int perf = -1;
	if (!strcmp(n, "wall"))
		*value = (double)m->wall_ns / 1e9;
	else if (!strcmp(n, "user"))
		*value = (double)m->user_ns / 1e9;
	else if (!strcmp(n, "sys"))
		*value = (double)m->sys_ns / 1e9;
	else if (!strcmp(n, "cpu"))
		*value = (double)(m->user_ns + m->sys_ns) / 1e9;
	else if (!strcmp(n, "maxrss"))
		*value = (double)m->maxrss_kb * 1024.0;
	else if (!strcmp(n, "minflt"))
		*value = (double)m->minflt;
	else if (!strcmp(n, "majflt"))
		*value = (double)m->majflt;
	else if (!strcmp(n, "nvcsw"))
		*value = (double)m->nvcsw;
	else if (!strcmp(n, "nivcsw"))
		*value = (double)m->nivcsw;
	else if (!strcmp(n, "rchar") || !strcmp(n, "wchar")) {
		if (!m->io_valid)
			return false;
		*value = (double)(n[0] == 'r' ? m->rchar : m->wchar);
	} else if (!strcmp(n, "task-clock"))
		perf = PERF_TASK_CLOCK;
	else if (!strcmp(n, "instructions"))
		perf = PERF_INSTRUCTIONS;
	else if (!strcmp(n, "cycles"))
		perf = PERF_CYCLES;
	else if (!strcmp(n, "cache-misses"))
		perf = PERF_CACHE_MISSES;
	else if (!strcmp(n, "branch-misses"))
		perf = PERF_BRANCH_MISSES;
	else
		return false; /* iteration: parsed from the run's output by the caller */
	if (perf >= 0) {
		if (!m->perf_supported[perf])
			return false;
		*value = m->perf_value[perf];
		if (perf == PERF_TASK_CLOCK)
			*value /= 1e9;
	}
	return true;
}

const char *metric_count_unit(const struct metric_def *def)
{
	static const struct {
		const char *metric, *unit;
	} units[] = {{"ir", "Ir"}, {"sim-cycles", "cycles"}, {"instructions", "insns"},
		     {"cycles", "cycles"}};
	if (def->unit != UNIT_COUNT)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(def->name, units[i].metric))
			return units[i].unit;
	return NULL;
}

void metric_format(const struct metric_def *def, double v, char *buf, size_t size)
{
	const char *count_unit = metric_count_unit(def);
	if (!isfinite(v)) {
		snprintf(buf, size, "n/a");
		return;
	}
	if (v == 0) {
		if (def->unit != UNIT_CUSTOM) {
			snprintf(buf, size, "%s%s%s",
				 def->unit == UNIT_SECONDS ? "0 s"
				 : def->unit == UNIT_BYTES ? "0 B"
							   : "0",
				 count_unit ? " " : "", count_unit ? count_unit : "");
			return;
		}
	}
	switch (def->unit) {
	case UNIT_SECONDS:
		if (v >= 100)
			snprintf(buf, size, "%.0f s", v);
		else if (v >= 1)
			snprintf(buf, size, "%.3g s", v);
		else if (v >= 1e-3)
			snprintf(buf, size, "%.3g ms", v * 1e3);
		else
			snprintf(buf, size, "%.3g us", v * 1e6);
		break;
	case UNIT_BYTES: units_bytes_format(v, buf, size); break;
	case UNIT_CUSTOM:
		snprintf(buf, size, "%.4g%s%s", v, def->unit_label ? " " : "",
			 def->unit_label ? def->unit_label : "");
		break;
	case UNIT_COUNT: {
		/* "1.25G", or with the count's unit as the attribution writes it: "1.25 G Ir" */
		const char *sep = count_unit ? " " : "", *unit = count_unit ? count_unit : "";
		if (v >= 1e9)
			snprintf(buf, size, "%.3g%sG%s%s", v / 1e9, sep, sep, unit);
		else if (v >= 1e6)
			snprintf(buf, size, "%.3g%sM%s%s", v / 1e6, sep, sep, unit);
		else if (v >= 1e4)
			snprintf(buf, size, "%.3g%sk%s%s", v / 1e3, sep, sep, unit);
		else
			snprintf(buf, size, "%.4g%s%s", v, sep, unit);
		break;
	}
	}
}

/* The unit a value is written in: value / div, then suffix; max_decimals: the finest
 * digit the metric resolves in it (a nanosecond, a byte, one count of a scaled count). */
struct metric_scale {
	double div;
	char suffix[16];
	int max_decimals;
	int digits; /* significant digits of a value alone, as metric_format() writes it */
};

static void metric_scale_pick(const struct metric_def *def, double v, struct metric_scale *s)
{
	static const char *const iec[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	const char *prefix;
	size_t u = 0;
	v = fabs(v);
	s->div = 1;
	s->suffix[0] = '\0';
	s->max_decimals = 9;
	s->digits = 3;
	switch (def->unit) {
	case UNIT_SECONDS:
		if (v >= 1 || v == 0) {
			snprintf(s->suffix, sizeof(s->suffix), " s");
		} else if (v >= 1e-3) {
			s->div = 1e-3;
			s->max_decimals = 6;
			snprintf(s->suffix, sizeof(s->suffix), " ms");
		} else {
			s->div = 1e-6;
			s->max_decimals = 3;
			snprintf(s->suffix, sizeof(s->suffix), " us");
		}
		break;
	case UNIT_BYTES:
		/* whole bytes below 1 KiB, else as units_bytes_format() */
		if (v >= 1024)
			while (u + 1 < ARRAY_SIZE(iec) && v / s->div >= 999.5) {
				s->div *= 1024;
				u++;
			}
		s->max_decimals = u ? (int)ceil(log10(s->div)) : 0;
		snprintf(s->suffix, sizeof(s->suffix), " %s", iec[u]);
		break;
	case UNIT_COUNT:
		s->div = v >= 1e9 ? 1e9 : v >= 1e6 ? 1e6 : v >= 1e4 ? 1e3 : 1;
		s->max_decimals = s->div > 1 ? (int)lround(log10(s->div)) : 2;
		s->digits = s->div > 1 ? 3 : 4;
		prefix = s->div == 1e9 ? "G" : s->div == 1e6 ? "M" : s->div == 1e3 ? "k" : "";
		/* "592.1234M", or with the count's unit: "592.1234 M Ir", "5000 Ir" */
		if (metric_count_unit(def))
			snprintf(s->suffix, sizeof(s->suffix), " %s%s%s", prefix, *prefix ? " " : "",
				 metric_count_unit(def));
		else
			snprintf(s->suffix, sizeof(s->suffix), "%s", prefix);
		break;
	case UNIT_CUSTOM:
		s->digits = 4;
		snprintf(s->suffix, sizeof(s->suffix), "%s%s", def->unit_label ? " " : "",
			 def->unit_label ? def->unit_label : "");
		break;
	}
	if (s->max_decimals > 9)
		s->max_decimals = 9;
}

/*
 * Digits after the point that show `digits` significant digits of x (x != 0), without
 * trailing zeros, as "%.*g" would: 59 is "59", 59.333 "59.33".
 */
static int decimals_for(double x, int digits)
{
	char buf[64];
	int d = digits - 1 - (int)floor(log10(fabs(x)));
	if (d <= 0 || d > 20)
		return d;
	snprintf(buf, sizeof(buf), "%.*f", d, x);
	for (size_t len = strlen(buf); d > 0 && buf[len - 1] == '0'; len--)
		d--;
	return d;
}

/*
 * Whether means shown with d digits after the point (in units of div) differ as they do:
 * each pair either rounds alike (they differ by less than the last digit) or rounds to a
 * difference within half of their own.
 */
static bool rounding_shows_difference(const double *mean, size_t n, double div, int d)
{
	double step = pow(10, -d);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			double a = mean[i] / div, b = mean[j] / div, shown;
			if (!isfinite(a) || !isfinite(b))
				continue;
			shown = (round(a / step) - round(b / step)) * step;
			if (shown != 0 && fabs(shown - (a - b)) > 0.5 * fabs(a - b))
				return false;
		}
	return true;
}

void metric_format_mean_sd(const struct metric_def *def, size_t n, const double *mean,
			   const double *sd, struct metric_mean_sd *out)
{
	struct metric_scale s;
	double largest = 0;
	int d = 0;
	size_t i;
	for (i = 0; i < n; i++)
		if (isfinite(mean[i]) && fabs(mean[i]) > largest)
			largest = fabs(mean[i]);
	for (i = 0; i < n && largest == 0; i++)
		if (isfinite(sd[i]) && sd[i] > largest)
			largest = sd[i];
	metric_scale_pick(def, largest, &s);
	for (i = 0; i < n; i++) {
		if (isfinite(mean[i]) && mean[i] != 0 &&
		    decimals_for(mean[i] / s.div, s.digits) > d)
			d = decimals_for(mean[i] / s.div, s.digits);
		if (isfinite(sd[i]) && sd[i] > 0 && decimals_for(sd[i] / s.div, 2) > d)
			d = decimals_for(sd[i] / s.div, 2);
	}
	if (d > s.max_decimals)
		d = s.max_decimals;
	/* Two means that round apart show their difference, not the rounding's: 1.3047G and
	 * 1.3050G are "1.3047G" and "1.3050G", not "1.30G" and "1.31G" (+0.8%). */
	while (d < s.max_decimals && !rounding_shows_difference(mean, n, s.div, d))
		d++;
	for (i = 0; i < n; i++) {
		struct metric_mean_sd *o = &out[i];
		if (!isfinite(mean[i]) ||
		    (mean[i] != 0 && fabs(mean[i]) / s.div < 0.5 * pow(10, -d))) {
			/* no number, or one too small for the row's unit: each as it is alone */
			metric_format(def, mean[i], o->mean, sizeof(o->mean));
			metric_format(def, sd[i], o->sd, sizeof(o->sd));
			continue;
		}
		snprintf(o->mean, sizeof(o->mean), "%.*f%s", d, mean[i] / s.div, s.suffix);
		if (!isfinite(sd[i]))
			snprintf(o->sd, sizeof(o->sd), "n/a");
		else if (sd[i] == 0)
			snprintf(o->sd, sizeof(o->sd), "0"); /* exactly 0: the same in every unit */
		else if (sd[i] / s.div < 0.5 * pow(10, -d))
			/* nonzero below the last digit shown: never printed as 0 */
			snprintf(o->sd, sizeof(o->sd), "<%.*f%s", d, pow(10, -d), s.suffix);
		else
			snprintf(o->sd, sizeof(o->sd), "%.*f%s", d, sd[i] / s.div, s.suffix);
	}
}
