/*
 * The absolute attribution as JSON, and back (report/attribution_report.h): the object of
 * `diff`, `compare` and the attribution.json files the site reads.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/attribution_report.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/input.h"
#include "util/json_real.h"

static bool have_spread(const struct attribution *a)
{
	return a->runs[0] >= 2 && a->runs[1] >= 2;
}

static void set_weight(struct attribution *a, enum cct_weight w, const char *event)
{
	a->weight = w;
	snprintf(a->weight_event, sizeof(a->weight_event), "%s", event ? event : "");
}

/* The unit of the JSON: "ns", "calls", the event's name, or NULL (folded: unknown). */
static const char *json_unit(const struct attribution *a)
{
	switch (a->weight) {
	case CCT_WEIGHT_ELAPSED_NS:
	case CCT_WEIGHT_CPU_NS:
	case CCT_WEIGHT_WAIT_NS: return "ns";
	case CCT_WEIGHT_CALLS: return "calls";
	case CCT_WEIGHT_EVENT: return a->weight_event;
	case CCT_WEIGHT_UNKNOWN: break;
	}
	return NULL;
}

/* A JSON string; bytes of a name that are not UTF-8 become '?'. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *copy;
	if (j)
		return j;
	copy = xstrdup(s);
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_string("?");
}

static json_t *entry_json(const struct attribution *a, const struct attribution_entry *e,
			  const char *key)
{
	json_t *o = json_object();
	if (key)
		json_object_set_new(o, key, jstr(e->key));
	json_object_set_new(o, "baseline", json_real_or_null(e->side[0].mean));
	json_object_set_new(o, "target", json_real_or_null(e->side[1].mean));
	json_object_set_new(o, "change", json_real_or_null(e->delta));
	json_object_set_new(o, "share", json_real_or_null(e->share));
	json_object_set_new(o, "noise", json_boolean(e->class == ATTRIBUTION_NOISE));
	json_object_set_new(o, "class", json_string(attribution_class_name(e->class)));
	if (key && !strcmp(key, "path"))
		json_object_set_new(o, "moved", json_boolean(e->moved));
	json_object_set_new(o, "change_interval",
			    isfinite(e->ci_lo) ? json_pack("[o, o]", json_real_or_null(e->ci_lo),
							   json_real_or_null(e->ci_hi))
					       : json_null());
	for (int s = 0; s < 2; s++) {
		const struct attribution_stat *st = &e->side[s];
		char name[32];
		snprintf(name, sizeof(name), "%s_sd", s ? "target" : "baseline");
		json_object_set_new(o, name, json_real_or_null(st->sd));
		snprintf(name, sizeof(name), "%s_range", s ? "target" : "baseline");
		json_object_set_new(
		    o, name,
		    json_pack("[o, o]", json_real_or_null(st->min), json_real_or_null(st->max)));
		if (key) {
			snprintf(name, sizeof(name), "%s_calls", s ? "target" : "baseline");
			json_object_set_new(
			    o, name, a->calls_known ? json_real_or_null(st->calls) : json_null());
		}
	}
	return o;
}

static json_t *list_json(const struct attribution *a, const struct attribution_entry *e, size_t n,
			 const char *key)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, entry_json(a, &e[i], key));
	return arr;
}

json_t *attribution_json(const struct attribution *a)
{
	json_t *o = json_object();
	const char *unit = json_unit(a);
	json_object_set_new(o, "unit", unit ? jstr(unit) : json_null());
	json_object_set_new(o, "clock",
			    a->weight == CCT_WEIGHT_ELAPSED_NS ? json_string("elapsed")
			    : a->weight == CCT_WEIGHT_CPU_NS   ? json_string("on-cpu")
			    : a->weight == CCT_WEIGHT_WAIT_NS  ? json_string("off-cpu")
							       : json_null());
	json_object_set_new(o, "measures", json_string(attribution_weight_phrase(a)));
	json_object_set_new(o, "runs",
			    json_pack("[I, I]", (json_int_t)a->runs[0], (json_int_t)a->runs[1]));
	json_object_set_new(o, "spread", json_boolean(have_spread(a)));
	json_object_set_new(o, "alpha", json_real_or_null(a->alpha));
	json_object_set_new(o, "calls_known", json_boolean(a->calls_known));
	json_object_set_new(o, "total", entry_json(a, &a->total, NULL));
	json_object_set_new(o, "functions", list_json(a, a->funcs, a->nr_funcs, "function"));
	json_object_set_new(o, "changed_functions", json_integer((json_int_t)a->changed_funcs));
	json_object_set_new(o, "finding_functions", json_integer((json_int_t)a->finding_funcs));
	json_object_set_new(o, "paths", list_json(a, a->paths, a->nr_paths, "path"));
	json_object_set_new(o, "changed_paths", json_integer((json_int_t)a->changed_paths));
	json_object_set_new(o, "finding_paths", json_integer((json_int_t)a->finding_paths));
	json_object_set_new(o, "moved_paths", json_integer((json_int_t)a->moved_paths));
	return o;
}

/* A number or null (NAN); false when the field is something else. */
static bool get_num(const json_t *o, const char *key, double *v)
{
	const json_t *j = json_object_get(o, key);
	*v = NAN;
	if (!j || json_is_null(j))
		return true;
	if (!json_is_number(j))
		return false;
	*v = json_number_value(j);
	return true;
}

/* [lo, hi] of numbers or nulls, or null. */
static bool get_pair(const json_t *o, const char *key, double *lo, double *hi)
{
	const json_t *j = json_object_get(o, key);
	*lo = *hi = NAN;
	if (!j || json_is_null(j))
		return true;
	if (!json_is_array(j) || json_array_size(j) != 2)
		return false;
	for (size_t i = 0; i < 2; i++) {
		const json_t *x = json_array_get(j, i);
		if (json_is_number(x))
			*(i ? hi : lo) = json_number_value(x);
		else if (!json_is_null(x))
			return false;
	}
	return true;
}

static bool entry_from_json(const json_t *o, const char *key, struct attribution_entry *e)
{
	const json_t *k = key ? json_object_get(o, key) : NULL;
	const json_t *c = json_object_get(o, "class");
	static const char *const sides[2] = {"baseline", "target"};

	memset(e, 0, sizeof(*e));
	if (!json_is_object(o) || (key && !json_is_string(k)) || !json_is_string(c))
		return false;
	if (!get_num(o, "baseline", &e->side[0].mean) || !get_num(o, "target", &e->side[1].mean) ||
	    !get_num(o, "change", &e->delta) || !get_num(o, "share", &e->share) ||
	    !get_pair(o, "change_interval", &e->ci_lo, &e->ci_hi))
		return false;
	for (int s = 0; s < 2; s++) {
		char name[32];
		snprintf(name, sizeof(name), "%s_sd", sides[s]);
		if (!get_num(o, name, &e->side[s].sd))
			return false;
		snprintf(name, sizeof(name), "%s_range", sides[s]);
		if (!get_pair(o, name, &e->side[s].min, &e->side[s].max))
			return false;
		snprintf(name, sizeof(name), "%s_calls", sides[s]);
		if (!get_num(o, name, &e->side[s].calls))
			return false;
	}
	if (!strcmp(json_string_value(c), "finding"))
		e->class = ATTRIBUTION_FINDING;
	else if (!strcmp(json_string_value(c), "noise"))
		e->class = ATTRIBUTION_NOISE;
	else if (!strcmp(json_string_value(c), "no spread"))
		e->class = ATTRIBUTION_NO_SPREAD;
	else
		return false;
	e->moved = json_is_true(json_object_get(o, "moved")); /* absent before: false */
	if (key)
		e->key = xstrdup(json_string_value(k));
	return true;
}

static bool list_from_json(const json_t *o, const char *name, const char *key,
			   struct attribution_entry **out, size_t *nr)
{
	const json_t *arr = json_object_get(o, name);
	size_t n;
	*out = NULL;
	*nr = 0;
	if (!json_is_array(arr) || (n = json_array_size(arr)) > ATTRIBUTION_JSON_MAX)
		return false;
	*out = xcalloc(n ? n : 1, sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		if (!entry_from_json(json_array_get(arr, i), key, &(*out)[i]))
			return false;
		(*nr)++;
	}
	return true;
}

static bool size_from_json(const json_t *o, const char *key, size_t *v)
{
	const json_t *j = json_object_get(o, key);
	if (!json_is_integer(j) || json_integer_value(j) < 0)
		return false;
	*v = (size_t)json_integer_value(j);
	return true;
}

int attribution_from_json(const json_t *o, const char *origin, struct attribution *out)
{
	const json_t *unit = json_object_get(o, "unit"), *clock = json_object_get(o, "clock");
	const json_t *runs = json_object_get(o, "runs");
	const json_t *calls = json_object_get(o, "calls_known");
	double alpha;
	bool ok;

	memset(out, 0, sizeof(*out));
	ok = json_is_object(o) && (json_is_null(unit) || json_is_string(unit)) &&
	     (json_is_null(clock) || json_is_string(clock)) && json_is_array(runs) &&
	     json_array_size(runs) == 2 && json_is_integer(json_array_get(runs, 0)) &&
	     json_is_integer(json_array_get(runs, 1)) && json_is_boolean(calls) &&
	     get_num(o, "alpha", &alpha) && alpha > 0 && alpha < 1 &&
	     /* an event's name as the profile had it: one that weight_event cannot hold would
	      * be cut, maybe inside a UTF-8 sequence, and not written back */
	     (!json_is_string(unit) || strlen(json_string_value(unit)) < sizeof(out->weight_event));
	if (ok) {
		const char *c = json_is_string(clock) ? json_string_value(clock) : "";
		const char *u = json_is_string(unit) ? json_string_value(unit) : NULL;
		if (!strcmp(c, "elapsed"))
			set_weight(out, CCT_WEIGHT_ELAPSED_NS, NULL);
		else if (!strcmp(c, "on-cpu"))
			set_weight(out, CCT_WEIGHT_CPU_NS, NULL);
		else if (!strcmp(c, "off-cpu"))
			set_weight(out, CCT_WEIGHT_WAIT_NS, NULL);
		else if (!u)
			set_weight(out, CCT_WEIGHT_UNKNOWN, NULL);
		else if (!strcmp(u, "calls"))
			set_weight(out, CCT_WEIGHT_CALLS, NULL);
		else
			set_weight(out, CCT_WEIGHT_EVENT, u);
		out->alpha = alpha;
		out->calls_known = json_is_true(calls);
		for (size_t i = 0; i < 2; i++) {
			json_int_t r = json_integer_value(json_array_get(runs, i));
			ok = ok && r >= 1;
			out->runs[i] = ok ? (size_t)r : 0;
		}
	}
	ok = ok && entry_from_json(json_object_get(o, "total"), NULL, &out->total) &&
	     list_from_json(o, "functions", "function", &out->funcs, &out->nr_funcs) &&
	     list_from_json(o, "paths", "path", &out->paths, &out->nr_paths) &&
	     size_from_json(o, "changed_functions", &out->changed_funcs) &&
	     size_from_json(o, "finding_functions", &out->finding_funcs) &&
	     size_from_json(o, "changed_paths", &out->changed_paths) &&
	     size_from_json(o, "finding_paths", &out->finding_paths);
	/* absent from an attribution written before moved paths: none */
	if (ok && json_object_get(o, "moved_paths"))
		ok = size_from_json(o, "moved_paths", &out->moved_paths);
	if (!ok) {
		attribution_release(out);
		error("%s: not an attribution revperf wrote (a field is missing or of the wrong "
		      "type); run the comparison again",
		      origin);
		return RP_EINPUT;
	}
	return 0;
}

int attribution_write_json(const char *path, const struct attribution *a)
{
	json_t *root = json_object();
	FILE *f = fopen_own(path, "w");
	int err = -1;

	json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
	json_object_set_new(root, "schema", json_string("revperf-attribution/2"));
	json_object_set_new(root, "attribution", attribution_json(a));
	if (f &&
	    !json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) &&
	    fputc('\n', f) != EOF)
		err = 0;
	if (f && fclose(f))
		err = -1;
	if (err)
		warning("cannot write %s: %s", path, fs_strerror(errno));
	json_decref(root);
	return err;
}

int attribution_read_json(const char *path, struct attribution *out)
{
	struct strbuf sb = STRBUF_INIT;
	json_error_t jerr;
	json_t *root = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = input_read(&sb, path, &input_state)))
		goto out;
	root = json_loadb(sb.buf, sb.len, 0, &jerr);
	if (!root) {
		error("%s:%d: not JSON (%s); run the comparison again", path, jerr.line, jerr.text);
		ret = RP_EINPUT;
		goto out;
	}
	ret = attribution_from_json(json_object_get(root, "attribution"), path, out);
out:
	json_decref(root);
	strbuf_release(&sb);
	return ret;
}
